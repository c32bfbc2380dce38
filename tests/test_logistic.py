"""Tests of kmlib.logistic: kernel logistic regression by Newton's method (chapter 8).

References trusted, named in each test: scikit-learn's LogisticRegression
(the linear-kernel case, C = 1/(2 lam)), the gradient of the objective written
out in the test and itself checked against central finite differences, a
second optimiser (scipy's L-BFGS on the same objective), and the identities
P(-1) + P(1) = 1, P(1) = expit(eta).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from _estimator_fixtures import (
    assert_rejects_bad_inputs,
    fit_callable_and_precomputed,
    linear,
    random_two_class,
    rbf,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq, minimize
from scipy.special import expit
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from kmlib._validation import NotFittedError
from kmlib.logistic import KernelLogisticRegression, logistic_objective


# ---------------------------------------------------------------------------
# small local data (kernels from _estimator_fixtures, independent of kmlib.kernels)
# ---------------------------------------------------------------------------
def noisy_linear(n=150, p=3, seed=0):
    """Labels from a noisy linear rule with an offset (classes overlap)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    eta = X @ np.linspace(1.0, -1.5, p) + 0.7
    y = np.where(rng.random(n) < expit(eta), 1.0, -1.0)
    return X, y


def circles(n=120, seed=1):
    """A disc inside a ring, with some label noise: needs a nonlinear kernel."""
    rng = np.random.default_rng(seed)
    r = np.sqrt(rng.uniform(0, 4, n))
    t = rng.uniform(0, 2 * np.pi, n)
    X = np.column_stack([r * np.cos(t), r * np.sin(t)])
    y = np.where(r < 1.3, 1.0, -1.0)
    y[rng.random(n) < 0.08] *= -1
    return X, y


def objective(K, y, alpha, mu, lam):
    """J = sum_i log(1 + exp(-y_i (mu + (K alpha)_i))) + lam alpha' K alpha (log1p form)."""
    z = y * (K @ alpha + mu)
    return np.sum(np.log1p(np.exp(-z))) + lam * alpha @ K @ alpha


def gradient(K, y, alpha, mu, lam):
    """dJ/d(alpha, mu) from d/dz log(1 + e^{-z}) = -1 / (1 + e^{z}) and the chain rule."""
    z = y * (K @ alpha + mu)
    dl_deta = -y / (1.0 + np.exp(z))
    return np.r_[K.T @ dl_deta + 2 * lam * K @ alpha, dl_deta.sum()]


# ---------------------------------------------------------------------------
# agreement with scikit-learn (linear kernel)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("lam", [1e-3, 0.1, 1.0, 10.0])
def test_linear_kernel_matches_sklearn(lam):
    """Reference: sklearn LogisticRegression(C=1/(2 lam)); w = X^T alpha and mu agree to 1e-5."""
    X, y = noisy_linear()
    ours = KernelLogisticRegression(kernel=linear, lam=lam).fit(X, y)
    sk = LogisticRegression(C=1 / (2 * lam), tol=1e-10, max_iter=10000).fit(X, y)
    w = X.T @ ours.dual_coef_
    np.testing.assert_allclose(w, sk.coef_[0], rtol=0, atol=1e-5)
    assert abs(ours.intercept_ - sk.intercept_[0]) <= 1e-5
    Xt, _ = noisy_linear(n=30, seed=5)
    np.testing.assert_allclose(ours.predict_proba(Xt), sk.predict_proba(Xt), atol=1e-6)


# ---------------------------------------------------------------------------
# optimality with a Gaussian kernel
# ---------------------------------------------------------------------------
def test_test_gradient_formula_matches_finite_differences():
    """Reference: central finite differences of the objective (validates the test's gradient)."""
    X, y = circles(n=25)
    K = rbf(0.8)(X)
    rng = np.random.default_rng(0)
    alpha, mu, lam = 0.3 * rng.standard_normal(25), 0.2, 0.4
    g = gradient(K, y, alpha, mu, lam)
    h = 1e-6
    fd = np.empty(26)
    for i in range(26):
        e = np.zeros(26)
        e[i] = h
        fd[i] = (objective(K, y, alpha + e[:25], mu + e[25], lam)
                 - objective(K, y, alpha - e[:25], mu - e[25], lam)) / (2 * h)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("lam", [1e-4, 1e-2, 1.0])
@pytest.mark.parametrize("gamma", [0.5, 3.0])
def test_gradient_vanishes_at_solution(lam, gamma):
    """Reference: the gradient formula written in this test: |grad J(alpha, mu)|_2 < tol."""
    X, y = circles()
    K = rbf(gamma)(X)
    tol = 1e-8
    m = KernelLogisticRegression(kernel=rbf(gamma), lam=lam, tol=tol).fit(X, y)
    g = gradient(K, y, m.dual_coef_, m.intercept_, lam)
    assert np.linalg.norm(g) < tol
    assert m.grad_norm_ < tol
    assert m.objective_ == pytest.approx(objective(K, y, m.dual_coef_, m.intercept_, lam),
                                         rel=1e-12)


@pytest.mark.parametrize("gamma, lam, solver", [(0.2, 0.1, "low rank"), (40.0, 0.1, "float32"),
                                               (0.5, 1e-4, "float64")])
def test_larger_n_every_factorisation_reaches_stationarity(gamma, lam, solver):
    """Reference: the gradient formula of this test, at n = 300 where the solver
    chooses between a low-rank factor of K (smooth kernel, low rank) and a dense
    factor (rank too high; float64 when a small lam makes B ill-conditioned)."""
    X, y = circles(n=300, seed=2)
    K = rbf(gamma)(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = KernelLogisticRegression(kernel="precomputed", lam=lam).fit(K, y)
    assert m.solver_ == solver
    assert np.linalg.norm(gradient(K, y, m.dual_coef_, m.intercept_, lam)) < m.tol


def test_linear_kernel_low_rank_path_matches_sklearn():
    """Reference: sklearn LogisticRegression(C=1/(2 lam)) at n = 400, where K = X X^T has
    rank 3 and the Newton systems go through the low-rank factor."""
    X, y = noisy_linear(n=400, seed=8)
    lam = 0.5
    ours = KernelLogisticRegression(kernel=linear, lam=lam).fit(X, y)
    sk = LogisticRegression(C=1 / (2 * lam), tol=1e-10, max_iter=10000).fit(X, y)
    assert ours.solver_ == "low rank"
    np.testing.assert_allclose(X.T @ ours.dual_coef_, sk.coef_[0], rtol=0, atol=1e-5)
    assert abs(ours.intercept_ - sk.intercept_[0]) <= 1e-5


def test_objective_not_beaten_by_lbfgs():
    """Reference: a second algorithm: scipy's L-BFGS-B on the feature-space form.

    With K = Phi Phi^T (eigen-decomposition), f = Phi w and ||f||^2 = |w|^2, so
    J becomes a well-conditioned penalised logistic regression in (w, mu).  Its
    minimum cannot be below ours, and the fitted values K alpha + mu agree.
    """
    X, y = circles(n=60)
    lam = 0.05
    K = rbf(1.0)(X)
    m = KernelLogisticRegression(kernel="precomputed", lam=lam).fit(K, y)
    ours = objective(K, y, m.dual_coef_, m.intercept_, lam)
    evals, U = np.linalg.eigh(K)
    Phi = U * np.sqrt(np.clip(evals, 0.0, None))

    def fun(v):
        z = y * (Phi @ v[:-1] + v[-1])
        dl = -y * expit(-z)
        val = np.sum(np.logaddexp(0.0, -z)) + lam * v[:-1] @ v[:-1]
        return val, np.r_[Phi.T @ dl + 2 * lam * v[:-1], dl.sum()]

    res = minimize(fun, np.zeros(61), jac=True, method="L-BFGS-B",
                   options={"maxiter": 5000, "gtol": 1e-11, "ftol": 1e-15})
    assert ours <= res.fun + 1e-10 * abs(res.fun)
    assert ours == pytest.approx(res.fun, rel=1e-8)
    np.testing.assert_allclose(K @ m.dual_coef_ + m.intercept_, Phi @ res.x[:-1] + res.x[-1],
                               atol=1e-6)
    assert logistic_objective(K, y, m.dual_coef_, m.intercept_, lam) == pytest.approx(ours,
                                                                                       rel=1e-12)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(5, 40),
       loglam=st.floats(-4.0, 1.0), gamma=st.floats(0.1, 4.0))
def test_random_problems_reach_stationarity(seed, n, loglam, gamma):
    """Reference: the gradient formula of this test, on random data, labels and penalties."""
    X, y = random_two_class(n, seed)
    lam = 10.0 ** loglam
    K = rbf(gamma)(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = KernelLogisticRegression(kernel="precomputed", lam=lam, tol=1e-7).fit(K, y)
    assert np.linalg.norm(gradient(K, y, m.dual_coef_, m.intercept_, lam)) < 1e-7


# ---------------------------------------------------------------------------
# probabilities, precomputed kernels, separable data
# ---------------------------------------------------------------------------
def test_predict_proba_identities():
    """Reference: rows sum to 1 and P(Y=1|x) = expit(eta), columns ordered (-1, 1)."""
    X, y = circles()
    Xt, _ = circles(n=40, seed=9)
    m = KernelLogisticRegression(kernel=rbf(1.0), lam=0.01).fit(X, y)
    P = m.predict_proba(Xt)
    eta = m.decision_function(Xt)
    assert P.shape == (40, 2)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=0, atol=1e-15)
    np.testing.assert_allclose(P[:, 1], expit(eta), rtol=1e-15)
    np.testing.assert_array_equal(m.predict(Xt), np.where(eta >= 0, 1.0, -1.0))
    np.testing.assert_array_equal(m.predict(Xt), np.where(P[:, 1] >= 0.5, 1.0, -1.0))


def test_predict_proba_extreme_log_odds_is_stable():
    """Reference: expit's limits: log-odds of +-1e4 give probabilities exactly 0/1, no warnings."""
    X, y = circles(n=30)
    K = rbf(1.0)(X)
    m = KernelLogisticRegression(kernel="precomputed", lam=1.0).fit(K, y)
    m.dual_coef_ = np.zeros(30)
    m.intercept_ = 0.0
    Kt = np.zeros((2, 30))
    Kt[:, 0] = 1.0
    m.dual_coef_[0] = 1e4
    Kt[1, 0] = -1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        P = m.predict_proba(Kt)
    np.testing.assert_array_equal(P, [[0.0, 1.0], [1.0, 0.0]])


def test_precomputed_matches_callable():
    """Reference: the same problem given as a callable and as Gram matrices."""
    X, y = circles()
    Xt, _ = circles(n=20, seed=4)
    k = rbf(1.5)
    a, b = fit_callable_and_precomputed(KernelLogisticRegression, k, X, y, lam=0.1)
    np.testing.assert_allclose(a.dual_coef_, b.dual_coef_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(a.predict_proba(Xt), b.predict_proba(k(Xt, X)), atol=1e-12)


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
@pytest.mark.parametrize("lam", [1e-6, 1e-10])
def test_separable_data_tiny_lam_is_finite_without_warnings(kernel, lam):
    """Reference: a theorem: for separable data and lam -> 0, the fit separates the
    training data (all margins positive); nothing overflows and nothing warns."""
    rng = np.random.default_rng(3)
    X = np.vstack([rng.standard_normal((25, 2)) - 3, rng.standard_normal((25, 2)) + 3])
    y = np.r_[-np.ones(25), np.ones(25)]
    k = linear if kernel == "linear" else rbf(0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            m = KernelLogisticRegression(kernel=k, lam=lam).fit(X, y)
            P = m.predict_proba(X)
    assert np.all(np.isfinite(m.dual_coef_)) and np.isfinite(m.intercept_)
    assert np.all(np.isfinite(P))
    assert np.all(m.predict(X) == y)
    K = k(X)
    assert np.linalg.norm(gradient(K, y, m.dual_coef_, m.intercept_, lam)) < m.tol


def _line_data():
    """Separable points on a line, labels 0 / 1 (the sign of x)."""
    x = np.r_[np.linspace(-2.0, -0.1, 20), np.linspace(0.1, 2.0, 20)][:, None]
    return x, np.r_[np.zeros(20), np.ones(20)]


def _clouds(n, p, gap, seed=3):
    rng = np.random.default_rng(seed)
    h = n // 2
    X = np.vstack([rng.standard_normal((h, p)) - gap, rng.standard_normal((h, p)) + gap])
    return X, np.r_[np.zeros(h), np.ones(h)]


@pytest.mark.parametrize("lam", [1e-14, 1e-20, 1e-300])
@pytest.mark.parametrize("data, kernel", [
    ("line", "linear"), ("line", "rbf"), ("clouds50", "linear"), ("clouds50", "rbf"),
    ("clouds400", "linear"), ("clouds400p10", "linear")])
def test_tiny_lam_separates_separable_data_and_no_nan_arises(lam, data, kernel):
    """Reference: scikit-learn's LogisticRegression(C=1/(2 lam)), which separates these
    data, and a theorem: as lam -> 0 the minimiser on separable data separates them (every
    margin positive).  The gradient, written out in this file, is below tol; no NaN or
    overflow arises inside the fit (numpy raises on them here) and nothing warns."""
    X, y = {"line": _line_data, "clouds50": lambda: _clouds(50, 2, 3.0),
             "clouds400": lambda: _clouds(400, 2, 3.0),
             "clouds400p10": lambda: _clouds(400, 10, 1.0)}[data]()
    k = linear if kernel == "linear" else rbf(0.5)
    sk = LogisticRegression(C=1 / (2 * lam), max_iter=10_000).fit(X, y)
    assert np.all(sk.predict(X) == y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(over="raise", invalid="raise", divide="raise"):
            m = KernelLogisticRegression(kernel=k, lam=lam).fit(X, y)
    assert np.all(m.predict(X) == y)
    s = 2 * y - 1
    assert np.min(s * m.decision_function(X)) > 5.0
    with np.errstate(over="ignore"):   # margins of hundreds: e^z = inf, 1/(1 + e^z) = 0
        g = gradient(k(X), s, m.dual_coef_, m.intercept_, lam)
    assert np.linalg.norm(g) < m.tol


def test_tiny_lam_reaches_the_minimiser_of_the_one_parameter_problem():
    """Reference: with the linear kernel on points of a line, symmetric about 0 with labels
    sign(x), the intercept of the minimiser is 0 by symmetry and w = x^T alpha solves
    sum_i |x_i| sigma(-w |x_i|) = 2 lam w, a monotone equation solved by scipy's brentq.
    At lam = 1e-20, w = 378.1."""
    X, y = _line_data()
    a = np.abs(X[:, 0])
    lam = 1e-20
    w_ref = brentq(lambda w: np.sum(a * expit(-w * a)) - 2 * lam * w, 1.0, 1e4,
                   xtol=1e-14, rtol=1e-15)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = KernelLogisticRegression(kernel=linear, lam=lam, tol=1e-30, max_iter=300).fit(X, y)
    np.testing.assert_allclose(X[:, 0] @ m.dual_coef_, w_ref, rtol=1e-10)
    assert abs(m.intercept_) < 1e-8 and 370 < w_ref < 390


def test_tiny_lam_reaching_max_iter_warns_and_keeps_a_separating_model():
    """Reference: the documented contract (one ConvergenceWarning at max_iter) and, as
    above, a separating iterate: at lam = 1e-300 and tol = 1e-30 twenty steps are too few."""
    X, y = _line_data()
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        with np.errstate(over="raise", invalid="raise", divide="raise"):
            m = KernelLogisticRegression(kernel=linear, lam=1e-300, tol=1e-30,
                                         max_iter=20).fit(X, y)
    assert [w.category for w in rec] == [ConvergenceWarning]
    assert "max_iter=20" in str(rec[0].message) and m.n_iter_ == 20
    assert np.all(m.predict(X) == y)


def test_max_iter_warns_once():
    """Reference: the documented contract: one ConvergenceWarning (scikit-learn's) when
    max_iter is reached."""
    X, y = circles()
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        m = KernelLogisticRegression(kernel=rbf(1.0), lam=1e-3, max_iter=1).fit(X, y)
    runtime = [w for w in rec if issubclass(w.category, ConvergenceWarning)]
    assert len(runtime) == 1 and "max_iter" in str(runtime[0].message)
    assert m.n_iter_ == 1


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------
def test_bad_input_raises():
    """Reference: the validation contract (ValueError naming the argument).

    The contract shared with KernelSVM is checked by
    _estimator_fixtures.assert_rejects_bad_inputs; lam, the one-class hint,
    predict_proba and logistic_objective are specific to this module.
    """
    X, y = circles(n=20)
    k = rbf(1.0)
    assert_rejects_bad_inputs(KernelLogisticRegression, X, y, k)
    for lam in (-1.0, np.inf, "x"):
        with pytest.raises(ValueError, match="lam must"):
            KernelLogisticRegression(kernel=k, lam=lam).fit(X, y)
    with pytest.raises(ValueError, match="lam must be > 0"):
        KernelLogisticRegression(kernel=k, lam=0.0).fit(X, y)
    one_class = r"got only one class, the label -1\.0 \(the intercept would diverge\)"
    with pytest.raises(ValueError, match=one_class):
        KernelLogisticRegression(kernel=k).fit(X, -np.ones(len(y)))
    m = KernelLogisticRegression(kernel="precomputed").fit(k(X), y)
    with pytest.raises(ValueError, match=r"\(m, n_train\) Gram matrix"):
        m.predict_proba(np.ones((3, 5)))
    with pytest.raises(ValueError, match="alpha must have length 20"):
        logistic_objective(k(X), y, np.zeros(3), 0.0, 1.0)
    with pytest.raises(ValueError, match="lam must be >= 0"):
        logistic_objective(k(X), y, np.zeros(20), 0.0, -1.0)


def test_predict_before_fit_raises():
    """Reference: the validation contract (NotFittedError, a ValueError)."""
    m = KernelLogisticRegression(kernel=rbf(1.0))
    for method in (m.predict, m.predict_proba, m.decision_function):
        with pytest.raises(NotFittedError, match="not fitted"):
            method(np.zeros((2, 2)))


# ---------------------------------------------------------------------------
# issue 23: sample_weight
# ---------------------------------------------------------------------------
def test_sample_weight_matches_sklearn_logistic_regression():
    # reference: scikit-learn's LogisticRegression(C = 1/(2 lam)) with the same weights
    # (zeros included) on the linear kernel, where w = X^T alpha
    from kmlib import kernels

    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = np.where(X[:, 0] + rng.normal(size=80) > 0, 1, -1)
    w = rng.uniform(0.0, 3.0, size=80)
    w[:8] = 0.0
    lam = 0.5
    ours = KernelLogisticRegression(kernel=kernels.linear(), lam=lam, tol=1e-10)
    ours.fit(X, y, sample_weight=w)
    ref = LogisticRegression(C=1 / (2 * lam), tol=1e-12, max_iter=10_000)
    ref.fit(X, y, sample_weight=w)
    np.testing.assert_allclose(X.T @ ours.dual_coef_, ref.coef_[0], atol=1e-8)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_[0], atol=1e-8)


def test_integer_sample_weights_equal_repeated_points_on_the_low_rank_path():
    # reference (closed form): weight 2 = the point twice, kmlib's own unweighted fit; n = 600
    # with a Gaussian kernel takes the low-rank Newton route, whose tolerance scales with w
    from kmlib import kernels

    rng = np.random.default_rng(1)
    X = rng.normal(size=(600, 2))
    y = np.where(np.sin(2 * X[:, 0]) + 0.5 * rng.normal(size=600) > 0, 1, -1)
    w = np.ones(600)
    w[:50] = 2.0
    k = kernels.gaussian(1.0)
    weighted = KernelLogisticRegression(kernel=k, lam=0.1, tol=1e-10).fit(X, y, sample_weight=w)
    repeated = KernelLogisticRegression(kernel=k, lam=0.1, tol=1e-10).fit(
        np.vstack([X, X[:50]]), np.concatenate([y, y[:50]]))
    assert weighted.solver_ == "low rank"
    np.testing.assert_allclose(weighted.decision_function(X), repeated.decision_function(X),
                               atol=1e-9)
    with pytest.raises(ValueError, match="no positive weight to one of the two classes"):
        KernelLogisticRegression(kernel=k).fit(X, y, sample_weight=(y > 0).astype(float))


def test_a_kernel_whose_gram_matrix_is_not_symmetric_is_refused():
    """Reference: a kernel is symmetric, k(x, z) = k(z, x); the rule of KernelRidge and
    KernelPCA (check_symmetric on a user kernel's Gram matrix) applies here too."""
    X = np.random.default_rng(0).normal(size=(12, 2))
    y = np.where(X[:, 0] > 0, 1, -1)

    def lopsided(A, B=None):
        G = A @ (A if B is None else B).T
        return G + np.triu(np.ones(G.shape), 1) if B is None else G

    with pytest.raises(ValueError, match=r"kernel\(X\) must be a symmetric Gram matrix"):
        KernelLogisticRegression(kernel=lopsided).fit(X, y)
