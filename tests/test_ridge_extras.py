"""kmlib.ridge_extras against independent references."""
import numpy as np
import pytest
from scipy.optimize import brentq

from kmlib import datasets, ridge, ridge_extras


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_crossing_matches_the_determinant_lemma_root(seed):
    """Reference: Delta > 0 iff lam b^T (sigma^2 (2I + lam G^-1))^-1 b < 1 (proof of the theorem
    plus the matrix determinant lemma); its root is found by brentq, a second algorithm."""
    X, _, b = datasets.linear_model(40, 4, seed=seed)
    sigma2 = 0.7
    Ginv = np.linalg.inv(X.T @ X)

    def h(lam):
        return lam * b @ np.linalg.solve(sigma2 * (2 * np.eye(4) + lam * Ginv), b) - 1.0

    thr = ridge.ridge_beats_ols_threshold(b, sigma2)
    hi = thr
    while h(hi) < 0:
        hi *= 2
    ref = brentq(h, thr, hi, xtol=1e-14 * thr)
    got = ridge_extras.mse_order_crossing(X, b, sigma2)
    assert got == pytest.approx(ref, rel=1e-8)
    assert got >= thr                                   # the theorem's threshold is sufficient


def test_orthogonal_design_crossing_is_closed_form():
    """Reference: with X^T X = g I the middle factor gives lam* = 2 sigma^2 / (|b|^2 - sigma^2 / g)."""
    Q, _ = np.linalg.qr(np.random.default_rng(0).standard_normal((30, 3)))
    g = 4.0
    X = 2.0 * Q                                          # X^T X = 4 I
    b, sigma2 = np.array([1.0, 2.0, -1.0]), 1.0
    expected = 2 * sigma2 / (b @ b - sigma2 / g)
    assert ridge_extras.mse_order_crossing(X, b, sigma2) == pytest.approx(expected, rel=1e-8)


def test_zero_beta_is_refused_with_a_clear_message():
    X, _, _ = datasets.linear_model(20, 2, seed=0)
    with pytest.raises(ValueError, match="beta0"):
        ridge_extras.mse_order_crossing(X, np.zeros(2), 1.0)


def test_smoothers_match_ridge_regression_predictions():
    """Reference: RidgeRegression (intercept, standardisation) fitted to each unit response e_i
    predicts column i of the smoother, since predictions are linear in Y."""
    rng = np.random.default_rng(5)
    X, X_new = rng.standard_normal((15, 3)), rng.standard_normal((7, 3))
    lams = [0.0, 0.3, 30.0]
    S = ridge_extras.ridge_smoothers(X, lams, X_new)
    for l, lam in enumerate(lams):
        cols = [ridge.RidgeRegression(lam=lam).fit(X, e).predict(X_new) for e in np.eye(15)]
        np.testing.assert_allclose(S[l], np.column_stack(cols), atol=1e-10)


def test_polynomial_design_is_the_vandermonde_without_ones():
    """Reference: numpy.vander (increasing powers) with its column of ones removed."""
    x = np.array([0.1, 0.5, 2.0])
    np.testing.assert_allclose(ridge_extras.polynomial_design(x, 4),
                               np.vander(x, 5, increasing=True)[:, 1:])


def test_bias_variance_against_explicit_sums_and_simulation():
    """References: the definitions written as explicit loops, and a Monte-Carlo estimate within
    four standard errors."""
    rng = np.random.default_rng(6)
    x, x_new = np.sort(rng.uniform(size=12)), np.linspace(0, 1, 9)
    S = ridge_extras.ridge_smoothers(ridge_extras.polynomial_design(x, 3), [0.01, 1.0],
                                     ridge_extras.polynomial_design(x_new, 3))
    f_tr, f_new, s2 = np.sin(3 * x), np.sin(3 * x_new), 0.5
    b, v = ridge_extras.bias_variance(S, f_tr, f_new, s2)
    for l in range(2):
        assert b[l] == pytest.approx(np.mean([(S[l, t] @ f_tr - f_new[t]) ** 2 for t in range(9)]))
        assert v[l] == pytest.approx(np.mean([s2 * S[l, t] @ S[l, t] for t in range(9)]))
    R = 4000
    bm, vm = ridge_extras.simulate_bias_variance(S, f_tr, f_new, s2, R, seed=7)
    assert np.all(np.abs(vm / v - 1) < 4 * np.sqrt(2 / (R - 1)))
    assert np.all(np.abs(bm - b) < 4 * (2 * np.sqrt(b * v / R) + np.sqrt(2) * v / R))


def test_negative_penalty_is_refused():
    with pytest.raises(ValueError, match="lams"):
        ridge_extras.ridge_smoothers(np.eye(3), [-1.0])
