"""Tests for kmlib.book.kernel_trick (chapter "The kernel trick").

Each test names the independent reference it trusts: scikit-learn, NumPy's
``pinv``/``lstsq``, brute-force enumeration, a closed form, or a theorem's
inequality.
"""
from __future__ import annotations

import math
from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.linear_model import Ridge
from sklearn.preprocessing import PolynomialFeatures

from kmlib import kernels
from kmlib.book import kernel_trick as kt

pytestmark = pytest.mark.filterwarnings("error")


# --------------------------------------------------------------------------- #
# primal and dual ridge
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("shape", [(30, 5), (5, 30), (12, 12)])
def test_primal_and_dual_match_scikit_learn(shape):
    """Reference: sklearn Ridge(alpha=lam, fit_intercept=False), the same objective."""
    rng = np.random.default_rng(1)
    Phi, y = rng.standard_normal(shape), rng.standard_normal(shape[0])
    ref = Ridge(alpha=0.7, fit_intercept=False, solver="svd").fit(Phi, y).coef_
    np.testing.assert_allclose(kt.primal_ridge(Phi, y, 0.7), ref, rtol=1e-9, atol=1e-12)
    w, alpha = kt.dual_ridge(Phi, y, 0.7, return_alpha=True)
    np.testing.assert_allclose(w, ref, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose((Phi @ Phi.T + 0.7 * np.eye(shape[0])) @ alpha, y, atol=1e-10)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 12), D=st.integers(1, 12), lam=st.floats(1e-3, 1e3),
       seed=st.integers(0, 10**6))
def test_push_through_identity_for_all_shapes(n, D, lam, seed):
    """Law: (Phi^T Phi + lam I)^{-1} Phi^T y = Phi^T (Phi Phi^T + lam I)^{-1} y for every shape."""
    rng = np.random.default_rng(seed)
    Phi, y = rng.standard_normal((n, D)), rng.standard_normal(n)
    wp, wd = kt.primal_ridge(Phi, y, lam), kt.dual_ridge(Phi, y, lam)
    np.testing.assert_allclose(wp, wd, rtol=1e-7, atol=1e-9 * (1 + np.abs(wp).max()))


def test_ridge_rejects_bad_input():
    Phi, y = np.ones((3, 2)), np.ones(3)
    with pytest.raises(ValueError, match="lam must be > 0"):
        kt.primal_ridge(Phi, y, 0.0)
    with pytest.raises(ValueError, match="same number of samples"):
        kt.dual_ridge(Phi, np.ones(4), 1.0)
    with pytest.raises(ValueError, match="Phi must be a 2-D array"):
        kt.primal_ridge(np.ones(3), y, 1.0)


def test_time_primal_dual_returns_positive_times_and_equal_answers():
    """Reference: the two routes agree (push-through identity); times are positive CPU seconds."""
    out = kt.time_primal_dual(40, [5, 80], lam=1.0, repeats=1, seed=0)
    assert out["D"].tolist() == [5, 80]
    assert np.all(out["primal"] >= 0) and np.all(out["dual"] >= 0)
    assert np.all(out["rel_diff"] < 1e-10)
    with pytest.raises(ValueError, match="Ds must be"):
        kt.time_primal_dual(40, [0, 3])
    with pytest.raises(ValueError, match="Ds must be"):
        kt.time_primal_dual(40, [2.5])


# --------------------------------------------------------------------------- #
# feature maps
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("d,p", [(1, 3), (2, 2), (3, 4), (4, 3), (2, 0)])
def test_monomial_exponents_by_brute_force(d, p):
    """Reference: brute-force enumeration of {0..p}^d filtered by total degree; count C(d+p, p)."""
    brute = {j for j in product(range(p + 1), repeat=d) if sum(j) <= p}
    J = kt.monomial_exponents(d, p)
    assert {tuple(r) for r in J} == brute and len(J) == len(brute)
    assert kt.n_monomials(d, p) == math.comb(d + p, p) == len(brute)
    assert np.all(np.diff(J.sum(axis=1)) >= 0)          # ordered by total degree


def test_n_monomials_known_values():
    """Closed forms: C(4,3)=4, C(8,5)=56, C(15,10)=3003, C(25,15)=3268760."""
    assert [kt.n_monomials(1, 3), kt.n_monomials(3, 5), kt.n_monomials(5, 10),
            kt.n_monomials(10, 15)] == [4, 56, 3003, 3268760]


@pytest.mark.parametrize("d,p,c", [(2, 3, 1.0), (3, 4, 1.0), (3, 2, 0.5), (2, 3, 0.0), (1, 5, 2.0)])
def test_polynomial_features_reproduce_the_kernel(d, p, c):
    """Reference: kmlib.kernels.polynomial (x^T x' + c)^p, computed without features."""
    X = np.random.default_rng(2).uniform(-1, 1, size=(15, d))
    Phi = kt.polynomial_features(X, p, c)
    assert Phi.shape == (15, math.comb(d + p, p))
    K = kernels.polynomial(p, c)(X)
    np.testing.assert_allclose(Phi @ Phi.T, K, rtol=1e-10, atol=1e-12)


def test_polynomial_features_span_sklearn_monomials():
    """Reference: sklearn PolynomialFeatures spans the same monomials (up to column scaling)."""
    X = np.random.default_rng(3).standard_normal((40, 3))
    Phi = kt.polynomial_features(X, 3)
    S = PolynomialFeatures(3).fit_transform(X)
    assert S.shape == Phi.shape
    assert np.linalg.matrix_rank(np.hstack([Phi, S])) == Phi.shape[1]


@pytest.mark.parametrize("a,kernel", [(1.0, lambda G: (0.5 + G) ** 2 - 0.25),
                                      (np.sqrt(2), lambda G: (1 + G) ** 2 - 1)])
def test_quadratic_features_closed_form_kernels(a, kernel):
    """Closed forms: x^T x' + (x^T x')^2 and 2 x^T x' + (x^T x')^2."""
    X = np.random.default_rng(4).standard_normal((20, 4))
    Phi = kt.quadratic_features(X, a)
    assert Phi.shape == (20, 4 + 16)
    np.testing.assert_allclose(Phi @ Phi.T, kernel(X @ X.T), rtol=1e-12, atol=1e-12)


def test_gaussian_features_converge_to_the_kernel_within_the_bound():
    """Reference: kmlib.kernels.gaussian; the error obeys the Taylor-remainder bound
    (r/sigma)^{2M}/M!."""
    x = np.linspace(-1.5, 1.5, 31)
    for sigma in (0.8, 1.0, 2.0):
        K = kernels.gaussian(sigma)(x)
        for M in (1, 3, 8, 20):
            F = kt.gaussian_features_1d(x, sigma, M)
            err = np.abs(F @ F.T - K).max()
            assert err <= kt.gaussian_tail_bound(1.5, sigma, M) + 1e-15
        F = kt.gaussian_features_1d(x, sigma, 80)
        np.testing.assert_allclose(F @ F.T, K, atol=1e-14)
        np.testing.assert_allclose(np.sum(F**2, axis=1), 1.0, atol=1e-14)   # ||phi(x)|| = 1


def test_gaussian_features_explicit_values():
    """Closed form at x = 1, sigma = 1: e^{-1/2} / sqrt(m!)."""
    F = kt.gaussian_features_1d([1.0, -1.0, 0.0], 1.0, 4)
    ref = np.exp(-0.5) / np.sqrt([1, 1, 2, 6])
    np.testing.assert_allclose(F[0], ref, rtol=1e-14)
    np.testing.assert_allclose(F[1], ref * np.array([1, -1, 1, -1]), rtol=1e-14)
    np.testing.assert_allclose(F[2], [1, 0, 0, 0], atol=0)


def test_monomial_lists_too_long_are_refused_at_once():
    """C(d+p, p) >= d + p: p = 10**12 is refused before any monomial is listed."""
    with pytest.raises(ValueError, match="at most 1,000,000 monomials"):
        kt.monomial_exponents(3, 10**12)
    with pytest.raises(ValueError, match="degree="):
        kt.polynomial_features(np.ones((2, 2)), 10**12)
    assert kt.n_monomials(3, 10**12) == (10**12 + 3) * (10**12 + 2) * (10**12 + 1) // 6


def test_feature_maps_reject_bad_arguments():
    with pytest.raises(ValueError, match="degree must be >= 1"):
        kt.polynomial_features(np.ones((2, 2)), 0)
    with pytest.raises(ValueError, match="c must be >= 0"):
        kt.polynomial_features(np.ones((2, 2)), 2, -1.0)
    with pytest.raises(ValueError, match="sigma must be > 0"):
        kt.gaussian_features_1d([0.0], 0.0, 3)
    with pytest.raises(ValueError, match="n_terms must be a positive integer"):
        kt.gaussian_tail_bound(1.0, 1.0, 0)


# --------------------------------------------------------------------------- #
# pseudoinverse and spectral filters
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("shape,rank", [((6, 8), 4), ((8, 6), 6), ((5, 5), 2), ((10, 30), 6)])
def test_pinv_svd_matches_numpy_and_satisfies_penrose(shape, rank):
    """Reference: np.linalg.pinv, and the four Penrose conditions (zero residuals)."""
    rng = np.random.default_rng(5)
    A = rng.standard_normal((shape[0], rank)) @ rng.standard_normal((rank, shape[1]))
    B = kt.pinv_svd(A)
    np.testing.assert_allclose(B, np.linalg.pinv(A), rtol=1e-9, atol=1e-11)
    assert kt.penrose_residuals(A, B).max() < 1e-12
    assert kt.penrose_residuals(A, A.T).max() > 1e-3       # the transpose is not the pseudoinverse


def test_penrose_residuals_shape_check():
    with pytest.raises(ValueError, match="B must have shape"):
        kt.penrose_residuals(np.ones((2, 3)), np.ones((2, 3)))


def test_filter_factors_closed_forms_and_ridge_maximum():
    """Closed forms of the three filters; theorem: max sigma/(sigma^2+lam) = 1/(2 sqrt(lam))."""
    s = np.array([0.0, 1e-3, 0.1, 1.0, 10.0])
    np.testing.assert_array_equal(kt.filter_factors(s, 0.01, "pinv"), [0, 1e3, 10, 1, 0.1])
    np.testing.assert_array_equal(kt.filter_factors(s, 0.01, "cutoff"), [0, 0, 10, 1, 0.1])
    np.testing.assert_allclose(kt.filter_factors(s, 0.01, "ridge"), s / (s**2 + 0.01))
    grid = np.logspace(-5, 3, 20001)
    for lam in (1e-4, 0.3, 50.0):
        g = kt.filter_factors(grid, lam, "ridge")
        assert g.max() <= 1 / (2 * np.sqrt(lam)) * (1 + 1e-12)
        assert kt.filter_factors(np.array([np.sqrt(lam)]), lam, "ridge")[0] == pytest.approx(
            1 / (2 * np.sqrt(lam)), rel=1e-14)
    with pytest.raises(ValueError, match="kind must be one of"):
        kt.filter_factors(s, 0.1, "lasso")
    with pytest.raises(ValueError, match="singular values >= 0"):
        kt.filter_factors(np.array([-1.0]), 0.1, "ridge")


def test_spectral_fit_against_independent_routes():
    """References: lstsq (min-norm LS), sklearn Ridge, and pinv of the rank-k truncation
    (cut-off)."""
    rng = np.random.default_rng(6)
    U = np.linalg.qr(rng.standard_normal((12, 5)))[0]
    V = np.linalg.qr(rng.standard_normal((9, 5)))[0]
    s = np.array([3.0, 1.0, 0.2, 0.05, 0.01])
    Phi, y = U @ np.diag(s) @ V.T, rng.standard_normal(12)
    np.testing.assert_allclose(kt.spectral_fit(Phi, y, 0.0, "pinv"),
                               np.linalg.lstsq(Phi, y, rcond=None)[0], rtol=1e-8, atol=1e-10)
    ref = Ridge(alpha=0.04, fit_intercept=False, solver="svd").fit(Phi, y).coef_
    np.testing.assert_allclose(kt.spectral_fit(Phi, y, 0.04, "ridge"), ref, rtol=1e-9, atol=1e-12)
    Phi_k = U[:, :3] @ np.diag(s[:3]) @ V[:, :3].T          # singular values above 0.1 kept
    np.testing.assert_allclose(kt.spectral_fit(Phi, y, 0.1, "cutoff"),
                               np.linalg.pinv(Phi_k) @ y, rtol=1e-9, atol=1e-12)


def test_spectral_path_errors_match_refits_and_training_error_is_monotone():
    """Reference: one sklearn Ridge refit per lambda; theorem: training error non-decreasing
    in lambda."""
    rng = np.random.default_rng(7)
    x, xt = rng.uniform(0, 1, 20), rng.uniform(0, 1, 200)
    F, Ft = np.vander(x, 8), np.vander(xt, 8)
    y, yt = np.sin(6 * x) + 0.1 * rng.standard_normal(20), np.sin(6 * xt)
    lams = np.logspace(-6, 2, 17)
    train, test = kt.spectral_path_errors(F, y, Ft, yt, lams, "ridge")
    for lam, tr, te in zip(lams, train, test, strict=True):
        w = Ridge(alpha=lam, fit_intercept=False, solver="svd").fit(F, y).coef_
        assert tr == pytest.approx(np.mean((y - F @ w) ** 2), rel=1e-6)
        assert te == pytest.approx(np.mean((yt - Ft @ w) ** 2), rel=1e-6)
    assert np.all(np.diff(train) >= -1e-14)
    train_c, _ = kt.spectral_path_errors(F, y, Ft, yt, lams, "cutoff")
    assert np.all(np.diff(train_c) >= -1e-14)
    with pytest.raises(ValueError, match="Phi_test must have 8 columns"):
        kt.spectral_path_errors(F, y, Ft[:, :3], yt, lams)
