"""Tests for the chapter-8 exercise checks: the students' self-checks and the lecturer's.

``kmlib.book.exercises.ch08`` ships the self-checks (an identity, the structure of a
support set, a residual, two bounds, hashes of rounded numbers and of an index list);
``_grading.reference.ch08`` holds the full checks that recompute every answer.  Both must
accept the right answer (computed here by an independent route: kmlib's SMO where the
reference uses scikit-learn, a root search where it uses the closed form, a simulation
with another seed); the reference must reject typical wrong answers with a diagnosing
message that does not contain the reference value, and the self-check those its
properties can see; both reject ``None``.  The last test runs the sheet.
"""
from __future__ import annotations

from pathlib import Path

import _exercise_cells as notebook
import numpy as np
import pytest
from _grading.reference import ch08 as reference
from scipy.optimize import brentq
from sklearn.svm import SVC

from kmlib import datasets, kernels, svm
from kmlib.book import margin
from kmlib.book.exercises import ch08

pytestmark = pytest.mark.filterwarnings("error")

NOTEBOOK = Path(__file__).resolve().parents[1] / "exercises" / "08_svm_logistic.md"
BOTH = pytest.mark.parametrize("module", [ch08, reference], ids=["self", "reference"])
PASSED = {ch08: "Self-check passed:", reference: "Correct:"}


def _passed(module, capsys):
    out = capsys.readouterr().out
    assert out.startswith(PASSED[module]) and out.count("\n") == 1, out


# --------------------------------------------------------------------------- #
# C and lambda
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def clam():
    """The sheet's data; the answer from kmlib's SMO (the reference uses LIBSVM)."""
    X, y = datasets.two_moons(80, noise=0.25, random_state=11)
    C = 1 / (2 * 0.05)
    a, b, *_ = svm.smo_solve(kernels.gaussian(0.7)(X), y, C, tol=1e-10)
    return X, y, C, b, a


@BOTH
def test_check_C_accepts_smo_answer(module, clam, capsys):
    X, y, C, b, a = clam
    module.check_C_and_intercept(C, b, X, y, 0.7, 0.05, a=a)
    _passed(module, capsys)


@BOTH
def test_check_C_accepts_libsvm_answer(module, clam, capsys):
    """Another solver: scikit-learn's LIBSVM with a tight tolerance passes both checks."""
    X, y, C, _, _ = clam
    sk = SVC(kernel="precomputed", C=C, tol=1e-10).fit(kernels.gaussian(0.7)(X), y)
    a = np.zeros(len(y))
    a[sk.support_] = np.abs(sk.dual_coef_[0])
    module.check_C_and_intercept(C, sk.intercept_[0], X, y, 0.7, 0.05, a=a)
    _passed(module, capsys)


@BOTH
@pytest.mark.parametrize("mistake,match", [
    (lambda C, b: (2 * C, b), "divide by 2 lam"),
    (lambda C, b: (0.05, b), "reciprocal"),
    (lambda C, b: (C / 3, b), "box constant"),
    (lambda C, b: (None, b), "is None"),
])
def test_check_C_rejects_mistakes_without_leaking(module, clam, mistake, match):
    X, y, C, b, a = clam
    c_wrong, b_wrong = mistake(C, b)
    with pytest.raises(AssertionError, match=match) as info:
        module.check_C_and_intercept(c_wrong, b_wrong, X, y, 0.7, 0.05, a=a)
    assert f"{b:.4f}" not in str(info.value) and "10.0" not in str(info.value)


@pytest.mark.parametrize("which,match", [
    ("sign", "wrong sign"), ("shift", "KKT margin"), ("scaled", "KKT margin"),
    ("a_none", "is None"), ("a_infeasible", "not feasible"), ("a_loose", "KKT margin"),
])
def test_self_check_intercept_by_kkt(clam, which, match):
    """The self-check judges (a_cl, intercept) by the KKT conditions of the dual: a wrong
    intercept, dual variables off the constraints or solved loosely all fail."""
    X, y, C, b, a = clam
    a_loose, b_loose, *_ = svm.smo_solve(kernels.gaussian(0.7)(X), y, C, tol=1e-1)
    b_wrong, a_wrong = {"sign": (-b, a), "shift": (b + 0.3, a), "scaled": (b * 1.01, a),
                        "a_none": (b, None), "a_infeasible": (b, a + 0.01),
                        "a_loose": (b_loose, a_loose)}[which]
    with pytest.raises(AssertionError, match=match):
        ch08.check_C_and_intercept(C, b_wrong, X, y, 0.7, 0.05, a=a_wrong)


@pytest.mark.parametrize("shift", [0.3, 0.01])
def test_reference_rejects_wrong_intercept(clam, shift):
    X, y, C, b, a = clam
    with pytest.raises(AssertionError, match="free support"):
        reference.check_C_and_intercept(C, b + shift, X, y, 0.7, 0.05, a=a)


def test_check_C_uses_the_sheets_data(clam, capsys):
    """Trivial data in place of the cell's do not pass: the self-check refuses other data,
    the reference rebuilds the sheet's and grades the answer on them."""
    X, y, C, b, a = clam
    with pytest.raises(AssertionError, match="differ from the exercise's cell"):
        ch08.check_C_and_intercept(C, b, X[::-1], y[::-1], 0.7, 0.05, a=a)
    Xt, yt = np.array([[0.0, 0.0], [1.0, 1.0]]), np.array([-1.0, 1.0])
    with pytest.raises(AssertionError):                      # the answer for trivial data
        reference.check_C_and_intercept(10.0, 0.0, Xt, yt, 0.7, 0.05, a=np.array([0.5, 0.5]))
    reference.check_C_and_intercept(C, b, Xt, yt, 0.7, 0.05, a=None)   # graded on the sheet's
    _passed(reference, capsys)


# --------------------------------------------------------------------------- #
# support vectors
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def sv_case():
    """The sheet's data; the answer from kmlib's SMO (the reference uses LIBSVM)."""
    X, y = datasets.two_moons(120, noise=0.3, random_state=5)
    a, *_ = svm.smo_solve(kernels.gaussian(0.5)(X), y, 2.0, tol=1e-10)
    sv = np.flatnonzero(a > 1e-8 * 2.0)
    n_free = int(np.sum((a > 1e-8 * 2.0) & (a < (1 - 1e-8) * 2.0)))
    return X, y, a, sv, n_free


@BOTH
def test_check_support_vectors_accepts_smo_answer(module, sv_case, capsys):
    X, y, a, sv, n_free = sv_case
    module.check_support_vectors(sv, n_free, X, y, 0.5, 2.0, a=a)
    _passed(module, capsys)


@BOTH
def test_check_support_vectors_rejects_mistakes(module, sv_case):
    """Typical mistakes: every point, a threshold at C/2, the bounded count, unsorted, None."""
    X, y, a, sv, n_free = sv_case
    n_bound = len(sv) - n_free
    cases = [
        ((np.arange(len(y)), n_free), "every point"),
        ((np.flatnonzero(a > 0.5 * 2.0), n_free), "threshold"),
        ((sv[1:], n_free), "threshold"),
        ((sv, n_bound), "bounded"),
        ((sv, n_free + 1), "0 < a_i < C"),
        ((sv[::-1], n_free), "sorted"),
        ((None, n_free), "is None"),
        ((sv.astype(float), n_free), "integer"),
    ]
    for (s, k), match in cases:
        with pytest.raises(AssertionError, match=match) as info:
            module.check_support_vectors(s, k, X, y, 0.5, 2.0, a=a)
        assert str(len(sv)) + " of" not in str(info.value)


def test_check_support_vectors_self_check_needs_a_solution(sv_case):
    """Junk dual variables (all C/2, a loose solve, the right support with other values)
    fail the KKT conditions; repeated or out-of-range indices fail their structure."""
    X, y, a, sv, n_free = sv_case
    a_loose, *_ = svm.smo_solve(kernels.gaussian(0.5)(X), y, 2.0, tol=1e-1)
    for a_bad in (np.full(len(y), 1.0), a_loose, np.where(a > 0, 1.0, 0.0)):
        with pytest.raises(AssertionError, match="KKT|free support|not feasible"):
            ch08.check_support_vectors(sv, n_free, X, y, 0.5, 2.0, a=a_bad)
    for s, k, match in [(np.r_[sv[:1], sv], n_free, "twice"),
                        (np.r_[sv, 500], n_free, "outside"), (sv, len(sv) + 1, "between 0")]:
        with pytest.raises(AssertionError, match=match):
            ch08.check_support_vectors(s, k, X, y, 0.5, 2.0, a=a)
    with pytest.raises(AssertionError, match="differ from the exercise's cell"):
        ch08.check_support_vectors(sv, n_free, X[:10], y[:10], 0.5, 2.0, a=a)


def test_reference_support_vectors_rebuilds_the_data(sv_case, capsys):
    X, y, a, sv, n_free = sv_case
    reference.check_support_vectors(sv, n_free, X[:10], y[:10], 0.1, 5.0)
    _passed(reference, capsys)
    with pytest.raises(AssertionError):
        reference.check_support_vectors(np.array([0]), 1, X[:1], y[:1], 0.5, 2.0)


# --------------------------------------------------------------------------- #
# crossing point
# --------------------------------------------------------------------------- #
@BOTH
def test_check_crossing_accepts_root_search(module, capsys):
    """Reference: log(e - 1); the answer here is a Brent root search."""
    z = brentq(lambda t: margin.hinge_loss(t) - margin.logistic_loss(t), 0.0, 1.0, xtol=1e-14)
    module.check_crossing(z, 1.0)
    _passed(module, capsys)


@BOTH
@pytest.mark.parametrize("answer,match", [
    ((0.0, 1.0), "increase z"),
    ((0.9, 1.0), "decrease z"),
    ((-50.0, 1.0), "increase z"),
    ((np.log(np.e - 1) + 1e-7, 1.0), "decrease z"),
    ((None, 1.0), "is None"),
    ((np.log(np.e - 1), None), "is None"),
])
def test_check_crossing_rejects_mistakes_without_leaking(module, answer, match):
    with pytest.raises(AssertionError, match=match) as info:
        module.check_crossing(*answer)
    assert "0.5413" not in str(info.value)


@pytest.mark.parametrize("gap,match", [(0.0, "finite non-zero limit"), (0.5, "not the limit")])
def test_reference_judges_gap_limit(gap, match):
    with pytest.raises(AssertionError, match=match):
        reference.check_crossing(np.log(np.e - 1), gap)


def test_crossing_self_check_is_not_an_oracle_for_gap_limit(capsys):
    """gap_limit has few plausible values (0, 1/2, 1, 2, e, ...): the self-check accepts
    every finite one, so calling it cannot single out the limit."""
    z = np.log(np.e - 1)
    for g in (0.0, 0.5, 1.0, 2.0, np.e, -1.0, 1e6):
        ch08.check_crossing(z, g)
    assert capsys.readouterr().out.count("Self-check passed:") == 7


# --------------------------------------------------------------------------- #
# Rademacher complexity
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def rad_case():
    X = np.random.default_rng(7).standard_normal((40, 3)) * np.array([3.0, 1.0, 0.2])
    S = np.random.default_rng(1).choice([-1.0, 1.0], size=(20_000, 40))
    rad = 2.0 / 40 * np.mean(np.sqrt(np.einsum("ij,jk,ik->i", S, X @ X.T, S)))
    return X, rad, S


@BOTH
def test_check_rademacher_accepts_simulation(module, rad_case, capsys):
    """Reference: a 2e5-draw simulation with another seed; here s'Ks through the Gram matrix."""
    X, rad, S = rad_case
    module.check_rademacher(rad, X, 2.0, S=S)
    _passed(module, capsys)


@BOTH
def test_check_rademacher_rejects_mistakes(module, rad_case):
    """Typical mistakes: the Jensen bound itself, no 1/n, E[s'Ks] without the root, None."""
    X, rad, S = rad_case
    bound = 2.0 * np.sqrt(np.trace(X @ X.T)) / 40
    for wrong, match in [(bound, "Jensen bound"), (40 * rad, "n"),
                         (bound**2, "E\\[s'Ks\\]|root|mean over the rows"),
                         (None, "is None")]:
        with pytest.raises(AssertionError, match=match) as info:
            module.check_rademacher(wrong, X, 2.0, S=S)
        assert f"{rad:.3f}" not in str(info.value)


def test_rademacher_self_check_needs_the_simulation(rad_case):
    """0.8 x the Jensen bound, computed without simulating, fails the self-check; so do
    sign matrices that are not fair coins, or too few of them."""
    X, rad, S = rad_case
    bound = 2.0 * np.sqrt(np.trace(X @ X.T)) / 40
    with pytest.raises(AssertionError, match="mean over the rows"):
        ch08.check_rademacher(0.8 * bound, X, 2.0, S=S)
    with pytest.raises(AssertionError, match="is None"):
        ch08.check_rademacher(0.8 * bound, X, 2.0)
    ones = np.ones((20_000, 40))
    with pytest.raises(AssertionError, match="fair signs"):
        ch08.check_rademacher(2.0 / 40 * np.linalg.norm(X.sum(axis=0)), X, 2.0, S=ones)
    with pytest.raises(AssertionError, match="at least 10\\^4"):
        ch08.check_rademacher(rad, X, 2.0, S=S[:100])
    with pytest.raises(AssertionError, match="differ from the exercise's cell"):
        ch08.check_rademacher(rad, np.zeros((40, 3)), 2.0, S=S)


def test_rademacher_off_by_ten_percent_fails_both(rad_case):
    X, rad, S = rad_case
    with pytest.raises(AssertionError, match="mean over the rows"):
        ch08.check_rademacher(0.9 * rad, X, 2.0, S=S)
    with pytest.raises(AssertionError, match="off the expectation"):
        reference.check_rademacher(0.9 * rad, X, 2.0, S=S)


def test_reference_rademacher_rebuilds_the_data(rad_case, capsys):
    """Trivial data (X = 0, Lambda = 0, rad = 0) do not pass the reference."""
    X, rad, S = rad_case
    with pytest.raises(AssertionError):
        reference.check_rademacher(0.0, np.zeros((40, 3)), 0.0)
    reference.check_rademacher(rad, np.zeros((40, 3)), 0.0)
    _passed(reference, capsys)


# --------------------------------------------------------------------------- #
# loss minimisers
# --------------------------------------------------------------------------- #
ETAS = np.linspace(0.05, 0.95, 19)


@BOTH
def test_loss_minimisers_accept_closed_forms(module, capsys):
    """Here the closed forms; the sheet's solution minimises numerically."""
    module.check_loss_minimisers(2 * ETAS - 1, 0.5 * np.log(ETAS / (1 - ETAS)), ETAS)
    _passed(module, capsys)


@BOTH
@pytest.mark.parametrize("which,match", [
    ("hinge", "t_sqhinge"), ("logodds", "t_exp"), ("none", "is None"), ("shape", "shape"),
])
def test_loss_minimisers_reject_mistakes(module, which, match):
    sq, ex = 2 * ETAS - 1, 0.5 * np.log(ETAS / (1 - ETAS))
    args = {"hinge": (np.sign(2 * ETAS - 1), ex), "logodds": (sq, 2 * ex),
            "none": (None, ex), "shape": (sq[:5], ex)}[which]
    with pytest.raises(AssertionError, match=match):
        module.check_loss_minimisers(*args, ETAS)


def test_loss_minimisers_use_the_sheets_etas():
    with pytest.raises(AssertionError, match="etas differs"):
        ch08.check_loss_minimisers(np.zeros(1), np.zeros(1), np.array([0.5]))
    with pytest.raises(AssertionError):
        reference.check_loss_minimisers(np.zeros(1), np.zeros(1), np.array([0.5]))


# --------------------------------------------------------------------------- #
# an interval of intercepts
# --------------------------------------------------------------------------- #
@BOTH
@pytest.mark.parametrize("C", [0.1, 0.2])
def test_intercept_interval_accepts_closed_form(module, C, capsys):
    """Two points x = -1, +1: the interval is [-(1 - 2C), 1 - 2C] (derived by hand)."""
    X, y = np.array([[-1.0], [1.0]]), np.array([-1.0, 1.0])
    module.check_intercept_interval(-(1 - 2 * C), 1 - 2 * C, X, y, C)
    _passed(module, capsys)


@BOTH
def test_intercept_interval_accepts_another_data_set(module, capsys):
    """Four points in the plane with a binding box: the ends from a fine grid of g."""
    X = np.array([[-1.0, 0.0], [-1.0, 0.5], [1.0, 0.0], [1.0, -0.5]])
    y = np.array([-1.0, -1.0, 1.0, 1.0])
    a, *_ = svm.smo_solve(X @ X.T, y, 0.05, tol=1e-12)
    f = X @ X.T @ (a * y)
    grid = np.linspace(-3, 3, 600_001)
    g = np.maximum(1 - y[:, None] * (grid[None, :] + f[:, None]), 0).sum(axis=0)
    flat = grid[g <= g.min() + 1e-9]
    module.check_intercept_interval(flat.min(), flat.max(), X, y, 0.05)
    _passed(module, capsys)


@BOTH
@pytest.mark.parametrize("which,match", [
    ("short", "shorter than 0.5"), ("wrong_ends", "not the ends"), ("one_label", "both labels"),
    ("none", "is None"), ("bad_C", "positive"),
])
def test_intercept_interval_rejects_mistakes(module, which, match):
    X, y = np.array([[-1.0], [1.0]]), np.array([-1.0, 1.0])
    args = {"short": (0.0, 0.0, X, y, 10.0), "wrong_ends": (-0.5, 0.5, X, y, 0.1),
            "one_label": (-0.8, 0.8, X, np.ones(2), 0.1), "none": (None, 0.8, X, y, 0.1),
            "bad_C": (-0.8, 0.8, X, y, -1.0)}[which]
    with pytest.raises(AssertionError, match=match):
        module.check_intercept_interval(*args)


# --------------------------------------------------------------------------- #
# the notebook
# --------------------------------------------------------------------------- #
def test_notebook_checks_pass_with_solutions_and_fail_with_none_stubs(capsys, monkeypatch):
    """Solution notebook: every self-check passes and, substituted as the grader does, every
    reference check; with None stubs every check fails, both ways (one execution each)."""
    notebook.assert_sheet_passes_self_then_full(NOTEBOOK, ch08, reference, 6, capsys,
                                                monkeypatch)
