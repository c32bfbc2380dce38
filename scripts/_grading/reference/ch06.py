"""The lecturer's full checks of chapter 6, "The representer theorem" (never shipped).

The sheet is ``exercises/06_representer.md``; its data come from
:mod:`kmlib.book.exercises.ch06`, whose self-checks of the same names test only
properties of an answer.  Every check here recomputes the answer by a route different
from the one the exercise asks for (primal ridge instead of the kernel system, Schur
elimination instead of the bordered solve, an SVD pseudo-inverse, Gaussian conditioning
in covariance form, a banded solver, Newton's method in whitened coordinates), raises
``AssertionError`` with a hint that names the likely mistake without printing the
reference answer, and prints one line starting with ``Correct:`` when the answer is right.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg

from kmlib import kernels
from kmlib.book.exercises._answers import answer_array, answer_scalar
from kmlib.book.exercises.ch06 import (
    INTERCEPT_LAM,
    INTERCEPT_SIGMA,
    KRR_LAM,
    MAP_NOISE_VAR,
    MAP_PRIOR_VAR,
    POISSON_LAM,
    POISSON_SIGMA,
    SPLINE_LAM,
    intercept_data,
    krr_data,
    map_data,
    minnorm_data,
    poisson_data,
    spline_data,
)
from kmlib.book.kernel_trick import polynomial_features
from kmlib.book.representer import linear_smoothing_spline

__all__ = [
    "check_krr_fitted", "check_intercept", "check_min_norm",
    "check_map", "check_poisson", "check_linear_spline",
]


def _close(a: np.ndarray, b: np.ndarray, rtol: float = 1e-7) -> bool:
    return bool(np.allclose(a, b, rtol=rtol, atol=rtol * (1.0 + np.abs(b).max())))


# --------------------------------------------------------------------------- #
# kernel ridge regression through the theorem
# --------------------------------------------------------------------------- #
def check_krr_fitted(fitted: Any) -> None:
    """Check the fitted values ``K alpha`` of kernel ridge regression with the linear kernel.

    Reference: primal ridge ``X (X^T X + lam I)^{-1} X^T y``, a p x p solve.
    """
    X, y = krr_data()
    f = answer_array(fitted, "fitted", (len(y),))
    K = X @ X.T
    ref = X @ np.linalg.solve(X.T @ X + KRR_LAM * np.eye(X.shape[1]), X.T @ y)
    if _close(f, ref):
        print("Correct: K alpha equals the fitted values of primal ridge, "
              "whichever alpha you took.")
        return
    alpha_dual = np.linalg.solve(K + KRR_LAM * np.eye(len(y)), y)
    if _close(f, alpha_dual):
        raise AssertionError("`fitted` looks like the coefficients alpha; "
                             "the fitted values are K @ alpha")
    if _close(f, X @ np.linalg.lstsq(X, y, rcond=None)[0]):
        raise AssertionError("`fitted` are least-squares fitted values: "
                             "the penalty lam seems to be missing")
    raise AssertionError(
        "`fitted` is not K alpha for a minimiser of ||y - K alpha||^2 + lam alpha^T K alpha; "
        "any solution of (K^2 + lam K) alpha = K y will do"
    )


# --------------------------------------------------------------------------- #
# an unpenalised intercept
# --------------------------------------------------------------------------- #
def check_intercept(alpha: Any, mu: Any) -> None:
    """Check ``alpha`` and ``mu`` of kernel ridge regression with an unpenalised intercept.

    Reference: eliminate alpha (Schur complement): with ``A = K + lam I``,
    ``mu = 1^T A^{-1} y / 1^T A^{-1} 1`` and ``alpha = A^{-1}(y - mu 1)``.
    """
    X, y = intercept_data()
    n = len(y)
    a = answer_array(alpha, "alpha", (n,))
    m = answer_scalar(mu, "mu")
    K = kernels.gaussian(INTERCEPT_SIGMA)(X)
    cf = scipy.linalg.cho_factor(K + INTERCEPT_LAM * np.eye(n))
    Ay, A1 = scipy.linalg.cho_solve(cf, y), scipy.linalg.cho_solve(cf, np.ones(n))
    mu_ref = float(A1 @ y / A1.sum())
    alpha_ref = Ay - mu_ref * A1
    if _close(a, alpha_ref) and abs(m - mu_ref) <= 1e-7 * (1 + abs(mu_ref)):
        print("Correct: the coefficients sum to zero and the intercept is unpenalised.")
        return
    if abs(m - y.mean()) < 1e-9 * (1 + abs(y.mean())):
        raise AssertionError(
            "`mu` is the mean of y; with a kernel the intercept is not the mean of y "
            "(the kernel part need not average to zero over the data): solve the bordered system"
        )
    if abs(m) < 1e-12:
        raise AssertionError("`mu` is 0: the intercept must be fitted, unpenalised, "
                             "alongside alpha")
    if abs(a.sum()) > 1e-6 * (1 + np.abs(a).sum()):
        raise AssertionError(
            "your alpha does not sum to zero; the optimality condition for the unpenalised "
            "intercept forces 1^T alpha = 0"
        )
    raise AssertionError(
        "alpha and mu do not solve [[K + lam I, 1], [1^T, 0]] [alpha; mu] = [y; 0]; "
        "check the kernel bandwidth and lam"
    )


# --------------------------------------------------------------------------- #
# minimum-norm interpolation
# --------------------------------------------------------------------------- #
def check_min_norm(beta_star: Any) -> None:
    """Check the minimum-norm interpolant for the degree-6 polynomial features (M = 28).

    Reference: the pseudo-inverse from an SVD of the feature matrix.
    """
    X, y = minnorm_data()
    Phi = polynomial_features(X, 6)
    b = answer_array(beta_star, "beta_star", (Phi.shape[1],))
    U, s, Vt = np.linalg.svd(Phi, full_matrices=False)
    ref = Vt.T @ ((U.T @ y) / s)
    if _close(b, ref, rtol=1e-6):
        print("Correct: beta_star interpolates and lies in the span of the phi(x_i).")
        return
    if not np.allclose(Phi @ b, y, atol=1e-6 * (1 + np.abs(y).max())):
        raise AssertionError(
            "beta_star does not interpolate: Phi @ beta_star should equal y; "
            "are the features those of (1 + x^T x')^6?"
        )
    raise AssertionError(
        "beta_star interpolates but has a component in the null space of Phi, so its norm is "
        "not the smallest; take beta = Phi^T alpha with K alpha = y"
    )


# --------------------------------------------------------------------------- #
# the MAP estimate
# --------------------------------------------------------------------------- #
def check_map(lam_map: Any, beta_map: Any) -> None:
    """Check the penalty ``lam_map`` and the posterior mean ``beta_map``.

    Reference: Gaussian conditioning in covariance form,
    ``E[beta | y] = Cov(beta, y) Cov(y)^{-1} y = sb2 Phi^T (sb2 Phi Phi^T + s2 I)^{-1} y``.
    """
    Phi, y = map_data()
    lam = answer_scalar(lam_map, "lam_map")
    b = answer_array(beta_map, "beta_map", (Phi.shape[1],))
    s2, sb2 = MAP_NOISE_VAR, MAP_PRIOR_VAR
    if abs(lam - sb2 / s2) < 1e-9 * sb2 / s2:
        raise AssertionError("lam_map is inverted: the noise variance goes in the numerator")
    if abs(lam - np.sqrt(s2 / sb2)) < 1e-9:
        raise AssertionError("lam_map is a ratio of standard deviations; use variances")
    if abs(lam - s2 / sb2) > 1e-9 * s2 / sb2:
        raise AssertionError("lam_map is not the ratio that makes the negative log-posterior "
                             "a ridge objective")
    ref = sb2 * Phi.T @ np.linalg.solve(sb2 * Phi @ Phi.T + s2 * np.eye(len(y)), y)
    if not _close(b, ref):
        raise AssertionError(
            "beta_map is not the posterior mean; it should equal Phi^T (K + lam_map I)^{-1} y "
            "with K = Phi Phi^T"
        )
    print("Correct: the ridge estimate with lam = sigma^2 / sigma_beta^2 is the posterior mean.")


# --------------------------------------------------------------------------- #
# kernel Poisson regression
# --------------------------------------------------------------------------- #
def _poisson_reference(K: np.ndarray, y: np.ndarray, lam: float) -> np.ndarray:
    """Newton's method in whitened coordinates w (f = Z w, ||f||^2 = ||w||^2)."""
    Z = kernels.empirical_feature_map(K)
    w = np.zeros(Z.shape[1])
    for _ in range(100):
        mu = np.exp(Z @ w)
        grad = Z.T @ (mu - y) + 2 * lam * w
        if np.linalg.norm(grad) < 1e-12 * (1 + y.sum()):
            break
        H = (Z.T * mu) @ Z + 2 * lam * np.eye(Z.shape[1])
        w = w - scipy.linalg.solve(H, grad, assume_a="pos")
    return Z @ w


POISSON_FIT_RTOL = 1e-3   # fitted log-means: L-BFGS-B with default tolerances is within 3e-4
POISSON_GAP_RTOL = 1e-4   # objective above the minimum, relative to 1 + |R*|


def check_poisson(alpha_pois: Any) -> None:
    """Check the coefficients of kernel Poisson regression through fit and objective.

    Reference: Newton's method in whitened coordinates. Every minimiser has the same fitted
    log-means ``eta = K alpha`` and the same objective value, whatever its component in the
    null space of K, so the answer is compared on those two, with tolerances that a
    quasi-Newton solver with default settings (scipy's L-BFGS-B) reaches.
    """
    x, y = poisson_data()
    a = answer_array(alpha_pois, "alpha_pois", (len(y),))
    K = kernels.gaussian(POISSON_SIGMA)(x)
    eta = K @ a
    ref = _poisson_reference(K, y, POISSON_LAM)
    Z = kernels.empirical_feature_map(K)
    w_ref = np.linalg.lstsq(Z, ref, rcond=None)[0]
    r_min = float(np.sum(np.exp(ref) - y * ref) + POISSON_LAM * w_ref @ w_ref)
    r_ans = float(np.sum(np.exp(np.clip(eta, -50, 50)) - y * eta) + POISSON_LAM * a @ K @ a)
    fit_err = float(np.abs(eta - ref).max())
    fit_ok = fit_err <= POISSON_FIT_RTOL * (1.0 + float(np.abs(ref).max()))
    gap_ok = r_ans - r_min <= POISSON_GAP_RTOL * (1.0 + abs(r_min))
    if fit_ok and gap_ok:
        print("Correct: the fitted log-means K alpha minimise the penalised Poisson loss.")
        return
    if not fit_ok:
        raise AssertionError(
            "alpha_pois is not a minimiser: its fitted log-means K alpha_pois differ from the "
            f"minimiser's by {fit_err:.2g}, more than the tolerance {POISSON_FIT_RTOL:.0e} "
            "(1 + max |K alpha|); check lam = 1, sigma = 0.3 and the convergence of your solver"
        )
    raise AssertionError(
        "alpha_pois is not a minimiser: its objective sum(exp(K alpha) - y K alpha) + "
        f"lam alpha^T K alpha lies {r_ans - r_min:.2g} above the minimum, more than the tolerance "
        f"{POISSON_GAP_RTOL:.0e} (1 + |R|); iterate further"
    )


# --------------------------------------------------------------------------- #
# the first-order spline kernel
# --------------------------------------------------------------------------- #
def check_linear_spline(f_hat: Any) -> None:
    """Check the fitted values of the first-order spline kernel with an unpenalised constant.

    Reference: the tridiagonal system of the piecewise-linear smoothing spline
    (:func:`kmlib.book.representer.linear_smoothing_spline`).
    """
    x, y = spline_data()
    f = answer_array(f_hat, "f_hat", (len(y),))
    ref = linear_smoothing_spline(x, y, SPLINE_LAM)
    if _close(f, ref, rtol=1e-8):
        print("Correct: the kernel fit is the piecewise-linear smoothing spline.")
        return
    K = np.minimum.outer(x, x)
    no_const = K @ np.linalg.solve(K + SPLINE_LAM * np.eye(len(y)), y)
    if _close(f, no_const, rtol=1e-8):
        raise AssertionError(
            "this fit has no unpenalised constant: min(x, x') forces f(0) = 0, so add the "
            "constant function through the bordered system"
        )
    if abs(np.mean(f) - np.mean(y)) > 1e-8 * (1 + abs(np.mean(y))):
        raise AssertionError(
            "the residuals y - f_hat do not sum to zero, which the unpenalised constant forces; "
            "check the bordered system"
        )
    raise AssertionError("f_hat is not the fitted values K alpha + c; "
                         "check the kernel min(x, x') and lam")
