"""Tests for the chapter-2 exercise checkers (kmlib.book.exercises.ch02).

Each checker must accept the right answer, reject a plausible wrong answer and
reject ``None``. The right answer is computed here by an independent route:
scikit-learn's ``cross_val_predict`` with ``StandardScaler`` + ``Ridge``,
``scipy.optimize.lsq_linear`` for NNLS, and brute-force leave-one-out refits.
The last test runs the exercise notebook in-process, once with the solutions
and once with every solution cell replaced by ``None`` stubs. Every check must
pass the first time and fail the second.
"""
from __future__ import annotations

from pathlib import Path

import _exercise_cells as notebook
import numpy as np
import pytest
import scipy.optimize
from sklearn.linear_model import Ridge
from sklearn.model_selection import LeaveOneOut, cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from kmlib import datasets
from kmlib import model_selection as ms
from kmlib.book.exercises import ch02

pytestmark = pytest.mark.filterwarnings("error")

NOTEBOOK = Path(__file__).resolve().parents[1] / "exercises" / "02_cross_validation.md"


# --------------------------------------------------------------------------- #
# kappa, CV curve, lam_hat
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def cvdata():
    X, y, _ = datasets.linear_model(40, 8, random_state=2)
    lams = np.logspace(-2, 3, 8)
    kappa = np.random.default_rng(1).permutation(np.arange(40) % 4)
    pairs = [(np.flatnonzero(kappa != k), np.flatnonzero(kappa == k)) for k in range(4)]
    curve = np.array([
        np.mean((y - cross_val_predict(make_pipeline(StandardScaler(), Ridge(alpha=lam)),
                                       X, y, cv=pairs)) ** 2) for lam in lams])
    return X, y, lams, kappa, curve


def test_check_kappa_accepts_valid_and_rejects_mistakes(capsys):
    """Reference: the definition (labels 0..v-1, sizes differing by at most one)."""
    ch02.check_kappa(np.random.default_rng(0).permutation(np.arange(23) % 5), 23, 5)
    assert capsys.readouterr().out.startswith("Correct:")
    with pytest.raises(AssertionError, match="0..4"):
        ch02.check_kappa(np.arange(23) // 5 + 1, 23, 5)       # labels 1..5
    with pytest.raises(AssertionError, match="differ by at most one"):
        ch02.check_kappa(np.r_[np.zeros(15, int), np.arange(8) % 4 + 1], 23, 5)
    with pytest.raises(AssertionError, match="empty"):
        ch02.check_kappa(np.arange(23) % 4, 23, 5)
    with pytest.raises(AssertionError, match="is None"):
        ch02.check_kappa(None, 23, 5)
    with pytest.raises(AssertionError, match="shape"):
        ch02.check_kappa(np.arange(20) % 5, 23, 5)
    with pytest.raises(AssertionError, match="integer"):
        ch02.check_kappa(np.arange(23) % 5 + 0.5, 23, 5)


def test_check_cv_curve_accepts_sklearn_answer(cvdata, capsys):
    """Reference: sklearn cross_val_predict with Pipeline(StandardScaler, Ridge), same folds."""
    X, y, lams, kappa, curve = cvdata
    ch02.check_cv_curve(curve, kappa, X, y, lams, 4)
    assert capsys.readouterr().out.startswith("Correct:")


def test_check_cv_curve_rejects_mistakes(cvdata):
    """Typical mistakes: sum instead of mean, standardising with all the data, training error."""
    X, y, lams, kappa, curve = cvdata
    pairs = [(np.flatnonzero(kappa != k), np.flatnonzero(kappa == k)) for k in range(4)]
    with pytest.raises(AssertionError, match="MEAN"):
        ch02.check_cv_curve(curve * len(y), kappa, X, y, lams, 4)
    Z = StandardScaler().fit_transform(X)   # leak: scaled with all 40 rows
    leak = np.array([np.mean((y - cross_val_predict(Ridge(alpha=lam), Z, y, cv=pairs)) ** 2)
                     for lam in lams])
    with pytest.raises(AssertionError, match="ALL the data"):
        ch02.check_cv_curve(leak, kappa, X, y, lams, 4)
    train = np.array([np.mean((y - make_pipeline(StandardScaler(), Ridge(alpha=lam))
                               .fit(X, y).predict(X)) ** 2) for lam in lams])
    with pytest.raises(AssertionError, match="training error"):
        ch02.check_cv_curve(train, kappa, X, y, lams, 4)
    with pytest.raises(AssertionError, match="cv_curve"):
        ch02.check_cv_curve(curve * 1.01, kappa, X, y, lams, 4)
    with pytest.raises(AssertionError, match="is None"):
        ch02.check_cv_curve(None, kappa, X, y, lams, 4)
    with pytest.raises(AssertionError, match="kappa"):
        ch02.check_cv_curve(curve, None, X, y, lams, 4)
    with pytest.raises(AssertionError, match="kappa"):
        ch02.check_cv_curve(curve, kappa + 1, X, y, lams, 4)


def test_check_lam_hat(cvdata, capsys):
    """Reference: argmin of the (sklearn) curve; the argmax and None are rejected."""
    _, _, lams, _, curve = cvdata
    ch02.check_lam_hat(lams[np.argmin(curve)], curve, lams)
    assert capsys.readouterr().out.startswith("Correct:")
    with pytest.raises(AssertionError, match="maximiser"):
        ch02.check_lam_hat(lams[np.argmax(curve)], curve, lams)
    with pytest.raises(AssertionError, match="is None"):
        ch02.check_lam_hat(None, curve, lams)
    with pytest.raises(AssertionError, match="lam_loo"):
        ch02.check_lam_hat(True, curve, lams, name="lam_loo")


# --------------------------------------------------------------------------- #
# stacking
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def stackdata():
    rng = np.random.default_rng(3)
    base = rng.standard_normal((60, 1))
    P = base + 0.3 * rng.standard_normal((60, 6))   # correlated columns, like ridge predictions
    y = base[:, 0] + 0.5 * rng.standard_normal(60)
    return P, y


def test_check_stack_weights_accepts_lsq_linear(stackdata, capsys):
    """Reference: scipy.optimize.lsq_linear with bounds (0, inf), a second NNLS algorithm."""
    P, y = stackdata
    w = scipy.optimize.lsq_linear(P, y, bounds=(0, np.inf), tol=1e-14, lsmr_tol="auto").x
    w[w < 1e-12] = 0.0
    ch02.check_stack_weights(w, P, y)
    assert capsys.readouterr().out.startswith("Correct:")


def test_check_stack_weights_rejects_mistakes(stackdata):
    """Typical mistakes: unconstrained least squares, weights forced to sum to one, None."""
    P, y = stackdata
    ls = np.linalg.lstsq(P, y, rcond=None)[0]
    with pytest.raises(AssertionError, match="non-negative"):
        ch02.check_stack_weights(ls, P, y)
    w = scipy.optimize.nnls(P, y)[0]
    with pytest.raises(AssertionError, match="not optimal"):
        ch02.check_stack_weights(w / w.sum() * 0.5, P, y)
    with pytest.raises(AssertionError, match="not optimal"):
        ch02.check_stack_weights(np.full(6, 1 / 6), P, y)
    with pytest.raises(AssertionError, match="is None"):
        ch02.check_stack_weights(None, P, y)


def test_check_stacked_prediction():
    """Reference: sklearn Pipeline(StandardScaler, Ridge) refitted on all the data."""
    X, y, _ = datasets.linear_model(50, 10, random_state=4)
    Xt = np.random.default_rng(5).standard_normal((7, 10))
    lams = np.array([0.1, 10.0, 1000.0])
    w = np.array([0.6, 0.0, 0.5])
    preds = np.column_stack([make_pipeline(StandardScaler(), Ridge(alpha=lam)).fit(X, y)
                             .predict(Xt) for lam in lams])
    ch02.check_stacked_prediction(preds @ w, w, X, y, Xt, lams)
    wrong = np.column_stack([make_pipeline(StandardScaler(), Ridge(alpha=lam)).fit(X[:40], y[:40])
                             .predict(Xt) for lam in lams]) @ w     # a fold fit, not a refit
    with pytest.raises(AssertionError, match="ALL the"):
        ch02.check_stacked_prediction(wrong, w, X, y, Xt, lams)
    with pytest.raises(AssertionError, match="is None"):
        ch02.check_stacked_prediction(None, w, X, y, Xt, lams)


# --------------------------------------------------------------------------- #
# GCV versus LOO
# --------------------------------------------------------------------------- #
def test_check_loo_gcv_accepts_brute_force_loo(capsys):
    """Reference: sklearn LeaveOneOut refits for LOO; GCV from the trace of sklearn's hat matrix."""
    X, y, _ = datasets.linear_model(30, 5, random_state=6)
    lams = np.array([0.1, 3.0, 100.0])
    n = len(y)
    loo = np.array([np.mean((y - cross_val_predict(Ridge(alpha=lam), X, y, cv=LeaveOneOut())) ** 2)
                    for lam in lams])
    gcv = np.empty(3)
    for j, lam in enumerate(lams):   # column i of H: fitted values for the response e_i
        H = np.column_stack([Ridge(alpha=lam).fit(X, e).predict(X) for e in np.eye(n)])
        gcv[j] = np.mean((y - H @ y) ** 2) / (1 - np.trace(H) / n) ** 2
    ch02.check_loo_gcv(loo, gcv, X, y, lams)
    assert capsys.readouterr().out.startswith("Correct:")
    with pytest.raises(AssertionError, match="gcv"):
        ch02.check_loo_gcv(loo, gcv * (1 - 0.05), X, y, lams)
    with pytest.raises(AssertionError, match="loo"):
        ch02.check_loo_gcv(gcv, gcv, X, y, lams)
    with pytest.raises(AssertionError, match="is None"):
        ch02.check_loo_gcv(None, gcv, X, y, lams)
    with pytest.raises(AssertionError, match="is None"):
        ch02.check_loo_gcv(loo, None, X, y, lams)


def test_check_loo_gcv_names_the_missing_intercept_leverage():
    """Typical mistake: leverages without the intercept's 1/n (closed form of that mistake)."""
    X, y, _ = datasets.linear_model(30, 5, random_state=7)
    Xc, yc = X - X.mean(0), y - y.mean()
    lams = np.array([1.0, 10.0])
    bad, gcv = np.empty(2), np.empty(2)
    for j, lam in enumerate(lams):
        Hc = Xc @ np.linalg.solve(Xc.T @ Xc + lam * np.eye(5), Xc.T)
        r = yc - Hc @ yc
        bad[j] = np.mean((r / (1 - np.diag(Hc))) ** 2)
        gcv[j] = np.mean(r ** 2) / (1 - (1 + np.trace(Hc)) / 30) ** 2
    with pytest.raises(AssertionError, match="1/n"):
        ch02.check_loo_gcv(bad, gcv, X, y, lams)


# --------------------------------------------------------------------------- #
# the notebook: solutions pass, None stubs fail every check

# --------------------------------------------------------------------------- #
# leakage through screening
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def noise():
    rng = np.random.default_rng(50)
    return rng.standard_normal((40, 400)), rng.standard_normal(40)


def _screened(X, y, inside, n_keep=10, lam=1.0):
    """Reference: kmlib's RidgeRegression with the centred inner-product score (the checker uses
    scikit-learn's Ridge and np.corrcoef), on the folds of KFold(5, random_state=0)."""
    from kmlib.ridge import RidgeRegression

    def top(rows):
        Xc, yc = X[rows] - X[rows].mean(axis=0), y[rows] - y[rows].mean()
        return np.argsort(np.abs(Xc.T @ yc) / np.linalg.norm(Xc, axis=0))[-n_keep:]

    keep_all, sq = top(np.arange(len(y))), np.empty(len(y))
    for tr, te in ms.KFold(5, random_state=0).split(len(y)):
        cols = top(tr) if inside else keep_all
        fit = RidgeRegression(lam=lam).fit(X[np.ix_(tr, cols)], y[tr])
        sq[te] = (y[te] - fit.predict(X[np.ix_(te, cols)])) ** 2
    return float(sq.mean())


def test_check_screened_cv_accepts_and_diagnoses(noise, capsys):
    X, y = noise
    w, r = _screened(X, y, False), _screened(X, y, True)
    ch02.check_screened_cv(w, r, X, y, 10, 1.0)
    assert capsys.readouterr().out.startswith("Correct:")
    with pytest.raises(AssertionError, match="swapped"):
        ch02.check_screened_cv(r, w, X, y, 10, 1.0)
    with pytest.raises(AssertionError, match="cv_wrong"):
        ch02.check_screened_cv(w * 1.1, r, X, y, 10, 1.0)
    with pytest.raises(AssertionError, match="cv_right"):
        ch02.check_screened_cv(w, r * 0.9, X, y, 10, 1.0)
    with pytest.raises(AssertionError, match="is None"):
        ch02.check_screened_cv(None, r, X, y, 10, 1.0)


def test_wrong_screening_falls_below_the_error_floor(noise):
    """Theorem of the exercise: every predictor has error >= Var Y* = 1 on pure noise; the wrong
    pipeline reports less, the right one does not."""
    X, y = noise
    assert _screened(X, y, False) < 0.8 < _screened(X, y, True)

# --------------------------------------------------------------------------- #
def test_notebook_checks_pass_with_solutions_and_fail_with_none_stubs(capsys):
    """Solution notebook: every check prints Correct. Student stubs (None): every check fails."""
    cells = notebook.code_cells(NOTEBOOK)
    checks = notebook.check_sources(cells)
    assert len(checks) >= 3
    notebook.run_with_solutions(cells)
    n_checks = sum(src.count("ch02.check_") for src in checks)
    assert capsys.readouterr().out.count("Correct:") == n_checks
    notebook.assert_checks_fail_with_none_stubs(cells)
