"""Tests for kmlib.book.large_scale (chapter "Large-scale kernel machines").

Every test names the independent reference it trusts: a closed form, a theorem's
inequality, a second algorithm (scikit-learn, a dense solve, an SVD), or a Monte
Carlo average within a few standard errors.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, linalg

from kmlib import features, kernels, ridge
from kmlib.book import large_scale as ls


# --------------------------------------------------------------------------- #
# cost of the exact method
# --------------------------------------------------------------------------- #
def test_exact_krr_memory_grows_like_n_squared():
    """Closed form: the Gram matrix and its Cholesky copy are two n x n float64 arrays."""
    cost = ls.exact_krr_cost([200, 800], repeats=1, seed=0)
    per_entry = cost["peak_bytes"] / (8.0 * cost["n"] ** 2)
    assert per_entry[-1] == pytest.approx(2.0, rel=0.1)
    assert np.all(cost["seconds"] > 0)


def test_measure_and_timed_return_the_result():
    """Brute force: the traced peak of allocating a known array is at least its size."""
    out, secs, peak = ls.measure(lambda: np.ones(10**6))
    assert out.shape == (10**6,) and secs >= 0 and peak >= 8 * 10**6
    out, best = ls.timed(lambda: 3, repeats=2)
    assert out == 3 and best >= 0
    with pytest.raises(ValueError, match="callable"):
        ls.timed(3)


# --------------------------------------------------------------------------- #
# Bochner pairs
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("kernel,nu", [("gaussian", None), ("laplacian", None),
                                       ("cauchy", None), ("matern", 1.5), ("matern", 2.5)])
def test_spectral_pairs_by_monte_carlo(kernel, nu):
    """Monte Carlo within 4.5 s.e.: E cos(w Delta) equals the kernel profile (Bochner)."""
    deltas = np.linspace(0.1, 3.0, 12)
    mean, se = ls.bochner_mc(kernel, deltas, 200_000, length_scale=0.7, nu=nu, seed=1)
    exact = ls.shift_invariant_profile(kernel, deltas, length_scale=0.7, nu=nu)
    assert np.all(np.abs(mean - exact) <= 4.5 * se)


def test_cauchy_profile_is_the_fourier_transform_of_the_laplace_density():
    """Quadrature: the integral of (l/2) e^{-l|w|} cos(w Delta) is 1/(1 + Delta^2/l^2)."""
    ell = 0.7
    for delta in (0.3, 1.0, 2.5):
        val = 2 * integrate.quad(lambda w: 0.5 * ell * math.exp(-ell * w), 0, np.inf,
                                 weight="cos", wvar=delta)[0]
        assert val == pytest.approx(
            ls.shift_invariant_profile("cauchy", delta, length_scale=ell)[0], rel=1e-8)


def test_spectral_validation():
    with pytest.raises(ValueError, match="kernel must be one of"):
        ls.spectral_sample("sigmoid", 10)
    with pytest.raises(ValueError, match="nu must be"):
        ls.spectral_sample("matern", 10)
    with pytest.raises(ValueError, match="nu is only used"):
        ls.bochner_mc("gaussian", [0.5], 10, nu=1.5)


# --------------------------------------------------------------------------- #
# random Fourier features for one pair
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("variant", ["cos_sin", "cos_phase"])
def test_rff_mean_and_variance_match_the_closed_forms(variant):
    """Closed forms (1-k^2)^2/(2D) and (1+k^4/2-k^2)/D, Monte Carlo within 4 s.e."""
    x, xp = np.array([0.3, -0.2, 0.5]), np.array([-0.1, 0.4, 0.2])
    k = float(np.exp(-np.sum((x - xp) ** 2) / 2))
    est = ls.rff_pair_estimates(x, xp, 1.0, 20, 20_000, variant=variant, seed=3)
    assert abs(est.mean() - k) <= 4 * est.std() / math.sqrt(est.size)
    se_var = np.std((est - est.mean()) ** 2) / math.sqrt(est.size)
    assert abs(est.var() - ls.rff_variance(k, 20, variant)) <= 4 * se_var


def test_rff_pair_estimates_agree_with_the_feature_map():
    """Second algorithm: the same frequencies through features.RandomFourierFeatures."""
    x, xp = np.array([0.3, -0.2]), np.array([-0.1, 0.4])
    est = ls.rff_pair_estimates(x, xp, 1.5, 7, 1, seed=np.random.default_rng(4))
    W = np.random.default_rng(4).standard_normal((1, 7, 2))[0] / 1.5
    rff = features.RandomFourierFeatures(sigma=1.5, n_features=7).fit(x[None])
    rff.W_ = W.T
    Z = rff.transform(np.vstack([x, xp]))
    assert est[0] == pytest.approx(Z[0] @ Z[1], rel=1e-12)


def test_rff_variance_validation_and_broadcasting():
    v = ls.rff_variance(0.5, np.array([1, 2, 4]))
    assert np.allclose(v, (1 - 0.25) ** 2 / (2 * np.array([1, 2, 4])))
    with pytest.raises(ValueError, match="in \\[0, 1\\]"):
        ls.rff_variance(1.5, 3)
    with pytest.raises(ValueError, match="integers"):
        ls.rff_variance(0.5, 2.5)
    with pytest.raises(ValueError, match="variant"):
        ls.rff_variance(0.5, 2, "cosine")


# --------------------------------------------------------------------------- #
# positive random features
# --------------------------------------------------------------------------- #
def test_softmax_positive_features_mean_and_variance():
    """Closed form e^{x.x'} and (1/D) e^{2x.x'}(e^{|x+x'|^2}-1); Monte Carlo within 4 s.e."""
    rng = np.random.default_rng(11)
    x, xp = 0.4 * rng.standard_normal(3), 0.4 * rng.standard_normal(3)
    est, smallest = ls.softmax_prf_estimates(x, xp, 20, 20_000, seed=12)
    assert smallest > 0 and np.all(est > 0)
    assert abs(est.mean() - math.exp(x @ xp)) <= 4 * est.std() / math.sqrt(est.size)
    se_var = np.std((est - est.mean()) ** 2) / math.sqrt(est.size)
    assert abs(est.var() - ls.softmax_prf_variance(x, xp, 20)) <= 4 * se_var


def test_softmax_features_agree_with_positive_random_features_class():
    """Second algorithm: features.PositiveRandomFeatures with the same random vectors."""
    x, xp = np.array([0.2, -0.1]), np.array([0.3, 0.4])
    est, _ = ls.softmax_prf_estimates(x, xp, 9, 1, seed=np.random.default_rng(5))
    W = np.random.default_rng(5).standard_normal((1, 9, 2))[0]
    prf = features.PositiveRandomFeatures(n_features=9).fit(x[None])
    prf.W_ = W.T
    P = prf.transform(np.vstack([x, xp]))
    assert est[0] == pytest.approx(P[0] @ P[1], rel=1e-12)


# --------------------------------------------------------------------------- #
# the uniform bound
# --------------------------------------------------------------------------- #
def test_uniform_bound_holds_at_the_theorem_D():
    """Theorem: with D from the bound, the max error exceeds eps with probability <= delta."""
    X = np.random.default_rng(3).standard_normal((30, 3))
    D = features.rff_uniform_bound(30, 0.15, 0.05)
    errs = ls.uniform_max_errors(X, 1.0, D, 20, seed=1)
    assert np.all(errs <= 0.15)


def test_uniform_max_errors_brute_force():
    """Brute force: max over pairs of |z_i.z_j - k_ij| with the same seeded feature map."""
    X = np.random.default_rng(6).standard_normal((12, 2))
    err = ls.uniform_max_errors(X, 0.8, 15, 1, seed=np.random.default_rng(2))[0]
    Z = features.RandomFourierFeatures(sigma=0.8, n_features=15,
                                       random_state=np.random.default_rng(2)).fit_transform(X)
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / (2 * 0.8**2))
    assert err == pytest.approx(np.abs(Z @ Z.T - K).max(), rel=1e-10)


# --------------------------------------------------------------------------- #
# Nystrom
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def gram():
    X = np.random.default_rng(5).standard_normal((150, 2))
    return kernels.gaussian(1.0)(X), X


def test_nystroem_reproduces_anchor_columns_and_leaves_a_psd_schur_complement(gram):
    """Theorem: K~ agrees with K on anchor columns; K - K~ is the PSD Schur complement."""
    K, _ = gram
    idx = np.array([3, 17, 40, 41, 99, 120])
    Kt = ls.nystroem_gram(K, idx)
    assert np.allclose(Kt[:, idx], K[:, idx], atol=1e-10)
    rest = np.setdiff1d(np.arange(150), idx)
    B = K[np.ix_(rest, idx)]
    S = K[np.ix_(rest, rest)] - B @ np.linalg.solve(K[np.ix_(idx, idx)], B.T)
    assert np.allclose((K - Kt)[np.ix_(rest, rest)], S, atol=1e-9)
    assert linalg.eigvalsh(K - Kt)[0] >= -1e-10


def test_nystroem_matches_the_feature_map_of_features_module(gram):
    """Second algorithm: features.Nystroem's Phi Phi^T with the same landmarks."""
    K, X = gram
    nys = features.Nystroem(kernel=kernels.gaussian(1.0), n_components=20, random_state=4).fit(X)
    P = nys.transform(X)
    assert np.allclose(ls.nystroem_gram(K, nys.component_indices_), P @ P.T, atol=1e-9)


def test_nystroem_with_repeated_anchors_uses_the_pseudoinverse(gram):
    """Closed form: repeating anchors does not change K~ (the span is the same)."""
    K, _ = gram
    idx = np.array([1, 5, 9, 30])
    dup = np.concatenate([idx, idx[:2]])
    assert np.allclose(ls.nystroem_gram(K, dup), ls.nystroem_gram(K, idx), atol=1e-10)
    assert np.allclose(ls.nystroem_gram(K, dup, jitter=1e-10), ls.nystroem_gram(K, idx), atol=1e-5)
    with pytest.raises(ValueError, match="anchors must lie"):
        ls.nystroem_gram(K, np.array([0, 500]))
    with pytest.raises(ValueError, match="row indices"):
        ls.nystroem_gram(K, np.array([0.5, 1.0]))


def test_relative_errors_against_dense_norms(gram):
    """Second algorithm: numpy's dense 2-norm and Frobenius norm."""
    K, _ = gram
    Kt = ls.nystroem_gram(K, np.arange(0, 150, 10))
    spec, frob = ls.relative_errors(K, Kt)
    assert spec == pytest.approx(np.linalg.norm(K - Kt, 2) / np.linalg.norm(K, 2), rel=1e-6)
    assert frob == pytest.approx(np.linalg.norm(K - Kt) / np.linalg.norm(K), rel=1e-12)


def test_rff_vs_nystroem_rff_error_follows_its_closed_form(gram):
    """Closed form: E||K - ZZ^T||_F^2 = sum (1 - K_ij^2)^2 / m for m cos-sin columns."""
    K, X = gram
    out = ls.rff_vs_nystroem(X, 1.0, [40, 120], seed=0)
    pred = np.sqrt(np.sum((1 - K**2) ** 2) / out["m"]) / np.linalg.norm(K)
    assert np.all(np.abs(np.log(out["err_rff"] / pred)) < np.log(2.0))
    assert np.all(out["err_nys"] < out["err_rff"])


# --------------------------------------------------------------------------- #
# two moons
# --------------------------------------------------------------------------- #
def test_median_heuristic_brute_force():
    """Brute force: median of all pairwise distances from a double loop."""
    X = np.random.default_rng(0).standard_normal((15, 3))
    d = [np.linalg.norm(X[i] - X[j]) for i in range(15) for j in range(i + 1, 15)]
    assert ls.median_heuristic(X) == pytest.approx(np.median(d), rel=1e-10)


def test_two_moons_exact_accuracy_matches_scikit_learn():
    """scikit-learn's KernelRidge with gamma = 1/(2 sigma^2) on the same split."""
    from sklearn.kernel_ridge import KernelRidge

    from kmlib.datasets import two_moons
    res = ls.two_moons_study([5, 200], n=200, n_seeds=2, seed=3)
    for s in range(2):
        X, y = two_moons(200, 0.2, random_state=np.random.default_rng([3, s]))
        sk = KernelRidge(alpha=1e-3, kernel="rbf", gamma=1 / (2 * res["sigma"][s] ** 2))
        acc = np.mean(np.sign(sk.fit(X[60:], y[60:]).predict(X[:60])) == y[:60])
        assert res["acc_exact"][s] == pytest.approx(acc)
    assert res["acc_rff"].shape == (2, 2) and np.all(res["acc_rff"] > 0.5)


# --------------------------------------------------------------------------- #
# streaming ridge
# --------------------------------------------------------------------------- #
def test_streaming_ridge_equals_ridge_on_the_materialised_features():
    """Second algorithm: ridge by SVD on the full feature matrix."""
    blocks = list(ls.regression_blocks(3000, 4, block_size=700, seed=2))
    X = np.vstack([b[0] for b in blocks])
    y = np.concatenate([b[1] for b in blocks])
    model = ls.StreamingRFFRidge(2.0, 40, 0.5, seed=1).fit_blocks(iter(blocks))
    ref = ridge.ridge(model.rff_.transform(X), y, 0.5, method="svd")
    assert np.allclose(model.coef_, ref, rtol=1e-7, atol=1e-9)
    assert model.n_samples_seen_ == 3000
    again = ls.StreamingRFFRidge(2.0, 40, 0.5, seed=1).fit(X, y, block_size=1000)
    assert np.allclose(again.predict(X[:5]), model.predict(X[:5]), rtol=1e-8, atol=1e-10)


def test_streaming_memory_does_not_grow_with_n():
    """Closed form: peak memory is about two feature blocks, the same for n and 4n."""
    def peak(n):
        return ls.measure(lambda: ls.StreamingRFFRidge(2.0, 50, 1.0, seed=0).fit_blocks(
            ls.regression_blocks(n, 5, block_size=2000, seed=0)))[2]
    p1, p4 = peak(4000), peak(16000)
    assert p4 == pytest.approx(p1, rel=0.1)
    assert p4 == pytest.approx(2 * 2000 * 100 * 8, rel=0.25)


def test_regression_blocks_are_reproducible_and_sized():
    """Brute force: block sizes add up to n; the same seed gives the same data."""
    a = list(ls.regression_blocks(2500, 3, block_size=1000, seed=4))
    b = list(ls.regression_blocks(2500, 3, block_size=1000, seed=4))
    assert [len(blk[1]) for blk in a] == [1000, 1000, 500]
    assert all(np.array_equal(p[0], q[0]) for p, q in zip(a, b, strict=True))
    with pytest.raises(ValueError, match="d must be >= 1"):   # checked at the call, not lazily
        ls.regression_blocks(10, 0)


def test_streaming_validation():
    with pytest.raises(ValueError, match="blocks is empty"):
        ls.StreamingRFFRidge().fit_blocks([])
    with pytest.raises(ValueError, match="lam must be > 0"):
        ls.StreamingRFFRidge(lam=0.0).fit(np.ones((3, 2)), np.ones(3))
    with pytest.raises(ValueError, match="not fitted|fit"):
        ls.StreamingRFFRidge().predict(np.ones((3, 2)))


def test_spectrum_is_sorted_and_matches_numpy():
    """Second algorithm: numpy.linalg.eigvalsh, sorted in decreasing order."""
    A = np.random.default_rng(1).standard_normal((30, 30))
    A = A + A.T
    assert np.allclose(ls.spectrum(A), np.sort(np.linalg.eigvalsh(A))[::-1], atol=1e-10)
