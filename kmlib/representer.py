"""The computations behind the chapter "The representer theorem".

* :func:`polynomial_features` -- an explicit feature map of the polynomial kernel,
  so that feature-space and kernel-space computations can be compared;
* :func:`whitened_features` -- coordinates in which kernel expansions on a set of
  centres become ordinary vectors (the RKHS norm becomes the Euclidean norm);
* :func:`smoothed_abs_loss` and :func:`fit_expansion` -- penalised regression with
  a non-quadratic loss over expansions on any set of centres, with the RKHS norm
  of the part orthogonal to the span of the training representers;
* :func:`interpolation_gaps` -- how far kernel ridge regression is from the
  minimum-norm interpolant, for a grid of penalties, from one eigendecomposition;
* :class:`SplineKernelRidge` and :func:`linear_smoothing_spline` -- smoothing
  splines as kernel ridge regression with an unpenalised polynomial part, and an
  independent banded solver for the first-order (piecewise-linear) case;
* :func:`gaussian_linear_posterior` and :func:`gp_posterior` -- the Bayesian view:
  posterior means, covariances and samples.

The book's scaling is used throughout: the loss is a *sum* over the sample and the
penalty is :math:`\\lambda\\|f\\|_{\\mathcal H}^2` (no :math:`1/n`, no :math:`1/2`).
"""
from __future__ import annotations

from itertools import combinations_with_replacement
from math import factorial
from typing import Any, NamedTuple

import numpy as np
import scipy.linalg

from . import kernels
from ._validation import (
    check_fitted,
    check_int,
    check_kernel,
    check_matrix,
    check_positive,
    check_rng,
    check_same_length,
    check_square,
    check_symmetric,
    check_vector,
)

__all__ = [
    "polynomial_features",
    "whitened_features",
    "smoothed_abs_loss",
    "ExpansionFit",
    "fit_expansion",
    "interpolation_gaps",
    "SplineKernelRidge",
    "linear_smoothing_spline",
    "gaussian_linear_posterior",
    "gp_posterior",
]

_EPS = np.finfo(float).eps


# ---------------------------------------------------------------------------
# feature maps
# ---------------------------------------------------------------------------
def polynomial_features(X: Any, degree: int, c: float = 1.0) -> np.ndarray:
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
    cols = []
    for total in range(m + 1):
        for idx in combinations_with_replacement(range(d), total):
            powers = np.bincount(np.asarray(idx, dtype=int), minlength=d)
            a0 = m - total
            coef = factorial(m) / (factorial(a0) * np.prod([factorial(int(k)) for k in powers]))
            cols.append(np.sqrt(coef * c**a0) * np.prod(X ** powers, axis=1))
    return np.column_stack(cols)


def whitened_features(G: Any, rtol: float | None = None) -> np.ndarray:
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
    rtol = m * _EPS if rtol is None else check_positive(rtol, "rtol")
    d, V = np.linalg.eigh(G)
    keep = d > rtol * max(d[-1], 0.0)
    if not np.any(keep):
        raise ValueError(
            f"G must have at least one positive eigenvalue; its largest is {d[-1]!r}"
        )
    return V[:, keep] * np.sqrt(d[keep])


# ---------------------------------------------------------------------------
# a non-quadratic loss
# ---------------------------------------------------------------------------
def smoothed_abs_loss(r: Any, eps: float = 0.1) -> np.ndarray:
    """The smoothed absolute loss ``sqrt(r^2 + eps^2) - eps``.

    It behaves like ``r^2 / (2 eps)`` near 0 and like ``|r| - eps`` far from 0;
    it is smooth and strictly convex, so Newton's method minimises it reliably.

    Parameters
    ----------
    r : array
        Residuals.
    eps : float
        Smoothing width ``eps > 0``.

    Returns
    -------
    ndarray
        The loss of each residual.
    """
    eps = check_positive(eps, "eps")
    r = np.asarray(r, dtype=float)
    return np.hypot(r, eps) - eps


def _loss_derivatives(r: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    h = np.hypot(r, eps)
    return h - eps, r / h, eps**2 / h**3


class ExpansionFit(NamedTuple):
    """Result of :func:`fit_expansion`.

    Attributes
    ----------
    coef : ndarray of shape (m,)
        Coefficients ``beta`` of ``f = sum_j beta_j k(., c_j)`` over all centres
        (the minimum-norm choice when the centres' Gram matrix is singular).
    objective : float
        ``sum_i loss(y_i - f(x_i)) + lam ||f||_H^2`` at the minimiser.
    fitted : ndarray of shape (n,)
        ``f(x_i)`` at the training points.
    rkhs_norm : float
        ``||f||_H``.
    orth_norm : float
        RKHS norm of the part of ``f`` orthogonal to ``span{k(., x_i)}``.
    grad_norm : float
        Euclidean norm of the gradient at the returned point (in whitened coordinates).
    n_iter : int
        Newton iterations used.
    """

    coef: np.ndarray
    objective: float
    fitted: np.ndarray
    rkhs_norm: float
    orth_norm: float
    grad_norm: float
    n_iter: int


def fit_expansion(kernel: Any, X: Any, y: Any, lam: float, *, extra_centres: Any = None,
                  eps: float = 0.1, seed: Any = None, tol: float = 1e-12,
                  max_iter: int = 100) -> ExpansionFit:
    """Minimise the smoothed absolute loss plus ``lam ||f||^2`` over kernel expansions.

    The candidate functions are ``f = sum_j beta_j k(., c_j)`` with centres
    ``c = (x_1, ..., x_n, extra_centres)``.  The problem is solved in whitened
    coordinates (:func:`whitened_features` of the centres' Gram matrix), where it
    reads ``min_w sum_i loss(y_i - (Z w)_i) + lam ||w||^2`` with ``Z`` the rows of
    the training points: smooth and strictly convex, so damped Newton steps
    converge to the unique minimiser.  The start ``w0`` is random (``seed``), so
    the optimiser does *not* start in the span of the training representers.

    Parameters
    ----------
    kernel : callable
        ``kernel(A, B)`` returns the cross Gram matrix.
    X : array of shape (n, d) or (n,)
        Training inputs.
    y : array of shape (n,)
        Responses.
    lam : float
        Penalty ``lam > 0``.
    extra_centres : array of shape (m, d), optional
        Further centres besides the training inputs.
    eps : float
        Smoothing width of :func:`smoothed_abs_loss`.
    seed : None, int or Generator
        Seed of the random starting point.
    tol : float
        Stop when the gradient norm is below ``tol * (1 + ||y||_1)``.
    max_iter : int
        Maximal number of Newton iterations.

    Returns
    -------
    ExpansionFit
    """
    kernel = check_kernel(kernel)
    X = check_matrix(X, "X")
    y = check_vector(y, "y")
    check_same_length(X, y)
    lam = check_positive(lam, "lam")
    eps = check_positive(eps, "eps")
    tol = check_positive(tol, "tol")
    max_iter = check_int(max_iter, "max_iter")
    C = X
    if extra_centres is not None:
        E = check_matrix(extra_centres, "extra_centres")
        if E.shape[1] != X.shape[1]:
            raise ValueError(
                f"extra_centres must have {X.shape[1]} column(s) like X; got {E.shape[1]}"
            )
        C = np.vstack([X, E])
    n = X.shape[0]
    G = np.asarray(kernel(C, C), dtype=float)
    G = 0.5 * (G + G.T)
    d, V = np.linalg.eigh(G)
    keep = d > C.shape[0] * _EPS * d[-1]
    V, d = V[:, keep], d[keep]
    Phi = V * np.sqrt(d)
    Z = Phi[:n]
    rng = check_rng(seed)
    w = rng.standard_normal(Z.shape[1])

    def objective(w: np.ndarray) -> float:
        return float(np.sum(smoothed_abs_loss(y - Z @ w, eps)) + lam * w @ w)

    f = objective(w)
    stop = tol * (1.0 + np.abs(y).sum())
    it = 0
    for it in range(1, max_iter + 1):
        _, g1, g2 = _loss_derivatives(y - Z @ w, eps)
        grad = -Z.T @ g1 + 2 * lam * w
        if np.linalg.norm(grad) <= stop:
            it -= 1
            break
        H = (Z.T * g2) @ Z + 2 * lam * np.eye(Z.shape[1])
        step = -scipy.linalg.cho_solve(scipy.linalg.cho_factor(H), grad)
        t = 1.0
        while True:                                   # Armijo backtracking
            f_new = objective(w + t * step)
            if f_new <= f + 1e-4 * t * grad @ step or t < 1e-12:
                break
            t *= 0.5
        w, f = w + t * step, f_new
    _, g1, _ = _loss_derivatives(y - Z @ w, eps)
    grad_norm = float(np.linalg.norm(-Z.T @ g1 + 2 * lam * w))
    # the span of k(., x_i) is the row space of Z in these coordinates
    _, s, Bt = np.linalg.svd(Z, full_matrices=False)
    rank = int(np.sum(s > max(Z.shape) * _EPS * s[0]))
    Bk = Bt[:rank].T
    orth = w - Bk @ (Bk.T @ w)
    coef = V @ (w / np.sqrt(d))
    return ExpansionFit(coef=coef, objective=f, fitted=Z @ w,
                        rkhs_norm=float(np.linalg.norm(w)),
                        orth_norm=float(np.linalg.norm(orth)),
                        grad_norm=grad_norm, n_iter=it)


# ---------------------------------------------------------------------------
# minimum-norm interpolation as lam -> 0
# ---------------------------------------------------------------------------
def interpolation_gaps(K: Any, K_test: Any, y: Any, lams: Any) -> tuple[np.ndarray, float]:
    """Sup-distance at test points between kernel ridge fits and the interpolant ``K^{-1} y``.

    With ``K = U diag(d) U^T`` (one eigendecomposition), the fit with penalty
    ``lam`` predicts ``K_test U diag(1/(d + lam)) U^T y`` and the interpolant
    ``K_test U diag(1/d) U^T y``.  Their difference is
    ``-lam K_test U diag(1/(d (d + lam))) U^T y``, evaluated without cancellation.

    Parameters
    ----------
    K : array of shape (n, n)
        Positive definite Gram matrix of the training points.
    K_test : array of shape (m, n)
        Cross Gram matrix between test and training points.
    y : array of shape (n,)
        Responses.
    lams : array of shape (L,)
        Penalties ``lam > 0``.

    Returns
    -------
    gaps : ndarray of shape (L,)
        ``max_t |f_lam(t) - f_0(t)|`` for each penalty.
    slope0 : float
        ``max_t |K_test K^{-2} y|``: the limit of ``gaps / lam`` as ``lam -> 0``.
    """
    K = check_square(K, "K")
    check_symmetric(K, "K")
    Kt = check_matrix(K_test, "K_test", allow_1d=False)
    y = check_vector(y, "y")
    check_same_length(K, y, "K", "y")
    if Kt.shape[1] != K.shape[0]:
        raise ValueError(f"K_test must have {K.shape[0]} columns like K; got {Kt.shape[1]}")
    lams = np.atleast_1d(np.asarray(lams, dtype=float))
    if lams.ndim != 1 or np.any(~np.isfinite(lams)) or np.any(lams <= 0):
        raise ValueError(
            f"lams must be a 1-D array of finite penalties > 0; got shape {lams.shape} "
            f"with values in [{float(np.min(lams))!r}, {float(np.max(lams))!r}]"
        )
    d, U = np.linalg.eigh(K)
    if d[0] <= 0:
        raise ValueError(f"K must be positive definite; its smallest eigenvalue is {d[0]!r}")
    A = Kt @ U
    c = U.T @ y
    diff = A @ (c[:, None] / (d[:, None] * (d[:, None] + lams[None, :])))
    gaps = lams * np.max(np.abs(diff), axis=0)
    return gaps, float(np.max(np.abs(A @ (c / d**2))))


# ---------------------------------------------------------------------------
# smoothing splines as kernel methods
# ---------------------------------------------------------------------------
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

    def _null_basis(self, x: np.ndarray) -> np.ndarray:
        return x ** np.arange(int(self.order))[None, :]

    def fit(self, X: Any, y: Any) -> "SplineKernelRidge":
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
        cf = scipy.linalg.cho_factor(K + lam * np.eye(len(y)))
        Ay, AT = scipy.linalg.cho_solve(cf, y), scipy.linalg.cho_solve(cf, T)
        S = T.T @ AT
        if np.linalg.cond(S) > 1e12:
            raise ValueError(
                f"X must contain at least {self.order} distinct points for order={self.order}"
            )
        c = np.linalg.solve(S, T.T @ Ay)
        self.dual_coef_ = Ay - AT @ c
        self.null_coef_ = c
        self.X_fit_ = X
        return self

    def predict(self, X: Any) -> np.ndarray:
        """Evaluate the fitted function at points ``X`` in [0, 1]."""
        check_fitted(self, "dual_coef_")
        X = check_matrix(X, "X")
        return (self._kernel()(X, self.X_fit_) @ self.dual_coef_
                + self._null_basis(X) @ self.null_coef_)

    def __repr__(self) -> str:
        return f"SplineKernelRidge(order={self.order!r}, lam={self.lam!r})"


def linear_smoothing_spline(x: Any, y: Any, lam: float) -> np.ndarray:
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
    g = scipy.linalg.solveh_banded(ab, y[order])
    out = np.empty_like(g)
    out[order] = g
    return out


# ---------------------------------------------------------------------------
# the Bayesian view
# ---------------------------------------------------------------------------
def gaussian_linear_posterior(Phi: Any, y: Any, noise_var: float,
                              prior_var: float) -> tuple[np.ndarray, np.ndarray]:
    r"""Posterior of :math:`\beta` in the Gaussian linear model.

    The model is :math:`y \sim N(\Phi\beta, \sigma^2 I)` with prior
    :math:`\beta\sim N(0, \sigma_\beta^2 I)`. The posterior is computed from the posterior
    precision :math:`\Phi^\top\Phi/\sigma^2 + I/\sigma_\beta^2` (one Cholesky factor):
    mean :math:`(\Phi^\top\Phi/\sigma^2 + I/\sigma_\beta^2)^{-1}\Phi^\top y/\sigma^2`,
    covariance the inverse precision.

    Parameters
    ----------
    Phi : array of shape (n, M)
        Feature matrix.
    y : array of shape (n,)
        Responses.
    noise_var, prior_var : float
        :math:`\sigma^2 > 0` and :math:`\sigma_\beta^2 > 0`.

    Returns
    -------
    mean : ndarray of shape (M,)
    cov : ndarray of shape (M, M)
    """
    Phi = check_matrix(Phi, "Phi", allow_1d=False)
    y = check_vector(y, "y")
    check_same_length(Phi, y, "Phi", "y")
    s2 = check_positive(noise_var, "noise_var")
    sb2 = check_positive(prior_var, "prior_var")
    P = Phi.T @ Phi / s2 + np.eye(Phi.shape[1]) / sb2
    cf = scipy.linalg.cho_factor(P)
    mean = scipy.linalg.cho_solve(cf, Phi.T @ y / s2)
    cov = scipy.linalg.cho_solve(cf, np.eye(Phi.shape[1]))
    return mean, 0.5 * (cov + cov.T)


def gp_posterior(kernel: Any, X: Any, y: Any, X_test: Any, noise_var: float, *,
                 n_samples: int = 0, seed: Any = None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Posterior of a zero-mean Gaussian process with covariance ``kernel`` at ``X_test``.

    Observations are :math:`y_i = f(x_i) + \varepsilon_i` with
    :math:`\varepsilon_i\sim N(0,\sigma^2)`.  The mean is
    :math:`k(t)^\top (K + \sigma^2 I)^{-1} y` -- kernel ridge regression with
    :math:`\lambda = \sigma^2` -- and the covariance
    :math:`k(t, t') - k(t)^\top (K + \sigma^2 I)^{-1} k(t')`.  Samples are drawn by
    conditioning prior draws (Matheron's rule):
    :math:`f_{\rm post} = f + k(t)^\top (K+\sigma^2 I)^{-1}(y - f(x) - \varepsilon)` with
    :math:`(f, \varepsilon)` from the prior, which is exact and needs no factor of the
    posterior covariance.

    Parameters
    ----------
    kernel : callable
        Covariance function ``kernel(A, B)``.
    X : array of shape (n, d) or (n,)
        Training inputs.
    y : array of shape (n,)
        Observations.
    X_test : array of shape (m, d) or (m,)
        Points at which the posterior is wanted.
    noise_var : float
        :math:`\sigma^2 > 0`.
    n_samples : int
        Number of posterior draws (0 for none).
    seed : None, int or Generator
        Seed of the draws.

    Returns
    -------
    mean : ndarray of shape (m,)
    var : ndarray of shape (m,)
        Pointwise posterior variance (clipped at 0).
    samples : ndarray of shape (n_samples, m)
    """
    kernel = check_kernel(kernel)
    X = check_matrix(X, "X")
    T = check_matrix(X_test, "X_test")
    y = check_vector(y, "y")
    check_same_length(X, y)
    s2 = check_positive(noise_var, "noise_var")
    n_samples = check_int(n_samples, "n_samples", minimum=0)
    n = X.shape[0]
    K = np.asarray(kernel(X, X), dtype=float)
    Kt = np.asarray(kernel(T, X), dtype=float)
    cf = scipy.linalg.cho_factor(K + s2 * np.eye(n))
    mean = Kt @ scipy.linalg.cho_solve(cf, y)
    kdiag = np.diag(np.asarray(kernel(T, T), dtype=float)) if n_samples == 0 else None
    samples = np.empty((0, T.shape[0]))
    if n_samples:
        rng = check_rng(seed)
        A = np.vstack([X, T])
        G = np.asarray(kernel(A, A), dtype=float)
        kdiag = np.diag(G)[n:]
        R = whitened_features(0.5 * (G + G.T))
        F = rng.standard_normal((n_samples, R.shape[1])) @ R.T          # joint prior draws
        noise = np.sqrt(s2) * rng.standard_normal((n_samples, n))
        resid = y[None, :] - F[:, :n] - noise
        samples = F[:, n:] + scipy.linalg.cho_solve(cf, resid.T).T @ Kt.T
    var = kdiag - np.einsum("ij,ji->i", Kt, scipy.linalg.cho_solve(cf, Kt.T))
    return mean, np.clip(var, 0.0, None), samples
