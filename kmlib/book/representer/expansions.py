"""Penalised regression over kernel expansions, and minimum-norm interpolation.

Chapter 6 ("The representer theorem") checks the theorem numerically:

* :func:`smoothed_abs_loss` and :func:`fit_expansion` -- penalised regression with
  a non-quadratic loss over expansions on any set of centres, with the RKHS norm
  of the part orthogonal to the span of the training representers (zero at the
  minimiser, as the theorem says), returned as an :class:`ExpansionFit`;
* :func:`interpolation_gaps` -- how far kernel ridge regression is from the
  minimum-norm interpolant, for a grid of penalties, from one eigendecomposition.

The loss is a *sum* over the sample and the penalty is ``lam ||f||_H^2``.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike, NDArray

from kmlib._estimator_inputs import gram
from kmlib._validation import (
    as_float_array,
    check_int,
    check_kernel,
    check_matrix,
    check_positive,
    check_rng,
    check_same_length,
    check_square,
    check_symmetric,
    check_vector,
    rank_tol,
)


def smoothed_abs_loss(r: ArrayLike, eps: float = 0.1) -> NDArray[np.float64]:
    """The smoothed absolute loss ``sqrt(r^2 + eps^2) - eps``.

    It behaves like ``r^2 / (2 eps)`` near 0 and like ``|r| - eps`` far from 0;
    it is smooth and strictly convex, so Newton's method minimises it reliably.

    Parameters
    ----------
    r : array
        Residuals, finite.
    eps : float
        Smoothing width ``eps > 0``.

    Returns
    -------
    ndarray
        The loss of each residual.
    """
    eps = check_positive(eps, "eps")
    r = as_float_array(r, "r")
    check_vector(r.ravel(), "r", min_len=0)       # finiteness, with check_vector's message
    return np.hypot(r, eps) - eps


def _loss_derivatives(r: NDArray[np.float64], eps: float
                      ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
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


def fit_expansion(kernel: Callable[..., ArrayLike], X: ArrayLike, y: ArrayLike, lam: float, *,
                  extra_centres: ArrayLike | None = None, eps: float = 0.1,
                  seed: int | np.random.Generator | None = None, tol: float = 1e-12,
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
    G = gram(kernel, C, C, what="kernel(centres, centres)")
    G = 0.5 * (G + G.T)
    d, V = np.linalg.eigh(G)
    keep = d > rank_tol(d[-1], C.shape[0])     # d ascending: d[-1] is the largest eigenvalue
    if not np.any(keep):
        raise ValueError(
            "the kernel's Gram matrix on the centres has no positive eigenvalue (it is zero "
            "or negative semidefinite), so the span of k(., x_i) is trivial; check the kernel "
            "and its parameters"
        )
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
        try:
            step = -scipy.linalg.cho_solve(scipy.linalg.cho_factor(H), grad)
        except np.linalg.LinAlgError:
            raise ValueError(
                f"lam = {lam!r} is too small for this kernel and these centres: Newton's "
                "Hessian is numerically singular; use a larger lam"
            ) from None
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
    rank = int(np.sum(s > rank_tol(s[0], max(Z.shape))))   # s descending: s[0] = max|s|
    Bk = Bt[:rank].T
    orth = w - Bk @ (Bk.T @ w)
    coef = V @ (w / np.sqrt(d))
    return ExpansionFit(coef=coef, objective=f, fitted=Z @ w,
                        rkhs_norm=float(np.linalg.norm(w)),
                        orth_norm=float(np.linalg.norm(orth)),
                        grad_norm=grad_norm, n_iter=it)


def interpolation_gaps(K: ArrayLike, K_test: ArrayLike, y: ArrayLike, lams: ArrayLike
                       ) -> tuple[NDArray[np.float64], float]:
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
    lams = np.atleast_1d(as_float_array(lams, "lams"))
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
