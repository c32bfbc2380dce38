"""Tests for kmlib.book.negdef (chapter 10, negative-definite kernels).

Each test names the independent reference it trusts: a second algorithm
(kmlib.kernels.is_nds, dense eigendecompositions), brute force over random
zero-sum vectors, or a closed-form bound.
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from kmlib import kernels
from kmlib.book import negdef


@pytest.fixture(scope="module")
def grid():
    return np.linspace(0.0, 3.0, 15)


def _power(x, a):
    x = np.asarray(x, dtype=float).reshape(len(x), -1)
    return cdist(x, x) ** a


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
    K = _power(grid, a)
    top = negdef.sum_zero_top_eigenvalue(K)
    assert (top <= 1e-10) == nds == kernels.is_nds(K)


def test_sum_zero_top_eigenvalue_is_a_maximum_over_random_zero_sum_vectors():
    """Brute force: no random zero-sum unit vector beats it, and the maximiser attains it."""
    K = _power(np.linspace(0, 3, 10), 3.0)
    top = negdef.sum_zero_top_eigenvalue(K)
    C = np.random.default_rng(2).standard_normal((5000, 10))
    C -= C.mean(axis=1, keepdims=True)
    C /= np.linalg.norm(C, axis=1, keepdims=True)
    q = np.einsum("ij,jk,ik->i", C, K, C)
    assert q.max() <= top + 1e-10
    assert q.max() >= 0.5 * top > 0


def test_sum_zero_top_eigenvalue_validation():
    with pytest.raises(ValueError):
        negdef.sum_zero_top_eigenvalue(np.array([[0.0, 1.0], [2.0, 0.0]]))    # not symmetric
    with pytest.raises(ValueError, match="at least 2 x 2"):
        negdef.sum_zero_top_eigenvalue(np.zeros((1, 1)))


# --------------------------------------------------------------------------- #
# the KMS closed form
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("n, rho", [(2, 0.5), (15, np.exp(-0.1 * 3 / 14)), (40, 0.99), (7, 1e-3)])
def test_kms_min_eigenvalue_matches_dense(n, rho):
    """Reference: dense eigvalsh of [rho^|i-j|]; also the symbol bound (1 - rho)/(1 + rho)."""
    i = np.arange(n)
    ref = np.linalg.eigvalsh(rho ** np.abs(np.subtract.outer(i, i)))[0]
    val = negdef.kms_min_eigenvalue(n, rho)
    assert val == pytest.approx(ref, rel=1e-10)
    assert val >= (1 - rho) / (1 + rho) * (1 - 1e-12)


def test_kms_min_eigenvalue_is_the_laplacian_gram_minimum(grid):
    """Reference: the Laplacian-kernel Gram matrix exp(-t|x - x'|) on the grid, dense."""
    h = grid[1] - grid[0]
    for t in (0.1, 1.0, 10.0):
        ref = np.linalg.eigvalsh(np.exp(-t * _power(grid, 1.0)))[0]
        assert negdef.kms_min_eigenvalue(grid.size, np.exp(-t * h)) == pytest.approx(ref, rel=1e-9)


def test_kms_validation():
    with pytest.raises(ValueError, match="rho must lie in"):
        negdef.kms_min_eigenvalue(4, 1.0)
    with pytest.raises(ValueError, match="n must be >= 2"):
        negdef.kms_min_eigenvalue(1, 0.5)
