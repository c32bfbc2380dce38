"""Reproducing kernel Hilbert spaces: norms, projections, Mercer and Sobolev computations.

This module serves the chapter "Reproducing kernel Hilbert spaces". It computes
with the objects of that chapter without ever leaving finite dimensions:

* finite input sets, where a kernel is a PSD matrix ``K`` and the RKHS norm of
  a vector ``f`` in the column space of ``K`` is ``f^T K^+ f``
  (:func:`finite_rkhs_inner`, :func:`finite_rkhs_norm2`);
* finite kernel expansions ``f = sum_i alpha_i k(., x_i)``: their values,
  inner products ``alpha^T k(X, Z) beta`` and orthogonal projections onto the
  span of other kernel functions (:func:`expansion_values`,
  :func:`expansion_inner`, :func:`project`);
* Mercer's expansion of the first-order Sobolev kernel ``min(x, x')`` on
  ``[0, 1]`` with the uniform law: eigenfunctions, truncation errors and the
  spectrum of the scaled Gram matrix on a grid
  (:func:`min_kernel_eigenfunctions`, :func:`mercer_features`,
  :func:`mercer_sup_error`, :func:`grid_eigenvalues`);
* the Sobolev norms ``int f'^2`` and ``int f''^2`` of kernel expansions,
  computed by integrating piecewise polynomials exactly
  (:func:`piecewise_integral`, :func:`sobolev1_derivative`,
  :func:`sobolev2_second_derivative`);
* the RKHS norm of a polynomial for the one-dimensional polynomial kernel
  ``(c + x x')^p`` (:func:`polynomial_coefficients`,
  :func:`polynomial_rkhs_norm2`).

Linear algebra factors once (``eigh`` or Cholesky) and never forms an inverse.
"""
from __future__ import annotations

from math import comb
from typing import Any, Callable

import numpy as np
from scipy import linalg

from ._validation import (
    check_int,
    check_kernel,
    check_matrix,
    check_nonnegative,
    check_square,
    check_symmetric,
    check_vector,
)
from .theory import sobolev_eigenvalues

__all__ = [
    "finite_rkhs_inner",
    "finite_rkhs_norm2",
    "expansion_values",
    "expansion_inner",
    "expansion_distance",
    "project",
    "gaussian_taylor_features",
    "min_kernel_eigenfunctions",
    "mercer_features",
    "mercer_sup_error",
    "grid_eigenvalues",
    "piecewise_integral",
    "sobolev1_derivative",
    "sobolev2_second_derivative",
    "polynomial_coefficients",
    "polynomial_rkhs_norm2",
]


# ---------------------------------------------------------------------------
# finite input sets
# ---------------------------------------------------------------------------
def _psd_eigh(K: Any, tol: float | None) -> tuple[np.ndarray, np.ndarray, float]:
    """Eigenvalues (ascending), eigenvectors and the zero threshold of a PSD matrix."""
    A = check_square(K, "K")
    check_symmetric(A, "K")
    d, U = linalg.eigh(A)
    scale = max(1.0, float(np.abs(d).max()))
    t = 100 * len(d) * np.finfo(float).eps * scale if tol is None else check_nonnegative(tol, "tol")
    if d[0] < -t:
        raise ValueError(
            f"K must be positive semidefinite; its smallest eigenvalue is {d[0]:.3g} "
            f"< -tol = {-t:.3g}"
        )
    return d, U, t


def _range_coordinates(v: np.ndarray, d: np.ndarray, U: np.ndarray, t: float,
                       name: str) -> tuple[np.ndarray, np.ndarray]:
    """Coordinates of ``v`` on the range of K, checking that nothing lies in the null space."""
    c = U.T @ v
    keep = d > t
    outside = float(np.linalg.norm(c[~keep]))
    if outside > 1e-8 * max(1.0, float(np.linalg.norm(v))):
        raise ValueError(
            f"{name} is not in the column space of K (its component in the null space has "
            f"norm {outside:.3g}); only vectors K @ alpha belong to the RKHS of a finite set"
        )
    return c[keep], d[keep]


def finite_rkhs_inner(u: Any, v: Any, K: Any, tol: float | None = None) -> float:
    """RKHS inner product ``u^T K^+ v`` of two functions on a finite set.

    On ``X = {1, ..., N}`` a kernel is a PSD matrix ``K`` and its RKHS is the
    column space of ``K``; a function is the vector of its values.

    Parameters
    ----------
    u, v : array-like of shape (N,)
        Values of two functions in the column space of ``K``.
    K : array-like of shape (N, N)
        Symmetric positive semidefinite matrix.
    tol : float, optional
        Eigenvalues at most ``tol`` count as zero; default ``100 N eps max(1, ||K||)``.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``K`` is not symmetric PSD, or ``u`` or ``v`` has a component in the
        null space of ``K`` (it is then not a function of the RKHS).
    """
    d, U, t = _psd_eigh(K, tol)
    u = check_vector(u, "u")
    v = check_vector(v, "v")
    if len(u) != len(d) or len(v) != len(d):
        raise ValueError(f"u and v must have length {len(d)} (the size of K); "
                         f"got {len(u)} and {len(v)}")
    cu, dk = _range_coordinates(u, d, U, t, "u")
    cv, _ = _range_coordinates(v, d, U, t, "v")
    return float(np.sum(cu * cv / dk))


def finite_rkhs_norm2(f: Any, K: Any, tol: float | None = None) -> float:
    """Squared RKHS norm ``f^T K^+ f`` of a function on a finite set.

    Parameters
    ----------
    f : array-like of shape (N,)
        Values of a function in the column space of ``K``.
    K : array-like of shape (N, N)
        Symmetric positive semidefinite matrix.
    tol : float, optional
        As in :func:`finite_rkhs_inner`.

    Returns
    -------
    float
    """
    return finite_rkhs_inner(f, f, K, tol)


# ---------------------------------------------------------------------------
# finite kernel expansions
# ---------------------------------------------------------------------------
def _expansion(kernel: Any, X: Any, alpha: Any, xname: str,
               aname: str) -> tuple[np.ndarray, np.ndarray]:
    check_kernel(kernel)
    Xa = check_matrix(X, xname)
    a = check_vector(alpha, aname)
    if len(a) != len(Xa):
        raise ValueError(f"{aname} must have one coefficient per row of {xname} ({len(Xa)}); "
                         f"got {len(a)}")
    return Xa, a


def expansion_values(kernel: Any, X: Any, alpha: Any, x: Any) -> np.ndarray:
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


def expansion_inner(kernel: Any, X: Any, alpha: Any, Z: Any, beta: Any) -> float:
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


def expansion_distance(kernel: Any, X: Any, alpha: Any, Z: Any, beta: Any) -> float:
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


def project(kernel: Any, X: Any, alpha: Any, Z: Any) -> np.ndarray:
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


def gaussian_taylor_features(x: Any, sigma: float, M: int) -> np.ndarray:
    r"""First ``M`` coordinates of the ell^2 feature map of the one-dimensional Gaussian kernel.

    From
    :math:`e^{-(x-y)^2/(2\sigma^2)}=e^{-x^2/(2\sigma^2)}e^{-y^2/(2\sigma^2)}
    \sum_{m\ge0}\frac{(xy/\sigma^2)^m}{m!}`,
    :math:`\phi_m(x)=e^{-x^2/(2\sigma^2)}(x/\sigma)^m/\sqrt{m!}`, :math:`m=0,\dots,M-1`.
    Computed by the recursion :math:`\phi_m=\phi_{m-1}\,(x/\sigma)/\sqrt m` (no factorials).

    Parameters
    ----------
    x : array-like of shape (n,)
    sigma : float
        Bandwidth, > 0.
    M : int
        Number of coordinates, >= 1.

    Returns
    -------
    ndarray of shape (n, M)
    """
    v = check_vector(x, "x")
    if not (isinstance(sigma, (int, float, np.floating)) and sigma > 0):
        raise ValueError(f"sigma must be a number > 0; got {sigma!r}")
    M = check_int(M, "M")
    t = v / sigma
    out = np.empty((len(v), M))
    out[:, 0] = np.exp(-0.5 * t**2)
    for m in range(1, M):
        out[:, m] = out[:, m - 1] * t / np.sqrt(m)
    return out


# ---------------------------------------------------------------------------
# Mercer's expansion of min(x, x') on [0, 1] with the uniform law
# ---------------------------------------------------------------------------
def _unit_points(x: Any, name: str) -> np.ndarray:
    v = check_vector(np.ravel(np.asarray(x, dtype=float)) if np.ndim(x) == 2 else x, name)
    if np.any(v < 0) or np.any(v > 1):
        raise ValueError(f"{name} must lie in [0, 1]; got values in [{v.min()!r}, {v.max()!r}]")
    return v


def min_kernel_eigenfunctions(x: Any, J: int) -> np.ndarray:
    r"""The first ``J`` Mercer eigenfunctions of min(x, x').

    They are :math:`e_j(x)=\sqrt2\sin((j-\frac12)\pi x)`, orthonormal in
    :math:`L^2[0,1]`; the eigenvalues are :func:`kmlib.theory.sobolev_eigenvalues`.

    Parameters
    ----------
    x : array-like of shape (m,)
        Points of [0, 1].
    J : int
        Number of eigenfunctions (>= 1).

    Returns
    -------
    ndarray of shape (m, J)
    """
    v = _unit_points(x, "x")
    J = check_int(J, "J")
    return np.sqrt(2.0) * np.sin(np.outer(v, np.arange(1, J + 1) - 0.5) * np.pi)


def mercer_features(x: Any, J: int) -> np.ndarray:
    r"""Truncated Mercer feature map :math:`(\sqrt{\mu_j}e_j(x))_{j\le J}` of min(x, x').

    Returns
    -------
    ndarray of shape (m, J)
        Row ``i`` is the feature vector of ``x_i``; ``Phi @ Phi.T`` tends to
        ``min(x_i, x_k)`` as ``J`` grows.
    """
    E = min_kernel_eigenfunctions(x, J)
    return E * np.sqrt(sobolev_eigenvalues(np.arange(1, E.shape[1] + 1)))


def mercer_sup_error(Js: Any, grid: Any) -> np.ndarray:
    r"""Sup over ``grid x grid`` of the Mercer truncation error, for each ``J``.

    The error is :math:`|\min(x,y)-\sum_{j\le J}\mu_je_j(x)e_j(y)|`.

    Parameters
    ----------
    Js : array-like of int
        Truncation levels (each >= 1).
    grid : array-like of shape (m,)
        Points of [0, 1].

    Returns
    -------
    ndarray of shape (len(Js),)
    """
    Js = np.atleast_1d(np.asarray(Js))
    if Js.ndim != 1 or Js.size == 0 or not np.issubdtype(Js.dtype, np.integer) or np.any(Js < 1):
        raise ValueError(f"Js must be a non-empty 1-D array of integers >= 1; got {Js!r}")
    g = _unit_points(grid, "grid")
    target = np.minimum.outer(g, g)
    out = np.empty(Js.size)
    for i, J in enumerate(Js):
        Phi = mercer_features(g, int(J))
        out[i] = np.abs(target - Phi @ Phi.T).max()
    return out


def grid_eigenvalues(n: int, J: int) -> np.ndarray:
    r"""The ``J`` largest eigenvalues of :math:`K/n` for the min kernel on a midpoint grid.

    Here :math:`K_{ik}=\min(x_i,x_k)` and :math:`x_i=(i-\frac12)/n`.

    They approximate the Mercer eigenvalues :math:`\mu_1\ge\mu_2\ge\dots` of
    min(x, x') under the uniform law (the midpoint rule applied to the
    integral operator).

    Returns
    -------
    ndarray of shape (J,), in decreasing order
    """
    n = check_int(n, "n")
    J = check_int(J, "J", maximum=n)
    x = (np.arange(1, n + 1) - 0.5) / n
    ev = linalg.eigh(np.minimum.outer(x, x) / n, eigvals_only=True, subset_by_index=[n - J, n - 1])
    return ev[::-1]


# ---------------------------------------------------------------------------
# Sobolev norms by exact piecewise integration
# ---------------------------------------------------------------------------
def piecewise_integral(func: Callable[[np.ndarray], np.ndarray], breaks: Any,
                       a: float = 0.0, b: float = 1.0, order: int = 4) -> float:
    """Integral of ``func`` over ``[a, b]`` by Gauss--Legendre on every piece between ``breaks``.

    Exact when ``func`` is a polynomial of degree at most ``2 * order - 1`` on
    each piece (e.g. the square of a piecewise linear function with ``order >= 2``).

    Parameters
    ----------
    func : callable
        Vectorised function of one array argument.
    breaks : array-like
        Points where ``func`` may change formula; those outside ``(a, b)`` are ignored.
    a, b : float
        Interval, ``a < b``.
    order : int
        Gauss--Legendre nodes per piece.

    Returns
    -------
    float
    """
    order = check_int(order, "order")
    if not (np.isfinite(a) and np.isfinite(b) and a < b):
        raise ValueError(f"the interval must satisfy a < b (finite); got a={a!r}, b={b!r}")
    br = np.ravel(np.asarray(breaks, dtype=float))
    pts = np.unique(np.concatenate([[a, b], br[(br > a) & (br < b)]]))
    t, w = np.polynomial.legendre.leggauss(order)
    lo, hi = pts[:-1, None], pts[1:, None]
    u = 0.5 * (hi - lo) * t + 0.5 * (hi + lo)
    vals = np.asarray(func(u.ravel()), dtype=float).reshape(u.shape)
    return float(np.sum(0.5 * (hi - lo) * (vals @ w[:, None])))


def _centres_and_coefficients(X: Any, alpha: Any) -> tuple[np.ndarray, np.ndarray]:
    """Centres in [0, 1] and one coefficient per centre, validated."""
    x = _unit_points(X, "X")
    a = check_vector(alpha, "alpha")
    if len(a) != len(x):
        raise ValueError(f"alpha must have one coefficient per centre ({len(x)}); got {len(a)}")
    return x, a


def sobolev1_derivative(X: Any, alpha: Any, u: Any) -> np.ndarray:
    """Derivative ``f'(u) = sum_i alpha_i 1{u < x_i}`` of ``f = sum_i alpha_i min(., x_i)``.

    Returns
    -------
    ndarray of shape (len(u),)
    """
    x, a = _centres_and_coefficients(X, alpha)
    uu = np.ravel(np.asarray(u, dtype=float))
    return (uu[:, None] < x[None, :]).astype(float) @ a


def sobolev2_second_derivative(X: Any, alpha: Any, u: Any) -> np.ndarray:
    """Second derivative ``f''(u) = sum_i alpha_i (x_i - u)_+`` of a second-order Sobolev expansion.

    Here ``f = sum_i alpha_i k(., x_i)`` with ``k(x, x') = int_0^{min(x,x')} (x - v)(x' - v) dv``.

    Returns
    -------
    ndarray of shape (len(u),)
    """
    x, a = _centres_and_coefficients(X, alpha)
    uu = np.ravel(np.asarray(u, dtype=float))
    return np.maximum(x[None, :] - uu[:, None], 0.0) @ a


# ---------------------------------------------------------------------------
# polynomial kernel in one dimension
# ---------------------------------------------------------------------------
def polynomial_coefficients(X: Any, alpha: Any, degree: int, c: float = 1.0) -> np.ndarray:
    r"""Monomial coefficients of ``f = sum_i alpha_i (c + x x_i)^p`` in one dimension.

    By the binomial theorem :math:`f(x)=\sum_{m=0}^p a_mx^m` with
    :math:`a_m=\binom pm c^{p-m}\sum_i\alpha_ix_i^m`.

    Returns
    -------
    ndarray of shape (p + 1,)
        ``a_0, ..., a_p``.
    """
    x = check_vector(np.ravel(np.asarray(X, dtype=float)), "X")
    a = check_vector(alpha, "alpha")
    if len(a) != len(x):
        raise ValueError(f"alpha must have one coefficient per centre ({len(x)}); got {len(a)}")
    p = check_int(degree, "degree")
    c = check_nonnegative(c, "c")
    m = np.arange(p + 1)
    w = np.array([comb(p, int(j)) * c ** (p - j) for j in m])
    return w * (x[None, :] ** m[:, None] @ a)


def polynomial_rkhs_norm2(coefs: Any, degree: int, c: float = 1.0) -> float:
    r"""Squared RKHS norm :math:`\sum_m a_m^2/(\binom pm c^{p-m})` of a polynomial for (c + x x')^p.

    The feature map :math:`\phi_m(x)=\sqrt{\binom pm c^{p-m}}\,x^m` realises the
    kernel, and the monomials are linearly independent, so a polynomial has
    exactly one coefficient vector and this is its norm.  Requires ``c > 0``.

    Returns
    -------
    float
    """
    p = check_int(degree, "degree")
    if not c > 0:
        raise ValueError(f"c must be > 0 for every degree up to p to be present; got {c!r}")
    a = check_vector(coefs, "coefs")
    if len(a) != p + 1:
        raise ValueError(f"coefs must hold p + 1 = {p + 1} coefficients; got {len(a)}")
    w = np.array([comb(p, j) * c ** (p - j) for j in range(p + 1)])
    return float(np.sum(a**2 / w))
