"""Choosing the penalty: hold-out, v-fold and leave-one-out CV, stacking, KRR paths.

Ridge (``cv``, ``stacking``, ``batch``) is the estimator of chapter 1,

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

Folds convention (one rule for every CV function): ``folds`` is an int v,
meaning ``KFold(v, shuffle=True, random_state=0)``; a splitter with a ``split(X)``
method (:class:`KFold`, scikit-learn's ``KFold``); or an iterable of
``(train_idx, test_idx)`` pairs whose test sets partition the samples.  The
CV error is the mean over all n points of the squared out-of-fold error,

.. math::

    \\mathrm{CV}(\\lambda) = \\frac1n \\sum_{i=1}^n
    \\bigl(y_i - \\hat f_\\lambda^{(-\\kappa(i))}(x_i)\\bigr)^2 .

Shapes (one convention for every path in kmlib): the penalty is the last axis.
A curve is (L,) (``cross_val_curve``, ``loo_ridge``, ``krr_cv_path``, ``krr_loo``);
fitted values and out-of-fold predictions are (n, L) (``oof_predictions``,
``krr_path``, as :func:`kmlib.ridge.fitted_values_path`); coefficients are (p, L)
(``ridge_fit_path``, as :func:`kmlib.ridge.ridge_path`); per-fold errors are (v, L)
(``fold_errors``); a stack of R datasets or a list of kernel parameters comes first:
(R, L), (R, n, L), (R, p, L) (the ``*_batch`` functions) and
(len(params), L) (``tune_krr``'s table).

Speed.  A whole grid of penalties costs one thin SVD per training block:
with the (centred, scaled) training block :math:`Z = U D V^\\top`, the
coefficients for every λ are :math:`V\\,\\mathrm{diag}(d_j/(d_j^2+\\lambda))
\\,U^\\top y_c`, so each extra λ costs O(np).  Singular values below
:math:`\\max(m, p)\\,\\varepsilon\\, d_1` are treated as zero, so
``lam = 0`` gives the minimum-norm least-squares fit (the rank tolerance of
:func:`numpy.linalg.matrix_rank`).  The ``*_batch`` functions do the same for
a stack of R datasets at once (one batched SVD per fold), which is what the
chapter's simulations use.  Functions that compute many small SVDs run them
with one BLAS thread.  Kernel ridge regression has the same tools, from one
eigendecomposition (``krr_spectral``) or tridiagonalisation (``krr_cv``) per block,
and the joint choice of a kernel parameter and the penalty (``krr_tuning``).
"""
from __future__ import annotations

from .._folds import KFold, Splitter, resolve_folds
from .batch import cv_curves_batch, oof_predictions_batch, ridge_path_batch
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
from .krr_cv import krr_cv_path
from .krr_spectral import krr_loo, krr_path
from .krr_tuning import KRRTuningTable, tune_krr
from .stacking import StackedRidge, stack

__all__ = [
    "KFold", "Splitter", "resolve_folds",
    "holdout_split", "holdout_curve", "fold_errors", "cross_val_curve", "oof_predictions",
    "loo_ridge", "gcv_ridge", "stack", "StackedRidge", "ridge_fit_path",
    "ridge_path_batch", "oof_predictions_batch", "cv_curves_batch",
    "krr_path", "krr_cv_path", "krr_loo", "tune_krr", "KRRTuningTable",
]
