"""Hold-out, v-fold and leave-one-out cross-validation of ridge over a penalty grid.

Chapter "Choosing λ: hold-out and v-fold cross-validation".
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._folds import Folds, check_split
from .._ridge import ridge_svd_path, shrinkage
from .._typing import Seed
from .._validation import (
    EPS,
    as_generator,
    check_path,
    finite_result,
    validate_args,
)
from .._validation.params import Integral, Interval, Real
from ._core import _one_blas_thread, _predict_core, _smoother_svd, check_cv_path

__all__ = [
    "holdout_split",
    "holdout_curve",
    "oof_predictions",
    "cross_val_curve",
    "fold_errors",
    "ridge_fit_path",
    "loo_ridge",
    "gcv_ridge",
]


@validate_args({"n": [Interval(Integral, 2, None, closed="left")],
                "test_fraction": [Interval(Real, 0, 1, closed="neither")],
                "random_state": ["random_state"]})
def holdout_split(n: int, test_fraction: float = 0.2,
                  random_state: Seed = None) -> tuple[np.ndarray, np.ndarray]:
    """Split ``range(n)`` at random into a training and a validation set.

    Parameters
    ----------
    n : int
        Number of samples (at least 2).
    test_fraction : float in (0, 1)
        Fraction of the points put in the validation set; the validation set
        has ``round(test_fraction * n)`` points, at least 1 and at most n - 1.
    random_state : int, Generator or None
        Seed of the random permutation.

    Returns
    -------
    train_idx, test_idx : ndarray of int
        Sorted, disjoint index arrays whose union is ``range(n)``.

    Examples
    --------
    >>> tr, te = holdout_split(10, 0.3, random_state=0)
    >>> len(tr), len(te)
    (7, 3)
    """
    n_te = int(min(max(round(test_fraction * n), 1), n - 1))
    perm = as_generator(random_state).permutation(n)
    return np.sort(perm[n_te:]), np.sort(perm[:n_te])


@finite_result
@_one_blas_thread
def holdout_curve(X: ArrayLike, y: ArrayLike, lams: ArrayLike, train_idx: ArrayLike,
                  test_idx: ArrayLike, *,
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
    X, y, lams = check_path(X, y, lams)
    tr, te = check_split(train_idx, test_idx, len(y))
    P = _predict_core(X[tr][None], y[tr][None], X[te][None], lams, fit_intercept, standardize)[0]
    return np.mean((y[te, None] - P) ** 2, axis=0)


@finite_result
@_one_blas_thread
def oof_predictions(X: ArrayLike, y: ArrayLike, lams: ArrayLike, folds: Folds = 5, *,
                    fit_intercept: bool = True,
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
        See the module docstring; an int v means ``KFold(v, shuffle=True, random_state=0)``.
    fit_intercept, standardize : bool
        As in :class:`kmlib.ridge.RidgeRegression`; the centring and scaling
        use the training rows of each fold only.

    Returns
    -------
    P : ndarray of shape (n, L)
    """
    X, y, lams, pairs = check_cv_path(X, y, lams, folds)
    P = np.empty((len(y), lams.size))
    for tr, te in pairs:
        P[te] = _predict_core(X[tr][None], y[tr][None], X[te][None], lams,
                              fit_intercept, standardize)[0]
    return P


@finite_result
def cross_val_curve(X: ArrayLike, y: ArrayLike, lams: ArrayLike, folds: Folds = 5, *,
                    fit_intercept: bool = True,
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
        An int v means ``KFold(v, shuffle=True, random_state=0)``.
    fit_intercept, standardize : bool
        As in :class:`kmlib.ridge.RidgeRegression`.

    Returns
    -------
    cv : ndarray of shape (L,)

    Examples
    --------
    >>> from kmlib import datasets
    >>> X, y, _ = datasets.linear_model(40, 3, random_state=0)
    >>> cross_val_curve(X, y, [0.1, 1.0, 10.0], folds=5).shape
    (3,)
    """
    P = oof_predictions(X, y, lams, folds, fit_intercept=fit_intercept, standardize=standardize)
    y = np.asarray(y, dtype=float).reshape(len(P))   # (n,) or (n, 1): checked by oof_predictions
    return np.mean((y[:, None] - P) ** 2, axis=0)


@finite_result
@_one_blas_thread
def fold_errors(X: ArrayLike, y: ArrayLike, lams: ArrayLike, folds: Folds = 5, *,
                fit_intercept: bool = True,
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
    X, y, lams, pairs = check_cv_path(X, y, lams, folds)
    E = np.empty((len(pairs), lams.size))
    for k, (tr, te) in enumerate(pairs):
        P = _predict_core(X[tr][None], y[tr][None], X[te][None], lams,
                          fit_intercept, standardize)[0]
        E[k] = np.mean((y[te, None] - P) ** 2, axis=0)
    return E


@finite_result
def ridge_fit_path(X: ArrayLike, y: ArrayLike, lams: ArrayLike, *, fit_intercept: bool = True,
                   standardize: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Ridge fits on all the data for every λ from one thin SVD.

    Returns
    -------
    intercepts : ndarray of shape (L,)
    coefs : ndarray of shape (p, L)
        Column l is the coefficient vector (original scale) at ``lams[l]``, so
        predictions at new points are ``intercepts + X_new @ coefs``.
    """
    X, y, lams = check_path(X, y, lams)
    a, B = ridge_svd_path(X[None], y[None], lams, fit_intercept=fit_intercept,
                          standardize=standardize)
    return a[0], B[0]


@finite_result(allow_inf=True)  # lam = 0 with interpolation: documented inf
def loo_ridge(X: ArrayLike, y: ArrayLike, lams: ArrayLike, *, fit_intercept: bool = True,
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
    lams, y, yc, h0, U, d = _smoother_svd(X, y, lams, fit_intercept)
    S = shrinkage(d, lams, 0)                                 # (r, L) shrinkage factors
    H = h0 + (U * U) @ S                                      # (n, L) leverages
    fitted = (y - yc)[:, None] + U @ (S * (U.T @ yc)[:, None])
    resid = y[:, None] - fitted
    denom = 1.0 - H
    bad = denom <= 1e3 * EPS
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
def gcv_ridge(X: ArrayLike, y: ArrayLike, lams: ArrayLike, *,
              fit_intercept: bool = True) -> np.ndarray:
    """Generalised cross-validation of ridge (Golub, Heath and Wahba, 1979).

    ``GCV(lam) = mean_i (y_i - yhat_i)**2 / (1 - tr(H)/n)**2``: leave-one-out
    with every leverage replaced by the average leverage ``tr(H)/n``.  ``X``
    is used as given, as in :func:`loo_ridge`.

    Returns
    -------
    gcv : ndarray of shape (L,)
        ``inf`` where ``tr(H) = n`` (an interpolating fit).
    """
    lams, y, yc, h0, U, d = _smoother_svd(X, y, lams, fit_intercept)
    n = len(y)
    S = shrinkage(d, lams, 0)
    df = n * h0 + S.sum(axis=0)
    fitted = (y - yc)[:, None] + U @ (S * (U.T @ yc)[:, None])
    rss = np.mean((y[:, None] - fitted) ** 2, axis=0)
    denom = (1.0 - df / n) ** 2
    with np.errstate(divide="ignore"):
        return np.where(denom > 1e3 * EPS, rss / np.where(denom > 0, denom, 1.0), np.inf)
