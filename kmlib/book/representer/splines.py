"""Smoothing splines as kernel ridge regression with an unpenalised polynomial part.

Chapter 6 ("The representer theorem") applies the theorem with an unpenalised
part to smoothing splines on [0, 1]:

* :class:`SplineKernelRidge` -- the cubic (``order=2``) and the piecewise-linear
  (``order=1``) smoothing spline through the bordered kernel system with a
  Sobolev kernel;
* :func:`linear_smoothing_spline` -- an independent banded solver for the
  first-order (piecewise-linear) case.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike, NDArray

from kmlib import kernels
from kmlib._validation import (
    check_finite_result,
    check_fitted,
    check_int,
    check_matrix,
    check_positive,
    check_same_length,
    check_vector,
)


class SplineKernelRidge:
    r"""Kernel ridge regression with a Sobolev kernel and an unpenalised polynomial part.

    Minimises :math:`\sum_i (y_i - f(x_i))^2 + \lambda \|h\|_{\mathcal H}^2` over
    :math:`f = h + p` with :math:`h` in the RKHS of the Sobolev kernel of the given
    order on [0, 1] and :math:`p` a polynomial of degree ``order - 1``:

    * ``order=2``: kernel :func:`kmlib.kernels.sobolev2`, :math:`p\in\{1, x\}`,
      penalty :math:`\int_0^1 f''^2` -- the cubic smoothing spline;
    * ``order=1``: kernel :func:`kmlib.kernels.sobolev1`, :math:`p\in\{1\}`,
      penalty :math:`\int_0^1 f'^2` -- a piecewise-linear fit.

    The coefficients solve the bordered system
    :math:`\begin{bmatrix}K+\lambda I & T\\ T^\top & 0\end{bmatrix}
    \begin{bmatrix}\alpha\\ c\end{bmatrix} = \begin{bmatrix}y\\ 0\end{bmatrix}`,
    :math:`T_{ij} = x_i^{j}`, by one Cholesky factor of :math:`K + \lambda I` and
    the Schur complement :math:`T^\top (K+\lambda I)^{-1} T`.

    Parameters
    ----------
    order : int
        1 or 2.
    lam : float
        Penalty :math:`\lambda > 0`.

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n,)
        :math:`\alpha`.
    null_coef_ : ndarray of shape (order,)
        :math:`c`, coefficients of :math:`1, x, \dots`.
    X_fit_ : ndarray of shape (n, 1)
        Training inputs.
    """

    def __init__(self, order: int = 2, lam: float = 1.0) -> None:
        self.order = order
        self.lam = lam

    def _kernel(self) -> kernels.Kernel:
        order = check_int(self.order, "order", minimum=1, maximum=2)
        return kernels.sobolev1() if order == 1 else kernels.sobolev2()

    def _null_basis(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        return x ** np.arange(int(self.order))[None, :]

    def fit(self, X: ArrayLike, y: ArrayLike) -> "SplineKernelRidge":
        """Fit to inputs ``X`` in [0, 1] (shape (n,) or (n, 1)) and responses ``y``."""
        kernel = self._kernel()
        lam = check_positive(self.lam, "lam")
        X = check_matrix(X, "X")
        y = check_vector(y, "y")
        check_same_length(X, y)
        if X.shape[0] <= self.order:
            raise ValueError(
                f"X must have more than order={self.order} points; got {X.shape[0]}"
            )
        K = kernel(X)
        T = self._null_basis(X)
        try:
            cf = scipy.linalg.cho_factor(K + lam * np.eye(len(y)))
        except np.linalg.LinAlgError:
            raise ValueError(
                f"K + lam I is not numerically positive definite (lam = {lam!r}); use a "
                "larger lam"
            ) from None
        Ay, AT = scipy.linalg.cho_solve(cf, y), scipy.linalg.cho_solve(cf, T)
        S = T.T @ AT
        if np.linalg.cond(S) > 1e12:
            raise ValueError(
                f"X must contain at least {self.order} distinct points for order={self.order}"
            )
        c = check_finite_result(np.linalg.solve(S, T.T @ Ay),
                                "SplineKernelRidge.fit: the polynomial coefficients")
        self.dual_coef_ = check_finite_result(Ay - AT @ c,
                                              "SplineKernelRidge.fit: the dual coefficients")
        self.null_coef_ = c
        self.X_fit_ = X
        return self

    def predict(self, X: ArrayLike) -> NDArray[np.float64]:
        """Evaluate the fitted function at points ``X`` in [0, 1]."""
        check_fitted(self, "dual_coef_")
        X = check_matrix(X, "X")
        return (self._kernel()(X, self.X_fit_) @ self.dual_coef_
                + self._null_basis(X) @ self.null_coef_)

    def __repr__(self) -> str:
        return f"SplineKernelRidge(order={self.order!r}, lam={self.lam!r})"


def linear_smoothing_spline(x: ArrayLike, y: ArrayLike, lam: float) -> NDArray[np.float64]:
    r"""Fitted values of the linear smoothing spline, by a banded solve.

    The spline minimises :math:`\sum_i (y_i - f(x_i))^2 + \lambda\int f'^2`. The minimiser
    is piecewise linear between the sorted data points and constant outside, so with
    :math:`g_i = f(x_{(i)})` the penalty is
    :math:`\sum_i (g_{i+1} - g_i)^2 / (x_{(i+1)} - x_{(i)})` and the fitted values solve
    the tridiagonal system :math:`(I + \lambda L) g = y` with the weighted path-graph
    Laplacian :math:`L`.  This is an independent route to :class:`SplineKernelRidge`
    with ``order=1``.

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
