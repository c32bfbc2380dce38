"""Monte-Carlo companions of the exact risk, and the Gaussian likelihood.

Chapter "Ridge regression": simulated responses and estimates, the empirical MSE
matrix, the score and the Fisher information of the Gaussian linear model.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy import linalg as sla

from kmlib._linalg import gram_cholesky
from kmlib._typing import Seed
from kmlib._validation import (
    as_float_array,
    check_finite_result,
    check_int,
    check_lam,
    check_matrix,
    check_nonnegative,
    check_rng,
)

from ._common import check_beta, check_moments

__all__ = [
    "simulate_responses",
    "simulate_estimates",
    "empirical_mse_matrix",
    "gaussian_score",
    "gaussian_fisher_information",
]


def simulate_responses(X: ArrayLike, beta0: ArrayLike, sigma2: float, n_reps: int, *,
                       seed: Seed = None) -> np.ndarray:
    """Draw ``n_reps`` response vectors ``Y = X beta0 + eps``, ``eps ~ N(0, sigma2 I)``.

    Parameters
    ----------
    X : array of shape (n, p)
        Fixed design.
    beta0 : array of shape (p,)
    sigma2 : float
        Noise variance.
    n_reps : int
        Number of independent replicates.
    seed : int, Generator or None

    Returns
    -------
    Y : ndarray of shape (n_reps, n)
        One replicate per row.
    """
    X, beta0, sigma2 = check_moments(X, beta0, sigma2)
    n_reps = check_int(n_reps, "n_reps")
    rng = check_rng(seed)
    return X @ beta0 + np.sqrt(sigma2) * rng.standard_normal((n_reps, X.shape[0]))


def simulate_estimates(X: ArrayLike, beta0: ArrayLike, sigma2: float, lam: float, n_reps: int, *,
                       seed: Seed = None) -> np.ndarray:
    """Ridge (``lam > 0``) or OLS (``lam = 0``) estimates over many noise draws at once.

    All ``n_reps`` response vectors are solved with ONE factorisation of
    ``X^T X + lam I`` and one matrix product, so thousands of replications
    take milliseconds.

    Parameters
    ----------
    X : array of shape (n, p)
        Fixed design (full column rank when ``lam = 0``).
    beta0 : array of shape (p,)
    sigma2 : float
    lam : float
    n_reps : int
    seed : int, Generator or None

    Returns
    -------
    estimates : ndarray of shape (n_reps, p)
        One estimate per row; the responses are those of
        :func:`simulate_responses` with the same ``seed``.
    """
    lam = check_lam(lam, "lam")
    Y = simulate_responses(X, beta0, sigma2, n_reps, seed=seed)
    X = as_float_array(X, "X")
    X = X[:, None] if X.ndim == 1 else X
    c = gram_cholesky(X, lam, "OLS estimates (lam = 0)")
    return sla.cho_solve(c, X.T @ Y.T, check_finite=False).T


def empirical_mse_matrix(estimates: ArrayLike, beta0: ArrayLike) -> np.ndarray:
    """Monte-Carlo MSE matrix ``mean_r (b_r - beta0)(b_r - beta0)^T``.

    Parameters
    ----------
    estimates : array of shape (R, p)
        One estimate per row.
    beta0 : array of shape (p,)

    Returns
    -------
    ndarray of shape (p, p)
    """
    B = check_matrix(estimates, "estimates", allow_1d=False)
    beta0 = check_beta(beta0, B.shape[1])
    E = B - beta0
    return E.T @ E / B.shape[0]


def gaussian_score(X: ArrayLike, Y: ArrayLike, beta: ArrayLike, sigma2: float) -> np.ndarray:
    """Score (gradient of the log-likelihood) of the Gaussian linear model in ``(beta, sigma2)``.

    With ``l(beta, sigma2) = -n/2 log sigma2 - ||Y - X beta||^2/(2 sigma2)`` (up to a
    constant), the score is ``(X^T r / sigma2, -n/(2 sigma2) + ||r||^2/(2 sigma2^2))``
    with residual ``r = Y - X beta``.

    Parameters
    ----------
    X : array of shape (n, p)
    Y : array of shape (n,) or (R, n)
        One response vector, or ``R`` of them (one per row).
    beta : array of shape (p,)
    sigma2 : float
        ``> 0``.

    Returns
    -------
    ndarray of shape (p + 1,) or (R, p + 1)
    """
    X = check_matrix(X, "X")
    beta = check_beta(beta, X.shape[1], "beta")
    sigma2 = check_nonnegative(sigma2, "sigma2")
    if sigma2 == 0:
        raise ValueError("sigma2 must be > 0 for the Gaussian score; got 0")
    Ya = as_float_array(Y, "Y")
    single = Ya.ndim == 1
    Ya = check_matrix(Ya[None, :] if single else Ya, "Y", allow_1d=False)
    if Ya.shape[1] != X.shape[0]:
        raise ValueError(
            f"Y must have n = {X.shape[0]} entries per replicate (as X has rows); "
            f"got {Ya.shape[1]}"
        )
    R = Ya - X @ beta
    n = X.shape[0]
    sigma2 = np.float64(sigma2)  # numpy arithmetic: overflow gives inf, caught below
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        s_beta = R @ X / sigma2
        s_sig = -n / (2 * sigma2) + np.sum(R**2, axis=1) / (2 * sigma2) / sigma2
    S = np.column_stack([s_beta, s_sig])
    check_finite_result(S, "gaussian_score", "sigma2 or the residuals are too small or too large "
                        "for float64")
    return S[0] if single else S


def gaussian_fisher_information(X: ArrayLike, sigma2: float) -> np.ndarray:
    """Fisher information ``blockdiag(X^T X / sigma2, n / (2 sigma2^2))`` of ``(beta, sigma2)``.

    Parameters
    ----------
    X : array of shape (n, p)
    sigma2 : float
        ``> 0``.

    Returns
    -------
    ndarray of shape (p + 1, p + 1)
    """
    X = check_matrix(X, "X")
    sigma2 = check_nonnegative(sigma2, "sigma2")
    if sigma2 == 0:
        raise ValueError("sigma2 must be > 0 for the Fisher information; got 0")
    n, p = X.shape
    info = np.zeros((p + 1, p + 1))
    sigma2 = np.float64(sigma2)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        info[:p, :p] = X.T @ X / sigma2
        info[p, p] = n / (2 * sigma2) / sigma2
    return check_finite_result(info, "gaussian_fisher_information",
                               "sigma2 is too small or too large for float64")
