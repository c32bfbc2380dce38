"""Shared private helpers of the ridge modules: input checks and the linear solvers."""
from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import linalg as sla

from .._validation import (
    check_matrix,
    check_nonnegative,
    check_same_length,
    check_vector,
    rank_tol,
)

_METHODS = ("primal", "dual", "svd")


def _check_Xy(X: ArrayLike, y: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    X = check_matrix(X, "X")
    y = check_vector(y, "y")
    check_same_length(X, y, "X", "y")
    return X, y


def _check_beta(beta: ArrayLike, p: int, name: str = "beta0") -> np.ndarray:
    b = check_vector(beta, name)
    if b.shape[0] != p:
        raise ValueError(
            f"{name} must have one entry per column of X (length {p}); got length {b.shape[0]}"
        )
    return b


def _rank_deficiency_error(X: np.ndarray, what: str) -> ValueError:
    n, p = X.shape
    why = f"p = {p} > n = {n}" if p > n else "its columns are linearly dependent"
    return ValueError(
        f"X must have full column rank for {what}; got a {n} x {p} design whose rank is "
        f"below {p} ({why}). Use ridge(X, y, lam) with lam > 0 instead"
    )


def _full_column_rank(X: np.ndarray) -> bool:
    n, p = X.shape
    if p > n:
        return False
    # pivoted QR is rank revealing: |R_jj| is non-increasing
    R = sla.qr(X, mode="r", pivoting=True, check_finite=False)[0]
    r = np.abs(np.diag(R))
    return bool(r[-1] > rank_tol(r, max(n, p))) if r[0] > 0 else False


def _gram_cholesky(X: np.ndarray, lam: float, what: str):
    """Cholesky factor of ``X^T X + lam I`` (raises when it is singular)."""
    p = X.shape[1]
    if lam == 0 and not _full_column_rank(X):
        raise _rank_deficiency_error(X, what)
    G = X.T @ X
    G[np.diag_indices(p)] += lam
    try:
        return sla.cho_factor(G, lower=False, overwrite_a=True, check_finite=False)
    except np.linalg.LinAlgError as exc:  # pragma: no cover - guarded by the rank test
        raise _rank_deficiency_error(X, what) from exc


def _solve_many(X: np.ndarray, Y: np.ndarray, lam: float, method: str) -> np.ndarray:
    """Ridge coefficients for each column of ``Y`` (shape (n, k)) -> (p, k)."""
    n, p = X.shape
    if method == "primal":
        c = _gram_cholesky(X, lam, "ridge with lam = 0 (method='primal')")
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


def _check_moments(X: ArrayLike, beta0: ArrayLike, sigma2: Any) -> tuple[np.ndarray, np.ndarray,
                   float]:
    X = check_matrix(X, "X")
    beta0 = _check_beta(beta0, X.shape[1])
    sigma2 = check_nonnegative(sigma2, "sigma2")
    return X, beta0, sigma2


def _sym(M: np.ndarray) -> np.ndarray:
    return 0.5 * (M + M.T)
