"""Data and self-checks for the exercises of chapter 6, "The representer theorem".

The sheet is ``exercises/06_representer.md``.

Each exercise loads its data from a function here (``krr_data``, ``intercept_data``,
...), so that a check never depends on variables the student may have changed.
Each ``check_*`` function is a *self-check*: it tests properties that a right answer
must have, without computing the answer -- the equation the fitted values satisfy,
the residual of the bordered system, interpolation and orthogonality to the null space
of the features, the stationarity condition of ridge regression, the Newton
decrement of the Poisson problem; none of them compares a number with the answer.  A failed
property raises ``AssertionError`` with a hint; when all hold, one line starting with
``Self-check passed:`` is printed.  The full check against the reference runs when the
sheet is graded.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg

from kmlib import kernels

from ..kernel_trick import polynomial_features
from ._answers import answer_array, answer_scalar

__all__ = [
    "krr_data", "check_krr_fitted",
    "intercept_data", "check_intercept",
    "minnorm_data", "check_min_norm",
    "map_data", "check_map",
    "poisson_data", "poisson_objective", "check_poisson",
    "spline_data", "check_linear_spline",
]

KRR_LAM = 3.0
INTERCEPT_LAM, INTERCEPT_SIGMA = 0.5, 0.8
MAP_NOISE_VAR, MAP_PRIOR_VAR = 0.36, 1.5
POISSON_LAM, POISSON_SIGMA = 1.0, 0.3
SPLINE_LAM = 2e-3



def _passed(what: str) -> None:
    print(f"Self-check passed: {what}; the full check runs when the sheet is graded.")


def _small(residual: np.ndarray, scale: float, rtol: float) -> bool:
    """Whether the largest entry of ``residual`` is below ``rtol`` times ``1 + scale``."""
    return float(np.max(np.abs(residual), initial=0.0)) <= rtol * (1.0 + scale)


# --------------------------------------------------------------------------- #
# kernel ridge regression through the theorem
# --------------------------------------------------------------------------- #
def krr_data() -> tuple[np.ndarray, np.ndarray]:
    """Inputs ``X`` (25 x 4, so the linear kernel has rank 4) and responses ``y``."""
    rng = np.random.default_rng(60)
    X = rng.standard_normal((25, 4))
    return X, X @ np.array([1.0, 0.0, -1.0, 2.0]) + rng.standard_normal(25)


def check_krr_fitted(fitted: Any) -> None:
    """Self-check the fitted values ``K alpha`` of kernel ridge regression, linear kernel.

    Property: the fitted values ``f`` of every minimiser satisfy ``K (y - f) = lam f``
    (a residual, evaluated on the answer).
    """
    X, y = krr_data()
    f = answer_array(fitted, "fitted", (y.shape[0],))
    gram = X @ X.T
    scale = float(np.abs(gram @ y).max())
    if _small(gram @ (y - f) - KRR_LAM * f, scale, 1e-9):
        _passed("K (y - fitted) = lam * fitted, the equation the fitted values of kernel "
                "ridge regression satisfy")
        return
    if _small((gram + KRR_LAM * np.eye(y.shape[0])) @ f - y, float(np.abs(y).max()), 1e-8):
        raise AssertionError("`fitted` looks like the coefficients alpha; "
                             "the fitted values are K @ alpha")
    if _small(gram @ (y - f), scale, 1e-8):
        raise AssertionError("K (y - fitted) = 0: these are least-squares fitted values, "
                             "the penalty lam seems to be missing")
    basis = np.linalg.qr(X)[0]
    if not _small(f - basis @ (basis.T @ f), float(np.abs(f).max()), 1e-8):
        raise AssertionError("`fitted` is not in the range of K = X X^T, so it is not K @ alpha "
                             "for any alpha, let alone for a minimiser")
    raise AssertionError(
        "`fitted` does not satisfy K (y - fitted) = lam * fitted, so it is not K alpha for a "
        "minimiser of ||y - K alpha||^2 + lam alpha^T K alpha; any solution of "
        "(K^2 + lam K) alpha = K y will do"
    )


# --------------------------------------------------------------------------- #
# an unpenalised intercept
# --------------------------------------------------------------------------- #
def intercept_data() -> tuple[np.ndarray, np.ndarray]:
    """Inputs ``X`` (30 x 2) and responses ``y`` with a large offset."""
    rng = np.random.default_rng(61)
    X = rng.uniform(-2, 2, (30, 2))
    return X, 5.0 + np.sin(X[:, 0]) * X[:, 1] + 0.2 * rng.standard_normal(30)


def check_intercept(alpha: Any, mu: Any) -> None:
    """Self-check ``alpha`` and ``mu`` of kernel ridge regression with a free intercept.

    Property: both rows of the bordered system hold on the answer,
    ``(K + lam I) alpha + mu 1 = y`` and ``1^T alpha = 0``.
    """
    X, y = intercept_data()
    a = answer_array(alpha, "alpha", y.shape)
    m = answer_scalar(mu, "mu")
    gram = kernels.gaussian(INTERCEPT_SIGMA)(X)
    first_row = gram @ a + INTERCEPT_LAM * a + m - y
    total = float(np.sum(a))
    summed = abs(total) <= 1e-8 * (1.0 + float(np.sum(np.abs(a))))
    if summed and _small(first_row, float(np.abs(y).max()), 1e-9):
        _passed("(K + lam I) alpha + mu 1 = y and the coefficients sum to zero")
        return
    if np.isclose(m, np.mean(y), rtol=1e-9, atol=1e-9):
        raise AssertionError(
            "`mu` is the mean of y; with a kernel the intercept is not the mean of y "
            "(the kernel part need not average to zero over the data): solve the bordered system"
        )
    if abs(m) <= 1e-12:
        raise AssertionError("`mu` is 0: the intercept must be fitted, unpenalised, "
                             "alongside alpha")
    if not summed:
        raise AssertionError("your alpha does not sum to zero; the optimality condition for "
                             "the unpenalised intercept forces 1^T alpha = 0")
    raise AssertionError(
        "alpha and mu do not solve the first row (K + lam I) alpha + mu 1 = y of the bordered "
        "system [[K + lam I, 1], [1^T, 0]] [alpha; mu] = [y; 0]; check the kernel bandwidth "
        "and lam"
    )


# --------------------------------------------------------------------------- #
# minimum-norm interpolation
# --------------------------------------------------------------------------- #
def minnorm_data() -> tuple[np.ndarray, np.ndarray]:
    """Ten points ``X`` in [-1, 1]^2 and responses ``y``."""
    rng = np.random.default_rng(62)
    return rng.uniform(-1, 1, (10, 2)), rng.standard_normal(10)


def check_min_norm(beta_star: Any) -> None:
    """Self-check the minimum-norm interpolant for the degree-6 polynomial features.

    Properties: ``beta_star`` interpolates (``Phi beta = y``) and is orthogonal to the
    null space of ``Phi`` (it lies in the span of the ``phi(x_i)``).
    """
    X, y = minnorm_data()
    feats = polynomial_features(X, 6)
    b = answer_array(beta_star, "beta_star", (feats.shape[1],))
    if not _small(feats @ b - y, float(np.abs(y).max()), 1e-6):
        raise AssertionError(
            "beta_star does not interpolate: Phi @ beta_star should equal y; "
            "are the features those of (1 + x^T x')^6?"
        )
    kernel_of_phi = scipy.linalg.null_space(feats)
    if not _small(kernel_of_phi.T @ b, float(np.abs(b).max()), 1e-8):
        raise AssertionError(
            "beta_star interpolates but has a component in the null space of Phi, so its norm "
            "is not the smallest; take beta = Phi^T alpha with K alpha = y"
        )
    _passed("beta_star interpolates and is orthogonal to the null space of Phi")


# --------------------------------------------------------------------------- #
# the MAP estimate
# --------------------------------------------------------------------------- #
def map_data() -> tuple[np.ndarray, np.ndarray]:
    """Features ``Phi`` (20 x 35) and responses ``y``."""
    rng = np.random.default_rng(63)
    Phi = rng.standard_normal((20, 35))
    beta = np.sqrt(MAP_PRIOR_VAR) * rng.standard_normal(35)
    return Phi, Phi @ beta + np.sqrt(MAP_NOISE_VAR) * rng.standard_normal(20)


def check_map(lam_map: Any, beta_map: Any) -> None:
    """Self-check the penalty ``lam_map`` and the posterior mean ``beta_map``.

    Properties: ``lam_map`` is a positive number, and ``beta_map`` satisfies the stationarity
    condition ``Phi^T (y - Phi beta) = lam_map beta`` of ridge with that penalty. Whether
    ``lam_map`` is the right ratio is left to the full check.
    """
    feats, y = map_data()
    lam = answer_scalar(lam_map, "lam_map")
    b = answer_array(beta_map, "beta_map", (feats.shape[1],))
    if not lam > 0:
        raise AssertionError("lam_map must be positive: it is a ratio of two variances")
    stationarity = feats.T @ (y - feats @ b) - lam * b
    if not _small(stationarity, float(np.abs(feats.T @ y).max()), 1e-9):
        raise AssertionError(
            "beta_map is not the ridge estimate with penalty lam_map: it does not satisfy "
            "Phi^T (y - Phi beta_map) = lam_map beta_map to 1e-9 (1 + max |Phi^T y|); it should "
            "equal Phi^T (K + lam_map I)^{-1} y with K = Phi Phi^T"
        )
    _passed("lam_map is positive and beta_map satisfies the ridge equation "
            "Phi^T (y - Phi beta) = lam_map beta")


# --------------------------------------------------------------------------- #
# kernel Poisson regression
# --------------------------------------------------------------------------- #
def poisson_data() -> tuple[np.ndarray, np.ndarray]:
    """Thirty inputs ``x`` in [0, 1] and Poisson counts ``y``."""
    rng = np.random.default_rng(64)
    x = np.sort(rng.uniform(0, 1, 30))
    return x, rng.poisson(np.exp(1.0 + np.sin(2 * np.pi * x))).astype(float)


POISSON_GAP_RTOL = 1e-4     # objective within 1e-4 (1 + |R|) of the minimum (L-BFGS-B defaults)


def poisson_objective(alpha: np.ndarray) -> float:
    """The penalised Poisson objective R(alpha) of the sheet's data (lambda = 1, sigma = 0.3)."""
    x, y = poisson_data()
    K = kernels.gaussian(POISSON_SIGMA)(x)
    eta = K @ alpha
    return float(np.sum(np.exp(np.minimum(eta, 50.0)) - y * eta) + POISSON_LAM * alpha @ K @ alpha)


def check_poisson(alpha_pois: Any) -> None:
    """Self-check the coefficients of kernel Poisson regression.

    Property: the Newton decrement of R at ``alpha_pois``. In whitened coordinates
    ``w = Z^T alpha`` with ``K = Z Z^T`` the objective is strictly convex, and half the squared
    Newton decrement ``g^T H^{-1} g / 2`` estimates how far R(alpha) lies above its minimum. It
    depends on alpha only through ``K alpha`` and ``alpha^T K alpha``, so every minimiser passes,
    whatever its component in the null space of K.
    """
    x, y = poisson_data()
    a = answer_array(alpha_pois, "alpha_pois", y.shape)
    K = kernels.gaussian(POISSON_SIGMA)(x)
    Z = kernels.empirical_feature_map(K)
    w = Z.T @ a
    mu = np.exp(np.minimum(Z @ w, 50.0))
    grad = Z.T @ (mu - y) + 2.0 * POISSON_LAM * w
    hess = (Z.T * mu) @ Z + 2.0 * POISSON_LAM * np.eye(Z.shape[1])
    gap = 0.5 * float(grad @ scipy.linalg.solve(hess, grad, assume_a="pos"))
    value = poisson_objective(a)
    if not np.isfinite(gap) or gap > POISSON_GAP_RTOL * (1.0 + abs(value)):
        raise AssertionError(
            "alpha_pois is not a minimiser of sum(exp(K alpha) - y K alpha) + lam alpha^T K alpha "
            f"(lam = {POISSON_LAM:g}, Gaussian kernel with sigma = {POISSON_SIGMA:g}): one Newton "
            f"step would lower the objective by about {gap:.2g}, more than the tolerance "
            f"{POISSON_GAP_RTOL:.0e} (1 + |R(alpha_pois)|); iterate further or check the gradient"
        )
    _passed("no Newton step lowers the penalised Poisson objective by more than "
            f"{POISSON_GAP_RTOL:.0e} (1 + |R|), so alpha_pois is a minimiser up to that tolerance")


# --------------------------------------------------------------------------- #
# the first-order spline kernel
# --------------------------------------------------------------------------- #
def spline_data() -> tuple[np.ndarray, np.ndarray]:
    """Twenty inputs ``x`` in (0, 1) and responses ``y``."""
    rng = np.random.default_rng(65)
    x = rng.uniform(0.05, 1, 20)
    return x, 2.0 + np.cos(3 * x) + 0.2 * rng.standard_normal(20)


def check_linear_spline(f_hat: Any) -> None:
    """Self-check the fitted values of the first-order spline kernel with a free constant.

    With ``alpha = (y - f) / lam`` the bordered system says ``f - K alpha`` is a constant
    ``c`` and ``1^T alpha = 0``: so ``lam f - K (y - f)`` must be constant and the
    residuals ``y - f`` must sum to zero.
    """
    x, y = spline_data()
    f = answer_array(f_hat, "f_hat", y.shape)
    brownian = np.minimum(x[:, None], x[None, :])
    constant_part = SPLINE_LAM * f - brownian @ (y - f)      # lam * c for every point
    scale = float(np.abs(y).max())
    flat = _small(constant_part - constant_part.mean(), scale, 1e-9)
    balanced = _small(np.sum(y - f, keepdims=True), scale, 1e-9)
    if flat and balanced:
        _passed("lam f_hat - K (y - f_hat) is constant and the residuals sum to zero, as "
                "the bordered system with min(x, x') requires")
        return
    if flat and _small(constant_part, scale, 1e-9):
        raise AssertionError(
            "this fit has no unpenalised constant: min(x, x') forces f(0) = 0, so add the "
            "constant function through the bordered system"
        )
    if not balanced:
        raise AssertionError(
            "the residuals y - f_hat do not sum to zero, which the unpenalised constant forces; "
            "check the bordered system"
        )
    raise AssertionError("f_hat is not the fitted values K alpha + c of the bordered system; "
                         "check the kernel min(x, x') and lam")
