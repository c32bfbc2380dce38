"""kmlib.unsupervised: kernel PCA, MMD, HSIC and their permutation tests.

References trusted here: scikit-learn's KernelPCA and PCA (same kernel, dense solver);
explicit double (or quadruple) loops over the samples; the closed form of MMD^2 between two
Gaussians under the Gaussian kernel; the documented way the permutations are drawn
(reproduced here with the same Generator); and the exact level of a permutation test.
"""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.decomposition import PCA
from sklearn.decomposition import KernelPCA as SkKernelPCA
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import check_estimator

from kmlib import kernels
from kmlib import unsupervised as uns

SIGMA = 1.3
GAMMA = 1.0 / (2.0 * SIGMA**2)  # scikit-learn's rbf with this gamma is gaussian(SIGMA)


def _gauss(a, b, sigma=SIGMA):
    """The Gaussian kernel of two points, written out (no kmlib)."""
    return float(np.exp(-np.sum((np.asarray(a) - np.asarray(b)) ** 2) / (2 * sigma**2)))


def _assert_same_up_to_sign(A, B, atol=1e-8):
    signs = np.sign(np.sum(A * B, axis=0))
    np.testing.assert_allclose(A * signs, B, atol=atol, rtol=0)


def _data(n=80, d=3, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)), rng.normal(size=(15, d))


# --------------------------------------------------------------------------- #
# KernelPCA
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("n_components", [3, 6])
def test_kpca_matches_sklearn(n_components):
    X, Xt = _data()
    ours = uns.KernelPCA(n_components, kernel=kernels.gaussian(SIGMA),
                         fit_inverse_transform=True, alpha=0.1)
    ref = SkKernelPCA(n_components, kernel="rbf", gamma=GAMMA, eigen_solver="dense",
                      fit_inverse_transform=True, alpha=0.1)
    _assert_same_up_to_sign(ours.fit_transform(X), ref.fit_transform(X))
    np.testing.assert_allclose(ours.eigenvalues_, ref.eigenvalues_, rtol=1e-10)
    _assert_same_up_to_sign(ours.eigenvectors_, ref.eigenvectors_)
    Zo, Zr = ours.transform(Xt), ref.transform(Xt)
    _assert_same_up_to_sign(Zo, Zr)
    # the Gaussian kernel on the projections ignores their signs, so the pre-images agree
    np.testing.assert_allclose(ours.inverse_transform(Zo), ref.inverse_transform(Zr), atol=1e-8)
    # on the training set, transform reproduces fit_transform
    np.testing.assert_allclose(ours.transform(X), ours.fit_transform(X), atol=1e-10)


def test_kpca_precomputed_matches_sklearn_and_the_kernel_object():
    X, Xt = _data(seed=1)
    k = kernels.laplacian(0.7)
    ours = uns.KernelPCA(4, kernel="precomputed").fit(k(X))
    ref = SkKernelPCA(4, kernel="precomputed", eigen_solver="dense").fit(k(X))
    obj = uns.KernelPCA(4, kernel=k).fit(X)
    assert ours.__sklearn_tags__().input_tags.pairwise
    assert not obj.__sklearn_tags__().input_tags.pairwise
    np.testing.assert_allclose(ours.eigenvalues_, ref.eigenvalues_, rtol=1e-10)
    _assert_same_up_to_sign(ours.transform(k(Xt, X)), ref.transform(k(Xt, X)))
    np.testing.assert_allclose(obj.transform(Xt), ours.transform(k(Xt, X)), atol=1e-12)
    assert ours.X_fit_ is None


def test_linear_kernel_pca_is_pca():
    # reference: PCA scores; eigenvalues of the centred Gram = (n - 1) * PCA variances
    X, Xt = _data(n=50, d=4, seed=2)
    ours = uns.KernelPCA(kernel=kernels.linear()).fit(X)  # n_components=None: rank d only
    ref = PCA().fit(X)
    assert ours.n_components_ == 4 and ours.eigenvectors_.shape == (50, 4)
    np.testing.assert_allclose(ours.eigenvalues_, (len(X) - 1) * ref.explained_variance_,
                               rtol=1e-10)
    _assert_same_up_to_sign(ours.fit_transform(X), ref.transform(X))
    _assert_same_up_to_sign(ours.transform(Xt), ref.transform(Xt))
    # more components asked than the rank of the centred Gram matrix: as in scikit-learn,
    # n_components columns, zero beyond the rank, unless remove_zero_eig=True
    for remove in (False, True):
        ours = uns.KernelPCA(10, kernel=kernels.linear(), remove_zero_eig=remove).fit(X)
        ref = SkKernelPCA(10, kernel="linear", eigen_solver="dense",
                          remove_zero_eig=remove).fit(X)
        assert ours.n_components_ == ref.eigenvalues_.size == (4 if remove else 10)
        np.testing.assert_allclose(ours.eigenvalues_, ref.eigenvalues_, rtol=1e-10, atol=0)
        _assert_same_up_to_sign(ours.fit_transform(X), ref.fit_transform(X))
        _assert_same_up_to_sign(ours.transform(Xt), ref.transform(Xt))
        assert np.all(ours.transform(Xt)[:, 4:] == 0)


def test_kpca_in_scikit_learn():
    X, Xt = _data(seed=3)
    est = uns.KernelPCA(3, kernel=kernels.gaussian(SIGMA))
    twin = clone(est)
    assert twin is not est and repr(twin.get_params()) == repr(est.get_params())
    pipe = make_pipeline(StandardScaler(), clone(est)).fit(X)
    ref = make_pipeline(StandardScaler(),
                        SkKernelPCA(3, kernel="rbf", gamma=GAMMA, eigen_solver="dense")).fit(X)
    _assert_same_up_to_sign(pipe.transform(Xt), ref.transform(Xt))
    fitted = clone(est).fit(X)
    assert list(fitted.get_feature_names_out()) == ["kernelpca0", "kernelpca1", "kernelpca2"]
    assert list(ref[-1].get_feature_names_out()) == ["kernelpca0", "kernelpca1", "kernelpca2"]
    assert list(pipe.get_feature_names_out()) == ["kernelpca0", "kernelpca1", "kernelpca2"]
    assert isinstance(clone(est).set_output(transform="default").fit_transform(X), np.ndarray)


def test_kpca_set_output_pandas():
    # reference: scikit-learn's naming of a transformer's output columns, as above
    pd = pytest.importorskip("pandas")
    X, _ = _data(seed=3)
    est = uns.KernelPCA(3, kernel=kernels.gaussian(SIGMA))
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    out = clone(est).set_output(transform="pandas").fit_transform(frame)
    assert list(out.columns) == ["kernelpca0", "kernelpca1", "kernelpca2"]
    model = clone(est).set_output(transform="pandas").fit(frame)
    np.testing.assert_allclose(model.transform(frame).to_numpy(), out.to_numpy(), atol=1e-10)
    with pytest.raises(ValueError, match="feature names should match"):
        model.transform(frame[["b", "a", "c"]])


ONE_D_X = "a 1-D X is read as n points on the line (the book's convention)"
NEGATIVE_GRAM = "a precomputed Gram matrix with a negative diagonal entry is rejected"


@pytest.mark.parametrize("est, allowed", [
    (uns.KernelPCA(3, kernel=kernels.gaussian(1.0)), {"check_fit1d": ONE_D_X}),
    (uns.KernelPCA(3, kernel=kernels.gaussian(1.0), fit_inverse_transform=True),
     {"check_fit1d": ONE_D_X}),
    (uns.KernelPCA(3, kernel="precomputed"),
     {"check_positive_only_tag_during_fit": NEGATIVE_GRAM}),
])
def test_check_estimator(est, allowed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(est, on_fail=None)
    failed = {r["check_name"]: repr(r["exception"]) for r in results if r["status"] == "failed"}
    assert not {k: v for k, v in failed.items() if k not in allowed}
    assert len(results) > 30


def test_kpca_inverse_transform_needs_the_flag():
    X, _ = _data()
    est = uns.KernelPCA(2, kernel=kernels.gaussian(1.0), fit_inverse_transform=True).fit(X)
    est.set_params(fit_inverse_transform=False).fit(X)  # a refit forgets the pre-image map
    with pytest.raises(NotFittedError, match="fit_inverse_transform=True"):
        est.inverse_transform(est.transform(X))
    with pytest.raises(ValueError, match="projection"):
        uns.KernelPCA(2, kernel=kernels.gaussian(1.0), fit_inverse_transform=True).fit(
            X).inverse_transform(np.zeros((4, 3)))


@pytest.mark.parametrize("params, X, match", [
    ({"n_components": 0}, None, "n_components must be >= 1"),
    ({"n_components": 2.5}, None, "n_components must be an integer"),
    ({"kernel": "rbf"}, None, "kernel must be a callable"),
    ({"fit_inverse_transform": True, "alpha": 0.0}, None, "alpha must be > 0"),
    ({"kernel": "precomputed", "fit_inverse_transform": True}, None, "precomputed"),
    ({}, [[0.0, np.nan], [1.0, 2.0]], "NaN"),
    ({}, [[1.0, 2.0]], "X has 1 sample.*minimum of 2 is required .KernelPCA centres the data."),
    ({"kernel": "precomputed"}, np.ones((3, 4)), "square"),
])
def test_kpca_bad_input(params, X, match):
    X = _data()[0] if X is None else X
    est = uns.KernelPCA(**{"n_components": 2, "kernel": kernels.gaussian(1.0), **params})
    with pytest.raises(ValueError, match=match):
        est.fit(X)


def test_kpca_transform_checks_the_width():
    X, _ = _data()
    est = uns.KernelPCA(2, kernel=kernels.gaussian(1.0)).fit(X)
    with pytest.raises(ValueError, match="X has 2 features, but KernelPCA is expecting 3"):
        est.transform(np.zeros((4, 2)))


# --------------------------------------------------------------------------- #
# MMD
# --------------------------------------------------------------------------- #
def _expected_k(mu_a, mu_b, sa, sb, sigma, d):
    """E k(X, X') for X ~ N(mu_a, sa^2 I), X' ~ N(mu_b, sb^2 I), Gaussian kernel of width sigma."""
    v = sigma**2 + sa**2 + sb**2
    return (sigma**2 / v) ** (d / 2) * np.exp(-np.sum((mu_a - mu_b) ** 2) / (2 * v))


def _mmd2_gaussians(mu1, mu2, s1, s2, sigma):
    d = len(mu1)
    return (_expected_k(mu1, mu1, s1, s1, sigma, d) + _expected_k(mu2, mu2, s2, s2, sigma, d)
            - 2 * _expected_k(mu1, mu2, s1, s2, sigma, d))


MU1, MU2, S1, S2 = np.zeros(2), np.array([0.6, 0.0]), 1.0, 1.3


def _two_gaussians(rng, m, n):
    return MU1 + S1 * rng.normal(size=(m, 2)), MU2 + S2 * rng.normal(size=(n, 2))


def test_mmd2_matches_double_loops():
    rng = np.random.default_rng(4)
    X, Y = rng.normal(size=(6, 2)), rng.normal(0.5, size=(5, 2))
    m, n = len(X), len(Y)
    kxx = [[_gauss(a, b) for b in X] for a in X]
    kyy = [[_gauss(a, b) for b in Y] for a in Y]
    kxy = sum(_gauss(a, b) for a in X for b in Y)
    biased = np.sum(kxx) / m**2 + np.sum(kyy) / n**2 - 2 * kxy / (m * n)
    off = (sum(kxx[i][j] for i in range(m) for j in range(m) if i != j) / (m * (m - 1))
           + sum(kyy[i][j] for i in range(n) for j in range(n) if i != j) / (n * (n - 1)))
    k = kernels.gaussian(SIGMA)
    assert uns.mmd2(X, Y, kernel=k) == pytest.approx(biased, rel=1e-12)
    assert uns.mmd2(X, Y, kernel=k, unbiased=True) == pytest.approx(off - 2 * kxy / (m * n),
                                                                     rel=1e-12)
    # any callable k(A, B) works, e.g. a plain function
    plain = lambda A, B=None: k(A, B)  # noqa: E731
    assert uns.mmd2(X, Y, kernel=plain) == pytest.approx(biased, rel=1e-12)


def test_unbiased_mmd2_estimates_the_closed_form():
    # 40 independent estimates; the standard error is their standard deviation / sqrt(40)
    rng = np.random.default_rng(5)
    est = np.array([uns.mmd2(*_two_gaussians(rng, 150, 120), kernel=kernels.gaussian(1.0),
                             unbiased=True) for _ in range(40)])
    truth = _mmd2_gaussians(MU1, MU2, S1, S2, 1.0)
    se = est.std(ddof=1) / np.sqrt(len(est))
    assert truth > 10 * se  # the comparison is not vacuous
    assert abs(est.mean() - truth) < 3.5 * se


def test_unbiased_mmd2_has_mean_zero_under_the_null_and_biased_is_positive():
    rng = np.random.default_rng(6)
    k = kernels.gaussian(1.0)
    pairs = [(rng.normal(size=(25, 2)), rng.normal(size=(30, 2))) for _ in range(200)]
    est = np.array([uns.mmd2(X, Y, kernel=k, unbiased=True) for X, Y in pairs])
    assert abs(est.mean()) < 3.5 * est.std(ddof=1) / np.sqrt(len(est))
    assert np.mean(est < 0) > 0.2  # the U-statistic does go negative
    assert min(uns.mmd2(X, Y, kernel=k) for X, Y in pairs[:20]) > 0


def test_mmd2_linear_matches_a_loop_over_pairs():
    rng = np.random.default_rng(7)
    X, Y = rng.normal(size=(9, 2)), rng.normal(0.3, size=(7, 2))  # m = 6 pairs of rows used
    h = [_gauss(X[2 * i], X[2 * i + 1]) + _gauss(Y[2 * i], Y[2 * i + 1])
         - _gauss(X[2 * i], Y[2 * i + 1]) - _gauss(X[2 * i + 1], Y[2 * i]) for i in range(3)]
    assert uns.mmd2_linear(X, Y, kernel=kernels.gaussian(SIGMA)) == pytest.approx(np.mean(h),
                                                                                rel=1e-12)


def test_mmd2_linear_is_unbiased_for_the_closed_form():
    # 30,000 independent terms h_i, computed here row-wise; s.e. = std(h) / sqrt(30,000)
    rng = np.random.default_rng(8)
    X, Y = _two_gaussians(rng, 60_001, 60_000)

    def g(A, B):
        return np.exp(-np.sum((A - B) ** 2, axis=1) / 2.0)

    x1, x2, y1, y2 = X[0:60_000:2], X[1:60_000:2], Y[0::2], Y[1::2]
    h = g(x1, x2) + g(y1, y2) - g(x1, y2) - g(x2, y1)
    stat = uns.mmd2_linear(X, Y, kernel=kernels.gaussian(1.0))
    assert stat == pytest.approx(h.mean(), rel=1e-10)
    truth = _mmd2_gaussians(MU1, MU2, S1, S2, 1.0)
    se = h.std(ddof=1) / np.sqrt(len(h))
    assert truth > 5 * se and abs(stat - truth) < 3.5 * se


def test_median_heuristic():
    rng = np.random.default_rng(9)
    X, Y = rng.normal(size=(7, 2)), rng.normal(size=(5, 2))
    Z = np.vstack([X, Y])
    dists = [np.linalg.norm(Z[i] - Z[j]) for i in range(12) for j in range(i + 1, 12)]
    assert uns.median_heuristic(X, Y) == pytest.approx(np.median(dists), rel=1e-12)
    assert uns.median_heuristic(X) == pytest.approx(
        np.median([np.linalg.norm(X[i] - X[j]) for i in range(7) for j in range(i + 1, 7)]))
    # above max_samples: the documented subsample
    big = rng.normal(size=(300, 2))
    ordered = np.array(sorted(big.tolist()))   # lexicographic order of the rows
    sub = ordered[np.sort(np.random.default_rng(3).choice(300, size=50, replace=False))]
    d_sub = [np.linalg.norm(sub[i] - sub[j]) for i in range(50) for j in range(i + 1, 50)]
    assert uns.median_heuristic(big, max_samples=50, random_state=3) == pytest.approx(
        np.median(d_sub), rel=1e-12)
    with pytest.raises(ValueError, match="median pairwise distance is 0"):
        uns.median_heuristic(np.zeros((5, 2)))


def test_median_heuristic_subsample_does_not_depend_on_the_labelling():
    """Reference: the definition of a permutation test.  Above max_samples the width must be
    the same for every reordering of the pooled points and for X and Y swapped, so that a
    test using it stays exact."""
    rng = np.random.default_rng(4)
    X, Y = rng.normal(size=(150, 2)), rng.normal(1.0, size=(150, 2))
    Z = np.vstack([X, Y])
    width = uns.median_heuristic(X, Y, max_samples=40)
    perm = rng.permutation(300)
    assert uns.median_heuristic(Z[perm[:150]], Z[perm[150:]], max_samples=40) == width
    assert uns.median_heuristic(Y, X, max_samples=40) == width
    assert uns.median_heuristic(Z[::-1], max_samples=40) == width


# --------------------------------------------------------------------------- #
# two_sample_test
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("statistic", ["unbiased", "biased", "linear"])
def test_null_distribution_is_the_statistic_on_the_documented_permutations(statistic):
    rng = np.random.default_rng(10)
    X, Y = rng.normal(size=(13, 2)), rng.normal(0.4, size=(9, 2))
    k = kernels.gaussian(1.0)
    B = 40 if statistic == "linear" else 300  # 300: three blocks of 128, the last partial
    res = uns.two_sample_test(X, Y, kernel=k, n_permutations=B, statistic=statistic,
                              random_state=11)
    if statistic == "linear":
        stat = lambda A, C: uns.mmd2_linear(A, C, kernel=k)  # noqa: E731
    else:
        stat = lambda A, C: uns.mmd2(A, C, kernel=k, unbiased=statistic == "unbiased")  # noqa: E731
    Z, gen = np.vstack([X, Y]), np.random.default_rng(11)
    direct = [stat(Z[p[:13]], Z[p[13:]]) for p in (gen.permutation(22) for _ in range(B))]
    np.testing.assert_allclose(res.null_distribution, direct, rtol=1e-10, atol=1e-13)
    assert res.statistic == pytest.approx(stat(X, Y), rel=1e-12)
    assert res.p_value == (1 + np.sum(res.null_distribution >= res.statistic)) / (1 + B)


def test_two_sample_test_is_reproducible():
    rng = np.random.default_rng(12)
    X, Y = rng.normal(size=(20, 2)), rng.normal(size=(20, 2))
    k = kernels.gaussian(1.0)
    a = uns.two_sample_test(X, Y, kernel=k, n_permutations=50, random_state=3)
    b = uns.two_sample_test(X, Y, kernel=k, n_permutations=50, random_state=3)
    c = uns.two_sample_test(X, Y, kernel=k, n_permutations=50, random_state=4)
    g = uns.two_sample_test(X, Y, kernel=k, n_permutations=50,
                            random_state=np.random.default_rng(3))
    assert isinstance(a, uns.TestResult) and a.null_distribution.shape == (50,)
    np.testing.assert_array_equal(a.null_distribution, b.null_distribution)
    np.testing.assert_array_equal(a.null_distribution, g.null_distribution)
    assert not np.array_equal(a.null_distribution, c.null_distribution)


def test_level_under_the_null_and_power_under_a_shift():
    # B = 39 permutations: p <= 0.05 iff at most one null value reaches the statistic, which
    # under exchangeability happens with probability exactly 2/40 = 0.05
    rng = np.random.default_rng(13)
    k = kernels.gaussian(1.0)
    reps = 200
    p = [uns.two_sample_test(rng.normal(size=(15, 2)), rng.normal(size=(15, 2)), kernel=k,
                             n_permutations=39, random_state=rng).p_value for _ in range(reps)]
    rate = np.mean(np.array(p) <= 0.05)
    assert abs(rate - 0.05) <= 3 * np.sqrt(0.05 * 0.95 / reps)
    for statistic in ("unbiased", "biased"):
        p = [uns.two_sample_test(rng.normal(size=(40, 2)), rng.normal(1.0, size=(40, 2)),
                                 kernel=k, n_permutations=99, statistic=statistic,
                                 random_state=rng).p_value for _ in range(20)]
        assert np.mean(np.array(p) <= 0.05) >= 0.9


# --------------------------------------------------------------------------- #
# HSIC
# --------------------------------------------------------------------------- #
def _paired(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 2))
    return x, np.c_[x[:, 0] ** 2 + 0.3 * rng.normal(size=n)]


def test_biased_hsic_is_the_trace_and_the_v_statistic():
    X, Y = _paired(9, 14)
    n = len(X)
    K = np.array([[_gauss(a, b) for b in X] for a in X])
    L = np.array([[_gauss(a, b, 0.8) for b in Y] for a in Y])
    H = np.eye(n) - np.ones((n, n)) / n
    trace = np.trace(K @ H @ L @ H) / n**2
    vstat = (np.sum(K * L) / n**2 + K.sum() * L.sum() / n**4
             - 2 * sum(K[i, j] * L[i, q] for i in range(n) for j in range(n)
                       for q in range(n)) / n**3)
    ours = uns.hsic(X, Y, kernel_x=kernels.gaussian(SIGMA), kernel_y=kernels.gaussian(0.8))
    assert ours == pytest.approx(trace, rel=1e-12)
    assert ours == pytest.approx(vstat, rel=1e-10)


def test_unbiased_hsic_is_song_et_al_and_the_u_statistic():
    X, Y = _paired(7, 15)
    n = len(X)
    Kt = np.array([[_gauss(a, b) for b in X] for a in X])
    Lt = np.array([[_gauss(a, b) for b in Y] for a in Y])
    np.fill_diagonal(Kt, 0.0)
    np.fill_diagonal(Lt, 0.0)
    one = np.ones(n)
    song = (np.trace(Kt @ Lt) + (one @ Kt @ one) * (one @ Lt @ one) / ((n - 1) * (n - 2))
            - 2 / (n - 2) * one @ Kt @ Lt @ one) / (n * (n - 3))
    # the U-statistic over ordered 4-tuples of distinct indices, whose mean is HSIC
    terms = [Kt[i, j] * Lt[i, j] + Kt[i, j] * Lt[q, r] - 2 * Kt[i, j] * Lt[i, q]
             for i, j, q, r in itertools.permutations(range(n), 4)]
    ours = uns.hsic(X, Y, kernel_x=kernels.gaussian(SIGMA), kernel_y=kernels.gaussian(SIGMA),
                    unbiased=True)
    assert ours == pytest.approx(song, rel=1e-10)
    assert ours == pytest.approx(np.mean(terms), rel=1e-10)


def test_unbiased_hsic_has_mean_zero_for_independent_samples():
    rng = np.random.default_rng(16)
    k = kernels.gaussian(1.0)
    est = np.array([uns.hsic(rng.normal(size=30), rng.normal(size=30), kernel_x=k, kernel_y=k,
                             unbiased=True) for _ in range(300)])
    assert abs(est.mean()) < 3.5 * est.std(ddof=1) / np.sqrt(len(est))


def test_independence_test_permutes_the_rows_of_y_as_documented():
    X, Y = _paired(25, 17)
    kx, ky = kernels.gaussian(1.0), kernels.gaussian(0.5)
    res = uns.independence_test(X, Y, kernel_x=kx, kernel_y=ky, n_permutations=60,
                                random_state=5)
    gen = np.random.default_rng(5)
    direct = [uns.hsic(X, Y[gen.permutation(25)], kernel_x=kx, kernel_y=ky) for _ in range(60)]
    np.testing.assert_allclose(res.null_distribution, direct, rtol=1e-10, atol=1e-14)
    assert res.statistic == pytest.approx(uns.hsic(X, Y, kernel_x=kx, kernel_y=ky), rel=1e-12)
    assert res.p_value == (1 + np.sum(res.null_distribution >= res.statistic)) / 61


def test_independence_test_finds_a_nonlinear_dependence_only():
    rng = np.random.default_rng(18)
    x = rng.normal(size=150)
    y = x**2 + 0.3 * rng.normal(size=150)
    assert abs(np.corrcoef(x, y)[0, 1]) < 0.2  # no linear correlation to find
    k = kernels.gaussian(1.0)
    dep = uns.independence_test(x, y, kernel_x=k, kernel_y=k, n_permutations=199,
                                random_state=0)
    assert dep.p_value == 1 / 200
    ind = uns.independence_test(x, rng.normal(size=150), kernel_x=k, kernel_y=k,
                                n_permutations=199, random_state=0)
    assert ind.p_value > 0.05


# --------------------------------------------------------------------------- #
# bad input
# --------------------------------------------------------------------------- #
K1 = kernels.gaussian(1.0)
GOOD = np.random.default_rng(19).normal(size=(6, 2))


@pytest.mark.parametrize("call, match", [
    (lambda: uns.mmd2(GOOD, GOOD[:, :1], kernel=K1), "same number of features"),
    (lambda: uns.mmd2(GOOD, GOOD[:1], kernel=K1, unbiased=True),
     r"Y has 1 sample\(s\).*minimum of 2 is required \(the unbiased"),
    (lambda: uns.mmd2(GOOD, GOOD, kernel="rbf"), "kernel must be a callable"),
    (lambda: uns.mmd2([[np.inf, 0.0]], GOOD, kernel=K1), "NaN or infinite"),
    (lambda: uns.mmd2(GOOD, GOOD, kernel=lambda A, B=None: np.eye(2)), "shape"),
    (lambda: uns.mmd2_linear(GOOD[:1], GOOD, kernel=K1),
     r"X has 1 sample\(s\).*minimum of 2 is required \(one pair"),
    (lambda: uns.two_sample_test(GOOD, GOOD, kernel=K1, statistic="mean"), "statistic must be"),
    (lambda: uns.two_sample_test(GOOD, GOOD, kernel=K1, n_permutations=0), "n_permutations"),
    (lambda: uns.two_sample_test(GOOD, GOOD, kernel=K1, n_permutations=2.5), "n_permutations"),
    (lambda: uns.two_sample_test(GOOD, GOOD, kernel=K1, random_state="a"), "random_state"),
    (lambda: uns.hsic(GOOD, GOOD[:5], kernel_x=K1, kernel_y=K1), "same number of samples"),
    (lambda: uns.hsic(GOOD[:3], GOOD[:3], kernel_x=K1, kernel_y=K1, unbiased=True),
     r"minimum of 4 is required"),
    (lambda: uns.hsic(GOOD, GOOD, kernel_x=K1, kernel_y=None), "kernel_y must be a callable"),
    (lambda: uns.independence_test(GOOD, GOOD, kernel_x=K1, kernel_y=K1, n_permutations=-1),
     "n_permutations must be >= 1"),
    (lambda: uns.median_heuristic(GOOD, max_samples=1), "max_samples"),
])
def test_bad_input_says_what_is_wrong(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# ------------------------------------------------------------------ ties in permutation tests

@pytest.mark.parametrize("statistic", ["unbiased", "biased"])
def test_two_sample_test_counts_ties_lost_to_rounding(statistic):
    """Reference: exact arithmetic.  With X = Y = [0, 0, 1, 1] the observed split is balanced;
    every statistic is a function of how many 1s each half holds, the observed value is the
    smallest one (checked below by brute force over the 70 splits), so every permuted
    statistic is >= the observed one and p must be 1."""
    X = np.array([0.0, 0.0, 1.0, 1.0])
    res = uns.two_sample_test(X, X, kernel=kernels.gaussian(1.0), statistic=statistic,
                          n_permutations=999, random_state=0)
    # brute force over every split: the observed one is the minimum
    Z = np.concatenate([X, X])
    K = np.exp(-0.5 * (Z[:, None] - Z[None, :]) ** 2)
    vals = []
    for ix in itertools.combinations(range(8), 4):
        a = np.zeros(8, bool)
        a[list(ix)] = True
        kxx, kyy, kxy = K[a][:, a], K[~a][:, ~a], K[a][:, ~a]
        if statistic == "biased":
            vals.append(kxx.mean() + kyy.mean() - 2 * kxy.mean())
        else:
            vals.append((kxx.sum() - 4) / 12 + (kyy.sum() - 4) / 12 - 2 * kxy.mean())
    assert res.statistic <= min(vals) + 1e-12
    assert res.p_value == 1.0


def test_independence_test_counts_ties_lost_to_rounding():
    """Reference: exact rational arithmetic on decimal data (x in {0.3, 0.4, 0.5}, y in
    {0.7, 0.8, 0.9}) with linear kernels, where HSIC is (sum_i (x_i - xbar)(y_i - ybar))^2 / n^2;
    the b-th permutation is the b-th ``rng.permutation(n)`` of ``default_rng(seed)``, as
    documented.  Permuted statistics equal in exact arithmetic must count as ties."""
    from fractions import Fraction

    def exact(a, b):
        n = len(a)
        ma, mb = sum(a) / n, sum(b) / n
        c = sum((u - ma) * (v - mb) for u, v in zip(a, b, strict=True))
        return c * c / n**2

    for seed in range(8):
        r = np.random.default_rng(seed)
        xi, yi = r.integers(0, 3, 8), r.integers(0, 3, 8)
        xe = [Fraction(int(i) + 3, 10) for i in xi]
        ye = [Fraction(int(i) + 7, 10) for i in yi]
        res = uns.independence_test(xi * 0.1 + 0.3, yi * 0.1 + 0.7, kernel_x=kernels.linear(),
                                    kernel_y=kernels.linear(), n_permutations=199,
                                    random_state=seed)
        rng, obs = np.random.default_rng(seed), exact(xe, ye)
        count = sum(exact(xe, [ye[j] for j in rng.permutation(8)]) >= obs for _ in range(199))
        assert res.p_value == (1 + count) / 200


def test_mmd2_linear_evaluates_the_kernel_on_paired_rows_only():
    """Reference: a loop over the pairs with scikit-learn's rbf_kernel on single rows, and a
    count of the kernel values computed (4 per term, as the docstring says)."""
    from sklearn.metrics.pairwise import rbf_kernel

    rng = np.random.default_rng(5)
    X, Y = rng.normal(size=(400, 3)), rng.normal(0.3, size=(400, 3))
    k = kernels.gaussian(SIGMA)

    def kv(a, b):
        return rbf_kernel(a[None], b[None], gamma=GAMMA)[0, 0]
    ref = np.mean([kv(X[2 * i], X[2 * i + 1]) + kv(Y[2 * i], Y[2 * i + 1])
                   - kv(X[2 * i], Y[2 * i + 1]) - kv(X[2 * i + 1], Y[2 * i]) for i in range(200)])
    counted = []

    class Counting(kernels.Kernel):     # delegates to k and counts the values it computes
        def _gram(self, A, B):
            counted.append(len(A) * len(B))
            return k._gram(A, B)

        def _paired(self, A, B):
            counted.append(len(A))
            return k._paired(A, B)

        def _diag(self, A):
            return k._diag(A)

        def __repr__(self):
            return "Counting()"

    assert uns.mmd2_linear(X, Y, kernel=Counting()) == pytest.approx(ref, rel=1e-10, abs=1e-12)
    assert sum(counted) == 4 * 200
    # a plain callable (no paired hook) gives the same statistic through Gram blocks
    plain = uns.mmd2_linear(X, Y, kernel=lambda A, B: rbf_kernel(A, B, gamma=GAMMA))
    assert plain == pytest.approx(ref, rel=1e-10, abs=1e-12)


def test_mmd2_linear_holds_a_block_of_pairs_not_a_copy_of_the_samples():
    """The paired rows are copied block by block: the temporary memory is a small fraction
    of the samples' (here 2 x 16 MB; the indices and the terms take 4 MB)."""
    import tracemalloc

    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(200_000, 10)), rng.normal(size=(200_000, 10))
    tracemalloc.start()
    try:
        uns.mmd2_linear(X, Y, kernel=kernels.gaussian(2.0))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 0.25 * (X.nbytes + Y.nbytes), peak
