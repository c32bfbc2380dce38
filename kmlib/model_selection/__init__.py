"""Choosing the ridge penalty: hold-out, v-fold and leave-one-out CV, stacking (chapter 2).

Every function here serves chapter 2 of the book ("Choosing λ").  Ridge is
the estimator of chapter 1,

.. math::

    (\\hat\\mu_\\lambda, \\hat\\beta_\\lambda) = \\arg\\min_{\\mu, \\beta}
    \\|y - \\mu \\mathbf 1 - X\\beta\\|_2^2 + \\lambda \\|\\beta\\|_2^2 ,

with the same options as :class:`kmlib.ridge.RidgeRegression`: an
unpenalised intercept (``fit_intercept``) and, with ``standardize=True``,
columns centred and scaled to :math:`\\ell_2`-norm :math:`\\sqrt m` using
the statistics of the *training* rows only (``m`` training rows), with
coefficients reported on the original scale.  As in ``RidgeRegression``, a
column that is constant on some training block cannot be standardised and
raises ``ValueError``.  Without an intercept nothing is centred and
``standardize`` scales the raw columns to norm :math:`\\sqrt m`.

Folds convention (shared with :mod:`kmlib._folds`): ``folds`` is an int v,
meaning ``KFold(v, shuffle=True, seed=0)``, or an iterable of
``(train_idx, test_idx)`` pairs whose test sets partition the samples.  The
CV error is the mean over all n points of the squared out-of-fold error,

.. math::

    \\mathrm{CV}(\\lambda) = \\frac1n \\sum_{i=1}^n
    \\bigl(y_i - \\hat f_\\lambda^{(-\\kappa(i))}(x_i)\\bigr)^2 .

Speed.  A whole grid of penalties costs one thin SVD per training block:
with the (centred, scaled) training block :math:`Z = U D V^\\top`, the
coefficients for every λ are :math:`V\\,\\mathrm{diag}(d_j/(d_j^2+\\lambda))
\\,U^\\top y_c`, so each extra λ costs O(np).  Singular values below
:math:`\\max(m, p)\\,\\varepsilon\\, d_1` are treated as zero, so
``lam = 0`` gives the minimum-norm least-squares fit (the rank tolerance of
:func:`numpy.linalg.matrix_rank`).  The ``*_batch`` functions do the same for
a stack of R datasets at once (one batched SVD per fold), which is what the
chapter's simulations use.  Functions that compute many small SVDs run them
with a single BLAS thread (via ``threadpoolctl`` when it is installed):
threading small factorisations only adds overhead, a factor of ten or more
on a busy machine.
"""
from __future__ import annotations

from .._folds import KFold, resolve_folds
from .cv import (
    cross_val_curve,
    fold_errors,
    gcv_ridge,
    holdout_curve,
    holdout_split,
    loo_ridge,
    oof_predictions,
    ridge_fit_path,
)
from .krr_selection import KRRTuningTable, krr_cv_path, krr_loo, krr_path, tune_krr
from .stacking import (
    StackedRidge,
    stack,
    stack_predict,
)
from .studies import (
    choose_v_study,
    cv_curves_batch,
    expected_risk,
    gaussian_datasets,
    gaussian_risk,
    mc_summary,
    oof_predictions_batch,
    ridge_path_batch,
    stacking_study,
)

__all__ = [
    "KFold",
    "resolve_folds",
    "holdout_split",
    "holdout_curve",
    "fold_errors",
    "cross_val_curve",
    "oof_predictions",
    "loo_ridge",
    "gcv_ridge",
    "stack",
    "stack_predict",
    "StackedRidge",
    "ridge_fit_path",
    "ridge_path_batch",
    "oof_predictions_batch",
    "cv_curves_batch",
    "gaussian_datasets",
    "gaussian_risk",
    "expected_risk",
    "stacking_study",
    "choose_v_study",
    "mc_summary",
    "krr_path",
    "krr_cv_path",
    "krr_loo",
    "tune_krr",
    "KRRTuningTable",
]
