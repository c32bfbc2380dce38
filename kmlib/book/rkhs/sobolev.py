"""Exact integrals of piecewise polynomials, for the Sobolev norms of kernel expansions.

Chapter "Reproducing kernel Hilbert spaces": the norms ``int f'^2`` (first-order
Sobolev kernel ``min(x, x')``) and ``int f''^2`` (second order) of kernel
expansions are integrals of piecewise polynomials, computed exactly by
Gauss--Legendre on every piece (:func:`piecewise_integral`). The chapter writes
``f'`` and ``f''`` out in its cells; this helper repeats the quadrature.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from kmlib._validation import as_float_array, check_int, check_real, check_vector

__all__ = ["piecewise_integral"]


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
