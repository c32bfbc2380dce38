"""The engine shared by the model-selection modules: checks and one SVD per block.

See :mod:`kmlib.model_selection` for the conventions (folds, scaling, rank tolerance).
"""
from __future__ import annotations

import contextlib
import functools
from typing import Any, Callable

import numpy as np
from numpy.typing import ArrayLike

from .._folds import resolve_folds
from .._typing import Folds
from .._validation import (
    EPS,
    as_float_array,
    check_lam,
    check_matrix,
    check_same_length,
    check_vector,
)

try:  # optional: shipped with scikit-learn; without it nothing is limited
    from threadpoolctl import threadpool_limits as _threadpool_limits
except ImportError:  # pragma: no cover
    _threadpool_limits = None


#: Above this many flops (m * p * min(m, p)) per SVD, BLAS keeps all its threads.
_SMALL_SVD_FLOPS = 2e7


#: Datasets per chunk in the batched simulators (bounds memory, not results).
_CHUNK = 256


def _one_blas_thread(func: Callable[..., Any]) -> Callable[..., Any]:
    """Run ``func`` with one BLAS thread when its SVDs are small.

    Many small SVDs (one per fold, per dataset) gain nothing from threading
    but suffer badly from thread start-up and spinning, by a factor of ten or
    more on a busy machine.  Large factorisations keep all threads.
    """
    @functools.wraps(func)
    def wrapper(X: ArrayLike, *args: Any, **kwargs: Any) -> Any:
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


def _check_lams(lams: ArrayLike) -> np.ndarray:
    """Return the penalty grid as a 1-D float array (a scalar becomes length 1)."""
    arr = check_lam(lams, "lams", allow_array=True)
    return np.atleast_1d(as_float_array(arr, "arr"))


def _check_Xy(X: ArrayLike, y: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    X = check_matrix(X, "X")
    y = check_vector(y, "y")
    check_same_length(X, y, "X", "y")
    return X, y


def _resolve(folds: Folds, n: int) -> list[tuple[np.ndarray, np.ndarray]]:
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


def _check_batch(X: ArrayLike, y: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Validate a stack of datasets: X of shape (R, n, p), y of shape (R, n)."""
    try:
        X = as_float_array(X, "X")
        y = as_float_array(y, "y")
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
        bad = s <= 100 * EPS * np.max(np.abs(X), axis=1)     # RidgeRegression's rule
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
    keep = d > max(m, p) * EPS * d[:, :1]
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


def _smoother_svd(X: ArrayLike, y: ArrayLike, fit_intercept: bool):
    X, y = _check_Xy(X, y)
    n = len(y)
    if fit_intercept:
        if n < 2:
            raise ValueError("X must have at least 2 rows for leave-one-out with an intercept")
        Xc, yc, h0 = X - X.mean(axis=0), y - y.mean(), 1.0 / n
    else:
        Xc, yc, h0 = X, y, 0.0
    U, d, _ = np.linalg.svd(Xc, full_matrices=False)
    keep = d > max(Xc.shape) * EPS * d[0] if d[0] > 0 else np.zeros(d.shape, dtype=bool)
    return y, yc, h0, U[:, keep], d[keep]


def _check_sigma_matrix(Sigma: ArrayLike, p: int) -> np.ndarray | None:
    if Sigma is None:
        return None
    S = check_matrix(Sigma, "Sigma", allow_1d=False)
    if S.shape != (p, p):
        raise ValueError(f"Sigma must have shape ({p}, {p}) to match beta0; got {S.shape}")
    if not np.allclose(S, S.T, rtol=1e-10, atol=1e-12):
        raise ValueError("Sigma must be symmetric")
    return S
