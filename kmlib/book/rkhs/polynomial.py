"""The RKHS of the one-dimensional polynomial kernel ``(c + x x')^p``.

Chapter "Reproducing kernel Hilbert spaces": a kernel expansion is a polynomial of
degree at most p, its monomial coefficients follow from the binomial theorem, and
its RKHS norm is a weighted sum of their squares (:func:`polynomial_coefficients`,
:func:`polynomial_rkhs_norm2`).
"""
from __future__ import annotations

from math import comb

import numpy as np
from numpy.typing import ArrayLike, NDArray

from kmlib._validation import (
    as_float_array,
    check_int,
    check_nonnegative,
    check_real,
    check_vector,
)

__all__ = ["polynomial_coefficients", "polynomial_rkhs_norm2"]


def polynomial_coefficients(X: ArrayLike, alpha: ArrayLike, degree: int,
                            c: float = 1.0) -> NDArray[np.float64]:
    r"""Monomial coefficients of ``f = sum_i alpha_i (c + x x_i)^p`` in one dimension.

    By the binomial theorem :math:`f(x)=\sum_{m=0}^p a_mx^m` with
    :math:`a_m=\binom pm c^{p-m}\sum_i\alpha_ix_i^m`.

    Returns
    -------
    ndarray of shape (p + 1,)
        ``a_0, ..., a_p``.
    """
    x = check_vector(np.ravel(as_float_array(X, "X")), "X")
    a = check_vector(alpha, "alpha")
    if len(a) != len(x):
        raise ValueError(f"alpha must have one coefficient per centre ({len(x)}); got {len(a)}")
    p = check_int(degree, "degree")
    c = check_nonnegative(c, "c")
    m = np.arange(p + 1)
    w = np.array([comb(p, int(j)) * c ** (p - j) for j in m])
    return w * (x[None, :] ** m[:, None] @ a)


def polynomial_rkhs_norm2(coefs: ArrayLike, degree: int, c: float = 1.0) -> float:
    r"""Squared RKHS norm :math:`\sum_m a_m^2/(\binom pm c^{p-m})` of a polynomial for (c + x x')^p.

    The feature map :math:`\phi_m(x)=\sqrt{\binom pm c^{p-m}}\,x^m` realises the
    kernel, and the monomials are linearly independent, so a polynomial has
    exactly one coefficient vector and this is its norm.  Requires ``c > 0``.

    Returns
    -------
    float
    """
    p = check_int(degree, "degree")
    c = check_real(c, "c")
    if not c > 0:
        raise ValueError(f"c must be > 0 for every degree up to p to be present; got {c!r}")
    a = check_vector(coefs, "coefs")
    if len(a) != p + 1:
        raise ValueError(f"coefs must hold p + 1 = {p + 1} coefficients; got {len(a)}")
    w = np.array([comb(p, j) * c ** (p - j) for j in range(p + 1)])
    return float(np.sum(a**2 / w))
