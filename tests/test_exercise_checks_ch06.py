"""Tests for the chapter-6 exercise checkers (kmlib.book.exercises.ch06).

Each checker must accept the right answer computed here by an independent route
(scikit-learn, a dense bordered solve, lstsq, the precision form of the posterior,
scipy's optimiser), reject typical wrong answers with a message
that names the mistake without printing the reference answer, and reject ``None``.
The last test runs the exercise notebook with solutions (every check passes) and
with ``None`` stubs (every check fails).
"""
from __future__ import annotations

import re
from pathlib import Path

import _exercise_cells as notebook
import numpy as np
import pytest
from scipy import optimize
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge

from kmlib import kernels
from kmlib.book import representer as rep
from kmlib.book.exercises import ch06

pytestmark = pytest.mark.filterwarnings("error")

NOTEBOOK = Path(__file__).resolve().parents[1] / "exercises" / "06_representer.md"
LONG_NUMBER = re.compile(r"\d\.\d{3,}")


def _fails(call, match):
    with pytest.raises(AssertionError, match=match) as info:
        call()
    assert not LONG_NUMBER.search(str(info.value)), f"message may leak a value: {info.value}"


# --------------------------------------------------------------------------- #
def test_krr_fitted_accepts_sklearn_and_rejects_mistakes(capsys):
    """Reference: scikit-learn KernelRidge (alpha = lambda, linear kernel)."""
    X, y = ch06.krr_data()
    sk = SkKernelRidge(alpha=ch06.KRR_LAM, kernel="linear").fit(X, y)
    ch06.check_krr_fitted(sk.predict(X))
    assert capsys.readouterr().out.startswith("Correct:")
    K = X @ X.T
    _fails(lambda: ch06.check_krr_fitted(np.linalg.solve(K + 3.0 * np.eye(25), y)), "coefficients")
    _fails(lambda: ch06.check_krr_fitted(X @ np.linalg.lstsq(X, y, rcond=None)[0]), "penalty")
    _fails(lambda: ch06.check_krr_fitted(sk.predict(X) + 0.01), "minimiser")
    _fails(lambda: ch06.check_krr_fitted(None), "is None")
    _fails(lambda: ch06.check_krr_fitted(np.ones(3)), "shape")


def test_intercept_accepts_dense_bordered_solve_and_rejects_mistakes(capsys):
    """Reference: np.linalg.solve of the (n+1) x (n+1) bordered matrix."""
    X, y = ch06.intercept_data()
    n = len(y)
    K = kernels.gaussian(ch06.INTERCEPT_SIGMA)(X)
    A = np.block([[K + ch06.INTERCEPT_LAM * np.eye(n), np.ones((n, 1))],
                  [np.ones((1, n)), np.zeros((1, 1))]])
    sol = np.linalg.solve(A, np.append(y, 0.0))
    ch06.check_intercept(sol[:n], sol[n])
    assert "Correct:" in capsys.readouterr().out
    a_mean = np.linalg.solve(K + ch06.INTERCEPT_LAM * np.eye(n), y - y.mean())
    _fails(lambda: ch06.check_intercept(a_mean, y.mean()), "mean of y")
    _fails(lambda: ch06.check_intercept(np.linalg.solve(K + 0.5 * np.eye(n), y), 0.0), "is 0")
    _fails(lambda: ch06.check_intercept(sol[:n] + 0.1, sol[n]), "sum to zero")
    _fails(lambda: ch06.check_intercept(sol[:n], sol[n] + 0.1), "do not solve")
    _fails(lambda: ch06.check_intercept(None, 1.0), "is None")


def test_min_norm_accepts_lstsq_and_rejects_mistakes(capsys):
    """Reference: np.linalg.lstsq, which returns the minimum-norm solution."""
    X, y = ch06.minnorm_data()
    Phi = rep.polynomial_features(X, 6)
    beta = np.linalg.lstsq(Phi, y, rcond=None)[0]
    ch06.check_min_norm(beta)
    assert "Correct:" in capsys.readouterr().out
    null = np.linalg.svd(Phi)[2][-1]
    _fails(lambda: ch06.check_min_norm(beta + 0.5 * null), "null space")
    _fails(lambda: ch06.check_min_norm(np.linalg.lstsq(rep.polynomial_features(X, 6, 2.0), y,
                                                      rcond=None)[0]), "interpolate")
    _fails(lambda: ch06.check_min_norm(None), "is None")


def test_map_accepts_precision_form_and_rejects_mistakes(capsys):
    """Reference: the posterior precision Phi^T Phi / s2 + I / sb2 (an M x M solve)."""
    Phi, y = ch06.map_data()
    s2, sb2 = ch06.MAP_NOISE_VAR, ch06.MAP_PRIOR_VAR
    precision = Phi.T @ Phi / s2 + np.eye(Phi.shape[1]) / sb2
    mean = np.linalg.solve(precision, Phi.T @ y / s2)
    ch06.check_map(s2 / sb2, mean)
    assert "Correct:" in capsys.readouterr().out
    _fails(lambda: ch06.check_map(sb2 / s2, mean), "inverted")
    _fails(lambda: ch06.check_map(np.sqrt(s2 / sb2), mean), "standard deviations")
    _fails(lambda: ch06.check_map(1.0, mean), "ratio")
    wrong = Phi.T @ np.linalg.solve(Phi @ Phi.T + sb2 / s2 * np.eye(len(y)), y)
    _fails(lambda: ch06.check_map(s2 / sb2, wrong), "posterior mean")
    _fails(lambda: ch06.check_map(None, mean), "is None")


def test_poisson_accepts_scipy_optimum_and_rejects_mistakes(capsys):
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
    alpha = (y - np.exp(Z @ res.x)) / (2 * lam)
    ch06.check_poisson(alpha)
    assert "Correct:" in capsys.readouterr().out
    _fails(lambda: ch06.check_poisson(np.zeros(len(y))), "not a minimiser")
    _fails(lambda: ch06.check_poisson(alpha * 1.1), "not a minimiser")
    _fails(lambda: ch06.check_poisson(None), "is None")


def test_linear_spline_accepts_spline_kernel_ridge_and_rejects_mistakes(capsys):
    """Reference: a dense solve of the bordered system with min(x, x') and a constant."""
    x, y = ch06.spline_data()

    def bordered_fit(lam):
        K, n = np.minimum.outer(x, x), len(y)
        A = np.block([[K + lam * np.eye(n), np.ones((n, 1))], [np.ones((1, n)), np.zeros((1, 1))]])
        sol = np.linalg.solve(A, np.r_[y, 0.0])
        return K @ sol[:n] + sol[n]

    fitted = bordered_fit(ch06.SPLINE_LAM)
    ch06.check_linear_spline(fitted)
    assert "Correct:" in capsys.readouterr().out
    K = np.minimum.outer(x, x)
    no_const = K @ np.linalg.solve(K + ch06.SPLINE_LAM * np.eye(len(y)), y)
    _fails(lambda: ch06.check_linear_spline(no_const), "unpenalised constant")
    _fails(lambda: ch06.check_linear_spline(fitted + 0.05), "sum to zero")
    other = bordered_fit(10 * ch06.SPLINE_LAM)
    _fails(lambda: ch06.check_linear_spline(other), "lam")
    _fails(lambda: ch06.check_linear_spline(None), "is None")


def test_notebook_checks_pass_with_solutions_and_fail_with_none_stubs(capsys):
    """Solution notebook: all checks print Correct. Student stubs (None): every check fails."""
    cells = notebook.code_cells(NOTEBOOK)
    checks = notebook.check_sources(cells)
    assert len(checks) >= 5
    notebook.run_with_solutions(cells)
    assert capsys.readouterr().out.count("Correct:") == len(checks)
    notebook.assert_checks_fail_with_none_stubs(cells)
