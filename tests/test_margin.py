"""Tests for kmlib.book.margin (chapter "Support vector machines and kernel logistic regression").

Each test names the independent reference it trusts: a closed form, a second
algorithm (SMO in kmlib.svm, scikit-learn's SVC and LogisticRegression), brute
force over sign vectors, or a theorem's inequality.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.svm import SVC

from kmlib import datasets, kernels, logistic, svm
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
    assert margin.loss_crossing() == pytest.approx(np.log(np.e - 1.0), rel=1e-13)


def test_logistic_loss_is_stable_for_extreme_margins():
    """Asymptotics: log(1 + e^{-z}) = -z for z -> -inf and e^{-z} for z -> inf."""
    assert margin.logistic_loss(-1000.0) == pytest.approx(1000.0)
    assert margin.logistic_loss(800.0) == pytest.approx(np.exp(-800.0), rel=1e-12)


# --------------------------------------------------------------------------- #
# hard and soft margin through the origin
# --------------------------------------------------------------------------- #
def test_hard_margin_satisfies_kkt(separable):
    """Theorem (KKT of the hard-margin QP): the active constraints equal 1, the margin is
    1/||beta||, and beta is a non-negative combination of the active y_i x_i."""
    X, y = separable
    beta = margin.hard_margin(X, y)
    z = y * (X @ beta)
    assert z.min() == pytest.approx(1.0, abs=1e-6)
    assert margin.geometric_margin(X, y, beta) == pytest.approx(1 / np.linalg.norm(beta), rel=1e-6)
    # no feasible direction improves: beta is a non-negative combination of active y_i x_i (KKT)
    active = z < 1 + 1e-6
    coef, res, *_ = np.linalg.lstsq((y[active, None] * X[active]).T, beta, rcond=None)
    assert np.all(coef > -1e-6)
    assert np.allclose((y[active, None] * X[active]).T @ coef, beta, atol=1e-6)


def test_soft_margin_tiny_lambda_equals_hard_margin(separable):
    """Theorem: for separable data and small lambda the soft-margin solution is the hard one."""
    X, y = separable
    b_hard, b_soft = margin.hard_margin(X, y), margin.soft_margin(X, y, 1e-4)
    assert np.allclose(b_hard, b_soft, atol=1e-5)


def test_soft_margin_matches_subgradient_optimality():
    """Brute force: on a grid around the solution no point has a smaller objective."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((30, 2))
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(30) > 0, 1.0, -1.0)
    lam = 2.0
    beta = margin.soft_margin(X, y, lam)

    def J(b):
        return np.maximum(0, 1 - y * (X @ b)).sum() + lam * b @ b

    for d in itertools.product([-1e-3, 0.0, 1e-3], repeat=2):
        assert J(beta) <= J(beta + np.array(d)) + 1e-9


def test_hard_margin_rejects_non_separable():
    X = np.array([[1.0, 0.0], [2.0, 0.0]])
    with pytest.raises(ValueError, match="separable"):
        margin.hard_margin(X, np.array([1.0, -1.0]))


# --------------------------------------------------------------------------- #
# the dual
# --------------------------------------------------------------------------- #
def test_dual_qp_matches_smo_and_svc(moons):
    """Second and third algorithms: kmlib's SMO and scikit-learn's SVC (LIBSVM)."""
    X, y, K = moons
    a_qp = margin.svm_dual_qp(K, y, 1.0)
    a_smo, b_smo, obj_smo, *_ = svm.smo_solve(K, y, 1.0, tol=1e-9)
    sk = SVC(kernel="precomputed", C=1.0, tol=1e-10).fit(K, y)
    assert margin.dual_objective(K, y, a_qp) == pytest.approx(obj_smo, abs=1e-7)
    assert set(np.flatnonzero(a_qp > 1e-6)) == set(sk.support_)
    assert margin.svm_intercept(K, y, a_smo, 1.0) == pytest.approx(sk.intercept_[0], abs=1e-6)


def test_kkt_residuals_zero_at_solution_and_positive_elsewhere(moons):
    """Theorem (KKT): zero at the SMO solution; a perturbed feasible point violates them."""
    X, y, K = moons
    a, b, *_ = svm.smo_solve(K, y, 1.0, tol=1e-10)
    z = y * (K @ (a * y) + b)
    assert margin.kkt_residuals(z, a, 1.0).max() < 1e-6
    assert margin.kkt_residuals(z + 0.5, a, 1.0).max() > 0.4


def test_kkt_residual_cases():
    """Closed form of the three cases."""
    r = margin.kkt_residuals([0.5, 2.0, 0.8, 1.3, 1.5], [0.0, 0.0, 0.5, 0.5, 1.0], 1.0)
    assert np.allclose(r, [0.5, 0.0, 0.2, 0.3, 0.5])


def test_intercept_requires_a_free_vector(moons):
    _, y, K = moons
    with pytest.raises(ValueError, match="strictly between 0 and C"):
        margin.svm_intercept(K, y, np.zeros(len(y)), 1.0)


# --------------------------------------------------------------------------- #
# logistic regression on explicit features
# --------------------------------------------------------------------------- #
def test_poly2_features_reproduce_the_kernel():
    """Closed form: phi(x)'phi(x') = (c + x'x')^2, also in d = 3."""
    X = np.random.default_rng(2).standard_normal((7, 3))
    Phi = margin.poly2_features(X, c=1.5)
    assert np.allclose(Phi @ Phi.T, kernels.polynomial(2, 1.5)(X), rtol=1e-12)


def test_penalized_logistic_matches_sklearn_and_newton():
    """Second algorithms: scikit-learn's LogisticRegression (C = 1/(2 lam)) and kmlib's
    Newton KLR."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((40, 2))
    y = np.where(rng.uniform(size=40) < 1 / (1 + np.exp(-X[:, 0] + X[:, 1] ** 2)), 1.0, -1.0)
    lam = 0.3
    Phi = margin.poly2_features(X)
    w, mu = margin.penalized_logistic(Phi, y, lam)
    sk = LogisticRegression(C=1 / (2 * lam), tol=1e-12, max_iter=10_000).fit(Phi, y)
    assert np.allclose(w, sk.coef_[0], atol=1e-5)
    assert mu == pytest.approx(sk.intercept_[0], abs=1e-5)
    klr = logistic.KernelLogisticRegression(kernel=kernels.polynomial(2, 1.0), lam=lam,
                                            tol=1e-10).fit(X, y)
    assert np.allclose(klr.decision_function(X), Phi @ w + mu, atol=1e-5)


# --------------------------------------------------------------------------- #
# Rademacher complexity and bounds
# --------------------------------------------------------------------------- #
def test_rademacher_matches_brute_force_over_all_signs():
    """Brute force: the exact expectation over all 2^10 sign vectors, within 4 standard errors."""
    X = np.random.default_rng(4).standard_normal((10, 2))
    K = kernels.gaussian(1.0)(X)
    S = np.array(list(itertools.product([-1.0, 1.0], repeat=10)))
    exact = 2.0 / 10 * np.mean(np.sqrt(np.einsum("ij,jk,ik->i", S, K, S)))
    est, se = margin.rademacher_ball(K, 2.0, n_draws=20_000, seed=0)
    assert abs(est - exact) < 4 * se


def test_rademacher_between_khintchine_and_trace_bounds():
    """Theorem: Lambda sqrt(Tr K)/(m sqrt 2) <= R_S <= Lambda sqrt(Tr K)/m
    (Jensen; Latala-Oleszkiewicz)."""
    X = np.random.default_rng(5).standard_normal((30, 3))
    K = kernels.polynomial(2, 1.0)(X)
    est, _ = margin.rademacher_ball(K, 1.0, n_draws=5000, seed=1)
    ub = np.sqrt(np.trace(K)) / 30
    assert ub / np.sqrt(2) <= est <= ub


def test_margin_bounds_closed_form():
    """Closed form of the three bounds at m = 100, Lambda = 2, r^2 = 1, rho = 0.5, delta = 0.1."""
    b = margin.margin_bounds(0.1, 100, 2.0, 1.0, 0.5, 0.1)
    assert b.fixed_rho == pytest.approx(0.1 + 4 * 0.2 + np.sqrt(np.log(10) / 200))
    assert b.trace == pytest.approx(0.1 + 2 * 2 * 10 / 50 + 3 * np.sqrt(np.log(20) / 200))
    assert b.uniform_rho == pytest.approx(0.1 + 8 * 0.2 + np.sqrt(np.log(2.0) / 100)
                                          + np.sqrt(np.log(20) / 200))


def test_ramp_loss_closed_form():
    assert margin.ramp_margin_loss([-1.0, 0.25, 0.5, 2.0], 0.5) == pytest.approx((1 + 0.5) / 4)


@pytest.mark.parametrize("kwargs,match", [
    (dict(rho=2.0), "rho must lie in"),
    (dict(delta=1.0), "delta must lie in"),
    (dict(margin_loss=1.5), "margin_loss must lie in"),
])
def test_margin_bounds_validation(kwargs, match):
    args = dict(margin_loss=0.1, m=10, Lambda=1.0, r2=1.0, rho=0.5, delta=0.05)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        margin.margin_bounds(**args)


def test_bound_experiment_bounds_exceed_test_error():
    """Theorem's inequality (holds with probability 0.95): each bound is above the held-out
    error."""
    res = margin.margin_bound_experiment([100, 400], sigma=0.5, gamma=0.003, Lambda=5.0,
                                         n_test=2000)
    for err, b in zip(res.test_error, res.bounds, strict=True):
        assert b.fixed_rho >= err and b.trace >= err and b.uniform_rho >= err
    assert np.allclose(res.complexity, 2 * np.sqrt(2 * 25 / res.m))


def test_smo_cost_iterations_are_deterministic():
    """Second run: iteration counts do not depend on timing."""
    _, it1 = margin.smo_cost([100, 200], 1.0, 1.0, repeats=1)
    _, it2 = margin.smo_cost([100, 200], 1.0, 1.0, repeats=1)
    assert np.array_equal(it1, it2) and np.all(it1 > 0)


def test_validation_messages():
    with pytest.raises(ValueError, match="lam"):
        margin.soft_margin(np.ones((3, 2)), [1, -1, 1], 0.0)
    with pytest.raises(ValueError, match="labels -1 and 1"):
        margin.hard_margin(np.ones((2, 2)), [0, 1])
    with pytest.raises(ValueError, match="length 3"):
        margin.dual_objective(np.eye(3), [1, -1, 1], [1.0, 2.0])


def test_decision_grid_matches_decision_function(moons):
    """Second route: the grid values equal decision_function at the grid corners."""
    X, y, _ = moons
    model = svm.KernelSVM(kernel=kernels.gaussian(1.0), C=1.0).fit(X, y)
    xx, yy, F = margin.decision_grid(model, X, n_grid=7, pad=0.1)
    corners = np.array([[xx[0, 0], yy[0, 0]], [xx[-1, -1], yy[-1, -1]]])
    assert np.allclose([F[0, 0], F[-1, -1]], model.decision_function(corners))
    assert xx[0, 0] == pytest.approx(X[:, 0].min() - 0.1)


def test_geometric_margin_validation():
    X = np.eye(2)
    with pytest.raises(ValueError, match="zero vector"):
        margin.geometric_margin(X, [1, -1], [0.0, 0.0])
    with pytest.raises(ValueError, match="length 2"):
        margin.geometric_margin(X, [1, -1], [1.0, 0.0, 0.0])


def test_bound_experiment_with_the_zero_function():
    """A huge penalty gives f = 0, which lies in every ball (formerly a division by its
    zero norm): the ramp loss of f = 0 is 1 and every bound is finite and above 1."""
    res = margin.margin_bound_experiment([10], sigma=1.0, gamma=1e200, Lambda=5.0, n_test=20)
    assert res.norm[0] == 0.0 and res.margin_loss[0] == 1.0
    assert all(1.0 < b < np.inf for b in res.bounds[0])


def test_bad_model_and_tolerances_are_refused():
    with pytest.raises(TypeError, match="decision_function"):
        margin.decision_grid(None, np.ones((3, 2)))
    with pytest.raises(ValueError, match=r"rel_tol must lie in \[0, 0.5\)"):
        margin.kkt_residuals([1.0, 1.0], [0.0, 0.5], 1.0, rel_tol=0.7)
    with pytest.raises(ValueError, match="z contains 1 NaN"):
        margin.hinge_loss([0.0, np.nan])
