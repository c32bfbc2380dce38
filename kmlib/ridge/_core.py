"""Shared private helpers of the ridge modules: input checks and the linear solvers."""
from __future__ import annotations

import numpy as np
from scipy import linalg as sla
from scipy.linalg import lapack

from .._linalg import gram_cholesky
from .._ridge import gram_unscaled, pow2_scale, ridge_filter

_METHODS = ("primal", "dual", "svd")


def _scaled_lam(lam: float, s: float, method: str) -> float:
    """``lam / s^2``; a clear error when it vanishes where a method needs it positive."""
    out = lam / s / s             # (s**2 itself may overflow)
    if lam > 0 and out == 0 and method != "svd":
        raise ValueError(
            f"lam = {lam:g} is negligible next to X^T X for this design (max |X| > {s / 2:.3g});"
            f" method={method!r} cannot be used. Use method='svd', or rescale X")
    return out


def _solve_many(X: np.ndarray, Y: np.ndarray, lam: float, method: str) -> np.ndarray:
    """Ridge coefficients for each column of ``Y`` (shape (n, k)) -> (p, k)."""
    with np.errstate(over="ignore", invalid="ignore"):   # (huge X: scaled below)
        G = X.T @ X if method == "primal" else None
    s = 1.0 if G is not None and gram_unscaled(G) else pow2_scale(X)
    if s != 1.0:
        return _solve_many(X / s, Y, _scaled_lam(lam, s, method), method) / s
    n, p = X.shape
    if method == "primal":
        c = gram_cholesky(X, lam, "ridge with lam = 0 (method='primal')", G)
        return sla.cho_solve(c, X.T @ Y, check_finite=False)
    if method == "dual":
        if lam == 0:
            raise ValueError(
                "lam must be > 0 for method='dual' (X X^T is singular whenever n > p); "
                "got lam = 0. Use method='svd' for the minimum-norm least-squares solution"
            )
        K = X @ X.T
        K[np.diag_indices(n)] += lam
        try:
            c = sla.cho_factor(K, lower=False, overwrite_a=True, check_finite=False)
        except np.linalg.LinAlgError as exc:  # lam lost in rounding next to X X^T
            raise ValueError(
                f"X X^T + lam I is numerically singular (lam is negligible next to X X^T, "
                f"whose rank is below n = {n}); use method='svd' or 'primal', or a larger "
                "lam") from exc
        return X.T @ sla.cho_solve(c, Y, check_finite=False)
    # method == "svd"
    U, d, Vt = np.linalg.svd(X, full_matrices=False)
    return Vt.T @ (ridge_filter(d, np.array([lam]), max(n, p)) * (U.T @ Y))


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
    with np.errstate(over="ignore", invalid="ignore"):   # (huge X: scaled below)
        A = X.T @ X if p <= n else X @ X.T
    s = 1.0 if gram_unscaled(A) else pow2_scale(X)
    if s != 1.0:
        B = _cholesky_solve(X / s, Y, lam / s / s, max_cond)
        return None if B is None else B / s
    A.flat[:: A.shape[0] + 1] += lam
    norm1 = float(np.abs(A).sum(axis=0).max())
    c, info = lapack.dpotrf(A, lower=0, clean=1)
    rcond = lapack.dpocon(c, norm1)[0] if info == 0 else 0.0
    if not rcond * max_cond >= 1.0:
        return None
    return lapack.dpotrs(c, X.T @ Y)[0] if p <= n else X.T @ lapack.dpotrs(c, Y)[0]

