"""Tests for kmlib.book.theory (chapters 5 and 7: Mercer eigenvalues of min(x, x')).

References trusted here: closed forms (Mercer eigenvalues, their sum 1/2) and numpy
eigensolvers on explicitly built min-kernel Gram matrices.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import linalg

from kmlib.book.theory import sobolev_eigenvalues


def min_kernel(x, z=None):
    """Gram matrix of min(x, x') by explicit numpy."""
    z = x if z is None else z
    return np.minimum.outer(np.ravel(x), np.ravel(z))


# ---------------------------------------------------------------------------
# Sobolev (min kernel) Mercer eigenvalues
# ---------------------------------------------------------------------------

def test_sobolev_eigenvalues_match_gram_spectrum():
    """Reference: eigenvalues of K/n for min(x, x') on the midpoint grid x_i = (i - 1/2)/n,
    n = 1000 (LAPACK eigvalsh, top 5), for j = 1..5."""
    n = 1000
    x = (np.arange(1, n + 1) - 0.5) / n
    top = linalg.eigvalsh(min_kernel(x) / n, subset_by_index=[n - 5, n - 1])[::-1]
    mu = sobolev_eigenvalues(np.arange(1, 6))
    np.testing.assert_allclose(top, mu, rtol=1e-4)
    # closed form values 4/(pi^2 (2j-1)^2)
    np.testing.assert_allclose(sobolev_eigenvalues(1), 4 / math.pi**2, rtol=1e-15)
    np.testing.assert_allclose(sobolev_eigenvalues(3), 4 / (25 * math.pi**2), rtol=1e-15)
    # the trace of K/n is the mean of k(x_i, x_i) = x_i, i.e. 1/2 on this grid
    np.testing.assert_allclose(np.trace(min_kernel(x)) / n, 0.5, rtol=1e-12)


def test_sobolev_eigenvalues_sum_to_half():
    """Closed form: sum_j mu_j = int_0^1 k(x, x) dx = int_0^1 x dx = 1/2; the tail beyond J is
    at most (4/pi^2) / (2 (2J - 1))."""
    J = 1_000_000
    partial = sobolev_eigenvalues(np.arange(1, J + 1)).sum()
    gap = 0.5 - partial
    assert 0 <= gap <= 4 / math.pi**2 / (2 * (2 * J - 1))


@pytest.mark.parametrize("gamma", [1e-2, 1e-3, 1e-4])
def test_sobolev_sum_bound(gamma):
    """The Sobolev-spectrum inequality: sum_j min(mu_j/4, gamma) <= sqrt(gamma)/pi + gamma/2."""
    s = np.minimum(sobolev_eigenvalues(np.arange(1, 1_000_001)) / 4, gamma).sum()
    assert s <= math.sqrt(gamma) / math.pi + gamma / 2


def test_sobolev_eigenvalues_shape():
    j = np.arange(1, 7).reshape(2, 3)
    assert sobolev_eigenvalues(j).shape == (2, 3)
    assert isinstance(sobolev_eigenvalues(np.int64(2)), float)
    assert np.all(np.diff(sobolev_eigenvalues(np.arange(1, 50))) < 0)


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("j", [0, -1, 1.5, [1, 0], [], "a", True, [1, np.nan]])
def test_sobolev_eigenvalues_bad_input(j):
    with pytest.raises(ValueError, match="j must"):
        sobolev_eigenvalues(j)
