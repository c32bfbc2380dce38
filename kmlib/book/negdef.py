"""Negative-definite kernels: the checks behind chapter 10's pins and exercise checkers.

This module serves chapter 10, "Negative-definite kernels: Schoenberg's theorem
and embeddings of metrics".  A symmetric kernel ``k`` is conditionally negative
definite (NDS) when ``sum_ij c_i c_j k(x_i, x_j) <= 0`` for all points and all
coefficient vectors ``c`` with ``sum_i c_i = 0``.  The chapter builds its
matrices (power distances, anchored Gram matrices, embeddings) in its own cells;
what is here serves as an independent reference:

* :func:`sum_zero_basis` and :func:`sum_zero_top_eigenvalue` measure how far ``K``
  is from NDS (largest value of ``c^T K c`` over unit zero-sum ``c``);
* :func:`kms_min_eigenvalue` gives the smallest eigenvalue of ``[rho^|i-j|]`` from
  its tridiagonal inverse (a second route for the Laplacian kernel on a grid).

Nothing here prints or plots.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy import linalg

from kmlib._validation import (
    check_finite_result,
    check_int,
    check_positive,
    check_square,
    check_symmetric,
)

__all__ = [
    "sum_zero_basis",
    "sum_zero_top_eigenvalue",
    "kms_min_eigenvalue",
]


def _symmetric(K: ArrayLike, name: str = "K") -> np.ndarray:
    """Validate a finite square matrix and require symmetry up to round-off."""
    A = check_square(K, name)
    check_symmetric(A, name)
    return 0.5 * (A + A.T)


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
