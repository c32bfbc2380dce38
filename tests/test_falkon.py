"""Tests for kmlib.falkon.NystroemKernelRidge (chapter "Large-scale kernel machines").

References trusted here, never kmlib's own kernels or solvers: scikit-learn's ``Nystroem``
fitted on exactly the estimator's landmarks followed by ``Ridge(fit_intercept=False)``,
scikit-learn's ``rbf_kernel``, and the normal equations solved densely by numpy.  The
memory test measures allocations with tracemalloc against a bound derived from
O(m^2 + b m); no test times anything (timings live in benchmarks/bench_large_scale.py).
"""
from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.kernel_approximation import Nystroem as SkNystroem
from sklearn.linear_model import Ridge as SkRidge
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from kmlib import kernels
from kmlib._validation import NotFittedError
from kmlib.falkon import NystroemKernelRidge

SIGMA, LAM = 1.5, 0.5
GAMMA = 0.5 / SIGMA**2
TIGHT = {"tol": 1e-12, "max_iter": 500}


def data(n=600, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.sin(X[:, 0]) + 0.5 * np.cos(X[:, 1]) + 0.1 * rng.standard_normal(n)
    return X, y, rng.standard_normal((200, d))


def model(**params):
    params = {"kernel": kernels.gaussian(SIGMA), "lam": LAM, "n_components": 40,
              "random_state": 0, **params}
    return NystroemKernelRidge(**params)


def sklearn_reference(est, X, y, X_test):
    """scikit-learn's Nystroem on exactly the estimator's landmarks, then Ridge(alpha=lam)."""
    ny = SkNystroem(kernel="rbf", gamma=GAMMA, n_components=len(est.landmarks_),
                    random_state=0).fit(est.landmarks_)
    ridge = SkRidge(alpha=est.lam, fit_intercept=False).fit(ny.transform(X), y)
    return ridge.predict(ny.transform(X_test))


@pytest.mark.parametrize("params", [{"solver": "direct"}, {"solver": "pcg", **TIGHT},
                                    {"solver": "pcg", "preconditioner_size": 40, **TIGHT}])
def test_matches_sklearn_nystroem_ridge_and_normal_equations(params):
    X, y, X_test = data()
    est = model(**params).fit(X, y)
    assert est.solver_ == params["solver"]
    ref = sklearn_reference(est, X, y, X_test)
    np.testing.assert_allclose(est.predict(X_test), ref, rtol=0, atol=1e-8 * np.abs(ref).max())
    # the normal equations (K_nm^T K_nm + lam K_mm) alpha = K_nm^T y, solved densely
    Knm, Kmm = rbf_kernel(X, est.landmarks_, gamma=GAMMA), rbf_kernel(est.landmarks_, gamma=GAMMA)
    alpha = np.linalg.solve(Knm.T @ Knm + LAM * Kmm, Knm.T @ y)
    np.testing.assert_allclose(Knm @ est.dual_coef_, Knm @ alpha, atol=1e-8)
    np.testing.assert_array_equal(est.landmarks_, X[est.landmark_indices_])


def test_singular_landmark_gram_still_matches_sklearn():
    # 12 distinct points, each repeated: K_mm has rank <= 12 < m = 30; f is still unique
    X0, _, X_test = data(n=12)
    X = np.repeat(X0, 25, axis=0)
    y = np.sin(X[:, 0]) + 0.1 * np.random.default_rng(1).standard_normal(len(X))
    for solver in ("direct", "pcg"):
        est = model(n_components=30, solver=solver, **TIGHT).fit(X, y)
        ref = sklearn_reference(est, X, y, X_test)
        np.testing.assert_allclose(est.predict(X_test), ref, atol=1e-6 * np.abs(ref).max())


def test_direct_and_pcg_agree_and_block_size_does_not_matter():
    X, y, X_test = data(n=2000, d=4, seed=1)
    ref = model(n_components=150, solver="direct").fit(X, y).predict(X_test)
    for params in [{"solver": "direct", "block_size": 1}, {"solver": "direct", "block_size": 999},
                   {"solver": "pcg", **TIGHT}, {"solver": "pcg", "block_size": 7, **TIGHT},
                   {"solver": "pcg", "preconditioner_size": 150, **TIGHT}]:
        est = model(n_components=150, **params).fit(X, y)
        np.testing.assert_allclose(est.predict(X_test), ref, atol=1e-8 * np.abs(ref).max(),
                                   err_msg=str(params))
        assert est.n_iter_ == 1 if params["solver"] == "direct" else est.n_iter_ > 1
    # predict's own blocks
    est = model(n_components=150, block_size=3).fit(X, y)
    np.testing.assert_allclose(est.predict(X_test), ref, atol=1e-8 * np.abs(ref).max())


def test_default_tolerance_gives_the_exact_solutions_test_error():
    X, y, X_test = data(n=6000, d=4, seed=2)
    f_test = np.sin(X_test[:, 0]) + 0.5 * np.cos(X_test[:, 1])
    exact = model(n_components=550, solver="direct").fit(X, y).predict(X_test)
    est = model(n_components=550).fit(X, y)        # auto: pcg, since m > 200 and 10 m < n
    assert est.solver_ == "pcg" and 0 < est.n_iter_ < 30
    pred = est.predict(X_test)
    assert np.abs(pred - exact).max() < 1e-2 * np.abs(exact).max()
    mse, mse_exact = np.mean((pred - f_test) ** 2), np.mean((exact - f_test) ** 2)
    assert abs(mse - mse_exact) < 0.01 * mse_exact, (mse, mse_exact)


@pytest.mark.parametrize("solver", ["direct", "pcg"])
def test_memory_is_m_squared_plus_block_not_n_times_m(solver):
    # K_nm of n = 200,000 rows and m = 100 landmarks would take 160 MB
    n, d, m, b = 200_000, 5, 100, 1000
    rng = np.random.default_rng(3)
    X = rng.standard_normal((n, d))
    y = X[:, 0] + 0.1 * rng.standard_normal(n)
    est = model(n_components=m, solver=solver, block_size=b)
    tracemalloc.start()
    try:
        with threadpool_limits(limits=2, user_api="blas"):   # at most 2 threads of blocks
            est.fit(X, y)
            pred = est.predict(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert np.isfinite(pred).all()
    # bound: a few m x m matrices, two b x m blocks per thread (kernel block and its
    # transformed copy, 2 threads), the (s - m) x d preconditioner rows, and
    # the n-vector of predictions; 8 bytes each, plus 1 MB for everything small
    bound = 8 * (8 * m * m + 2 * 2 * 2 * b * m + 10 * m * d + n) + 2**20
    assert peak < bound < 8 * n * m / 10, (peak, bound)


def test_sklearn_api_clone_gridsearch_pipeline_cross_val():
    X, y, _ = data(n=300)
    est = model(n_components=30)
    assert repr(clone(est)) == repr(est)
    grid = GridSearchCV(est, {"lam": [0.1, 10.0], "n_components": [10, 30]}, cv=3).fit(X, y)
    assert grid.best_params_["n_components"] == 30
    pipe = make_pipeline(StandardScaler(), model(n_components=30)).fit(X, y)
    assert pipe.score(X, y) > 0.8
    assert cross_val_score(est, X, y, cv=3).mean() > 0.7
    with pytest.raises(NotFittedError):
        clone(est).predict(X)


def test_random_state_reproducible_and_other_kernels():
    X, y, X_test = data(n=400)
    a, b = model(random_state=5).fit(X, y), model(random_state=5).fit(X, y)
    np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)
    np.testing.assert_array_equal(a.landmark_indices_, b.landmark_indices_)
    c = model(random_state=np.random.default_rng(6)).fit(X, y)
    assert not np.array_equal(a.landmark_indices_, c.landmark_indices_)
    # any callable k(X, Y) (here scikit-learn's) gives the kmlib kernel's fit
    sk = model(random_state=5, kernel=lambda A, B=None: rbf_kernel(A, B, gamma=GAMMA)).fit(X, y)
    np.testing.assert_allclose(sk.predict(X_test), a.predict(X_test), atol=1e-10)


def test_edge_cases_warnings_and_zero_response():
    X, y, _ = data(n=50)
    with pytest.warns(UserWarning, match="n_components=80 > n_samples=50"):
        est = model(n_components=80).fit(X, y)
    assert est.dual_coef_.shape == (50,) and est.solver_ == "direct"
    with pytest.warns(ConvergenceWarning, match="max_iter=1") as record:
        model(solver="pcg", preconditioner_size=40, max_iter=1, tol=1e-12).fit(*data()[:2])
    # the warning points at the caller's line, not at kmlib's conjugate gradients
    assert [w.filename for w in record if w.category is ConvergenceWarning] == [__file__]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        zero = model(solver="pcg").fit(X, np.zeros(50))
    assert zero.n_iter_ == 0 and not zero.dual_coef_.any()


def test_bad_inputs_raise_value_errors():
    X, y, _ = data(n=60)
    bad = [({"lam": 0.0}, "lam"), ({"lam": np.nan}, "lam"), ({"n_components": 0}, "n_components"),
           ({"n_components": 2.5}, "n_components"), ({"solver": "cholesky"}, "solver"),
           ({"block_size": 0}, "block_size"), ({"max_iter": 0}, "max_iter"),
           ({"tol": -1.0}, "tol"), ({"preconditioner_size": 10}, "preconditioner_size"),
           ({"kernel": "rbf"}, "kernel"), ({"random_state": "seed"}, "random_state"),
           ({"kernel": lambda A, B=None: -rbf_kernel(A, B)}, "positive semi-definite")]
    for params, word in bad:
        with pytest.raises(ValueError, match=word):
            model(**params).fit(X, y)
    X_nan = X.copy()
    X_nan[3, 1] = np.nan
    for args in [(X_nan, y), (X, y[:-1]), (X, np.full(60, np.inf))]:
        with pytest.raises(ValueError):
            model().fit(*args)
    est = model().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:, :2])
    with pytest.raises(ValueError):
        est.predict(X_nan)
