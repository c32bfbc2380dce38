"""Tests for the chapter-1 exercise checkers (kmlib.book.exercises.ch01).

Each checker must accept the right answer (computed here by an independent
route: an SVD, scikit-learn, bisection), reject a plausible wrong answer and
reject ``None``.  The last test runs the exercise notebook with every solution
cell replaced by ``None`` stubs and requires every check cell to fail.
"""
from __future__ import annotations

from pathlib import Path

import _exercise_cells as notebook
import numpy as np
import pytest
from sklearn.linear_model import Ridge

from kmlib import datasets, ridge
from kmlib.book.exercises import ch01

pytestmark = pytest.mark.filterwarnings("error")

NOTEBOOK = Path(__file__).resolve().parents[1] / "exercises" / "01_ridge.md"


# --------------------------------------------------------------------------- #
# shrinkage factors and effective degrees of freedom
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def Z():
    return ridge.standardize(datasets.diabetes()[0])[0]


def test_check_shrinkage_accepts_svd_answer(Z, capsys):
    """Reference: singular values from np.linalg.svd (the checker uses eigh)."""
    d = np.linalg.svd(Z, compute_uv=False)
    ch01.check_shrinkage(d**2 / (d**2 + 50.0), Z, 50.0)
    assert capsys.readouterr().out.startswith("Correct:")


def test_check_shrinkage_accepts_wide_design():
    """Reference: SVD of a p > n design (m = n factors)."""
    X = np.random.default_rng(0).standard_normal((5, 12))
    d = np.linalg.svd(X, compute_uv=False)
    ch01.check_shrinkage(d**2 / (d**2 + 2.0), X, 2.0)


@pytest.mark.parametrize("mistake,match", [
    (lambda d: d / (d + 50.0), "squared singular values"),
    (lambda d: (d**2 / (d**2 + 50.0))[::-1], "increasing order"),
    (lambda d: d**2 / (d**2 + 5.0), "shrink"),
    (lambda d: None, "is None"),
    (lambda d: (d**2 / (d**2 + 50.0))[:5], "shape"),
    (lambda d: "0.5", "shape"),
])
def test_check_shrinkage_rejects_mistakes(Z, mistake, match):
    """Typical mistakes: unsquared d, wrong order, wrong lambda, None, wrong shape/type."""
    d = np.linalg.svd(Z, compute_uv=False)
    with pytest.raises(AssertionError, match=match):
        ch01.check_shrinkage(mistake(d), Z, 50.0)


def test_check_effective_df(Z, capsys):
    """Reference: sum of SVD shrinkage factors; rejects the rank, a wrong lambda and None."""
    d = np.linalg.svd(Z, compute_uv=False)
    ch01.check_effective_df(float(np.sum(d**2 / (d**2 + 50.0))), Z, 50.0)
    assert "Correct:" in capsys.readouterr().out
    with pytest.raises(AssertionError, match="rank"):
        ch01.check_effective_df(10.0, Z, 50.0)
    with pytest.raises(AssertionError, match="tr"):
        ch01.check_effective_df(float(np.sum(d**2 / (d**2 + 5.0))), Z, 50.0)
    with pytest.raises(AssertionError, match="is None"):
        ch01.check_effective_df(None, Z, 50.0)
    with pytest.raises(AssertionError, match="single number"):
        ch01.check_effective_df(np.ones(2), Z, 50.0)


# --------------------------------------------------------------------------- #
# intercept and dual route
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def shifted():
    X, y, _ = datasets.linear_model(25, 40, random_state=3)
    return X + 5.0, y


def test_check_intercept_accepts_sklearn(shifted, capsys):
    """Reference: sklearn Ridge(alpha=3, fit_intercept=True) on the raw columns."""
    X, y = shifted
    sk = Ridge(alpha=3.0, solver="svd").fit(X, y)
    ch01.check_intercept(sk.intercept_, sk.coef_, X, y, 3.0)
    assert capsys.readouterr().out.startswith("Correct:")


def test_check_intercept_rejects_mistakes(shifted):
    """Mistakes: mean(y) as intercept, no centring, penalised intercept, None."""
    X, y = shifted
    sk = Ridge(alpha=3.0, solver="svd").fit(X, y)
    with pytest.raises(AssertionError, match="mean\\(y\\) - mean\\(X\\) @ coef"):
        ch01.check_intercept(y.mean(), sk.coef_, X, y, 3.0)
    raw = np.linalg.solve(X.T @ X + 3.0 * np.eye(40), X.T @ y)       # forgot to centre
    with pytest.raises(AssertionError, match="centre the columns"):
        ch01.check_intercept(sk.intercept_, raw, X, y, 3.0)
    X1 = np.column_stack([np.ones(25), X])                          # penalised intercept
    pen = np.linalg.solve(X1.T @ X1 + 3.0 * np.eye(41), X1.T @ y)
    with pytest.raises(AssertionError, match="coef differs"):
        ch01.check_intercept(pen[0], pen[1:], X, y, 3.0)
    with pytest.raises(AssertionError, match="is None"):
        ch01.check_intercept(None, sk.coef_, X, y, 3.0)
    with pytest.raises(AssertionError, match="is None"):
        ch01.check_intercept(sk.intercept_, None, X, y, 3.0)


def test_check_dual(shifted, capsys):
    """Reference: kmlib's dual Cholesky route; rejects the un-pushed-through X^T y / lam
    and None."""
    X, y = shifted
    Xc, yc = X - X.mean(axis=0), y - y.mean()
    ch01.check_dual(ridge.ridge(Xc, yc, 3.0, method="dual"), Xc, yc, 3.0)
    assert capsys.readouterr().out.startswith("Correct:")
    with pytest.raises(AssertionError, match="dual route"):
        ch01.check_dual(Xc.T @ yc / 3.0, Xc, yc, 3.0)
    with pytest.raises(AssertionError, match="is None"):
        ch01.check_dual(None, Xc, yc, 3.0)
    with pytest.raises(AssertionError, match="shape"):
        ch01.check_dual(np.ones(25), Xc, yc, 3.0)


# --------------------------------------------------------------------------- #
# lambda star
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def study():
    X, _, beta0 = datasets.linear_model(20, 4, random_state=21)
    return 0.3 * X, beta0


def _bisect(X, beta0, sigma2):
    """Independent reference: bisection on the smallest eigenvalue of a dense-solve difference."""
    G = X.T @ X
    p = G.shape[0]

    def min_eig(lam):
        A = np.linalg.solve(G + lam * np.eye(p), np.eye(p))
        mse_r = sigma2 * A @ G @ A + lam**2 * A @ np.outer(beta0, beta0) @ A
        return np.linalg.eigvalsh(sigma2 * np.linalg.solve(G, np.eye(p)) - mse_r).min()

    lo, hi = 1e-6, 1.0
    while min_eig(hi) > 0:
        hi *= 2
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if min_eig(mid) > 0 else (lo, mid)
    return 0.5 * (lo + hi)


def test_check_lambda_star_accepts_bisection(study, capsys):
    """Reference: bisection with dense solves (the checker solves a secular equation)."""
    X, beta0 = study
    lam = _bisect(X, beta0, 1.0)
    thr = 2.0 / (beta0 @ beta0)
    ch01.check_lambda_star(lam, lam / thr, X, beta0, 1.0)
    out = capsys.readouterr().out
    assert out.startswith("Correct:")
    assert lam > thr  # the theorem's threshold is sufficient, so lambda* lies above it


def test_check_lambda_star_rejects_mistakes(study):
    """Mistakes: the sufficient threshold itself, a coarse bisection, a wrong ratio, None."""
    X, beta0 = study
    lam = _bisect(X, beta0, 1.0)
    thr = 2.0 / (beta0 @ beta0)
    with pytest.raises(AssertionError, match="sufficient threshold"):
        ch01.check_lambda_star(thr, 1.0, X, beta0, 1.0)
    with pytest.raises(AssertionError, match="too large"):
        ch01.check_lambda_star(lam * 1.001, lam / thr, X, beta0, 1.0)
    with pytest.raises(AssertionError, match="ratio"):
        ch01.check_lambda_star(lam, thr / lam, X, beta0, 1.0)
    with pytest.raises(AssertionError, match="is None"):
        ch01.check_lambda_star(None, None, X, beta0, 1.0)


def test_lambda_star_infinite_when_signal_is_weak():
    """Closed form: if ||X beta0||^2 <= sigma2 ridge wins for every lambda (no crossing)."""
    X = np.eye(3)
    beta0 = np.array([0.3, 0.2, 0.1])
    assert ch01.lambda_star_exact(X, beta0, 1.0) == np.inf


# --------------------------------------------------------------------------- #
# Gauss-Markov for weighted least squares
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def wls():
    X, _, _ = datasets.linear_model(25, 3, random_state=40)
    return X, 1.0 + X[:, 0] ** 2


def _wls_gap_direct(X, w):
    """Reference: Var(A_W Y) - Var(OLS) formed directly, A_W from a dense solve with diag(w)."""
    A = np.linalg.solve(X.T @ np.diag(w) @ X, X.T @ np.diag(w))
    return A @ A.T - np.linalg.inv(X.T @ X)


def test_check_wls_gap_accepts_covariance_difference(wls, capsys):
    """Reference: the difference of the two covariance matrices (the checker uses sigma2 C C^T)."""
    X, w = wls
    ch01.check_wls_gap(np.linalg.eigvalsh(_wls_gap_direct(X, w)), X, w, 1.0)
    assert capsys.readouterr().out.startswith("Correct:")


def test_gauss_markov_gap_is_positive_semidefinite_here(wls):
    """Theorem check on the exercise's data: the reference eigenvalues are >= 0 (here > 0)."""
    X, w = wls
    assert np.linalg.eigvalsh(_wls_gap_direct(X, w)).min() > 0


def test_check_wls_gap_diagnoses_mistakes(wls):
    X, w = wls
    ev = np.linalg.eigvalsh(_wls_gap_direct(X, w))
    with pytest.raises(AssertionError, match="ascending"):
        ch01.check_wls_gap(ev[::-1], X, w, 1.0)
    with pytest.raises(AssertionError, match="other way round"):
        ch01.check_wls_gap(-ev[::-1], X, w, 1.0)
    inv = _wls_gap_direct(X, 1.0 / w)
    with pytest.raises(AssertionError, match="1/w"):
        ch01.check_wls_gap(np.linalg.eigvalsh(inv), X, w, 1.0)
    with pytest.raises(AssertionError, match="is None"):
        ch01.check_wls_gap(None, X, w, 1.0)


def test_check_worst_direction(wls, capsys):
    """Reference: top eigenvector of the covariance difference, either sign."""
    X, w = wls
    vecs = np.linalg.eigh(_wls_gap_direct(X, w))[1]
    ch01.check_worst_direction(-vecs[:, -1], X, w, 1.0)
    assert capsys.readouterr().out.startswith("Correct:")
    with pytest.raises(AssertionError, match="least inflation"):
        ch01.check_worst_direction(vecs[:, 0], X, w, 1.0)
    with pytest.raises(AssertionError, match="unit vector"):
        ch01.check_worst_direction(2 * vecs[:, -1], X, w, 1.0)


# --------------------------------------------------------------------------- #
# the notebook: solutions pass, None stubs fail every check
# --------------------------------------------------------------------------- #
def test_notebook_checks_pass_with_solutions_and_fail_with_none_stubs(capsys):
    """Solution notebook: all checks print Correct. Student stubs (None): every check fails."""
    cells = notebook.code_cells(NOTEBOOK)
    checks = notebook.check_sources(cells)
    assert len(checks) >= 3
    notebook.run_with_solutions(cells)
    assert capsys.readouterr().out.count("Correct:") == 7
    notebook.assert_checks_fail_with_none_stubs(cells)
