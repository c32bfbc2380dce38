r"""Margins, losses and bounds for "Support vector machines and kernel logistic regression".

This module serves the chapter *Support vector machines and kernel logistic
regression*.  The estimators themselves live in :mod:`kmlib.svm` (SMO) and
:mod:`kmlib.logistic` (Newton's method); here are the pieces the chapter uses
to look at them from a second side:

* the two margin losses, :func:`hinge_loss` and :func:`logistic_loss`, and the
  point :func:`loss_crossing` below which the logistic loss is the smaller one;
* the maximum-margin hyperplane through the origin and its soft-margin
  relative, solved as generic quadratic programmes (:func:`hard_margin`,
  :func:`soft_margin`), and the SVM dual solved by a general-purpose QP solver
  (:func:`svm_dual_qp`) to cross-check SMO;
* the intercept from the dual (:func:`svm_intercept`), the dual objective, and
  the Karush--Kuhn--Tucker conditions checked point by point
  (:func:`kkt_residuals`);
* penalised logistic regression on explicit features (:func:`poly2_features`,
  :func:`penalized_logistic`), to cross-check kernel logistic regression;
* the Rademacher complexity of a kernel ball by Monte Carlo
  (:func:`rademacher_ball`) and the margin bounds of Mohri, Rostamizadeh &
  Talwalkar (2018), :func:`margin_bounds`;
* the running time of SMO against the sample size (:func:`smo_cost`).

Conventions: the SVM penalty is :math:`\lambda` on :math:`\|f\|^2_{\mathcal H}`
in :math:`\sum_i(1-y_if(x_i))_+ + \lambda\|f\|^2_{\mathcal H}`; the dual box is
:math:`C = 1/(2\lambda)`.

The code lives in one submodule per concept: ``losses``, ``primal``, ``dual``,
``bounds`` and ``experiments``; every name below is importable from
:mod:`kmlib.book.margin` itself.
"""
from __future__ import annotations

from .bounds import MarginBounds, margin_bounds, rademacher_ball
from .dual import dual_objective, kkt_residuals, svm_dual_qp, svm_intercept
from .experiments import (
    BoundExperiment,
    decision_grid,
    margin_bound_experiment,
    smo_cost,
)
from .losses import hinge_loss, logistic_loss, loss_crossing, ramp_margin_loss
from .primal import (
    geometric_margin,
    hard_margin,
    penalized_logistic,
    poly2_features,
    soft_margin,
)

__all__ = [
    "hinge_loss",
    "logistic_loss",
    "loss_crossing",
    "hard_margin",
    "soft_margin",
    "geometric_margin",
    "svm_dual_qp",
    "dual_objective",
    "svm_intercept",
    "kkt_residuals",
    "poly2_features",
    "penalized_logistic",
    "rademacher_ball",
    "ramp_margin_loss",
    "MarginBounds",
    "margin_bounds",
    "smo_cost",
    "BoundExperiment",
    "margin_bound_experiment",
    "decision_grid",
]
