"""Tests for kmlib.features (Chapter 9: random features and Nystroem).

References trusted here, never kmlib's own kernels: scikit-learn's ``rbf_kernel``
and ``gaussian_process.kernels.Matern``, explicit numpy formulas, explicit
``numpy.linalg.pinv``, closed-form variances, and the uniform-approximation
theorem's inequality.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import sklearn
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.gaussian_process.kernels import Matern
from sklearn.metrics.pairwise import rbf_kernel

from kmlib import kernels
from kmlib._validation import NotFittedError
from kmlib.features import (
    Nystroem,
    PositiveRandomFeatures,
    RandomFourierFeatures,
    rff_uniform_bound,
)

SIGMA = 0.8


def gaussian_ref(X, sigma=SIGMA):
    return rbf_kernel(X, gamma=1.0 / (2.0 * sigma**2))


def laplacian_ref(X, gamma=1.0 / SIGMA):
    """Euclidean Laplacian exp(-gamma ||x - x'||_2), by explicit numpy."""
    dist = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    return np.exp(-gamma * dist)


def rbf_callable(sigma):
    """A kernel object honouring the k(X, Y=None) contract, built on scikit-learn."""
    def k(A, B=None):
        return rbf_kernel(A, B, gamma=1.0 / (2.0 * sigma**2))
    return k


def points(n=5, d=3, scale=0.6, seed=0):
    return scale * np.random.default_rng(seed).standard_normal((n, d))


def mc_estimates(make, X, reps):
    """Kernel estimates z(x_i)^T z(x_j) for the off-diagonal pairs, one row per seed."""
    iu = np.triu_indices(X.shape[0], k=1)
    out = np.empty((reps, iu[0].size))
    for r in range(reps):
        Z = make(r).fit_transform(X)
        out[r] = (Z @ Z.T)[iu]
    return out, iu


# ---------------------------------------------------------------------------
# Unbiasedness (Bochner): the mean over seeds converges to the kernel
# ---------------------------------------------------------------------------

CASES = [
    ("gaussian-sklearn-rbf", dict(kernel="gaussian"), gaussian_ref),
    ("laplacian-explicit-l2", dict(kernel="laplacian"), laplacian_ref),
    ("matern0.5-sklearn", dict(kernel="matern", nu=0.5), Matern(length_scale=SIGMA, nu=0.5)),
    ("matern1.5-sklearn", dict(kernel="matern", nu=1.5), Matern(length_scale=SIGMA, nu=1.5)),
    ("matern2.5-sklearn", dict(kernel="matern", nu=2.5), Matern(length_scale=SIGMA, nu=2.5)),
    ("matern1.2-sklearn", dict(kernel="matern", nu=1.2), Matern(length_scale=SIGMA, nu=1.2)),
    ("matern-inf-sklearn-rbf", dict(kernel="matern", nu=np.inf), gaussian_ref),
]


@pytest.mark.parametrize("variant", ["cos_sin", "cos_phase"])
@pytest.mark.parametrize("name,kw,ref", CASES, ids=[c[0] for c in CASES])
def test_rff_mean_over_seeds_matches_reference_kernel(name, kw, ref, variant):
    """Reference: scikit-learn rbf_kernel / Matern, or explicit exp(-gamma ||delta||_2);
    tolerance 5 Monte Carlo standard errors, pairs in d = 3."""
    X = points()
    K = ref(X)
    est, iu = mc_estimates(
        lambda r: RandomFourierFeatures(sigma=SIGMA, n_features=40, variant=variant,
                                        random_state=1000 + r, **kw),
        X, reps=300)
    mean = est.mean(0)
    se = est.std(0, ddof=1) / math.sqrt(est.shape[0])
    assert np.all(se > 0)
    assert np.all(np.abs(mean - K[iu]) <= 5 * se), (mean, K[iu], se)


@pytest.mark.parametrize("variant", ["cos_sin", "cos_phase"])
def test_rff_transform_on_threads_gives_the_same_bits(monkeypatch, variant):
    """Blocks of rows finished by a pool of threads (large outputs) or by the calling thread:
    each block is computed alone, so the features are the same bits."""
    import threadpoolctl

    import kmlib.features.fourier as fourier
    X = np.random.default_rng(3).normal(size=(3000, 4))
    rff = RandomFourierFeatures(sigma=0.7, n_features=64, variant=variant, random_state=1).fit(X)
    with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
        alone = rff.transform(X)
    monkeypatch.setattr(fourier, "_THREADED_ENTRIES", 1)
    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"), \
            sklearn.config_context(working_memory=0.05):   # many blocks of rows
        pooled = rff.transform(X)
    assert np.array_equal(alone, pooled)


def test_laplacian_rff_is_euclidean_not_l1():
    """Reference: explicit exp(-||delta||_1/sigma). The multivariate-Cauchy frequencies target
    the l2 Laplacian; the product-of-Cauchy (l1) kernel is a different kernel in d > 1."""
    X = np.array([[0.0, 0.0, 0.0], [0.3, 0.3, 0.3], [0.4, -0.2, 0.1], [-0.3, 0.2, 0.2]])
    dist1 = np.abs(X[:, None, :] - X[None, :, :]).sum(-1)
    K1 = np.exp(-dist1 / SIGMA)
    K2 = laplacian_ref(X)
    est, iu = mc_estimates(
        lambda r: RandomFourierFeatures(sigma=SIGMA, n_features=200, kernel="laplacian",
                                        random_state=r), X, reps=200)
    mean = est.mean(0)
    se = est.std(0, ddof=1) / math.sqrt(est.shape[0])
    assert np.all(np.abs(mean - K2[iu]) <= 5 * se)
    assert np.all(np.abs(mean - K1[iu]) > 5 * se)


def test_cos_sin_diagonal_is_exactly_one():
    """Closed form: cos^2 + sin^2 = 1, so z(x)^T z(x) = k(x, x) = 1 for every draw."""
    X = points(n=20)
    Z = RandomFourierFeatures(sigma=SIGMA, n_features=17, kernel="matern", nu=1.5,
                              random_state=0).fit_transform(X)
    np.testing.assert_allclose(np.einsum("ij,ij->i", Z, Z), 1.0, rtol=0, atol=1e-12)


# ---------------------------------------------------------------------------
# Variance falls like 1/D, with the closed-form constants of Exercise 5(a)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("variant", ["cos_sin", "cos_phase"])
def test_variance_scales_like_one_over_D(variant):
    """Reference: closed-form variances for the Gaussian kernel, (1 - k^2)^2 / (2D) for the
    cos/sin pairs and (1 - k^2 + k^4/2) / D for random phases; log-log slope -1 +- 0.15."""
    X = np.array([[0.0, 0.0, 0.0], [0.5, -0.3, 0.4]])
    k = gaussian_ref(X)[0, 1]
    Ds = 16 * 2 ** np.arange(7)  # 16, ..., 1024
    reps = 300
    var = np.empty(Ds.size)
    for a, D in enumerate(Ds):
        est = np.empty(reps)
        for r in range(reps):
            Z = RandomFourierFeatures(sigma=SIGMA, n_features=int(D), variant=variant,
                                      random_state=10_000 * a + r).fit_transform(X)
            est[r] = Z[0] @ Z[1]
        var[a] = est.var(ddof=1)
    slope = np.polyfit(np.log(Ds), np.log(var), 1)[0]
    assert abs(slope + 1.0) <= 0.15, slope
    c = (1 - k**2) ** 2 / 2 if variant == "cos_sin" else 1 - k**2 + k**4 / 2
    np.testing.assert_allclose(np.mean(Ds * var), c, rtol=0.15)


# ---------------------------------------------------------------------------
# Uniform approximation theorem
# ---------------------------------------------------------------------------

def test_rff_uniform_bound_closed_form():
    """Reference: the theorem's formula D >= (2/eps^2) log(2N^2/delta), and the value
    2303 for N=50, eps=0.1, delta=0.05 (hand computation of the closed form)."""
    assert rff_uniform_bound(50, 0.1, 0.05) == 2303
    for N, eps, delta in [(1, 0.5, 0.5), (10, 0.25, 0.1), (1000, 0.05, 0.01)]:
        D = rff_uniform_bound(N, eps, delta)
        target = 2 / eps**2 * math.log(2 * N**2 / delta)
        assert isinstance(D, int)
        assert D >= target > D - 1
        Dp = rff_uniform_bound(N, eps, delta, variant="cos_phase")
        assert Dp >= 8 / eps**2 * math.log(2 * N**2 / delta) > Dp - 1


@pytest.mark.parametrize("variant", ["cos_sin", "cos_phase"])
def test_uniform_error_at_bound_holds_in_most_seeds(variant):
    """Reference: the theorem's guarantee, max_ij |z_i^T z_j - k_ij| <= eps with probability
    >= 1 - delta, checked as a share of 40 seeds (kernel from scikit-learn)."""
    N, eps, delta, seeds = 15, 0.25, 0.1, 40
    X = points(n=N, d=3, scale=1.0, seed=7)
    K = gaussian_ref(X)
    D = rff_uniform_bound(N, eps, delta, variant=variant)
    ok = 0
    for s in range(seeds):
        Z = RandomFourierFeatures(sigma=SIGMA, n_features=D, variant=variant,
                                  random_state=s).fit_transform(X)
        ok += np.max(np.abs(Z @ Z.T - K)) <= eps
    assert ok >= (1 - delta) * seeds


# ---------------------------------------------------------------------------
# Shapes, determinism
# ---------------------------------------------------------------------------

def test_output_dimensions_and_attributes():
    """Closed form: cos_sin gives 2D columns (cosines then sines), cos_phase gives D."""
    X = points(n=7, d=4)
    f = RandomFourierFeatures(sigma=SIGMA, n_features=250, random_state=0).fit(X)
    Z = f.transform(X)
    assert Z.shape == (7, 500) and f.n_output_features_ == 500 and Z.dtype == np.float64
    assert f.W_.shape == (4, 250) and f.u_ is None
    np.testing.assert_allclose(Z[:, :250], np.cos(X @ f.W_) / math.sqrt(250), atol=1e-14)
    np.testing.assert_allclose(Z[:, 250:], np.sin(X @ f.W_) / math.sqrt(250), atol=1e-14)
    g = RandomFourierFeatures(sigma=SIGMA, n_features=500, variant="cos_phase",
                              random_state=0).fit(X)
    Zp = g.transform(X)
    assert Zp.shape == (7, 500) and g.u_.shape == (500,)
    assert np.all((g.u_ >= -np.pi) & (g.u_ <= np.pi))
    np.testing.assert_allclose(Zp, math.sqrt(2 / 500) * np.cos(X @ g.W_ + g.u_), atol=1e-14)


def test_transform_matches_explicit_sin_cos_many_rows():
    """Explicit numpy np.cos and np.sin (the sines are computed as shifted cosines)."""
    X = points(n=9000, d=2, seed=5)
    f = RandomFourierFeatures(sigma=SIGMA, n_features=3, random_state=1).fit(X)
    P = X @ f.W_
    np.testing.assert_allclose(f.transform(X), np.hstack([np.cos(P), np.sin(P)]) / math.sqrt(3),
                               atol=1e-14)


def test_gaussian_frequency_law():
    """Reference: W ~ N(0, sigma^-2 I), checked by the sample second moment (many draws)."""
    f = RandomFourierFeatures(sigma=0.5, n_features=200_000, random_state=0).fit(np.zeros((1, 2)))
    np.testing.assert_allclose(f.W_.var(axis=1), 1 / 0.25, rtol=0.02)
    assert abs(np.corrcoef(f.W_)[0, 1]) < 0.01


@pytest.mark.parametrize("cls,args", [
    (RandomFourierFeatures, dict(sigma=1.0, n_features=8, kernel="matern", nu=1.5,
                                 variant="cos_phase")),
    (PositiveRandomFeatures, dict(n_features=8)),
    (Nystroem, dict(kernel=rbf_callable(1.0), n_components=5)),
])
def test_determinism_with_seed(cls, args):
    """Same int seed -> identical output (also on refit); different seeds -> different;
    a Generator seed advances between fits."""
    X = points(n=12)
    a = cls(random_state=3, **args).fit_transform(X)
    est = cls(random_state=3, **args)
    b = est.fit_transform(X)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, est.fit_transform(X))
    c = cls(random_state=4, **args).fit_transform(X)
    assert not np.allclose(a, c)
    g = cls(random_state=np.random.default_rng(0), **args)
    assert not np.allclose(g.fit_transform(X), g.fit_transform(X))


# ---------------------------------------------------------------------------
# Nystroem
# ---------------------------------------------------------------------------

def test_nystroem_exact_when_all_points_are_landmarks():
    """Reference: scikit-learn rbf_kernel; with m = n, Phi Phi^T = K."""
    X = points(n=60, d=2, scale=1.5, seed=1)
    K = gaussian_ref(X, 1.0)
    ny = Nystroem(kernel=rbf_callable(1.0), n_components=60, random_state=0).fit(X)
    Phi = ny.transform(X)
    assert Phi.shape == (60, 60)
    np.testing.assert_allclose(Phi @ Phi.T, K, rtol=0, atol=1e-8)


def test_nystroem_matches_explicit_pinv_formula():
    """Reference: K_nm pinv(K_mm) K_mn with numpy.linalg.pinv, on train and new points."""
    X = points(n=200, d=2, scale=2.0, seed=2)
    Xnew = points(n=30, d=2, scale=2.0, seed=9)
    k = rbf_callable(0.7)
    ny = Nystroem(kernel=k, n_components=25, random_state=1).fit(X)
    idx = ny.component_indices_
    assert idx.shape == (25,) and np.unique(idx).size == 25
    assert idx.min() >= 0 and idx.max() < 200
    np.testing.assert_array_equal(ny.components_, X[idx])
    Kmm_pinv = np.linalg.pinv(k(X[idx], X[idx]), hermitian=True)
    ref = k(X, X[idx]) @ Kmm_pinv @ k(X[idx], X)
    Phi = ny.transform(X)
    np.testing.assert_allclose(Phi @ Phi.T, ref, rtol=0, atol=1e-8)
    ref_new = k(Xnew, X[idx]) @ Kmm_pinv @ k(X[idx], X)
    np.testing.assert_allclose(ny.transform(Xnew) @ Phi.T, ref_new, rtol=0, atol=1e-8)
    # the landmark columns are reproduced exactly
    K = k(X, X)
    np.testing.assert_allclose((Phi @ Phi.T)[:, idx], K[:, idx], rtol=0, atol=1e-8)


def test_nystroem_rank_deficient_landmark_gram():
    """Reference: explicit pinv (with a matching cut-off) for the linear kernel in d = 3 with
    10 landmarks: K_mm has rank 3; the pseudo-inverse drops its null space and, since
    the landmarks span R^3, Phi Phi^T equals the full linear Gram matrix."""
    X = points(n=40, d=3, scale=1.0, seed=4)

    def linear(A, B=None):
        return A @ (A if B is None else B).T

    ny = Nystroem(kernel=linear, n_components=10, random_state=0, rtol=1e-10).fit(X)
    assert ny.rank_ == 3
    assert np.all(np.isfinite(ny.normalization_))
    Phi = ny.transform(X)
    L = ny.components_
    ref = (X @ L.T) @ np.linalg.pinv(L @ L.T, rtol=1e-10, hermitian=True) @ (L @ X.T)
    np.testing.assert_allclose(Phi @ Phi.T, ref, atol=1e-8)
    np.testing.assert_allclose(Phi @ Phi.T, X @ X.T, atol=1e-8)


def test_nystroem_any_kernel_matern():
    """Reference: scikit-learn's Matern(nu=1.5) used both as the kernel object and in the
    explicit pinv formula; Nystroem needs only the callable contract."""
    X = points(n=50, d=2, scale=1.0, seed=6)
    m = Matern(length_scale=0.5, nu=1.5)
    k = lambda A, B=None: m(A, B)  # noqa: E731
    ny = Nystroem(kernel=k, n_components=15, random_state=2).fit(X)
    L = ny.components_
    ref = m(X, L) @ np.linalg.pinv(m(L), hermitian=True) @ m(L, X)
    Phi = ny.transform(X)
    np.testing.assert_allclose(Phi @ Phi.T, ref, atol=1e-8)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), m=st.integers(1, 20),
       sigma=st.floats(0.3, 3.0))
def test_nystroem_schur_complement_is_psd(seed, m, sigma):
    """Theorem (Schur complement): K - K_nm K_mm^+ K_mn is PSD, and symmetric; checked by
    numpy eigvalsh on a scikit-learn Gram matrix."""
    X = np.random.default_rng(seed).uniform(-2, 2, size=(20, 2))
    k = rbf_callable(sigma)
    Phi = Nystroem(kernel=k, n_components=m, random_state=seed).fit_transform(X)
    R = k(X) - Phi @ Phi.T
    assert np.min(np.linalg.eigvalsh(0.5 * (R + R.T))) >= -1e-8


# ---------------------------------------------------------------------------
# Positive random features (softmax kernel)
# ---------------------------------------------------------------------------

def test_positive_features_unbiased_for_softmax_kernel():
    """Reference: exp(x^T x') (explicit numpy) within 5 Monte Carlo s.e., and the closed-form
    variance (1/D) e^{2 x^T x'} (e^{||x + x'||^2} - 1) within 15%."""
    rng = np.random.default_rng(11)
    X = 0.4 * rng.standard_normal((2, 3))
    D, reps = 20, 3000
    est = np.empty(reps)
    for r in range(reps):
        P = PositiveRandomFeatures(n_features=D, random_state=r).fit_transform(X)
        est[r] = P[0] @ P[1]
    target = math.exp(X[0] @ X[1])
    se = est.std(ddof=1) / math.sqrt(reps)
    assert abs(est.mean() - target) <= 5 * se
    var_ref = math.exp(2 * X[0] @ X[1]) * (math.exp(np.sum((X[0] + X[1]) ** 2)) - 1) / D
    np.testing.assert_allclose(est.var(ddof=1), var_ref, rtol=0.15)


def test_positive_features_are_positive_and_match_formula():
    """Explicit numpy formula exp(-||x||^2/2 + w^T x)/sqrt(D); every entry > 0."""
    X = points(n=30, d=4, scale=1.5, seed=8)
    f = PositiveRandomFeatures(n_features=64, random_state=0).fit(X)
    P = f.transform(X)
    assert P.shape == (30, 64) and f.W_.shape == (4, 64)
    assert np.all(P > 0)
    ref = np.exp(X @ f.W_ - 0.5 * (X**2).sum(1)[:, None]) / 8.0
    np.testing.assert_allclose(P, ref, rtol=1e-13)


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------

X_OK = points(n=10, d=3)


@pytest.mark.parametrize("kwargs,match", [
    (dict(sigma=0.0), "sigma"),
    (dict(sigma=-1.0), "sigma"),
    (dict(sigma=float("nan")), "sigma"),
    (dict(sigma="1"), "sigma"),
    (dict(n_features=0), "n_features"),
    (dict(n_features=2.5), "n_features"),
    (dict(variant="cos"), "variant"),
    (dict(kernel="polynomial"), "kernel"),
    (dict(kernel="matern"), "nu"),
    (dict(kernel="matern", nu=0.0), "nu"),
    (dict(kernel="matern", nu=-1.5), "nu"),
    (dict(kernel="matern", nu=float("nan")), "nu"),
    (dict(kernel="gaussian", nu=1.5), "nu"),
    (dict(random_state="abc"), "random_state"),
])
def test_rff_bad_hyperparameters(kwargs, match):
    params = dict(sigma=1.0, n_features=10)
    params.update(kwargs)
    with pytest.raises(ValueError, match=match):
        RandomFourierFeatures(**params).fit(X_OK)


@pytest.mark.parametrize("make", [
    lambda: RandomFourierFeatures(sigma=1.0, n_features=10, random_state=0),
    lambda: PositiveRandomFeatures(n_features=10, random_state=0),
    lambda: Nystroem(kernel=rbf_callable(1.0), n_components=5, random_state=0),
], ids=["rff", "positive", "nystroem"])
def test_bad_data_everywhere(make):
    """NotFittedError before fit; NaN in fit or transform; dimension mismatch."""
    with pytest.raises(NotFittedError, match="not fitted"):
        make().transform(X_OK)
    bad = X_OK.copy()
    bad[2, 1] = np.nan
    with pytest.raises(ValueError, match="X contains"):
        make().fit(bad)
    est = make().fit(X_OK)
    with pytest.raises(ValueError, match="X contains"):
        est.transform(bad)
    with pytest.raises(ValueError, match="feature"):
        est.transform(X_OK[:, :2])
    with pytest.raises(ValueError, match="X"):
        make().fit(np.zeros((0, 3)))


def test_positive_features_bad_n_features():
    with pytest.raises(ValueError, match="n_features"):
        PositiveRandomFeatures(n_features=0).fit(X_OK)
    with pytest.raises(ValueError, match="n_features"):
        PositiveRandomFeatures(n_features="8").fit(X_OK)


def test_nystroem_bad_input():
    # more components than samples: scikit-learn's Nystroem warns and clips to n_samples
    with pytest.warns(UserWarning, match="n_components=11 > n_samples=10"):
        ny = Nystroem(kernel=rbf_callable(1.0), n_components=11).fit(X_OK)
    assert ny.components_.shape[0] == 10 and ny.transform(X_OK).shape == (10, 10)
    with pytest.raises(ValueError, match="n_components"):
        Nystroem(kernel=rbf_callable(1.0), n_components=0).fit(X_OK)
    with pytest.raises(ValueError, match="kernel must be a callable"):
        Nystroem(kernel="rbf", n_components=5).fit(X_OK)
    with pytest.raises(ValueError, match="rtol"):
        Nystroem(kernel=rbf_callable(1.0), n_components=5, rtol=-1.0).fit(X_OK)
    with pytest.raises(ValueError, match=r"kernel\(X(, Y)?\) must return a Gram matrix of shape"):
        Nystroem(kernel=lambda A, B=None: np.ones((2, 2)), n_components=5).fit(X_OK)
    with pytest.raises(ValueError, match=r"kernel\(X(, Y)?\) returned NaN"):
        Nystroem(kernel=lambda A, B=None: np.full((len(A), len(B)), np.nan),
                 n_components=5).fit(X_OK)


@pytest.mark.parametrize("args,kw,match", [
    ((0, 0.1, 0.1), {}, "N"),
    ((10, 0.0, 0.1), {}, "eps"),
    ((10, 1.0, 0.1), {}, "eps"),
    ((10, 0.1, 0.0), {}, "delta"),
    ((10, 0.1, 1.5), {}, "delta"),
    ((10.5, 0.1, 0.1), {}, "N"),
    ((10, 0.1, 0.1), {"variant": "sin"}, "variant"),
])
def test_rff_uniform_bound_bad_input(args, kw, match):
    with pytest.raises(ValueError, match=match):
        rff_uniform_bound(*args, **kw)


@pytest.mark.parametrize("kernel_obj, named", [
    (kernels.gaussian(2.0), dict(kernel="gaussian", sigma=2.0)),
    (kernels.laplacian(0.5), dict(kernel="laplacian", sigma=2.0)),
    (kernels.matern(1.5, 2.0), dict(kernel="matern", sigma=2.0, nu=1.5)),
])
def test_rff_takes_a_kernel_object_like_the_other_estimators(kernel_obj, named):
    """Reference: the family-name form with the same parameters (gamma = 1/sigma for the
    Laplacian) draws the same frequencies from the same seed."""
    X = np.random.default_rng(0).standard_normal((6, 3))
    a = RandomFourierFeatures(kernel=kernel_obj, n_features=9, random_state=4).fit_transform(X)
    b = RandomFourierFeatures(n_features=9, random_state=4, **named).fit_transform(X)
    np.testing.assert_array_equal(a, b)
    for sigma in (3.0, 1.0):   # 1.0 too: an explicit sigma is never silently ignored
        with pytest.raises(ValueError, match="leave sigma=None and nu=None"):
            RandomFourierFeatures(kernel=kernel_obj, sigma=sigma).fit(X)
    with pytest.raises(ValueError, match="spectral density"):
        RandomFourierFeatures(kernel=kernels.polynomial(2)).fit(X)


def test_transforms_report_an_overflow_instead_of_returning_nan():
    # reference: float64's range; X @ W beyond it makes cos NaN (RFF), and kernel values
    # near it times a large normalisation overflow (Nystroem with (x.y)^2 fitted on small
    # points); both raise the ValueError of kmlib's finite results.  Features near the
    # top of the range pass (their sum overflows, every entry is looked at), and so do
    # ordinary ones
    from kmlib.kernels import polynomial

    X = np.random.default_rng(0).normal(size=(30, 3))
    rff = RandomFourierFeatures(sigma=1e-300, n_features=5, random_state=0).fit(X)
    with pytest.raises(ValueError, match="the result is not finite"):
        rff.transform(1e10 * X)
    assert np.all(np.abs(rff.transform(X)) <= 1 / math.sqrt(5))
    nys = Nystroem(kernel=polynomial(2, 0.0), n_components=3, random_state=0).fit(0.01 * X)
    with pytest.raises(ValueError, match="the result is not finite"):
        nys.transform(1e154 * X)
    big = nys.transform(2e153 * X)
    with np.errstate(over="ignore"):
        assert np.all(np.isfinite(big)) and not np.isfinite(big.sum())
    assert np.all(np.isfinite(nys.transform(X)))
