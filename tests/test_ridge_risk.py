"""kmlib.book.ridge_risk and kmlib.book.cv_studies against independent references."""
import numpy as np
import pytest
from scipy.optimize import brentq

from kmlib import datasets, ridge
from kmlib.book import cv_studies, ridge_risk


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_crossing_matches_the_determinant_lemma_root(seed):
    """Reference: Delta > 0 iff lam b^T (sigma^2 (2I + lam G^-1))^-1 b < 1 (proof of the theorem
    plus the matrix determinant lemma); its root is found by brentq, a second algorithm."""
    X, _, b = datasets.linear_model(40, 4, random_state=seed)
    sigma2 = 0.7
    Ginv = np.linalg.inv(X.T @ X)

    def h(lam):
        return lam * b @ np.linalg.solve(sigma2 * (2 * np.eye(4) + lam * Ginv), b) - 1.0

    thr = ridge_risk.ridge_beats_ols_threshold(b, sigma2)
    hi = thr
    while h(hi) < 0:
        hi *= 2
    ref = brentq(h, thr, hi, xtol=1e-14 * thr)
    got = ridge_risk.mse_order_crossing(X, b, sigma2)
    assert got == pytest.approx(ref, rel=1e-8)
    assert got >= thr                                   # the theorem's threshold is sufficient


def test_orthogonal_design_crossing_is_closed_form():
    """Reference: with X^T X = g I the middle factor gives
    lam* = 2 sigma^2 / (|b|^2 - sigma^2 / g)."""
    Q, _ = np.linalg.qr(np.random.default_rng(0).standard_normal((30, 3)))
    g = 4.0
    X = 2.0 * Q                                          # X^T X = 4 I
    b, sigma2 = np.array([1.0, 2.0, -1.0]), 1.0
    expected = 2 * sigma2 / (b @ b - sigma2 / g)
    assert ridge_risk.mse_order_crossing(X, b, sigma2) == pytest.approx(expected, rel=1e-8)


def test_zero_beta_is_refused_with_a_clear_message():
    X, _, _ = datasets.linear_model(20, 2, random_state=0)
    with pytest.raises(ValueError, match="beta0"):
        ridge_risk.mse_order_crossing(X, np.zeros(2), 1.0)


def test_smoothers_match_ridge_regression_predictions():
    """Reference: RidgeRegression (intercept, standardisation) fitted to each unit response e_i
    predicts column i of the smoother, since predictions are linear in Y."""
    rng = np.random.default_rng(5)
    X, X_new = rng.standard_normal((15, 3)), rng.standard_normal((7, 3))
    lams = [0.0, 0.3, 30.0]
    S = ridge_risk.ridge_smoothers(X, lams, X_new)
    for ell, lam in enumerate(lams):
        cols = [ridge.RidgeRegression(lam=lam).fit(X, e).predict(X_new) for e in np.eye(15)]
        np.testing.assert_allclose(S[ell], np.column_stack(cols), atol=1e-10)


def test_polynomial_design_is_the_vandermonde_without_ones():
    """Reference: numpy.vander (increasing powers) with its column of ones removed."""
    x = np.array([0.1, 0.5, 2.0])
    np.testing.assert_allclose(ridge_risk.polynomial_design(x, 4),
                               np.vander(x, 5, increasing=True)[:, 1:])


def test_bias_variance_against_explicit_sums_and_simulation():
    """References: the definitions written as explicit loops, and a Monte-Carlo estimate within
    four standard errors."""
    rng = np.random.default_rng(6)
    x, x_new = np.sort(rng.uniform(size=12)), np.linspace(0, 1, 9)
    S = ridge_risk.ridge_smoothers(ridge_risk.polynomial_design(x, 3), [0.01, 1.0],
                                     ridge_risk.polynomial_design(x_new, 3))
    f_tr, f_new, s2 = np.sin(3 * x), np.sin(3 * x_new), 0.5
    b, v = ridge_risk.bias_variance(S, f_tr, f_new, s2)
    for ell in range(2):
        assert b[ell] == pytest.approx(
            np.mean([(S[ell, t] @ f_tr - f_new[t]) ** 2 for t in range(9)]))
        assert v[ell] == pytest.approx(np.mean([s2 * S[ell, t] @ S[ell, t] for t in range(9)]))
    R = 4000
    bm, vm = ridge_risk.simulate_bias_variance(S, f_tr, f_new, s2, R, seed=7)
    assert np.all(np.abs(vm / v - 1) < 4 * np.sqrt(2 / (R - 1)))
    assert np.all(np.abs(bm - b) < 4 * (2 * np.sqrt(b * v / R) + np.sqrt(2) * v / R))


def test_negative_penalty_is_refused():
    with pytest.raises(ValueError, match="lams"):
        ridge_risk.ridge_smoothers(np.eye(3), [-1.0])


def test_screened_cv_inside_and_outside_against_explicit_loops():
    """Reference: the two pipelines written out with numpy correlations and RidgeRegression."""
    from kmlib import model_selection as ms
    rng = np.random.default_rng(8)
    X, y = rng.standard_normal((30, 60)), rng.standard_normal(30)

    def corr_top(rows, k):
        c = [abs(np.corrcoef(X[rows, j], y[rows])[0, 1]) for j in range(60)]
        return np.argsort(c)[::-1][:k]

    for inside in (True, False):
        sq = []
        for tr, te in ms.KFold(5, random_state=0).split(30):
            cols = corr_top(tr, 4) if inside else corr_top(np.arange(30), 4)
            fit = ridge.RidgeRegression(lam=0.5).fit(X[np.ix_(tr, cols)], y[tr])
            sq.extend((y[te] - fit.predict(X[np.ix_(te, cols)])) ** 2)
        got = cv_studies.screened_ridge_cv(X, y, 4, 0.5, 5, screen_inside=inside)
        assert got == pytest.approx(np.mean(sq), rel=1e-10)


def test_screening_outside_the_folds_is_optimistic_on_pure_noise():
    """Reference: y independent of X with variance 1, so every predictor has error >= 1; the
    wrong pipeline reports less on average over 10 data sets, the right one does not."""
    wrong, right = [], []
    for s in range(10):
        rng = np.random.default_rng(300 + s)
        X, y = rng.standard_normal((40, 500)), rng.standard_normal(40)
        wrong.append(cv_studies.screened_ridge_cv(X, y, 10, 1.0, 5, screen_inside=False))
        right.append(cv_studies.screened_ridge_cv(X, y, 10, 1.0, 5, screen_inside=True))
    assert np.mean(wrong) < 0.8 < 1.0 < np.mean(right)


def test_nested_cv_matches_explicit_double_loop():
    """Reference: inner CV by brute force (RidgeRegression per fold and lambda), then refit."""
    from kmlib import model_selection as ms
    X, y, _ = datasets.linear_model(45, 3, random_state=9)
    lams = np.logspace(-2, 3, 8)
    sq, chosen = np.empty(45), []
    for tr, te in ms.KFold(3, random_state=0).split(45):
        cv = [np.mean(np.concatenate([
                  (y[tr][b] - ridge.RidgeRegression(lam=lm).fit(X[tr][a], y[tr][a])
                   .predict(X[tr][b])) ** 2
                  for a, b in ms.resolve_folds(4, len(tr))]))
              for lm in lams]
        lam = lams[int(np.argmin(cv))]
        chosen.append(lam)
        sq[te] = (y[te] - ridge.RidgeRegression(lam=lam).fit(X[tr], y[tr]).predict(X[te])) ** 2
    err, got = cv_studies.nested_cv(X, y, lams, outer=3, inner=4)
    assert err == pytest.approx(sq.mean(), rel=1e-10)
    np.testing.assert_allclose(got, chosen)


def test_n_keep_above_p_is_refused():
    with pytest.raises(ValueError, match="n_keep"):
        cv_studies.screened_ridge_cv(np.ones((5, 2)), np.arange(5.0), 3, 1.0)


def test_crossing_with_xtol_below_float_resolution_terminates():
    """Reference: the default tolerance; the bisection stops at adjacent floats."""
    X, _, b = datasets.linear_model(20, 3, random_state=1)
    got = ridge_risk.mse_order_crossing(X, b, 0.5, xtol=1e-300)
    assert got == pytest.approx(ridge_risk.mse_order_crossing(X, b, 0.5), rel=1e-10)
    with pytest.raises(ValueError, match="xtol"):
        ridge_risk.mse_order_crossing(X, b, 0.5, xtol=0.0)


def test_screening_never_keeps_a_constant_column():
    """Reference: a constant column has no correlation with y (its NaN score used to rank first)."""
    X, y, _ = datasets.linear_model(30, 3, random_state=2)
    Xc = np.column_stack([np.zeros(30), X])
    assert cv_studies.screened_ridge_cv(Xc, y, 3, 1.0, 3) == pytest.approx(
        cv_studies.screened_ridge_cv(X, y, 3, 1.0, 3), rel=1e-12)


def test_smoother_inputs_are_checked():
    X = np.random.default_rng(0).standard_normal((8, 2))
    S = ridge_risk.ridge_smoothers(X, [0.1, 1.0])
    with pytest.raises(ValueError, match="f_new"):
        ridge_risk.bias_variance(S, np.zeros(8), np.zeros(7), 1.0)
    with pytest.raises(ValueError, match="f_train"):
        ridge_risk.simulate_bias_variance(S, np.full(8, np.nan), np.zeros(8), 1.0, 3)
    with pytest.raises(ValueError, match="lams"):
        ridge_risk.ridge_smoothers(X, [np.nan])
    with pytest.raises(ValueError, match="x contains NaN"):
        ridge_risk.polynomial_design([0.0, np.nan], 2)
