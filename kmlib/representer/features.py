"""Explicit feature matrices: kernel computations as ordinary vector computations.

Chapter 6 ("The representer theorem") compares feature-space and kernel-space
computations:

* :func:`polynomial_features` -- an explicit feature map of the polynomial kernel
  ``(c + x^T x')^degree`` (one column per monomial, in the order of
  :func:`itertools.combinations_with_replacement`; chapter 3's
  :func:`kmlib.kernel_trick.polynomial_features` orders the columns differently
  and also accepts ``c = 0``);
* :func:`whitened_features` -- coordinates in which kernel expansions on a set of
  centres become ordinary vectors (the RKHS norm becomes the Euclidean norm).
"""
from __future__ import annotations

from itertools import combinations_with_replacement
from math import factorial

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import (
    EPS,
    check_int,
    check_matrix,
    check_positive,
    check_square,
    check_symmetric,
    finite_result,
)
from ..kernel_trick.feature_maps import _check_monomial_count


@finite_result
def polynomial_features(X: ArrayLike, degree: int, c: float = 1.0) -> NDArray[np.float64]:
    """Explicit features of the polynomial kernel ``(c + x^T x')^degree``.

    Every monomial ``x^a`` with ``|a| <= degree`` gets the weight
    ``sqrt(degree! / (a_0! a_1! ... a_d!) * c^{a_0})`` with ``a_0 = degree - |a|``
    (multinomial theorem), so that ``Phi @ Phi.T`` equals the Gram matrix.

    Parameters
    ----------
    X : array of shape (n, d) or (n,)
        Inputs.
    degree : int
        Degree ``m >= 1``.
    c : float
        Offset ``c > 0``.

    Returns
    -------
    Phi : ndarray of shape (n, binom(d + m, m))
        One column per monomial of degree at most ``m``.
    """
    X = check_matrix(X, "X")
    m = check_int(degree, "degree", minimum=1)
    c = check_positive(c, "c")
    n, d = X.shape
    _check_monomial_count(d, m)
    cols = []
    for total in range(m + 1):
        for idx in combinations_with_replacement(range(d), total):
            powers = np.bincount(np.asarray(idx, dtype=int), minlength=d)
            a0 = m - total
            coef = factorial(m) / (factorial(a0) * np.prod([factorial(int(k)) for k in powers]))
            cols.append(np.sqrt(coef * c**a0) * np.prod(X ** powers, axis=1))
    return np.column_stack(cols)


def whitened_features(G: ArrayLike, rtol: float | None = None) -> NDArray[np.float64]:
    """Rows ``phi_j`` with ``phi_i . phi_j = G_ij``, from one eigendecomposition of ``G``.

    If ``G`` is the Gram matrix of centres ``c_1, ..., c_m``, the expansion
    ``f = sum_j beta_j k(., c_j)`` corresponds to the vector ``w = Phi.T @ beta``:
    its values at the centres are ``Phi @ w`` and ``||f||_H = ||w||``.
    Eigenvalues below ``rtol * max eigenvalue`` are dropped (the centres' span has
    that numerical dimension).

    Parameters
    ----------
    G : array of shape (m, m)
        Symmetric positive semidefinite Gram matrix.
    rtol : float, optional
        Relative cut-off; default ``m * eps``.

    Returns
    -------
    Phi : ndarray of shape (m, r)
        ``r`` is the numerical rank of ``G``.
    """
    G = check_square(G, "G")
    check_symmetric(G, "G")
    m = G.shape[0]
    rtol = m * EPS if rtol is None else check_positive(rtol, "rtol")
    d, V = np.linalg.eigh(G)
    keep = d > rtol * max(d[-1], 0.0)
    if not np.any(keep):
        raise ValueError(
            f"G must have at least one positive eigenvalue; its largest is {d[-1]!r}"
        )
    return V[:, keep] * np.sqrt(d[keep])
