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

import contextlib
import functools
import warnings
from typing import Any, Callable

import numpy as np
import scipy.linalg
import scipy.optimize
from sklearn.base import BaseEstimator, RegressorMixin

from ._folds import KFold, resolve_folds
from ._validation import (
    as_float_array,
    check_finite_result,
    check_fitted,
    check_int,
    check_lam,
    check_matrix,
    check_n_features,
    check_nonnegative,
    check_positive,
    check_rng,
    check_same_length,
    check_vector,
    finite_result,
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
]

try:  # optional: shipped with scikit-learn; without it nothing is limited
    from threadpoolctl import threadpool_limits as _threadpool_limits
except ImportError:  # pragma: no cover
    _threadpool_limits = None

_EPS = np.finfo(float).eps
#: Above this many flops (m * p * min(m, p)) per SVD, BLAS keeps all its threads.
_SMALL_SVD_FLOPS = 2e7
#: Datasets per chunk in the batched simulators (bounds memory, not results).
_CHUNK = 256


# --------------------------------------------------------------------------
# BLAS threads
# --------------------------------------------------------------------------
def _one_blas_thread(func: Callable[..., Any]) -> Callable[..., Any]:
    """Run ``func`` with one BLAS thread when its SVDs are small.

    Many small SVDs (one per fold, per dataset) gain nothing from threading
    but suffer badly from thread start-up and spinning, by a factor of ten or
    more on a busy machine.  Large factorisations keep all threads.
    """
    @functools.wraps(func)
    def wrapper(X: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            shape = np.shape(X)
        except ValueError:           # ragged input: let the validators report it
            shape = ()
        m, p = (shape[-2], shape[-1]) if len(shape) >= 2 else (shape[0] if shape else 0, 1)
        if _threadpool_limits is None or m * p * min(m, p) > _SMALL_SVD_FLOPS:
            ctx: Any = contextlib.nullcontext()
        else:
            ctx = _threadpool_limits(limits=1, user_api="blas")
        with ctx:
            return func(X, *args, **kwargs)
    return wrapper


# --------------------------------------------------------------------------
# validation helpers
# --------------------------------------------------------------------------
def _check_lams(lams: Any) -> np.ndarray:
    """Return the penalty grid as a 1-D float array (a scalar becomes length 1)."""
    arr = check_lam(lams, "lams", allow_array=True)
    return np.atleast_1d(np.asarray(arr, dtype=float))


def _check_Xy(X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    X = check_matrix(X, "X")
    y = check_vector(y, "y")
    check_same_length(X, y, "X", "y")
    return X, y


def _resolve(folds: Any, n: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """``resolve_folds`` with error messages that name the ``folds`` argument."""
    if isinstance(folds, bool):
        raise ValueError(f"folds must be an int v >= 2 or (train, test) pairs; got {folds!r}")
    try:
        return resolve_folds(folds, n)
    except ValueError as exc:
        msg = str(exc)
        if not msg.startswith("folds"):
            msg = f"folds={folds!r} is invalid for n={n} samples: {msg}"
        raise ValueError(msg) from exc


def _check_batch(X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    """Validate a stack of datasets: X of shape (R, n, p), y of shape (R, n)."""
    try:
        X = np.asarray(X, dtype=float)
        y = np.asarray(y, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError("X and y must be numeric arrays") from exc
    if X.ndim != 3 or min(X.shape) == 0:
        raise ValueError(f"X must have shape (n_datasets, n, p) with no empty axis; got {X.shape}")
    if y.shape != X.shape[:2]:
        raise ValueError(f"y must have shape (n_datasets, n) = {X.shape[:2]}; got {y.shape}")
    for a, name in ((X, "X"), (y, "y")):
        if not np.all(np.isfinite(a)):
            raise ValueError(f"{name} contains NaN or infinite values")
    return X, y


# --------------------------------------------------------------------------
# the engine: one (batched) thin SVD per training block, all lambdas at once
# --------------------------------------------------------------------------
def _path_core(X: np.ndarray, y: np.ndarray, lams: np.ndarray, fit_intercept: bool,
               standardize: bool) -> tuple[np.ndarray, np.ndarray]:
    """Ridge intercepts (R, L) and coefficients (R, p, L) for a stack X (R, m, p), y (R, m)."""
    m, p = X.shape[1], X.shape[2]
    if fit_intercept:
        mu = X.mean(axis=1)                                   # (R, p)
        ybar = y.mean(axis=1)                                 # (R,)
    else:
        mu = np.zeros((X.shape[0], p))
        ybar = np.zeros(X.shape[0])
    Z = X - mu[:, None, :]
    if standardize:
        s = np.sqrt(np.mean(Z * Z, axis=1))                   # norm sqrt(m) after scaling
        bad = s <= 100 * _EPS * np.max(np.abs(X), axis=1)     # RidgeRegression's rule
        if np.any(bad):
            cols = np.unique(np.nonzero(bad)[1]).tolist()
            raise ValueError(
                f"X has column(s) {cols} that are constant on a training set, which cannot "
                "be standardised (zero spread); drop them or pass standardize=False")
        Z = Z / s[:, None, :]
    else:
        s = np.ones_like(mu)
    yc = y - ybar[:, None]
    U, d, Vt = np.linalg.svd(Z, full_matrices=False)          # batched thin SVD
    keep = d > max(m, p) * _EPS * d[:, :1]
    b = np.einsum("rmk,rm->rk", U, yc)                        # U^T y_c
    with np.errstate(divide="ignore", invalid="ignore"):
        F = np.where(keep[:, :, None], d[:, :, None] / (d[:, :, None] ** 2 + lams), 0.0)
    coefs = np.einsum("rkp,rkl->rpl", Vt, F * b[:, :, None]) / s[:, :, None]
    intercepts = ybar[:, None] - np.einsum("rp,rpl->rl", mu, coefs)
    return intercepts, coefs


def _predict_core(Xtr: np.ndarray, ytr: np.ndarray, Xte: np.ndarray, lams: np.ndarray,
                  fit_intercept: bool, standardize: bool) -> np.ndarray:
    """Predictions (R, m_te, L) at Xte (R, m_te, p) of ridge fitted on (Xtr, ytr)."""
    a, B = _path_core(Xtr, ytr, lams, fit_intercept, standardize)
    return a[:, None, :] + np.einsum("rtp,rpl->rtl", Xte, B)


# --------------------------------------------------------------------------
# hold-out
# --------------------------------------------------------------------------
def holdout_split(n: int, test_fraction: float = 0.2,
                  seed: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Split ``range(n)`` at random into a training and a validation set.

    Parameters
    ----------
    n : int
        Number of samples (at least 2).
    test_fraction : float in (0, 1)
        Fraction of the points put in the validation set; the validation set
        has ``round(test_fraction * n)`` points, at least 1 and at most n - 1.
    seed : int, Generator or None
        Seed of the random permutation.

    Returns
    -------
    train_idx, test_idx : ndarray of int
        Sorted, disjoint index arrays whose union is ``range(n)``.

    Examples
    --------
    >>> tr, te = holdout_split(10, 0.3, seed=0)
    >>> len(tr), len(te)
    (7, 3)
    """
    n = check_int(n, "n", minimum=2)
    f = check_positive(test_fraction, "test_fraction")
    if f >= 1:
        raise ValueError(f"test_fraction must lie in (0, 1); got {test_fraction!r}")
    n_te = int(min(max(round(f * n), 1), n - 1))
    perm = check_rng(seed).permutation(n)
    return np.sort(perm[n_te:]), np.sort(perm[:n_te])


@finite_result
@_one_blas_thread
def holdout_curve(X: Any, y: Any, lams: Any, train_idx: Any, test_idx: Any, *,
                  fit_intercept: bool = True, standardize: bool = True) -> np.ndarray:
    """Validation error of ridge trained on one split, for every λ in a grid.

    Parameters
    ----------
    X : array of shape (n, p)
    y : array of shape (n,)
    lams : array of shape (L,)
        Penalties (>= 0).
    train_idx, test_idx : arrays of int
        Disjoint, non-empty index sets (e.g. from :func:`holdout_split`).
    fit_intercept, standardize : bool
        As in :class:`kmlib.ridge.RidgeRegression`.

    Returns
    -------
    err : ndarray of shape (L,)
        Mean squared error on the validation rows.
    """
    X, y = _check_Xy(X, y)
    lams = _check_lams(lams)
    n = len(y)
    idx = []
    for a, name in ((train_idx, "train_idx"), (test_idx, "test_idx")):
        try:
            v = np.asarray(a).ravel()
        except (TypeError, ValueError) as exc:  # pragma: no cover - asarray accepts most input
            raise ValueError(f"{name} must be an array of indices") from exc
        if v.size == 0 or not np.issubdtype(v.dtype, np.integer):
            raise ValueError(f"{name} must be a non-empty array of integer indices; got {v!r}")
        if v.min() < 0 or v.max() >= n:
            raise ValueError(f"{name} has indices outside 0..{n - 1}")
        idx.append(v)
    tr, te = idx
    if np.intersect1d(tr, te).size:
        raise ValueError("train_idx and test_idx must be disjoint")
    P = _predict_core(X[tr][None], y[tr][None], X[te][None], lams, fit_intercept, standardize)[0]
    return np.mean((y[te, None] - P) ** 2, axis=0)


# --------------------------------------------------------------------------
# v-fold cross-validation
# --------------------------------------------------------------------------
@finite_result
@_one_blas_thread
def oof_predictions(X: Any, y: Any, lams: Any, folds: Any = 5, *, fit_intercept: bool = True,
                    standardize: bool = True) -> np.ndarray:
    """Out-of-fold ridge predictions for every λ (the stacking design matrix).

    Entry ``P[i, l]`` is the prediction at ``x_i`` of ridge with penalty
    ``lams[l]`` fitted on the training rows of the fold that holds out i.

    Parameters
    ----------
    X : array of shape (n, p)
    y : array of shape (n,)
    lams : array of shape (L,)
        Penalties (>= 0).
    folds : int or iterable of (train_idx, test_idx)
        See the module docstring; an int v means ``KFold(v, shuffle=True, seed=0)``.
    fit_intercept, standardize : bool
        As in :class:`kmlib.ridge.RidgeRegression`; the centring and scaling
        use the training rows of each fold only.

    Returns
    -------
    P : ndarray of shape (n, L)
    """
    X, y = _check_Xy(X, y)
    lams = _check_lams(lams)
    pairs = _resolve(folds, len(y))
    P = np.empty((len(y), lams.size))
    for tr, te in pairs:
        P[te] = _predict_core(X[tr][None], y[tr][None], X[te][None], lams,
                              fit_intercept, standardize)[0]
    return P


@finite_result
def cross_val_curve(X: Any, y: Any, lams: Any, folds: Any = 5, *, fit_intercept: bool = True,
                    standardize: bool = True) -> np.ndarray:
    """v-fold cross-validation error of ridge on a grid of penalties.

    ``cv[l] = mean_i (y_i - P[i, l])**2`` with ``P`` from :func:`oof_predictions`:
    one thin SVD per fold, then O(np) per penalty.

    Parameters
    ----------
    X : array of shape (n, p)
    y : array of shape (n,)
    lams : array of shape (L,)
        Penalties (>= 0).
    folds : int or iterable of (train_idx, test_idx)
        An int v means ``KFold(v, shuffle=True, seed=0)``.
    fit_intercept, standardize : bool
        As in :class:`kmlib.ridge.RidgeRegression`.

    Returns
    -------
    cv : ndarray of shape (L,)

    Examples
    --------
    >>> from kmlib import datasets
    >>> X, y, _ = datasets.linear_model(40, 3, seed=0)
    >>> cross_val_curve(X, y, [0.1, 1.0, 10.0], folds=5).shape
    (3,)
    """
    X, y = _check_Xy(X, y)
    P = oof_predictions(X, y, lams, folds, fit_intercept=fit_intercept, standardize=standardize)
    return np.mean((y[:, None] - P) ** 2, axis=0)


@finite_result
@_one_blas_thread
def fold_errors(X: Any, y: Any, lams: Any, folds: Any = 5, *, fit_intercept: bool = True,
                standardize: bool = True) -> np.ndarray:
    """Validation error on each fold separately (v hold-outs, one per fold).

    Returns
    -------
    E : ndarray of shape (v, L)
        ``E[k, l]`` is the mean squared error on test fold k at ``lams[l]``.
        ``E.mean(axis=0)`` is the plain average over the v splits; it
        equals :func:`cross_val_curve` when all folds have the same size, and
        the fold-size weighted average always equals it.
    """
    X, y = _check_Xy(X, y)
    lams = _check_lams(lams)
    pairs = _resolve(folds, len(y))
    E = np.empty((len(pairs), lams.size))
    for k, (tr, te) in enumerate(pairs):
        P = _predict_core(X[tr][None], y[tr][None], X[te][None], lams,
                          fit_intercept, standardize)[0]
        E[k] = np.mean((y[te, None] - P) ** 2, axis=0)
    return E


@finite_result
def ridge_fit_path(X: Any, y: Any, lams: Any, *, fit_intercept: bool = True,
                   standardize: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Ridge fits on all the data for every λ from one thin SVD.

    Returns
    -------
    intercepts : ndarray of shape (L,)
    coefs : ndarray of shape (p, L)
        Column l is the coefficient vector (original scale) at ``lams[l]``, so
        predictions at new points are ``intercepts + X_new @ coefs``.
    """
    X, y = _check_Xy(X, y)
    lams = _check_lams(lams)
    a, B = _path_core(X[None], y[None], lams, fit_intercept, standardize)
    return a[0], B[0]


# --------------------------------------------------------------------------
# leave-one-out and GCV for a fixed design scaling
# --------------------------------------------------------------------------
def _smoother_svd(X: Any, y: Any, fit_intercept: bool):
    X, y = _check_Xy(X, y)
    n = len(y)
    if fit_intercept:
        if n < 2:
            raise ValueError("X must have at least 2 rows for leave-one-out with an intercept")
        Xc, yc, h0 = X - X.mean(axis=0), y - y.mean(), 1.0 / n
    else:
        Xc, yc, h0 = X, y, 0.0
    U, d, _ = np.linalg.svd(Xc, full_matrices=False)
    keep = d > max(Xc.shape) * _EPS * d[0] if d[0] > 0 else np.zeros(d.shape, dtype=bool)
    return y, yc, h0, U[:, keep], d[keep]


@finite_result(allow_inf=True)  # lam = 0 with interpolation: documented inf
def loo_ridge(X: Any, y: Any, lams: Any, *, fit_intercept: bool = True,
              return_leverage: bool = False) -> Any:
    """Exact leave-one-out CV error of ridge from one SVD (the linear-smoother identity).

    Ridge with an unpenalised intercept is penalised least squares with the
    fixed design ``[1, X]`` and penalty ``diag(0, lam I)``; its fitted values
    are ``H y`` with ``H = 11^T/n + X_c (X_c^T X_c + lam I)^{-1} X_c^T``
    (``X_c`` the centred design).  For such a smoother the leave-one-out
    residual is exactly ``(y_i - yhat_i) / (1 - H_ii)``.

    The columns of ``X`` are used as given (no standardisation).  Scaling the
    columns inside each leave-one-out fit would change the penalty from one
    fit to the next, so the refits would no longer be one fixed penalised
    least-squares problem with a row deleted, and the identity would be only
    approximate.  Standardise the whole of ``X`` once beforehand if wanted.

    Parameters
    ----------
    X : array of shape (n, p)
    y : array of shape (n,)
    lams : array of shape (L,)
        Penalties (>= 0).
    fit_intercept : bool, default True
        Unpenalised intercept (centring is exact inside LOO, see above).
    return_leverage : bool, default False
        Also return the leverages ``H_ii`` (array of shape (n, L)).

    Returns
    -------
    cv : ndarray of shape (L,)
        ``mean_i ((y_i - yhat_i) / (1 - H_ii))**2``.  Where a leverage equals
        1 (possible only at ``lam = 0`` with an interpolating fit) the
        leave-one-out residual is undefined: the entry is ``inf`` and one
        :class:`RuntimeWarning` says so.
    H_diag : ndarray of shape (n, L), only with ``return_leverage=True``
    """
    lams = _check_lams(lams)
    y, yc, h0, U, d = _smoother_svd(X, y, fit_intercept)
    S = d[:, None] ** 2 / (d[:, None] ** 2 + lams)            # (r, L) shrinkage factors
    H = h0 + (U * U) @ S                                      # (n, L) leverages
    fitted = (y - yc)[:, None] + U @ (S * (U.T @ yc)[:, None])
    resid = y[:, None] - fitted
    denom = 1.0 - H
    bad = denom <= 1e3 * _EPS
    if np.any(bad):
        warnings.warn(
            "loo_ridge: some points have leverage H_ii = 1 (an interpolating fit, lam = 0); "
            "their leave-one-out residual is undefined and the CV error was set to inf",
            RuntimeWarning, stacklevel=2)
    with np.errstate(divide="ignore", invalid="ignore"):
        e = np.where(bad, np.inf, resid / np.where(bad, 1.0, denom))
    cv = np.mean(e ** 2, axis=0)
    return (cv, H) if return_leverage else cv


@finite_result(allow_inf=True)  # lam = 0 with interpolation: documented inf
def gcv_ridge(X: Any, y: Any, lams: Any, *, fit_intercept: bool = True) -> np.ndarray:
    """Generalised cross-validation of ridge (Golub, Heath and Wahba, 1979).

    ``GCV(lam) = mean_i (y_i - yhat_i)**2 / (1 - tr(H)/n)**2``: leave-one-out
    with every leverage replaced by the average leverage ``tr(H)/n``.  ``X``
    is used as given, as in :func:`loo_ridge`.

    Returns
    -------
    gcv : ndarray of shape (L,)
        ``inf`` where ``tr(H) = n`` (an interpolating fit).
    """
    lams = _check_lams(lams)
    y, yc, h0, U, d = _smoother_svd(X, y, fit_intercept)
    n = len(y)
    S = d[:, None] ** 2 / (d[:, None] ** 2 + lams)
    df = n * h0 + S.sum(axis=0)
    fitted = (y - yc)[:, None] + U @ (S * (U.T @ yc)[:, None])
    rss = np.mean((y[:, None] - fitted) ** 2, axis=0)
    denom = (1.0 - df / n) ** 2
    with np.errstate(divide="ignore"):
        return np.where(denom > 1e3 * _EPS, rss / np.where(denom > 0, denom, 1.0), np.inf)


# --------------------------------------------------------------------------
# stacking
# --------------------------------------------------------------------------
@finite_result
def stack(P: Any, y: Any) -> np.ndarray:
    """Stacking weights: non-negative least squares of ``y`` on the columns of ``P``.

    Solves ``min_{w >= 0} ||y - P w||^2`` with :func:`scipy.optimize.nnls`
    (Lawson--Hanson active set), where ``P`` holds out-of-fold predictions,
    e.g. from :func:`oof_predictions`.

    Parameters
    ----------
    P : array of shape (n, L)
    y : array of shape (n,)

    Returns
    -------
    w : ndarray of shape (L,), entries >= 0
    """
    P = check_matrix(P, "P", allow_1d=False)
    y = check_vector(y, "y")
    check_same_length(P, y, "P", "y")
    w, _ = scipy.optimize.nnls(P, y, maxiter=50 * P.shape[1])
    return w


@finite_result
def stack_predict(P_new: Any, weights: Any) -> np.ndarray:
    """Stacked prediction ``P_new @ weights``.

    Parameters
    ----------
    P_new : array of shape (m, L)
        Predictions at m new points of the L models refitted on all the data
        (e.g. ``intercepts + X_new @ coefs`` from :func:`ridge_fit_path`).
    weights : array of shape (L,)
        Non-negative weights from :func:`stack`.

    Returns
    -------
    ndarray of shape (m,)
    """
    P_new = check_matrix(P_new, "P_new", allow_1d=False)
    w = check_vector(weights, "weights")
    if w.shape[0] != P_new.shape[1]:
        raise ValueError(f"weights must have length L={P_new.shape[1]} (columns of P_new); "
                         f"got {w.shape[0]}")
    if np.any(w < 0):
        raise ValueError("weights must be non-negative (stacking weights from nnls)")
    return P_new @ w


class StackedRidge(RegressorMixin, BaseEstimator):
    """Stacked ridge regression: an NNLS combination of ridge fits along a λ-grid.

    ``fit`` computes the out-of-fold predictions of every penalty, the NNLS
    weights ``weights_`` of :func:`stack`, and then combines the refits on
    all the data with those weights (Breiman, 1996).  The combination is
    itself a linear predictor, stored as ``coef_`` and ``intercept_``.

    Parameters
    ----------
    lams : array of shape (L,)
        Penalty grid (>= 0).
    folds : int or iterable of (train_idx, test_idx), default 5
        Folds for the out-of-fold predictions.
    fit_intercept, standardize : bool, default True
        As in :class:`kmlib.ridge.RidgeRegression`.

    Attributes
    ----------
    weights_ : ndarray of shape (L,)
    oof_ : ndarray of shape (n, L)
        Out-of-fold predictions (the stacking design).
    cv_ : ndarray of shape (L,)
        The CV curve computed from ``oof_``.
    coefs_ : ndarray of shape (p, L), intercepts_ : ndarray of shape (L,)
        Refits on all the data.
    coef_ : ndarray of shape (p,), intercept_ : float
        The stacked predictor.
    """

    def __init__(self, lams: Any, folds: Any = 5, fit_intercept: bool = True,
                 standardize: bool = True) -> None:
        self.lams = lams
        self.folds = folds
        self.fit_intercept = fit_intercept
        self.standardize = standardize

    def fit(self, X: Any, y: Any) -> "StackedRidge":
        """Fit the stacked predictor; returns ``self``."""
        X, y = _check_Xy(X, y)
        opts = dict(fit_intercept=self.fit_intercept, standardize=self.standardize)
        self.oof_ = oof_predictions(X, y, self.lams, self.folds, **opts)
        self.cv_ = np.mean((y[:, None] - self.oof_) ** 2, axis=0)
        self.weights_ = stack(self.oof_, y)
        self.intercepts_, self.coefs_ = ridge_fit_path(X, y, self.lams, **opts)
        self.coef_ = check_finite_result(self.coefs_ @ self.weights_, "StackedRidge.fit: coef_")
        self.intercept_ = check_finite_result(float(self.intercepts_ @ self.weights_),
                                              "StackedRidge.fit: intercept_")
        self.n_features_in_ = X.shape[1]
        return self

    @finite_result
    def predict(self, X: Any) -> np.ndarray:
        """Stacked predictions at the rows of ``X``."""
        check_fitted(self, "coef_")
        X = check_matrix(X, "X")
        check_n_features(self, X)
        return check_finite_result(self.intercept_ + X @ self.coef_, "StackedRidge.predict")


# --------------------------------------------------------------------------
# batched versions for simulation studies
# --------------------------------------------------------------------------
@finite_result
@_one_blas_thread
def ridge_path_batch(X: Any, y: Any, lams: Any, *, fit_intercept: bool = True,
                     standardize: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """:func:`ridge_fit_path` for a stack of R datasets (one batched SVD).

    Parameters
    ----------
    X : array of shape (R, n, p)
    y : array of shape (R, n)
    lams : array of shape (L,)

    Returns
    -------
    intercepts : ndarray of shape (R, L)
    coefs : ndarray of shape (R, p, L)
    """
    X, y = _check_batch(X, y)
    lams = _check_lams(lams)
    a = np.empty((X.shape[0], lams.size))
    B = np.empty((X.shape[0], X.shape[2], lams.size))
    for s in range(0, X.shape[0], _CHUNK):
        a[s:s + _CHUNK], B[s:s + _CHUNK] = _path_core(
            X[s:s + _CHUNK], y[s:s + _CHUNK], lams, fit_intercept, standardize)
    return a, B


@finite_result
@_one_blas_thread
def oof_predictions_batch(X: Any, y: Any, lams: Any, folds: Any = 5, *,
                          fit_intercept: bool = True, standardize: bool = True) -> np.ndarray:
    """:func:`oof_predictions` for a stack of R datasets sharing the same folds.

    Parameters
    ----------
    X : array of shape (R, n, p)
    y : array of shape (R, n)
    lams : array of shape (L,)
    folds : int or iterable of (train_idx, test_idx)
        One fold assignment used for every dataset (harmless for i.i.d. data:
        the assignment is independent of the data).

    Returns
    -------
    P : ndarray of shape (R, n, L)
    """
    X, y = _check_batch(X, y)
    lams = _check_lams(lams)
    pairs = _resolve(folds, X.shape[1])
    P = np.empty((X.shape[0], X.shape[1], lams.size))
    for s in range(0, X.shape[0], _CHUNK):
        Xs, ys = X[s:s + _CHUNK], y[s:s + _CHUNK]
        for tr, te in pairs:
            P[s:s + _CHUNK, te] = _predict_core(Xs[:, tr], ys[:, tr], Xs[:, te], lams,
                                                fit_intercept, standardize)
    return P


@finite_result
def cv_curves_batch(X: Any, y: Any, lams: Any, folds: Any = 5, *, fit_intercept: bool = True,
                    standardize: bool = True) -> np.ndarray:
    """:func:`cross_val_curve` for a stack of R datasets; returns shape (R, L)."""
    X, y = _check_batch(X, y)
    P = oof_predictions_batch(X, y, lams, folds, fit_intercept=fit_intercept,
                              standardize=standardize)
    return np.mean((y[:, :, None] - P) ** 2, axis=1)


def _check_sigma_matrix(Sigma: Any, p: int) -> np.ndarray | None:
    if Sigma is None:
        return None
    S = check_matrix(Sigma, "Sigma", allow_1d=False)
    if S.shape != (p, p):
        raise ValueError(f"Sigma must have shape ({p}, {p}) to match beta0; got {S.shape}")
    if not np.allclose(S, S.T, rtol=1e-10, atol=1e-12):
        raise ValueError("Sigma must be symmetric")
    return S


@finite_result
def gaussian_datasets(n_datasets: int, n: int, beta0: Any, sigma: float = 1.0, *,
                      Sigma: Any = None, seed: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Draw R independent datasets from the Gaussian random-design linear model.

    Rows ``x_i ~ N(0, Sigma)`` i.i.d. and ``y_i = x_i^T beta0 + sigma eps_i``
    with standard normal noise.

    Parameters
    ----------
    n_datasets : int
        Number R of datasets.
    n : int
        Sample size of each dataset.
    beta0 : array of shape (p,)
        True coefficients.
    sigma : float
        Noise standard deviation.
    Sigma : array of shape (p, p), optional
        Covariance of the rows (positive definite); identity when omitted.
    seed : int, Generator or None

    Returns
    -------
    X : ndarray of shape (R, n, p)
    y : ndarray of shape (R, n)
    """
    R = check_int(n_datasets, "n_datasets")
    n = check_int(n, "n")
    beta0 = check_vector(beta0, "beta0")
    sigma = check_nonnegative(sigma, "sigma")
    S = _check_sigma_matrix(Sigma, beta0.size)
    rng = check_rng(seed)
    X = rng.standard_normal((R, n, beta0.size))
    if S is not None:
        try:
            C = scipy.linalg.cholesky(S, lower=False)
        except np.linalg.LinAlgError as exc:
            raise ValueError("Sigma must be positive definite") from exc
        X = X @ C
    y = X @ beta0 + sigma * rng.standard_normal((R, n))
    return X, y


@finite_result
def gaussian_risk(intercepts: Any, coefs: Any, beta0: Any, sigma2: float, *,
                  Sigma: Any = None) -> np.ndarray:
    """Exact prediction risk of linear predictors under the Gaussian design model.

    For a new pair with ``x* ~ N(0, Sigma)`` and ``Y* = x*^T beta0 + eps``,
    ``Var eps = sigma2``, the predictor ``a + x^T b`` has risk
    ``E (Y* - a - x*^T b)^2 = sigma2 + a^2 + (b - beta0)^T Sigma (b - beta0)``.

    Parameters
    ----------
    intercepts : array of shape (..., L)
    coefs : array of shape (..., p, L)
    beta0 : array of shape (p,)
    sigma2 : float
        Noise variance.
    Sigma : array of shape (p, p), optional
        Covariance of x*; identity when omitted.

    Returns
    -------
    risk : ndarray of shape (..., L)
    """
    a = np.asarray(intercepts, dtype=float)
    B = np.asarray(coefs, dtype=float)
    beta0 = check_vector(beta0, "beta0")
    sigma2 = check_nonnegative(sigma2, "sigma2")
    if B.ndim < 2 or B.shape[-2] != beta0.size or a.shape != B.shape[:-2] + B.shape[-1:]:
        raise ValueError(
            f"coefs must have shape (..., p, L) with p = len(beta0) = {beta0.size}, and "
            f"intercepts shape (..., L); got {B.shape} and {a.shape}")
    D = B - beta0[:, None]
    S = _check_sigma_matrix(Sigma, beta0.size)
    quad = np.sum(D * D, axis=-2) if S is None else np.sum(D * np.einsum("pq,...ql->...pl", S, D),
                                                           axis=-2)
    return sigma2 + a ** 2 + quad


@finite_result
def expected_risk(m: int, beta0: Any, sigma: float, lams: Any, n_train_sets: int = 2000, *,
                  Sigma: Any = None, seed: Any = None, fit_intercept: bool = True,
                  standardize: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Expected test error of ridge trained on m Gaussian points, for every λ.

    Monte Carlo over ``n_train_sets`` training sets of size m, with the exact
    conditional risk of each fit (:func:`gaussian_risk`), so the only error is
    the variation over training sets.

    Returns
    -------
    mean, se : ndarrays of shape (L,)
        The Monte-Carlo mean and its standard error.
    """
    R = check_int(n_train_sets, "n_train_sets", minimum=2)
    X, y = gaussian_datasets(R, m, beta0, sigma, Sigma=Sigma, seed=seed)
    a, B = ridge_path_batch(X, y, lams, fit_intercept=fit_intercept, standardize=standardize)
    with np.errstate(over="ignore", invalid="ignore"):
        r = gaussian_risk(a, B, beta0, np.float64(sigma) ** 2, Sigma=Sigma)
        out = r.mean(axis=0), r.std(axis=0, ddof=1) / np.sqrt(R)
    return check_finite_result(out, "expected_risk", "sigma or beta0 is too large for float64")


@finite_result
@_one_blas_thread
def stacking_study(X: Any, y: Any, lams: Any, beta0: Any, sigma2: float, folds: Any = 5, *,
                   Sigma: Any = None, fit_intercept: bool = True,
                   standardize: bool = True) -> dict[str, np.ndarray]:
    """Stacking against the CV-chosen λ on R Gaussian datasets, with exact risks.

    For each dataset: out-of-fold predictions on the grid, NNLS weights
    (:func:`stack`), refits on all the data; the CV-chosen predictor is the
    refit at ``argmin CV``, the stacked one the weighted combination.  Both
    are scored by their exact risk (:func:`gaussian_risk`).

    Parameters
    ----------
    X : array of shape (R, n, p), y : array of shape (R, n)
        The datasets (e.g. from :func:`gaussian_datasets`).
    lams : array of shape (L,)
    beta0, sigma2, Sigma
        The model the datasets were drawn from (for the exact risk).
    folds, fit_intercept, standardize
        As in :func:`oof_predictions`.

    Returns
    -------
    dict with keys ``risk_cv``, ``risk_stack`` (shape (R,)), ``weights``
    (shape (R, L)), ``lam_index`` (shape (R,), the CV-chosen grid index).
    """
    X, y = _check_batch(X, y)
    lams = _check_lams(lams)
    opts = dict(fit_intercept=fit_intercept, standardize=standardize)
    P = oof_predictions_batch(X, y, lams, folds, **opts)
    cv = np.mean((y[:, :, None] - P) ** 2, axis=1)
    W = np.stack([stack(P[r], y[r]) for r in range(X.shape[0])])
    a, B = ridge_path_batch(X, y, lams, **opts)
    risk = gaussian_risk(a, B, beta0, sigma2, Sigma=Sigma)
    idx = np.argmin(cv, axis=1)
    a_st = np.sum(a * W, axis=1)[:, None]
    B_st = np.einsum("rpl,rl->rp", B, W)[:, :, None]
    risk_st = gaussian_risk(a_st, B_st, beta0, sigma2, Sigma=Sigma)[:, 0]
    return {"risk_cv": risk[np.arange(X.shape[0]), idx], "risk_stack": risk_st,
            "weights": W, "lam_index": idx}


@finite_result
@_one_blas_thread
def choose_v_study(X: Any, y: Any, lams: Any, vs: Any, beta0: Any, sigma2: float, *,
                   Sigma: Any = None, fit_intercept: bool = True,
                   standardize: bool = True) -> dict[str, np.ndarray]:
    """How the number of folds v changes the CV-chosen fit, on R Gaussian datasets.

    For each dataset and each v: the CV curve (folds ``KFold(v, seed=0)``;
    ``v = n`` is leave-one-out), its minimiser on the grid, the minimum value
    ``CV(lam_hat_v)`` and the exact risk (:func:`gaussian_risk`) of ridge
    refitted on all the data at ``lam_hat_v``.

    Parameters
    ----------
    X : array of shape (R, n, p), y : array of shape (R, n)
    lams : array of shape (L,)
    vs : sequence of int
        Numbers of folds, each in ``2..n``.
    beta0, sigma2, Sigma
        The model the datasets were drawn from (for the exact risk).
    fit_intercept, standardize : bool

    Returns
    -------
    dict with keys ``cv_min``, ``risk_min`` and ``lam_index`` (each of shape
    (R, len(vs))) and ``risk`` (shape (R, L), the exact risk of the full-data
    fit at every grid point).
    """
    X, y = _check_batch(X, y)
    lams = _check_lams(lams)
    vs = [int(check_int(v, "vs", minimum=2, maximum=X.shape[1])) for v in np.atleast_1d(vs)]
    opts = dict(fit_intercept=fit_intercept, standardize=standardize)
    a, B = ridge_path_batch(X, y, lams, **opts)
    risk = gaussian_risk(a, B, beta0, sigma2, Sigma=Sigma)
    R = X.shape[0]
    idx = np.empty((R, len(vs)), dtype=int)
    cv_min = np.empty((R, len(vs)))
    for k, v in enumerate(vs):
        cv = cv_curves_batch(X, y, lams, v, **opts)
        idx[:, k] = np.argmin(cv, axis=1)
        cv_min[:, k] = cv[np.arange(R), idx[:, k]]
    return {"cv_min": cv_min, "risk_min": np.take_along_axis(risk, idx, axis=1),
            "lam_index": idx, "risk": risk}


@finite_result
def mc_summary(values: Any, axis: int = 0) -> dict[str, np.ndarray]:
    """Monte-Carlo mean and standard deviation with their standard errors.

    ``se_mean = sd / sqrt(R)``; ``se_sd`` is the delta-method standard error
    ``sqrt((m4 - sd^4) / R) / (2 sd)`` (``m4`` the fourth central moment),
    which reduces to ``sd / sqrt(2R)`` for Gaussian values.

    Parameters
    ----------
    values : array
        Replications along ``axis`` (at least 2).
    axis : int

    Returns
    -------
    dict with keys ``mean``, ``se_mean``, ``sd``, ``se_sd`` and ``se_se``
    (``se_sd / sqrt(R)``, the standard error of ``se_mean``).
    """
    v = as_float_array(values, "values")
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)) or not (
            -v.ndim <= axis < v.ndim):
        raise ValueError(f"axis must be an integer in [{-v.ndim}, {v.ndim - 1}] for values of "
                         f"shape {v.shape}; got {axis!r}")
    if v.ndim == 0 or v.shape[axis] < 2:
        raise ValueError(f"values must hold at least 2 replications along axis {axis}; "
                         f"got shape {v.shape}")
    if not np.all(np.isfinite(v)):
        raise ValueError("values contains NaN or infinite entries")
    R = v.shape[axis]
    mean = v.mean(axis=axis)
    c = v - np.expand_dims(mean, axis)
    sd = np.sqrt(np.sum(c ** 2, axis=axis) / (R - 1))
    m2 = np.mean(c ** 2, axis=axis)
    m4 = np.mean(c ** 4, axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        se_sd = np.where(sd > 0, np.sqrt(np.maximum(m4 - m2 ** 2, 0.0) / R) / (2 * sd), 0.0)
    return {"mean": mean, "se_mean": sd / np.sqrt(R), "sd": sd, "se_sd": se_sd,
            "se_se": se_sd / np.sqrt(R)}


# Kernel ridge regression: fitted-value, CV and LOO paths over a grid of lambda from
# one eigendecomposition (implemented in kmlib/_krr_paths.py; public here).
from ._krr_paths import KRRTuningTable, krr_cv_path, krr_loo, krr_path, tune_krr  # noqa: E402

__all__ += ["krr_path", "krr_cv_path", "krr_loo", "tune_krr", "KRRTuningTable"]
