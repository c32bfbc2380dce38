"""Chapter 1 helpers: the exact MSE-order crossing, and bias and variance of ridge smoothers.

The chapter's theorem gives a sufficient threshold, ``2 sigma^2 / ||beta0||^2``, below which
ridge beats least squares in the order of mean-squared-error matrices;
:func:`mse_order_crossing` finds the exact value of ``lam`` at which that order first fails for a
given design. The other functions compute the squared bias and the variance of ridge fits with
polynomial features, exactly (linear smoothers at a fixed design) and by simulation.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from kmlib import ridge
from kmlib._typing import Seed
from kmlib._validation import (
    as_float_array,
    check_finite_result,
    check_int,
    check_lam,
    check_matrix,
    check_positive,
    check_rng,
    check_vector,
)

from .risk import mse_difference, ridge_beats_ols_threshold

__all__ = ["mse_order_crossing", "polynomial_design", "ridge_smoothers", "bias_variance",
           "simulate_bias_variance"]


def mse_order_crossing(X: ArrayLike, beta0: ArrayLike, sigma2: float, *, xtol: float = 1e-12,
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
        The crossing ``lam``; at least :func:`kmlib.ridge_beats_ols_threshold`.

    Raises
    ------
    ValueError
        If ``beta0`` is zero (ridge then beats OLS for every ``lam``) or if no sign change is
        found below ``max_factor`` times the threshold.
    """
    sigma2 = check_positive(sigma2, "sigma2")
    xtol = check_positive(xtol, "xtol")
    max_factor = check_positive(max_factor, "max_factor")
    b = as_float_array(beta0, "beta0")
    if not np.any(b):
        raise ValueError("beta0: got the zero vector; expected a nonzero vector "
                         "(with beta0 = 0 ridge beats OLS for every lam)")
    thr = ridge_beats_ols_threshold(b, sigma2)

    def min_eig(lam: float) -> float:
        return float(np.linalg.eigvalsh(mse_difference(X, b, sigma2, lam))[0])

    lo, hi = thr, 2.0 * thr
    while min_eig(hi) > 0:
        lo, hi = hi, 2.0 * hi
        if hi > max_factor * thr:
            raise ValueError(f"max_factor: got {max_factor:g}; no sign change of the smallest "
                             "eigenvalue below max_factor times the threshold; "
                             "expected a larger value")
    while hi - lo > xtol * hi:
        mid = 0.5 * (lo + hi)
        if not lo < mid < hi:       # adjacent floats: xtol below the float resolution
            break
        lo, hi = (mid, hi) if min_eig(mid) > 0 else (lo, mid)
    return 0.5 * (lo + hi)


def polynomial_design(x: ArrayLike, degree: int) -> np.ndarray:
    """Columns ``x, x**2, ..., x**degree`` (the intercept is fitted separately).

    Parameters
    ----------
    x : array of shape (n,)
        Inputs.
    degree : int
        Highest power, at least 1.

    Returns
    -------
    ndarray of shape (n, degree)
    """
    x = as_float_array(x, "x").ravel()
    if not np.all(np.isfinite(x)):
        raise ValueError("x contains NaN or infinite values; expected finite inputs")
    degree = check_int(degree, "degree", minimum=1)
    return check_finite_result(x[:, None] ** np.arange(1, degree + 1),
                               f"polynomial_design: x**{degree}",
                               "rescale x (e.g. to [-1, 1]) or lower the degree")


def ridge_smoothers(X: ArrayLike, lams: ArrayLike, X_new: ArrayLike | None = None) -> np.ndarray:
    """Smoother matrices of ridge with an unpenalised intercept and standardised columns.

    Ridge fitted to ``(X, Y)`` predicts at the rows of ``X_new`` the values ``S_lam Y`` with
    ``S_lam = 11^T/n + Z_new (Z^T Z + lam I)^{-1} Z^T``, where ``Z`` is ``X`` standardised
    (centred, columns of norm ``sqrt(n)``) and ``Z_new`` is ``X_new`` with the same centring and
    scaling. One SVD of ``Z`` serves every ``lam``.

    Parameters
    ----------
    X : array of shape (n, p)
        Training design (not standardised).
    lams : array of shape (L,)
        Penalties, non-negative.
    X_new : array of shape (T, p), optional
        Prediction points; default ``X`` (then ``S_lam`` is the hat matrix).

    Returns
    -------
    ndarray of shape (L, T, n)
    """
    X = as_float_array(X, "X")
    Z, mean, scale = ridge.standardize(X)
    if X_new is not None:
        X_new = check_matrix(X_new, "X_new")
        if X_new.shape[1] != Z.shape[1]:
            raise ValueError(f"X_new must have {Z.shape[1]} columns, as X; "
                             f"got shape {X_new.shape}")
    Z_new = Z if X_new is None else (X_new - mean) / scale
    lams = np.atleast_1d(as_float_array(lams, "lams"))
    if np.any(lams < 0):
        raise ValueError(f"lams: got a minimum of {lams.min():g}; expected non-negative penalties")
    lams = np.atleast_1d(check_lam(lams, "lams", allow_array=True))
    U, d, Vt = np.linalg.svd(Z, full_matrices=False)
    n = Z.shape[0]
    filt = d / (d**2 + lams[:, None])                               # (L, m): d_j / (d_j^2 + lam)
    return 1.0 / n + np.einsum("tk,jk,lj,ij->lti", Z_new, Vt, filt, U)


def _smoother_inputs(S: ArrayLike, f_train: ArrayLike, f_new: ArrayLike
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Smoothers of shape (L, T, n) and the regression function at the n + T points, finite."""
    S = as_float_array(S, "S")
    if S.ndim != 3 or 0 in S.shape:
        raise ValueError(f"S must be a non-empty array of smoother matrices, shape (L, T, n); "
                         f"got shape {S.shape}")
    if not np.all(np.isfinite(S)):
        raise ValueError("S contains NaN or infinite values; expected finite smoother matrices")
    f_train, f_new = check_vector(f_train, "f_train"), check_vector(f_new, "f_new")
    if f_train.shape[0] != S.shape[2]:
        raise ValueError(f"f_train must have length n = {S.shape[2]} (last axis of S); "
                         f"got {f_train.shape[0]}")
    if f_new.shape[0] != S.shape[1]:
        raise ValueError(f"f_new must have length T = {S.shape[1]} (middle axis of S); "
                         f"got {f_new.shape[0]}")
    return S, f_train, f_new


def bias_variance(S: ArrayLike, f_train: ArrayLike, f_new: ArrayLike, sigma2: float
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Exact squared bias and variance of linear predictors, averaged over prediction points.

    For predictions ``S Y`` with ``Y = f_train + noise``, ``Var(noise) = sigma2 I``, and targets
    ``f_new``, the squared bias is ``mean((S f_train - f_new)^2)`` and the variance
    ``sigma2 * sum(S**2) / T``.

    Parameters
    ----------
    S : array of shape (L, T, n)
        Smoother matrices, for example from :func:`ridge_smoothers`.
    f_train : array of shape (n,)
        Regression function at the training inputs.
    f_new : array of shape (T,)
        Regression function at the prediction points.
    sigma2 : float
        Noise variance, positive.

    Returns
    -------
    bias2, variance : ndarrays of shape (L,)
    """
    S, f_train, f_new = _smoother_inputs(S, f_train, f_new)
    sigma2 = check_positive(sigma2, "sigma2")
    bias2 = np.mean((S @ f_train - f_new) ** 2, axis=1)
    variance = sigma2 * np.sum(S**2, axis=(1, 2)) / S.shape[1]
    return bias2, variance


def simulate_bias_variance(S: ArrayLike, f_train: ArrayLike, f_new: ArrayLike, sigma2: float,
                           n_train_sets: int,
                           *, seed: Seed = None) -> tuple[np.ndarray, np.ndarray]:
    """Monte-Carlo squared bias and variance over simulated training sets.

    Draws ``n_train_sets`` responses ``f_train + noise`` (Gaussian, variance ``sigma2``), predicts
    with every smoother, and estimates, averaged over the prediction points, the variance of the
    predictions (sample variance, ``ddof=1``) and the squared bias. The squared distance between
    the mean prediction and ``f_new`` overestimates the squared bias by variance / R on average;
    that term is subtracted, so both estimates are unbiased.

    Parameters
    ----------
    S : array of shape (L, T, n)
        Smoother matrices.
    f_train : array of shape (n,)
        Regression function at the training inputs.
    f_new : array of shape (T,)
        Regression function at the prediction points.
    sigma2 : float
        Noise variance, positive.
    n_train_sets : int
        Number R of simulated training sets, at least 2.
    seed : int or numpy Generator, optional
        Random seed.

    Returns
    -------
    bias2, variance : ndarrays of shape (L,)
    """
    S, f_train, f_new = _smoother_inputs(S, f_train, f_new)
    sigma2 = check_positive(sigma2, "sigma2")
    R = check_int(n_train_sets, "n_train_sets", minimum=2)
    rng = check_rng(seed)
    Y = f_train + np.sqrt(sigma2) * rng.standard_normal((R, f_train.size))   # (R, n)
    preds = np.einsum("ltn,rn->lrt", S, Y)                                      # (L, R, T)
    var_t = preds.var(axis=1, ddof=1)                                           # (L, T)
    bias2 = np.mean((preds.mean(axis=1) - f_new) ** 2 - var_t / R, axis=1)
    return bias2, var_t.mean(axis=1)
