"""Tests for kmlib.book.kernel_trick (chapter "The kernel trick").

Each test names the independent reference it trusts: scikit-learn, brute-force
enumeration, a closed form, or a theorem's inequality.
"""
from __future__ import annotations

import math
from itertools import product

import numpy as np
import pytest
from sklearn.preprocessing import PolynomialFeatures

from kmlib import kernels
from kmlib.book import kernel_trick as kt

pytestmark = pytest.mark.filterwarnings("error")


# --------------------------------------------------------------------------- #
# feature maps
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("d,p", [(1, 3), (2, 2), (3, 4), (4, 3), (2, 0)])
def test_monomial_exponents_by_brute_force(d, p):
    """Reference: brute-force enumeration of {0..p}^d filtered by total degree; count C(d+p, p)."""
    brute = {j for j in product(range(p + 1), repeat=d) if sum(j) <= p}
    J = kt.monomial_exponents(d, p)
    assert {tuple(r) for r in J} == brute and len(J) == len(brute)
    assert math.comb(d + p, p) == len(brute)
    assert np.all(np.diff(J.sum(axis=1)) >= 0)          # ordered by total degree


@pytest.mark.parametrize("d,p,c", [(2, 3, 1.0), (3, 4, 1.0), (3, 2, 0.5), (2, 3, 0.0), (1, 5, 2.0)])
def test_polynomial_features_reproduce_the_kernel(d, p, c):
    """Reference: kmlib.kernels.polynomial (x^T x' + c)^p, computed without features."""
    X = np.random.default_rng(2).uniform(-1, 1, size=(15, d))
    Phi = kt.polynomial_features(X, p, c)
    assert Phi.shape == (15, math.comb(d + p, p))
    K = kernels.polynomial(p, c)(X)
    np.testing.assert_allclose(Phi @ Phi.T, K, rtol=1e-10, atol=1e-12)


def test_homogeneous_polynomial_features_keep_only_degree_m():
    """Closed form: for c = 0 exactly C(d+m-1, m) columns (the monomials of degree m) are
    nonzero, and they have full rank (Proposition kt-prop-poly-features)."""
    X = np.random.default_rng(5).standard_normal((60, 3))
    Phi = kt.polynomial_features(X, 4, c=0.0)
    nonzero = np.abs(Phi).max(axis=0) > 0
    assert nonzero.sum() == math.comb(3 + 4 - 1, 4)
    assert np.all(kt.monomial_exponents(3, 4)[nonzero].sum(axis=1) == 4)
    assert np.linalg.matrix_rank(Phi[:, nonzero]) == nonzero.sum()


def test_polynomial_features_span_sklearn_monomials():
    """Reference: sklearn PolynomialFeatures spans the same monomials (up to column scaling)."""
    X = np.random.default_rng(3).standard_normal((40, 3))
    Phi = kt.polynomial_features(X, 3)
    S = PolynomialFeatures(3).fit_transform(X)
    assert S.shape == Phi.shape
    assert np.linalg.matrix_rank(np.hstack([Phi, S])) == Phi.shape[1]


def test_gaussian_features_converge_to_the_kernel_within_the_bound():
    """Reference: kmlib.kernels.gaussian; the error obeys the Taylor-remainder bound
    (r/sigma)^{2M}/M!."""
    x = np.linspace(-1.5, 1.5, 31)
    for sigma in (0.8, 1.0, 2.0):
        K = kernels.gaussian(sigma)(x)
        for M in (1, 3, 8, 20):
            F = kt.gaussian_features_1d(x, sigma, M)
            err = np.abs(F @ F.T - K).max()
            assert err <= (1.5 / sigma) ** (2 * M) / math.factorial(M) + 1e-15
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


def test_feature_maps_reject_bad_arguments():
    with pytest.raises(ValueError, match="degree must be >= 1"):
        kt.polynomial_features(np.ones((2, 2)), 0)
    with pytest.raises(ValueError, match="c must be >= 0"):
        kt.polynomial_features(np.ones((2, 2)), 2, -1.0)
    with pytest.raises(ValueError, match="sigma must be > 0"):
        kt.gaussian_features_1d([0.0], 0.0, 3)
    with pytest.raises(ValueError, match="n_terms must be >= 1"):
        kt.gaussian_features_1d([0.0], 1.0, 0)
