"""Shared infrastructure: validation, folds, stated numbers, plotting helpers, data."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import BaseEstimator
from sklearn.model_selection import KFold as SkKFold

from kmlib import NotFittedError, datasets
from kmlib._folds import KFold, resolve_folds
from kmlib._validation import (
    check_constraints,
    check_fitted,
    check_int,
    check_labels,
    check_lam,
    check_matrix,
    check_rng,
    check_square,
    check_vector,
)
from kmlib.book import plotting, stated

# ------------------------------------------------------------------ validation

def test_check_matrix_reads_1d_as_points_in_one_dimension():
    assert check_matrix([1.0, 2.0, 3.0]).shape == (3, 1)


@pytest.mark.parametrize("bad, match", [
    ([[1.0, np.nan]], "NaN or infinite"),
    ([[1.0, np.inf]], "NaN or infinite"),
    (np.zeros((0, 3)), "empty"),
    (np.zeros((2, 2, 2)), "2-D"),
    ("abc", "numeric"),
])
def test_check_matrix_rejects_bad_input_by_name(bad, match):
    with pytest.raises(ValueError, match=match) as info:
        check_matrix(bad, "Xtrain")
    assert "Xtrain" in str(info.value)


def test_scalar_and_label_checks():
    with pytest.raises(ValueError, match="lam must be >= 0"):
        check_lam(-1.0)
    with pytest.raises(ValueError, match=">= 0"):
        check_lam([0.1, -2.0], allow_array=True)
    with pytest.raises(ValueError, match="labels -1 and 1"):
        check_labels([0, 1, 1])
    with pytest.raises(ValueError, match="integer"):
        check_int(2.5, "n_splits")
    with pytest.raises(ValueError, match="callable"):
        check_constraints("kernel", "rbf", ["callable kernel"])
    with pytest.raises(ValueError, match="square"):
        check_square(np.ones((2, 3)))
    with pytest.raises(ValueError, match="1-D"):
        check_vector(np.ones((3, 2)))
    with pytest.raises(ValueError, match="seed"):
        check_rng("zero")
    assert check_labels([-1, 1, 1]).tolist() == [-1.0, 1.0, 1.0]


def test_not_fitted_error_is_a_value_error_with_a_clear_message():
    class Est(BaseEstimator):   # scikit-learn's rule: fitted once fit has set the attribute
        def fit(self, X, y=None):
            self.coef_ = 1.0
            return self
    with pytest.raises(NotFittedError, match="Est instance is not fitted yet"):
        check_fitted(Est(), "coef_")
    check_fitted(Est().fit(None), "coef_")
    assert issubclass(NotFittedError, ValueError)


def test_rng_is_deterministic_given_a_seed():
    assert check_rng(3).random() == check_rng(3).random()


def test_random_state_takes_a_legacy_random_state_as_scikit_learn_does():
    """Reference: scikit-learn's check_random_state contract: a RandomState is accepted, the
    same state gives the same draws, and the state advances."""
    from kmlib import kernels
    from kmlib.features import Nystroem, RandomFourierFeatures

    X = np.random.default_rng(0).normal(size=(30, 2))
    for make in (lambda rs: RandomFourierFeatures(n_features=5, random_state=rs),
                 lambda rs: Nystroem(kernel=kernels.gaussian(1.0), n_components=5,
                                     random_state=rs)):
        a = make(np.random.RandomState(7)).fit_transform(X)
        b = make(np.random.RandomState(7)).fit_transform(X)
        np.testing.assert_array_equal(a, b)
    rs = np.random.RandomState(7)
    first, second = check_rng(rs).random(), check_rng(rs).random()
    assert first != second                      # the RandomState advanced
    assert first == check_rng(np.random.RandomState(7)).random()
    folds = [KFold(3, random_state=np.random.RandomState(1)).fold_of(9) for _ in range(2)]
    np.testing.assert_array_equal(*folds)
    np.testing.assert_array_equal(np.sort(folds[0]), [0, 0, 0, 1, 1, 1, 2, 2, 2])
    with pytest.raises(ValueError, match="RandomState"):
        check_rng("seed")


# ------------------------------------------------------------------ folds

@pytest.mark.parametrize("n, v", [(10, 3), (7, 7), (100, 5), (11, 2)])
def test_kfold_without_shuffle_equals_scikit_learn(n, v):
    ours = [te.tolist() for _, te in KFold(v, shuffle=False).split(n)]
    theirs = [te.tolist() for _, te in SkKFold(v, shuffle=False).split(np.zeros((n, 1)))]
    assert ours == theirs


def test_shuffled_kfold_partitions_and_is_seeded():
    folds = list(KFold(4, random_state=1).split(23))
    tests = np.concatenate([te for _, te in folds])
    assert sorted(tests.tolist()) == list(range(23))
    assert sorted(len(te) for _, te in folds) == [5, 6, 6, 6]
    for tr, te in folds:
        assert np.intersect1d(tr, te).size == 0 and len(tr) + len(te) == 23
    again = list(KFold(4, random_state=1).split(23))
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(folds, again, strict=False))
    kappa = KFold(4, random_state=1).fold_of(23)
    for j, (_, te) in enumerate(folds):
        assert np.all(kappa[te] == j)


def test_resolve_folds_int_means_seeded_shuffled_kfold():
    a = resolve_folds(5, 20)
    b = list(KFold(5, shuffle=True, random_state=0).split(20))
    assert all(np.array_equal(x[1], y[1]) for x, y in zip(a, b, strict=False))


@pytest.mark.parametrize("folds, match", [
    (11, "n_splits must be <="),
    (1, "n_splits must be >= 2"),
    ([(np.arange(5), np.arange(5, 10))], "at least 2"),
    ([(np.arange(5), np.arange(5, 9)), (np.arange(5, 10), np.arange(5))], "partition"),
    ([(np.arange(6), np.arange(5, 10)), (np.arange(5, 10), np.arange(5))], "overlaps"),
    ("abc", "iterable"),
    # float indices are refused, not truncated; so is a boolean mask of the wrong length
    ([(np.arange(5) + 0.5, np.arange(5, 10)), (np.arange(5, 10), np.arange(5))],
     "integer indices"),
    ([(np.arange(12) >= 6, np.arange(12) < 6), (np.arange(12) < 6, np.arange(12) >= 6)],
     "integer indices"),
])
def test_resolve_folds_rejects_bad_folds(folds, match):
    with pytest.raises(ValueError, match=match):
        resolve_folds(folds, 10)


def test_resolve_folds_reads_boolean_masks_as_scikit_learn_does():
    # a mask of length n is the indices where it is True (it used to be cast to the indices 0/1)
    first = np.arange(10) < 5
    masks = resolve_folds([(~first, first), (first, ~first)], 10)
    index = resolve_folds([(np.arange(5, 10), np.arange(5)), (np.arange(5), np.arange(5, 10))], 10)
    assert all(np.array_equal(a, b) for m, i in zip(masks, index, strict=True)
               for a, b in zip(m, i, strict=True))


# ------------------------------------------------------------------ stated numbers

def test_stated_returns_a_plain_number_within_tolerance():
    v = stated("pi_approx", np.float64(3.14159), np.pi, rtol=1e-5)
    assert type(v) is float and v == 3.14159
    assert stated("count", np.int64(7), 7) == 7


def test_stated_fails_naming_key_value_and_expectation():
    with pytest.raises(AssertionError, match=r"'drifted'.*3\.5.*3\.0"):
        stated("drifted", 3.5, 3.0, rtol=0.1)


def test_stated_intervals_encode_inequalities():
    stated("positive_eig", 1e-3, (0.0, np.inf))
    with pytest.raises(AssertionError, match="outside the expected interval"):
        stated("negative_eig", 1e-3, (-np.inf, 0.0))


def test_stated_rejects_non_finite_and_non_scalars():
    with pytest.raises(AssertionError, match="not a finite"):
        stated("nan_value", np.nan, 0.0, atol=1.0)
    with pytest.raises(ValueError, match="scalar"):
        stated("vector", np.ones(3), 1.0)
    with pytest.raises(ValueError, match="identifier"):
        stated("has space", 1.0, 1.0)


def test_stated_fmt_controls_the_displayed_text():
    from kmlib.book import Formatted
    assert repr(Formatted(0.123456, ".2%")) == "12.35%"


# ------------------------------------------------------------------ plotting

def test_loglog_slope_recovers_a_power_law():
    x = np.array([1.0, 2.0, 4.0, 8.0])
    assert plotting.loglog_slope(x, 3 * x ** -1.5) == pytest.approx(-1.5)
    with pytest.raises(ValueError, match="positive"):
        plotting.loglog_slope(x, -x)


def test_figure_uses_the_book_palette():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plotting.figure()
    line, = ax.plot([0, 1], [0, 1])
    assert line.get_color().lower() == plotting.PALETTE[0].lower()
    slope = plotting.add_slope_line(ax, [1, 10, 100], [1, 0.1, 0.01])
    assert slope == pytest.approx(-1.0)
    plt.close(fig)


# ------------------------------------------------------------------ data

def test_linear_model_matches_its_definition_and_is_seeded():
    X, y, beta = datasets.linear_model(200, 3, beta=[1.0, -2.0, 0.5], noise=0.0, random_state=0)
    np.testing.assert_allclose(y, X @ beta)
    X2, y2, _ = datasets.linear_model(200, 3, beta=[1.0, -2.0, 0.5], noise=0.0, random_state=0)
    np.testing.assert_array_equal(X, X2)
    with pytest.raises(ValueError, match="beta must have length"):
        datasets.linear_model(10, 3, beta=[1.0, 2.0])
    with pytest.raises(ValueError, match="rho"):
        datasets.linear_model(10, 3, rho=1.0)


def test_linear_model_equicorrelation():
    X, _, _ = datasets.linear_model(20000, 2, rho=0.6, random_state=1)
    assert np.corrcoef(X.T)[0, 1] == pytest.approx(0.6, abs=0.02)


def test_diabetes_is_the_bundled_scikit_learn_data():
    X, y, names = datasets.diabetes()
    assert X.shape == (442, 10) and y.shape == (442,) and len(names) == 10


def test_check_symmetric_rejects_asymmetry_and_non_finite_entries_tile_by_tile():
    """Reference: the definition |K - K^T| <= rtol * max|K|, on a matrix larger than a tile."""
    from kmlib._validation import check_symmetric
    A = np.random.default_rng(0).standard_normal((300, 300))
    K = A @ A.T
    check_symmetric(K)                       # symmetric: silent
    K[5, 290] += 1e-3
    with pytest.raises(ValueError, match="symmetric"):
        check_symmetric(K, "Kgram")
    K = A @ A.T
    K[200, 7] = np.nan
    with pytest.raises(ValueError, match="NaN or infinite"):
        check_symmetric(K)


def test_check_matrix_finite_entries_whose_sum_overflows_pass_and_bad_entries_are_counted():
    """The finiteness check sums first: a sum that overflows (entries of 1e308) must still
    pass, and a NaN or inf is reported with the number of bad entries."""
    from kmlib._validation import check_matrix
    big = np.full((4, 3), 1e308)
    with np.errstate(over="ignore"):
        assert np.isinf(big.sum())
    assert np.array_equal(check_matrix(big), big)
    bad = big.copy()
    bad[1, 2], bad[3, 0] = np.nan, -np.inf
    with pytest.raises(ValueError, match="X contains 2 NaN or infinite value"):
        check_matrix(bad)


def _blas_limits():
    import threadpoolctl
    return [p["num_threads"] for p in threadpoolctl.threadpool_info() if p["user_api"] == "blas"]


def _run_in_threads(work, n_threads=4, rounds=3):
    import threading
    for _ in range(rounds):
        barrier = threading.Barrier(n_threads)

        def job(barrier=barrier):
            barrier.wait()
            work()
        threads = [threading.Thread(target=job) for _ in range(n_threads)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()


def test_concurrent_library_calls_leave_the_blas_thread_limit_alone():
    """Reference: threadpoolctl's report of the process-wide BLAS limit before and after.

    Gram matrices, the linear MMD and kernel SVMs computed on four Python threads at once
    must leave every BLAS pool at the limit it had before.
    """
    pytest.importorskip("threadpoolctl")
    from kmlib import kernels
    from kmlib.svm import KernelSVM
    from kmlib.unsupervised import mmd2_linear

    before = _blas_limits()
    if max(before, default=1) < 2:
        pytest.skip("BLAS runs on one thread here: a lowered limit cannot be seen")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    k = kernels.gaussian(1.0)
    _run_in_threads(lambda: k(X))
    assert _blas_limits() == before
    _run_in_threads(lambda: mmd2_linear(X[:1000], X[1000:2000], kernel=k))
    assert _blas_limits() == before
    _run_in_threads(lambda: KernelSVM(kernel=k).fit(X[:300], y[:300]), rounds=1)
    assert _blas_limits() == before


def test_one_blas_thread_is_process_wide_and_always_restored():
    """Reference: threadpoolctl's report; overlapping blocks on four threads, one shared
    decorator instance, and a block that raises all leave the caller's limit in place."""
    pytest.importorskip("threadpoolctl")
    import time

    from kmlib._linalg import one_blas_thread

    before = _blas_limits()
    if max(before, default=1) < 2:
        pytest.skip("BLAS runs on one thread here: a lowered limit cannot be seen")
    shared = one_blas_thread()

    @shared
    def work():
        time.sleep(0.01)

    _run_in_threads(work, rounds=5)
    assert _blas_limits() == before
    with one_blas_thread(), one_blas_thread():
        assert max(_blas_limits()) == 1
    assert _blas_limits() == before
    with pytest.raises(RuntimeError), one_blas_thread():
        raise RuntimeError("boom")
    assert _blas_limits() == before
    with one_blas_thread(when=False):
        assert _blas_limits() == before


def test_kfold_repr_names_each_parameter_once():
    """Reference: the constructor call that rebuilds the object (``eval(repr(cv))``)."""
    cv = eval(repr(KFold(4, random_state=1)), {"KFold": KFold})  # noqa: S307
    assert (cv.n_splits, cv.shuffle, cv.random_state) == (4, True, 1)
    assert repr(KFold(3, shuffle=False)) == "KFold(n_splits=3, shuffle=False, random_state=None)"


def test_finite_result_keeps_memory_errors_memory_errors():
    """Reference: Python's convention (a failed allocation is a MemoryError), raised as
    numpy raises it for an allocation the machine cannot serve."""
    from kmlib._validation import finite_result

    @finite_result
    def huge():
        raise MemoryError("Unable to allocate 7.28 TiB for an array with shape (10**6, 10**6)")

    with pytest.raises(MemoryError, match="huge"):
        huge()
