"""The Bayesian view of regularisation: Gaussian posteriors.

Chapter 6 ("The representer theorem") reads ridge regression and kernel ridge
regression as posterior means:

* :func:`gaussian_linear_posterior` -- the posterior of the coefficients in the
  Gaussian linear model (ridge with ``lam = noise_var / prior_var``);
* :func:`gp_posterior` -- the posterior mean, pointwise variance and samples of
  a zero-mean Gaussian process (kernel ridge with ``lam = noise_var``).
"""
from __future__ import annotations

from typing import Callable

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike, NDArray

from kmlib import kernels
from kmlib._validation import (
    check_finite_result,
    check_int,
    check_kernel,
    check_matrix,
    check_positive,
    check_rng,
    check_same_length,
    check_vector,
)


def gaussian_linear_posterior(Phi: ArrayLike, y: ArrayLike, noise_var: float,
                              prior_var: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
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
    P = check_finite_result(Phi.T @ Phi / s2 + np.eye(Phi.shape[1]) / sb2,
                            "the posterior precision Phi^T Phi / noise_var + I / prior_var")
    try:
        cf = scipy.linalg.cho_factor(P)
    except np.linalg.LinAlgError:
        raise ValueError(
            "the posterior precision Phi^T Phi / noise_var + I / prior_var is numerically "
            f"singular (noise_var = {s2!r}, prior_var = {sb2!r}); use a smaller prior_var "
            "or rescale Phi"
        ) from None
    mean = scipy.linalg.cho_solve(cf, check_finite_result(Phi.T @ y / s2, "Phi^T y / noise_var"))
    cov = scipy.linalg.cho_solve(cf, np.eye(Phi.shape[1]))
    return mean, 0.5 * (cov + cov.T)


def gp_posterior(kernel: Callable[..., ArrayLike], X: ArrayLike, y: ArrayLike,
                 X_test: ArrayLike, noise_var: float, *, n_samples: int = 0,
                 seed: int | np.random.Generator | None = None
                 ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
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
    try:
        cf = scipy.linalg.cho_factor(K + s2 * np.eye(n))
    except np.linalg.LinAlgError:
        raise ValueError(
            f"K + noise_var I is not numerically positive definite (noise_var = {s2!r}); "
            "use a larger noise_var or a positive-definite kernel"
        ) from None
    mean = Kt @ scipy.linalg.cho_solve(cf, y)
    kdiag = np.diag(np.asarray(kernel(T, T), dtype=float)) if n_samples == 0 else None
    samples = np.empty((0, T.shape[0]))
    if n_samples:
        rng = check_rng(seed)
        A = np.vstack([X, T])
        G = np.asarray(kernel(A, A), dtype=float)
        kdiag = np.diag(G)[n:]
        R = kernels.empirical_feature_map(0.5 * (G + G.T))             # R @ R.T = G
        F = rng.standard_normal((n_samples, R.shape[1])) @ R.T          # joint prior draws
        noise = np.sqrt(s2) * rng.standard_normal((n_samples, n))
        resid = y[None, :] - F[:, :n] - noise
        samples = F[:, n:] + scipy.linalg.cho_solve(cf, resid.T).T @ Kt.T
    var = kdiag - np.einsum("ij,ji->i", Kt, scipy.linalg.cho_solve(cf, Kt.T))
    return mean, np.clip(var, 0.0, None), samples
