"""Ridge paths and cross-validation curves for a stack of datasets at once.

Simulation studies fit the same procedure to R datasets; these functions do it with one
batched thin SVD per training block (datasets in blocks of
``working_memory`` MiB, :mod:`kmlib._blocks`), the same
arithmetic as :func:`~kmlib.model_selection.ridge_fit_path`,
:func:`~kmlib.model_selection.oof_predictions` and
:func:`~kmlib.model_selection.cross_val_curve`.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._blocks import row_blocks
from .._folds import Folds
from .._ridge import ridge_svd_path
from .._validation import check_path, finite_result
from ._core import _dataset_bytes, _one_blas_thread, _predict_core, check_cv_path

__all__ = ["ridge_path_batch", "oof_predictions_batch", "cv_curves_batch"]


@finite_result
@_one_blas_thread
def ridge_path_batch(X: ArrayLike, y: ArrayLike, lams: ArrayLike, *, fit_intercept: bool = True,
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
    X, y, lams = check_path(X, y, lams, matrix="batch")
    a = np.empty((X.shape[0], lams.size))
    B = np.empty((X.shape[0], X.shape[2], lams.size))
    for blk in row_blocks(X.shape[0], _dataset_bytes(X, lams.size)):
        a[blk], B[blk] = ridge_svd_path(X[blk], y[blk], lams, fit_intercept=fit_intercept,
                                        standardize=standardize)
    return a, B


@finite_result
@_one_blas_thread
def oof_predictions_batch(X: ArrayLike, y: ArrayLike, lams: ArrayLike, folds: Folds = 5, *,
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
    X, y, lams, pairs = check_cv_path(X, y, lams, folds, matrix="batch")
    P = np.empty((X.shape[0], X.shape[1], lams.size))
    for blk in row_blocks(X.shape[0], _dataset_bytes(X, lams.size)):
        Xs, ys = X[blk], y[blk]
        for tr, te in pairs:
            P[blk, te] = _predict_core(Xs[:, tr], ys[:, tr], Xs[:, te], lams,
                                       fit_intercept, standardize)
    return P


@finite_result
def cv_curves_batch(X: ArrayLike, y: ArrayLike, lams: ArrayLike, folds: Folds = 5, *,
                    fit_intercept: bool = True,
                    standardize: bool = True) -> np.ndarray:
    """:func:`cross_val_curve` for a stack of R datasets; returns shape (R, L)."""
    P = oof_predictions_batch(X, y, lams, folds, fit_intercept=fit_intercept,
                              standardize=standardize)
    y = np.asarray(y, dtype=float)   # of shape (R, n): checked by oof_predictions_batch
    return np.mean((y[:, :, None] - P) ** 2, axis=1)
