"""Explicit feature maps of the polynomial and the Gaussian kernel.

Chapter 3 ("The kernel trick") writes kernels as inner products of explicit
features, so that a feature-space computation can be compared with the kernel
one:

* :func:`monomial_exponents` and :func:`polynomial_features` -- the explicit
  feature map of the polynomial kernel ``(x^T x' + c)^p`` (degree ``p``, written
  ``m`` in the book);
* :func:`gaussian_features_1d` -- the truncated ``l^2`` feature map of the
  one-dimensional Gaussian kernel.
"""
from __future__ import annotations

import math
from itertools import combinations_with_replacement

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from kmlib._validation import (
    check_int,
    check_matrix,
    check_nonnegative,
    check_positive,
    check_vector,
)

# The most monomials monomial_exponents lists and a polynomial feature map has (a guard
# against requests that could never be built, e.g. p = 10**12).
_MAX_MONOMIALS = 10**6


def _check_monomial_count(d: int, p: int, what: str = "degree") -> None:
    """Raise unless the ``C(d+p, p)`` monomials of degree <= ``p`` in ``d`` variables are few.

    ``C(d+p, p) >= d + p`` for ``d, p >= 1``, so a huge ``d`` or ``p`` is refused
    before anything is counted; shared by the explicit polynomial feature maps of
    chapters 3 and 6.
    """
    if p == 0:
        return
    count = math.comb(d + p, p) if d + p <= _MAX_MONOMIALS else None
    if count is None or count > _MAX_MONOMIALS:
        def short(v: int) -> str:
            return str(v) if v < 10**9 else f"~1e{len(str(v)) - 1}"
        found = f"C(d+p, p) = {count:,}" if count is not None else "more than that"
        raise ValueError(
            f"{what}={short(p)} in d={short(d)} variables: an explicit feature map holds at "
            f"most {_MAX_MONOMIALS:,} monomials, and there are {found}; use a smaller {what} "
            "(or the kernel itself instead of its explicit features)"
        )


def monomial_exponents(d: int, p: int) -> NDArray[np.int_]:
    """All exponent vectors ``j`` in ``N^d`` with ``j_1 + ... + j_d <= p``.

    Returns
    -------
    ndarray of shape (C(d+p, p), d), dtype int
        One row per monomial ``x^j``, ordered by total degree.

    Raises
    ------
    ValueError
        If there are more than a million monomials.
    """
    d = check_int(d, "d", minimum=1)
    p = check_int(p, "p", minimum=0)
    _check_monomial_count(d, p, "p")
    # a multiset of size p from {0 (the constant slot), 1, ..., d} is a monomial of degree <= p
    rows = []
    for combo in combinations_with_replacement(range(d + 1), p):
        counts = np.bincount(np.asarray(combo, dtype=int), minlength=d + 1)
        rows.append(counts[1:])
    J = np.array(rows, dtype=int).reshape(-1, d)
    return J[np.lexsort(np.vstack([J.T[::-1], J.sum(axis=1)]))]


def polynomial_features(X: ArrayLike, degree: int, c: float = 1.0) -> NDArray[np.float64]:
    """Explicit feature map of the polynomial kernel ``(x^T x' + c)^degree``.

    Feature ``j`` (an exponent vector with ``|j| <= degree``, see
    :func:`monomial_exponents`) is
    ``sqrt(degree! / (j_0! j_1! ... j_d!) * c^{j_0}) * x^j`` with
    ``j_0 = degree - |j|``, so that ``Phi @ Phi.T`` is the kernel's Gram matrix.

    Parameters
    ----------
    X : array of shape (n, d)
        Inputs (a 1-D array is read as n points in one dimension).
    degree : int
        Degree ``p >= 1``.
    c : float, default 1.0
        Offset ``c >= 0``.  With ``c = 0`` only the ``C(d+p-1, p)`` features of
        degree exactly ``p`` are non-zero; they are all returned anyway.

    Returns
    -------
    ndarray of shape (n, C(d+p, p))
    """
    X = check_matrix(X, "X")
    p = check_int(degree, "degree", minimum=1)
    c = check_nonnegative(c, "c")
    _check_monomial_count(X.shape[1], p)
    J = monomial_exponents(X.shape[1], p)
    j0 = p - J.sum(axis=1)
    log_coef = (special.gammaln(p + 1) - special.gammaln(j0 + 1)
                - special.gammaln(J + 1).sum(axis=1))
    coef = np.exp(0.5 * log_coef) * np.sqrt(c) ** j0
    mono = np.prod(X[:, None, :] ** J[None, :, :], axis=2)
    return mono * coef


def gaussian_features_1d(x: ArrayLike, sigma: float, n_terms: int) -> NDArray[np.float64]:
    """The first ``n_terms`` coordinates of the l^2 feature map of the 1-D Gaussian kernel.

    ``phi_m(x) = exp(-x^2 / (2 sigma^2)) (x / sigma)^m / sqrt(m!)``, ``m = 0, 1, ...``,
    so that ``sum_m phi_m(x) phi_m(x') = exp(-(x - x')^2 / (2 sigma^2))``.

    Parameters
    ----------
    x : array of shape (n,)
        Points on the real line.
    sigma : float
        Bandwidth ``sigma > 0``.
    n_terms : int
        Number ``M >= 1`` of coordinates kept (``m = 0, ..., M-1``).

    Returns
    -------
    ndarray of shape (n, n_terms)
    """
    x = check_vector(x, "x")
    sigma = check_positive(sigma, "sigma")
    M = check_int(n_terms, "n_terms", minimum=1)
    m = np.arange(M)
    t = x[:, None] / sigma
    # power and factorial in log space avoid overflow for large m; t^0 = 1 also at t = 0
    with np.errstate(divide="ignore", invalid="ignore"):
        log_abs = np.where(m == 0, 0.0, m * np.log(np.abs(t))) - 0.5 * special.gammaln(m + 1)
    sign = np.where((t < 0) & (m % 2 == 1), -1.0, 1.0)
    with np.errstate(over="ignore", invalid="ignore"):
        half_t2 = 0.5 * t**2
        out = np.exp(-half_t2) * sign * np.exp(log_abs)
        # far out (|t|^m or t^2 overflows) the two factors are 0 * inf: add the exponents
        # instead; where t^2 overflows the Gaussian factor wins and the feature is 0
        far = sign * np.exp(log_abs - half_t2)
        far = np.where(np.isinf(half_t2), 0.0, far)
    return np.where(np.isfinite(out), out, far)
