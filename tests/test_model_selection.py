"""Tests of kmlib.model_selection (chapter 2: hold-out, v-fold and leave-one-out CV, stacking).

References trusted, named in each test: brute-force refits of
``kmlib.ridge.RidgeRegression`` on every fold, scikit-learn (``KFold``,
``cross_val_predict`` with ``Ridge`` / ``StandardScaler``, ``LeaveOneOut``),
``scipy.optimize.nnls`` and ``lsq_linear`` (a second NNLS algorithm), the KKT
conditions of NNLS, explicit hat matrices, and closed-form risks.
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.optimize
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.linear_model import Ridge
from sklearn.model_selection import KFold as SkKFold
from sklearn.model_selection import LeaveOneOut, cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from kmlib import _folds
from kmlib import model_selection as ms
from kmlib._validation import NotFittedError
from kmlib.ridge import RidgeRegression

LAMS = np.array([0.0, 1e-3, 0.1, 1.0, 10.0, 1e3])


def _data(n=37, p=6, seed=0, sigma=1.0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p)) * rng.uniform(0.5, 3.0, p) + rng.uniform(-2, 2, p)
    y = X @ rng.standard_normal(p) + 3.0 + sigma * rng.standard_normal(n)
    return X, y


def _brute_oof(X, y, lams, pairs, **opts):
    """Reference: refit RidgeRegression on every training fold for every lambda."""
    P = np.empty((len(y), len(lams)))
    for tr, te in pairs:
        for j, lam in enumerate(lams):
            P[te, j] = RidgeRegression(lam=lam, **opts).fit(X[tr], y[tr]).predict(X[te])
    return P


# --------------------------------------------------------------------------- KFold
def test_kfold_is_the_shared_one():
    assert ms.KFold is _folds.KFold and ms.resolve_folds is _folds.resolve_folds


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 60), k=st.integers(2, 12), seed=st.integers(0, 10))
def test_kfold_partition_and_sizes(n, k, seed):
    """Property: test folds partition range(n), train = complement, sizes differ by <= 1."""
    if k > n:
        with pytest.raises(ValueError, match="n_splits"):
            list(ms.KFold(k, random_state=seed).split(n))
        return
    pairs = list(ms.KFold(k, shuffle=True, random_state=seed).split(n))
    assert len(pairs) == k
    allte = np.concatenate([te for _, te in pairs])
    assert np.array_equal(np.sort(allte), np.arange(n))
    sizes = np.array([len(te) for _, te in pairs])
    assert sizes.max() - sizes.min() <= 1 and sizes.sum() == n
    assert sorted(sizes.tolist(), reverse=True) == sizes.tolist()  # first n % k folds larger
    for tr, te in pairs:
        assert np.array_equal(np.sort(np.concatenate([tr, te])), np.arange(n))
    kappa = ms.KFold(k, shuffle=True, random_state=seed).fold_of(n)
    for j, (_, te) in enumerate(pairs):
        assert np.array_equal(np.flatnonzero(kappa == j), te)


@pytest.mark.parametrize("n,k", [(10, 2), (11, 3), (37, 5), (20, 20), (23, 10)])
def test_kfold_no_shuffle_equals_sklearn(n, k):
    """Reference: sklearn.model_selection.KFold(shuffle=False)."""
    ours = list(ms.KFold(k, shuffle=False).split(n))
    theirs = list(SkKFold(k, shuffle=False).split(np.zeros((n, 1))))
    for (a, b), (c, d) in zip(ours, theirs, strict=True):
        assert np.array_equal(a, c) and np.array_equal(b, d)


# ------------------------------------------------------------ cross_val_curve / oof
@pytest.mark.parametrize("fit_intercept,standardize", [(True, True), (True, False),
                                                       (False, False), (False, True)])
@pytest.mark.parametrize("folds", [5, "pairs"])
def test_cross_val_curve_equals_brute_force_refits(fit_intercept, standardize, folds):
    """Reference: RidgeRegression refitted on every fold for every lambda (<= 1e-8 rel)."""
    X, y = _data()
    pairs = ms.resolve_folds(5, len(y))
    if folds == "pairs":  # explicit, unshuffled, unequal folds
        folds = list(ms.KFold(4, shuffle=False).split(len(y)))
        pairs = folds
    opts = dict(fit_intercept=fit_intercept, standardize=standardize)
    P_ref = _brute_oof(X, y, LAMS, pairs, **opts)
    P = ms.oof_predictions(X, y, LAMS, folds, **opts)
    np.testing.assert_allclose(P, P_ref, rtol=1e-8, atol=1e-8 * np.abs(y).max())
    cv_ref = np.mean((y[:, None] - P_ref) ** 2, axis=0)
    np.testing.assert_allclose(ms.cross_val_curve(X, y, LAMS, folds, **opts), cv_ref, rtol=1e-8)


def test_cross_val_curve_p_greater_than_n_brute_force():
    """Reference: RidgeRegression refits when p > n (min-norm at lam = 0)."""
    X, y = _data(n=20, p=45, seed=3)
    pairs = ms.resolve_folds(4, 20)
    P_ref = _brute_oof(X, y, LAMS, pairs)
    np.testing.assert_allclose(ms.oof_predictions(X, y, LAMS, 4), P_ref, rtol=1e-8, atol=1e-8)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(8, 40), p=st.integers(1, 12), v=st.integers(2, 6),
       seed=st.integers(0, 1000), lam=st.floats(1e-3, 1e3))
def test_cross_val_curve_property_brute_force(n, p, v, seed, lam):
    """Property: the one-SVD-per-fold curve equals refits for random shapes and lambdas."""
    X, y = _data(n, p, seed)
    pairs = ms.resolve_folds(v, n)
    cv_ref = np.mean((y[:, None] - _brute_oof(X, y, [lam], pairs)) ** 2, axis=0)
    np.testing.assert_allclose(ms.cross_val_curve(X, y, [lam], v), cv_ref, rtol=1e-8)


def test_cross_val_curve_equals_sklearn_pipeline():
    """Reference: sklearn cross_val_predict with Pipeline(StandardScaler, Ridge).

    StandardScaler divides by the 1/n standard deviation, i.e. it scales each
    centred column to norm sqrt(n): the same convention as RidgeRegression.
    """
    X, y = _data(n=41, p=7, seed=5)
    lams = [1e-2, 0.5, 5.0, 50.0]
    pairs = ms.resolve_folds(5, len(y))
    P = ms.oof_predictions(X, y, lams, 5)
    for j, lam in enumerate(lams):
        ref = cross_val_predict(make_pipeline(StandardScaler(), Ridge(alpha=lam)), X, y, cv=pairs)
        np.testing.assert_allclose(P[:, j], ref, rtol=1e-8, atol=1e-9)
    P0 = ms.oof_predictions(X, y, lams, 5, standardize=False)
    P1 = ms.oof_predictions(X, y, lams, 5, standardize=False, fit_intercept=False)
    for j, lam in enumerate(lams):
        np.testing.assert_allclose(P0[:, j], cross_val_predict(Ridge(alpha=lam), X, y, cv=pairs),
                                   rtol=1e-8, atol=1e-9)
        ref1 = cross_val_predict(Ridge(alpha=lam, fit_intercept=False), X, y, cv=pairs)
        np.testing.assert_allclose(P1[:, j], ref1, rtol=1e-8, atol=1e-9)


def test_fold_errors_and_holdout_curve():
    """Reference: per-fold RidgeRegression refits; the weighted average of fold errors is CV."""
    X, y = _data(n=37)
    pairs = ms.resolve_folds(5, 37)  # sizes 8, 8, 7, 7, 7
    E = ms.fold_errors(X, y, LAMS, 5)
    sizes = np.array([len(te) for _, te in pairs])
    for k, (tr, te) in enumerate(pairs):
        ref = [np.mean((y[te] - RidgeRegression(lam=lam).fit(X[tr], y[tr]).predict(X[te])) ** 2)
               for lam in LAMS]
        np.testing.assert_allclose(E[k], ref, rtol=1e-8)
        np.testing.assert_allclose(ms.holdout_curve(X, y, LAMS, tr, te), ref, rtol=1e-8)
    cv = ms.cross_val_curve(X, y, LAMS, 5)
    np.testing.assert_allclose(sizes @ E / sizes.sum(), cv, rtol=1e-12)
    X2, y2 = _data(n=40)  # equal folds: plain average over splits equals CV
    np.testing.assert_allclose(ms.fold_errors(X2, y2, LAMS, 5).mean(axis=0),
                               ms.cross_val_curve(X2, y2, LAMS, 5), rtol=1e-12)


def test_holdout_split_partition():
    """Reference: definition (disjoint, sorted, union = range(n), size round(f n))."""
    for n, f in [(10, 0.3), (101, 0.2), (2, 0.5), (5, 0.01), (5, 0.99)]:
        tr, te = ms.holdout_split(n, f, random_state=1)
        assert len(te) == min(max(round(f * n), 1), n - 1)
        assert np.array_equal(np.sort(np.concatenate([tr, te])), np.arange(n))
        assert np.all(np.diff(tr) > 0) and np.all(np.diff(te) > 0)
    a, b = ms.holdout_split(50, 0.2, random_state=7), ms.holdout_split(50, 0.2, random_state=7)
    assert np.array_equal(a[1], b[1])


def test_ridge_fit_path_equals_refits():
    """Reference: RidgeRegression fitted separately at each lambda."""
    X, y = _data(n=30, p=8, seed=2)
    for opts in (dict(), dict(standardize=False), dict(fit_intercept=False)):
        a, B = ms.ridge_fit_path(X, y, LAMS, **opts)
        for j, lam in enumerate(LAMS):
            m = RidgeRegression(lam=lam, **opts).fit(X, y)
            np.testing.assert_allclose(B[:, j], m.coef_, rtol=1e-8, atol=1e-10)
            assert a[j] == pytest.approx(m.intercept_, rel=1e-8, abs=1e-10)


# ------------------------------------------------------------------ leave-one-out
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("shape", [(30, 5), (15, 25)])
def test_loo_ridge_equals_brute_force(fit_intercept, shape):
    """Reference: n refits of RidgeRegression(standardize=False) with one point deleted."""
    X, y = _data(*shape, seed=4)
    lams = np.array([1e-2, 1.0, 30.0])
    n = len(y)
    pairs = [(np.delete(np.arange(n), i), np.array([i])) for i in range(n)]
    P = _brute_oof(X, y, lams, pairs, fit_intercept=fit_intercept, standardize=False)
    ref = np.mean((y[:, None] - P) ** 2, axis=0)
    np.testing.assert_allclose(ms.loo_ridge(X, y, lams, fit_intercept=fit_intercept), ref,
                               rtol=1e-8)
    np.testing.assert_allclose(ms.cross_val_curve(X, y, lams, pairs, fit_intercept=fit_intercept,
                                                  standardize=False), ref, rtol=1e-8)


def test_loo_ridge_equals_sklearn_leave_one_out():
    """Reference: sklearn cross_val_predict(Ridge, cv=LeaveOneOut())."""
    X, y = _data(n=25, p=4, seed=8)
    lams = [0.0, 0.3, 3.0]
    cv = ms.loo_ridge(X, y, lams)
    for j, lam in enumerate(lams):
        pred = cross_val_predict(Ridge(alpha=lam), X, y, cv=LeaveOneOut())
        assert cv[j] == pytest.approx(np.mean((y - pred) ** 2), rel=1e-8)


def test_loo_leverages_equal_explicit_hat_matrix():
    """Reference: the hat matrix of penalised LS with design [1, X] and penalty diag(0, lam I)."""
    X, y = _data(n=20, p=6, seed=9)
    lam = 2.5
    A = np.hstack([np.ones((20, 1)), X])
    Pen = lam * np.eye(7)
    Pen[0, 0] = 0.0
    H = A @ np.linalg.solve(A.T @ A + Pen, A.T)
    _, Hd = ms.loo_ridge(X, y, [lam], return_leverage=True)
    np.testing.assert_allclose(Hd[:, 0], np.diag(H), rtol=1e-10)
    e = (y - H @ y) / (1 - np.diag(H))
    assert ms.loo_ridge(X, y, lam)[0] == pytest.approx(np.mean(e ** 2), rel=1e-10)
    gcv = np.mean((y - H @ y) ** 2) / (1 - np.trace(H) / 20) ** 2
    assert ms.gcv_ridge(X, y, lam)[0] == pytest.approx(gcv, rel=1e-10)


def test_standardising_inside_loo_breaks_the_shortcut():
    """Reference: brute-force LOO with per-fold standardisation differs from the shortcut.

    Documents why loo_ridge uses a fixed column scaling: rescaling in every refit
    changes the penalised problem, so (y - yhat)/(1 - H_ii) is no longer exact.
    """
    X, y = _data(n=20, p=5, seed=10)
    Z = (X - X.mean(0)) / X.std(0)  # standardised once, on all the data
    n, lam = 20, 5.0
    pairs = [(np.delete(np.arange(n), i), np.array([i])) for i in range(n)]
    inside = np.mean((y[:, None] - _brute_oof(X, y, [lam], pairs)) ** 2)
    exact_once = np.mean((y[:, None] - _brute_oof(Z, y, [lam], pairs, standardize=False)) ** 2)
    short = ms.loo_ridge(Z, y, lam)[0]
    assert short == pytest.approx(exact_once, rel=1e-8)
    assert abs(short - inside) > 1e-6 * inside


def test_loo_interpolation_warns_and_returns_inf():
    """Reference: with p >= n - 1 and lam = 0 every leverage is 1 (exact interpolation)."""
    X, y = _data(n=8, p=10, seed=11)
    with pytest.warns(RuntimeWarning, match="leverage"):
        cv = ms.loo_ridge(X, y, [0.0, 1.0])
    assert np.isinf(cv[0]) and np.isfinite(cv[1])
    assert np.isinf(ms.gcv_ridge(X, y, [0.0])[0])


# ----------------------------------------------------------------------- stacking
def _kkt_ok(P, y, w, tol=1e-8):
    g = P.T @ (P @ w - y)  # gradient of 0.5 ||y - P w||^2
    scale = np.abs(P.T @ y).max()
    return (np.all(w >= 0) and np.all(g[w == 0] >= -tol * scale)
            and np.all(np.abs(g[w > 0]) <= tol * scale))


def test_stack_equals_scipy_nnls_and_lsq_linear_and_satisfies_kkt():
    """References: scipy.optimize.nnls, lsq_linear (a second algorithm) and the KKT conditions."""
    X, y = _data(n=60, p=20, seed=12)
    lams = np.logspace(-2, 3, 12)
    P = ms.oof_predictions(X, y, lams, 5)
    w = ms.stack(P, y)
    np.testing.assert_allclose(w, scipy.optimize.nnls(P, y)[0], rtol=1e-10, atol=1e-12)
    w2 = scipy.optimize.lsq_linear(P, y, bounds=(0, np.inf), tol=1e-14, lsmr_tol="auto").x
    r1, r2 = np.sum((y - P @ w) ** 2), np.sum((y - P @ w2) ** 2)
    assert r1 <= r2 * (1 + 1e-9)
    assert _kkt_ok(P, y, w)
    assert not _kkt_ok(P, y, np.full(12, 1 / 12))  # the KKT check does reject a non-optimum


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(5, 40), L=st.integers(1, 8))
def test_stack_kkt_property(seed, n, L):
    """Property: NNLS weights satisfy the KKT conditions for random designs."""
    rng = np.random.default_rng(seed)
    P = rng.standard_normal((n, L))
    y = rng.standard_normal(n)
    assert _kkt_ok(P, y, ms.stack(P, y), tol=1e-7)


def test_stacked_ridge_combines_full_data_refits():
    """Reference: sum_l w_l RidgeRegression(lam=lam_l).fit(X, y), w = nnls on oof predictions."""
    X, y = _data(n=50, p=10, seed=13)
    lams = np.logspace(-1, 3, 6)
    model = ms.StackedRidge(lams=lams, folds=5).fit(X, y)
    P = _brute_oof(X, y, lams, ms.resolve_folds(5, 50))
    w = scipy.optimize.nnls(P, y)[0]
    np.testing.assert_allclose(model.weights_, w, rtol=1e-7, atol=1e-9)
    Xn = _data(n=9, p=10, seed=14)[0]
    preds = np.column_stack([RidgeRegression(lam=lam).fit(X, y).predict(Xn) for lam in lams])
    np.testing.assert_allclose(model.predict(Xn), preds @ w, rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(preds @ model.weights_, model.predict(Xn),
                               rtol=1e-7, atol=1e-8)
    assert model.lams is lams  # hyper-parameters stored unchanged
    with pytest.raises(NotFittedError):
        ms.StackedRidge(lams=lams).predict(Xn)


# ------------------------------------------------------------------ simulations
def test_batch_functions_equal_single_dataset_versions():
    """Reference: the single-dataset functions, dataset by dataset."""
    beta0 = np.linspace(-1, 1, 6)
    rng = np.random.default_rng(3)
    X = rng.standard_normal((5, 30, beta0.size))
    y = X @ beta0 + rng.standard_normal((5, 30))
    lams = np.logspace(-2, 2, 5)
    P = ms.oof_predictions_batch(X, y, lams, 5)
    cv = ms.cv_curves_batch(X, y, lams, 5)
    a, B = ms.ridge_path_batch(X, y, lams)
    for r in range(5):
        np.testing.assert_allclose(P[r], ms.oof_predictions(X[r], y[r], lams, 5), rtol=1e-10)
        np.testing.assert_allclose(cv[r], ms.cross_val_curve(X[r], y[r], lams, 5), rtol=1e-10)
        a1, B1 = ms.ridge_fit_path(X[r], y[r], lams)
        np.testing.assert_allclose(a[r], a1, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(B[r], B1, rtol=1e-10, atol=1e-12)


# ----------------------------------------------------------------------- bad input
def test_bad_folds():
    X, y = _data(n=10, p=3)
    with pytest.raises(ValueError, match="n_splits"):
        ms.cross_val_curve(X, y, [1.0], folds=11)
    with pytest.raises(ValueError, match="n_splits"):
        ms.cross_val_curve(X, y, [1.0], folds=1)
    with pytest.raises(ValueError, match="folds"):
        ms.cross_val_curve(X, y, [1.0], folds=True)
    overlapping = [(np.arange(5, 10), np.arange(0, 6)), (np.arange(0, 5), np.arange(5, 10))]
    with pytest.raises(ValueError, match="folds"):
        ms.oof_predictions(X, y, [1.0], folds=overlapping)
    missing = [(np.arange(5, 10), np.arange(0, 4)), (np.arange(0, 5), np.arange(5, 10))]
    with pytest.raises(ValueError, match="partition"):
        ms.fold_errors(X, y, [1.0], folds=missing)
    with pytest.raises(ValueError, match="folds"):
        ms.cross_val_curve(X, y, [1.0], folds="five")
    with pytest.raises(ValueError, match="n_splits"):
        ms.KFold(1).fold_of(10)


@pytest.mark.parametrize("fn", [ms.cross_val_curve, ms.oof_predictions, ms.fold_errors,
                                ms.loo_ridge, ms.gcv_ridge, ms.ridge_fit_path])
def test_bad_data_and_lams(fn):
    X, y = _data(n=12, p=3)
    with pytest.raises(ValueError, match="lams"):
        fn(X, y, [1.0, -0.5])
    with pytest.raises(ValueError, match="lams"):
        fn(X, y, [np.nan])
    with pytest.raises(ValueError, match="lams"):
        fn(X, y, [])
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="X"):
        fn(Xn, y, [1.0])
    with pytest.raises(ValueError, match="y"):
        fn(X, np.append(y[:-1], np.inf), [1.0])
    with pytest.raises(ValueError, match="same number of samples"):
        fn(X, y[:-1], [1.0])
    with pytest.raises(ValueError, match="X"):
        fn(np.empty((0, 3)), np.empty(0), [1.0])
    with pytest.raises(ValueError, match="y"):
        fn(X, y[:, None, None], [1.0])


def test_constant_column_is_refused_like_ridge_regression():
    X, y = _data(n=12, p=3)
    X[:, 1] = 4.0
    with pytest.raises(ValueError, match="constant"):
        RidgeRegression().fit(X, y)
    with pytest.raises(ValueError, match="constant"):
        ms.cross_val_curve(X, y, [1.0])
    assert np.all(np.isfinite(ms.cross_val_curve(X, y, [1.0], standardize=False)))


def test_bad_stack_and_holdout_input():
    P, y = _data(n=10, p=3)
    with pytest.raises(ValueError, match="P"):
        ms.stack(P[:, 0], y)
    with pytest.raises(ValueError, match="same number of samples"):
        ms.stack(P, y[:5])
    with pytest.raises(ValueError, match="y"):
        ms.stack(P, np.full(10, np.nan))
    with pytest.raises(ValueError, match="test_fraction"):
        ms.holdout_split(10, 1.0)
    with pytest.raises(ValueError, match="test_fraction"):
        ms.holdout_split(10, 0.0)
    with pytest.raises(ValueError, match="n"):
        ms.holdout_split(1, 0.5)
    with pytest.raises(ValueError, match="random_state"):
        ms.holdout_split(10, 0.5, random_state="a")
    X, y = _data(n=10, p=3)
    with pytest.raises(ValueError, match="disjoint"):
        ms.holdout_curve(X, y, [1.0], np.arange(6), np.arange(5, 10))
    with pytest.raises(ValueError, match="test_idx"):
        ms.holdout_curve(X, y, [1.0], np.arange(6), np.array([], dtype=int))
    with pytest.raises(ValueError, match="train_idx"):
        ms.holdout_curve(X, y, [1.0], np.arange(6) + 5, np.arange(5))
    with pytest.raises(ValueError, match="but StackedRidge is expecting 3 features"):
        ms.StackedRidge(lams=[1.0]).fit(X, y).predict(X[:, :2])
    with pytest.raises(ValueError, match="lams"):
        ms.StackedRidge(lams=[-1.0]).fit(X, y)


def test_bad_batch_input():
    with pytest.raises(ValueError, match="X must have shape"):
        ms.cv_curves_batch(np.ones((10, 3)), np.ones(10), [1.0])
    with pytest.raises(ValueError, match="y must have shape"):
        ms.ridge_path_batch(np.ones((2, 10, 3)), np.ones((2, 9)), [1.0])


def test_small_svds_run_with_one_blas_thread(monkeypatch):
    """Reference: threadpoolctl's own report of the BLAS thread count inside the engine."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    seen = []
    from kmlib.model_selection import _core as engine

    core = engine.ridge_svd_path

    def spy(*args, **kwargs):
        seen.append([i["num_threads"] for i in threadpoolctl.threadpool_info()
                     if i["user_api"] == "blas"])
        return core(*args, **kwargs)

    monkeypatch.setattr(engine, "ridge_svd_path", spy)  # used by _predict_core, per fold
    X, y = _data(n=30, p=4)
    ms.cross_val_curve(X, y, [1.0], 3)
    assert len(seen) == 3 and all(t == [1] * len(t) for t in seen)


def test_every_path_puts_the_penalty_last():
    """One shape convention for every function of a penalty grid (the documented shapes of
    kmlib.model_selection): L = 5 penalties, the last axis; no other size is 5."""
    from kmlib.kernels import gaussian
    from kmlib.ridge import fitted_values_path, ridge_path
    rng = np.random.default_rng(0)
    n, p, L, R = 12, 3, 5, 4
    X, y = rng.standard_normal((n, p)), rng.standard_normal(n)
    XB, yB = rng.standard_normal((R, n, p)), rng.standard_normal((R, n))
    lams, K = np.logspace(-2, 1, L), gaussian(1.0)(X)
    shapes = {
        "ridge_path": (ridge_path(X, y, lams), (p, L)),
        "fitted_values_path": (fitted_values_path(X, y, lams), (n, L)),
        "krr_path": (ms.krr_path(K, y, lams), (n, L)),
        "oof_predictions": (ms.oof_predictions(X, y, lams, 2), (n, L)),
        "fold_errors": (ms.fold_errors(X, y, lams, 2), (2, L)),
        "ridge_fit_path coefs": (ms.ridge_fit_path(X, y, lams)[1], (p, L)),
        "loo_ridge leverages": (ms.loo_ridge(X, y, lams, return_leverage=True)[1], (n, L)),
        "ridge_path_batch coefs": (ms.ridge_path_batch(XB, yB, lams)[1], (R, p, L)),
        "oof_predictions_batch": (ms.oof_predictions_batch(XB, yB, lams, 2), (R, n, L)),
        "cv_curves_batch": (ms.cv_curves_batch(XB, yB, lams, 2), (R, L)),
        "tune_krr table": (ms.tune_krr(X, y, gaussian, [0.5, 1.0], lams, 2)[1].cv, (2, L)),
    }
    for f in (ms.cross_val_curve, ms.krr_cv_path):
        shapes[f.__name__] = (f(K if f is ms.krr_cv_path else X, y, lams, 2), (L,))
    for f in (ms.loo_ridge, ms.gcv_ridge, ms.krr_loo):
        shapes[f.__name__] = (f(K if f is ms.krr_loo else X, y, lams), (L,))
    assert {k: a.shape for k, (a, _) in shapes.items()} == {k: s for k, (_, s) in shapes.items()}
