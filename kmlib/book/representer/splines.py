"""An independent reference for the piecewise-linear smoothing spline.

Chapter 6 ("The representer theorem") solves smoothing splines as kernel ridge
regression with an unpenalised polynomial part, through the bordered system, in
its own cells. :func:`linear_smoothing_spline` is a second route for the
first-order (piecewise-linear) case, a tridiagonal solve that never sees a kernel;
the chapter and the exercise checker of chapter 6 compare against it.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike, NDArray

from kmlib._validation import (
    check_positive,
    check_same_length,
    check_vector,
)


def linear_smoothing_spline(x: ArrayLike, y: ArrayLike, lam: float) -> NDArray[np.float64]:
    r"""Fitted values of the linear smoothing spline, by a banded solve.

    The spline minimises :math:`\sum_i (y_i - f(x_i))^2 + \lambda\int f'^2`. The minimiser
    is piecewise linear between the sorted data points and constant outside, so with
    :math:`g_i = f(x_{(i)})` the penalty is
    :math:`\sum_i (g_{i+1} - g_i)^2 / (x_{(i+1)} - x_{(i)})` and the fitted values solve
    the tridiagonal system :math:`(I + \lambda L) g = y` with the weighted path-graph
    Laplacian :math:`L`.  This is an independent route to the bordered kernel system
    with the first-order Sobolev kernel and an unpenalised constant.

    Parameters
    ----------
    x : array of shape (n,)
        Distinct inputs.
    y : array of shape (n,)
        Responses.
    lam : float
        Penalty ``lam > 0``.

    Returns
    -------
    ndarray of shape (n,)
        Fitted values in the order of ``x``.
    """
    x = check_vector(x, "x")
    y = check_vector(y, "y")
    check_same_length(x, y, "x", "y")
    lam = check_positive(lam, "lam")
    order = np.argsort(x)
    h = np.diff(x[order])
    if np.any(h <= 0):
        raise ValueError(
            f"x must contain distinct values; got {int(np.sum(h <= 0))} repeated value(s)"
        )
    w = lam / h
    diag = np.ones(len(x))
    diag[:-1] += w
    diag[1:] += w
    ab = np.zeros((2, len(x)))
    ab[0, 1:] = -w
    ab[1] = diag
    try:
        g = scipy.linalg.solveh_banded(ab, y[order])
    except np.linalg.LinAlgError:
        raise ValueError(
            f"lam / (smallest gap of x) = {float(np.max(w)):.3g} is so large that I + lam L "
            "is numerically singular; use a smaller lam or rescale x"
        ) from None
    out = np.empty_like(g)
    out[order] = g
    return out
