"""Companions to the chapter "Ridge regression": where the MSE-matrix order flips.

The chapter's theorem gives a sufficient threshold, ``2 sigma^2 / ||beta0||^2``, below which
ridge beats least squares in the order of mean-squared-error matrices. This module finds the
exact value of ``lam`` at which that order first fails for a given design.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import ridge
from ._validation import check_positive

__all__ = ["mse_order_crossing"]


def mse_order_crossing(X: Any, beta0: Any, sigma2: float, *, xtol: float = 1e-12,
                       max_factor: float = 1e6) -> float:
    """Smallest ``lam`` at which ``MSE(OLS) - MSE(ridge)`` stops being positive definite.

    Parameters
    ----------
    X : array of shape (n, p)
        Design of full column rank.
    beta0 : array of shape (p,)
        True coefficients, not all zero.
    sigma2 : float
        Noise variance, positive.
    xtol : float, default 1e-12
        Relative tolerance of the bisection in ``lam``.
    max_factor : float, default 1e6
        The search stops at ``max_factor`` times the sufficient threshold.

    Returns
    -------
    float
        The crossing ``lam``; at least :func:`kmlib.ridge.ridge_beats_ols_threshold`.

    Raises
    ------
    ValueError
        If ``beta0`` is zero (ridge then beats OLS for every ``lam``) or if no sign change is
        found below ``max_factor`` times the threshold.
    """
    sigma2 = check_positive(sigma2, "sigma2")
    b = np.asarray(beta0, dtype=float)
    if not np.any(b):
        raise ValueError("beta0: got the zero vector; expected a nonzero vector "
                         "(with beta0 = 0 ridge beats OLS for every lam)")
    thr = ridge.ridge_beats_ols_threshold(b, sigma2)

    def min_eig(lam: float) -> float:
        return float(np.linalg.eigvalsh(ridge.mse_difference(X, b, sigma2, lam))[0])

    lo, hi = thr, 2.0 * thr
    while min_eig(hi) > 0:
        lo, hi = hi, 2.0 * hi
        if hi > max_factor * thr:
            raise ValueError(f"max_factor: got {max_factor:g}; no sign change of the smallest "
                             "eigenvalue below max_factor times the threshold; expected a larger value")
    while hi - lo > xtol * hi:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if min_eig(mid) > 0 else (lo, mid)
    return 0.5 * (lo + hi)
