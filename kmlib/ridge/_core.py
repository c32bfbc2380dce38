"""Shared private helpers of the ridge modules: input checks and the linear solvers."""
from __future__ import annotations

from typing import Any

import numpy as np
from scipy import linalg as sla
from scipy.linalg import lapack

from .._linalg import gram_cholesky
from .._validation import (
    rank_tol,
)

_METHODS = ("primal", "dual", "svd")


def _solve_many(X: np.ndarray, Y: np.ndarray, lam: float, method: str) -> np.ndarray:
    """Ridge coefficients for each column of ``Y`` (shape (n, k)) -> (p, k)."""
    n, p = X.shape
    if method == "primal":
        c = gram_cholesky(X, lam, "ridge with lam = 0 (method='primal')")
        return sla.cho_solve(c, X.T @ Y, check_finite=False)
    if method == "dual":
        if lam == 0:
            raise ValueError(
                "lam must be > 0 for method='dual' (X X^T is singular whenever n > p); "
                "got lam = 0. Use method='svd' for the minimum-norm least-squares solution"
            )
        K = X @ X.T
        K[np.diag_indices(n)] += lam
        c = sla.cho_factor(K, lower=False, overwrite_a=True, check_finite=False)
        return X.T @ sla.cho_solve(c, Y, check_finite=False)
    # method == "svd"
    U, d, Vt = np.linalg.svd(X, full_matrices=False)
    return Vt.T @ (_filter(d, lam, X.shape)[:, None] * (U.T @ Y))


def _cholesky_solve(X: np.ndarray, Y: np.ndarray, lam: float,
                    max_cond: float = 1e6) -> np.ndarray | None:
    """Ridge coefficients (p, k) for all columns of ``Y`` from one Cholesky factorisation.

    Factorises the smaller of ``X^T X + lam I`` and ``X X^T + lam I`` (then ``X^T`` times
    the dual solution); returns None, for the caller's SVD, when ``lam == 0`` or when
    LAPACK's estimate of the condition number (``dpocon``) exceeds ``max_cond``, so that
    the error of squaring ``X`` stays below about ``max_cond * eps``.
    """
    n, p = X.shape
    if lam <= 0:
        return None
    A = X.T @ X if p <= n else X @ X.T
    A.flat[:: A.shape[0] + 1] += lam
    norm1 = float(np.abs(A).sum(axis=0).max())
    c, info = lapack.dpotrf(A, lower=0, clean=1)
    rcond = lapack.dpocon(c, norm1)[0] if info == 0 else 0.0
    if not rcond * max_cond >= 1.0:
        return None
    return lapack.dpotrs(c, X.T @ Y)[0] if p <= n else X.T @ lapack.dpotrs(c, Y)[0]


def _filter(d: np.ndarray, lam: float, shape: tuple[int, int]) -> np.ndarray:
    """The spectral filter d / (d^2 + lam), with 1/d -> 0 on the null space when lam = 0."""
    if lam > 0:
        return d / (d**2 + lam)
    out = np.zeros_like(d)
    keep = d > rank_tol(d, max(shape))
    out[keep] = 1.0 / d[keep]
    return out


def _check_method(method: Any) -> str:
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}; got {method!r}")
    return method


def _shrink(d: np.ndarray, lams: np.ndarray, shape: tuple[int, int] | None = None) -> np.ndarray:
    d2 = d**2
    out = np.empty((lams.size, d.size))
    for i, lam in enumerate(lams):
        if lam > 0:
            out[i] = d2 / (d2 + lam)
        else:
            tol = rank_tol(d, max(shape)) if shape is not None else 0.0
            out[i] = (d > tol).astype(float)
    return out
