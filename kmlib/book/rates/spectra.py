"""Mercer and design spectra: sums of ``min(mu_j, gamma)``.

Chapter "How fast does kernel ridge regression learn?": the risk bound depends on
the spectrum through ``sum_j min(mu_j, gamma)``.  Exact sums for power-law
spectra (:func:`power_min_sum`, Hurwitz zeta) and the
closed-form eigenvalues of ``K/n`` for ``min(x, x')`` on a grid
(:func:`grid_min_eigenvalues`).
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from kmlib._validation import (
    check_int,
    check_nonnegative,
    check_positive,
)

from ._common import _lam_grid

__all__ = ["power_min_sum", "grid_min_eigenvalues"]


def power_min_sum(gamma: ArrayLike, c: float, p: float,
                  shift: float = 0.0) -> float | NDArray[np.float64]:
    r"""Exact :math:`\sum_{j\ge1}\min(c\,(j - s)^{-p}, \gamma)` for a power-law spectrum.

    The terms exceed :math:`\gamma` exactly for the first
    :math:`J = \max(0, \lceil s + (c/\gamma)^{1/p}\rceil - 1)` indices, and the
    tail is a Hurwitz zeta value, :math:`\sum_{j > J} c(j - s)^{-p} = c\,\zeta(p, J + 1 - s)`.

    Examples: the Sobolev spectrum :math:`\mu_j = 4/(\pi^2(2j - 1)^2)` is
    ``c = 1/pi**2, p = 2, shift = 0.5`` (and :math:`\mu_j/4` is ``c = 1/(4 pi**2)``);
    the slow spectrum :math:`\mu_j = j^{-1.1}` is ``c = 1, p = 1.1``.

    Parameters
    ----------
    gamma : float or 1-D array
        Thresholds (> 0).
    c : float
        Scale (> 0).
    p : float
        Exponent (> 1, so that the series converges).
    shift : float, default 0
        Shift :math:`s \in [0, 1)`.

    Returns
    -------
    float or ndarray
        The sum, with the shape of ``gamma``.
    """
    g, scalar = _lam_grid(gamma, "gamma")
    c = check_positive(c, "c")
    p = check_positive(p, "p")
    if p <= 1.0:
        raise ValueError(f"p must be > 1 for a summable spectrum; got {p!r}")
    shift = check_nonnegative(shift, "shift")
    if shift >= 1.0:
        raise ValueError(f"shift must lie in [0, 1); got {shift!r}")
    J = np.maximum(0.0, np.ceil(shift + (c / g) ** (1.0 / p)) - 1.0)
    # guard the boundary case c (J - s)^{-p} == gamma exactly (rounding of the root)
    base = np.where(J >= 1, J - shift, 1.0)
    J = np.where((J >= 1) & (c * base ** (-p) < g), J - 1, J)
    # and the other side: for a huge p the root (c/gamma)^{1/p} rounds down to 1 exactly,
    # while the term J + 1 still exceeds gamma
    J = np.where(c * (J + 1.0 - shift) ** (-p) > g, J + 1, J)
    a = J + 1.0 - shift
    tail = special.zeta(p, a)
    # scipy's zeta(p, a) is NaN for p beyond about 1e13; the tail is then its first term
    # (the next ones are smaller by a factor (a / (a + 1))^p, which underflows)
    tail = np.where(np.isnan(tail), a ** (-p), tail)
    out = J * g + c * tail
    return float(out[0]) if scalar else out


def grid_min_eigenvalues(n: int) -> NDArray[np.float64]:
    r"""Closed-form eigenvalues of :math:`K/n` for :math:`\min(x, x')` at :math:`x_i = i/n`.

    The matrix :math:`(\min(i, j))_{i,j\le n}` has eigenvalues
    :math:`1/(4\sin^2(\frac{(2j - 1)\pi}{2(2n + 1)}))`, so :math:`K/n = n^{-2}\min(i, j)`
    has :math:`\hat\mu_j = 1/(4n^2\sin^2(\frac{(2j - 1)\pi}{4n + 2}))`, which tends to
    the Mercer eigenvalue :math:`4/(\pi^2(2j - 1)^2)` as :math:`n \to \infty`.

    Parameters
    ----------
    n : int
        Grid size (>= 1).

    Returns
    -------
    ndarray of shape (n,)
        :math:`\hat\mu_1 \ge \dots \ge \hat\mu_n`.
    """
    n = check_int(n, "n", minimum=1)
    j = np.arange(1, n + 1, dtype=float)
    return 1.0 / (4.0 * n**2 * np.sin((2.0 * j - 1.0) * np.pi / (4.0 * n + 2.0)) ** 2)
