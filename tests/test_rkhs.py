"""Tests for kmlib.book.rkhs (chapter "Reproducing kernel Hilbert spaces").

Each test names the independent reference it trusts: a closed form, a second
algorithm (pseudoinverse, least squares, dense quadrature), or a theorem's
identity (reproducing property, Pythagoras for projections).
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate

from kmlib import kernels
from kmlib.book import rkhs, theory


def test_finite_norm_matches_pinv_and_min_norm_features():
    """References: numpy's pinv, and the min-norm least-squares feature vector."""
    B = np.random.default_rng(0).standard_normal((7, 3))
    K = B @ B.T
    f = K @ np.random.default_rng(1).standard_normal(7)
    n2 = rkhs.finite_rkhs_norm2(f, K)
    assert np.isclose(n2, f @ np.linalg.pinv(K) @ f, rtol=1e-9)
    Phi = kernels.empirical_feature_map(K)
    beta = np.linalg.lstsq(Phi, f, rcond=None)[0]
    assert np.isclose(n2, beta @ beta, rtol=1e-9)


def test_finite_inner_reproduces_values():
    """Reproducing property <K_i, f> = f_i (closed form K K^+ K = K)."""
    B = np.random.default_rng(2).standard_normal((5, 2))
    K = B @ B.T
    f = K @ np.arange(5.0)
    vals = [rkhs.finite_rkhs_inner(K[:, i], f, K) for i in range(5)]
    assert np.allclose(vals, f, rtol=1e-10, atol=1e-12)


def test_finite_norm_rejects_function_outside_the_rkhs():
    K = np.diag([1.0, 2.0, 0.0])
    with pytest.raises(ValueError, match="column space"):
        rkhs.finite_rkhs_norm2([0.0, 0.0, 1.0], K)
    with pytest.raises(ValueError, match="positive semidefinite"):
        rkhs.finite_rkhs_norm2([1.0, 0.0], np.diag([1.0, -1.0]))


def test_expansion_inner_is_alpha_K_beta_and_values_reproduce():
    """Closed form: <k(.,x), f> = f(x) (the reproducing property)."""
    k = kernels.gaussian(0.7)
    rng = np.random.default_rng(3)
    X, a = rng.standard_normal((4, 2)), rng.standard_normal(4)
    x = rng.standard_normal((6, 2))
    vals = rkhs.expansion_values(k, X, a, x)
    inner = [rkhs.expansion_inner(k, x[i:i + 1], [1.0], X, a) for i in range(6)]
    assert np.allclose(vals, inner, rtol=1e-12)
    with pytest.raises(ValueError, match="one coefficient per row"):
        rkhs.expansion_values(k, X, a[:3], x)


def test_projection_is_orthogonal_and_satisfies_pythagoras():
    """Theorem: f - Pf is orthogonal to every k(., z_j), and ||f||^2 = ||Pf||^2 + ||f - Pf||^2."""
    k = kernels.gaussian(0.5)
    rng = np.random.default_rng(4)
    X, a, Z = rng.uniform(0, 1, 6), rng.standard_normal(6), rng.uniform(0, 1, 3)
    c = rkhs.project(k, X, a, Z)
    XZ, ac = np.r_[X, Z], np.r_[a, -c]
    for z in Z:
        assert abs(rkhs.expansion_inner(k, XZ, ac, [z], [1.0])) < 1e-10
    n_f = rkhs.expansion_inner(k, X, a, X, a)
    n_p = rkhs.expansion_inner(k, Z, c, Z, c)
    n_r = rkhs.expansion_inner(k, XZ, ac, XZ, ac)
    assert np.isclose(n_f, n_p + n_r, rtol=1e-9)
    with pytest.raises(ValueError, match="positive definite"):
        rkhs.project(k, X, a, [0.3, 0.3])


def test_min_kernel_eigenfunctions_solve_the_integral_equation():
    """Closed form: int_0^1 min(x, y) e_j(y) dy = mu_j e_j(x), checked by scipy.quad."""
    mu = theory.sobolev_eigenvalues(np.arange(1, 4))
    for x in (0.2, 0.7, 1.0):
        for j in range(3):
            val = integrate.quad(
                lambda y, x=x, j=j: min(x, y) * rkhs.min_kernel_eigenfunctions([y], 3)[0, j],
                0, 1, points=[x])[0]
            assert np.isclose(val, mu[j] * rkhs.min_kernel_eigenfunctions([x], 3)[0, j], atol=1e-10)


def test_grid_eigenvalues_approach_mercer_eigenvalues():
    """Closed form mu_j = 4 / (pi^2 (2j - 1)^2); the midpoint rule is accurate to O(n^-2)."""
    ev = rkhs.grid_eigenvalues(400, 3)
    assert np.allclose(ev, theory.sobolev_eigenvalues(np.arange(1, 4)), rtol=1e-4)
    assert np.all(np.diff(ev) < 0)


def test_mercer_sup_error_equals_the_tail_at_one():
    """Closed form: the error at x = x' = 1 is 1 - sum_{j<=J} 2 mu_j, and it is the sup."""
    Js = np.array([5, 50])
    err = rkhs.mercer_sup_error(Js, np.linspace(0, 1, 101))
    tail = [1 - 2 * theory.sobolev_eigenvalues(np.arange(1, J + 1)).sum() for J in Js]
    assert np.allclose(err, tail, rtol=1e-8)
    with pytest.raises(ValueError, match="integers"):
        rkhs.mercer_sup_error([0], [0.5])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        rkhs.mercer_features([1.5], 3)


def test_piecewise_integral_exact_for_piecewise_polynomials():
    """Closed forms: int_0^1 |u - 1/3|^3 du and int_0^1 u^5 du."""
    v = rkhs.piecewise_integral(lambda u: np.abs(u - 1 / 3) ** 3, [1 / 3], order=2)
    assert np.isclose(v, ((1 / 3) ** 4 + (2 / 3) ** 4) / 4, rtol=1e-13)
    assert np.isclose(rkhs.piecewise_integral(lambda u: u**5, [], order=3), 1 / 6, rtol=1e-13)
    with pytest.raises(ValueError, match="a < b"):
        rkhs.piecewise_integral(np.sin, [], 1.0, 0.0)


def test_sobolev1_norm_is_alpha_K_alpha():
    """Theorem: int f'^2 = alpha^T K alpha for the min kernel (Gram matrix from kmlib.kernels)."""
    rng = np.random.default_rng(5)
    x, a = rng.uniform(0, 1, 7), rng.standard_normal(7)
    n2 = rkhs.piecewise_integral(lambda u: rkhs.sobolev1_derivative(x, a, u) ** 2, x, order=1)
    assert np.isclose(n2, a @ kernels.sobolev1()(x) @ a, rtol=1e-12)


def test_sobolev2_norm_and_reproducing_property():
    """Theorem: int f''^2 = alpha^T K_2 alpha and int f''(u) (x - u)_+ du = f(x)."""
    rng = np.random.default_rng(6)
    x, a = rng.uniform(0, 1, 5), rng.standard_normal(5)
    k2 = kernels.sobolev2()
    n2 = rkhs.piecewise_integral(lambda u: rkhs.sobolev2_second_derivative(x, a, u) ** 2, x,
                                 order=2)
    assert np.isclose(n2, a @ k2(x) @ a, rtol=1e-10)
    for t in (0.1, 0.55, 0.9):
        v = rkhs.piecewise_integral(
            lambda u, t=t: rkhs.sobolev2_second_derivative(x, a, u) * np.maximum(t - u, 0),
            np.r_[x, t], order=2)
        assert np.isclose(v, rkhs.expansion_values(k2, x, a, [t])[0], rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("p,c", [(2, 1.0), (3, 0.5), (4, 2.0)])
def test_polynomial_norm_equals_alpha_K_alpha(p, c):
    """Second route: alpha^T K alpha with K from kernels.polynomial; values by np.polyval."""
    rng = np.random.default_rng(p)
    x, a = rng.uniform(-1, 1, 9), rng.standard_normal(9)
    k = kernels.polynomial(p, c=c)
    coef = rkhs.polynomial_coefficients(x, a, p, c=c)
    assert np.allclose(np.polyval(coef[::-1], x), k(x) @ a, rtol=1e-10)
    assert np.isclose(rkhs.polynomial_rkhs_norm2(coef, p, c=c), a @ k(x) @ a, rtol=1e-9)
    with pytest.raises(ValueError, match="p \\+ 1"):
        rkhs.polynomial_rkhs_norm2(coef[:-1], p, c=c)


def test_expansion_distance_matches_sup_bound_and_explicit_features():
    """Second route: explicit features of the linear kernel, ||X^T a - Z^T b||; and
    |f - g| <= sqrt(k) ||f - g||."""
    rng = np.random.default_rng(7)
    X, Z = rng.standard_normal((4, 3)), rng.standard_normal((2, 3))
    a, b = rng.standard_normal(4), rng.standard_normal(2)
    d = rkhs.expansion_distance(kernels.linear(), X, a, Z, b)
    assert np.isclose(d, np.linalg.norm(X.T @ a - Z.T @ b), rtol=1e-10)
    k = kernels.sobolev1()
    x, y = rng.uniform(0, 1, 5), rng.uniform(0, 1, 3)
    ax_, by = rng.standard_normal(5), rng.standard_normal(3)
    grid = np.linspace(0, 1, 101)
    diff = rkhs.expansion_values(k, x, ax_, grid) - rkhs.expansion_values(k, y, by, grid)
    assert np.all(np.abs(diff) <= np.sqrt(grid) * rkhs.expansion_distance(k, x, ax_, y, by) + 1e-12)


def test_gaussian_taylor_features_reproduce_the_kernel():
    """Closed form: Phi Phi^T -> exp(-(x-y)^2 / (2 sigma^2)) (kmlib.kernels.gaussian) as M grows."""
    x = np.linspace(-2, 2, 9)
    Phi = rkhs.gaussian_taylor_features(x, 0.8, 60)
    assert np.allclose(Phi @ Phi.T, kernels.gaussian(0.8)(x), atol=1e-12)
    few = rkhs.gaussian_taylor_features(x, 0.8, 3)
    assert np.abs(few @ few.T - kernels.gaussian(0.8)(x)).max() > 1e-2
    with pytest.raises(ValueError, match="sigma"):
        rkhs.gaussian_taylor_features(x, 0.0, 3)
