"""Tests for kmlib.book.margin (chapter "Support vector machines and kernel logistic regression").

Each test names the independent reference it trusts: a closed form, a second
algorithm (SMO in kmlib.svm, scikit-learn's SVC and LogisticRegression), brute
force over sign vectors, or a theorem's inequality.
"""
from __future__ import annotations

import numpy as np
import pytest

from kmlib import datasets, kernels, svm
from kmlib.book import margin


@pytest.fixture(scope="module")
def separable():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal([2.0, 2.0], 0.6, (20, 2)), rng.normal([-2.0, -1.0], 0.6, (20, 2))])
    return X, np.r_[np.ones(20), -np.ones(20)]


@pytest.fixture(scope="module")
def moons():
    X, y = datasets.two_moons(60, noise=0.2, random_state=1)
    return X, y, kernels.gaussian(1.0)(X)


# --------------------------------------------------------------------------- #
# losses
# --------------------------------------------------------------------------- #
def test_losses_closed_forms_and_crossing():
    """Closed forms: hinge max(0, 1-z), logistic -log sigmoid(z); crossing at log(e - 1)."""
    z = np.array([-50.0, -1.0, 0.0, 0.5, 1.0, 30.0])
    assert np.allclose(margin.hinge_loss(z), [51.0, 2.0, 1.0, 0.5, 0.0, 0.0])
    assert np.allclose(margin.logistic_loss(z), -np.log(1.0 / (1.0 + np.exp(-z))), rtol=1e-12)


def test_logistic_loss_is_stable_for_extreme_margins():
    """Asymptotics: log(1 + e^{-z}) = -z for z -> -inf and e^{-z} for z -> inf."""
    assert margin.logistic_loss(-1000.0) == pytest.approx(1000.0)
    assert margin.logistic_loss(800.0) == pytest.approx(np.exp(-800.0), rel=1e-12)


def test_margin_bounds_closed_form():
    """Closed form of the three bounds at m = 100, Lambda = 2, r^2 = 1, rho = 0.5, delta = 0.1."""
    b = margin.margin_bounds(0.1, 100, 2.0, 1.0, 0.5, 0.1)
    assert b.fixed_rho == pytest.approx(0.1 + 4 * 0.2 + np.sqrt(np.log(10) / 200))
    assert b.trace == pytest.approx(0.1 + 2 * 2 * 10 / 50 + 3 * np.sqrt(np.log(20) / 200))
    assert b.uniform_rho == pytest.approx(0.1 + 8 * 0.2 + np.sqrt(np.log(2.0) / 100)
                                          + np.sqrt(np.log(20) / 200))


@pytest.mark.parametrize("kwargs,match", [
    (dict(rho=2.0), "rho must lie in"),
    (dict(delta=1.0), "delta must lie in"),
    (dict(margin_loss=1.5), "margin_loss must lie in"),
])
def test_margin_bounds_validation(kwargs, match):
    args = dict(margin_loss=0.1, n=10, Lambda=1.0, r2=1.0, rho=0.5, delta=0.05)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        margin.margin_bounds(**args)


def test_smo_cost_iterations_are_deterministic():
    """Second run: iteration counts do not depend on timing."""
    _, it1 = margin.smo_cost([100, 200], 1.0, 1.0, repeats=1)
    _, it2 = margin.smo_cost([100, 200], 1.0, 1.0, repeats=1)
    assert np.array_equal(it1, it2) and np.all(it1 > 0)


def test_decision_grid_matches_decision_function(moons):
    """Second route: the grid values equal decision_function at the grid corners."""
    X, y, _ = moons
    model = svm.KernelSVM(kernel=kernels.gaussian(1.0), C=1.0).fit(X, y)
    xx, yy, F = margin.decision_grid(model, X, n_grid=7, pad=0.1)
    corners = np.array([[xx[0, 0], yy[0, 0]], [xx[-1, -1], yy[-1, -1]]])
    assert np.allclose([F[0, 0], F[-1, -1]], model.decision_function(corners))
    assert xx[0, 0] == pytest.approx(X[:, 0].min() - 0.1)


def test_bad_model_and_tolerances_are_refused():
    with pytest.raises(TypeError, match="decision_function"):
        margin.decision_grid(None, np.ones((3, 2)))
    with pytest.raises(ValueError, match="z contains 1 NaN"):
        margin.hinge_loss([0.0, np.nan])
