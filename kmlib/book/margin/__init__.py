r"""Helpers for "Support vector machines and kernel logistic regression".

The chapter writes its computations out in its cells: the hard- and soft-margin
quadratic programmes, the SVM dual, one SMO step, the Rademacher Monte Carlo and
the margin bounds.  The estimators themselves live in :mod:`kmlib.svm` (SMO) and
:mod:`kmlib.logistic` (Newton's method).  What remains here is repetition and
second routes:

* :func:`hinge_loss`, :func:`logistic_loss` -- the two margin losses (exercises);
* :func:`margin_bounds` -- the three margin bounds of Mohri, Rostamizadeh &
  Talwalkar (2018), the second route for the chapter's typed formulas;
* :func:`smo_cost` -- SMO's running time and iteration count over sample sizes;
* :func:`decision_grid` -- a decision function on a grid, for contour plots.

Conventions: the SVM penalty is :math:`\lambda` on :math:`\|f\|^2_{\mathcal H}`
in :math:`\sum_i(1-y_if(x_i))_+ + \lambda\|f\|^2_{\mathcal H}`; the dual box is
:math:`C = 1/(2\lambda)`.
"""
from __future__ import annotations

from .bounds import MarginBounds, margin_bounds
from .experiments import decision_grid, smo_cost
from .losses import hinge_loss, logistic_loss

__all__ = [
    "hinge_loss",
    "logistic_loss",
    "MarginBounds",
    "margin_bounds",
    "smo_cost",
    "decision_grid",
]
