"""Tests of the fast KRR model-selection paths (krr_spectral, krr_cv and krr_tuning).

References trusted, named in each test: brute-force refits with LAPACK LU
solves (numpy.linalg.solve) on every fold / left-out point / penalty,
scikit-learn (KernelRidge, cross_val_score with KFold and LeaveOneOut), the
pseudo-inverse (numpy.linalg.pinv), and an exhaustive grid search.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import KFold as SkKFold
from sklearn.model_selection import LeaveOneOut, cross_val_score

from kmlib._folds import KFold
from kmlib.krr import KernelRidge
from kmlib.model_selection import (
    KRRTuningTable,
    krr_cv_path,
    krr_loo,
    krr_path,
    tune_krr,
)
from kmlib.ridge import fitted_values_path


def rbf(gamma: float):
    """Gaussian kernel exp(-gamma |x - x'|^2) computed by scikit-learn."""
    def k(X, Y=None):
        return rbf_kernel(X, Y, gamma=gamma)
    return k


def _data(n=40, p=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, (n, p))
    y = np.cos(2 * X[:, 0]) + X[:, 1] ** 2 / 4 + 0.2 * rng.standard_normal(n)
    return X, y


LAMS = np.logspace(-3, 1.5, 8)


# ---------------------------------------------------------------------------
# brute-force references (plain LU solves, one per fold / point / penalty)
# ---------------------------------------------------------------------------
def brute_fitted(K, y, lam):
    return K @ np.linalg.solve(K + lam * np.eye(len(y)), y)


def brute_cv(K, y, lams, pairs):
    out = []
    for lam in lams:
        sse = 0.0
        for tr, te in pairs:
            alpha = np.linalg.solve(K[np.ix_(tr, tr)] + lam * np.eye(len(tr)), y[tr])
            sse += np.sum((y[te] - K[np.ix_(te, tr)] @ alpha) ** 2)
        out.append(sse / len(y))
    return np.array(out)


def brute_loo(K, y, lams):
    n = len(y)
    pairs = [(np.delete(np.arange(n), i), np.array([i])) for i in range(n)]
    return brute_cv(K, y, lams, pairs)


# ---------------------------------------------------------------------------
# krr_path
# ---------------------------------------------------------------------------
def test_path_equals_direct_solves():
    """Reference: K (K + lam I)^{-1} y by an LU solve for each lam."""
    X, y = _data()
    K = rbf(0.5)(X)
    F = krr_path(K, y, LAMS)
    assert F.shape == (len(y), len(LAMS))
    for lam, f in zip(LAMS, F.T, strict=True):
        np.testing.assert_allclose(f, brute_fitted(K, y, lam), rtol=1e-9, atol=1e-11)


def test_path_scalar_lam_and_lam0_projection():
    """Reference: K pinv(K) y (projection onto range K) at lam = 0 for a rank-3 K."""
    rng = np.random.default_rng(1)
    A = rng.standard_normal((10, 3))
    K = A @ A.T
    y = rng.standard_normal(10)
    F = krr_path(K, y, 0.0)
    assert F.shape == (10, 1)
    np.testing.assert_allclose(F[:, 0], K @ np.linalg.pinv(K) @ y, atol=1e-10)
    F2 = krr_path(K, y, 0.5)
    np.testing.assert_allclose(F2[:, 0], brute_fitted(K, y, 0.5), rtol=1e-10, atol=1e-12)


def test_path_puts_the_penalty_last_like_the_ridge_paths():
    """One shape convention: with the linear kernel K = X X^T, KRR is ridge without an
    intercept, so krr_path equals kmlib.ridge.fitted_values_path (a thin SVD of X, another
    algorithm), entry by entry, in the shape (n, L); each column is also an LU solve."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((25, 4))
    y = X @ [1.0, -2.0, 0.5, 3.0] + rng.standard_normal(25)
    lams = np.array([0.1, 1.0, 10.0])
    F = krr_path(X @ X.T, y, lams)
    assert F.shape == (25, 3)
    np.testing.assert_allclose(F, fitted_values_path(X, y, lams), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(F[:, 2], brute_fitted(X @ X.T, y, 10.0), rtol=1e-10)


def test_path_does_not_modify_inputs():
    """The inputs are read-only: the factorisations work on private copies."""
    X, y = _data(n=15)
    K = rbf(0.5)(X)
    K0, y0 = K.copy(), y.copy()
    krr_path(K, y, LAMS)
    krr_cv_path(K, y, LAMS, 3)
    krr_loo(K, y, LAMS)
    assert np.array_equal(K, K0) and np.array_equal(y, y0)


# ---------------------------------------------------------------------------
# krr_cv_path
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("v", [2, 5, 7])
def test_cv_path_int_folds_equals_brute_force(v):
    """Reference: refit by LU on every fold of KFold(v, shuffle=True, random_state=0), every lam."""
    X, y = _data(n=43, seed=2)
    K = rbf(0.8)(X)
    pairs = list(KFold(v, shuffle=True, random_state=0).split(len(y)))
    cv = krr_cv_path(K, y, LAMS, v)
    np.testing.assert_allclose(cv, brute_cv(K, y, LAMS, pairs), rtol=1e-7)
    np.testing.assert_array_equal(cv, krr_cv_path(K, y, LAMS, pairs))


def test_cv_path_larger_blocks_equal_brute_force():
    """Reference: LU refits with training blocks of ~100 points (several Householder blocks)."""
    X, y = _data(n=150, p=3, seed=13)
    K = rbf(0.5)(X)
    pairs = list(KFold(3, shuffle=True, random_state=0).split(150))
    np.testing.assert_allclose(krr_cv_path(K, y, LAMS, 3), brute_cv(K, y, LAMS, pairs), rtol=1e-7)


def test_cv_path_explicit_uneven_folds_equals_brute_force():
    """Reference: LU refits on hand-made folds of unequal sizes (a generator of pairs)."""
    X, y = _data(n=20, seed=3)
    K = rbf(0.5)(X)
    idx = np.arange(20)
    tests = [idx[:3], idx[3:11], idx[11:]]
    pairs = [(np.setdiff1d(idx, te), te) for te in tests]
    cv = krr_cv_path(K, y, LAMS, ((tr, te) for tr, te in pairs))
    np.testing.assert_allclose(cv, brute_cv(K, y, LAMS, pairs), rtol=1e-7)


def test_cv_path_equals_sklearn_cross_val_score():
    """Reference: sklearn cross_val_score(KernelRidge(kernel='precomputed'), KFold pairs).

    sklearn reports the mean squared error of each fold; weighting by fold size
    gives the mean over all n points, the book's CV error.
    """
    X, y = _data(n=37, seed=4)
    K = rbf(0.3)(X)
    pairs = list(SkKFold(5, shuffle=True, random_state=1).split(X))
    sizes = np.array([len(te) for _, te in pairs])
    ref = []
    for lam in LAMS:
        s = cross_val_score(SkKernelRidge(alpha=lam, kernel="precomputed"), K, y, cv=pairs,
                            scoring="neg_mean_squared_error")
        ref.append(-np.sum(s * sizes) / len(y))
    np.testing.assert_allclose(krr_cv_path(K, y, LAMS, pairs), ref, rtol=1e-7)


def test_cv_path_lam0_matches_min_norm_refits():
    """Reference: pinv refits (the minimum-norm interpolant) on every fold at lam = 0."""
    rng = np.random.default_rng(5)
    A = rng.standard_normal((12, 4))
    K = A @ A.T
    y = rng.standard_normal(12)
    pairs = list(KFold(3, shuffle=True, random_state=0).split(12))
    ref = sum(np.sum((y[te] - K[np.ix_(te, tr)] @ np.linalg.pinv(K[np.ix_(tr, tr)]) @ y[tr]) ** 2)
              for tr, te in pairs) / 12
    np.testing.assert_allclose(krr_cv_path(K, y, [0.0], pairs)[0], ref, rtol=1e-8)


def test_cv_path_single_point_training_folds_closed_form():
    """Closed form: with n = 2 each fold trains on one point, alpha = y_j / (K_jj + lam)."""
    K = np.array([[2.0, 0.5], [0.5, 1.0]])
    y = np.array([1.0, -1.0])
    pairs = [(np.array([1]), np.array([0])), (np.array([0]), np.array([1]))]
    ref = [((y[0] - 0.5 * y[1] / (1.0 + lam)) ** 2 + (y[1] - 0.5 * y[0] / (2.0 + lam)) ** 2) / 2
           for lam in (0.5, 0.0)]
    np.testing.assert_allclose(krr_cv_path(K, y, [0.5, 0.0], pairs), ref, rtol=1e-12)


def test_cv_path_indefinite_blocks_fall_back_and_warn_once():
    """Reference: LU refits of the invertible, indefinite K_train + lam I on every fold."""
    rng = np.random.default_rng(12)
    Q, _ = np.linalg.qr(rng.standard_normal((12, 12)))
    # indefinite, but with a positive diagonal (so not rejected by check_gram_psd's O(n) test)
    K = Q @ np.diag(np.r_[np.linspace(1, 3, 6), -np.linspace(0.2, 0.4, 6)]) @ Q.T
    K = 0.5 * (K + K.T)
    assert np.diag(K).min() > 0
    y = rng.standard_normal(12)
    lams = [0.1, 5.0]
    pairs = list(KFold(3, shuffle=True, random_state=0).split(12))
    with pytest.warns(RuntimeWarning, match="not numerically positive definite") as rec:
        cv = krr_cv_path(K, y, lams, pairs)
    assert len(rec) == 1
    np.testing.assert_allclose(cv, brute_cv(K, y, lams, pairs), rtol=1e-8)


# ---------------------------------------------------------------------------
# krr_loo
# ---------------------------------------------------------------------------
def test_loo_equals_brute_force_refits():
    """Reference: n LU refits, each leaving one point out, for every lam."""
    X, y = _data(n=30, seed=6)
    K = rbf(0.7)(X)
    np.testing.assert_allclose(krr_loo(K, y, LAMS), brute_loo(K, y, LAMS), rtol=1e-8)


def test_loo_equals_sklearn_leave_one_out():
    """Reference: sklearn cross_val_score with LeaveOneOut (mean of the n squared errors)."""
    X, y = _data(n=25, seed=7)
    k = rbf(0.5)
    K = k(X)
    ref = [-np.mean(cross_val_score(SkKernelRidge(alpha=lam, kernel="rbf", gamma=0.5), X, y,
                                    cv=LeaveOneOut(), scoring="neg_mean_squared_error"))
           for lam in LAMS[::3]]
    np.testing.assert_allclose(krr_loo(K, y, LAMS[::3]), ref, rtol=1e-8)


def test_loo_equals_cv_path_with_n_folds():
    """Second algorithm: krr_cv_path with the n leave-one-out folds."""
    X, y = _data(n=18, seed=8)
    K = rbf(1.0)(X)
    n = len(y)
    pairs = [(np.delete(np.arange(n), i), np.array([i])) for i in range(n)]
    np.testing.assert_allclose(krr_loo(K, y, LAMS), krr_cv_path(K, y, LAMS, pairs), rtol=1e-8)


def test_loo_small_lam_is_accurate():
    """Reference: brute force at lam = 1e-6 relative to a Gram matrix of norm ~ n.

    The form alpha_i / [(K + lam I)^{-1}]_ii has no cancellation, unlike 1 - H_ii.
    """
    rng = np.random.default_rng(9)
    A = rng.standard_normal((20, 20))
    K = A @ A.T
    y = rng.standard_normal(20)
    np.testing.assert_allclose(krr_loo(K, y, [1e-6]), brute_loo(K, y, [1e-6]), rtol=1e-6)


# ---------------------------------------------------------------------------
# tune_krr
# ---------------------------------------------------------------------------
def test_tune_krr_picks_exhaustive_grid_minimiser():
    """Reference: exhaustive search, sklearn KernelRidge(kernel='rbf') refits on the same folds."""
    X, y = _data(n=30, seed=10)
    gammas = [0.1, 0.5, 2.0, 8.0]
    lams = np.logspace(-4, 1, 6)
    pairs = list(KFold(4, shuffle=True, random_state=0).split(len(y)))
    brute = np.empty((len(gammas), len(lams)))
    for i, g in enumerate(gammas):
        for j, lam in enumerate(lams):
            sse = 0.0
            for tr, te in pairs:
                m = SkKernelRidge(alpha=lam, kernel="rbf", gamma=g).fit(X[tr], y[tr])
                sse += np.sum((y[te] - m.predict(X[te])) ** 2)
            brute[i, j] = sse / len(y)
    model, table = tune_krr(X, y, rbf, gammas, lams, folds=4)
    assert isinstance(table, KRRTuningTable) and isinstance(model, KernelRidge)
    np.testing.assert_allclose(table.cv, brute, rtol=1e-7)
    i, j = np.unravel_index(np.argmin(brute), brute.shape)
    assert table.best_index == (i, j)
    assert table.best_param == gammas[i] and table.best_lam == lams[j]
    assert table.best_cv == pytest.approx(brute.min(), rel=1e-7)
    assert table.params == gammas
    np.testing.assert_array_equal(table.lams, lams)
    assert model.lam == lams[j]
    sk = SkKernelRidge(alpha=lams[j], kernel="rbf", gamma=gammas[i]).fit(X, y)
    Xt = np.linspace(-2, 2, 9)[:, None] * np.ones((1, 2))
    np.testing.assert_allclose(model.predict(Xt), sk.predict(Xt), rtol=1e-8, atol=1e-12)


def test_tune_krr_default_folds_equal_cv_path():
    """Second algorithm: each table row equals krr_cv_path on that kernel's Gram matrix."""
    X, y = _data(n=25, seed=11)
    model, table = tune_krr(X[:, 0], y, rbf, [0.5, 3.0], LAMS)
    for row, g in zip(table.cv, [0.5, 3.0], strict=False):
        np.testing.assert_allclose(row, krr_cv_path(rbf(g)(X[:, :1]), y, LAMS, 5), rtol=1e-12)


# ---------------------------------------------------------------------------
# hypothesis: laws that hold for every PSD K and lam > 0
# ---------------------------------------------------------------------------
@st.composite
def psd_problems(draw):
    n = draw(st.integers(3, 12))
    r = draw(st.integers(1, n))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, r))
    lams = np.array(draw(st.lists(st.floats(1e-2, 1e2), min_size=1, max_size=4)))
    return A @ A.T, rng.standard_normal(n), lams


@settings(max_examples=25, deadline=None)
@given(psd_problems())
def test_property_path_and_loo_equal_brute_force(problem):
    """Reference: brute-force LU solves and leave-one-out refits, for random K = A A^T."""
    K, y, lams = problem
    F = krr_path(K, y, lams)
    scale = 1.0 + np.max(np.abs(y))
    for lam, f in zip(lams, F.T, strict=True):
        np.testing.assert_allclose(f, brute_fitted(K, y, lam), rtol=1e-7, atol=1e-9 * scale)
    np.testing.assert_allclose(krr_loo(K, y, lams), brute_loo(K, y, lams), rtol=1e-7,
                               atol=1e-12 * scale**2)


@settings(max_examples=25, deadline=None)
@given(psd_problems())
def test_property_cv_path_equals_brute_force(problem):
    """Reference: brute-force LU refits on 3 folds, for random K = A A^T."""
    K, y, lams = problem
    pairs = list(KFold(3, shuffle=True, random_state=1).split(len(y)))
    np.testing.assert_allclose(krr_cv_path(K, y, lams, pairs), brute_cv(K, y, lams, pairs),
                               rtol=1e-7, atol=1e-12 * (1 + np.max(np.abs(y))) ** 2)


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------
@pytest.fixture
def Ky():
    X, y = _data(n=8)
    return rbf(1.0)(X), y


@pytest.mark.parametrize("func", [krr_path, krr_cv_path, krr_loo])
def test_bad_gram_and_lams(func, Ky):
    K, y = Ky
    args = (3,) if func is krr_cv_path else ()
    with pytest.raises(ValueError, match="K must be a square matrix"):
        func(K[:, :7], y, LAMS, *args)
    with pytest.raises(ValueError, match="K must be a symmetric Gram matrix"):
        func(K + np.triu(np.ones_like(K), 1), y, LAMS, *args)
    Kn = K.copy()
    Kn[0, 3] = Kn[3, 0] = np.nan
    with pytest.raises(ValueError, match="K contains 2 NaN"):
        func(Kn, y, LAMS, *args)
    with pytest.raises(ValueError, match="same number of samples; got 8 and 7"):
        func(K, y[:7], LAMS, *args)
    with pytest.raises(ValueError, match="each value of lams must be >= 0"):
        func(K, y, [0.1, -1.0], *args)
    with pytest.raises(ValueError, match="lams must be a non-empty 1-D grid"):
        func(K, y, [[0.1, 1.0]], *args)
    with pytest.raises(ValueError, match="lams must be a non-empty 1-D grid"):
        func(K, y, [], *args)
    with pytest.raises(ValueError, match="each value of lams must be finite; got nan"):
        func(K, y, [0.1, np.nan], *args)
    with pytest.raises(ValueError, match="lams must be a real number"):
        func(K, y, "0.1", *args)


def test_bad_folds(Ky):
    K, y = Ky
    with pytest.raises(ValueError, match="n_splits must be >= 2"):
        krr_cv_path(K, y, LAMS, 1)
    with pytest.raises(ValueError, match="n_splits must be <= the number of samples"):
        krr_cv_path(K, y, LAMS, 9)
    idx = np.arange(8)
    with pytest.raises(ValueError, match="test sets must partition"):
        krr_cv_path(K, y, LAMS, [(idx[4:], idx[:4]), (idx[:4], idx[5:])])
    with pytest.raises(ValueError, match="overlaps its own test set"):
        krr_cv_path(K, y, LAMS, [(idx, idx[:4]), (idx[:4], idx[4:])])
    with pytest.raises(ValueError, match="folds must be an int v or an iterable"):
        krr_cv_path(K, y, LAMS, "five")


def test_loo_at_lam0_is_the_interpolants_by_refits():
    """lam = 0 with an invertible K: the residual of the interpolant of the other n - 1
    points, computed by n refits (solve on n - 1 points, predict the left-out one)."""
    x = np.linspace(0.0, 1.0, 12)
    K = np.exp(-np.abs(x[:, None] - x[None, :]) / 0.3)     # Laplacian: well conditioned
    y = np.sin(6 * x) + 0.1 * np.cos(17 * x)
    assert np.linalg.cond(K) < 1e3
    for lam in (0.0, 0.05):
        e = []
        for i in range(12):
            keep = np.arange(12) != i
            a = np.linalg.solve(K[np.ix_(keep, keep)] + lam * np.eye(11), y[keep])
            e.append(y[i] - K[i, keep] @ a)
        brute = np.mean(np.square(e))
        assert krr_loo(K, y, [lam])[0] == pytest.approx(brute, rel=1e-10)


def test_loo_rejects_too_few_points():
    with pytest.raises(ValueError, match=r"K has 1 sample\(s\) .* minimum of 2 is required "
                                         r"\(leave-one-out\)"):
        krr_loo([[1.0]], [1.0], 1.0)


def test_loo_rejects_singular_shift():
    """A valid but singular Gram matrix (a repeated point) at lam = 1e-14: the message says
    that K + lam I is singular to rounding, not that K is not PSD (eigenvalues of K: >= 0)."""
    x = np.repeat(np.linspace(0.0, 1.0, 10), 5)   # each point five times: rank 10 of 50
    K = np.exp(-(x[:, None] - x[None, :]) ** 2)
    ev = np.linalg.eigvalsh(K)
    assert abs(ev[0]) < 1e-12 * ev[-1]
    with pytest.raises(ValueError, match="numerically singular for lam=1e-14.*Use a larger lam"):
        krr_loo(K, np.sin(3 * x), [1e-14, 1.0])


def test_indefinite_gram_rejected_by_one_rule():
    """-K is no Gram matrix (negative diagonal): every entry point says so the same way;
    where the eigenvalues are computed (krr_path, krr_loo), an indefinite K with a positive
    diagonal is rejected too.  Reference: the eigenvalues by numpy."""
    x = np.linspace(0.0, 1.0, 8)
    K = np.exp(-(x[:, None] - x[None, :]) ** 2)
    y = np.sin(3 * x)
    for call in (lambda: krr_path(-K, y, [1.0]), lambda: krr_loo(-K, y, [1.0]),
                 lambda: krr_cv_path(-K, y, [1.0], folds=2)):
        with pytest.raises(ValueError, match="not a positive semi-definite Gram matrix"):
            call()
    Kind = np.cos(3 * (x[:, None] + x[None, :])) + 1.0   # diagonal >= 0, indefinite
    assert np.linalg.eigvalsh(Kind).min() < -0.1 and np.diag(Kind).min() >= 0
    for call in (lambda: krr_path(Kind, y, [1.0]), lambda: krr_loo(Kind, y, [1.0])):
        with pytest.raises(ValueError, match="not positive semi-definite: its smallest eigen"):
            call()


def test_tune_krr_bad_input():
    X, y = _data(n=12)
    with pytest.raises(ValueError, match="kernel_factory must be a callable"):
        tune_krr(X, y, "rbf", [1.0], LAMS)
    with pytest.raises(ValueError, match="params must be a non-empty sequence"):
        tune_krr(X, y, rbf, [], LAMS)
    with pytest.raises(ValueError, match="params must be a non-empty sequence"):
        tune_krr(X, y, rbf, 1.0, LAMS)
    with pytest.raises(ValueError, match="params must be a non-empty sequence"):
        tune_krr(X, y, rbf, "abc", LAMS)
    with pytest.raises(ValueError, match=r"kernel_factory\(1.0\) must be a callable"):
        tune_krr(X, y, lambda p: p, [1.0], LAMS)
    msg = r"kernel_factory\(1.0\)\(X\) must return a Gram matrix of shape \(12, 12\)"
    with pytest.raises(ValueError, match=msg):
        tune_krr(X, y, lambda p: (lambda A, B=None: np.ones((3, 3))), [1.0], LAMS)
    with pytest.raises(ValueError, match="same number of samples; got 12 and 11"):
        tune_krr(X, y[:-1], rbf, [1.0], LAMS)
    with pytest.raises(ValueError, match="each value of lams must be >= 0"):
        tune_krr(X, y, rbf, [1.0], [-1.0])
    with pytest.raises(ValueError, match="n_splits must be <= the number of samples"):
        tune_krr(X, y, rbf, [1.0], LAMS, folds=13)
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="X contains 1 NaN"):
        tune_krr(Xn, y, rbf, [1.0], LAMS)


def test_krr_path_warns_like_krr_cv_path_when_the_shift_is_singular():
    """One policy for every path function: a penalty lam > 0 for which K + lam I is singular
    to rounding is solved by the pseudo-inverse with a RuntimeWarning (reference: at so small
    a lam the fitted values are the projection of y onto the range of K, by numpy's lstsq)."""
    x = np.repeat(np.linspace(0.0, 1.0, 10), 5)   # rank 10 of 50
    K = np.exp(-(x[:, None] - x[None, :]) ** 2)
    y = np.sin(3 * x)
    with pytest.warns(RuntimeWarning, match=r"krr_path: K \+ lam\*I is numerically singular"):
        F = krr_path(K, y, [1e-14])
    projection = K @ np.linalg.lstsq(K, y, rcond=None)[0]
    np.testing.assert_allclose(F[:, 0], projection, atol=1e-5)
