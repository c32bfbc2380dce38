"""The scikit-learn estimator API of issue 23: precomputed kernels, sample weights, feature names.

References trusted, named in each test: scikit-learn's KernelRidge, Ridge, Nystroem and its
``feature_names_in_`` rules (its own estimators fitted on the same data), and closed forms
(a weighted fit equals the unweighted fit on repeated rows; a zero weight drops a row).

pandas is not a dependency of the book, so the feature-name tests use a minimal data frame
that speaks the data-frame interchange protocol (``__dataframe__().column_names()``), which
scikit-learn reads exactly as it reads a pandas DataFrame's columns; with pandas installed
the same checks also run on a real DataFrame.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.kernel_approximation import Nystroem as SkNystroem
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.linear_model import Ridge as SkRidge
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import make_pipeline

from kmlib import kernels
from kmlib.falkon import NystroemKernelRidge
from kmlib.features import Nystroem, PositiveRandomFeatures, RandomFourierFeatures
from kmlib.krr import KernelRidge
from kmlib.logistic import KernelLogisticRegression
from kmlib.model_selection import StackedRidge
from kmlib.ridge import RidgeRegression
from kmlib.svm import KernelSVM
from kmlib.unsupervised import KernelPCA


class Frame:
    """A two-dimensional table with named columns (the interchange protocol's minimum)."""

    def __init__(self, data, columns):
        self.data = np.asarray(data, dtype=float)
        self.columns = list(columns)

    def __array__(self, dtype=None, copy=None):
        return self.data if dtype is None else self.data.astype(dtype)

    def __len__(self):
        return len(self.data)

    def __dataframe__(self, *args, **kwargs):
        return self

    def column_names(self):
        return self.columns

    def reordered(self, columns):
        idx = [self.columns.index(c) for c in columns]
        return Frame(self.data[:, idx], columns)


def _data(n=40, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.sin(X[:, 0]) + 0.3 * X[:, 1] + 0.1 * rng.normal(size=n)
    return X, y


# ---------------------------------------------------------------------------
# kernel="precomputed" on KernelRidge
# ---------------------------------------------------------------------------
def test_krr_precomputed_matches_sklearn_and_the_callable_kernel():
    # references: scikit-learn's KernelRidge(kernel="precomputed") on the same Gram
    # matrices, and kmlib's KernelRidge with the callable kernel
    X, y = _data()
    Xt = _data(n=7, seed=1)[0]
    K, Kt = rbf_kernel(X, gamma=0.5), rbf_kernel(Xt, X, gamma=0.5)
    ours = KernelRidge(kernel="precomputed", lam=0.1).fit(K, y)
    ref = SkKernelRidge(kernel="precomputed", alpha=0.1).fit(K, y)
    np.testing.assert_allclose(ours.predict(Kt), ref.predict(Kt), rtol=1e-10, atol=1e-12)
    callable_fit = KernelRidge(kernel=kernels.gaussian(1.0), lam=0.1).fit(X, y)
    np.testing.assert_allclose(ours.predict(Kt), callable_fit.predict(Xt), rtol=1e-9, atol=1e-12)
    assert ours.X_fit_ is None and ours.n_features_in_ == len(y)
    assert KernelRidge(kernel="precomputed").__sklearn_tags__().input_tags.pairwise


def test_krr_precomputed_grid_search_slices_the_gram_matrix_like_sklearn():
    # reference: GridSearchCV over scikit-learn's precomputed KernelRidge on the same folds
    X, y = _data(n=60)
    K = rbf_kernel(X, gamma=0.5)
    cv = KFold(4, shuffle=True, random_state=0)
    lams = [1e-2, 1e-1, 1.0]
    ours = GridSearchCV(KernelRidge(kernel="precomputed"), {"lam": lams}, cv=cv).fit(K, y)
    ref = GridSearchCV(SkKernelRidge(kernel="precomputed"), {"alpha": lams}, cv=cv).fit(K, y)
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"],
                               ref.cv_results_["mean_test_score"], rtol=1e-8)


@pytest.mark.parametrize("X, match", [
    (np.ones((4, 3)), "square"),
    (np.array([[1.0, 2.0], [0.0, 1.0]]), "symmetric"),
    (-np.eye(4), "negative"),
    (np.full((4, 4), np.nan), "NaN"),
])
def test_krr_precomputed_rejects_what_is_not_a_gram_matrix(X, match):
    with pytest.raises(ValueError, match=match):
        KernelRidge(kernel="precomputed").fit(X, np.ones(len(X)))


def test_krr_precomputed_predict_wants_the_cross_gram_matrix():
    K = rbf_kernel(_data(n=5)[0])
    model = KernelRidge(kernel="precomputed").fit(K, np.arange(5.0))
    with pytest.raises(ValueError, match="expecting 5 features"):
        model.predict(np.ones((2, 4)))
    with pytest.raises(ValueError, match="kernel must be a callable"):
        KernelRidge(kernel="rbf").fit(K, np.arange(5.0))


# ---------------------------------------------------------------------------
# sample_weight
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("lam", [1e-3, 0.1, 10.0])
def test_krr_sample_weight_matches_sklearn(lam):
    # reference: scikit-learn's KernelRidge(sample_weight=w) with the same Gram matrix
    X, y = _data()
    w = np.random.default_rng(2).uniform(0.0, 3.0, size=len(y))
    w[:3] = 0.0  # zero weights are allowed (the row then has no say)
    K = rbf_kernel(X, gamma=0.5)
    ref = SkKernelRidge(kernel="precomputed", alpha=lam).fit(K, y, sample_weight=w)
    for ours in (KernelRidge(kernel="precomputed", lam=lam).fit(K, y, sample_weight=w),
                 KernelRidge(kernel=kernels.gaussian(1.0), lam=lam).fit(X, y, sample_weight=w)):
        np.testing.assert_allclose(ours.dual_coef_, ref.dual_coef_, rtol=1e-7, atol=1e-10)


def test_krr_integer_weights_equal_repeated_rows():
    # reference (closed form): weight 2 on a row = that row twice, with kmlib's own unweighted fit
    X, y = _data(n=20)
    w = np.ones(20)
    w[:5] = 2.0
    k = kernels.gaussian(1.0)
    Xr, yr = np.vstack([X, X[:5]]), np.concatenate([y, y[:5]])
    weighted = KernelRidge(kernel=k, lam=0.3).fit(X, y, sample_weight=w)
    repeated = KernelRidge(kernel=k, lam=0.3).fit(Xr, yr)
    Xt = _data(n=6, seed=3)[0]
    np.testing.assert_allclose(weighted.predict(Xt), repeated.predict(Xt), rtol=1e-8, atol=1e-10)


def test_krr_sample_weight_never_modifies_the_users_gram_matrix():
    # reference: a copy of the precomputed Gram matrix taken before the fit
    X, y = _data()
    K = rbf_kernel(X, gamma=0.5)
    before = K.copy()
    KernelRidge(kernel="precomputed", lam=0.1).fit(K, y, sample_weight=np.full(len(y), 2.0))
    np.testing.assert_array_equal(K, before)


@pytest.mark.parametrize("w, match", [
    (np.ones(3), "shape"), (-np.ones(40), "Negative"), (np.full(40, np.nan), "NaN"),
])
def test_sample_weight_bad_input(w, match):
    X, y = _data()
    for est in (KernelRidge(kernel=kernels.gaussian(1.0)), RidgeRegression()):
        with pytest.raises(ValueError, match=match):
            est.fit(X, y, sample_weight=w)


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("lam", [1e-3, 1.0, 30.0])
def test_ridge_sample_weight_matches_sklearn(fit_intercept, lam):
    # reference: scikit-learn's Ridge(alpha=lam, fit_intercept) with sample_weight
    # (kmlib's standardize=False is scikit-learn's objective; see the next test for True)
    X, y = _data(n=50, d=4)
    w = np.random.default_rng(4).uniform(0.0, 2.0, size=50)
    ours = RidgeRegression(lam=lam, fit_intercept=fit_intercept, standardize=False)
    ours.fit(X, y, sample_weight=w)
    ref = SkRidge(alpha=lam, fit_intercept=fit_intercept, solver="cholesky")
    ref.fit(X, y, sample_weight=w)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, rtol=1e-9, atol=1e-12)


def test_ridge_standardized_integer_weights_equal_repeated_rows():
    # reference (closed form): weight 2 on a row = that row twice, also for the weighted
    # centring and scaling of standardize=True; unit weights = no weights
    X, y = _data(n=30, d=3)
    w = np.ones(30)
    w[:7] = 2.0
    Xr, yr = np.vstack([X, X[:7]]), np.concatenate([y, y[:7]])
    weighted = RidgeRegression(lam=2.0).fit(X, y, sample_weight=w)
    repeated = RidgeRegression(lam=2.0).fit(Xr, yr)
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, rtol=1e-10)
    np.testing.assert_allclose(weighted.intercept_, repeated.intercept_, rtol=1e-10)
    unit = RidgeRegression(lam=2.0).fit(X, y, sample_weight=np.ones(30))
    plain = RidgeRegression(lam=2.0).fit(X, y)
    np.testing.assert_allclose(unit.coef_, plain.coef_, rtol=1e-12)


# ---------------------------------------------------------------------------
# feature_names_in_, get_feature_names_out, set_output
# ---------------------------------------------------------------------------
def _supervised(y_kind):
    X, y = _data()
    return X, (y if y_kind == "reg" else np.where(y > 0, 1, -1))


ALL = [
    (KernelRidge(kernel=kernels.gaussian(1.0)), "reg"),
    (RidgeRegression(), "reg"),
    (StackedRidge(lams=[0.1, 1.0]), "reg"),
    (KernelSVM(kernel=kernels.gaussian(1.0)), "clf"),
    (KernelLogisticRegression(kernel=kernels.gaussian(1.0)), "clf"),
    (Nystroem(kernel=kernels.gaussian(1.0), n_components=10, random_state=0), "tr"),
    (RandomFourierFeatures(n_features=5, random_state=0), "tr"),
    (PositiveRandomFeatures(n_features=5, random_state=0), "tr"),
]


@pytest.mark.parametrize("est, kind", ALL, ids=lambda e: type(e).__name__)
def test_feature_names_are_recorded_and_checked_as_in_sklearn(est, kind):
    # reference: scikit-learn's rules (sklearn.utils.validation), which its own Ridge follows
    X, y = _supervised(kind)
    frame = Frame(X, ["a", "b", "c"])
    model = clone(est).fit(frame, y)
    np.testing.assert_array_equal(model.feature_names_in_, ["a", "b", "c"])
    out = model.transform if kind == "tr" else model.predict
    with pytest.warns(UserWarning, match="X does not have valid feature names"):
        plain = out(X)
    np.testing.assert_allclose(out(frame), plain)  # same columns, same answer
    with pytest.raises(ValueError, match="feature names should match"):
        out(frame.reordered(["b", "a", "c"]))
    sk = SkRidge().fit(frame, _data()[1])
    with pytest.raises(ValueError, match="feature names should match"):
        sk.predict(frame.reordered(["b", "a", "c"]))
    assert not hasattr(clone(est).fit(X, y), "feature_names_in_")


@pytest.mark.parametrize("est, n_out, prefix", [
    (Nystroem(kernel=kernels.gaussian(1.0), n_components=10, random_state=0), 10, "nystroem"),
    (RandomFourierFeatures(n_features=5, random_state=0), 10, "randomfourierfeatures"),
    (RandomFourierFeatures(n_features=5, variant="cos_phase", random_state=0), 5,
     "randomfourierfeatures"),
    (PositiveRandomFeatures(n_features=5, random_state=0), 5, "positiverandomfeatures"),
], ids=lambda e: type(e).__name__ if hasattr(e, "fit") else "")
def test_transformers_name_their_output_like_sklearns_nystroem(est, n_out, prefix):
    # reference: scikit-learn's Nystroem, whose names are "nystroem0", "nystroem1", ...
    X = _data()[0]
    model = clone(est).fit(X)
    names = model.get_feature_names_out()
    assert list(names) == [f"{prefix}{i}" for i in range(n_out)]
    assert model.transform(X).shape[1] == n_out
    sk = SkNystroem(n_components=10, random_state=0).fit(X).get_feature_names_out()
    assert list(sk) == [f"nystroem{i}" for i in range(10)]
    assert model.set_output(transform="default") is model
    assert isinstance(model.transform(X), np.ndarray)


def test_set_output_pandas_in_a_pipeline():
    # reference: scikit-learn's own column naming of a transformer's output
    pd = pytest.importorskip("pandas")
    X, y = _data()
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    ny = Nystroem(kernel=kernels.gaussian(1.0), n_components=8, random_state=0)
    out = ny.set_output(transform="pandas").fit_transform(frame)
    assert list(out.columns) == [f"nystroem{i}" for i in range(8)]
    pipe = make_pipeline(clone(ny), RidgeRegression(lam=0.1)).fit(frame, y)
    with pytest.raises(ValueError, match="feature names should match"):
        pipe.predict(frame[["b", "a", "c"]])


def test_nystroem_clips_n_components_like_sklearn():
    # reference: scikit-learn's Nystroem warns and uses n_components = n_samples; with every
    # point a landmark both reproduce the Gram matrix exactly
    X = _data(n=12)[0]
    with pytest.warns(UserWarning, match="n_components"):
        sk = SkNystroem(kernel="rbf", gamma=0.5, n_components=100, random_state=0).fit(X)
    with pytest.warns(UserWarning, match="n_components=100 > n_samples=12"):
        ours = Nystroem(kernel=kernels.gaussian(1.0), n_components=100, random_state=0).fit(X)
    assert ours.components_.shape == sk.components_.shape == (12, 3)
    K = rbf_kernel(X, gamma=0.5)
    Phi = ours.transform(X)
    np.testing.assert_allclose(Phi @ Phi.T, K, atol=1e-8)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning when n_components <= n_samples
        Nystroem(kernel=kernels.gaussian(1.0), n_components=12, random_state=0).fit(X)


# ---------------------------------------------------------------------------
# RidgeRegression: several outputs from one factorisation, Cholesky when safe
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("n, p", [(60, 5), (8, 30)])  # primal (p <= n) and dual (p > n) routes
@pytest.mark.parametrize("lam", [1e-8, 0.5, 1e3])     # SVD below the safe level, Cholesky above
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_ridge_multi_output_matches_sklearn(n, p, lam, fit_intercept):
    # reference: scikit-learn's Ridge on the same (n, 3) responses; and kmlib's own
    # single-output fits, one per column
    rng = np.random.default_rng(5)
    X, Y = rng.normal(size=(n, p)), rng.normal(size=(n, 3))
    ours = RidgeRegression(lam=lam, fit_intercept=fit_intercept, standardize=False).fit(X, Y)
    ref = SkRidge(alpha=lam, fit_intercept=fit_intercept, solver="svd").fit(X, Y)
    assert ours.coef_.shape == (3, p) and np.shape(ours.intercept_) == (3,)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=1e-7, atol=1e-9)
    for j in range(3):
        one = RidgeRegression(lam=lam, fit_intercept=fit_intercept, standardize=False)
        one.fit(X, Y[:, j])
        np.testing.assert_allclose(ours.coef_[j], one.coef_, rtol=1e-10, atol=1e-12)
        assert isinstance(one.intercept_, float) and one.coef_.shape == (p,)


def test_ridge_factorises_once_for_all_outputs(monkeypatch):
    # reference: a count of the solver calls (each call is one factorisation), and the
    # condition numbers computed by numpy for the two designs
    import kmlib.ridge.estimation as est

    calls = []
    chol, svd = est._cholesky_solve, est._solve_many
    monkeypatch.setattr(est, "_cholesky_solve",
                        lambda *a: calls.append("cholesky") or chol(*a))
    monkeypatch.setattr(est, "_solve_many", lambda *a: calls.append("svd") or svd(*a))
    rng = np.random.default_rng(6)
    X, Y = rng.normal(size=(40, 4)), rng.normal(size=(40, 10))
    RidgeRegression(lam=1e-9).fit(X, Y)        # well conditioned: Cholesky alone
    assert calls == ["cholesky"]
    Xd = np.column_stack([X, X[:, 0]])         # a repeated column: cond ~ 1e11 at lam=1e-9
    Z = (Xd - Xd.mean(0)) / Xd.std(0)
    assert np.linalg.cond(Z.T @ Z + 1e-9 * np.eye(5)) > 1e6
    calls.clear()
    fit = RidgeRegression(lam=1e-9).fit(Xd, Y)
    assert calls == ["cholesky", "svd"]        # refused by the condition estimate
    ref = SkRidge(alpha=1e-9, solver="svd").fit(Z, Y)  # the fitted values are well determined
    np.testing.assert_allclose(fit.predict(Xd), ref.predict(Z), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("w", [np.zeros(40), np.full(40, 1e308)])
def test_ridge_sample_weight_needs_a_positive_finite_sum(w):
    # reference: the weighted means sum(w_i x_i) / sum(w_i) exist only for 0 < sum(w) < inf
    X, y = _data()
    with pytest.raises(ValueError, match="positive, finite sum"):
        RidgeRegression().fit(X, y, sample_weight=w)


# ---------------------------------------------------------------------------
# results: predict, transform and decision_function never return inf or NaN
# ---------------------------------------------------------------------------
BIG = np.finfo(float).max


def _kernel_coef(model, X):   # k(x, x) = 1 > 0 and k >= 0: a sum of BIG * k overflows at X
    model.dual_coef_ = np.full_like(model.dual_coef_, BIG)
    return X


def _linear_coef(model, X):   # positive inputs: X @ coef_ overflows
    model.coef_ = np.full_like(model.coef_, BIG)
    return np.abs(X) + 1.0


def _positive_features(model, X):   # exp of x . w ~ 1e300 overflows
    model.W_ = np.full_like(model.W_, 1e300)
    return np.abs(X) + 1.0


def _kpca(model, X):   # cross Gram matrix ~1e150 times the directions ~1e200 overflows
    model.eigenvectors_ = model.eigenvectors_ * 1e200
    return X * 1e150


HUGE = [
    (KernelRidge(kernel=kernels.gaussian(1.0)), "reg", _kernel_coef, "predict"),
    (RidgeRegression(), "reg", _linear_coef, "predict"),
    (StackedRidge(lams=[0.1, 1.0]), "reg", _linear_coef, "predict"),
    (NystroemKernelRidge(kernel=kernels.gaussian(1.0), n_components=10, random_state=0),
     "reg", _kernel_coef, "predict"),
    (KernelSVM(kernel=kernels.gaussian(1.0)), "clf", _kernel_coef, "decision_function"),
    (KernelLogisticRegression(kernel=kernels.gaussian(1.0)), "clf", _kernel_coef,
     "decision_function"),
    (PositiveRandomFeatures(n_features=5, random_state=0), "reg", _positive_features,
     "transform"),
    (KernelPCA(2, kernel=kernels.linear()), "reg", _kpca, "transform"),
]


@pytest.mark.parametrize("est, kind, blow_up, method", HUGE,
                         ids=lambda e: type(e).__name__ if hasattr(e, "fit") else "")
def test_every_estimator_method_reports_an_overflow(est, kind, blow_up, method):
    # reference: the float64 range (max 1.8e308); the fitted attributes made huge so that
    # the result overflows, which must raise instead of returning inf
    X, y = _supervised(kind)
    model = clone(est).fit(X, y)
    assert np.all(np.isfinite(getattr(model, method)(X)))
    Xt = blow_up(model, X)
    with pytest.raises(ValueError, match=rf"{type(est).__name__}\.{method}: the result is not "
                                         "finite"):
        getattr(model, method)(Xt)


def test_the_finite_guard_sees_the_array_under_set_output_pandas():
    # reference: set_output wraps transform when the class is created; the guard must be
    # inside that wrapper, or a DataFrame of inf would pass it unseen
    pytest.importorskip("pandas")
    X = _data()[0]
    model = PositiveRandomFeatures(n_features=5, random_state=0).set_output(transform="pandas")
    model.fit(X)
    _positive_features(model, X)
    with pytest.raises(ValueError, match="the result is not finite"):
        model.transform(X)


def test_a_subclass_method_is_guarded_and_an_inherited_one_stays_guarded():
    class Overflowing(KernelRidge):
        def predict(self, X):
            return np.full(len(X), np.inf)

    class Inheriting(KernelRidge):
        pass

    X, y = _data()
    with pytest.raises(ValueError, match=r"Overflowing\.predict: the result is not finite"):
        Overflowing(kernel=kernels.gaussian(1.0)).fit(X, y).predict(X)
    model = Inheriting(kernel=kernels.gaussian(1.0)).fit(X, y)
    model.dual_coef_ = np.full(len(X), 1e308)
    with pytest.raises(ValueError, match=r"KernelRidge\.predict: the result is not finite"):
        model.predict(X)
