"""Exact second moments of ridge under the linear model.

Chapter "Ridge regression": MSE matrices, the threshold below which ridge beats least
squares, bias-variance traces and the prediction risk, all in closed form.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy import linalg as sla

from kmlib._linalg import full_column_rank, gram_cholesky, rank_deficiency_error, sym
from kmlib._validation import (
    check_lam,
    check_matrix,
    check_nonnegative,
    check_vector,
    rank_tol,
)

from ._common import check_moments

__all__ = [
    "ridge_mse_matrix",
    "ols_covariance",
    "mse_difference",
    "mse_difference_closed_form",
    "ridge_beats_ols_threshold",
    "ridge_mse_trace",
    "ridge_prediction_risk",
]


def ridge_mse_matrix(X: ArrayLike, beta0: ArrayLike, sigma2: float, lam: float
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact bias, variance and MSE matrix of ridge under ``Y = X beta0 + eps``.

    With ``A = (X^T X + lam I)^{-1}`` (applied through a Cholesky factor):
    ``bias = -lam A beta0``, ``Var = sigma2 A X^T X A`` and
    ``MSE = E (beta_hat - beta0)(beta_hat - beta0)^T = Var + bias bias^T``.
    At ``lam = 0`` this is OLS (bias 0, variance ``sigma2 (X^T X)^{-1}``).

    Parameters
    ----------
    X : array of shape (n, p)
        Fixed design.
    beta0 : array of shape (p,)
        True coefficients.
    sigma2 : float
        Noise variance, ``>= 0``.
    lam : float
        Regularisation parameter, ``>= 0`` (``0`` needs full column rank).

    Returns
    -------
    bias : ndarray of shape (p,)
    variance : ndarray of shape (p, p)
    mse : ndarray of shape (p, p)
    """
    X, beta0, sigma2 = check_moments(X, beta0, sigma2)
    lam = check_lam(lam, "lam")
    c = gram_cholesky(X, lam, "the OLS (lam = 0) MSE matrix")
    bias = -lam * sla.cho_solve(c, beta0, check_finite=False)
    M = sla.cho_solve(c, X.T @ X, check_finite=False)        # A X^T X
    variance = sym(sigma2 * sla.cho_solve(c, M.T, check_finite=False).T)  # A X^T X A
    return bias, variance, variance + np.outer(bias, bias)


def ols_covariance(X: ArrayLike, sigma2: float) -> np.ndarray:
    """Covariance ``sigma2 (X^T X)^{-1}`` of the OLS estimator (via Cholesky solves).

    Parameters
    ----------
    X : array of shape (n, p)
        Design of full column rank.
    sigma2 : float
        Noise variance, ``>= 0``.

    Returns
    -------
    ndarray of shape (p, p)
    """
    X = check_matrix(X, "X")
    sigma2 = check_nonnegative(sigma2, "sigma2")
    c = gram_cholesky(X, 0.0, "the OLS covariance")
    return sym(sigma2 * sla.cho_solve(c, np.eye(X.shape[1]), check_finite=False))


def mse_difference(X: ArrayLike, beta0: ArrayLike, sigma2: float, lam: float) -> np.ndarray:
    """``MSE(OLS) - MSE(ridge_lam)``, computed directly from the two MSE matrices.

    Parameters
    ----------
    X : array of shape (n, p)
        Design of full column rank.
    beta0 : array of shape (p,)
    sigma2 : float
    lam : float

    Returns
    -------
    ndarray of shape (p, p)
        Positive definite exactly when ridge beats OLS in the matrix order.
    """
    X, beta0, sigma2 = check_moments(X, beta0, sigma2)
    lam = check_lam(lam, "lam")
    return sym(ols_covariance(X, sigma2) - ridge_mse_matrix(X, beta0, sigma2, lam)[2])


def mse_difference_closed_form(X: ArrayLike, beta0: ArrayLike, sigma2: float,
                               lam: float) -> np.ndarray:
    """The factorised form ``lam A [sigma2 (2I + lam (X^T X)^{-1}) - lam beta0 beta0^T] A``.

    This is the expression in the proof of the "ridge beats OLS" theorem, with
    ``A = (X^T X + lam I)^{-1}``; it equals :func:`mse_difference`.

    Parameters
    ----------
    X : array of shape (n, p)
        Design of full column rank.
    beta0 : array of shape (p,)
    sigma2 : float
    lam : float

    Returns
    -------
    ndarray of shape (p, p)
    """
    X, beta0, sigma2 = check_moments(X, beta0, sigma2)
    lam = check_lam(lam, "lam")
    p = X.shape[1]
    c0 = gram_cholesky(X, 0.0, "the ridge-vs-OLS MSE difference")
    middle = sigma2 * (2 * np.eye(p) + lam * sla.cho_solve(c0, np.eye(p), check_finite=False))
    middle -= lam * np.outer(beta0, beta0)
    c = gram_cholesky(X, lam, "the ridge-vs-OLS MSE difference")
    AM = sla.cho_solve(c, middle, check_finite=False)
    return sym(lam * sla.cho_solve(c, AM.T, check_finite=False).T)


def ridge_beats_ols_threshold(beta0: ArrayLike, sigma2: float) -> float:
    """The sufficient threshold ``2 sigma2 / ||beta0||^2`` of the "ridge beats OLS" theorem.

    For every ``0 < lam`` below it, ``MSE(OLS) - MSE(ridge_lam)`` is positive
    definite.  The condition is sufficient, not necessary.

    Parameters
    ----------
    beta0 : array of shape (p,)
        True coefficients (not all zero; for ``beta0 = 0`` every ``lam > 0`` wins).
    sigma2 : float
        Noise variance, ``> 0``.

    Returns
    -------
    float
    """
    beta0 = check_vector(beta0, "beta0")
    sigma2 = check_nonnegative(sigma2, "sigma2")
    nb2 = float(beta0 @ beta0)
    if nb2 == 0:
        return float(np.inf)
    return 2 * sigma2 / nb2


def ridge_mse_trace(X: ArrayLike, beta0: ArrayLike, sigma2: float, lams: ArrayLike
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Squared bias, total variance and total MSE ``E||beta_hat - beta0||^2`` on a ``lam`` grid.

    Computed from one SVD: with ``c = V^T beta0``,
    ``||bias||^2 = sum_j (lam/(d_j^2+lam))^2 c_j^2 + ||beta0 - V V^T beta0||^2`` and
    ``tr Var = sigma2 sum_j d_j^2/(d_j^2+lam)^2``.

    Parameters
    ----------
    X : array of shape (n, p)
    beta0 : array of shape (p,)
    sigma2 : float
    lams : array of shape (L,)
        Regularisation parameters, ``> 0`` (``0`` allowed for full column rank).

    Returns
    -------
    bias2, variance, mse : ndarrays of shape (L,)
        ``mse = bias2 + variance`` is the trace of :func:`ridge_mse_matrix`.
    """
    X, beta0, sigma2 = check_moments(X, beta0, sigma2)
    lams = np.atleast_1d(check_lam(lams, "lams", allow_array=True))
    if np.any(lams == 0) and not full_column_rank(X):
        raise rank_deficiency_error(X, "the OLS (lam = 0) risk")
    _, d, Vt = np.linalg.svd(X, full_matrices=False)
    keep = d > rank_tol(d, max(X.shape))
    d, Vt = d[keep], Vt[keep]
    cvec = Vt @ beta0
    outside = float(beta0 @ beta0 - cvec @ cvec)
    d2 = d**2
    L = lams[:, None]
    bias2 = ((L / (d2 + L)) ** 2 * cvec**2).sum(axis=1) + max(outside, 0.0)
    variance = sigma2 * (d2 / (d2 + L) ** 2).sum(axis=1)
    return bias2, variance, bias2 + variance


def ridge_prediction_risk(X: ArrayLike, beta0: ArrayLike, sigma2: float,
                          lams: ArrayLike) -> np.ndarray:
    """Exact in-sample prediction risk ``E ||X (beta_hat - beta0)||^2 / n`` over a grid of ``lam``.

    In SVD coordinates, with ``c = V^T beta0``,
    ``n * risk = sum_j d_j^2 [ (lam/(d_j^2+lam))^2 c_j^2 + sigma2 d_j^2/(d_j^2+lam)^2 ]``;
    at ``lam = 0`` it is ``sigma2 * rank(X) / n`` (OLS).

    Parameters
    ----------
    X : array of shape (n, p)
    beta0 : array of shape (p,)
    sigma2 : float
    lams : array of shape (L,)
        Regularisation parameters, ``>= 0``.

    Returns
    -------
    ndarray of shape (L,)
        Equal to ``trace(X mse X^T) / n`` with ``mse`` from :func:`ridge_mse_matrix`.
    """
    X, beta0, sigma2 = check_moments(X, beta0, sigma2)
    lams = np.atleast_1d(check_lam(lams, "lams", allow_array=True))
    _, d, Vt = np.linalg.svd(X, full_matrices=False)
    keep = d > rank_tol(d, max(X.shape))
    d, Vt = d[keep], Vt[keep]
    c2 = (Vt @ beta0) ** 2
    d2 = d**2
    L = lams[:, None]
    total = (d2 * ((L / (d2 + L)) ** 2 * c2 + sigma2 * d2 / (d2 + L) ** 2)).sum(axis=1)
    return total / X.shape[0]
