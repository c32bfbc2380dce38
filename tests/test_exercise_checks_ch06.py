"""Tests for the chapter-6 exercise checks: the students' self-checks and the lecturer's.

``kmlib.book.exercises.ch06`` ships the self-checks (properties of an answer: a residual,
orthogonality, a Newton decrement; no hash of a number); ``_grading.reference.ch06`` holds the full
checks that recompute every answer.  Both must accept the right answer computed here by
an independent route (scikit-learn, a dense bordered solve, lstsq, the precision form of
the posterior, scipy's optimiser); the reference must reject typical wrong answers with a
message that names the mistake without printing the reference answer, and the self-check
must reject those its properties can see; both reject ``None``.  The last test runs the
exercise notebook with solutions (every check passes, self-checks and, substituted as the
grader does, the reference) and with ``None`` stubs (every check fails).
"""
from __future__ import annotations

import re
from pathlib import Path

import _exercise_cells as notebook
import numpy as np
import pytest
from _grading.reference import ch06 as reference
from scipy import optimize
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge

from kmlib import kernels
from kmlib.book import representer as rep
from kmlib.book.exercises import ch06

pytestmark = pytest.mark.filterwarnings("error")

NOTEBOOK = Path(__file__).resolve().parents[1] / "exercises" / "06_representer.md"
LONG_NUMBER = re.compile(r"\d\.\d{3,}")
BOTH = pytest.mark.parametrize("module", [ch06, reference], ids=["self", "reference"])
PASSED = {ch06: "Self-check passed:", reference: "Correct:"}


def _fails(call, match):
    with pytest.raises(AssertionError, match=match) as info:
        call()
    assert not LONG_NUMBER.search(str(info.value)), f"message may leak a value: {info.value}"


def _passes(module, capsys, call):
    call()
    out = capsys.readouterr().out
    assert out.startswith(PASSED[module]) and out.count("\n") == 1, out


# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def krr():
    """Reference: scikit-learn KernelRidge (alpha = lambda, linear kernel)."""
    X, y = ch06.krr_data()
    return X, y, SkKernelRidge(alpha=ch06.KRR_LAM, kernel="linear").fit(X, y).predict(X)


@BOTH
def test_krr_fitted_accepts_sklearn(module, krr, capsys):
    X, y, fitted = krr
    _passes(module, capsys, lambda: module.check_krr_fitted(fitted))
    K = X @ X.T                             # the sheet's route: lstsq on the normal equations
    alpha = np.linalg.lstsq(K @ K + 3.0 * K, K @ y, rcond=None)[0]
    _passes(module, capsys, lambda: module.check_krr_fitted(K @ alpha))


@BOTH
def test_krr_fitted_rejects_mistakes(module, krr):
    """Both see every mistake; the self-check by the residual K (y - f) - lam f."""
    X, y, fitted = krr
    K = X @ X.T
    _fails(lambda: module.check_krr_fitted(np.linalg.solve(K + 3.0 * np.eye(25), y)),
           "coefficients")
    _fails(lambda: module.check_krr_fitted(X @ np.linalg.lstsq(X, y, rcond=None)[0]), "penalty")
    _fails(lambda: module.check_krr_fitted(fitted + 0.01), "minimiser")
    _fails(lambda: module.check_krr_fitted(fitted * 1.01), "minimiser")
    _fails(lambda: module.check_krr_fitted(None), "is None")
    _fails(lambda: module.check_krr_fitted(np.ones(3)), "shape")


# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def intercept():
    """Reference: np.linalg.solve of the (n+1) x (n+1) bordered matrix."""
    X, y = ch06.intercept_data()
    n = len(y)
    K = kernels.gaussian(ch06.INTERCEPT_SIGMA)(X)
    A = np.block([[K + ch06.INTERCEPT_LAM * np.eye(n), np.ones((n, 1))],
                  [np.ones((1, n)), np.zeros((1, 1))]])
    return K, y, np.linalg.solve(A, np.append(y, 0.0))


@BOTH
def test_intercept_accepts_dense_bordered_solve(module, intercept, capsys):
    _, y, sol = intercept
    _passes(module, capsys, lambda: module.check_intercept(sol[:-1], sol[-1]))


@BOTH
def test_intercept_rejects_mistakes(module, intercept):
    K, y, sol = intercept
    n = len(y)
    a_mean = np.linalg.solve(K + ch06.INTERCEPT_LAM * np.eye(n), y - y.mean())
    _fails(lambda: module.check_intercept(a_mean, y.mean()), "mean of y")
    _fails(lambda: module.check_intercept(np.linalg.solve(K + 0.5 * np.eye(n), y), 0.0), "is 0")
    _fails(lambda: module.check_intercept(sol[:n] + 0.1, sol[n]), "sum to zero")
    _fails(lambda: module.check_intercept(sol[:n], sol[n] + 0.1), "do not solve")
    _fails(lambda: module.check_intercept(None, 1.0), "is None")
    _fails(lambda: module.check_intercept(sol[:n], None), "is None")


# --------------------------------------------------------------------------- #
@BOTH
def test_min_norm_accepts_lstsq_and_rejects_mistakes(module, capsys):
    """Reference: np.linalg.lstsq, which returns the minimum-norm solution."""
    X, y = ch06.minnorm_data()
    Phi = rep.polynomial_features(X, 6)
    beta = np.linalg.lstsq(Phi, y, rcond=None)[0]
    _passes(module, capsys, lambda: module.check_min_norm(beta))
    null = np.linalg.svd(Phi)[2][-1]
    _fails(lambda: module.check_min_norm(beta + 0.5 * null), "null space")
    other = np.linalg.lstsq(rep.polynomial_features(X, 6, 2.0), y, rcond=None)[0]
    _fails(lambda: module.check_min_norm(other), "interpolate")
    _fails(lambda: module.check_min_norm(None), "is None")


# --------------------------------------------------------------------------- #
@BOTH
def test_map_accepts_precision_form_and_rejects_mistakes(module, capsys):
    """Reference: the posterior precision Phi^T Phi / s2 + I / sb2 (an M x M solve). The full
    check names a wrong penalty; the self-check rejects a mean that is not ridge with lam_map."""
    Phi, y = ch06.map_data()
    s2, sb2 = ch06.MAP_NOISE_VAR, ch06.MAP_PRIOR_VAR
    precision = Phi.T @ Phi / s2 + np.eye(Phi.shape[1]) / sb2
    mean = np.linalg.solve(precision, Phi.T @ y / s2)
    _passes(module, capsys, lambda: module.check_map(s2 / sb2, mean))
    full = module is reference
    _fails(lambda: module.check_map(sb2 / s2, mean), "inverted" if full else "ridge estimate")
    _fails(lambda: module.check_map(np.sqrt(s2 / sb2), mean),
           "standard deviations" if full else "ridge estimate")
    _fails(lambda: module.check_map(1.0, mean), "ratio" if full else "ridge estimate")
    wrong = Phi.T @ np.linalg.solve(Phi @ Phi.T + sb2 / s2 * np.eye(len(y)), y)
    _fails(lambda: module.check_map(s2 / sb2, wrong), "posterior mean" if full else "ridge")
    _fails(lambda: module.check_map(s2 / sb2, mean * 1.001), "posterior mean" if full else "ridge")
    _fails(lambda: module.check_map(-0.24, mean), "ratio" if full else "positive")
    _fails(lambda: module.check_map(None, mean), "is None")


def test_map_self_check_cannot_identify_the_penalty(capsys):
    """Brute force over plausible penalties (ratios, products, roots of the two variances and
    a grid): with the matching ridge estimate, the self-check accepts every one of them, so it
    cannot tell the student which penalty is right."""
    Phi, y = ch06.map_data()
    s2, sb2 = ch06.MAP_NOISE_VAR, ch06.MAP_PRIOR_VAR
    candidates = [s2 / sb2, sb2 / s2, np.sqrt(s2 / sb2), s2 * sb2, s2, sb2, 1.0,
                  *np.round(np.linspace(0.01, 5.0, 60), 2)]
    for lam in candidates:
        beta = Phi.T @ np.linalg.solve(Phi @ Phi.T + lam * np.eye(len(y)), y)
        ch06.check_map(lam, beta)
    assert capsys.readouterr().out.count("Self-check passed") == len(candidates)


# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def poisson():
    """Reference: scipy BFGS in whitened coordinates Z w (K = Z Z^T), mapped back to alpha.

    At the optimum Z^T (exp(Z w) - y) + 2 lam w = 0, so alpha = (y - exp(Z w)) / (2 lam)
    satisfies K alpha = Z w.
    """
    x, y = ch06.poisson_data()
    K = kernels.gaussian(ch06.POISSON_SIGMA)(x)
    lam = ch06.POISSON_LAM
    Z = kernels.empirical_feature_map(K)

    def fun(w):
        eta = Z @ w
        return np.sum(np.exp(eta) - y * eta) + lam * w @ w, Z.T @ (np.exp(eta) - y) + 2 * lam * w

    res = optimize.minimize(fun, np.zeros(Z.shape[1]), jac=True, method="BFGS",
                            options={"gtol": 1e-12, "maxiter": 10000})
    return (y - np.exp(Z @ res.x)) / (2 * lam)


@BOTH
def test_poisson_accepts_scipy_optimum_and_rejects_mistakes(module, poisson, capsys):
    alpha = poisson
    _passes(module, capsys, lambda: module.check_poisson(alpha))
    _fails(lambda: module.check_poisson(np.zeros(len(alpha))), "not a minimiser")
    _fails(lambda: module.check_poisson(alpha * 1.1), "not a minimiser")
    _fails(lambda: module.check_poisson(None), "is None")


def _poisson_objective(K, y, lam):
    def fun(a):
        eta = K @ a
        return (np.sum(np.exp(eta) - y * eta) + lam * a @ K @ a,
                K @ (np.exp(eta) - y + 2 * lam * a))
    return fun


@BOTH
def test_poisson_accepts_every_minimiser(module, poisson, capsys):
    """Reference: scipy's L-BFGS-B and BFGS on R(alpha) with default tolerances, and the BFGS
    optimum shifted by a null-space vector of K (same function, other coefficients)."""
    x, y = ch06.poisson_data()
    K = kernels.gaussian(ch06.POISSON_SIGMA)(x)
    nu, V = np.linalg.eigh(K)
    shifted = poisson + 5.0 * V[:, 0]                # nu[0] ~ 1e-16: K shifted ~ K poisson
    assert abs(nu[0]) < 1e-12 * nu[-1]
    assert np.abs(K @ shifted - K @ poisson).max() < 1e-10
    fun = _poisson_objective(K, y, ch06.POISSON_LAM)
    for method in ("L-BFGS-B", "BFGS"):
        res = optimize.minimize(fun, np.zeros(len(y)), jac=True, method=method)
        assert np.abs(K @ res.x - K @ poisson).max() > 1e-8     # not an exact solution
        _passes(module, capsys, lambda a=res.x: module.check_poisson(a))
    _passes(module, capsys, lambda: module.check_poisson(shifted))


@BOTH
def test_poisson_rejects_other_problems_and_early_stops(module, poisson):
    """Reference: the minimisers of the same objective with lam = 2 and sigma = 0.2, and L-BFGS-B
    stopped after five iterations; the messages name the tolerance missed."""
    x, y = ch06.poisson_data()
    for lam, sigma in ((2.0, ch06.POISSON_SIGMA), (ch06.POISSON_LAM, 0.2)):
        K = kernels.gaussian(sigma)(x)
        res = optimize.minimize(_poisson_objective(K, y, lam), np.zeros(len(y)), jac=True,
                                method="BFGS", options={"gtol": 1e-10})
        _fails(lambda a=res.x: module.check_poisson(a), "tolerance")
    K = kernels.gaussian(ch06.POISSON_SIGMA)(x)
    early = optimize.minimize(_poisson_objective(K, y, ch06.POISSON_LAM), np.zeros(len(y)),
                              jac=True, method="L-BFGS-B", options={"maxiter": 5}).x
    _fails(lambda: module.check_poisson(early), "tolerance")


# --------------------------------------------------------------------------- #
@BOTH
def test_linear_spline_accepts_bordered_solve_and_rejects_mistakes(module, capsys):
    """Reference: a dense solve of the bordered system with min(x, x') and a constant."""
    x, y = ch06.spline_data()

    def bordered_fit(lam):
        K, n = np.minimum.outer(x, x), len(y)
        A = np.block([[K + lam * np.eye(n), np.ones((n, 1))], [np.ones((1, n)), np.zeros((1, 1))]])
        sol = np.linalg.solve(A, np.r_[y, 0.0])
        return K @ sol[:n] + sol[n]

    fitted = bordered_fit(ch06.SPLINE_LAM)
    _passes(module, capsys, lambda: module.check_linear_spline(fitted))
    K = np.minimum.outer(x, x)
    no_const = K @ np.linalg.solve(K + ch06.SPLINE_LAM * np.eye(len(y)), y)
    _fails(lambda: module.check_linear_spline(no_const), "unpenalised constant")
    _fails(lambda: module.check_linear_spline(fitted + 0.05), "sum to zero")
    _fails(lambda: module.check_linear_spline(bordered_fit(10 * ch06.SPLINE_LAM)), "lam")
    _fails(lambda: module.check_linear_spline(None), "is None")


# --------------------------------------------------------------------------- #
def test_notebook_checks_pass_with_solutions_and_fail_with_none_stubs(capsys, monkeypatch):
    """Solution notebook: every self-check passes and, substituted as the grader does, every
    reference check; with None stubs every check fails, both ways (one execution each)."""
    notebook.assert_sheet_passes_self_then_full(NOTEBOOK, ch06, reference, 6, capsys,
                                                monkeypatch, hidden=1)
