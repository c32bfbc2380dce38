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
