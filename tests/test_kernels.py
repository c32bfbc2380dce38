"""Tests for kmlib.kernels (chapters 4, 5 and 10).

Every test names the independent reference it trusts: scikit-learn, a closed
form, a brute-force loop, numerical quadrature, or a theorem (the PD
definition checked with numpy's own eigenvalue solver, Cauchy-Schwarz,
Schoenberg, the NDS <-> PDS correspondence).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import integrate, special
from sklearn.gaussian_process.kernels import Matern
from sklearn.metrics import pairwise

from kmlib import kernels as km

FAST = settings(max_examples=25, deadline=None)

# ---------------------------------------------------------------------------
# strategies and kernel lists
# ---------------------------------------------------------------------------
_coord = st.floats(-2.0, 2.0, allow_nan=False, allow_infinity=False, allow_subnormal=False)
points = arrays(np.float64, st.tuples(st.integers(1, 8), st.integers(1, 3)), elements=_coord)
unit_points = arrays(
    np.float64, st.integers(1, 10),
    elements=st.floats(0.0, 1.0, allow_nan=False, allow_subnormal=False),
)
set_rows = arrays(np.bool_, st.tuples(st.integers(1, 10), st.integers(1, 6)))

VECTOR_PD = [
    km.linear(),
    km.polynomial(3, 1.0),
    km.polynomial(2, c=0.0),
    km.gaussian(0.7),
    km.laplacian(1.3),
    km.matern(0.5, 1.0),
    km.matern(1.5, 0.5),
    km.matern(2.5, 2.0),
    km.matern(0.8, 1.0),
    km.matern(7.3, 0.6),
    km.matern(400.0, 1.0),
    km.exponential(1.5),
]
VECTOR_COMBOS = [
    km.linear() + km.gaussian(1.0),
    2.5 * km.gaussian(1.0),
    km.laplacian(0.5) * 3,
    km.gaussian(1.0) * km.polynomial(2),
    km.polynomial(2, 1.0) ** 3,
    km.gaussian(0.5) ** 2,
    km.polynomial(3, c=0.0).normalized(),
    (km.linear() + 0.5 * km.laplacian(2.0)).normalized(),
    km.matern(1.5, 1.0) * km.exponential(2.0),
    (0.3 * km.matern(3.7, 0.8) + km.linear() ** 2).normalized() ** 2,
]
UNIT_PD = [km.sobolev1(), km.sobolev2(), km.sobolev1() * km.sobolev2() + km.gaussian(0.3),
           km.sobolev2().normalized()]
SET_PD = [km.jaccard(), km.intersection_power(), km.intersection_power(1.5),
          km.jaccard() * km.intersection_power(3.0), (km.jaccard() + km.linear()).normalized()]


def _min_eig_ok(K: np.ndarray) -> bool:
    """PD definition via numpy's solver: lambda_min >= -1e-10 * max(1, ||K||)."""
    ev = np.linalg.eigvalsh(K)
    return ev[0] >= -1e-10 * max(1.0, np.abs(ev).max())


# ---------------------------------------------------------------------------
# symmetry and PSD for every PD kernel (reference: PD definition, numpy eigvalsh)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("k", VECTOR_PD + VECTOR_COMBOS, ids=repr)
@FAST
@given(X=points)
def test_vector_kernels_exactly_symmetric_and_psd_pd_definition(k, X):
    K = k(X)
    assert K.shape == (len(X), len(X))
    assert np.array_equal(K, K.T)
    assert _min_eig_ok(K)


@pytest.mark.parametrize("k", UNIT_PD, ids=repr)
@FAST
@given(x=unit_points)
def test_sobolev_kernels_exactly_symmetric_and_psd_pd_definition(k, x):
    K = k(x)
    assert np.array_equal(K, K.T)
    assert _min_eig_ok(K)


@pytest.mark.parametrize("k", SET_PD, ids=repr)
@FAST
@given(A=set_rows)
def test_set_kernels_exactly_symmetric_and_psd_pd_definition(k, A):
    K = k(A)
    assert np.array_equal(K, K.T)
    assert _min_eig_ok(K)


@FAST
@given(X=points)
def test_cauchy_schwarz_holds_for_pd_kernels(X):
    """Reference: Cauchy-Schwarz for kernels, k(x,x')^2 <= k(x,x) k(x',x')."""
    for k in VECTOR_PD + VECTOR_COMBOS:
        K, d = k(X), k.diag(X)
        bound = np.outer(d, d)
        assert np.all(K**2 <= bound * (1 + 1e-10) + 1e-12)


def test_symmetric_also_when_y_is_the_same_object():
    """Reference: exact symmetry of the definition, k(X, X) with Y the same array."""
    X = np.random.default_rng(0).normal(size=(9, 4))
    for k in VECTOR_PD:
        K = k(X, X)
        assert np.array_equal(K, K.T)


def test_squared_distance_diagonal_exactly_zero_and_gaussian_diagonal_exactly_one():
    """Reference: closed form, ||x - x||^2 = 0 and exp(0) = 1 exactly."""
    X = np.random.default_rng(1).normal(loc=1e3, size=(20, 3))
    assert np.all(np.diag(km.squared_distance()(X)) == 0.0)
    assert np.all(np.diag(km.gaussian(0.3)(X)) == 1.0)
    assert np.all(np.diag(km.matern(7.3, 0.3)(X)) == 1.0)
    assert np.all(km.squared_distance()(X) >= 0.0)


def test_one_dimensional_input_read_as_points():
    """Reference: the check_matrix convention, a 1-D array of length n = n points in R^1."""
    x = np.array([0.0, 0.5, 2.0])
    k = km.gaussian(1.0)
    assert np.array_equal(k(x), k(x[:, None]))
    assert k(x, np.array([1.0])).shape == (3, 1)


# ---------------------------------------------------------------------------
# agreement with scikit-learn
# ---------------------------------------------------------------------------
@pytest.fixture
def xy():
    rng = np.random.default_rng(42)
    return rng.normal(size=(12, 3)), rng.normal(size=(7, 3))


def test_linear_matches_sklearn(xy):
    X, Y = xy
    np.testing.assert_allclose(km.linear()(X, Y), pairwise.linear_kernel(X, Y), rtol=1e-13,
                               atol=1e-13)


def test_polynomial_matches_sklearn(xy):
    X, Y = xy
    ref = pairwise.polynomial_kernel(X, Y, degree=3, gamma=1.0, coef0=0.7)
    np.testing.assert_allclose(km.polynomial(3, c=0.7)(X, Y), ref, rtol=1e-12)


def test_gaussian_matches_sklearn_rbf(xy):
    X, Y = xy
    sigma = 0.8
    ref = pairwise.rbf_kernel(X, Y, gamma=1.0 / (2 * sigma**2))
    np.testing.assert_allclose(km.gaussian(sigma)(X, Y), ref, rtol=1e-12, atol=1e-15)


def test_laplacian_matches_sklearn_in_one_dimension():
    """sklearn's laplacian_kernel uses the l1 norm; in d = 1 both norms agree."""
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=(10, 1)), rng.normal(size=(6, 1))
    np.testing.assert_allclose(km.laplacian(1.7)(x, y),
                               pairwise.laplacian_kernel(x, y, gamma=1.7), rtol=1e-12)


def test_laplacian_uses_euclidean_norm_brute_force(xy):
    """Reference: a double loop with np.linalg.norm (l2), and a check that l1 differs."""
    X, Y = xy
    gamma = 0.9
    ref = np.array([[math.exp(-gamma * np.linalg.norm(x - y)) for y in Y] for x in X])
    K = km.laplacian(gamma)(X, Y)
    np.testing.assert_allclose(K, ref, rtol=1e-12)
    assert np.abs(K - pairwise.laplacian_kernel(X, Y, gamma=gamma)).max() > 1e-2


def test_laplacian_in_one_dimension_is_matern_half():
    """Reference: closed form, Matern nu = 1/2 with length scale 1/gamma is exp(-gamma |r|)."""
    x = np.linspace(-2, 2, 11)
    np.testing.assert_allclose(km.laplacian(2.0)(x), km.matern(0.5, 0.5)(x), rtol=1e-14)


def test_sigmoid_matches_sklearn(xy):
    X, Y = xy
    ref = pairwise.sigmoid_kernel(X, Y, gamma=0.4, coef0=-0.3)
    np.testing.assert_allclose(km.sigmoid(0.4, -0.3)(X, Y), ref, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("nu", [0.5, 1.5, 2.5, 0.8, 7.3, 1.0, 31.0])
def test_matern_matches_sklearn(nu, xy):
    X, Y = xy
    ref = Matern(length_scale=0.7, nu=nu)(X, Y)
    np.testing.assert_allclose(km.matern(nu, 0.7)(X, Y), ref, rtol=1e-11, atol=1e-14)
    ref_xx = Matern(length_scale=0.7, nu=nu)(X)
    np.testing.assert_allclose(km.matern(nu, 0.7)(X), ref_xx, rtol=1e-11, atol=1e-14)


# ---------------------------------------------------------------------------
# brute-force references
# ---------------------------------------------------------------------------
def test_exponential_and_squared_distance_brute_force(xy):
    """Reference: double loops with math.exp and explicit differences."""
    X, Y = xy
    ref_e = np.array([[math.exp(float(x @ y) / 1.5**2) for y in Y] for x in X])
    ref_d = np.array([[float(np.sum((x - y) ** 2)) for y in Y] for x in X])
    np.testing.assert_allclose(km.exponential(1.5)(X, Y), ref_e, rtol=1e-13)
    np.testing.assert_allclose(km.squared_distance()(X, Y), ref_d, rtol=1e-12, atol=1e-12)


def test_squared_distance_accurate_far_from_origin():
    """Reference: brute-force differences on data shifted far from the origin."""
    rng = np.random.default_rng(5)
    X = 1e4 + rng.normal(size=(6, 2))
    ref = np.array([[float(np.sum((a - b) ** 2)) for b in X] for a in X])
    np.testing.assert_allclose(km.squared_distance()(X), ref, rtol=1e-9, atol=1e-9)


def test_sobolev1_is_min_brute_force():
    rng = np.random.default_rng(6)
    x, y = rng.uniform(size=7), rng.uniform(size=5)
    ref = np.array([[min(a, b) for b in y] for a in x])
    assert np.array_equal(km.sobolev1()(x, y), ref)


def test_sobolev2_matches_quadrature():
    """Reference: scipy.integrate.quad of (x - u)(x' - u) over [0, min(x, x')]."""
    rng = np.random.default_rng(7)
    x = np.concatenate([[0.0, 0.3, 1.0], rng.uniform(size=5)])
    y = np.concatenate([[0.8, 0.0], rng.uniform(size=4)])
    ref = np.array([[integrate.quad(lambda u, a=a, b=b: (a - u) * (b - u), 0.0, min(a, b),
                                    epsabs=1e-15, epsrel=1e-13)[0] for b in y] for a in x])
    np.testing.assert_allclose(km.sobolev2()(x, y), ref, rtol=1e-12, atol=1e-15)


def _sets(A):
    return [set(np.flatnonzero(row).tolist()) for row in A]


@FAST
@given(A=set_rows, data=st.data())
def test_set_kernels_match_python_sets(A, data):
    """Reference: |A & B| / |A | B| (0/0 := 1) and base ** |A & B| with Python sets."""
    B = data.draw(arrays(np.bool_, st.tuples(st.integers(1, 6), st.just(A.shape[1]))))
    SA, SB = _sets(A), _sets(B)
    jac = np.array([[len(a & b) / len(a | b) if a | b else 1.0 for b in SB] for a in SA])
    pw = np.array([[1.5 ** len(a & b) for b in SB] for a in SA])
    np.testing.assert_allclose(km.jaccard()(A, B), jac, rtol=1e-15)
    np.testing.assert_allclose(km.intersection_power(1.5)(A, B), pw, rtol=1e-14)
    np.testing.assert_allclose(km.intersection_power()(A.astype(int)),
                               [[2.0 ** len(a & b) for b in SA] for a in SA], rtol=1e-15)


# ---------------------------------------------------------------------------
# Matern: large nu, the r = 0 value and the Gaussian limit
# ---------------------------------------------------------------------------
def _matern_by_quadrature(nu: float, z: float) -> float:
    """Independent reference for the Matern value at scaled distance z > 0.

    Uses the integral representation K_nu(z) = int_0^inf exp(-z cosh t) cosh(nu t) dt,
    integrated with scipy.integrate.quad after factoring out the peak of the
    integrand (log domain, so nu = 400 does not overflow).
    """
    def f(t):
        return -z * math.cosh(t) + nu * t + math.log1p(math.exp(-2 * nu * t)) - math.log(2)

    t_star = math.asinh(nu / z)
    peak = f(t_star)
    parts = [integrate.quad(lambda t: math.exp(f(t) - peak), a, b, epsabs=0, epsrel=1e-13,
                            limit=200)[0]
             for a, b in [(0.0, t_star), (t_star, t_star + 1.0), (t_star + 1.0, t_star + 10.0)]]
    log_kv = peak + math.log(sum(parts))
    log_k = (1 - nu) * math.log(2) - special.gammaln(nu) + nu * math.log(z) + log_kv
    return math.exp(log_k)


@pytest.mark.parametrize("nu", [7.3, 150.5, 400.0])
def test_matern_large_nu_matches_integral_representation(nu):
    ell = 0.9
    r = np.array([0.01, 0.1, 0.5, 1.0, 2.0, 3.0])
    ours = km.matern(nu, ell)(r, np.zeros(1))[:, 0]
    ref = [_matern_by_quadrature(nu, math.sqrt(2 * nu) * ri / ell) for ri in r]
    assert np.all(np.isfinite(ours))
    np.testing.assert_allclose(ours, ref, rtol=1e-9, atol=1e-300)


@pytest.mark.parametrize("nu", [0.3, 0.5, 1.5, 2.5, 7.3, 400.0])
def test_matern_equals_one_at_zero_distance(nu):
    """Reference: closed form, the Matern correlation is 1 at r = 0."""
    x = np.array([[0.2, -1.0], [0.2, -1.0]])
    assert np.array_equal(km.matern(nu, 0.5)(x), np.ones((2, 2)))
    assert np.array_equal(km.matern(nu, 0.5).diag(x), np.ones(2))


def test_matern_approaches_gaussian_monotonically():
    """Reference: the limit theorem, Matern(nu, l) -> Gaussian(sigma = l) as nu -> inf."""
    ell = 0.7
    r = np.linspace(0.0, 3.0, 301)
    gauss = np.exp(-(r**2) / (2 * ell**2))
    sup = []
    for nu in [10.0, 50.0, 400.0]:
        m = km.matern(nu, ell)(r, np.zeros(1))[:, 0]
        assert np.all(np.isfinite(m))
        sup.append(np.abs(m - gauss).max())
    assert sup[0] > sup[1] > sup[2]
    assert sup[2] < 1e-3


def test_matern_general_formula_agrees_with_closed_forms_nearby():
    """Reference: continuity in nu; the Bessel path at nu = 2.5 +- 1e-9 meets the closed form."""
    x = np.linspace(0, 3, 40)
    closed = km.matern(2.5, 0.7)(x)
    for nu in (2.5 - 1e-9, 2.5 + 1e-9):
        np.testing.assert_allclose(km.matern(nu, 0.7)(x), closed, atol=1e-8)


# ---------------------------------------------------------------------------
# normalisation
# ---------------------------------------------------------------------------
@FAST
@given(X=points, sigma=st.floats(0.5, 3.0))
def test_normalised_exponential_is_gaussian(X, sigma):
    """Reference: closed form, exp(x.x'/s^2)/sqrt(exp(|x|^2/s^2) exp(|x'|^2/s^2))
    = exp(-|x - x'|^2 / (2 s^2))."""
    Y = X[::-1] + 0.25
    k = km.exponential(sigma).normalized()
    np.testing.assert_allclose(k(X), km.gaussian(sigma)(X), rtol=0, atol=1e-14)
    np.testing.assert_allclose(k(X, Y), km.gaussian(sigma)(X, Y), rtol=0, atol=1e-14)


def test_normalised_kernel_zero_where_diagonal_is_zero():
    """Reference: the definition, with k'(x, x') := 0 when k(x, x) = 0."""
    X = np.array([[0.0, 0.0], [1.0, 2.0], [-3.0, 0.5]])
    k = km.polynomial(2, c=0.0).normalized()
    K = k(X)
    assert np.array_equal(K[0], np.zeros(3)) and np.array_equal(K[:, 0], np.zeros(3))
    assert np.array_equal(np.diag(K), [0.0, 1.0, 1.0])
    cos = (X[1] @ X[2]) / (np.linalg.norm(X[1]) * np.linalg.norm(X[2]))
    np.testing.assert_allclose(K[1, 2], cos**2, rtol=1e-14)


# ---------------------------------------------------------------------------
# closure rules and their failure with a negative coefficient
# ---------------------------------------------------------------------------
def test_combinations_are_the_pointwise_operations(xy):
    """Reference: the definitions of +, scaling, product, power on Gram matrices."""
    X, Y = xy
    g, p = km.gaussian(1.0), km.polynomial(2)
    G, P = g(X, Y), p(X, Y)
    np.testing.assert_allclose((g + p)(X, Y), G + P, rtol=1e-15)
    np.testing.assert_allclose((3.0 * g)(X, Y), 3.0 * G, rtol=1e-15)
    np.testing.assert_allclose((g * 3.0)(X, Y), 3.0 * G, rtol=1e-15)
    np.testing.assert_allclose((np.float64(3.0) * g)(X, Y), 3.0 * G, rtol=1e-15)
    np.testing.assert_allclose((g * p)(X, Y), G * P, rtol=1e-15)
    np.testing.assert_allclose((p**3)(X, Y), P**3, rtol=1e-14)


def test_negative_coefficient_breaks_psd():
    """Reference: Rayleigh quotient, lambda_min(K) <= K_ii; at x = (2, 0) the Gram
    diagonal of gaussian - linear is 1 - |x|^2 = -3."""
    X = np.array([[2.0, 0.0], [0.0, 0.5], [-1.0, 1.0]])
    K = km.gaussian(1.0)(X) - km.linear()(X)
    assert K[0, 0] == pytest.approx(-3.0)
    assert np.linalg.eigvalsh(K)[0] <= -3.0
    assert not km.is_psd(K)
    # the same combination with non-negative weights stays PSD
    assert km.is_psd((km.gaussian(1.0) + km.linear())(X))


# ---------------------------------------------------------------------------
# sigmoid is not PD
# ---------------------------------------------------------------------------
def test_sigmoid_two_point_counterexample():
    """Reference: closed form, det [[tanh 1, tanh 2], [tanh 2, tanh 4]] < 0."""
    x = np.array([1.0, 2.0])
    K = km.sigmoid(1.0, 0.0)(x)
    det = math.tanh(1) * math.tanh(4) - math.tanh(2) ** 2
    assert det < -0.16
    assert np.linalg.det(K) == pytest.approx(det, rel=1e-12)
    assert np.linalg.eigvalsh(K)[0] < -0.05
    assert not km.is_psd(K)
    with pytest.raises(ValueError, match="positive semi-?definite"):
        km.empirical_feature_map(K)


# ---------------------------------------------------------------------------
# chapter 10: negative-definite kernels
# ---------------------------------------------------------------------------
def test_squared_distance_is_nds_by_the_expansion_identity():
    """Reference: sum c_i c_j |x_i - x_j|^2 = -2 |sum c_i x_i|^2 when sum c = 0."""
    rng = np.random.default_rng(11)
    X = rng.normal(size=(20, 3))
    D = km.squared_distance()(X)
    for _ in range(5):
        c = rng.normal(size=20)
        c -= c.mean()
        assert c @ D @ c == pytest.approx(-2 * np.sum((c @ X) ** 2), rel=1e-10)
    assert km.is_nds(D)
    assert not km.is_psd(D)
    assert not km.is_nds(-D)


def test_is_nds_on_constructed_matrices():
    """Reference: closed form, u 1^T + 1 u^T - P is NDS for PSD P; adding v v^T with v
    not parallel to 1 is not (c = v - mean(v) gives c^T K c > 0)."""
    rng = np.random.default_rng(12)
    n = 9
    u = rng.normal(size=n)
    A = rng.normal(size=(n, 4))
    one = np.ones(n)
    base = np.outer(u, one) + np.outer(one, u)
    assert km.is_nds(base - A @ A.T)
    assert km.is_nds(base)
    v = rng.normal(size=n)
    assert not km.is_nds(base - A @ A.T + 5 * np.outer(v, v))
    assert km.is_nds(np.zeros((1, 1)) + 3.0)


def test_euclidean_distance_is_nds_schoenberg():
    """Reference: Schoenberg, ||x - x'||^p is NDS for 0 < p <= 2, not for p = 4."""
    x = np.linspace(0.0, 3.0, 15)
    R = np.abs(x[:, None] - x[None, :])
    assert km.is_nds(R)
    assert km.is_nds(np.sqrt(R))
    assert not km.is_nds(R**4)


@pytest.mark.parametrize("t", [0.01, 0.1, 1.0, 10.0, 100.0])
def test_exp_of_minus_nds_is_psd(t):
    """Reference: Schoenberg's theorem, k NDS => exp(-t k) PSD for every t > 0."""
    X = np.random.default_rng(13).normal(size=(25, 2))
    K = np.exp(-t * km.squared_distance()(X))
    assert _min_eig_ok(K) and km.is_psd(K)


def test_pds_from_nds_of_squared_distance_is_twice_the_inner_product():
    """Reference: closed form, |x-x0|^2 + |x'-x0|^2 - |x-x'|^2 - 0 = 2 (x-x0).(x'-x0)."""
    rng = np.random.default_rng(14)
    X, Y = rng.normal(size=(10, 3)), rng.normal(size=(4, 3))
    k0 = km.pds_from_nds(km.squared_distance(), np.zeros(3))
    np.testing.assert_allclose(k0(X, Y), 2 * X @ Y.T, atol=1e-12)
    np.testing.assert_allclose(k0(X), 2 * X @ X.T, atol=1e-12)
    x0 = np.array([0.5, -1.0, 2.0])
    k1 = km.pds_from_nds(km.squared_distance(), x0)
    np.testing.assert_allclose(k1(X, Y), 2 * (X - x0) @ (Y - x0).T, atol=1e-11)
    assert np.array_equal(k1(X), k1(X).T) and km.is_psd(k1(X))


def test_pds_from_nds_detects_a_kernel_that_is_not_nds():
    """Reference: NDS <-> PDS theorem; |x - x'|^4 is not NDS, so k' is not PSD."""
    x = np.linspace(0.0, 3.0, 15)
    quartic = km.squared_distance() ** 2
    Kp = km.pds_from_nds(quartic, x[0])(x)
    assert np.linalg.eigvalsh(Kp)[0] < -1.0
    assert not km.is_psd(Kp)
    assert km.is_psd(km.pds_from_nds(km.squared_distance(), x[0])(x))


def test_pds_from_nds_uses_k_x0_x0_not_the_misprint():
    """Reference: the four-term formula with last term k(x0, x0), evaluated by brute force."""
    k = km.gaussian(1.0) + km.linear()  # any symmetric kernel with k(x0, x0) != k(x, x0)
    x0 = np.array([0.3, 0.4])
    X = np.random.default_rng(15).normal(size=(5, 2))
    ref = np.array([[float(k(a[None], x0[None])[0, 0] + k(b[None], x0[None])[0, 0]
                           - k(a[None], b[None])[0, 0] - k(x0[None])[0, 0]) for b in X]
                    for a in X])
    np.testing.assert_allclose(km.pds_from_nds(k, x0)(X), ref, rtol=1e-12, atol=1e-14)


# ---------------------------------------------------------------------------
# empirical feature map
# ---------------------------------------------------------------------------
def test_empirical_feature_map_reproduces_full_rank_gram():
    """Reference: the defining identity Phi Phi^T = K."""
    X = np.random.default_rng(16).normal(size=(8, 2))
    K = km.gaussian(1.0)(X)
    Phi = km.empirical_feature_map(K)
    assert Phi.shape == (8, 8)
    np.testing.assert_allclose(Phi @ Phi.T, K, atol=1e-13)


def test_empirical_feature_map_rank_deficient_duplicated_point():
    """Reference: a duplicated point makes rank(K) = n - 1; Phi Phi^T = K still holds."""
    X = np.random.default_rng(17).normal(size=(8, 2))
    X = np.vstack([X, X[3]])
    K = km.gaussian(1.0)(X)
    Phi = km.empirical_feature_map(K)
    assert Phi.shape == (9, 8)
    np.testing.assert_allclose(Phi @ Phi.T, K, atol=1e-13)
    np.testing.assert_allclose(Phi[3], Phi[8], atol=1e-12)


def test_empirical_feature_map_of_linear_gram_has_input_rank():
    """Reference: rank(X X^T) = rank(X) = 3 for 10 generic points in R^3."""
    X = np.random.default_rng(18).normal(size=(10, 3))
    Phi = km.empirical_feature_map(km.linear()(X))
    assert Phi.shape == (10, 3)
    np.testing.assert_allclose(Phi @ Phi.T, X @ X.T, atol=1e-12)


# ---------------------------------------------------------------------------
# is_psd on hand-made matrices, diag, repr
# ---------------------------------------------------------------------------
def test_is_psd_on_hand_made_matrices():
    """Reference: eigenvalues of diagonal matrices are their entries."""
    assert km.is_psd(np.diag([1.0, 0.0]))
    assert not km.is_psd(np.diag([1.0, -1e-3]))
    assert km.is_psd(np.diag([1.0, -1e-3]), tol=1e-2)
    v = np.random.default_rng(19).normal(size=30)
    assert km.is_psd(1e6 * np.outer(v, v))  # rank one: round-off eigenvalues tolerated
    assert km.is_psd(np.zeros((3, 3)))


def test_default_tolerance_is_the_documented_formula():
    """Reference: the documented default tol = 10 n eps max(1, ||K||_2)."""
    eps = np.finfo(float).eps
    tol = 10 * 2 * eps * 1.0
    assert km.is_psd(np.diag([1.0, -0.9 * tol]))
    assert not km.is_psd(np.diag([1.0, -1.1 * tol]))
    big = 1e4  # the scale factor follows ||K||_2 above 1
    assert km.is_psd(np.diag([big, -0.9 * tol * big]))
    assert not km.is_psd(np.diag([big, -1.1 * tol * big]))


ALL_KERNELS = [
    (k, "vec") for k in VECTOR_PD + VECTOR_COMBOS
    + [km.sigmoid(0.5, -0.2), km.squared_distance(), km.sigmoid(1.0, -3.0).normalized(),
       km.pds_from_nds(km.squared_distance(), [0.1, 0.2, 0.3])]
] + [(k, "unit") for k in UNIT_PD] + [(k, "set") for k in SET_PD]


@pytest.mark.parametrize("k,kind", ALL_KERNELS, ids=lambda v: repr(v) if not isinstance(v, str)
                         else v)
def test_diag_equals_diagonal_of_gram(k, kind):
    """Reference: np.diag of the full Gram matrix."""
    rng = np.random.default_rng(20)
    X = {"vec": rng.normal(size=(9, 3)), "unit": rng.uniform(size=9),
         "set": rng.integers(0, 2, size=(9, 5))}[kind]
    if kind == "set":
        X[0] = 0  # the empty set
    d = k.diag(X)
    assert d.shape == (9,)
    np.testing.assert_allclose(d, np.diag(k(X)), rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("k,kind", ALL_KERNELS, ids=lambda v: repr(v) if not isinstance(v, str)
                         else v)
def test_paired_values_equal_the_diagonal_of_the_gram_matrix(k, kind):
    """Reference: np.diag of the Gram matrix k(X, Y), the values k(x_i, y_i).  Every kernel
    here evaluates paired rows (what mmd2_linear uses)."""
    rng = np.random.default_rng(21)
    X, Y = ({"vec": rng.normal(size=(2, 9, 3)), "unit": rng.uniform(size=(2, 9, 1)),
             "set": rng.integers(0, 2, size=(2, 9, 5)).astype(float)}[kind])
    if kind == "set":
        X[0] = Y[0] = Y[1] = 0   # the empty set, against itself and another set
    p = k._paired(X, Y)
    assert p is not None and p.shape == (9,)
    # (rounding: the Gram matrix takes squared distances from |x|^2 + |y|^2 - 2 x.y)
    np.testing.assert_allclose(p, np.diag(k(X, Y)), rtol=1e-12, atol=1e-14)


def test_repr():
    """Reference: the documented reprs."""
    assert repr(km.gaussian(sigma=0.5)) == "gaussian(sigma=0.5)"
    assert repr(km.linear() + 2.0 * km.gaussian(sigma=1.0)) == \
        "(linear() + 2.0 * gaussian(sigma=1.0))"
    assert repr(km.matern(2.5, 1)) == "matern(nu=2.5, length_scale=1.0)"
    assert repr((2 * km.linear()) ** 3) == "(2.0 * linear()) ** 3"
    assert repr(km.polynomial(2).normalized()) == "polynomial(degree=2, c=1.0).normalized()"
    assert repr(km.jaccard() * km.intersection_power()) == \
        "(jaccard() * intersection_power(base=2.0))"


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("bad,match", [
    (np.array([[0.0, np.nan]]), "NaN or infinite"),
    (np.array([[np.inf, 1.0]]), "NaN or infinite"),
    (np.zeros((2, 2, 2)), "ndim=3"),
    (np.zeros((0, 2)), "empty"),
    (np.zeros((2, 0)), "empty"),
    ("abc", "numeric"),
])
def test_bad_data_rejected(bad, match):
    for k in (km.gaussian(1.0), km.linear() + km.matern(0.8, 1.0)):
        with pytest.raises(ValueError, match=match):
            k(bad)
        with pytest.raises(ValueError, match=match):
            k(np.zeros((2, 2)), bad)
        with pytest.raises(ValueError, match=match):
            k.diag(bad)


def test_mismatched_feature_dimensions():
    with pytest.raises(ValueError, match="same number of features"):
        km.linear()(np.zeros((3, 2)), np.zeros((3, 3)))
    with pytest.raises(ValueError, match="same number of features"):
        km.matern(2.5, 1.0)(np.zeros(3), np.zeros((3, 2)))


@pytest.mark.parametrize("make,match", [
    (lambda: km.gaussian(0.0), "sigma must be > 0"),
    (lambda: km.gaussian(-1.0), "sigma must be > 0"),
    (lambda: km.gaussian(np.nan), "sigma must be finite"),
    (lambda: km.exponential(0.0), "sigma must be > 0"),
    (lambda: km.laplacian(0.0), "gamma must be > 0"),
    (lambda: km.laplacian(-2.0), "gamma must be > 0"),
    (lambda: km.matern(0.0, 1.0), "nu must be > 0"),
    (lambda: km.matern(-0.5, 1.0), "nu must be > 0"),
    (lambda: km.matern(1.5, 0.0), "length_scale must be > 0"),
    (lambda: km.matern(np.inf, 1.0), "nu must be finite"),
    (lambda: km.polynomial(0), "degree must be >= 1"),
    (lambda: km.polynomial(1.5), "degree must be an integer"),
    (lambda: km.polynomial(2, c=-1.0), "c must be >= 0"),
    (lambda: km.intersection_power(0.5), "base must be >= 1"),
    (lambda: km.intersection_power(-1.0), "base must be >= 1; got -1.0"),
    (lambda: km.sigmoid(np.nan, 0.0), "a must be finite"),
    (lambda: km.sigmoid(1.0, "x"), "b must be a real number"),
    (lambda: -1.0 * km.gaussian(1.0), "scalar multiplier c must be >= 0"),
    (lambda: km.gaussian(1.0) * -0.5, "scalar multiplier c must be >= 0"),
    (lambda: km.gaussian(1.0) ** 2.5, "exponent m must be an integer"),
    (lambda: km.gaussian(1.0) ** 2.0, "exponent m must be an integer"),
    (lambda: km.gaussian(1.0) ** 0, "exponent m must be >= 1"),
])
def test_bad_parameters(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_adding_a_non_kernel_is_a_type_error():
    with pytest.raises(TypeError):
        km.linear() + 1.0
    with pytest.raises(TypeError):
        km.linear() * "a"


@pytest.mark.parametrize("k", [km.jaccard(), km.intersection_power()], ids=repr)
def test_invalid_set_rows(k):
    with pytest.raises(ValueError, match="0/1"):
        k(np.array([[1, 0, 2]]))
    with pytest.raises(ValueError, match="0/1"):
        k(np.array([[1, 0, 1]]), np.array([[0.5, 0, 1]]))
    with pytest.raises(ValueError, match="ndim=1"):
        k(np.array([1, 0, 1]))


@pytest.mark.parametrize("k", [km.sobolev1(), km.sobolev2(), km.sobolev1() + km.gaussian(1.0)],
                         ids=repr)
def test_sobolev_domain(k):
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        k(np.array([0.5, 1.5]))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        k(np.array([0.5]), np.array([-0.1]))
    with pytest.raises(ValueError, match="one column"):
        k(np.full((3, 2), 0.5))


def test_overflow_is_reported():
    with pytest.raises(ValueError, match="overflow"):
        km.exponential(0.01)(np.array([[10.0]]))
    with pytest.raises(ValueError, match="overflow"):
        km.exponential(0.01).diag(np.array([[10.0]]))


@pytest.mark.parametrize("fn", [km.is_psd, km.is_nds, km.empirical_feature_map])
def test_spectral_functions_bad_input(fn):
    with pytest.raises(ValueError, match="square"):
        fn(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="symmetric"):
        fn(np.array([[1.0, 0.5], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="NaN"):
        fn(np.array([[1.0, np.nan], [np.nan, 1.0]]))
    with pytest.raises(ValueError, match="ndim"):
        fn(np.ones(3))
    with pytest.raises(ValueError, match="tol must be >= 0"):
        fn(np.eye(2), tol=-1.0)


def test_pds_from_nds_bad_input():
    sq = km.squared_distance()
    with pytest.raises(ValueError, match="must be an instance of kmlib.kernels.Kernel"):
        km.pds_from_nds(lambda X, Y: X @ Y.T, 0.0)
    with pytest.raises(ValueError, match="single point"):
        km.pds_from_nds(sq, np.zeros((2, 3)))
    with pytest.raises(ValueError, match="NaN"):
        km.pds_from_nds(sq, [0.0, np.nan])
    with pytest.raises(ValueError, match="X and x0 must have the same number of features"):
        km.pds_from_nds(sq, [0.0, 1.0])(np.zeros((3, 3)))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        km.pds_from_nds(km.sobolev1(), 2.0)


# ---------------------------------------------------------------------------
# tiled evaluation of large Gram matrices
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("k", [
    km.gaussian(0.8),
    km.polynomial(3).normalized(),
    km.matern(1.3, 0.5),
    km.linear() + 2.0 * km.laplacian(1.5),
])
def test_tiled_gram_equals_one_shot_formula_and_is_exactly_symmetric(k):
    """Reference: the kernel's own formula evaluated on the whole arrays at once."""
    rng = np.random.default_rng(7)
    X = rng.standard_normal((600, 3))        # > 2 tiles per side
    Y = rng.standard_normal((530, 3))
    G = k(X)
    assert np.array_equal(G, G.T)
    with np.errstate(over="ignore", invalid="ignore"):
        np.testing.assert_allclose(G, k._gram(X, X), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(k(X, Y), k._gram(X, Y), rtol=1e-12, atol=1e-12)
    assert k(X, Y).shape == (600, 530)


@pytest.mark.parametrize("n, b", [(1, 64), (150, 64), (362, 64), (200, 7)])
def test_blockwise_symmetrization_gives_the_bits_of_the_whole_matrix_formula(n, b):
    """Reference: ``0.5 * T + 0.5 * T.T`` on the whole matrix (sizes that are not multiples
    of the block, a single entry); the result is exactly symmetric."""
    from kmlib.kernels.base import _symmetrize

    T = np.random.default_rng(n).standard_normal((n, n)) * 10.0 ** np.arange(-3, 4)[n % 7]
    ref = 0.5 * T + 0.5 * T.T
    out = _symmetrize(T.copy(), b)
    assert np.array_equal(out, ref)
    assert np.array_equal(out, out.T)


def test_tiles_computed_by_a_pool_of_threads_give_the_same_matrix(monkeypatch):
    """The pool of threads (used from 32 tiles on) fills the matrix tile by tile as one
    thread does: the same bits, whatever the number of threads."""
    import threadpoolctl

    import kmlib.kernels.base as base
    rng = np.random.default_rng(9)
    X, Y = rng.standard_normal((900, 3)), rng.standard_normal((700, 3))
    k = km.gaussian(0.8) + km.polynomial(2)
    alone = k(X), k(X, Y)
    monkeypatch.setattr(base, "_THREADED_TILES", 1)
    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):
        assert base.blas_threads() == 2
        pooled = k(X), k(X, Y)
    for a, b in zip(alone, pooled, strict=True):
        assert np.array_equal(a, b)


def test_tiled_gram_matches_scikit_learn_rbf_on_a_large_sample():
    """Reference: scikit-learn's rbf_kernel (gamma = 1/(2 sigma^2))."""
    X = np.random.default_rng(8).standard_normal((1100, 5))
    np.testing.assert_allclose(km.gaussian(1.7)(X), pairwise.rbf_kernel(X, gamma=1 / (2 * 1.7**2)),
                               rtol=1e-12, atol=1e-14)


def _matern_half_integer_closed_form(p: int, r: np.ndarray) -> np.ndarray:
    """Matern kernel with nu = p + 1/2 (unit length scale) from its closed form
    exp(-x) p!/(2p)! sum_i (p+i)!/(i!(p-i)!) (2x)^(p-i), x = sqrt(2 nu) r, summed in logs."""
    from scipy.special import gammaln, logsumexp

    x = np.sqrt(2.0 * (p + 0.5)) * r
    i = np.arange(p + 1)
    terms = (gammaln(p + i + 1) - gammaln(i + 1) - gammaln(p - i + 1)
             + (p - i)[None, :] * np.log(2.0 * x)[:, None])
    return np.exp(-x + gammaln(p + 1) - gammaln(2 * p + 1) + logsumexp(terms, axis=1))


@pytest.mark.parametrize("p", [1000, 2000])
def test_matern_large_nu_matches_half_integer_closed_form(p):
    """Reference: the closed form for half-integer nu (a finite sum), against the asymptotic
    (Debye) evaluation used from nu = 1000 on."""
    r = np.array([1e-3, 0.1, 0.7, 1.5, 3.0, 6.0])
    K = km.matern(p + 0.5, 1.0)(np.r_[0.0, r][:, None])[0, 1:]
    np.testing.assert_allclose(K, _matern_half_integer_closed_form(p, r), rtol=0, atol=1e-10)


def test_matern_recurrence_and_asymptotic_agree_at_the_switch():
    """Second algorithm: the Bessel recurrence at nu = 999.999 and the asymptotic expansion at
    nu = 1000 differ by the tiny change in nu only."""
    x = np.linspace(0.0, 4.0, 41)[:, None]
    a = km.matern(999.999, 1.3)(x)
    b = km.matern(1000.0, 1.3)(x)
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-8)


def test_matern_huge_nu_is_the_gaussian_and_returns_at_once():
    """Reference: the limit nu -> infinity is the Gaussian kernel exp(-r^2 / (2 l^2)); the
    difference is O(1/nu).  nu = 1e6 used to take seconds and 1e300 never returned."""
    import time

    x = np.linspace(-2.0, 2.0, 30)[:, None]
    G = km.gaussian(0.7)(x)
    t0 = time.perf_counter()
    K300 = km.matern(1e300, 0.7)(x)
    K6 = km.matern(1e6, 0.7)(x)
    assert time.perf_counter() - t0 < 1.0
    np.testing.assert_allclose(K300, G, rtol=0, atol=1e-15)
    np.testing.assert_allclose(K6, G, rtol=0, atol=1e-5)


def test_gaussian_and_exponential_extreme_bandwidths():
    """Closed forms of the limits: sigma -> infinity gives the constant 1 (Gaussian and
    exponential), sigma -> 0 gives the identity for distinct points (Gaussian)."""
    x = np.array([0.0, 1.0, 2.5])
    np.testing.assert_array_equal(km.gaussian(1e300)(x), np.ones((3, 3)))
    np.testing.assert_array_equal(km.gaussian(1e-300)(x), np.eye(3))
    np.testing.assert_array_equal(km.exponential(1e300)(x), np.ones((3, 3)))
    with pytest.raises(ValueError, match="overflow"):
        km.exponential(1e-300)(x)
