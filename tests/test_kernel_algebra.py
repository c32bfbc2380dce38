"""Tests of kmlib.book.kernel_algebra, each against an independent reference.

References used: closed forms evaluated entry by entry in plain Python, brute-force
double loops, scikit-learn's Matern kernel, numpy's pinv/SVD for the whitened map,
kmlib.kernels for the catalogue kernels, and the closure theorems (Gram matrices
stay positive semidefinite).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from kmlib import kernels
from kmlib.book import kernel_algebra as ka


def _pts(n=12, d=2, seed=0):
    return np.random.default_rng(seed).standard_normal((n, d))


def _brute(fun, X, Y):
    return np.array([[fun(x, y) for y in Y] for x in X])


def test_constant_kernel_matches_closed_form_and_rejects_negative():
    X = _pts(5)
    assert np.array_equal(ka.constant(2.5)(X), np.full((5, 5), 2.5))
    assert np.array_equal(ka.constant(2.5).diag(X), np.full(5, 2.5))
    with pytest.raises(ValueError, match="c must be"):
        ka.constant(-1.0)


def test_cauchy_matches_brute_force_product_formula():
    X, Y = _pts(6, 3, 1), _pts(4, 3, 2)
    ref = _brute(lambda x, y: np.prod(1.0 / (1.0 + ((x - y) / 0.7) ** 2)), X, Y)
    np.testing.assert_allclose(ka.cauchy(0.7)(X, Y), ref, rtol=1e-14)
    assert kernels.is_psd(ka.cauchy(0.7)(_pts(40, 3, 3)))


def test_l1_laplacian_is_product_of_1d_laplacians_and_differs_from_l2():
    X = _pts(8, 3, 4)
    ref = _brute(lambda x, y: math.exp(-1.3 * np.abs(x - y).sum()), X, X)
    np.testing.assert_allclose(ka.laplacian_l1(1.3)(X), ref, rtol=1e-14)
    assert np.abs(ka.laplacian_l1(1.3)(X) - kernels.laplacian(1.3)(X)).max() > 1e-2
    x1 = X[:, :1]   # in one dimension the two coincide
    np.testing.assert_allclose(ka.laplacian_l1(1.3)(x1), kernels.laplacian(1.3)(x1), rtol=1e-12)


def test_tensor_product_matches_brute_force_and_is_psd():
    X = _pts(15, 3, 5)
    k = ka.tensor_product(kernels.gaussian(1.0), kernels.polynomial(2, 1.0), d1=2)
    ref = _brute(lambda a, b: math.exp(-np.sum((a[:2] - b[:2]) ** 2) / 2) * (1 + a[2] * b[2]) ** 2,
                 X, X)
    np.testing.assert_allclose(k(X), ref, rtol=1e-12)
    np.testing.assert_allclose(k.diag(X), np.diag(ref), rtol=1e-12)
    assert kernels.is_psd(k(X))
    with pytest.raises(ValueError, match="more than d1"):
        k(X[:, :2])


def test_composed_and_rescaled_match_their_definitions():
    Z = _pts(10, 1, 6)[:, 0]
    k = ka.composed(kernels.gaussian(1.0), lambda z: np.c_[np.cos(z), np.sin(z)])
    ref = _brute(lambda a, b: math.exp(-((math.cos(a) - math.cos(b)) ** 2
                                         + (math.sin(a) - math.sin(b)) ** 2) / 2), Z, Z)
    np.testing.assert_allclose(k(Z), ref, rtol=1e-12)
    g = lambda X: np.sin(3 * X[:, 0])  # noqa: E731 - any real function, signs allowed
    kr = ka.rescaled(kernels.linear(), g)
    ref2 = _brute(lambda a, b: math.sin(3 * a) * a * b * math.sin(3 * b), Z, Z)
    np.testing.assert_allclose(kr(Z), ref2, rtol=1e-12, atol=1e-15)
    assert kernels.is_psd(kr(Z))


def test_power_series_and_exp_of_match_closed_forms():
    X = 0.5 * _pts(9, 2, 7)
    G = X @ X.T
    np.testing.assert_allclose(ka.power_series(kernels.linear(), [1.0, 0.0, 2.0])(X),
                               1.0 + 2.0 * G**2, rtol=1e-12)
    np.testing.assert_allclose(ka.exp_of(kernels.linear())(X), np.exp(G), rtol=1e-14)
    # normalising exp(x^T x' / s^2) gives the Gaussian kernel exactly
    k = ka.exp_of((1 / 0.8**2) * kernels.linear()).normalized()
    np.testing.assert_allclose(k(X), kernels.gaussian(0.8)(X), rtol=1e-13)
    with pytest.raises(ValueError, match="non-negative"):
        ka.power_series(kernels.linear(), [1.0, -1.0])


def test_matern_bessel_agrees_with_closed_forms_and_scikit_learn():
    from sklearn.gaussian_process.kernels import Matern

    r = np.linspace(0.0, 3.0, 301)
    for nu in (0.5, 1.5, 2.5):
        closed = kernels.matern(nu, 0.7)(r[:, None], np.zeros((1, 1)))[:, 0]
        np.testing.assert_allclose(ka.matern_bessel(r, nu, 0.7), closed, atol=2e-15)
    sk = Matern(length_scale=0.7, nu=7.3)(r[:, None], np.zeros((1, 1)))[:, 0]
    np.testing.assert_allclose(ka.matern_bessel(r, 7.3, 0.7), sk, rtol=1e-10)
    # where the direct formula overflows (Gamma(200), K_nu(t) near 0), +inf, never NaN
    naive = ka.matern_bessel(r, 200.0, 0.7)
    assert not np.any(np.isnan(naive)) and np.any(np.isinf(naive))


def test_gaussian_features_reproduce_the_kernel():
    """Truncated series against the closed form; remainder below the Taylor bound."""
    x = np.linspace(-1.5, 1.5, 11)
    P = ka.gaussian_features_1d(x, 0.9, 50)
    np.testing.assert_allclose(P @ P.T, kernels.gaussian(0.9)(x), atol=1e-14)


def test_empirical_maps_give_K_squared_and_K_on_a_singular_sample():
    X = _pts(8, 2, 8)
    X[-1] = X[0]                                  # duplicated point: K is singular
    k = kernels.gaussian(1.0)
    K = k(X)
    P1 = ka.empirical_kernel_map(k, X, X)
    np.testing.assert_allclose(P1 @ P1.T, K @ K, atol=1e-14)
    P2 = ka.whitened_kernel_map(k, X, X)
    np.testing.assert_allclose(P2 @ P2.T, K, atol=1e-12)
    # second route: pinv by SVD and the symmetric square root by SVD
    U, s, _ = np.linalg.svd(np.linalg.pinv(K, hermitian=True))
    root = (U * np.sqrt(s)) @ U.T
    np.testing.assert_allclose(P2, K @ root, atol=1e-10)
    with pytest.raises(ValueError, match="positive semidefinite"):
        ka.whitened_kernel_map(kernels.sigmoid(), X, X)


def test_hadamard_monte_carlo_within_standard_errors():
    rng = np.random.default_rng(9)
    X = rng.standard_normal((6, 2))
    K1, K2 = kernels.gaussian(1.0)(X), kernels.polynomial(2, 1.0)(X)
    est, se = ka.hadamard_monte_carlo(K1, K2, 50_000, seed=10)
    assert np.max(np.abs(est - K1 * K2) / se) < 5.0


def test_sample_paths_have_the_kernel_as_covariance():
    x = np.linspace(0.05, 1.0, 5)
    F = ka.sample_paths(kernels.sobolev1(), x, 40_000, seed=11)
    np.testing.assert_allclose(F.T @ F / len(F), np.minimum.outer(x, x), atol=0.03)


def test_nadaraya_watson_is_a_weighted_average():
    xt = np.array([0.0, 1.0, 2.0])
    yt = np.array([1.0, 3.0, 5.0])
    w = np.exp(-0.5 * ((0.5 - xt) / 0.7) ** 2)
    assert ka.nadaraya_watson(xt, yt, [0.5], 0.7)[0] == pytest.approx(w @ yt / w.sum(), rel=1e-14)
    far = ka.nadaraya_watson(xt, yt, [1e3], 0.1)   # far away: the nearest point wins
    assert far[0] == pytest.approx(5.0)


@settings(max_examples=25, deadline=None)
@given(arrays(np.float64, (7, 2), elements=st.floats(-3, 3)))
def test_closure_rules_keep_gram_matrices_psd(X):
    """Property: the closure theorems say every combination below is PSD."""
    g, p = kernels.gaussian(1.0), kernels.polynomial(2, 1.0)
    for k in (g + p, g * p, ka.exp_of(0.1 * kernels.linear()), ka.cauchy(1.0),
              ka.laplacian_l1(1.0), ka.rescaled(g, lambda A: A[:, 0] - 1.0)):
        K = k(X)
        assert ka.min_eigenvalue(K) >= -1e-9 * max(1.0, np.abs(K).max())


def test_min_eigenvalue_detects_the_sigmoid_counterexample():
    K = kernels.sigmoid()(np.array([1.0, 2.0]))
    det = math.tanh(1) * math.tanh(4) - math.tanh(2) ** 2
    assert np.linalg.det(K) == pytest.approx(det, rel=1e-12)
    assert ka.min_eigenvalue(K) < 0


def test_minhash_collision_rate_is_the_jaccard_index():
    """Brute force: the collision frequency over all orderings equals |A∩B|/|A∪B| (0/0 := 1)."""
    S = np.array([[1, 1, 0, 0, 1], [0, 1, 1, 0, 1], [0, 0, 0, 0, 0], [1, 0, 0, 1, 0]])
    first = ka.minhash_first(S)
    assert first.shape == (120, 4)
    K = (first[:, :, None] == first[:, None, :]).mean(axis=0)
    ref = _brute(lambda a, b: 1.0 if not (a | b).any() else (a & b).sum() / (a | b).sum(),
                 S.astype(bool), S.astype(bool))
    np.testing.assert_allclose(K, ref, atol=1e-15)
    np.testing.assert_allclose(K, kernels.jaccard()(S), atol=1e-15)
