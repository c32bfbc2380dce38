"""Tests for kmlib.book.theory (Chapter 7: exact MSPE and the KRR bounds).

References trusted here: Monte Carlo simulation of KRR, the direct smoother
formula with ``scipy.linalg.solve`` (bias^2 + variance), the theorem's
inequalities, closed forms (Mercer eigenvalues, sum 1/2, hand-computed values)
and numpy eigensolvers on explicitly built min-kernel Gram matrices.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import linalg
from sklearn.metrics.pairwise import rbf_kernel

from kmlib.book.theory import (
    MSPEBound,
    delta_n,
    krr_mspe,
    krr_mspe_bound,
    sobolev_eigenvalues,
)


def min_kernel(x, z=None):
    """Gram matrix of min(x, x') by explicit numpy."""
    z = x if z is None else z
    return np.minimum.outer(np.ravel(x), np.ravel(z))


def smoother(K, lam):
    """K (K + lam I)^{-1} via a linear solve (K symmetric)."""
    return linalg.solve(K + lam * np.eye(len(K)), K, assume_a="pos").T


def design(n=30, seed=0):
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(0, 1, n))
    return x, min_kernel(x)


# ---------------------------------------------------------------------------
# krr_mspe
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("lam", [0.01, 0.1, 1.0])
def test_mspe_matches_monte_carlo(lam):
    """Reference: 40000 simulated noise vectors pushed through K (K + lam I)^{-1} (solve);
    tolerance 5 Monte Carlo standard errors."""
    x, K = design()
    n = len(x)
    rng = np.random.default_rng(1)
    f0 = K @ rng.standard_normal(n) / n
    sigma = 0.3
    reps = 40_000
    Y = f0[:, None] + sigma * rng.standard_normal((n, reps))
    err = ((smoother(K, lam) @ Y - f0[:, None]) ** 2).mean(axis=0)
    se = err.std(ddof=1) / math.sqrt(reps)
    assert abs(krr_mspe(K, f0, sigma**2, lam) - err.mean()) <= 5 * se


def test_mspe_equals_bias_plus_variance_formula():
    """Reference: ||(S - I) f0||^2 / n + sigma^2 tr(S S^T) / n with S from a linear solve,
    on a grid of lam (one call, vectorised) and a Gaussian-kernel design in R^2."""
    rng = np.random.default_rng(2)
    X = rng.uniform(-1, 1, (40, 2))
    K = rbf_kernel(X, gamma=2.0)
    f0 = np.sin(3 * X[:, 0]) + X[:, 1] ** 2
    lams = np.logspace(-4, 2, 13)
    got = krr_mspe(K, f0, 0.25, lams)
    assert got.shape == lams.shape
    for lam, g in zip(lams, got, strict=False):
        S = smoother(K, lam)
        ref = (np.sum((S @ f0 - f0) ** 2) + 0.25 * np.trace(S @ S.T)) / len(f0)
        np.testing.assert_allclose(g, ref, rtol=1e-8)
    assert isinstance(krr_mspe(K, f0, 0.25, 0.1), float)


def test_mspe_lam_zero_limit():
    """Closed form at lam -> 0: the smoother is the projection onto range(K), so
    MSPE = (||P_null f0||^2 + sigma^2 rank K) / n. Full rank: sigma^2; linear kernel
    in R^2 (rank 2): residual of least squares plus 2 sigma^2 / n."""
    x, K = design(n=20)
    f0 = np.cos(5 * x)
    np.testing.assert_allclose(krr_mspe(K, f0, 0.3, 0.0), 0.3, rtol=1e-8)
    rng = np.random.default_rng(3)
    X = rng.standard_normal((10, 2))
    f = rng.standard_normal(10)
    resid = f - X @ np.linalg.lstsq(X, f, rcond=None)[0]
    ref = (resid @ resid + 0.5 * 2) / 10
    np.testing.assert_allclose(krr_mspe(X @ X.T, f, 0.5, 0.0), ref, rtol=1e-8)


# ---------------------------------------------------------------------------
# krr_mspe_bound: the theorem's inequalities
# ---------------------------------------------------------------------------

def test_bounds_dominate_exact_mspe_on_grid():
    """The MSPE theorem: MSPE <= bound1 <= bound2 for f0 = K c (||f0||_H^2 = c^T K c) and for
    f0 with centres off the design (||f0||_H^2 = a^T K_z a), over a grid of lam."""
    x, K = design(n=40, seed=4)
    d = np.linalg.eigvalsh(K)
    lams = np.logspace(-4, 2, 25)
    rng = np.random.default_rng(5)
    for trial in range(20):
        sigma2 = rng.uniform(0.01, 1.0)
        if trial % 2 == 0:
            c = rng.standard_normal(len(x))
            f0, norm2 = K @ c, c @ K @ c
        else:
            z = rng.uniform(0, 1, 5)
            a = rng.standard_normal(5)
            f0, norm2 = min_kernel(x, z) @ a, a @ min_kernel(z) @ a
        exact = krr_mspe(K, f0, sigma2, lams)
        b = krr_mspe_bound(d, sigma2, lams, norm2)
        assert isinstance(b, MSPEBound)
        assert np.all(exact <= b.bound1 * (1 + 1e-10))
        assert np.all(b.bound1 <= b.bound2 * (1 + 1e-10))


def test_bound_terms_closed_form():
    """Hand computation for d = (4, 1, 0), sigma2 = 2, lam = 2, ||f0||^2 = 3, n = 3:
    bound1 = 2/3 (16/36 + 1/9 + 0) + 2*3/12, bound2 = 2/(3*2) (1 + 1/4 + 0) + 2*3/12."""
    b = krr_mspe_bound([4.0, 1.0, 0.0], 2.0, 2.0, 3.0)
    np.testing.assert_allclose(b.bound1, 2 / 3 * (16 / 36 + 1 / 9) + 0.5, rtol=1e-14)
    np.testing.assert_allclose(b.bound2, 2 / 6 * (1 + 0.25) + 0.5, rtol=1e-14)
    assert isinstance(b.bound1, float)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(2, 15),
       lam=st.floats(1e-6, 1e3), sigma2=st.floats(0.0, 5.0))
def test_bounds_hold_for_random_psd_matrices(seed, n, lam, sigma2):
    """The MSPE theorem as a property over random PSD K (possibly rank deficient) and f0 = K c."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, rng.integers(1, n + 1)))
    K = A @ A.T
    c = rng.standard_normal(n)
    f0 = K @ c
    exact = krr_mspe(K, f0, sigma2, lam)
    b = krr_mspe_bound(np.linalg.eigvalsh(K), sigma2, lam, c @ K @ c)
    assert exact <= b.bound1 * (1 + 1e-9) + 1e-12
    assert b.bound1 <= b.bound2 * (1 + 1e-9) + 1e-12


# ---------------------------------------------------------------------------
# delta_n
# ---------------------------------------------------------------------------

def test_delta_n_is_bound2_rescaled():
    """Closed-form rescaling: delta_n(d/n, gamma = lam/n) equals bound2(d, lam)."""
    x, K = design(n=50, seed=6)
    d = np.linalg.eigvalsh(K)
    n = len(d)
    lams = np.logspace(-3, 2, 11)
    got = delta_n(d / n, 0.4, lams / n, 2.5)
    np.testing.assert_allclose(got, krr_mspe_bound(d, 0.4, lams, 2.5).bound2, rtol=1e-12)


def test_delta_n_hand_value():
    """Hand computation: mu = (0.4, 0.04), sigma2 = 1, gamma = 0.05, ||f||^2 = 2:
    (1/0.05) * (1/2) * (0.05 + 0.01) + 2 * 0.05 / 4 = 0.625; with n = 10 the sum is
    divided by 10 instead: 20 * 0.006 + 0.025 = 0.145."""
    np.testing.assert_allclose(delta_n([0.4, 0.04], 1.0, 0.05, 2.0), 0.625, rtol=1e-14)
    np.testing.assert_allclose(delta_n([0.4, 0.04], 1.0, 0.05, 2.0, n=10), 0.145, rtol=1e-14)


@pytest.mark.parametrize("gamma", [1e-3, 1e-2])
def test_lemma8_expected_delta_below_mercer_version(gamma):
    """Lemma 8: E[(1/n) sum min(mu_hat_i/4, gamma)] <= (1/n) sum_j min(mu_j/4, gamma) for the
    min kernel and uniform designs (n = 50, 300 designs), up to 3 Monte Carlo s.e.; the
    Mercer eigenvalues are the closed form 4/(pi^2 (2j-1)^2)."""
    n, reps = 50, 300
    rng = np.random.default_rng(7)
    vals = np.empty(reps)
    for r in range(reps):
        K = min_kernel(rng.uniform(0, 1, n))
        vals[r] = delta_n(np.linalg.eigvalsh(K) / n, 1.0, gamma, 0.0)
    rhs = delta_n(sobolev_eigenvalues(np.arange(1, 200_001)), 1.0, gamma, 0.0, n=n)
    se = vals.std(ddof=1) / math.sqrt(reps)
    assert vals.mean() <= rhs + 3 * se


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


def test_krr_mspe_bad_input():
    x, K = design(n=5)
    f0 = np.ones(5)
    with pytest.raises(ValueError, match="K must be a square"):
        krr_mspe(K[:, :4], f0, 1.0, 0.1)
    with pytest.raises(ValueError, match="f0 must have one value per row"):
        krr_mspe(K, np.ones(4), 1.0, 0.1)
    with pytest.raises(ValueError, match="sigma2"):
        krr_mspe(K, f0, -1.0, 0.1)
    with pytest.raises(ValueError, match="lam"):
        krr_mspe(K, f0, 1.0, -0.1)
    with pytest.raises(ValueError, match="lam"):
        krr_mspe(K, f0, 1.0, [0.1, -1.0])
    bad = K.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="K contains"):
        krr_mspe(bad, f0, 1.0, 0.1)
    asym = K.copy()
    asym[0, 1] += 1.0
    with pytest.raises(ValueError, match="symmetric"):
        krr_mspe(asym, f0, 1.0, 0.1)
    with pytest.raises(ValueError, match="positive semi-definite"):
        krr_mspe(-K, f0, 1.0, 0.1)
    with pytest.raises(ValueError, match="f0 contains"):
        krr_mspe(K, [1, 2, np.inf, 4, 5], 1.0, 0.1)


def test_krr_mspe_bound_bad_input():
    d = [3.0, 1.0, 0.0]
    with pytest.raises(ValueError, match="lam must be > 0"):
        krr_mspe_bound(d, 1.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="lam"):
        krr_mspe_bound(d, 1.0, [0.1, -0.1], 1.0)
    with pytest.raises(ValueError, match="eigvals must be the eigenvalues"):
        krr_mspe_bound([3.0, -1.0], 1.0, 0.1, 1.0)
    with pytest.raises(ValueError, match="f_norm2"):
        krr_mspe_bound(d, 1.0, 0.1, -1.0)
    with pytest.raises(ValueError, match="sigma2"):
        krr_mspe_bound(d, float("nan"), 0.1, 1.0)
    with pytest.raises(ValueError, match="eigvals"):
        krr_mspe_bound([], 1.0, 0.1, 1.0)


def test_delta_n_bad_input():
    mu = [0.4, 0.04]
    with pytest.raises(ValueError, match="gamma must be > 0"):
        delta_n(mu, 1.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="n must be"):
        delta_n(mu, 1.0, 0.1, 1.0, n=0)
    with pytest.raises(ValueError, match="mu_hat must be the eigenvalues"):
        delta_n([0.4, -0.1], 1.0, 0.1, 1.0)
    with pytest.raises(ValueError, match="f_norm2"):
        delta_n(mu, 1.0, 0.1, -2.0)
    with pytest.raises(ValueError, match="sigma2"):
        delta_n(mu, -1.0, 0.1, 1.0)
