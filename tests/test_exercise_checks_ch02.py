"""Tests for the chapter-2 checks: the self-checks that ship (kmlib.book.exercises.ch02) and
the lecturer's full checks (scripts/_grading/reference/ch02.py).

Both must accept the right answer and reject ``None``. The right answer is computed here by
an independent route: scikit-learn's ``cross_val_predict`` with ``StandardScaler`` +
``Ridge``, ``scipy.optimize.lsq_linear`` for NNLS, and brute-force leave-one-out refits. The
full check must reject each typical wrong answer with its hint; the self-check those its
properties can tell (the definition of a fold assignment, KKT conditions, a curve n times
too large, the hashes of the sheet's answers), and it lets the others through. The last
test runs the exercise notebook in-process with the solutions (self-checks, then the full
checks in their place, as when grading) and with every solution cell replaced by ``None``
stubs.
"""
from __future__ import annotations

from pathlib import Path

import _exercise_cells as notebook
import numpy as np
import pytest
import scipy.optimize
from _exercise_cells import SELF, self_and_full
from _grading.reference import ch02 as ref
from sklearn.linear_model import Ridge
from sklearn.model_selection import LeaveOneOut, cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from kmlib import datasets
from kmlib import model_selection as ms
from kmlib.book.exercises import ch02
from kmlib.book.exercises._answers import matches_digest

pytestmark = pytest.mark.filterwarnings("error")

NOTEBOOK = Path(__file__).resolve().parents[1] / "exercises" / "02_cross_validation.md"


_both, _rejected = self_and_full(ch02, ref)


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
    """Reference: the definition (labels 0..v-1, sizes differing by at most one); here the
    self-check is the definition too."""
    good = np.random.default_rng(0).permutation(np.arange(23) % 5)
    _both(capsys, lambda m: m.check_kappa(good, 23, 5))
    for bad, match in [(np.arange(23) // 5 + 1, "0..4"),                          # labels 1..5
                       (np.r_[np.zeros(15, int), np.arange(8) % 4 + 1], "differ by at most one"),
                       (np.arange(23) % 4, "empty"), (None, "is None"),
                       (np.arange(20) % 5, "shape"), (np.arange(23) % 5 + 0.5, "integer")]:
        _rejected(lambda m, bad=bad: m.check_kappa(bad, 23, 5), match, match)


def test_check_cv_curve_accepts_sklearn_answer(cvdata, capsys):
    """Reference: sklearn cross_val_predict with Pipeline(StandardScaler, Ridge), same folds."""
    X, y, lams, kappa, curve = cvdata
    _both(capsys, lambda m: m.check_cv_curve(curve, kappa, X, y, lams, 4))


def test_check_cv_curve_rejects_mistakes(cvdata):
    """Typical mistakes: sum instead of mean, standardising with all the data, training error,
    a reversed curve, a constant curve. The self-check evaluates the definition on the
    student's own folds, so it rejects each of them, without printing a value."""
    X, y, lams, kappa, curve = cvdata
    pairs = [(np.flatnonzero(kappa != k), np.flatnonzero(kappa == k)) for k in range(4)]
    _rejected(lambda m: m.check_cv_curve(curve * len(y), kappa, X, y, lams, 4), "MEAN", "MEAN")
    Z = StandardScaler().fit_transform(X)   # leak: scaled with all 40 rows
    leak = np.array([np.mean((y - cross_val_predict(Ridge(alpha=lam), Z, y, cv=pairs)) ** 2)
                     for lam in lams])
    _rejected(lambda m: m.check_cv_curve(leak, kappa, X, y, lams, 4), "ALL the data",
              "ALL the data")
    train = np.array([np.mean((y - make_pipeline(StandardScaler(), Ridge(alpha=lam))
                               .fit(X, y).predict(X)) ** 2) for lam in lams])
    _rejected(lambda m: m.check_cv_curve(train, kappa, X, y, lams, 4), "training error",
              "training error")
    _rejected(lambda m: m.check_cv_curve(curve * 1.01, kappa, X, y, lams, 4), "cv_curve",
              "cv_curve")
    _rejected(lambda m: m.check_cv_curve(curve[::-1], kappa, X, y, lams, 4), "reverse",
              "reverse")
    _rejected(lambda m: m.check_cv_curve(np.ones(lams.size), kappa, X, y, lams, 4), "cv_curve",
              "cv_curve")
    _rejected(lambda m: m.check_cv_curve(-curve, kappa, X, y, lams, 4), "cv_curve", "positive")
    _rejected(lambda m: m.check_cv_curve(None, kappa, X, y, lams, 4), "is None", "is None")
    _rejected(lambda m: m.check_cv_curve(curve, None, X, y, lams, 4), "kappa", "kappa")
    _rejected(lambda m: m.check_cv_curve(curve, kappa + 1, X, y, lams, 4), "kappa", "kappa")


def test_check_lam_hat(cvdata, capsys):
    """Reference: argmin of the (sklearn) curve; the argmax and None are rejected."""
    _, _, lams, _, curve = cvdata
    _both(capsys, lambda m: m.check_lam_hat(lams[np.argmin(curve)], curve, lams))
    _rejected(lambda m: m.check_lam_hat(lams[np.argmax(curve)], curve, lams), "maximiser",
              "maximiser")
    _rejected(lambda m: m.check_lam_hat(None, curve, lams), "is None", "is None")
    _rejected(lambda m: m.check_lam_hat(True, curve, lams, name="lam_loo"), "lam_loo", "lam_loo")
    _rejected(lambda m: m.check_lam_hat(0.5, curve, lams), "smallest at", "not a value")


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
    _both(capsys, lambda m: m.check_stack_weights(w, P, y))


def test_check_stack_weights_rejects_mistakes(stackdata):
    """Typical mistakes: unconstrained least squares, weights forced to sum to one, None."""
    P, y = stackdata
    ls = np.linalg.lstsq(P, y, rcond=None)[0]
    _rejected(lambda m: m.check_stack_weights(ls, P, y), "non-negative", "non-negative")
    w = scipy.optimize.nnls(P, y)[0]
    _rejected(lambda m: m.check_stack_weights(w / w.sum() * 0.5, P, y), "not optimal",
              "not optimal")
    _rejected(lambda m: m.check_stack_weights(np.full(6, 1 / 6), P, y), "sum to 1", "sum to 1")
    _rejected(lambda m: m.check_stack_weights(None, P, y), "is None", "is None")


def test_check_stacked_prediction(capsys):
    """Reference: sklearn Pipeline(StandardScaler, Ridge) refitted on all the data. Other data
    than the sheet's: the self-check has no hash, only the full check tells a fold fit."""
    X, y, _ = datasets.linear_model(50, 10, random_state=4)
    Xt = np.random.default_rng(5).standard_normal((7, 10))
    lams = np.array([0.1, 10.0, 1000.0])
    w = np.array([0.6, 0.0, 0.5])
    preds = np.column_stack([make_pipeline(StandardScaler(), Ridge(alpha=lam)).fit(X, y)
                             .predict(Xt) for lam in lams])
    _both(capsys, lambda m: m.check_stacked_prediction(preds @ w, w, X, y, Xt, lams))
    wrong = np.column_stack([make_pipeline(StandardScaler(), Ridge(alpha=lam)).fit(X[:40], y[:40])
                             .predict(Xt) for lam in lams]) @ w     # a fold fit, not a refit
    _rejected(lambda m: m.check_stacked_prediction(wrong, w, X, y, Xt, lams), "ALL the", None)
    _rejected(lambda m: m.check_stacked_prediction(None, w, X, y, Xt, lams), "is None", "is None")


@pytest.fixture(scope="module")
def sheet_stacking():
    """The sheet's stacking problem and its answer by scikit-learn refits."""
    X, y, _ = datasets.linear_model(120, 40, random_state=11)
    Xt = np.random.default_rng(12).standard_normal((200, 40))
    lams = np.logspace(-1, 4, 12)
    w = scipy.optimize.nnls(ms.oof_predictions(X, y, lams, folds=5), y)[0]
    preds = np.column_stack([make_pipeline(StandardScaler(), Ridge(alpha=lam)).fit(X, y)
                             .predict(Xt) for lam in lams])
    return X, y, Xt, lams, w, preds


def test_check_stacked_prediction_on_the_sheets_data(sheet_stacking, capsys):
    """The sheet's data: the self-check recognises the refits' prediction by its hash and
    tells fold fits (here: fits on the first 100 rows) from refits."""
    X, y, Xt, lams, w, preds = sheet_stacking
    _both(capsys, lambda m: m.check_stacked_prediction(preds @ w, w, X, y, Xt, lams))
    part = np.column_stack([make_pipeline(StandardScaler(), Ridge(alpha=lam)).fit(X[:100], y[:100])
                            .predict(Xt) for lam in lams]) @ w
    _rejected(lambda m: m.check_stacked_prediction(part, w, X, y, Xt, lams), "ALL the",
              "ALL the")


# --------------------------------------------------------------------------- #
# GCV versus LOO
# --------------------------------------------------------------------------- #
def _brute_loo_gcv(X, y, lams):
    """Reference: sklearn LeaveOneOut refits for LOO; GCV from the trace of sklearn's hat
    matrix (column i: the fitted values for the response e_i)."""
    n = len(y)
    loo = np.array([np.mean((y - cross_val_predict(Ridge(alpha=lam), X, y, cv=LeaveOneOut())) ** 2)
                    for lam in lams])
    gcv = np.empty(len(lams))
    for j, lam in enumerate(lams):
        H = np.column_stack([Ridge(alpha=lam).fit(X, e).predict(X) for e in np.eye(n)])
        gcv[j] = np.mean((y - H @ y) ** 2) / (1 - np.trace(H) / n) ** 2
    return loo, gcv


def test_check_loo_gcv_accepts_brute_force_loo(capsys):
    X, y, _ = datasets.linear_model(30, 5, random_state=6)
    lams = np.array([0.1, 3.0, 100.0])
    loo, gcv = _brute_loo_gcv(X, y, lams)
    _both(capsys, lambda m: m.check_loo_gcv(loo, gcv, X, y, lams))
    _rejected(lambda m: m.check_loo_gcv(loo, gcv * (1 - 0.05), X, y, lams), "gcv", None)
    _rejected(lambda m: m.check_loo_gcv(gcv, gcv, X, y, lams), "loo", None)
    _rejected(lambda m: m.check_loo_gcv(loo, -gcv, X, y, lams), "gcv", "positive")
    _rejected(lambda m: m.check_loo_gcv(None, gcv, X, y, lams), "is None", "is None")
    _rejected(lambda m: m.check_loo_gcv(loo, None, X, y, lams), "is None", "is None")


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
    _rejected(lambda m: m.check_loo_gcv(bad, gcv, X, y, lams), "1/n", None)


@pytest.fixture(scope="module")
def sheet_loo():
    """The sheet's LOO and GCV curves, from one hat matrix per penalty built by scikit-learn
    (column i: the fit to e_i, with the intercept)."""
    X_raw, y, _ = datasets.diabetes()
    Z = (X_raw - X_raw.mean(axis=0)) / X_raw.std(axis=0)
    lams = np.logspace(-2, 4, 31)
    n = len(y)
    loo, gcv = np.empty(31), np.empty(31)
    for j, lam in enumerate(lams):
        fit = Ridge(alpha=lam).fit(Z, np.eye(n))                 # all n responses at once
        H = fit.predict(Z)
        r = y - H @ y
        loo[j] = np.mean((r / (1 - np.diag(H))) ** 2)
        gcv[j] = np.mean(r ** 2) / (1 - np.trace(H) / n) ** 2
    return Z, y, lams, loo, gcv


def test_check_loo_gcv_on_the_sheets_data(sheet_loo, capsys):
    """The sheet's data: both checks accept; the hashes tell a curve off by 1e-4."""
    Z, y, lams, loo, gcv = sheet_loo
    _both(capsys, lambda m: m.check_loo_gcv(loo, gcv, Z, y, lams))
    _rejected(lambda m: m.check_loo_gcv(loo * (1 + 1e-4), gcv, Z, y, lams), "loo differs",
              "loo differs")
    _rejected(lambda m: m.check_loo_gcv(loo, gcv * (1 - 1e-4), Z, y, lams), "gcv differs",
              "gcv differs")


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
    _both(capsys, lambda m: m.check_screened_cv(w, r, X, y, 10, 1.0))
    _rejected(lambda m: m.check_screened_cv(r, w, X, y, 10, 1.0), "swapped", "swapped")
    _rejected(lambda m: m.check_screened_cv(w * 1.1, r, X, y, 10, 1.0), "cv_wrong", "cv_wrong")
    _rejected(lambda m: m.check_screened_cv(w, r * 0.9, X, y, 10, 1.0), "cv_right", "cv_right")
    _rejected(lambda m: m.check_screened_cv(None, r, X, y, 10, 1.0), "is None", "is None")


def test_screened_cv_right_to_six_digits_passes_only_the_self_check(noise, capsys):
    """cv_right off by 3e-6 (relative): six significant digits of 1.03294... still match its
    hash, the full check (tolerance 1e-6) does not; off by 1e-4 both reject it."""
    X, y = noise
    w, r = _screened(X, y, False), _screened(X, y, True)
    _rejected(lambda m: m.check_screened_cv(w, r * (1 + 3e-6), X, y, 10, 1.0), "cv_right", None)
    assert capsys.readouterr().out.startswith(SELF)
    _rejected(lambda m: m.check_screened_cv(w, r * (1 + 1e-4), X, y, 10, 1.0), "cv_right",
              "cv_right")


def test_wrong_screening_falls_below_the_error_floor(noise):
    """Theorem of the exercise: every predictor has error >= Var Y* = 1 on pure noise; the wrong
    pipeline reports less, the right one does not."""
    X, y = noise
    assert _screened(X, y, False) < 0.8 < _screened(X, y, True)

# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def rotdata():
    X, y, _ = datasets.linear_model(20, 4, random_state=3)
    Q = np.linalg.qr(np.random.default_rng(4).standard_normal((20, 20)))[0]
    return X, y, Q, np.logspace(-2, 2, 6)


def _loo_gcv_sklearn(X, y, lams):
    """Independent route: LOO by scikit-learn's LeaveOneOut refits of Ridge (no intercept),
    GCV from the dense hat matrix."""
    loo, gcv = [], []
    for lam in lams:
        pred = cross_val_predict(Ridge(alpha=lam, fit_intercept=False), X, y, cv=LeaveOneOut())
        loo.append(np.mean((y - pred) ** 2))
        H = X @ np.linalg.solve(X.T @ X + lam * np.eye(X.shape[1]), X.T)
        gcv.append(np.mean((y - H @ y) ** 2) / (1 - np.trace(H) / len(y)) ** 2)
    return np.array(loo), np.array(gcv)


def test_check_rotation(rotdata, capsys):
    """Accept scikit-learn's LOO of the rotated data and GCV; reject the unrotated LOO, a GCV
    without the square, swapped curves, None."""
    X, y, Q, lams = rotdata
    loo_Q, gcv_Q = _loo_gcv_sklearn(Q @ X, Q @ y, lams)
    loo_0, gcv_0 = _loo_gcv_sklearn(X, y, lams)
    np.testing.assert_allclose(gcv_Q, gcv_0, rtol=1e-10)           # part 1 of the exercise
    assert np.max(np.abs(loo_Q / loo_0 - 1)) > 1e-3
    _both(capsys, lambda m: m.check_rotation(loo_Q, gcv_Q, X, y, Q, lams))
    _rejected(lambda m: m.check_rotation(loo_0, gcv_Q, X, y, Q, lams), "loo_Q",
              "ORIGINAL")
    H_tr = np.array([np.trace(X @ np.linalg.solve(X.T @ X + lam * np.eye(4), X.T)) for lam in lams])
    unsquared = gcv_Q * (1 - H_tr / 20)
    _rejected(lambda m: m.check_rotation(loo_Q, unsquared, X, y, Q, lams), "gcv_Q", "gcv_Q")
    _rejected(lambda m: m.check_rotation(gcv_Q, loo_Q, X, y, Q, lams), "gcv_Q", "gcv_Q")
    _rejected(lambda m: m.check_rotation(None, gcv_Q, X, y, Q, lams), "is None", "is None")


def test_the_self_checks_hashes_are_the_sheets_answers(sheet_stacking, sheet_loo, noise):
    """Each digest in ch02 recognises the answer computed here by an independent route."""
    X, y, Xt, lams, w, preds = sheet_stacking
    assert ch02._recognised(preds @ w, "pred_test")
    _, _, _, loo, gcv = sheet_loo
    assert ch02._recognised(loo, "loo") and ch02._recognised(gcv, "gcv")
    assert not ch02._recognised(loo * (1 + 1e-5), "loo")
    Xn, yn = noise
    assert matches_digest(_screened(Xn, yn, False), ch02.DIGESTS["cv_wrong"], "cv_wrong")
    assert matches_digest(_screened(Xn, yn, True), ch02.DIGESTS["cv_right"], "cv_right")


def test_notebook_passes_self_checks_and_full_checks_and_stubs_fail(capsys, monkeypatch):
    """Solution notebook: every check passes, the self-checks and then, in their place as
    when grading, the full checks. Student stubs (None): every check fails."""
    notebook.assert_sheet_passes_self_then_full(NOTEBOOK, ch02, ref, 10, capsys, monkeypatch)
