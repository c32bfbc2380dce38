"""kmlib's estimators on Dask arrays against the same estimators on the NumPy arrays.

The reference is the NumPy code path on the same data and ``random_state`` (tested against
scikit-learn, closed forms and a second solver in test_falkon.py, test_features.py and
test_unsupervised.py): the Dask fit must draw the same landmarks and agree to rounding.
The Dask tasks run on a LocalCluster of two worker processes (one module-scoped fixture),
so every estimator and kernel is pickled to another process.
"""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
distributed = pytest.importorskip("dask.distributed")

from dask.callbacks import Callback  # noqa: E402
from sklearn.exceptions import DataConversionWarning  # noqa: E402

from kmlib import features, kernels  # noqa: E402
from kmlib.falkon import NystroemKernelRidge  # noqa: E402
from kmlib.unsupervised import mmd2_linear  # noqa: E402

N, D = 6000, 3
ROW_CHUNKS = (1700, 1700, 1700, 900)       # uneven on purpose


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(processes=True, n_workers=2, threads_per_worker=1,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((N, D))
    y = np.sin(X[:, 0]) + 0.5 * np.cos(X[:, 1]) + 0.3 * rng.standard_normal(N)
    X_test = rng.standard_normal((500, D))
    return X, y, X_test


def _dask(X, y):
    return da.from_array(X, chunks=(ROW_CHUNKS, -1)), da.from_array(y, chunks=(ROW_CHUNKS,))


class _Count(Callback):
    """Counts the tasks run by Dask's local schedulers while it is active."""

    def __init__(self):
        super().__init__()
        self.n = 0

    def _pretask(self, key, dsk, state):
        self.n += 1


@pytest.mark.parametrize("solver", ["direct", "pcg"])
def test_fit_on_a_cluster_equals_the_numpy_fit(client, data, solver):
    """Same landmarks, same jitter, same iterations; predictions within 1e-8 relative."""
    X, y, X_test = data
    kw = dict(kernel=kernels.gaussian(1.0), lam=1.0, n_components=150, solver=solver,
              random_state=7)
    ref = NystroemKernelRidge(**kw).fit(X, y)
    with distributed.get_task_stream(client) as stream:
        est = NystroemKernelRidge(**kw).fit(*_dask(X, y))
    names = {t["key"][0] if isinstance(t["key"], tuple) else t["key"] for t in stream.data}
    chunk_task = "_phi_gram_chunk" if solver == "direct" else "_pass_chunk"
    assert any(chunk_task in str(k) for k in names), names     # ran on the cluster's workers
    np.testing.assert_array_equal(est.landmark_indices_, ref.landmark_indices_)
    np.testing.assert_array_equal(est.landmarks_, X[ref.landmark_indices_])
    assert est.jitter_ == ref.jitter_ and est.n_iter_ == ref.n_iter_
    assert est.solver_ == ref.solver_ == solver and est.n_features_in_ == D
    p_ref, p = ref.predict(X_test), est.predict(X_test)
    assert np.max(np.abs(p - p_ref)) <= 1e-8 * np.max(np.abs(p_ref))
    # predict on a Dask array: the NumPy predict chunk by chunk, computed on the cluster
    # (a worker's BLAS may add the m terms in another order: rounding of the largest |f|)
    p_dask = est.predict(da.from_array(X_test, chunks=(128, -1))).compute()
    assert np.max(np.abs(p_dask - p)) <= 1e-12 * np.max(np.abs(p))


def test_fit_with_numpy_y_and_a_plain_callable_kernel(client, data):
    """A NumPy ``y`` takes X's row chunks; a user's callable kernel is pickled to the workers."""
    X, y, X_test = data
    gauss = kernels.gaussian(1.0)
    kw = dict(kernel=lambda A, B=None: gauss(A, B), lam=0.5, n_components=100, solver="direct",
              random_state=3)
    ref = NystroemKernelRidge(**kw).fit(X, y)
    est = NystroemKernelRidge(**kw).fit(_dask(X, y)[0], y)
    p_ref = ref.predict(X_test)
    assert np.max(np.abs(est.predict(X_test) - p_ref)) <= 1e-8 * np.max(np.abs(p_ref))


def test_predict_and_transforms_are_lazy(data):
    """Nothing runs until ``compute``; then the result is the NumPy method's."""
    X, y, _ = data
    Xd = da.from_array(X, chunks=(ROW_CHUNKS, -1))
    est = NystroemKernelRidge(kernel=kernels.gaussian(1.0), n_components=50,
                              solver="direct", random_state=0).fit(X, y)
    nys = features.Nystroem(kernel=kernels.gaussian(1.0), n_components=40, random_state=0).fit(X)
    rff = features.RandomFourierFeatures(n_features=30, random_state=0).fit(X)
    for method, shape in ((est.predict, (N,)), (nys.transform, (N, 40)),
                          (rff.transform, (N, 60))):
        with dask.config.set(scheduler="sync"), _Count() as count:
            out = method(Xd)
            assert isinstance(out, da.Array) and out.shape == shape
            assert count.n == 0, f"{method.__qualname__} computed {count.n} tasks"
            values = out.compute()
            assert count.n >= len(ROW_CHUNKS)                 # the counter does count
        ref = method(X)
        assert np.max(np.abs(values - ref)) <= 1e-12 * np.max(np.abs(ref))


def test_rff_fit_reads_only_the_width_of_a_dask_array(data):
    """RandomFourierFeatures.fit uses X's number of columns: no task of X runs, and the
    features are those of a fit on the NumPy array."""
    X, _, _ = data
    Xd = da.from_array(X, chunks=(ROW_CHUNKS, -1))
    with dask.config.set(scheduler="sync"), _Count() as count:
        rff = features.RandomFourierFeatures(n_features=30, random_state=0).fit(Xd)
        assert count.n == 0, f"fit computed {count.n} tasks"
    ref = features.RandomFourierFeatures(n_features=30, random_state=0).fit(X)
    np.testing.assert_array_equal(rff.W_, ref.W_)
    with pytest.raises(ValueError, match=r"rechunk\(\{1: -1\}\)"):
        features.RandomFourierFeatures().fit(Xd.rechunk({1: 1}))


def test_empty_and_one_row_chunks(data):
    """Chunks of 0 and 1 rows (some without a row of the preconditioner): the NumPy fit."""
    X, y, X_test = data
    Xd = da.from_array(X, chunks=((3000, 1, 0, 2999), -1))
    yd = da.from_array(y, chunks=((3000, 1, 0, 2999),))
    assert 0 in Xd.chunks[0] and 1 in Xd.chunks[0]
    kw = dict(kernel=kernels.gaussian(1.0), n_components=100, solver="pcg", random_state=5)
    ref = NystroemKernelRidge(**kw).fit(X, y)
    with dask.config.set(scheduler="sync"):
        est = NystroemKernelRidge(**kw).fit(Xd, yd)
        p_lazy = est.predict(Xd).compute()
        Z = features.RandomFourierFeatures(n_features=5, random_state=0).fit(X).transform(Xd)
        assert Z.compute().shape == (N, 10)
    p_ref = ref.predict(X_test)
    assert np.max(np.abs(est.predict(X_test) - p_ref)) <= 1e-8 * np.max(np.abs(p_ref))
    assert np.max(np.abs(p_lazy - ref.predict(X))) <= 1e-8 * np.max(np.abs(p_ref))


def test_pcg_with_the_landmarks_alone_as_preconditioner(data):
    """preconditioner_size = n_components: no further rows to sum (an empty Dask sum).

    This weak preconditioner leaves CG sensitive to the order of the sums' rounding (at
    tol=1e-3 both fits stop after 26 iterations 7e-5 apart): solved to tol=1e-10 instead.
    """
    X, y, X_test = data
    kw = dict(kernel=kernels.gaussian(1.0), n_components=60, solver="pcg",
              preconditioner_size=60, tol=1e-10, max_iter=500, random_state=2)
    ref = NystroemKernelRidge(**kw).fit(X, y)
    with dask.config.set(scheduler="sync"):
        est = NystroemKernelRidge(**kw).fit(*_dask(X, y))
    assert est.jitter_ == ref.jitter_ and ref.n_iter_ < 500
    p_ref = ref.predict(X_test)
    assert np.max(np.abs(est.predict(X_test) - p_ref)) <= 1e-7 * np.max(np.abs(p_ref))


def test_mmd2_linear_equals_the_numpy_statistic(client):
    """Uneven, odd chunks and unequal lengths: the pairs are the NumPy statistic's pairs."""
    rng = np.random.default_rng(1)
    X, Y = rng.standard_normal((5001, 2)), rng.standard_normal((4503, 2)) + 0.2
    Xd, Yd = da.from_array(X, chunks=(777, -1)), da.from_array(Y, chunks=(1001, -1))
    gauss = kernels.gaussian(1.0)
    for kernel in (gauss, lambda A, B=None: gauss(A, B)):   # paired rows; blocks of pairs
        ref = mmd2_linear(X, Y, kernel=kernel)
        for args in ((Xd, Yd), (Xd, Y), (X, Yd)):
            got = mmd2_linear(*args, kernel=kernel)
            assert abs(got - ref) <= 1e-13, (got, ref)   # terms h lie in [-2, 2]
    assert mmd2_linear(Xd[:, 0], Yd[:, 0], kernel=gauss) == pytest.approx(
        mmd2_linear(X[:, 0], Y[:, 0], kernel=gauss), abs=1e-13)


def test_y_follows_the_row_chunks_of_X(data):
    """A y chunked otherwise than X is rechunked to X's rows: the same fit as with aligned y."""
    X, y, _ = data
    Xd, yd = _dask(X, y)
    assert yd.chunks[0] == Xd.chunks[0] and yd.rechunk(1000).chunks[0] != Xd.chunks[0]

    def fit(yy):
        return NystroemKernelRidge(kernel=kernels.gaussian(1.0), n_components=20,
                                   solver="direct", random_state=0).fit(Xd, yy).dual_coef_

    np.testing.assert_array_equal(fit(yd.rechunk(1000)), fit(yd))


def test_bad_chunks_raise_with_the_remedy(data):
    X, y, _ = data
    Xd, yd = _dask(X, y)
    est = NystroemKernelRidge(kernel=kernels.gaussian(1.0), n_components=20, solver="direct",
                              random_state=0)
    by_column = Xd.rechunk({1: 1})
    with pytest.raises(ValueError, match=r"along its columns.*X.rechunk\(\{1: -1\}\)"):
        est.fit(by_column, yd)
    unknown = Xd[Xd[:, 0] > -np.inf]                 # boolean indexing: chunk sizes nan
    with pytest.raises(ValueError, match=r"unknown chunk sizes.*X.compute_chunk_sizes\(\)"):
        est.fit(unknown, yd)
    with pytest.raises(ValueError, match=r"y has unknown chunk sizes"):
        est.fit(Xd, yd[yd > -np.inf])
    # a NumPy y: the NumPy fit's messages (it used to be dask's "Chunks do not add up")
    with pytest.raises(ValueError, match="X and y must have the same number of samples"):
        est.fit(Xd, y[:-1])
    with pytest.warns(DataConversionWarning, match="column-vector y"):
        est.fit(Xd, y[:, None])
    est.fit(X, y)
    for method in (est.predict, features.RandomFourierFeatures(random_state=0).fit(X).transform):
        with pytest.raises(ValueError, match=r"rechunk\(\{1: -1\}\)"):
            method(by_column)
        with pytest.raises(ValueError, match=r"compute_chunk_sizes"):
            method(unknown)
        with pytest.raises(ValueError, match="features"):
            method(Xd[:, :2])
    with pytest.raises(ValueError, match=r"Y = Y.rechunk\(\{1: -1\}\)"):
        mmd2_linear(Xd, by_column, kernel=kernels.gaussian(1.0))


def test_a_nan_in_a_chunk_is_refused_like_in_numpy(client, data):
    X, y, _ = data
    X = X.copy()
    X[4000, 1] = np.nan
    est = NystroemKernelRidge(kernel=kernels.gaussian(1.0), n_components=20, solver="direct",
                              random_state=0)
    with pytest.raises(ValueError, match="NaN|finite"):
        est.fit(*_dask(X, y))
    # a NaN response at a landmark (pcg: refused by the first pass over every chunk of y)
    X, y = data[0], data[1].copy()
    kw = dict(kernel=kernels.gaussian(1.0), n_components=20, solver="pcg", random_state=0)
    y[NystroemKernelRidge(**kw).fit(X, data[1]).landmark_indices_[3]] = np.nan
    with pytest.raises(ValueError, match="y contains 1 NaN"):
        NystroemKernelRidge(**kw).fit(*_dask(X, y))


def test_kmlib_does_not_import_dask_for_numpy_inputs():
    code = ("import sys, numpy as np\n"
            "from kmlib import features, kernels\n"
            "from kmlib.falkon import NystroemKernelRidge\n"
            "from kmlib.unsupervised import mmd2_linear\n"
            "X = np.random.default_rng(0).standard_normal((200, 2)); y = X[:, 0]\n"
            "NystroemKernelRidge(kernel=kernels.gaussian(1.0), n_components=20).fit(X, y)"
            ".predict(X)\n"
            "features.Nystroem(kernel=kernels.gaussian(1.0), n_components=5).fit(X).transform(X)\n"
            "features.RandomFourierFeatures().fit(X).transform(X)\n"
            "mmd2_linear(X, X + 1, kernel=kernels.gaussian(1.0))\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
