"""Tests of kmlib.book.representer, each against an independent reference."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize
from scipy.interpolate import make_smoothing_spline
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF

from kmlib import kernels, krr
from kmlib.book import representer as rep


def test_polynomial_features_reproduce_the_kernel_gram_matrix():
    """Reference: the polynomial kernel itself; column count binom(d + m, m)."""
    X = np.random.default_rng(0).uniform(-1, 1, (7, 3))
    for m, c in [(1, 1.0), (3, 0.5), (5, 2.0)]:
        Phi = rep.polynomial_features(X, m, c)
        from math import comb
        assert Phi.shape == (7, comb(3 + m, m))
        np.testing.assert_allclose(Phi @ Phi.T, kernels.polynomial(m, c)(X), rtol=1e-12, atol=1e-12)


def test_fit_expansion_matches_lbfgs_on_the_coefficients():
    """Reference: scipy L-BFGS on the coefficients beta directly (a different parametrisation)."""
    rng = np.random.default_rng(2)
    X = rng.uniform(-2, 2, (12, 1))
    y = np.sin(X[:, 0]) + 0.2 * rng.standard_normal(12)
    k = kernels.gaussian(1.5)
    K = k(X) + 1e-10 * np.eye(12)
    fit = rep.fit_expansion(k, X, y, 0.3, eps=0.2, seed=0)

    def obj(b):
        return np.sum(rep.smoothed_abs_loss(y - K @ b, 0.2)) + 0.3 * b @ K @ b

    res = optimize.minimize(obj, np.zeros(12), method="L-BFGS-B",
                            options={"ftol": 1e-15, "gtol": 1e-12})
    assert fit.objective <= res.fun + 1e-9
    assert abs(fit.objective - res.fun) < 1e-6
    np.testing.assert_allclose(fit.fitted, K @ fit.coef, atol=1e-8)


def test_extra_centres_do_not_lower_the_optimum_and_the_orthogonal_part_vanishes():
    """Reference: the representer theorem (equal optimal values, zero orthogonal part)."""
    rng = np.random.default_rng(3)
    X = rng.uniform(-3, 3, (15, 1))
    y = np.cos(X[:, 0]) + 0.3 * rng.standard_normal(15)
    k = kernels.gaussian(1.0)
    a = rep.fit_expansion(k, X, y, 0.5, seed=1)
    b = rep.fit_expansion(k, X, y, 0.5, extra_centres=rng.uniform(-3, 3, (20, 1)), seed=2)
    assert abs(a.objective - b.objective) <= 1e-10 * a.objective
    assert b.orth_norm < 1e-10 and a.orth_norm < 1e-10
    # a deliberately non-span function has a large orthogonal part: the measurement can fail
    assert b.rkhs_norm > 0.1


def test_interpolation_gaps_against_krr_fit_and_the_first_order_term():
    """Reference: krr_fit at each lambda and the interpolant by a dense solve."""
    rng = np.random.default_rng(4)
    X, T = rng.uniform(-1, 1, (8, 2)), rng.uniform(-1, 1, (50, 2))
    k = kernels.gaussian(0.6)
    K, Kt, y = k(X), k(T, X), rng.standard_normal(8)
    lams = np.array([1e-8, 1e-4, 1e-1])
    gaps, slope0 = rep.interpolation_gaps(K, Kt, y, lams)
    f0 = Kt @ np.linalg.solve(K, y)
    ref = [np.max(np.abs(Kt @ krr.krr_fit(K, y, lam) - f0)) for lam in lams]
    np.testing.assert_allclose(gaps, ref, rtol=1e-5)
    assert abs(gaps[0] / lams[0] - slope0) < 1e-5 * slope0


def test_cubic_spline_kernel_matches_scipy_smoothing_spline():
    """Reference: scipy.interpolate.make_smoothing_spline, inside the data range."""
    rng = np.random.default_rng(5)
    x = np.sort(rng.uniform(0, 1, 25))
    y = np.sin(4 * np.pi * x) + 0.1 * rng.standard_normal(25)
    fit = rep.SplineKernelRidge(order=2, lam=1e-4).fit(x, y)
    t = np.linspace(x.min(), x.max(), 300)
    np.testing.assert_allclose(fit.predict(t), make_smoothing_spline(x, y, lam=1e-4)(t), atol=1e-9)


def test_bordered_system_by_dense_solve():
    """Reference: a dense solve of the whole bordered matrix (no Schur complement)."""
    rng = np.random.default_rng(6)
    x, y = rng.uniform(0, 1, 10), rng.standard_normal(10)
    for order in (1, 2):
        fit = rep.SplineKernelRidge(order=order, lam=0.01).fit(x, y)
        K = (kernels.sobolev1() if order == 1 else kernels.sobolev2())(x)
        T = x[:, None] ** np.arange(order)
        A = np.block([[K + 0.01 * np.eye(10), T], [T.T, np.zeros((order, order))]])
        sol = np.linalg.solve(A, np.concatenate([y, np.zeros(order)]))
        np.testing.assert_allclose(fit.dual_coef_, sol[:10], rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(fit.null_coef_, sol[10:], rtol=1e-8, atol=1e-10)


def test_first_order_kernel_equals_the_banded_linear_spline():
    """Reference: the tridiagonal system of the piecewise-linear smoothing spline."""
    rng = np.random.default_rng(7)
    x, y = rng.uniform(0, 1, 20), rng.standard_normal(20)
    fit = rep.SplineKernelRidge(order=1, lam=0.05).fit(x, y)
    np.testing.assert_allclose(fit.predict(x), rep.linear_smoothing_spline(x, y, 0.05), atol=1e-12)


def test_gaussian_linear_posterior_equals_dual_ridge():
    """Reference: the dual formula Phi^T (Phi Phi^T + lam I)^{-1} y with lam = s2 / sb2."""
    rng = np.random.default_rng(8)
    Phi, y = rng.standard_normal((10, 25)), rng.standard_normal(10)
    mean, cov = rep.gaussian_linear_posterior(Phi, y, 0.5, 2.0)
    np.testing.assert_allclose(mean, Phi.T @ krr.krr_fit(Phi @ Phi.T, y, 0.25), rtol=1e-10)
    # covariance from the Gaussian conditioning formula sb2 I - sb2^2 Phi^T (sb2 K + s2 I)^{-1} Phi
    ref = 2.0 * np.eye(25) - 4.0 * Phi.T @ np.linalg.solve(2.0 * Phi @ Phi.T + 0.5 * np.eye(10),
                                                            Phi)
    np.testing.assert_allclose(cov, ref, atol=1e-10)


def test_gp_posterior_matches_scikit_learn_and_samples_match_moments():
    """References: sklearn GaussianProcessRegressor; Monte Carlo moments of the samples."""
    rng = np.random.default_rng(9)
    x, y = rng.uniform(0, 1, 15), rng.standard_normal(15)
    t = np.linspace(0, 1, 40)
    mean, var, S = rep.gp_posterior(kernels.gaussian(0.2), x, y, t, 0.1, n_samples=4000, seed=0)
    gp = GaussianProcessRegressor(RBF(0.2), alpha=0.1, optimizer=None).fit(x[:, None], y)
    m_ref, sd_ref = gp.predict(t[:, None], return_std=True)
    np.testing.assert_allclose(mean, m_ref, atol=1e-9)
    np.testing.assert_allclose(np.sqrt(var), sd_ref, atol=1e-6)
    se = np.sqrt(var / 4000)
    assert np.all(np.abs(S.mean(axis=0) - mean) < 5 * se + 1e-12)
    assert np.all(np.abs(S.var(axis=0) / var - 1) < 0.15)


@pytest.mark.parametrize("call, match", [
    (lambda: rep.polynomial_features(np.ones((3, 2)), 0), "degree"),
    (lambda: rep.fit_expansion(kernels.gaussian(1.0), np.ones((3, 1)), [1, 2, 3], -1.0), "lam"),
    (lambda: rep.fit_expansion(kernels.gaussian(1.0), np.ones((3, 1)), [1, 2, 3], 1.0,
                               extra_centres=np.ones((2, 2))), "extra_centres"),
    (lambda: rep.SplineKernelRidge(order=3).fit([0.1, 0.2, 0.3, 0.4], [1, 2, 3, 4]), "order"),
    (lambda: rep.SplineKernelRidge(lam=0.0).fit([0.1, 0.2, 0.3], [1, 2, 3]), "lam"),
    (lambda: rep.linear_smoothing_spline([0.1, 0.1], [1, 2], 1.0), "distinct"),
    (lambda: rep.interpolation_gaps(np.eye(2), np.ones((3, 2)), [1, 2], [0.0]), "lams"),
    (lambda: rep.gaussian_linear_posterior(np.ones((3, 2)), [1, 2, 3], 0.0, 1.0), "noise_var"),
    (lambda: rep.linear_smoothing_spline([0.1, 0.2, 0.3], [1, 2, 3], 1e300), "smaller lam"),
    (lambda: rep.fit_expansion(kernels.gaussian(1.0), np.linspace(0, 1, 5), np.ones(5), 1e-300,
                               extra_centres=np.linspace(0, 1, 7) + 0.05), "larger lam"),
    (lambda: rep.smoothed_abs_loss([0.0, np.inf]), "r contains 1 NaN or infinite"),
    (lambda: rep.polynomial_features(np.ones((3, 2)), 10**12), "at most 1,000,000 monomials"),
])
def test_invalid_arguments_raise_clear_value_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_fit_expansion_rejects_a_kernel_without_positive_eigenvalues():
    """A zero (or negative semidefinite) Gram matrix spans nothing: a clear ValueError."""
    X = np.linspace(0.0, 1.0, 5)
    y = np.sin(X)

    def zero(A, B=None):
        return np.zeros((len(A), len(A if B is None else B)))

    with pytest.raises(ValueError, match="no positive eigenvalue"):
        rep.fit_expansion(zero, X, y, 0.1)
    with pytest.raises(ValueError, match="no positive eigenvalue"):
        rep.fit_expansion(lambda A, B=None: -kernels.gaussian(0.5)(A, B), X, y, 0.1)
    with pytest.raises(ValueError, match=r"kernel\(centres, centres\) must return a Gram matrix"):
        rep.fit_expansion(lambda A, B=None: np.ones((2, 2)), X, y, 0.1)
