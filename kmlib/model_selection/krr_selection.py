"""Fast model selection for kernel ridge regression (chapters 2, 3 and 7).

Also importable from :mod:`kmlib.model_selection` (``model_selection.krr_path``, ...).
This module gathers the public names of three submodules:

* ``kmlib.model_selection.krr_spectral``: the eigendecomposition route,
  :func:`krr_path` (fitted values along a penalty grid) and :func:`krr_loo`
  (exact leave-one-out error);
* ``kmlib.model_selection.krr_cv``: :func:`krr_cv_path`, v-fold
  cross-validation by tridiagonalisation of each training block;
* ``kmlib.model_selection.krr_tuning``: :func:`tune_krr` and its
  :class:`KRRTuningTable`, the joint choice of a kernel hyper-parameter and
  the penalty.

All four rest on one observation from chapter 3: with the eigendecomposition
:math:`K = U\\,\\mathrm{diag}(d)\\,U^\\top`, the dual coefficients of kernel
ridge regression are

.. math::

    \\alpha_\\lambda = (K + \\lambda I)^{-1} y
                     = U\\,\\mathrm{diag}\\big(1/(d + \\lambda)\\big)\\,U^\\top y ,

so after one :math:`O(n^3)` factorisation every further value of
:math:`\\lambda` costs only :math:`O(n^2)` (a "spectral filter").  The
penalty convention is the book's: :math:`\\lambda` multiplies
:math:`\\|f\\|_{\\mathcal H}^2` against the *sum* of squared errors.

:func:`krr_cv_path` (and so :func:`tune_krr`) uses a cheaper relative of the
same idea on each training block: the Householder tridiagonalisation
:math:`K_{tr,tr} = Q\\,T\\,Q^\\top` (the first, and dominant, stage of an
eigendecomposition, about half its cost), after which
:math:`(K_{tr,tr} + \\lambda I)^{-1} y_{tr} = Q\\,(T + \\lambda I)^{-1} Q^\\top y_{tr}`
needs only an :math:`O(m)` tridiagonal solve per :math:`\\lambda`.

A value ``lam = 0`` is allowed in :func:`krr_path`, :func:`krr_cv_path` and
:func:`tune_krr` and means the minimum-norm interpolant (pseudo-inverse with
the rank tolerance documented in :mod:`kmlib.krr`), matching
``KernelRidge(kernel, lam=0)``; it is computed through the eigendecomposition
and, being requested explicitly, raises no warning when eigenvalues are
dropped.  A penalty ``lam > 0`` for which a training block ``K + lam I`` is
numerically not positive definite (an indefinite kernel) is handled the same
way, with one :class:`RuntimeWarning`, as in :class:`kmlib.krr.KernelRidge`.

Cross-validation error, as everywhere in kmlib (chapter 2): the mean over all
n points of the squared out-of-fold error,
:math:`\\mathrm{CV}(\\lambda) = \\frac1n\\sum_i (y_i - \\hat f^{(-\\kappa(i))}_\\lambda(x_i))^2`.
"""
from __future__ import annotations

from .krr_cv import krr_cv_path
from .krr_spectral import krr_loo, krr_path
from .krr_tuning import KRRTuningTable, tune_krr

__all__ = ["krr_path", "krr_cv_path", "krr_loo", "tune_krr", "KRRTuningTable"]
