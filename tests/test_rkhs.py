"""Tests for kmlib.book.rkhs (chapter "Reproducing kernel Hilbert spaces").

The module keeps one helper, the piecewise Gauss--Legendre rule. Each test names
the independent reference it trusts: a closed form, or the identity
``int f'^2 = alpha^T K alpha`` with the Gram matrix from ``kmlib.kernels``.
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate

from kmlib import kernels
from kmlib.book import rkhs


def test_piecewise_integral_exact_for_piecewise_polynomials():
    """Closed forms: int_0^1 |u - 1/3|^3 du and int_0^1 u^5 du."""
    v = rkhs.piecewise_integral(lambda u: np.abs(u - 1 / 3) ** 3, [1 / 3], order=2)
    assert np.isclose(v, ((1 / 3) ** 4 + (2 / 3) ** 4) / 4, rtol=1e-13)
    assert np.isclose(rkhs.piecewise_integral(lambda u: u**5, [], order=3), 1 / 6, rtol=1e-13)
    with pytest.raises(ValueError, match="a < b"):
        rkhs.piecewise_integral(np.sin, [], 1.0, 0.0)


def test_piecewise_integral_matches_scipy_quad_on_a_smooth_function():
    """Second algorithm: scipy's adaptive quadrature on [0.2, 0.9]."""
    v = rkhs.piecewise_integral(np.cos, [0.5], 0.2, 0.9, order=10)
    assert np.isclose(v, integrate.quad(np.cos, 0.2, 0.9)[0], rtol=1e-13)


def test_sobolev1_norm_is_alpha_K_alpha():
    """Theorem: int f'^2 = alpha^T K alpha for the min kernel (Gram matrix from kmlib.kernels)."""
    rng = np.random.default_rng(5)
    x, a = rng.uniform(0, 1, 7), rng.standard_normal(7)
    n2 = rkhs.piecewise_integral(lambda u: ((u[:, None] < x) @ a) ** 2, x, order=1)
    assert np.isclose(n2, a @ kernels.sobolev1()(x) @ a, rtol=1e-12)


def test_sobolev2_norm_and_reproducing_property():
    """Theorem: int f''^2 = alpha^T K_2 alpha and int f''(u) (x - u)_+ du = f(x)."""
    rng = np.random.default_rng(6)
    x, a = rng.uniform(0, 1, 5), rng.standard_normal(5)
    k2 = kernels.sobolev2()
    f2 = lambda u: np.maximum(x - u[:, None], 0.0) @ a  # noqa: E731
    assert np.isclose(rkhs.piecewise_integral(lambda u: f2(u) ** 2, x, order=2),
                      a @ k2(x) @ a, rtol=1e-10)
    for t in (0.1, 0.55, 0.9):
        v = rkhs.piecewise_integral(lambda u, t=t: f2(u) * np.maximum(t - u, 0), np.r_[x, t],
                                    order=2)
        assert np.isclose(v, (k2(np.array([t]), x) @ a)[0], rtol=1e-10, atol=1e-14)
