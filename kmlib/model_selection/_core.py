"""The engine shared by the model-selection modules: checks and one SVD per block.

See :mod:`kmlib.model_selection` for the conventions (folds, scaling, rank tolerance).
"""
from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np
from numpy.typing import ArrayLike

from .._folds import Folds, resolve_folds
from .._linalg import one_blas_thread
from .._ridge import rank_mask, ridge_svd_path
from .._validation import (
    check_path,
)

#: Above this many flops (m * p * min(m, p)) per SVD, BLAS keeps all its threads.
_SMALL_SVD_FLOPS = 2e7


def check_cv_path(M: ArrayLike, v: ArrayLike, lams: ArrayLike, folds: Folds,
                  names: tuple[str, str] = ("X", "y"), *, matrix: str = "points"
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                             list[tuple[np.ndarray, np.ndarray]]]:
    """The arguments of every cross-validation path, checked: ``(M, v, lams, pairs)``.

    ``M, v, lams`` as by :func:`kmlib._validation.check_path` (``names``, ``matrix``);
    ``pairs`` the folds over the samples of ``v`` (its last axis), by :func:`resolve_folds`.
    """
    M, v, lams = check_path(M, v, lams, names, matrix=matrix)
    return M, v, lams, resolve_folds(folds, v.shape[-1])


def _dataset_bytes(X: np.ndarray, L: int) -> int:
    """Temporary bytes of the batched engine per dataset of a stack X (R, n, p), L penalties.

    The centred copy, U and the products (3 n p), the path (p L) and predictions (n L):
    the batched simulators take datasets in blocks of ``working_memory`` MiB.
    """
    n, p = X.shape[1], X.shape[2]
    return 8 * (3 * n * p + (n + p) * L)


def _one_blas_thread(func: Callable[..., Any]) -> Callable[..., Any]:
    """Run ``func`` on one BLAS thread when its SVDs are small (see ``_linalg.one_blas_thread``)."""
    @functools.wraps(func)
    def wrapper(X: ArrayLike, *args: Any, **kwargs: Any) -> Any:
        try:
            shape = np.shape(X)
        except ValueError:           # ragged input: let the validators report it
            shape = ()
        m, p = (shape[-2], shape[-1]) if len(shape) >= 2 else (shape[0] if shape else 0, 1)
        small = m * p * min(m, p) <= _SMALL_SVD_FLOPS
        with one_blas_thread(when=small):
            return func(X, *args, **kwargs)
    return wrapper


def _predict_core(Xtr: np.ndarray, ytr: np.ndarray, Xte: np.ndarray, lams: np.ndarray,
                  fit_intercept: bool, standardize: bool) -> np.ndarray:
    """Predictions (R, m_te, L) at Xte (R, m_te, p) of ridge fitted on (Xtr, ytr)."""
    a, B = ridge_svd_path(Xtr, ytr, lams, fit_intercept=fit_intercept, standardize=standardize)
    return a[:, None, :] + np.einsum("rtp,rpl->rtl", Xte, B)


def _smoother_svd(X: ArrayLike, y: ArrayLike, lams: ArrayLike, fit_intercept: bool
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, np.ndarray, np.ndarray]:
    """The checked ``(lams, y)`` and the smoother's pieces ``(yc, h0, U, d)`` of loo/gcv."""
    X, y, lams = check_path(X, y, lams, min_rows=2 if fit_intercept else 1,
                            why="leave-one-out with an intercept")
    n = len(y)
    if fit_intercept:
        Xc, yc, h0 = X - X.mean(axis=0), y - y.mean(), 1.0 / n
    else:
        Xc, yc, h0 = X, y, 0.0
    U, d, _ = np.linalg.svd(Xc, full_matrices=False)
    keep = rank_mask(d, max(Xc.shape))
    return lams, y, yc, h0, U[:, keep], d[keep]
