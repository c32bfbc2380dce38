"""Negative-definite kernels, Schoenberg's theorem and embeddings of metrics.

This module serves chapter 10, "Negative-definite kernels: Schoenberg's theorem
and embeddings of metrics".  A symmetric kernel ``k`` is conditionally negative
definite (NDS) when ``sum_ij c_i c_j k(x_i, x_j) <= 0`` for all points and all
coefficient vectors ``c`` with ``sum_i c_i = 0``.  The functions here work on
Gram matrices ``K = [k(x_i, x_j)]``:

* :func:`power_distance_gram` builds ``||x - x'||^a``, NDS exactly for ``0 < a <= 2``;
* :func:`anchored_gram` turns ``K`` into the Gram matrix of
  ``k'(x, x') = k(x, x0) + k(x', x0) - k(x, x') - k(x0, x0)`` (PSD iff ``K`` is NDS);
* :func:`sum_zero_top_eigenvalue` measures how far ``K`` is from NDS;
* :func:`exp_min_eigenvalues` scans ``t`` in Schoenberg's ``exp(-t k)``;
* :func:`anchored_min_eigenvalues` scans the exponent ``a`` of ``||x - x'||^a``;
* :func:`metric_embedding` returns points ``Phi_i`` with ``||Phi_i - Phi_j||^2 = K_ij``;
* :func:`power_integral` evaluates the integral representation of ``r^(a/2)``;
* :func:`kms_min_eigenvalue` gives the smallest eigenvalue of ``[rho^|i-j|]`` from
  its tridiagonal inverse (an independent route for the Laplacian kernel on a grid).

Nothing here prints or plots.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import integrate, linalg, special

from kmlib._validation import (
    EPS,
    as_float_array,
    check_finite_result,
    check_int,
    check_matrix,
    check_nonnegative,
    check_positive,
    check_square,
    check_symmetric,
    psd_eigh,
)

__all__ = [
    "power_distance_gram",
    "anchored_gram",
    "sum_zero_basis",
    "sum_zero_top_eigenvalue",
    "exp_min_eigenvalues",
    "anchored_min_eigenvalues",
    "metric_embedding",
    "power_integral",
    "kms_min_eigenvalue",
]

def _symmetric(K: ArrayLike, name: str = "K") -> np.ndarray:
    """Validate a finite square matrix and require symmetry up to round-off."""
    A = check_square(K, name)
    check_symmetric(A, name)
    return 0.5 * (A + A.T)


def _exponent(a: Any) -> float:
    a = check_positive(a, "a")
    return a


def power_distance_gram(X: ArrayLike, Y: ArrayLike | None = None, a: float = 1.0) -> np.ndarray:
    """Gram matrix of ``k(x, x') = ||x - x'||^a`` (Euclidean norm).

    Parameters
    ----------
    X : array-like of shape (n, d) or (n,)
        Points; a 1-D array is read as n points of the real line.
    Y : array-like of shape (m, d) or (m,), optional
        Second set of points; default ``X``.
    a : float
        Exponent, ``a > 0``.  The kernel is NDS exactly when ``a <= 2``.

    Returns
    -------
    ndarray of shape (n, m)
        Exactly symmetric with a zero diagonal when ``Y`` is omitted.
    """
    a = _exponent(a)
    A = check_matrix(X, "X")
    B = A if Y is None else check_matrix(Y, "Y")
    if B.shape[1] != A.shape[1]:
        raise ValueError(
            f"Y must have as many features as X; got {B.shape[1]} and {A.shape[1]}"
        )
    diff = A[:, None, :] - B[None, :, :]
    R = np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))
    G = R ** a
    if Y is None:
        G = 0.5 * (G + G.T)
        np.fill_diagonal(G, 0.0)
    return G


def anchored_gram(K: ArrayLike, anchor: int = 0, *, drop_anchor: bool = False) -> np.ndarray:
    """Gram matrix of ``k'(x, x') = k(x, x0) + k(x', x0) - k(x, x') - k(x0, x0)``.

    The anchor ``x0`` is the point of index ``anchor``, so
    ``K'_ij = K_{i a} + K_{j a} - K_ij - K_{a a}``.  ``K`` is NDS if and only
    if ``K'`` is positive semidefinite.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Symmetric Gram matrix of ``k`` on points that include the anchor.
    anchor : int
        Index of the anchor point ``x0``, ``0 <= anchor < n``.
    drop_anchor : bool
        If True, remove the anchor's row and column (which are identically 0).

    Returns
    -------
    ndarray of shape (n, n), or (n - 1, n - 1) with ``drop_anchor``
    """
    S = _symmetric(K)
    n = len(S)
    anchor = check_int(anchor, "anchor", minimum=0)
    if anchor >= n:
        raise ValueError(f"anchor must be an index below n = {n}; got {anchor}")
    col = S[:, anchor]
    Kp = col[:, None] + col[None, :] - S - S[anchor, anchor]
    Kp = 0.5 * (Kp + Kp.T)
    if drop_anchor:
        keep = np.arange(n) != anchor
        Kp = Kp[np.ix_(keep, keep)]
    return Kp


def sum_zero_basis(n: int) -> np.ndarray:
    """Orthonormal basis (columns) of ``{c in R^n : sum(c) = 0}`` (the Helmert contrasts).

    Column ``j`` (``j = 1, ..., n - 1``) is ``(1, ..., 1, -j, 0, ..., 0) / sqrt(j (j + 1))``
    with ``j`` ones.

    Parameters
    ----------
    n : int
        Dimension, ``n >= 2``.

    Returns
    -------
    ndarray of shape (n, n - 1)
    """
    n = check_int(n, "n", minimum=2)
    B = np.zeros((n, n - 1))
    for j in range(1, n):
        B[:j, j - 1] = 1.0
        B[j, j - 1] = -float(j)
        B[:, j - 1] /= np.sqrt(j * (j + 1.0))
    return B


def sum_zero_top_eigenvalue(K: ArrayLike) -> float:
    """Largest value of ``c^T K c`` over unit vectors ``c`` with ``sum(c) = 0``.

    ``K`` is NDS exactly when this number is ``<= 0``.

    Parameters
    ----------
    K : array-like of shape (n, n), n >= 2
        Symmetric matrix.

    Returns
    -------
    float
    """
    S = _symmetric(K)
    if len(S) < 2:
        raise ValueError(f"K must be at least 2 x 2; got shape {S.shape}")
    B = sum_zero_basis(len(S))
    M = check_finite_result(B.T @ S @ B, "K restricted to sum-zero vectors (B^T K B)",
                            "rescale K")
    return float(linalg.eigvalsh(0.5 * (M + M.T))[-1])


def exp_min_eigenvalues(K: ArrayLike, ts: ArrayLike) -> np.ndarray:
    """Smallest eigenvalue of ``exp(-t K)`` (entrywise) for each ``t`` in ``ts``.

    By Schoenberg's theorem they are all ``>= 0`` when ``K`` is NDS.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Symmetric Gram matrix of ``k``.
    ts : array-like of shape (m,)
        Positive values of ``t``.

    Returns
    -------
    ndarray of shape (m,)
    """
    S = _symmetric(K)
    t = np.atleast_1d(as_float_array(ts, "ts"))
    if t.ndim != 1 or t.size == 0 or not np.all(np.isfinite(t)) or np.any(t <= 0):
        raise ValueError(f"ts must be a non-empty 1-D array of positive numbers; got {ts!r}")
    return np.array([linalg.eigvalsh(np.exp(-ti * S))[0] for ti in t])


def anchored_min_eigenvalues(X: ArrayLike, exponents: ArrayLike, anchor: int = 0) -> np.ndarray:
    """Smallest eigenvalue of the anchored Gram matrix of ``||x - x'||^a`` for each ``a``.

    The anchor's own (zero) row and column are dropped, so for distinct points
    the value is ``> 0`` for ``a < 2``, ``0`` at ``a = 2`` on the line and ``< 0``
    for ``a > 2`` (given at least three points, one of them between two others).

    Parameters
    ----------
    X : array-like of shape (n, d) or (n,)
        At least two points, including the anchor.
    exponents : array-like of shape (m,)
        Positive exponents ``a``.
    anchor : int
        Index of the anchor in ``X``.

    Returns
    -------
    ndarray of shape (m,)
    """
    A = check_matrix(X, "X", min_rows=2)
    a = np.atleast_1d(as_float_array(exponents, "exponents"))
    if a.ndim != 1 or a.size == 0 or not np.all(np.isfinite(a)) or np.any(a <= 0):
        raise ValueError(
            f"exponents must be a non-empty 1-D array of positive numbers; got {exponents!r}"
        )
    R = power_distance_gram(A, a=1.0)
    out = np.empty(a.size)
    for j, aj in enumerate(a):
        with np.errstate(over="ignore"):
            Ra = R ** aj
        if not np.all(np.isfinite(Ra)):
            raise ValueError(
                f"exponents: ||x - x'||^a overflows for a = {aj!r} (largest distance "
                f"{R.max():.3g}); use smaller exponents or rescale X"
            )
        out[j] = linalg.eigvalsh(anchored_gram(Ra, anchor, drop_anchor=True))[0]
    return out


def metric_embedding(K: ArrayLike, anchor: int = 0, tol: float | None = None) -> np.ndarray:
    """Points ``Phi_i`` with ``||Phi_i - Phi_j||^2 = K_ij`` for an NDS ``K`` with zero diagonal.

    Eigendecompose the anchored matrix ``K' = U diag(d) U^T`` (PSD because ``K``
    is NDS) and return ``Phi = U diag(sqrt(d)) / sqrt(2)``, keeping the
    eigenvalues above ``tol``.  Since ``K_ii = 0``,
    ``||Phi'_i - Phi'_j||^2 = K'_ii + K'_jj - 2 K'_ij = 2 K_ij``.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Symmetric, zero diagonal, NDS.
    anchor : int
        Index of the anchor point; its image is the origin.
    tol : float, optional
        Eigenvalues of ``K'`` in ``[-tol, tol]`` count as 0.  Default
        ``10 n eps max(1, ||K'||_2)``.

    Returns
    -------
    ndarray of shape (n, r)
        ``r`` is the number of eigenvalues of ``K'`` above ``tol``.

    Raises
    ------
    ValueError
        If ``K`` has a non-zero diagonal or ``K'`` has an eigenvalue below ``-tol``
        (then ``K`` is not NDS).
    """
    S = _symmetric(K)
    scale = max(1.0, float(np.max(np.abs(S)))) if S.size else 1.0
    diag = float(np.max(np.abs(np.diag(S)))) if S.size else 0.0
    if diag > 100 * len(S) * EPS * scale:     # zero up to the rounding of the kernel values
        raise ValueError(
            f"K must have a zero diagonal (k(x, x) = 0); got max |K_ii| = {diag:.3g}"
        )
    Kp = anchored_gram(S, anchor)
    d, U, tol_v = psd_eigh(
        Kp, "the anchored matrix K'", tol=None if tol is None else check_positive(tol, "tol"),
        advice="So K is not conditionally negative definite")
    keep = d > tol_v
    d, U = d[keep][::-1], U[:, keep][:, ::-1]
    return U * np.sqrt(d / 2.0)


def power_integral(r: float, a: float) -> float:
    """Evaluate ``beta / Gamma(1 - beta) * int_0^inf (1 - exp(-s r)) s^(-1 - beta) ds``.

    With ``beta = a / 2`` in ``(0, 1)`` the integral equals ``r^beta``, so for
    ``r = ||x - x'||^2`` it is ``||x - x'||^a``: a mixture of the NDS kernels
    ``1 - exp(-s ||x - x'||^2)`` with the non-negative weight ``s^(-1 - beta)``.
    Computed by adaptive quadrature (split at ``s = 1 / r``).

    Parameters
    ----------
    r : float
        ``r >= 0``.
    a : float
        Exponent, ``0 < a < 2``.

    Returns
    -------
    float
    """
    r = check_nonnegative(r, "r")
    a = _exponent(a)
    if a >= 2:
        raise ValueError(f"a must lie in (0, 2) for the integral to converge; got {a!r}")
    if r == 0:
        return 0.0
    beta = a / 2.0

    def f(s: float) -> float:
        return -np.expm1(-s * r) * s ** (-1.0 - beta)

    s0 = 1.0 / r
    lo = integrate.quad(f, 0.0, s0, limit=200, epsabs=0.0, epsrel=1e-12)[0]
    hi = integrate.quad(f, s0, np.inf, limit=200, epsabs=0.0, epsrel=1e-12)[0]
    return float(beta / special.gamma(1.0 - beta) * (lo + hi))


def kms_min_eigenvalue(n: int, rho: float) -> float:
    """Smallest eigenvalue of the n x n matrix ``[rho^|i-j|]``, ``0 < rho < 1``.

    This is the Laplacian-kernel Gram matrix ``exp(-t |x_i - x_j|)`` on an
    equally spaced grid with ``rho = exp(-t h)``.  Its inverse is tridiagonal,
    ``(1 - rho^2)^{-1} tridiag(-rho; 1, 1 + rho^2, ..., 1 + rho^2, 1; -rho)``, so
    the answer is the reciprocal of the largest eigenvalue of that tridiagonal
    matrix (no dense eigendecomposition).

    Parameters
    ----------
    n : int
        Size, ``n >= 2``.
    rho : float
        Correlation, ``0 < rho < 1``.

    Returns
    -------
    float
    """
    n = check_int(n, "n", minimum=2)
    rho = check_positive(rho, "rho")
    if rho >= 1:
        raise ValueError(f"rho must lie in (0, 1); got {rho!r}")
    diag = np.full(n, 1.0 + rho**2)
    diag[0] = diag[-1] = 1.0
    off = np.full(n - 1, -rho)
    top = linalg.eigvalsh_tridiagonal(diag, off, select="i", select_range=(n - 1, n - 1))[0]
    return float((1.0 - rho**2) / top)
