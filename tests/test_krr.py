"""Tests of kmlib.krr: kernel ridge regression (chapters 3, 6 and 7).

References trusted, named in each test: scikit-learn's KernelRidge, numpy's
pseudo-inverse and least squares, LAPACK LU solves (numpy.linalg.solve), and
closed forms (primal ridge through the push-through identity).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.metrics.pairwise import rbf_kernel

from kmlib._validation import NotFittedError
from kmlib.krr import KernelRidge, krr_fit


# ---------------------------------------------------------------------------
# small local kernels (independent of kmlib.kernels)
# ---------------------------------------------------------------------------
def rbf(gamma: float):
    """Gaussian kernel exp(-gamma |x - x'|^2) computed by scikit-learn."""
    def k(X, Y=None):
        return rbf_kernel(X, Y, gamma=gamma)
    return k


def linear(X, Y=None):
    """Linear kernel x^T x'."""
    return X @ (X if Y is None else Y).T


def _data(n=40, p=3, m=25, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, (n, p))
    y = np.sin(X.sum(axis=1)) + 0.1 * rng.standard_normal(n)
    Xt = rng.uniform(-2, 2, (m, p))
    return X, y, Xt


def _rel(a, b):
    return np.max(np.abs(a - b)) / np.max(np.abs(b))


# ---------------------------------------------------------------------------
# agreement with scikit-learn
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("lam", [1e-4, 1e-2, 1.0, 30.0])
def test_matches_sklearn_precomputed(lam):
    """Reference: sklearn KernelRidge(alpha=lam, kernel='precomputed') on the same Gram matrices."""
    X, y, Xt = _data()
    k = rbf(0.4)
    ours = KernelRidge(kernel=k, lam=lam).fit(X, y)
    sk = SkKernelRidge(alpha=lam, kernel="precomputed").fit(k(X), y)
    assert _rel(ours.dual_coef_, sk.dual_coef_) <= 1e-8
    assert _rel(ours.predict(Xt), sk.predict(k(Xt, X))) <= 1e-8
    assert ours.solver_ == "cholesky"


@pytest.mark.parametrize("gamma", [0.1, 1.0])
def test_matches_sklearn_rbf(gamma):
    """Reference: sklearn KernelRidge(kernel='rbf') computing its own kernel."""
    X, y, Xt = _data(seed=1)
    ours = KernelRidge(kernel=rbf(gamma), lam=0.05).fit(X, y).predict(Xt)
    sk = SkKernelRidge(alpha=0.05, kernel="rbf", gamma=gamma).fit(X, y).predict(Xt)
    assert _rel(ours, sk) <= 1e-8


def test_linear_kernel_equals_primal_ridge():
    """Reference: primal ridge (X^T X + lam I)^{-1} X^T y (push-through identity)."""
    X, y, Xt = _data(n=30, p=4, seed=2)
    lam = 0.7
    beta = np.linalg.solve(X.T @ X + lam * np.eye(4), X.T @ y)
    pred = KernelRidge(kernel=linear, lam=lam).fit(X, y).predict(Xt)
    assert _rel(pred, Xt @ beta) <= 1e-10


def test_one_dimensional_inputs():
    """Reference: sklearn with 1-D inputs reshaped to a column (the book's convention)."""
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 1, 25)
    y = np.sin(4 * np.pi * x)
    xt = np.linspace(0, 1, 11)
    ours = KernelRidge(kernel=rbf(20.0), lam=1e-3).fit(x, y).predict(xt)
    sk = SkKernelRidge(alpha=1e-3, kernel="rbf", gamma=20.0).fit(x[:, None], y).predict(xt[:, None])
    assert _rel(ours, sk) <= 1e-8


# ---------------------------------------------------------------------------
# lam = 0: the minimum-norm interpolant
# ---------------------------------------------------------------------------
def _duplicated_design(seed=4):
    """Eight well-separated points, each listed twice: K has rank 8 of 16."""
    rng = np.random.default_rng(seed)
    base = np.arange(8.0)[:, None] * 1.5
    X = np.vstack([base, base])
    y = rng.standard_normal(16)
    return X, y


def test_lam0_min_norm_interpolant_equals_pinv_and_warns_once():
    """Reference: numpy.linalg.pinv(K) @ y and lstsq (minimum-norm solution)."""
    X, y = _duplicated_design()
    k = rbf(1.0)
    K = k(X)
    assert np.linalg.matrix_rank(K) == 8
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        model = KernelRidge(kernel=k, lam=0.0).fit(X, y)
    runtime = [w for w in rec if issubclass(w.category, RuntimeWarning)]
    assert len(runtime) == 1 and len(rec) == 1
    assert "minimum-norm" in str(runtime[0].message)
    assert "rank 8 of 16" in str(runtime[0].message)
    assert _rel(model.dual_coef_, np.linalg.pinv(K) @ y) <= 1e-8
    assert _rel(model.dual_coef_, np.linalg.lstsq(K, y, rcond=None)[0]) <= 1e-8
    # the fit is the projection onto range(K): the average of the duplicated responses
    avg = 0.5 * (y[:8] + y[8:])
    assert np.allclose(model.predict(X), np.concatenate([avg, avg]), atol=1e-10)


def test_lam0_full_rank_interpolates_without_warning():
    """Reference: numpy.linalg.solve(K, y); the fit interpolates the data exactly."""
    X, y = _duplicated_design()
    X, y = X[:8], y[:8]
    k = rbf(1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = KernelRidge(kernel=k, lam=0).fit(X, y)
    assert _rel(model.dual_coef_, np.linalg.solve(k(X), y)) <= 1e-10
    assert np.allclose(model.predict(X), y, atol=1e-10)


def test_krr_fit_lam0_rank_deficient_matches_pinv():
    """Reference: numpy.linalg.pinv on K = A A^T of rank 3 with duplicated rows."""
    rng = np.random.default_rng(5)
    A = rng.standard_normal((6, 3))
    A = np.vstack([A, A[:2]])
    K = A @ A.T
    y = rng.standard_normal(8)
    with pytest.warns(RuntimeWarning, match="numerically singular") as rec:
        alpha = krr_fit(K, y, 0.0)
    assert len(rec) == 1
    assert _rel(alpha, np.linalg.pinv(K) @ y) <= 1e-8


def test_indefinite_fallback_warns_once_and_solves():
    """Reference: numpy.linalg.solve (LU) of the invertible but indefinite K + lam I."""
    rng = np.random.default_rng(6)
    Q, _ = np.linalg.qr(rng.standard_normal((5, 5)))
    K = Q @ np.diag([3.0, 2.0, 1.0, 0.5, -0.6]) @ Q.T
    K = 0.5 * (K + K.T)
    y = rng.standard_normal(5)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        alpha = krr_fit(K, y, 0.1)
    assert len(rec) == 1 and issubclass(rec[0].category, RuntimeWarning)
    assert "Cholesky failed" in str(rec[0].message)
    assert _rel(alpha, np.linalg.solve(K + 0.1 * np.eye(5), y)) <= 1e-10


def test_no_warning_in_normal_use():
    """A well-posed fit emits no warning at all (common rule: no warnings in normal use)."""
    X, y, Xt = _data(seed=7)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        KernelRidge(kernel=rbf(0.5), lam=0.1).fit(X, y).predict(Xt)


# ---------------------------------------------------------------------------
# krr_fit
# ---------------------------------------------------------------------------
def test_krr_fit_agrees_with_estimator_and_lu():
    """References: KernelRidge.dual_coef_ (same solver) and numpy.linalg.solve (LU)."""
    X, y, _ = _data(seed=8)
    k = rbf(0.3)
    K = k(X)
    K0 = K.copy()
    alpha = krr_fit(K, y, 0.2)
    assert np.array_equal(K, K0), "krr_fit must not modify K"
    assert _rel(alpha, KernelRidge(kernel=k, lam=0.2).fit(X, y).dual_coef_) <= 1e-12
    assert _rel(alpha, np.linalg.solve(K + 0.2 * np.eye(len(y)), y)) <= 1e-10


def test_fitted_values_obey_normal_equations():
    """Closed form: alpha solves (K + lam I) alpha = y, i.e. lam alpha = y - K alpha."""
    X, y, _ = _data(seed=9)
    K = rbf(1.0)(X)
    lam = 0.3
    alpha = krr_fit(K, y, lam)
    assert np.allclose(lam * alpha, y - K @ alpha, atol=1e-12)


def test_fit_returns_self_and_keeps_hyperparameters():
    """scikit-learn convention: fit returns self; __init__ stores its arguments unchanged."""
    X, y, _ = _data(seed=10)
    k = rbf(1.0)
    model = KernelRidge(kernel=k, lam=2)
    assert model.fit(X, y) is model
    assert model.lam == 2 and model.kernel is k
    assert model.X_fit_.shape == X.shape
    X[0, 0] = 99.0
    assert model.X_fit_[0, 0] != 99.0, "X_fit_ must be a copy"


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("lam, match", [(-1.0, "lam must be >= 0"),
                                        (np.nan, "lam must be finite"),
                                        (np.inf, "lam must be finite"),
                                        ("big", "lam must be a real number")])
def test_bad_lam(lam, match):
    X, y, _ = _data(n=10)
    with pytest.raises(ValueError, match=match):
        KernelRidge(kernel=rbf(1.0), lam=lam).fit(X, y)
    with pytest.raises(ValueError, match=match):
        krr_fit(rbf(1.0)(X), y, lam)


def test_bad_data_for_estimator():
    X, y, _ = _data(n=10)
    k = rbf(1.0)
    Xn = X.copy()
    Xn[2, 1] = np.nan
    with pytest.raises(ValueError, match="X contains 1 NaN or infinite"):
        KernelRidge(kernel=k, lam=1.0).fit(Xn, y)
    yi = y.copy()
    yi[0] = np.inf
    with pytest.raises(ValueError, match="y contains 1 NaN or infinite"):
        KernelRidge(kernel=k, lam=1.0).fit(X, yi)
    with pytest.raises(ValueError, match="same number of samples; got 10 and 9"):
        KernelRidge(kernel=k, lam=1.0).fit(X, y[:-1])
    with pytest.raises(ValueError, match="y must be a 2-D array"):  # (n, t) is multi-output
        KernelRidge(kernel=k, lam=1.0).fit(X, np.ones((10, 2, 2)))
    with pytest.raises(ValueError, match="kernel must be a callable"):
        KernelRidge(kernel="rbf", lam=1.0).fit(X, y)


def test_predict_before_fit_and_wrong_width():
    X, y, Xt = _data(n=10)
    model = KernelRidge(kernel=rbf(1.0), lam=1.0)
    with pytest.raises(NotFittedError, match="not fitted yet"):
        model.predict(Xt)
    model.fit(X, y)
    with pytest.raises(ValueError, match="X has 2 features, but KernelRidge is expecting 3"):
        model.predict(Xt[:, :2])
    Xt[0, 0] = np.nan
    with pytest.raises(ValueError, match="X contains 1 NaN"):
        model.predict(Xt)


def test_bad_kernel_output():
    X, y, Xt = _data(n=10)

    def wrong_shape(A, B=None):
        return np.ones((len(A), 3))

    def not_symmetric(A, B=None):
        B = A if B is None else B
        return A @ B.T + np.triu(np.ones((len(A), len(B))))

    def non_finite(A, B=None):
        K = rbf_kernel(A, B)
        K[0, 0] = np.nan
        return K

    msg = r"kernel\(X\) must return a Gram matrix of shape \(10, 10\)"
    with pytest.raises(ValueError, match=msg):
        KernelRidge(kernel=wrong_shape, lam=1.0).fit(X, y)
    with pytest.raises(ValueError, match="must be a symmetric Gram matrix"):
        KernelRidge(kernel=not_symmetric, lam=1.0).fit(X, y)
    with pytest.raises(ValueError, match="NaN or infinite"):
        KernelRidge(kernel=non_finite, lam=1.0).fit(X, y)

    def overflowing_asymmetry(A, B=None):
        K = np.zeros((len(A), len(A)))
        K[0, 1], K[1, 0] = 1e308, -1e308
        return K

    with pytest.raises(ValueError, match="must be a symmetric Gram matrix"):
        KernelRidge(kernel=overflowing_asymmetry, lam=1.0).fit(X, y)


def test_bad_gram_for_krr_fit():
    X, y, _ = _data(n=6)
    K = rbf_kernel(X)
    with pytest.raises(ValueError, match="K must be a square matrix"):
        krr_fit(K[:, :5], y, 1.0)
    with pytest.raises(ValueError, match="K must be a symmetric Gram matrix"):
        krr_fit(K + np.triu(np.ones((6, 6)), 1), y, 1.0)
    Kn = K.copy()
    Kn[1, 1] = np.inf
    with pytest.raises(ValueError, match="K contains 1 NaN"):
        krr_fit(Kn, y, 1.0)
    with pytest.raises(ValueError, match="same number of samples; got 6 and 5"):
        krr_fit(K, y[:5], 1.0)
    with pytest.raises(ValueError, match="K must be a 2-D array"):
        krr_fit(y, y, 1.0)


def test_fit_falls_back_on_a_fresh_gram_after_cholesky_destroys_its_own():
    """Reference: pinv(K + lam I) @ y on an indefinite 'kernel' (Cholesky must fail).

    ``KernelRidge.fit`` factorises the Gram matrix it computed in place; when the
    factorisation fails the eigendecomposition must see the original matrix again.
    """
    def indefinite(X, Y=None):
        Y = X if Y is None else Y
        # symmetric with a positive diagonal (so it passes the cheap test of
        # check_gram_psd), but not positive semidefinite
        return np.tanh(3.0 * X @ Y.T + 0.5)

    X = np.linspace(-1.0, 1.0, 12)[:, None]
    y = np.sin(4.0 * X[:, 0])
    K = indefinite(X)
    assert np.linalg.eigvalsh(K).min() < -1e-3
    lam = 1e-3
    with pytest.warns(RuntimeWarning, match="eigendecomposition"):
        model = KernelRidge(kernel=indefinite, lam=lam).fit(X, y)
    assert model.solver_ == "eigh"
    np.testing.assert_allclose(model.dual_coef_, np.linalg.pinv(K + lam * np.eye(12)) @ y,
                               rtol=1e-8, atol=1e-10)


# ---------------------------------------------------------------------------
# issue 23: a user's Gram array is never modified
# ---------------------------------------------------------------------------
def _cached_kernel(X_train, gamma=0.5):
    """A user's kernel that returns the SAME cached array on every call k(X_train)."""
    cache = rbf_kernel(X_train, gamma=gamma)

    def k(X, Y=None):
        if Y is None and X.shape == X_train.shape and np.array_equal(X, X_train):
            return cache
        return rbf_kernel(X, Y, gamma=gamma)
    return k, cache


def test_fit_never_modifies_the_array_a_users_kernel_returns():
    # reference: a copy of the cached Gram matrix taken before any fit, and
    # scikit-learn's KernelRidge fitted on that copy for every lam of the loop
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 2)), rng.normal(size=60)
    k, cache = _cached_kernel(X)
    before = cache.copy()
    for lam in (1e-3, 1e-1, 1.0):  # the loop over lam that used to fail on its 2nd fit
        model = KernelRidge(kernel=k, lam=lam).fit(X, y)
        np.testing.assert_array_equal(cache, before)
        ref = SkKernelRidge(alpha=lam, kernel="precomputed").fit(before, y)
        np.testing.assert_allclose(model.dual_coef_, ref.dual_coef_, rtol=1e-8, atol=1e-10)


def test_tune_krr_never_modifies_the_array_a_users_kernel_returns():
    # reference: a copy of the cached Gram matrix taken before tune_krr
    from kmlib.model_selection import tune_krr

    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(50, 2)), rng.normal(size=50)
    k, cache = _cached_kernel(X)
    before = cache.copy()
    model, table = tune_krr(X, y, lambda p: k, [0], [1e-2, 1.0], folds=5)
    np.testing.assert_array_equal(cache, before)
    ref = SkKernelRidge(alpha=table.best_lam, kernel="precomputed").fit(before, y)
    np.testing.assert_allclose(model.dual_coef_, ref.dual_coef_, rtol=1e-8, atol=1e-10)


def test_multi_output_matches_scikit_learn_and_one_column_at_a_time():
    """Reference: scikit-learn's KernelRidge (rbf) on the same 2-D y, with and without
    weights, and kmlib's own fit of each column alone."""
    from kmlib import kernels

    rng = np.random.default_rng(11)
    X = rng.normal(size=(60, 3))
    Y = np.column_stack([np.sin(X[:, 0]), X[:, 1] ** 2, X @ [1.0, -1.0, 0.5]])
    w = rng.uniform(0.2, 2.0, size=60)
    sigma, lam = 1.5, 0.3
    for sw in (None, w):
        ours = KernelRidge(kernel=kernels.gaussian(sigma), lam=lam).fit(X, Y, sample_weight=sw)
        ref = SkKernelRidge(kernel="rbf", gamma=1 / (2 * sigma**2), alpha=lam).fit(
            X, Y, sample_weight=sw)
        assert ours.dual_coef_.shape == (60, 3)
        np.testing.assert_allclose(ours.predict(X[:7]), ref.predict(X[:7]), rtol=1e-9,
                                   atol=1e-10)
        for j in range(3):
            one = KernelRidge(kernel=kernels.gaussian(sigma), lam=lam).fit(X, Y[:, j],
                                                                             sample_weight=sw)
            np.testing.assert_allclose(ours.dual_coef_[:, j], one.dual_coef_, rtol=1e-10,
                                       atol=1e-12)
    pre = KernelRidge(kernel="precomputed", lam=lam).fit(kernels.gaussian(sigma)(X), Y)
    np.testing.assert_allclose(pre.predict(kernels.gaussian(sigma)(X[:5], X)),
                               KernelRidge(kernel=kernels.gaussian(sigma), lam=lam)
                               .fit(X, Y).predict(X[:5]), rtol=1e-10)


def test_a_kernel_returning_complex_values_is_refused_not_truncated():
    # numpy's float conversion drops an imaginary part with only a ComplexWarning
    X = np.linspace(0.0, 1.0, 6)[:, None]
    k = lambda A, B=None: (A @ (A if B is None else B).T) * (1 + 1j)  # noqa: E731
    with pytest.raises(ValueError, match=r"kernel\(X\) must be real"):
        KernelRidge(kernel=k).fit(X, X[:, 0])
