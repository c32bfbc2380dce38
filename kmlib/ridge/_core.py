"""Shared private helpers of the ridge modules: input checks and the linear solvers."""
from __future__ import annotations

from typing import Any

import numpy as np
from scipy import linalg as sla

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
