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
    return X, y, C, b


@BOTH
def test_check_C_accepts_smo_answer(module, clam, capsys):
    X, y, C, b = clam
    module.check_C_and_intercept(C, b, X, y, 0.7, 0.05)
    _passed(module, capsys)


@BOTH
@pytest.mark.parametrize("mistake,match", [
    (lambda C, b: (2 * C, b), "divide by 2 lam"),
    (lambda C, b: (0.05, b), "reciprocal"),
    (lambda C, b: (C / 3, b), "box constant"),
    (lambda C, b: (C, -b), "wrong sign"),
    (lambda C, b: (C, b + 0.3), "free support"),
    (lambda C, b: (C, b * 1.01), "free support"),
    (lambda C, b: (None, b), "is None"),
])
def test_check_C_rejects_mistakes_without_leaking(module, clam, mistake, match):
    X, y, C, b = clam
    c_wrong, b_wrong = mistake(C, b)
    with pytest.raises(AssertionError, match=match) as info:
        module.check_C_and_intercept(c_wrong, b_wrong, X, y, 0.7, 0.05)
    assert f"{b:.4f}" not in str(info.value) and "10.0" not in str(info.value)


def test_check_C_self_check_knows_only_the_sheets_data(clam):
    X, y, C, b = clam
    with pytest.raises(AssertionError, match="sheet's data"):
        ch08.check_C_and_intercept(C, b, X[::-1], y[::-1], 0.7, 0.05)


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
    X, y, _, sv, n_free = sv_case
    module.check_support_vectors(sv, n_free, X, y, 0.5, 2.0)
    _passed(module, capsys)


@BOTH
def test_check_support_vectors_rejects_mistakes(module, sv_case):
    """Typical mistakes: every point, a threshold at C/2, the bounded count, unsorted, None."""
    X, y, a, sv, n_free = sv_case
    n_bound = len(sv) - n_free
    cases = [
        ((np.arange(len(y)), n_free), "every point"),
        ((np.flatnonzero(a > 0.5 * 2.0), n_free), "differs from the support vectors"),
        ((sv[1:], n_free), "differs from the support vectors"),
        ((sv, n_bound), "bounded"),
        ((sv, n_free + 1), "0 < a_i < C"),
        ((sv[::-1], n_free), "sorted"),
        ((None, n_free), "is None"),
        ((sv.astype(float), n_free), "integer"),
    ]
    for (s, k), match in cases:
        with pytest.raises(AssertionError, match=match) as info:
            module.check_support_vectors(s, k, X, y, 0.5, 2.0)
        assert str(len(sv)) + " of" not in str(info.value)


def test_check_support_vectors_self_check_structure(sv_case):
    """The dual's constraint sum a_i y_i = 0 needs both labels; indices are distinct."""
    X, y, _, sv, n_free = sv_case
    one_class = sv[y[sv] > 0]
    for s, k, match in [(one_class, 0, "both classes"), (np.r_[sv[:1], sv], n_free, "twice"),
                        (np.r_[sv, 500], n_free, "outside"), (sv, len(sv) + 1, "between 0")]:
        with pytest.raises(AssertionError, match=match):
            ch08.check_support_vectors(s, k, X, y, 0.5, 2.0)


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
    ((np.log(np.e - 1), 0.0), "finite non-zero limit"),
    ((np.log(np.e - 1), 0.5), "not the limit"),
    ((None, 1.0), "is None"),
])
def test_check_crossing_rejects_mistakes_without_leaking(module, answer, match):
    with pytest.raises(AssertionError, match=match) as info:
        module.check_crossing(*answer)
    assert "0.5413" not in str(info.value)


# --------------------------------------------------------------------------- #
# Rademacher complexity
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def rad_case():
    X = np.random.default_rng(7).standard_normal((40, 3)) * np.array([3.0, 1.0, 0.2])
    S = np.random.default_rng(1).choice([-1.0, 1.0], size=(20_000, 40))
    rad = 2.0 / 40 * np.mean(np.sqrt(np.einsum("ij,jk,ik->i", S, X @ X.T, S)))
    return X, rad


@BOTH
def test_check_rademacher_accepts_simulation(module, rad_case, capsys):
    """Reference: a 2e5-draw simulation with another seed."""
    X, rad = rad_case
    module.check_rademacher(rad, X, 2.0)
    _passed(module, capsys)


@BOTH
def test_check_rademacher_rejects_mistakes(module, rad_case):
    """Typical mistakes: the Jensen bound itself, no 1/m, far below the Khintchine bound,
    E[s'Ks] without the root, None."""
    X, rad = rad_case
    bound = 2.0 * np.sqrt(np.trace(X @ X.T)) / 40
    for wrong, match in [(bound, "Jensen bound"), (40 * rad, "m times too large"),
                         (0.5 * bound, "outside"), (bound**2, "E\\[s'Ks\\]"), (None, "is None")]:
        with pytest.raises(AssertionError, match=match) as info:
            module.check_rademacher(wrong, X, 2.0)
        assert f"{rad:.3f}" not in str(info.value)


def test_rademacher_off_by_ten_percent_passes_only_the_self_check(rad_case, capsys):
    """Inside the bounds but 10% off the expectation: only the reference can see it."""
    X, rad = rad_case
    ch08.check_rademacher(0.9 * rad, X, 2.0)
    _passed(ch08, capsys)
    with pytest.raises(AssertionError, match="off the expectation"):
        reference.check_rademacher(0.9 * rad, X, 2.0)


# --------------------------------------------------------------------------- #
# the notebook
# --------------------------------------------------------------------------- #
def test_notebook_checks_pass_with_solutions_and_fail_with_none_stubs(capsys, monkeypatch):
    """Solution notebook: every self-check passes and, substituted as the grader does, every
    reference check; with None stubs every check cell fails, both ways."""
    cells = notebook.code_cells(NOTEBOOK)
    checks = notebook.check_sources(cells)
    assert len(checks) == 4
    notebook.run_with_solutions(cells)
    assert capsys.readouterr().out.count("Self-check passed:") == len(checks)
    notebook.assert_checks_fail_with_none_stubs(cells)
    for name in [n for n in vars(ch08) if n.startswith("check_")]:
        monkeypatch.setattr(ch08, name, getattr(reference, name))
    notebook.run_with_solutions(cells)
    assert capsys.readouterr().out.count("Correct:") == len(checks)
    notebook.assert_checks_fail_with_none_stubs(cells)
