"""Tests for kmlib.book.rates (chapter "How fast does kernel ridge regression learn?").

Each test names its independent reference: a dense eigendecomposition, kmlib.book.theory's
exact risk, a brute-force sum, a closed form, scikit-learn, or kmlib.model_selection.tune_krr.
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy import linalg

from kmlib import model_selection
from kmlib.book import rates, theory


def _design(n, seed):
    return np.sort(np.random.default_rng(seed).uniform(0.01, 1.0, n))


def test_brownian_precision_inverts_the_min_gram_matrix():
    """Reference: the dense inverse of min(x_i, x_j)."""
    x = _design(30, 0)
    diag, off = rates.brownian_precision(x)
    Q = np.diag(diag) + np.diag(off, 1) + np.diag(off, -1)
    K = np.minimum.outer(x, x)
    assert np.allclose(Q @ K, np.eye(30), atol=1e-9)


def test_brownian_precision_rejects_unsorted_points():
    with pytest.raises(ValueError, match="strictly increasing"):
        rates.brownian_precision([0.5, 0.2])


@pytest.mark.parametrize("lam", [1e-3, 0.1, 10.0])
def test_sobolev_mspe_matches_dense_exact_risk(lam):
    """Reference: bias^2 + variance from the dense smoother S = K (K + lam I)^{-1}."""
    rng = np.random.default_rng(1)
    x = rng.uniform(0, 1, 150)                       # unsorted on purpose
    f0 = np.sin(3 * x) * x
    K = np.minimum.outer(x, x)
    S = linalg.solve(K + lam * np.eye(150), K, assume_a="pos").T
    dense = (np.sum((S @ f0 - f0) ** 2) + 0.3 * np.trace(S @ S)) / 150
    assert rates.sobolev_mspe(x, f0, 0.3, lam) == pytest.approx(dense, rel=1e-9)


def test_sobolev_mspe_several_targets_equal_one_at_a_time():
    """Reference: the single-target call."""
    x = _design(60, 2)
    F = np.column_stack([x, np.sqrt(x)])
    both = rates.sobolev_mspe(x, F, 0.1, [0.1, 1.0])
    for i in range(2):
        assert np.allclose(both[:, i], rates.sobolev_mspe(x, F[:, i], 0.1, [0.1, 1.0]), rtol=1e-12)


def test_sobolev_mspe_validates_inputs():
    with pytest.raises(ValueError, match=r"x must lie in \(0, 1\]"):
        rates.sobolev_mspe([0.0, 0.5], [0.0, 1.0], 1.0, 1.0)
    with pytest.raises(ValueError, match="distinct"):
        rates.sobolev_mspe([0.5, 0.5], [0.0, 1.0], 1.0, 1.0)
    with pytest.raises(ValueError, match="lam must be > 0"):
        rates.sobolev_mspe([0.2, 0.5], [0.0, 1.0], 1.0, 0.0)


def test_power_min_sum_matches_brute_force_sums():
    """Reference: direct summation of 10^6 terms plus integral bounds on the tail."""
    j = np.arange(1, 1_000_001, dtype=float)
    for c, p, s in [(1 / np.pi**2, 2.0, 0.5), (1.0, 1.1, 0.0), (2.0, 3.0, 0.0)]:
        for g in [1e-4, 1e-2, 0.3, 5.0]:
            head = np.minimum(c * (j - s) ** -p, g).sum()
            lo = c * (j[-1] + 1 - s) ** (1 - p) / (p - 1)
            hi = c * (j[-1] - s) ** (1 - p) / (p - 1)
            got = rates.power_min_sum(g, c, p, s)
            assert head + lo - 1e-12 <= got <= head + hi + 1e-12


def test_power_min_sum_large_gamma_is_the_trace():
    """Reference: sum of Sobolev Mercer eigenvalues = E k(X, X) = E X = 1/2."""
    assert rates.power_min_sum(1e9, 1 / np.pi**2, 2, 0.5) == pytest.approx(0.5, rel=1e-12)


@pytest.mark.parametrize("bad", [{"p": 1.0}, {"c": -1.0}, {"shift": 1.0}])
def test_power_min_sum_validates(bad):
    kw = {"c": 1.0, "p": 2.0, "shift": 0.0} | bad
    with pytest.raises(ValueError):
        rates.power_min_sum(0.1, **kw)


def test_grid_min_eigenvalues_closed_form():
    """Reference: dense eigenvalues of K/n on the grid i/n, and the Mercer limit."""
    n = 200
    x = np.arange(1, n + 1) / n
    dense = linalg.eigvalsh(np.minimum.outer(x, x) / n)[::-1]
    assert np.allclose(rates.grid_min_eigenvalues(n), dense, rtol=1e-9)
    mu = theory.sobolev_eigenvalues(np.arange(1, 6))
    assert np.allclose(rates.grid_min_eigenvalues(20000)[:5], mu, rtol=1e-4)


def test_cv_table_equals_tune_krr():
    """Reference: kmlib.model_selection.tune_krr (tridiagonal route, same folds)."""
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 1, (30, 1))
    y = np.sin(4 * np.pi * x[:, 0]) + 0.1 * rng.standard_normal(30)
    ells, lams = np.array([0.05, 0.1, 0.3]), np.logspace(-5, 0, 6)
    factory = rates.SMOOTHNESS_KERNELS["matern52"]
    _, table = model_selection.tune_krr(x, y, factory, ells.tolist(), lams, folds=5)
    assert np.allclose(rates.cv_table(x, y, factory, ells, lams, folds=5), table.cv, rtol=1e-7)


def test_smoothness_experiment_refit_matches_scikit_learn():
    """Reference: scikit-learn KernelRidge at the chosen (ell, lam); tune_krr's choice."""
    from sklearn.kernel_ridge import KernelRidge
    run = rates.smoothness_experiment(1, ells=np.logspace(-2, 0, 5), lams=np.logspace(-6, 0, 7))
    assert run["mse"].shape == (2, 3)
    for a, target in enumerate(rates.TARGETS.values()):
        for b, factory in enumerate(rates.SMOOTHNESS_KERNELS.values()):
            k = factory(run["ell"][a, b])
            m = KernelRidge(alpha=run["lam"][a, b], kernel="precomputed")
            m.fit(k(run["X"][a]), run["y"][a])
            pred = m.predict(k(run["x_test"][:, None], run["X"][a]))
            ref = np.mean((pred - target(run["x_test"])) ** 2)
            assert run["mse"][a, b] == pytest.approx(ref, rel=1e-6)
            _, table = model_selection.tune_krr(run["X"][a], run["y"][a], factory,
                                                np.logspace(-2, 0, 5).tolist(),
                                                np.logspace(-6, 0, 7))
            assert (table.best_param, table.best_lam) == pytest.approx(
                (run["ell"][a, b], run["lam"][a, b]))


def test_smoothness_repeat_is_deterministic_and_fresh_per_target():
    """Reference: the same seed twice; the two targets use different inputs."""
    r1 = rates.smoothness_repeat([3], ells=[0.1, 0.3], lams=[1e-3, 1e-1])
    r2 = rates.smoothness_repeat([3], ells=[0.1, 0.3], lams=[1e-3, 1e-1])
    assert np.array_equal(r1, r2)
    run = rates.smoothness_experiment(3, ells=[0.1, 0.3], lams=[1e-3, 1e-1])
    assert not np.allclose(run["X"][0], run["X"][1])
    with pytest.raises(ValueError, match="non-empty"):
        rates.smoothness_repeat([])




def test_smoothness_experiment_accepts_a_splitter_or_its_pairs():
    """Reference: the same split passed as explicit (train, test) pairs, per training set."""
    from sklearn.model_selection import KFold as SkKFold

    run = rates.smoothness_experiment(3, folds=SkKFold(5))
    for a in range(2):
        pairs = list(SkKFold(5).split(run["X"][a]))
        cv = rates.cv_table(run["X"][a], run["y"][a], rates.SMOOTHNESS_KERNELS["gaussian"],
                            np.logspace(-2, 0, 15), np.logspace(-8, 0, 17), folds=pairs)
        assert np.allclose(cv, run["cv"][a, 2], rtol=1e-10)
