"""The exact MSPE of kernel ridge regression with the kernel ``min(x, x')``.

Chapter "How fast does kernel ridge regression learn?": the Gram matrix of
``min(x, x')`` (the covariance of Brownian motion) at sorted points has a
tridiagonal inverse, so the exact MSPE at the design (bias and variance, in
expectation over the noise) costs O(n) per penalty: the fast path of the rate
experiment (:func:`brownian_precision`, :func:`sobolev_mspe`).
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import linalg

from kmlib._validation import as_float_array, check_nonnegative, check_vector

from ._common import _lam_grid

__all__ = ["brownian_precision", "sobolev_mspe"]


def brownian_precision(x: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""The tridiagonal inverse of the Gram matrix of ``min(x, x')`` at sorted points.

    For :math:`0 < x_1 < \dots < x_n`, with :math:`h_i = x_i - x_{i-1}` and :math:`x_0 = 0`,
    :math:`K^{-1}` has diagonal :math:`1/h_i + 1/h_{i+1}` (:math:`1/h_n` in the last
    row) and off-diagonal :math:`-1/h_{i+1}`: the precision matrix of Brownian motion.

    Parameters
    ----------
    x : array of shape (n,)
        Strictly increasing points in (0, inf).

    Returns
    -------
    diag : ndarray of shape (n,)
    off : ndarray of shape (n - 1,)
    """
    x = check_vector(x, "x")
    if x[0] <= 0.0 or np.any(np.diff(x) <= 0.0):
        raise ValueError("x must be strictly increasing and positive; sort it and drop repeats")
    h = np.diff(np.concatenate([[0.0], x]))            # h_i = x_i - x_{i-1}, x_0 = 0
    inv_h = 1.0 / h
    diag = inv_h.copy()
    diag[:-1] += inv_h[1:]
    return diag, -inv_h[1:]


def sobolev_mspe(x: ArrayLike, f0: ArrayLike, sigma2: float,
                 lam: ArrayLike) -> float | NDArray[np.float64]:
    r"""Exact MSPE of KRR with the kernel :math:`\min(x, x')` at the design ``x``.

    For sorted distinct points :math:`0 < x_1 < \dots < x_n` the Gram matrix
    :math:`K = (\min(x_i, x_j))` has a tridiagonal inverse :math:`Q` (the
    precision matrix of Brownian motion): with :math:`h_i = x_i - x_{i-1}`,
    :math:`x_0 = 0`, :math:`Q_{ii} = 1/h_i + 1/h_{i+1}` (:math:`1/h_n` for
    :math:`i = n`) and :math:`Q_{i,i+1} = -1/h_{i+1}`.  Then
    :math:`S = K(K + \lambda I)^{-1} = (I + \lambda Q)^{-1}`, so the squared bias
    :math:`\|(S - I)f^0\|^2 = \|\lambda Q b\|^2` with :math:`(I + \lambda Q)b = f^0`
    costs one banded solve, and the variance :math:`\sigma^2\operatorname{tr}S^2
    = \sigma^2\sum_i (1 + \lambda t_i)^{-2}` needs only the eigenvalues :math:`t_i`
    of the tridiagonal :math:`Q` (no eigenvectors).  This is the fast path of the
    rate experiment.

    Parameters
    ----------
    x : array of shape (n,)
        Distinct design points in (0, 1] (any order).
    f0 : array of shape (n,) or (n, m)
        True function(s) at ``x`` (same order as ``x``); columns are separate targets.
    sigma2 : float
        Noise variance (>= 0).
    lam : float or 1-D array
        Penalties (> 0).

    Returns
    -------
    float or ndarray
        :math:`(\|(S - I)f^0\|^2 + \sigma^2\operatorname{tr}S^2)/n`; shape ``(L,)``
        (or a float for scalar ``lam``) for one target, ``(L, m)`` (or ``(m,)``) for
        ``m`` targets.
    """
    x = check_vector(x, "x")
    F = as_float_array(f0, "f0")
    if F.ndim not in (1, 2) or F.shape[0] != x.shape[0] or not np.all(np.isfinite(F)):
        raise ValueError(
            f"f0 must be a finite array of shape ({x.shape[0]},) or ({x.shape[0]}, m); "
            f"got shape {F.shape}"
        )
    one = F.ndim == 1
    F = F.reshape(x.shape[0], -1)
    if x.min() <= 0.0 or x.max() > 1.0:
        raise ValueError(f"x must lie in (0, 1]; got values in [{x.min()!r}, {x.max()!r}]")
    order = np.argsort(x, kind="stable")
    xs, fs = x[order], F[order]
    if np.any(np.diff(xs) <= 0.0):
        raise ValueError("x must contain distinct points; got a repeated value")
    sigma2 = check_nonnegative(sigma2, "sigma2")
    lams, scalar = _lam_grid(lam)
    n = xs.shape[0]
    q_diag, q_off = brownian_precision(xs)
    t = linalg.eigvalsh_tridiagonal(q_diag, q_off)
    out = np.empty((lams.shape[0], F.shape[1]))
    for j, lv in enumerate(lams):
        ab = np.zeros((2, n))                         # lower banded form of I + lam Q
        ab[0] = 1.0 + lv * q_diag
        ab[1, :-1] = lv * q_off
        b = linalg.solveh_banded(ab, fs, lower=True)
        qb = q_diag[:, None] * b
        qb[:-1] += q_off[:, None] * b[1:]
        qb[1:] += q_off[:, None] * b[:-1]
        bias2 = lv**2 * np.sum(qb * qb, axis=0)
        var = sigma2 * np.sum(1.0 / (1.0 + lv * t) ** 2)
        out[j] = (bias2 + var) / n
    if one:
        out = out[:, 0]
    return out[0] if scalar and not one else (float(out[0]) if scalar else out)
