"""Kernel ridge regression for a whole grid of penalties from one eigendecomposition (chapter 3).

With the eigendecomposition :math:`K = U\\,\\mathrm{diag}(d)\\,U^\\top` (chapter 3),
the dual coefficients of kernel ridge regression are

.. math::

    \\alpha_\\lambda = (K + \\lambda I)^{-1} y
                     = U\\,\\mathrm{diag}\\big(1/(d + \\lambda)\\big)\\,U^\\top y ,

so after one :math:`O(n^3)` factorisation every further value of
:math:`\\lambda` costs only :math:`O(n^2)` (a "spectral filter").  This module
holds that engine: the fitted values along a penalty grid (:func:`krr_path`,
through the shrinkage factors :math:`d/(d+\\lambda)`), the exact leave-one-out
error of chapter 2 for every penalty (:func:`krr_loo`), and the pseudo-inverse
helpers shared with ``kmlib.model_selection.krr_cv`` and
``kmlib.model_selection.krr_tuning``.

``lam = 0`` in :func:`krr_path` means the minimum-norm interpolant
(pseudo-inverse with the rank tolerance of :mod:`kmlib.krr`); a penalty
``lam > 0`` for which ``K + lam I`` is numerically singular (an indefinite
kernel) is solved by the pseudo-inverse with one :class:`RuntimeWarning`, as in
:class:`kmlib.krr.KernelRidge`.
"""
from __future__ import annotations

import warnings

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._linalg import dot, eigh_owned, pinv_mask
from .._validation import (
    check_eigenvalues_psd,
    check_path,
    finite_result,
    rank_tol,
)

__all__ = ["krr_path", "krr_loo"]


# ---------------------------------------------------------------------------
# helpers (shared with krr_cv and krr_tuning)
# ---------------------------------------------------------------------------
def _inverse_filter(d: np.ndarray, lams: np.ndarray) -> NDArray[np.float64]:
    """Matrix ``W[k, j] = 1 / (d_k + lams_j)``, zero where the pseudo-inverse drops it."""
    S = d[:, None] + lams[None, :]
    keep = pinv_mask(S, d.shape[0])
    W = np.zeros_like(S)
    np.divide(1.0, S, out=W, where=keep)
    return W


def _warn_dropped(d: np.ndarray, lams: np.ndarray, who: str) -> None:
    """The policy of :class:`kmlib.krr.KernelRidge`, shared by every path function.

    A penalty ``lam > 0`` for which ``K + lam I`` is numerically singular is solved
    by the pseudo-inverse, with one :class:`RuntimeWarning` naming the penalties.
    """
    S = d[:, None] + lams[None, :]
    dropped = ~np.all(pinv_mask(S, d.shape[0]), axis=0) & (lams > 0)
    if np.any(dropped):
        warnings.warn(
            f"{who}: K + lam*I is numerically singular for lam in "
            f"{sorted(float(v) for v in lams[dropped])}; those fits use the minimum-norm "
            "solution pinv(K + lam*I) @ y (as KernelRidge does). Use larger penalties.",
            RuntimeWarning,
            stacklevel=3,
        )


def _eigh_psd(K: np.ndarray, who: str) -> tuple[np.ndarray, np.ndarray]:
    """``(d, U)``, the eigendecomposition of a copy of the checked Gram matrix ``K``.

    An eigenvalue below rounding of zero raises (``check_eigenvalues_psd``, naming ``who``).
    """
    d, U = eigh_owned(np.array(K, order="C", copy=True))
    check_eigenvalues_psd(d, "K", who=who)
    return d, U


def _dual_path(A: np.ndarray, y: np.ndarray, lams: np.ndarray) -> NDArray[np.float64]:
    """Dual coefficients for every penalty from one eigendecomposition.

    ``A`` is the owned (C-ordered, validated) Gram matrix and is destroyed;
    column ``j`` of the result is ``pinv(A + lams[j] I) @ y``.
    """
    d, U = eigh_owned(A)
    z = dot(U.T, y)
    return dot(U, z[:, None] * _inverse_filter(d, lams))


# ---------------------------------------------------------------------------
# public functions
# ---------------------------------------------------------------------------
@finite_result
def krr_path(K: ArrayLike, y: ArrayLike, lams: ArrayLike) -> NDArray[np.float64]:
    """Fitted values of kernel ridge regression for a whole grid of penalties.

    Uses one eigendecomposition :math:`K = U\\,\\mathrm{diag}(d)\\,U^\\top`:
    :math:`K\\alpha_\\lambda = U\\,\\mathrm{diag}(d/(d+\\lambda))\\,U^\\top y`
    (the shrinkage factors of chapter 3).  Total cost :math:`O(n^3 + n^2 L)`
    for ``L`` penalties.

    Parameters
    ----------
    K : array of shape (n, n)
        Symmetric Gram matrix of the training inputs; not modified.
    y : array of shape (n,)
        Responses.
    lams : float or array of shape (L,)
        Penalties :math:`\\lambda \\ge 0`; ``0`` gives the projection of ``y``
        onto the numerical range of ``K`` (the minimum-norm interpolant's fit).

    Returns
    -------
    fitted : ndarray of shape (n, L)
        Column ``j`` equals ``K @ krr_fit(K, y, lams[j])``.  The penalty is the last
        axis, as in every path of kmlib (:func:`kmlib.ridge.fitted_values_path`,
        which it equals for the linear kernel ``K = X X^T``).

    Examples
    --------
    >>> import numpy as np
    >>> K = np.array([[2.0, 1.0], [1.0, 2.0]])
    >>> F = krr_path(K, [1.0, 0.0], [1.0, 10.0])
    >>> F.shape
    (2, 2)
    >>> np.allclose(F[:, 0], K @ np.linalg.solve(K + np.eye(2), [1.0, 0.0]))
    True
    """
    K, y, lams = check_path(K, y, lams, ("K", "y"), matrix="gram")
    d, U = _eigh_psd(K, "krr_path")
    _warn_dropped(d, lams, "krr_path")
    G = d[:, None] * _inverse_filter(d, lams)  # d / (d + lam), pseudo-inverse convention
    return np.ascontiguousarray(dot(U, dot(U.T, y)[:, None] * G))   # (n, L)


@finite_result
def krr_loo(K: ArrayLike, y: ArrayLike, lams: ArrayLike) -> NDArray[np.float64]:
    """Exact leave-one-out error of kernel ridge regression for a grid of penalties.

    With :math:`\\alpha = (K+\\lambda I)^{-1}y` the leave-one-out residual has
    the closed form

    .. math::

        e_i = \\frac{y_i - \\hat y_i}{1 - H_{ii}}
            = \\frac{\\alpha_i}{[(K + \\lambda I)^{-1}]_{ii}},
        \\qquad H = K (K + \\lambda I)^{-1} = U\\,\\mathrm{diag}(d/(d+\\lambda))\\,U^\\top,

    because :math:`I - H = \\lambda (K+\\lambda I)^{-1}`.  The right-hand form
    is used: the diagonal :math:`[(K+\\lambda I)^{-1}]_{ii} = (U\\circ U)\\,(1/(d+\\lambda))`
    is computed without forming any n-by-n inverse, it avoids the cancellation in
    :math:`1 - H_{ii}` when :math:`\\lambda` is small, and it holds at
    :math:`\\lambda = 0` as well when :math:`K` is invertible (each :math:`e_i` is then
    the residual of the interpolant of the other :math:`n - 1` points; the left-hand
    form is 0/0 there).  One eigendecomposition serves every penalty: cost
    :math:`O(n^3 + n^2 L)`.

    Parameters
    ----------
    K : array of shape (n, n)
        Symmetric Gram matrix; not modified.
    y : array of shape (n,)
        Responses.
    lams : float or array of shape (L,)
        Penalties >= 0 (``lam = 0``: interpolation, for an invertible ``K``); a
        penalty at which :math:`K + \\lambda I` is singular to rounding is refused.

    Returns
    -------
    loo : ndarray of shape (L,)
        :math:`\\frac1n\\sum_i e_i^2` for every penalty.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.linspace(0, 1, 20)
    >>> K = np.exp(-(x[:, None] - x[None, :]) ** 2 / 0.02)
    >>> loo = krr_loo(K, np.sin(6 * x), [1e-2, 1.0])
    >>> loo.shape
    (2,)
    """
    K, y, lams = check_path(K, y, lams, ("K", "y"), matrix="gram", min_rows=2, why="leave-one-out")
    n = K.shape[0]
    d, U = _eigh_psd(K, "krr_loo")
    S = d[:, None] + lams[None, :]
    if not np.all(pinv_mask(S, n)):
        j = int(np.argmin(np.min(np.abs(S), axis=0)))
        raise ValueError(
            f"krr_loo: K + lam*I is numerically singular for lam={float(lams[j]):g}: K's "
            f"smallest eigenvalue {float(d[0]):.3g} plus lam is within rounding "
            f"({float(rank_tol(S[:, j], n)):.3g}) of zero, so the leave-one-out formula "
            "divides by zero there. Use a larger lam"
        )
    W = 1.0 / S
    alpha = dot(U, dot(U.T, y)[:, None] * W)  # (n, L)
    diag_inv = dot(U * U, W)  # [(K + lam I)^{-1}]_ii, (n, L)
    e = alpha / diag_inv
    with np.errstate(over="ignore"):
        loo = np.einsum("ij,ij->j", e, e) / n
    return loo
