"""Tests for the chapter-1 checks: the self-checks that ship (kmlib.book.exercises.ch01) and
the lecturer's full checks (scripts/_grading/reference/ch01.py).

Both must accept the right answer (computed here by an independent route: an SVD,
scikit-learn, bisection). The full check must reject each typical wrong answer with its
hint; the self-check must reject those that its properties can tell (a wrong order, an
unsquared singular value, a residual that does not vanish, a hash that does not match) and
let through, with a message that it passed only the self-check, what only the full check
can tell. Both reject ``None``. The notebook test runs the sheet with every solution (self-
checks, then full checks in their place as the grader does) and with ``None`` stubs.
"""
from __future__ import annotations

from pathlib import Path

import _exercise_cells as notebook
import numpy as np
import pytest
from _exercise_cells import SELF, self_and_full
from _grading.reference import ch01 as ref
from sklearn.linear_model import Ridge

from kmlib import datasets, ridge
from kmlib.book.exercises import ch01
from kmlib.book.exercises._answers import matches_digest

pytestmark = pytest.mark.filterwarnings("error")

NOTEBOOK = Path(__file__).resolve().parents[1] / "exercises" / "01_ridge.md"


_both, _rejected = self_and_full(ch01, ref)


# --------------------------------------------------------------------------- #
# shrinkage factors and effective degrees of freedom
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def Z():
    return ridge.standardize(datasets.diabetes()[0])[0]


def test_shrinkage_accepts_svd_answer(Z, capsys):
    """Reference: singular values from np.linalg.svd (the full check uses eigh)."""
    d = np.linalg.svd(Z, compute_uv=False)
    _both(capsys, lambda m: m.check_shrinkage(d**2 / (d**2 + 50.0), Z, 50.0))


def test_shrinkage_accepts_wide_design(capsys):
    """Reference: SVD of a p > n design (m = n factors)."""
    X = np.random.default_rng(0).standard_normal((5, 12))
    d = np.linalg.svd(X, compute_uv=False)
    _both(capsys, lambda m: m.check_shrinkage(d**2 / (d**2 + 2.0), X, 2.0))


@pytest.mark.parametrize("mistake,full,self_check", [
    (lambda d: d / (d + 50.0), "squared singular values", "squared singular values"),
    (lambda d: (d**2 / (d**2 + 50.0))[::-1], "increasing order", "increasing order"),
    (lambda d: d**2 / (d**2 + 5.0), "shrink", "give back d_j\\^2"),
    (lambda d: None, "is None", "is None"),
    (lambda d: (d**2 / (d**2 + 50.0))[:5], "shape", "shape"),
    (lambda d: "0.5", "shape", "shape"),
])
def test_shrinkage_rejects_mistakes(Z, mistake, full, self_check):
    """Typical mistakes: unsquared d, wrong order, wrong lambda, None, wrong shape/type."""
    d = np.linalg.svd(Z, compute_uv=False)
    _rejected(lambda m: m.check_shrinkage(mistake(d), Z, 50.0), full, self_check)


def test_effective_df(Z, capsys):
    """Reference: sum of SVD shrinkage factors; the rank, a wrong lambda and None rejected."""
    d = np.linalg.svd(Z, compute_uv=False)
    right = float(np.sum(d**2 / (d**2 + 50.0)))
    _both(capsys, lambda m: m.check_effective_df(right, Z, 50.0))
    _rejected(lambda m: m.check_effective_df(10.0, Z, 50.0), "rank", "rank")
    wrong_lam = float(np.sum(d**2 / (d**2 + 5.0)))
    _rejected(lambda m: m.check_effective_df(wrong_lam, Z, 50.0), "tr", "tr\\(H_lam\\)")
    _rejected(lambda m: m.check_effective_df(None, Z, 50.0), "is None", "is None")
    _rejected(lambda m: m.check_effective_df(np.ones(2), Z, 50.0), "single number",
              "single number")


def test_effective_df_right_to_six_digits_passes_only_the_self_check(Z, capsys):
    """Off by 3e-7 (relative): the hash of six digits accepts it, the full check does not."""
    d = np.linalg.svd(Z, compute_uv=False)
    near = float(np.sum(d**2 / (d**2 + 50.0))) * (1 + 3e-7)
    _rejected(lambda m: m.check_effective_df(near, Z, 50.0), "tr\\(H_lam\\)", None)
    assert capsys.readouterr().out.startswith(SELF)


# --------------------------------------------------------------------------- #
# intercept and dual route
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def shifted():
    X, y, _ = datasets.linear_model(25, 40, random_state=3)
    return X + 5.0, y


def test_intercept_accepts_sklearn(shifted, capsys):
    """Reference: sklearn Ridge(alpha=3, fit_intercept=True) on the raw columns."""
    X, y = shifted
    sk = Ridge(alpha=3.0, solver="svd").fit(X, y)
    _both(capsys, lambda m: m.check_intercept(sk.intercept_, sk.coef_, X, y, 3.0))


def test_intercept_rejects_mistakes(shifted):
    """Mistakes: mean(y) as intercept, no centring, penalised intercept, None."""
    X, y = shifted
    sk = Ridge(alpha=3.0, solver="svd").fit(X, y)
    hint = "mean\\(y\\) - mean\\(X\\) @ coef"
    _rejected(lambda m: m.check_intercept(y.mean(), sk.coef_, X, y, 3.0), hint, hint)
    raw = np.linalg.solve(X.T @ X + 3.0 * np.eye(40), X.T @ y)       # forgot to centre
    _rejected(lambda m: m.check_intercept(sk.intercept_, raw, X, y, 3.0), "centre the columns",
              "centre the columns")
    X1 = np.column_stack([np.ones(25), X])                          # penalised intercept
    pen = np.linalg.solve(X1.T @ X1 + 3.0 * np.eye(41), X1.T @ y)
    _rejected(lambda m: m.check_intercept(pen[0], pen[1:], X, y, 3.0), "coef differs",
              "does not penalise|do not penalise")
    _rejected(lambda m: m.check_intercept(None, sk.coef_, X, y, 3.0), "is None", "is None")
    _rejected(lambda m: m.check_intercept(sk.intercept_, None, X, y, 3.0), "is None", "is None")


def test_dual(shifted, capsys):
    """Reference: kmlib's dual Cholesky route; the un-pushed-through X^T y / lam and None are
    rejected."""
    X, y = shifted
    Xc, yc = X - X.mean(axis=0), y - y.mean()
    _both(capsys, lambda m: m.check_dual(ridge.ridge(Xc, yc, 3.0, method="dual"), Xc, yc, 3.0))
    _rejected(lambda m: m.check_dual(Xc.T @ yc / 3.0, Xc, yc, 3.0), "dual route", "dual route")
    _rejected(lambda m: m.check_dual(None, Xc, yc, 3.0), "is None", "is None")
    _rejected(lambda m: m.check_dual(np.ones(25), Xc, yc, 3.0), "shape", "shape")


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


def test_lambda_star_accepts_bisection(study, capsys):
    """Reference: bisection with dense solves (the full check solves a secular equation)."""
    X, beta0 = study
    lam = _bisect(X, beta0, 1.0)
    thr = 2.0 / (beta0 @ beta0)
    _both(capsys, lambda m: m.check_lambda_star(lam, lam / thr, X, beta0, 1.0))
    assert lam > thr  # the theorem's threshold is sufficient, so lambda* lies above it


def test_lambda_star_rejects_mistakes(study):
    """Mistakes: the sufficient threshold itself, a coarse bisection, a wrong ratio, None."""
    X, beta0 = study
    lam = _bisect(X, beta0, 1.0)
    thr = 2.0 / (beta0 @ beta0)
    _rejected(lambda m: m.check_lambda_star(thr, 1.0, X, beta0, 1.0), "sufficient threshold",
              "sufficient threshold")
    _rejected(lambda m: m.check_lambda_star(lam * 1.001, lam / thr, X, beta0, 1.0),
              "not the crossing", "does not change sign")
    _rejected(lambda m: m.check_lambda_star(lam * 0.999, lam / thr, X, beta0, 1.0),
              "not the crossing", "does not change sign")
    _rejected(lambda m: m.check_lambda_star(lam, thr / lam, X, beta0, 1.0), "ratio", "ratio")
    _rejected(lambda m: m.check_lambda_star(None, None, X, beta0, 1.0), "is None", "is None")


def test_lambda_star_self_check_is_not_an_oracle(study, capsys):
    """Brute force through the self-check: 20,000 log-spaced candidates from a tenth of the
    threshold to 100 times it, the ratio always consistent. None passes (the answer must be
    known to a relative 1e-7 first), and no message tells on which side the crossing lies,
    so the check cannot be bisected."""
    X, beta0 = study
    thr = 2.0 / (beta0 @ beta0)
    lam = _bisect(X, beta0, 1.0)
    cands = thr * np.logspace(-1, 2, 20_000)
    assert np.min(np.abs(cands / lam - 1)) > 1e-7          # the grid misses the answer itself
    messages = set()
    for c in cands:
        try:
            ch01.check_lambda_star(c, c / thr, X, beta0, 1.0)
            raise AssertionError(f"candidate {c} passed")
        except AssertionError as e:
            assert "passed" not in str(e)
            messages.add(str(e))
    assert len(messages) == 1                               # one neutral message for all
    message = messages.pop()
    assert "too small" not in message and "too large" not in message
    capsys.readouterr()


def test_check_coordinate_growth(capsys):
    """Accept a correlated design whose coordinate grows (growth computed here by scikit-learn's
    Ridge without intercept); reject orthogonal columns (provably monotone), a tiny
    coefficient, three columns and None."""
    rng = np.random.default_rng(1)
    z, e = rng.standard_normal(30), rng.standard_normal(30)
    X = np.column_stack([z + 0.1 * e, z - 0.1 * e])
    y = X @ np.array([0.5, 3.0])
    b = [Ridge(alpha=lam, fit_intercept=False).fit(X, y).coef_[0] for lam in (0.1, 10.0)]
    assert abs(b[1]) >= 1.2 * abs(b[0])
    _both(capsys, lambda m: m.check_coordinate_growth(X, y))
    Q = np.linalg.qr(rng.standard_normal((30, 2)))[0]
    _rejected(lambda m: m.check_coordinate_growth(Q, Q @ np.array([1.0, -2.0])), "20%", "20%")
    _rejected(lambda m: m.check_coordinate_growth(X, np.full(30, 1e-5)),
              "0.01", "0.01")
    _rejected(lambda m: m.check_coordinate_growth(np.ones((5, 3)), np.ones(5)), "shape", "shape")
    _rejected(lambda m: m.check_coordinate_growth(None, y), "is None", "is None")


def _risk_answer(X, beta0):
    """Independent route: lam_b, the bound and the risk from dense matrices
    (A = (X^T X + lam I)^-1 by solve, tr H^2 from H = X A X^T)."""
    n = X.shape[0]
    trG = np.trace(X.T @ X)
    lam = 2 * np.sqrt(trG) / np.linalg.norm(beta0)
    bound = lam * (beta0 @ beta0) / (4 * n) + trG / (n * lam)
    A = np.linalg.solve(X.T @ X + lam * np.eye(X.shape[1]), np.eye(X.shape[1]))
    H = X @ A @ X.T
    risk = (lam**2 * np.sum((X @ A @ beta0) ** 2) + np.trace(H @ H)) / n
    return lam, bound, risk


def test_check_risk_bound(capsys):
    """On a small design (n = 30, p = 60): accept the dense route; reject the squared bias
    alone, a lam_b off by 1%, a bound at the wrong lam, None. A Monte-Carlo estimate of the
    risk confirms the dense value within 4 s.e."""
    rng = np.random.default_rng(2)
    X = rng.standard_normal((30, 60)) / np.sqrt(60)
    beta0 = rng.standard_normal(60)
    lam, bound, risk = _risk_answer(X, beta0)
    Y = X @ beta0 + rng.standard_normal((4000, 30))
    B = np.linalg.solve(X.T @ X + lam * np.eye(60), X.T @ Y.T)
    loss = np.sum((X @ B - (X @ beta0)[:, None]) ** 2, axis=0) / 30
    assert abs(loss.mean() - risk) < 4 * loss.std() / np.sqrt(4000)
    assert risk < bound
    _both(capsys, lambda m: m.check_risk_bound(lam, bound, risk, X, beta0, 1.0))
    n = 30
    A = np.linalg.solve(X.T @ X + lam * np.eye(60), np.eye(60))
    bias_only = lam**2 * np.sum((X @ A @ beta0) ** 2) / n
    _rejected(lambda m: m.check_risk_bound(lam, bound, bias_only, X, beta0, 1.0), "bias only",
              "exact in-sample risk")
    _rejected(lambda m: m.check_risk_bound(1.01 * lam, bound, risk, X, beta0, 1.0), "lam_b",
              "lam_b")
    _rejected(lambda m: m.check_risk_bound(lam, 1.01 * bound, risk, X, beta0, 1.0), "bound_b",
              "bound_b")
    _rejected(lambda m: m.check_risk_bound(None, bound, risk, X, beta0, 1.0), "is None",
              "is None")


def test_lambda_star_infinite_when_signal_is_weak():
    """Closed form: if ||X beta0||^2 <= sigma2 ridge wins for every lambda (no crossing)."""
    X = np.eye(3)
    beta0 = np.array([0.3, 0.2, 0.1])
    assert ref.lambda_star_exact(X, beta0, 1.0) == np.inf


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


def test_wls_gap_accepts_covariance_difference(wls, capsys):
    """Reference: the difference of the two covariance matrices (the full check uses
    sigma2 C C^T)."""
    X, w = wls
    _both(capsys, lambda m: m.check_wls_gap(np.linalg.eigvalsh(_wls_gap_direct(X, w)), X, w, 1.0))


def test_gauss_markov_gap_is_positive_semidefinite_here(wls):
    """Theorem check on the exercise's data: the reference eigenvalues are >= 0 (here > 0)."""
    X, w = wls
    assert np.linalg.eigvalsh(_wls_gap_direct(X, w)).min() > 0


def test_wls_gap_diagnoses_mistakes(wls):
    X, w = wls
    ev = np.linalg.eigvalsh(_wls_gap_direct(X, w))
    _rejected(lambda m: m.check_wls_gap(ev[::-1], X, w, 1.0), "ascending", "ascending")
    _rejected(lambda m: m.check_wls_gap(-ev[::-1], X, w, 1.0), "other way round",
              "other way round")
    inv = np.linalg.eigvalsh(_wls_gap_direct(X, 1.0 / w))
    _rejected(lambda m: m.check_wls_gap(inv, X, w, 1.0), "1/w", "does not match")
    _rejected(lambda m: m.check_wls_gap(None, X, w, 1.0), "is None", "is None")


def test_wls_gap_of_other_data_gets_the_properties_only(capsys):
    """Not the sheet's data: no hash to compare with, the properties still hold."""
    X = np.random.default_rng(1).standard_normal((30, 2))
    w = np.exp(X[:, 1])
    ev = np.linalg.eigvalsh(_wls_gap_direct(X, w))
    _both(capsys, lambda m: m.check_wls_gap(ev, X, w, 1.0))
    _rejected(lambda m: m.check_wls_gap(ev + np.array([0.0, 0.01]), X, w, 1.0), "does not match",
              None)


def test_worst_direction(wls, capsys):
    """Reference: top eigenvector of the covariance difference, either sign."""
    X, w = wls
    vecs = np.linalg.eigh(_wls_gap_direct(X, w))[1]
    _both(capsys, lambda m: m.check_worst_direction(-vecs[:, -1], X, w, 1.0))
    _both(capsys, lambda m: m.check_worst_direction(vecs[:, -1], X, w, 1.0))
    _rejected(lambda m: m.check_worst_direction(vecs[:, 0], X, w, 1.0), "least inflation",
              "largest eigenvalue")
    _rejected(lambda m: m.check_worst_direction(2 * vecs[:, -1], X, w, 1.0), "unit vector",
              "unit vector")


# --------------------------------------------------------------------------- #
# what ships holds hashes of the answers, never the answers
# --------------------------------------------------------------------------- #
def test_the_self_checks_hashes_are_the_sheets_answers(Z, wls):
    """Each digest in ch01 recognises the answer computed here, and only it."""
    d = np.linalg.svd(Z, compute_uv=False)
    df = float(np.sum(d**2 / (d**2 + 50.0)))
    assert matches_digest(df, ch01.DIGESTS["df"], "df")
    assert not matches_digest(df * (1 + 1e-4), ch01.DIGESTS["df"], "df")
    X, w = wls
    ev, vecs = np.linalg.eigh(_wls_gap_direct(X, w))
    top = vecs[:, -1] * np.sign(vecs[np.argmax(np.abs(vecs[:, -1])), -1])
    for i in range(3):
        assert matches_digest(ev[i], ch01.DIGESTS[f"gap_eigs[{i}]"], f"gap_eigs[{i}]")
        assert matches_digest(top[i], ch01.DIGESTS[f"a_worst[{i}]"], f"a_worst[{i}]")
    assert "lambda_star_exact" not in dir(ch01)


# --------------------------------------------------------------------------- #
# the notebook: solutions pass, None stubs fail every check
# --------------------------------------------------------------------------- #
def test_notebook_passes_self_checks_and_full_checks_and_stubs_fail(capsys, monkeypatch):
    """Solution notebook: every check passes, the self-checks and then, in their place as
    when grading, the full checks. Student stubs (None): every check fails."""
    notebook.assert_sheet_passes_self_then_full(NOTEBOOK, ch01, ref, 9, capsys, monkeypatch)


def _shown(value: float) -> list[str]:
    return [f"{value:.{k}g}" for k in (3, 4, 5, 6)] + [f"{value:.{k}f}" for k in (3, 4, 6)]


def test_full_check_messages_do_not_show_the_reference(Z, study):
    """A wrong answer's message names the mistake, never the reference value, nor which way
    the answer is off (no "too small / too large": repeated tries would find the answer)."""
    d = np.linalg.svd(Z, compute_uv=False)
    right = float(np.sum(d**2 / (d**2 + 50.0)))
    factors = d**2 / (d**2 + 50.0)
    X, beta0 = study
    lam = _bisect(X, beta0, 1.0)
    thr = 2.0 / (beta0 @ beta0)
    cases = [(lambda: ref.check_effective_df(right * 1.01, Z, 50.0), _shown(right)),
             (lambda: ref.check_shrinkage(factors * np.r_[1.01, np.ones(d.size - 1)], Z, 50.0),
              _shown(factors[0])),
             (lambda: ref.check_lambda_star(lam * 1.001, lam * 1.001 / thr, X, beta0, 1.0),
              _shown(lam) + ["too small", "too large"]),
             (lambda: ref.check_lambda_star(lam * 0.999, lam * 0.999 / thr, X, beta0, 1.0),
              _shown(lam) + ["too small", "too large"])]
    for call, hidden in cases:
        with pytest.raises(AssertionError) as e:
            call()
        assert not [h for h in hidden if h in str(e.value)], str(e.value)
