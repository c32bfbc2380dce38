"""Sobolev norms of kernel expansions by exact piecewise integration.

Chapter "Reproducing kernel Hilbert spaces": the norms ``int f'^2`` (first-order
Sobolev kernel ``min(x, x')``) and ``int f''^2`` (second order) of kernel
expansions are integrals of piecewise polynomials, computed exactly by
Gauss--Legendre on every piece (:func:`piecewise_integral`,
:func:`sobolev1_derivative`, :func:`sobolev2_second_derivative`).
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from kmlib._validation import as_float_array, check_int, check_real, check_vector

from ._common import _unit_points

__all__ = ["piecewise_integral", "sobolev1_derivative", "sobolev2_second_derivative"]


def piecewise_integral(func: Callable[[np.ndarray], np.ndarray], breaks: ArrayLike,
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
    if not callable(func):
        raise ValueError(f"func must be a callable of one array argument; got "
                         f"{type(func).__name__}")
    order = check_int(order, "order")
    a, b = check_real(a, "a"), check_real(b, "b")
    if not (np.isfinite(a) and np.isfinite(b) and a < b):
        raise ValueError(f"the interval must satisfy a < b (finite); got a={a!r}, b={b!r}")
    br = check_vector(np.ravel(as_float_array(breaks, "breaks")), "breaks", min_len=0)
    pts = np.unique(np.concatenate([[a, b], br[(br > a) & (br < b)]]))
    t, w = np.polynomial.legendre.leggauss(order)
    lo, hi = pts[:-1, None], pts[1:, None]
    u = 0.5 * (hi - lo) * t + 0.5 * (hi + lo)
    vals = as_float_array(func(u.ravel()), "func(u)")
    if vals.size != u.size:
        raise ValueError(f"func must return one value per point; got {vals.size} values "
                         f"for {u.size} points")
    vals = vals.reshape(u.shape)
    return float(np.sum(0.5 * (hi - lo) * (vals @ w[:, None])))


def _centres_and_coefficients(X: ArrayLike, alpha: ArrayLike,
                              ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Centres in [0, 1] and one coefficient per centre, validated."""
    x = _unit_points(X, "X")
    a = check_vector(alpha, "alpha")
    if len(a) != len(x):
        raise ValueError(f"alpha must have one coefficient per centre ({len(x)}); got {len(a)}")
    return x, a


def sobolev1_derivative(X: ArrayLike, alpha: ArrayLike, u: ArrayLike) -> NDArray[np.float64]:
    """Derivative ``f'(u) = sum_i alpha_i 1{u < x_i}`` of ``f = sum_i alpha_i min(., x_i)``.

    Returns
    -------
    ndarray of shape (len(u),)
    """
    x, a = _centres_and_coefficients(X, alpha)
    uu = check_vector(np.ravel(as_float_array(u, "u")), "u", min_len=0)
    return (uu[:, None] < x[None, :]).astype(float) @ a


def sobolev2_second_derivative(X: ArrayLike, alpha: ArrayLike,
                               u: ArrayLike) -> NDArray[np.float64]:
    """Second derivative ``f''(u) = sum_i alpha_i (x_i - u)_+`` of a second-order Sobolev expansion.

    Here ``f = sum_i alpha_i k(., x_i)`` with ``k(x, x') = int_0^{min(x,x')} (x - v)(x' - v) dv``.

    Returns
    -------
    ndarray of shape (len(u),)
    """
    x, a = _centres_and_coefficients(X, alpha)
    uu = check_vector(np.ravel(as_float_array(u, "u")), "u", min_len=0)
    return np.maximum(x[None, :] - uu[:, None], 0.0) @ a
