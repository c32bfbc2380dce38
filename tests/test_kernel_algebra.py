"""Tests of kmlib.book.kernel_algebra, each against an independent reference.

References used: closed forms evaluated entry by entry in plain Python, brute-force
double loops, kmlib.kernels for the catalogue kernels, and the closure theorems
(Gram matrices stay positive semidefinite).
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


def test_exp_of_matches_closed_forms():
    X = 0.5 * _pts(9, 2, 7)
    G = X @ X.T
    np.testing.assert_allclose(ka.exp_of(kernels.linear())(X), np.exp(G), rtol=1e-14)
    # normalising exp(x^T x' / s^2) gives the Gaussian kernel exactly
    k = ka.exp_of((1 / 0.8**2) * kernels.linear()).normalized()
    np.testing.assert_allclose(k(X), kernels.gaussian(0.8)(X), rtol=1e-13)
    assert np.allclose(ka.exp_of(kernels.linear()).diag(X), np.exp(np.sum(X**2, axis=1)))


@settings(max_examples=25, deadline=None)
@given(arrays(np.float64, (7, 2), elements=st.floats(-3, 3)))
def test_closure_rules_keep_gram_matrices_psd(X):
    """Property: the closure theorems say every combination below is PSD."""
    g, p = kernels.gaussian(1.0), kernels.polynomial(2, 1.0)
    for k in (g + p, g * p, ka.exp_of(0.1 * kernels.linear()), ka.cauchy(1.0),
              ka.laplacian_l1(1.0), ka.rescaled(g, lambda A: A[:, 0] - 1.0)):
        K = k(X)
        assert np.linalg.eigvalsh(K)[0] >= -1e-9 * max(1.0, np.abs(K).max())
