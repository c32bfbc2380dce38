"""Finite kernel expansions ``f = sum_i alpha_i k(., x_i)`` and their geometry in the RKHS.

Chapter "Reproducing kernel Hilbert spaces": values of an expansion, inner products
``alpha^T k(X, Z) beta``, distances, and the orthogonal projection onto the span of
other kernel functions, which interpolates (:func:`expansion_values`,
:func:`expansion_inner`, :func:`expansion_distance`, :func:`project`).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import linalg

from kmlib._validation import check_kernel, check_matrix, check_vector

__all__ = ["expansion_values", "expansion_inner", "expansion_distance", "project"]


def _expansion(kernel: Callable[..., Any], X: ArrayLike, alpha: ArrayLike, xname: str,
               aname: str) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Centres as a matrix and one coefficient per centre, validated with the kernel."""
    check_kernel(kernel)
    Xa = check_matrix(X, xname)
    a = check_vector(alpha, aname)
    if len(a) != len(Xa):
        raise ValueError(f"{aname} must have one coefficient per row of {xname} ({len(Xa)}); "
                         f"got {len(a)}")
    return Xa, a


def expansion_values(kernel: Callable[..., Any], X: ArrayLike, alpha: ArrayLike,
                     x: ArrayLike) -> NDArray[np.float64]:
    """Values at ``x`` of ``f = sum_i alpha_i k(., x_i)``.

    Parameters
    ----------
    kernel : callable ``k(A, B)`` returning a Gram matrix
    X : array-like of shape (n, d) or (n,)
        Centres ``x_i``.
    alpha : array-like of shape (n,)
        Coefficients.
    x : array-like of shape (m, d) or (m,)
        Evaluation points.

    Returns
    -------
    ndarray of shape (m,)
    """
    Xa, a = _expansion(kernel, X, alpha, "X", "alpha")
    return kernel(check_matrix(x, "x"), Xa) @ a


def expansion_inner(kernel: Callable[..., Any], X: ArrayLike, alpha: ArrayLike,
                    Z: ArrayLike, beta: ArrayLike) -> float:
    """Inner product ``alpha^T k(X, Z) beta`` of two kernel expansions.

    This is ``<sum_i alpha_i k(., x_i), sum_j beta_j k(., z_j)>`` in the RKHS
    of ``kernel``; with ``Z = X`` and ``beta = alpha`` it is the squared norm.

    Returns
    -------
    float
    """
    Xa, a = _expansion(kernel, X, alpha, "X", "alpha")
    Za, b = _expansion(kernel, Z, beta, "Z", "beta")
    return float(a @ kernel(Xa, Za) @ b)


def expansion_distance(kernel: Callable[..., Any], X: ArrayLike, alpha: ArrayLike,
                       Z: ArrayLike, beta: ArrayLike) -> float:
    """RKHS distance ``||f - g||`` between two finite kernel expansions.

    Here ``f = sum_i alpha_i k(., x_i)`` and ``g = sum_j beta_j k(., z_j)``. Computed as
    the norm of one expansion over the joint centres with coefficients ``(alpha, -beta)``;
    round-off below zero is clipped.

    Returns
    -------
    float
    """
    Xa, a = _expansion(kernel, X, alpha, "X", "alpha")
    Za, b = _expansion(kernel, Z, beta, "Z", "beta")
    if Xa.shape[1] != Za.shape[1]:
        raise ValueError("X and Z must have the same number of columns; "
                         f"got {Xa.shape[1]} and {Za.shape[1]}")
    P, c = np.concatenate([Xa, Za]), np.concatenate([a, -b])
    return float(np.sqrt(max(float(c @ kernel(P) @ c), 0.0)))


def project(kernel: Callable[..., Any], X: ArrayLike, alpha: ArrayLike,
            Z: ArrayLike) -> NDArray[np.float64]:
    """Coefficients of the orthogonal projection of an expansion onto span{k(., z_j)}.

    The expansion is ``f = sum_i alpha_i k(., x_i)``.

    The projection ``sum_j c_j k(., z_j)`` is characterised by
    ``<f - Pf, k(., z_l)> = 0`` for every ``l``, i.e. by ``Pf(z_l) = f(z_l)``:
    it interpolates ``f`` at the points ``z``.  So ``c`` solves
    ``k(Z, Z) c = k(Z, X) alpha`` (one Cholesky factorisation).

    Parameters
    ----------
    kernel : callable
    X : array-like of shape (n, d) or (n,)
    alpha : array-like of shape (n,)
    Z : array-like of shape (m, d) or (m,)
        Distinct points with a positive definite Gram matrix ``k(Z, Z)``.

    Returns
    -------
    c : ndarray of shape (m,)

    Raises
    ------
    ValueError
        If ``k(Z, Z)`` is not numerically positive definite (repeated points).
    """
    Xa, a = _expansion(kernel, X, alpha, "X", "alpha")
    Za = check_matrix(Z, "Z")
    try:
        factor = linalg.cho_factor(kernel(Za, Za), lower=True)
    except linalg.LinAlgError:
        raise ValueError(
            "k(Z, Z) must be positive definite; got a singular Gram matrix "
            "(remove repeated points from Z)"
        ) from None
    return linalg.cho_solve(factor, kernel(Za, Xa) @ a)
