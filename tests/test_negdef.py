"""Tests for kmlib.book.negdef (chapter 10, negative-definite kernels).

Each test names the independent reference it trusts: a closed form (the
squared-distance identity, Brownian covariance, the three-point witness), a
second algorithm (kmlib.kernels.pds_from_nds, kmlib.kernels.is_nds, dense
eigendecompositions, scipy.spatial distances), or a theorem's inequality.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special
from scipy.spatial.distance import cdist

from kmlib import kernels
from kmlib.book import negdef


@pytest.fixture(scope="module")
def grid():
    return np.linspace(0.0, 3.0, 15)


# --------------------------------------------------------------------------- #
# power_distance_gram
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("a", [0.5, 1.0, 2.0, 3.7])
def test_power_distance_gram_matches_scipy_cdist(a):
    """Reference: scipy.spatial.distance.cdist raised to the power a."""
    rng = np.random.default_rng(0)
    X, Y = rng.standard_normal((7, 3)), rng.standard_normal((5, 3))
    np.testing.assert_allclose(negdef.power_distance_gram(X, Y, a=a), cdist(X, Y) ** a,
                               rtol=1e-12)
    K = negdef.power_distance_gram(X, a=a)
    assert np.all(K == K.T) and np.all(np.diag(K) == 0.0)


def test_power_distance_gram_validation():
    with pytest.raises(ValueError, match="a must be > 0"):
        negdef.power_distance_gram(np.zeros(3), a=0.0)
    with pytest.raises(ValueError, match="as many features"):
        negdef.power_distance_gram(np.zeros((3, 2)), np.zeros((3, 1)))


# --------------------------------------------------------------------------- #
# anchored_gram (the NDS <-> PDS theorem)
# --------------------------------------------------------------------------- #
def test_anchored_gram_of_squared_distance_is_twice_the_linear_kernel():
    """Closed form: ||x - x'||^2 anchored at x0 is 2 <x - x0, x' - x0>."""
    X = np.random.default_rng(1).standard_normal((10, 4))
    Kp = negdef.anchored_gram(kernels.squared_distance()(X), anchor=3)
    Z = X - X[3]
    np.testing.assert_allclose(Kp, 2 * Z @ Z.T, atol=1e-12)


def test_anchored_gram_agrees_with_kernels_pds_from_nds(grid):
    """Second implementation: kmlib.kernels.pds_from_nds evaluated on the non-anchor points."""
    k = kernels.squared_distance() ** 2
    ours = negdef.anchored_gram(k(grid), anchor=0, drop_anchor=True)
    np.testing.assert_allclose(ours, kernels.pds_from_nds(k, 0.0)(grid[1:]), atol=1e-12)


def test_anchored_gram_of_abs_is_brownian_covariance(grid):
    """Closed form: |x - x'| anchored at 0 is 2 min(x, x') for x, x' >= 0."""
    Kp = negdef.anchored_gram(negdef.power_distance_gram(grid), anchor=0)
    np.testing.assert_allclose(Kp, 2 * np.minimum.outer(grid, grid), atol=1e-13)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.1, 2.0))
def test_nds_iff_anchored_is_psd_for_power_kernels(seed, a):
    """Theorem: ||x - x'||^a (a <= 2) is NDS, so K' is PSD; the zero-sum identity holds."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((8, 2))
    K = negdef.power_distance_gram(X, a=a)
    Kp = negdef.anchored_gram(K, anchor=0)
    assert np.linalg.eigvalsh(Kp)[0] >= -1e-9 * max(1.0, np.abs(Kp).max())
    c = rng.standard_normal(8)
    c -= c.mean()
    np.testing.assert_allclose(c @ Kp @ c, -(c @ K @ c), rtol=1e-8, atol=1e-10)


def test_anchored_gram_validation():
    with pytest.raises(ValueError, match="anchor must be an index below n = 3"):
        negdef.anchored_gram(np.zeros((3, 3)), anchor=3)
    with pytest.raises(ValueError, match="must be a symmetric"):
        negdef.anchored_gram(np.array([[0.0, 1.0], [2.0, 0.0]]))
    with pytest.raises(ValueError, match="square"):
        negdef.anchored_gram(np.zeros((2, 3)))


# --------------------------------------------------------------------------- #
# sum-zero subspace
# --------------------------------------------------------------------------- #
def test_sum_zero_basis_is_orthonormal_and_sums_to_zero():
    """Definition: orthonormal columns orthogonal to the ones vector."""
    B = negdef.sum_zero_basis(9)
    np.testing.assert_allclose(B.T @ B, np.eye(8), atol=1e-14)
    np.testing.assert_allclose(B.sum(axis=0), 0.0, atol=1e-14)


@pytest.mark.parametrize("a, nds", [(0.5, True), (1.0, True), (1.9, True), (3.0, False),
                                    (4.0, False)])
def test_sum_zero_top_eigenvalue_sign_agrees_with_kernels_is_nds(grid, a, nds):
    """Second algorithm: kernels.is_nds (Householder projection) gives the same verdict."""
    K = negdef.power_distance_gram(grid, a=a)
    top = negdef.sum_zero_top_eigenvalue(K)
    assert (top <= 1e-10) == nds == kernels.is_nds(K)


def test_sum_zero_top_eigenvalue_is_a_maximum_over_random_zero_sum_vectors():
    """Brute force: no random zero-sum unit vector beats it, and the maximiser attains it."""
    K = negdef.power_distance_gram(np.linspace(0, 3, 10), a=3.0)
    top = negdef.sum_zero_top_eigenvalue(K)
    C = np.random.default_rng(2).standard_normal((5000, 10))
    C -= C.mean(axis=1, keepdims=True)
    C /= np.linalg.norm(C, axis=1, keepdims=True)
    q = np.einsum("ij,jk,ik->i", C, K, C)
    assert q.max() <= top + 1e-10
    assert q.max() >= 0.5 * top > 0


# --------------------------------------------------------------------------- #
# Schoenberg scan and the KMS closed form
# --------------------------------------------------------------------------- #
def test_exp_min_eigenvalues_match_dense_eigvalsh(grid):
    """Reference: numpy eigvalsh of each exp(-t K) built by hand."""
    K = negdef.power_distance_gram(grid, a=4.0)
    ts = [0.05, 1.0, 20.0]
    ref = [np.linalg.eigvalsh(np.exp(-t * K))[0] for t in ts]
    np.testing.assert_allclose(negdef.exp_min_eigenvalues(K, ts), ref, rtol=1e-10, atol=1e-13)


def test_schoenberg_nds_kernel_gives_psd_exponentials(grid):
    """Theorem: |x - x'| is NDS, so exp(-t|x - x'|) is PSD for all t."""
    vals = negdef.exp_min_eigenvalues(negdef.power_distance_gram(grid), np.logspace(-3, 3, 25))
    assert np.all(vals > 0)


@pytest.mark.parametrize("n, rho", [(2, 0.5), (15, np.exp(-0.1 * 3 / 14)), (40, 0.99), (7, 1e-3)])
def test_kms_min_eigenvalue_matches_dense(n, rho):
    """Reference: dense eigvalsh of [rho^|i-j|]; also the symbol bound (1 - rho)/(1 + rho)."""
    i = np.arange(n)
    ref = np.linalg.eigvalsh(rho ** np.abs(np.subtract.outer(i, i)))[0]
    val = negdef.kms_min_eigenvalue(n, rho)
    assert val == pytest.approx(ref, rel=1e-10)
    assert val >= (1 - rho) / (1 + rho) * (1 - 1e-12)


def test_kms_validation():
    with pytest.raises(ValueError, match="rho must lie in"):
        negdef.kms_min_eigenvalue(4, 1.0)
    with pytest.raises(ValueError, match="n must be >= 2"):
        negdef.kms_min_eigenvalue(1, 0.5)


def test_exp_min_eigenvalues_validation():
    with pytest.raises(ValueError, match="ts must be"):
        negdef.exp_min_eigenvalues(np.zeros((2, 2)), [0.0, 1.0])


# --------------------------------------------------------------------------- #
# exponents scan and the integral representation
# --------------------------------------------------------------------------- #
def test_anchored_min_eigenvalues_change_sign_at_two(grid):
    """Proposition: NDS exactly for a <= 2 (closed-form witness 2 (2^a - 4) for a > 2)."""
    a = np.array([0.5, 1.0, 1.5, 1.99, 2.01, 2.5, 3.0, 4.0])
    vals = negdef.anchored_min_eigenvalues(grid, a)
    assert np.all(vals[a < 2] > 0) and np.all(vals[a > 2] < 0)
    c = np.array([1.0, -2.0, 1.0])
    for aj in (2.5, 3.0):
        K3 = negdef.power_distance_gram(np.array([0.0, 1.0, 2.0]), a=aj)
        assert c @ K3 @ c == pytest.approx(2 * (2**aj - 4), rel=1e-12)


def test_anchored_min_eigenvalue_of_abs_is_brownian_closed_form(grid):
    """Closed form: eigenvalues of [min(i, j)] are 1 / (4 sin^2((2k - 1) pi / (4m + 2)))."""
    m, h = 14, grid[1]
    ref = 2 * h / (4 * np.sin((2 * m - 1) * np.pi / (4 * m + 2)) ** 2)
    assert negdef.anchored_min_eigenvalues(grid, [1.0])[0] == pytest.approx(ref, rel=1e-10)


@pytest.mark.parametrize("r, a", [(0.0, 1.0), (1e-3, 0.4), (0.3, 1.0), (2.0, 0.6), (50.0, 1.5)])
def test_power_integral_equals_power(r, a):
    """Closed form: the integral equals r^(a/2)."""
    assert negdef.power_integral(r, a) == pytest.approx(r ** (a / 2), rel=1e-8, abs=1e-14)


def test_power_integral_constant_is_the_gamma_ratio():
    """Closed form at r = 1, beta = 1/2: beta / Gamma(1 - beta) = 1 / (2 sqrt(pi))."""
    assert 0.5 / special.gamma(0.5) == pytest.approx(1 / (2 * np.sqrt(np.pi)))
    assert negdef.power_integral(1.0, 1.0) == pytest.approx(1.0, rel=1e-9)


def test_power_integral_validation():
    with pytest.raises(ValueError, match=r"a must lie in \(0, 2\)"):
        negdef.power_integral(1.0, 2.0)
    with pytest.raises(ValueError, match="r must be"):
        negdef.power_integral(-1.0, 1.0)
    with pytest.raises(ValueError, match="r must be a real number"):
        negdef.power_integral("2.0", 1.0)


def test_scans_refuse_complex_values_and_a_single_point():
    """A complex t or exponent is refused (formerly its imaginary part was dropped)."""
    R = negdef.power_distance_gram(np.linspace(0.0, 1.0, 4))
    with pytest.raises(ValueError, match="ts must be real"):
        negdef.exp_min_eigenvalues(R, np.array([1.0 + 1j]))
    with pytest.raises(ValueError, match="exponents must be real"):
        negdef.anchored_min_eigenvalues(np.linspace(0.0, 1.0, 4), np.array([1.0 + 1j]))
    with pytest.raises(ValueError, match="minimum of 2"):
        negdef.anchored_min_eigenvalues([0.5], [1.0])


# --------------------------------------------------------------------------- #
# metric embedding
# --------------------------------------------------------------------------- #
def test_metric_embedding_reproduces_the_kernel(grid):
    """Theorem: ||Phi_i - Phi_j||^2 = K_ij, checked against scipy's pairwise distances."""
    K = negdef.power_distance_gram(grid)
    Phi = negdef.metric_embedding(K)
    np.testing.assert_allclose(cdist(Phi, Phi) ** 2, K, atol=1e-13)
    assert Phi.shape == (15, 14)
    np.testing.assert_allclose(Phi[0], 0.0, atol=1e-7)   # the anchor goes to the origin


def test_metric_embedding_of_euclidean_points_is_a_rigid_motion():
    """Closed form: for ||x - x'||^2 the embedding is the points themselves up to isometry."""
    X = np.random.default_rng(4).standard_normal((12, 3))
    Phi = negdef.metric_embedding(kernels.squared_distance()(X), anchor=5)
    assert Phi.shape[1] == 3
    np.testing.assert_allclose(Phi @ Phi.T, (X - X[5]) @ (X - X[5]).T, atol=1e-10)


def test_metric_embedding_square_root_is_a_metric_on_l1_points():
    """Theorem's inequality: sqrt of the l1 distance satisfies the triangle inequality."""
    X = np.random.default_rng(5).uniform(size=(20, 2))
    D = np.sqrt(cdist(X, X, "cityblock"))
    slack = D[:, :, None] + D[None, :, :] - D[:, None, :]   # d(i,j) + d(j,k) - d(i,k)
    assert slack.min() >= -1e-12
    Phi = negdef.metric_embedding(cdist(X, X, "cityblock"))
    np.testing.assert_allclose(cdist(Phi, Phi), D, atol=1e-7)


def test_metric_embedding_rejects_non_nds_and_nonzero_diagonal(grid):
    with pytest.raises(ValueError, match="conditionally negative definite"):
        negdef.metric_embedding(negdef.power_distance_gram(grid, a=4.0))
    with pytest.raises(ValueError, match="zero diagonal"):
        negdef.metric_embedding(np.ones((3, 3)))
