"""Tests for kmlib.book.representer (chapter "The representer theorem").

Each test names the independent reference it trusts: the polynomial kernel itself for
the explicit feature map, and a dense solve of the bordered kernel system for the
banded piecewise-linear smoothing spline.
"""
from __future__ import annotations

from math import comb

import numpy as np
import pytest

from kmlib import kernels
from kmlib.book import representer as rep


def test_polynomial_features_reproduce_the_kernel_gram_matrix():
    """Reference: the polynomial kernel itself; column count binom(d + m, m)."""
    X = np.random.default_rng(0).uniform(-1, 1, (7, 3))
    for m, c in [(1, 1.0), (3, 0.5), (5, 2.0)]:
        Phi = rep.polynomial_features(X, m, c)
        assert Phi.shape == (7, comb(3 + m, m))
        np.testing.assert_allclose(Phi @ Phi.T, kernels.polynomial(m, c)(X), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("lam", [0.001, 0.05, 2.0])
def test_linear_smoothing_spline_equals_the_bordered_kernel_system(lam):
    """Reference: dense solve of [[K + lam I, 1], [1^T, 0]] with K = min(x, x') (unsorted x)."""
    rng = np.random.default_rng(7)
    x, y = rng.uniform(0, 1, 20), rng.standard_normal(20)
    K = kernels.sobolev1()(x)
    T = np.ones((20, 1))
    A = np.block([[K + lam * np.eye(20), T], [T.T, np.zeros((1, 1))]])
    sol = np.linalg.solve(A, np.r_[y, 0.0])
    fitted = K @ sol[:20] + sol[20]
    np.testing.assert_allclose(rep.linear_smoothing_spline(x, y, lam), fitted, atol=1e-11)


def test_linear_smoothing_spline_limits():
    """Closed forms: lam -> 0 interpolates, a huge lam gives the mean."""
    rng = np.random.default_rng(8)
    x, y = rng.uniform(0, 1, 12), rng.standard_normal(12)
    np.testing.assert_allclose(rep.linear_smoothing_spline(x, y, 1e-12), y, atol=1e-9)
    np.testing.assert_allclose(rep.linear_smoothing_spline(x, y, 1e9), np.full(12, y.mean()),
                               atol=1e-6)


@pytest.mark.parametrize("call, match", [
    (lambda: rep.polynomial_features(np.ones((3, 2)), 0), "degree"),
    (lambda: rep.linear_smoothing_spline([0.1, 0.1], [1, 2], 1.0), "distinct"),
    (lambda: rep.linear_smoothing_spline([0.1, 0.2, 0.3], [1, 2, 3], 1e300), "smaller lam"),
    (lambda: rep.polynomial_features(np.ones((3, 2)), 10**12), "at most 1,000,000 monomials"),
])
def test_invalid_arguments_raise_clear_value_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()
