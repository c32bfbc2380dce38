"""Tests for kmlib.ridge (chapter 1).

Every test names the independent reference it trusts: a closed form evaluated
with ``np.linalg.solve``, ``np.linalg.lstsq``, scikit-learn, a Monte-Carlo
estimate with its standard error, a finite-difference gradient, or a theorem's
inequality.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.linear_model import Ridge

from kmlib import ridge as R
from kmlib._validation import NotFittedError

pytestmark = pytest.mark.filterwarnings("error")  # no warnings in normal use


def _data(n, p, seed=0, scales=None):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    if scales is not None:
        X = X * scales + 3.0
    y = rng.standard_normal(n) + X[:, 0]
    return X, y


def _closed_form(X, y, lam):
    """(X^T X + lam I)^{-1} X^T y by a plain dense solve (the textbook formula)."""
    return np.linalg.solve(X.T @ X + lam * np.eye(X.shape[1]), X.T @ y)


# --------------------------------------------------------------------------- #
# solvers
# --------------------------------------------------------------------------- #
@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 25), p=st.integers(1, 25), lam=st.floats(0.05, 20.0),
       seed=st.integers(0, 10_000))
def test_primal_dual_svd_agree_with_closed_form(n, p, lam, seed):
    """Second algorithms: the three routes and a dense solve agree, also for p > n."""
    X, y = _data(n, p, seed)
    ref = _closed_form(X, y, lam)
    scale = 1 + np.abs(ref).max()
    for method in ("primal", "dual", "svd"):
        np.testing.assert_allclose(R.ridge(X, y, lam, method=method), ref,
                                   atol=1e-9 * scale, rtol=1e-8)


def test_ridge_lam_zero_svd_is_minimum_norm_lstsq():
    """Reference: np.linalg.lstsq returns the minimum-norm solution (p > n and p < n)."""
    for n, p in [(8, 20), (30, 4)]:
        X, y = _data(n, p, 3)
        np.testing.assert_allclose(R.ridge(X, y, 0.0, method="svd"),
                                   np.linalg.lstsq(X, y, rcond=None)[0], atol=1e-10)


def test_ridge_lam_zero_primal_full_rank_equals_ols_and_rejects_rank_deficient():
    """Reference: lstsq for full rank; lam = 0 with p > n cannot be a primal solve."""
    X, y = _data(40, 5, 4)
    np.testing.assert_allclose(R.ridge(X, y, 0.0, method="primal"),
                               np.linalg.lstsq(X, y, rcond=None)[0], atol=1e-10)
    Xw, yw = _data(5, 8, 4)
    with pytest.raises(ValueError, match="full column rank"):
        R.ridge(Xw, yw, 0.0, method="primal")
    with pytest.raises(ValueError, match="lam must be > 0"):
        R.ridge(Xw, yw, 0.0, method="dual")


def test_ols_equals_lstsq():
    """Reference: np.linalg.lstsq, including badly scaled columns."""
    X, y = _data(60, 6, 5, scales=np.array([1e-3, 1, 10, 1e3, 2, 0.5]))
    np.testing.assert_allclose(R.ols(X, y), np.linalg.lstsq(X, y, rcond=None)[0],
                               rtol=1e-9, atol=1e-12)


def test_ols_rejects_rank_deficient_designs_and_points_to_ridge():
    """Theorem: OLS is unique only for full column rank (p > n, duplicated column)."""
    X, y = _data(5, 8, 6)
    with pytest.raises(ValueError, match="ridge"):
        R.ols(X, y)
    X2, y2 = _data(20, 3, 6)
    X2 = np.column_stack([X2, X2[:, 0] + 2 * X2[:, 1]])
    with pytest.raises(ValueError, match="full column rank"):
        R.ols(X2, y2)


def test_ridge_path_equals_per_lambda_solves():
    """Reference: one dense solve per lambda; fitted values are X @ beta."""
    lams = np.logspace(-3, 3, 30)
    for n, p in [(50, 8), (10, 30)]:
        X, y = _data(n, p, 7)
        path = R.ridge_path(X, y, lams)
        assert path.shape == (p, lams.size)                 # the penalty is the last axis
        ref = np.stack([_closed_form(X, y, lam) for lam in lams], axis=1)
        np.testing.assert_allclose(path, ref, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(R.fitted_values_path(X, y, lams), X @ ref,
                                   rtol=1e-8, atol=1e-10)


def test_ridge_augmented_gives_mean_intercept_and_centred_closed_form():
    """Closed form: after centring X, mu_hat = mean(y) and beta = ridge on centred data (p > n)."""
    X, y = _data(30, 50, 8)
    Xc = X - X.mean(axis=0)
    mu, beta = R.ridge_augmented(Xc, y, 2.5)
    assert abs(mu - y.mean()) < 1e-10
    np.testing.assert_allclose(beta, _closed_form(Xc, y - y.mean(), 2.5), atol=1e-10)
    mu0, beta0 = R.ridge_augmented(X, y, 2.5, fit_intercept=False)
    assert mu0 == 0.0
    np.testing.assert_allclose(beta0, _closed_form(X, y, 2.5), atol=1e-10)


# --------------------------------------------------------------------------- #
# the estimator vs scikit-learn
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("lam", [0.01, 1.0, 50.0])
def test_ridge_regression_standardized_matches_sklearn(lam):
    """Reference: sklearn Ridge(alpha=lam) on the same 1/n-standardised columns."""
    X, y = _data(40, 6, 9, scales=np.array([1e-2, 1, 10, 100, 0.3, 5]))
    model = R.RidgeRegression(lam=lam).fit(X, y)
    mean, sd = X.mean(axis=0), X.std(axis=0)  # np.std uses the 1/n convention
    sk = Ridge(alpha=lam, solver="svd").fit((X - mean) / sd, y)
    coef = sk.coef_ / sd
    np.testing.assert_allclose(model.coef_, coef, rtol=1e-8)
    np.testing.assert_allclose(model.intercept_, sk.intercept_ - mean @ coef, rtol=1e-8)
    np.testing.assert_allclose(model.predict(X), sk.predict((X - mean) / sd), rtol=1e-8)
    np.testing.assert_allclose(model.x_mean_, mean)
    np.testing.assert_allclose(model.x_scale_, sd)


def test_ridge_regression_unstandardized_matches_sklearn_with_and_without_intercept():
    """Reference: sklearn Ridge(alpha, fit_intercept=True/False) on the raw columns (p > n too)."""
    for n, p in [(40, 5), (12, 30)]:
        X, y = _data(n, p, 10, scales=np.linspace(0.5, 4, p))
        for fit_intercept in (True, False):
            model = R.RidgeRegression(lam=3.0, fit_intercept=fit_intercept, standardize=False)
            model.fit(X, y)
            sk = Ridge(alpha=3.0, fit_intercept=fit_intercept, solver="svd").fit(X, y)
            np.testing.assert_allclose(model.coef_, sk.coef_, rtol=1e-8, atol=1e-12)
            np.testing.assert_allclose(model.intercept_, sk.intercept_, rtol=1e-8, atol=1e-12)


def test_ridge_regression_scaled_without_intercept_matches_sklearn():
    """Reference: sklearn Ridge(fit_intercept=False) on columns divided by their RMS."""
    X, y = _data(30, 4, 29, scales=np.array([0.1, 1.0, 10.0, 3.0]))
    model = R.RidgeRegression(lam=2.0, fit_intercept=False, standardize=True).fit(X, y)
    rms = np.sqrt(np.mean(X**2, axis=0))
    sk = Ridge(alpha=2.0, fit_intercept=False, solver="svd").fit(X / rms, y)
    np.testing.assert_allclose(model.coef_, sk.coef_ / rms, rtol=1e-8)
    assert model.intercept_ == 0.0 and np.all(model.x_mean_ == 0)


def test_ridge_regression_is_shift_invariant_celsius_kelvin():
    """Theorem (unpenalised intercept): shifting a column's origin changes only the intercept."""
    X, y = _data(30, 3, 11)
    a = R.RidgeRegression(lam=2.0).fit(X, y)
    b = R.RidgeRegression(lam=2.0).fit(X + np.array([273.15, 0, -5]), y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-9)
    np.testing.assert_allclose(a.predict(X), b.predict(X + np.array([273.15, 0, -5])),
                               rtol=1e-9)


def test_ridge_regression_estimator_contract():
    """scikit-learn conventions: params unchanged, fit returns self, NotFittedError."""
    X, y = _data(20, 3, 12)
    model = R.RidgeRegression(lam=0.5, fit_intercept=True, standardize=False)
    with pytest.raises(NotFittedError, match="not fitted"):
        model.predict(X)
    assert model.fit(X, y) is model
    assert (model.lam, model.fit_intercept, model.standardize) == (0.5, True, False)
    with pytest.raises(ValueError, match="X has 2 features, but RidgeRegression is expecting 3"):
        model.predict(X[:, :2])


def test_ridge_regression_constant_column_raises():
    """A constant column has zero spread and cannot be standardised."""
    X, y = _data(20, 3, 13)
    X[:, 1] = 0.1
    with pytest.raises(ValueError, match=r"constant column\(s\) \[1\]"):
        R.RidgeRegression().fit(X, y)
    R.RidgeRegression(standardize=False).fit(X, y)  # allowed without scaling


# --------------------------------------------------------------------------- #
# the SVD view
# --------------------------------------------------------------------------- #
def test_effective_df_equals_trace_of_hat_matrix():
    """Reference: tr(X (X^T X + lam I)^{-1} X^T) computed by a dense solve."""
    for n, p in [(30, 6), (8, 20)]:
        X, _ = _data(n, p, 14)
        lams = np.array([0.1, 1.0, 10.0])
        df = R.effective_df(X, lams)
        for lam, value in zip(lams, df, strict=False):
            H = X @ np.linalg.solve(X.T @ X + lam * np.eye(p), X.T)
            assert abs(value - np.trace(H)) < 1e-9
            assert abs(R.effective_df(X, float(lam)) - value) < 1e-12
        assert abs(R.effective_df(X, 0.0) - min(n, p)) < 1e-12  # rank at lam = 0
        assert np.all(np.diff(df) < 0)


def test_shrinkage_factors_closed_form():
    """Closed form d^2/(d^2+lam); at lam = 0 the projection (1 on d > 0, 0 on d = 0)."""
    d = np.array([3.0, 1.0, 0.5, 0.0])
    np.testing.assert_allclose(R.shrinkage_factors(d, 1.0), [0.9, 0.5, 0.2, 0.0])
    np.testing.assert_allclose(R.shrinkage_factors(d, 0.0), [1, 1, 1, 0])
    S = R.shrinkage_factors(d, [1.0, 4.0])
    assert S.shape == (4, 2)                                # the penalty is the last axis
    np.testing.assert_allclose(S[:, 1], d**2 / (d**2 + 4.0))
    with pytest.raises(ValueError, match="d must contain singular values >= 0"):
        R.shrinkage_factors([-1.0, 2.0], 1.0)


def test_fitted_values_are_shrunk_projections():
    """Closed form: X beta_lam = sum_j d_j^2/(d_j^2+lam) U_j U_j^T y (rows of a dense solve)."""
    X, y = _data(100, 10, 15, scales=np.logspace(-2, 2, 10))
    U, d, _ = np.linalg.svd(X, full_matrices=False)
    fit = U @ (R.shrinkage_factors(d, 3.0) * (U.T @ y))
    np.testing.assert_allclose(fit, X @ _closed_form(X, y, 3.0), rtol=1e-9, atol=1e-9)


def test_principal_components_match_covariance_eigendecomposition():
    """Reference: eigh of the 1/n sample covariance; scores are Xc V."""
    X, _ = _data(50, 4, 16, scales=np.array([3.0, 1.0, 0.5, 0.1]))
    scores, V, var = R.principal_components(X)
    Xc = X - X.mean(axis=0)
    evals = np.linalg.eigvalsh(Xc.T @ Xc / 50)[::-1]
    np.testing.assert_allclose(var, evals, rtol=1e-10)
    np.testing.assert_allclose(scores, Xc @ V, atol=1e-10)
    np.testing.assert_allclose(scores.var(axis=0), var, rtol=1e-10)


def test_standardize_gives_zero_mean_unit_variance_and_rejects_constants():
    """Definition: columns with mean 0 and l2-norm sqrt(n) (np.std's 1/n convention)."""
    X, _ = _data(25, 4, 26, scales=np.array([1e-3, 1.0, 50.0, 7.0]))
    Z, mean, scale = R.standardize(X)
    np.testing.assert_allclose(Z.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(Z, axis=0), np.sqrt(25), rtol=1e-12)
    np.testing.assert_allclose(mean, X.mean(axis=0))
    np.testing.assert_allclose(scale, X.std(axis=0), rtol=1e-12)
    Z2, mean2, scale2 = R.standardize(X, center=False)
    assert np.all(mean2 == 0)
    np.testing.assert_allclose(scale2, np.sqrt(np.mean(X**2, axis=0)), rtol=1e-12)
    with pytest.raises(ValueError, match="constant column"):
        R.standardize(np.column_stack([X, np.full(25, 2.0)]))


# --------------------------------------------------------------------------- #
# exact moments and the "ridge beats OLS" theorem
# --------------------------------------------------------------------------- #


# --------------------------------------------------------------------------- #
# Gaussian likelihood
# --------------------------------------------------------------------------- #
def _loglik(X, y, beta, sigma2):
    r = y - X @ beta
    return -0.5 * len(y) * np.log(sigma2) - r @ r / (2 * sigma2)


# --------------------------------------------------------------------------- #
# bad input
# --------------------------------------------------------------------------- #
_X, _y = _data(10, 3, 25)
_b = np.ones(3)

BAD_CALLS = [
    ("NaN", lambda: R.ridge(np.where(_X > 1, np.nan, _X), _y, 1.0), "X contains"),
    ("inf y", lambda: R.ridge(_X, np.where(_y > 0, np.inf, _y), 1.0), "y contains"),
    ("lengths", lambda: R.ridge(_X, _y[:-1], 1.0), "same number of samples"),
    ("lam<0", lambda: R.ridge(_X, _y, -1.0), "lam must be >= 0"),
    ("method", lambda: R.ridge(_X, _y, 1.0, method="qr"), "method must be one of"),
    ("empty X", lambda: R.ridge(np.empty((0, 3)), np.empty(0), 1.0), "X is empty"),
    ("ols NaN", lambda: R.ols(np.where(_X > 1, np.nan, _X), _y), "X contains"),
    ("ols lengths", lambda: R.ols(_X, _y[:4]), "same number of samples"),
    ("path lams", lambda: R.ridge_path(_X, _y, [1.0, -2.0]), "each value of lams must be >= 0"),
    ("path empty", lambda: R.ridge_path(_X, _y, []), "lams must be a non-empty"),
    ("fitted lams", lambda: R.fitted_values_path(_X, _y, [np.nan]), "lams must be finite"),
    ("augmented lam", lambda: R.ridge_augmented(_X, _y, -0.1), "lam must be >= 0"),
    ("shrink lam", lambda: R.shrinkage_factors([1.0], -1.0), "lam must be >= 0"),
    ("shrink d", lambda: R.shrinkage_factors([], 1.0), "d is empty"),
    ("df lam", lambda: R.effective_df(_X, -2.0), "lam must be >= 0"),
    ("df X", lambda: R.effective_df(np.full((3, 2), np.inf), 1.0), "X contains"),
    ("pca X", lambda: R.principal_components(np.empty((0, 2))), "X is empty"),
    ("std X", lambda: R.standardize([[np.nan, 1.0], [0.0, 2.0]]), "X contains"),
    ("fit lam", lambda: R.RidgeRegression(lam=-1).fit(_X, _y), "lam must be >= 0"),
    ("fit lengths", lambda: R.RidgeRegression().fit(_X, _y[:3]), "same number of samples"),
]


@pytest.mark.parametrize("call,match", [(c, m) for _, c, m in BAD_CALLS],
                         ids=[name for name, _, _ in BAD_CALLS])
def test_bad_input_raises_value_error_naming_the_argument(call, match):
    """Validation: each bad argument is named in a ValueError."""
    with pytest.raises(ValueError, match=match):
        call()


# ------------------------------------------------------------------ huge designs

@pytest.mark.parametrize("scale", [1e60, 1e154, 1e200, 1e300])
def test_huge_designs_give_the_scaled_solution_not_zeros(scale):
    """Reference: least squares on the unscaled design (numpy's lstsq, and scikit-learn's
    LinearRegression with an intercept and weights).

    For X = s X0 the ridge solution with penalty lam is the one of X0 with penalty
    lam / s^2 divided by s; at s >= 1e154 and lam = 1 the penalty is below rounding, so the
    answer is the least-squares one of X0 divided by s, never zeros.
    """
    from numpy.testing import assert_allclose
    from sklearn.linear_model import LinearRegression

    ridge, ridge_path, RidgeRegression = R.ridge, R.ridge_path, R.RidgeRegression
    rng = np.random.default_rng(0)
    X0 = rng.normal(size=(30, 4))
    y = X0 @ [1.0, -2.0, 3.0, 0.5] + 0.1 * rng.normal(size=30)
    w = rng.uniform(0.5, 2.0, size=30)
    X = scale * X0
    ols0 = np.linalg.lstsq(X0, y, rcond=None)[0]
    assert_allclose(ridge(X, y, 1.0) * scale, ols0, rtol=1e-10)
    assert_allclose(ridge_path(X, y, [1.0, 2.0]).T * scale, [ols0, ols0], rtol=1e-10)
    for method in ("primal", "dual"):
        try:
            beta = ridge(X, y, 1.0, method=method)
        except ValueError as err:  # a clear error is allowed, a silent wrong answer is not
            assert "negligible" in str(err)
        else:
            assert_allclose(beta * scale, ols0, rtol=1e-8)
    for sw in (None, w):
        lin = LinearRegression().fit(X0, y, sample_weight=sw)
        fit = RidgeRegression(lam=1.0, standardize=False).fit(X, y, sample_weight=sw)
        assert_allclose(fit.coef_ * scale, lin.coef_, rtol=1e-8)
        assert_allclose(fit.intercept_, lin.intercept_, rtol=1e-8)
        # standardised ridge does not see the scale of a column: scikit-learn's Ridge on
        # the (weighted) standardised unscaled design is the reference
        u = np.full(30, 1 / 30) if sw is None else sw / sw.sum()
        Z = X0 - u @ X0
        sd = np.sqrt(u @ Z**2)
        ref = Ridge(alpha=1.0).fit(X0 / sd, y, sample_weight=None if sw is None else sw)
        std = RidgeRegression(lam=1.0, standardize=True).fit(X, y, sample_weight=sw)
        assert_allclose(std.coef_ * scale, ref.coef_ / sd, rtol=1e-8)
        assert_allclose(std.intercept_, ref.intercept_, rtol=1e-8)
