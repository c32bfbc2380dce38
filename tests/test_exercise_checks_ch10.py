"""Tests for the chapter-10 exercise checkers (kmlib.book.exercises.ch10).

Each checker must accept the right answer, computed here by an independent
route (numpy's eigvalsh with a null-space basis, an explicit witness, a dense
eigendecomposition, classical multidimensional scaling), reject the typical
wrong answers with a message that diagnoses the mistake without printing the
reference value, and reject ``None``.  The last test runs the exercise notebook
with every solution cell replaced by ``None`` stubs and requires every check
cell to fail.
"""
from __future__ import annotations

import re
from pathlib import Path

import _exercise_cells as notebook
import numpy as np
import pytest
from scipy import linalg
from scipy.spatial.distance import cdist

from kmlib.book.exercises import ch10

pytestmark = pytest.mark.filterwarnings("error")

NOTEBOOK = Path(__file__).resolve().parents[1] / "exercises" / "10_negative_definite.md"
X12 = np.linspace(0.0, 3.0, 12)
NUMBER = re.compile(r"-?\d+\.\d{3,}")        # a leaked reference value would show many digits


def _no_leak(excinfo):
    assert not NUMBER.search(str(excinfo.value)), f"message leaks a number: {excinfo.value}"


# --------------------------------------------------------------------------- #
# negative definite or not
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def table():
    """Reference: null-space basis from scipy and numpy's eigvalsh (checker: Helmert basis)."""
    B = linalg.null_space(np.ones((1, 12)))
    top = np.array([np.linalg.eigvalsh(B.T @ K @ B)[-1] for K in ch10.candidate_grams(X12)])
    return top, top <= 1e-9


def test_candidate_verdicts_follow_the_theory(table):
    """Closed-form reasoning: |.|^1.5, max and log(1 + r^2) are NDS; ^4, min and e^|.| - 1
    are not."""
    _, nds = table
    assert nds.tolist() == [True, False, False, True, True, False]


def test_check_nds_table_accepts_right_answer(table, capsys):
    top, nds = table
    ch10.check_nds_table(top, nds, X12)
    assert capsys.readouterr().out.startswith("Correct:")


@pytest.mark.parametrize("mistake,match", [
    ("whole", "whole Gram matrices"),
    ("centred", "centring matrix"),
    ("one_wrong", "is wrong for"),
    ("verdict", "verdicts in `nds` are wrong"),
    ("none_top", "is None"),
    ("none_nds", "is None"),
    ("shape", "shape"),
])
def test_check_nds_table_rejects_mistakes(table, mistake, match):
    """Typical mistakes: no restriction, J K J, one wrong Gram matrix, flipped verdict, None."""
    top, nds = table
    grams = ch10.candidate_grams(X12)
    t, v = top.copy(), nds.copy()
    if mistake == "whole":
        t = np.array([np.linalg.eigvalsh(K)[-1] for K in grams])
    elif mistake == "centred":
        J = np.eye(12) - 1 / 12
        t = np.array([np.linalg.eigvalsh(J @ K @ J)[-1] for K in grams])
    elif mistake == "one_wrong":
        t[2] += 0.5
    elif mistake == "verdict":
        v[3] = not v[3]
    elif mistake == "none_top":
        t = None
    elif mistake == "none_nds":
        v = None
    elif mistake == "shape":
        t = t[:5]
    with pytest.raises(AssertionError, match=match) as excinfo:
        ch10.check_nds_table(t, v, X12)
    _no_leak(excinfo)


def test_check_witness(capsys):
    """Reference: the second difference (1, -2, 1) gives 2 (2^4 - 4) h^4 > 0 (closed form)."""
    c = np.zeros(12)
    c[4:7] = [1.0, -2.0, 1.0]
    ch10.check_witness(c, X12)
    assert capsys.readouterr().out.startswith("Correct:")
    with pytest.raises(AssertionError, match="sum to zero"):
        ch10.check_witness(np.r_[1.0, np.zeros(11)], X12)
    with pytest.raises(AssertionError, match="not positive"):
        ch10.check_witness(np.r_[1.0, -1.0, np.zeros(10)], X12)
    with pytest.raises(AssertionError, match="zero vector"):
        ch10.check_witness(np.zeros(12), X12)
    with pytest.raises(AssertionError, match="is None"):
        ch10.check_witness(None, X12)


# --------------------------------------------------------------------------- #
# exp(-t ||x - x'||^a)
# --------------------------------------------------------------------------- #
EXPS, TS = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0], [0.1, 1.0, 10.0]


@pytest.fixture(scope="module")
def points():
    return np.random.default_rng(10).uniform(0.0, 1.0, (30, 2))


def _min_eigs(X, power):
    """Reference: dense numpy eigvalsh (checker: LAPACK evr for one eigenvalue)."""
    R = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    return np.array([[np.linalg.eigvalsh(np.exp(-t * R ** power(a)))[0] for t in TS]
                     for a in EXPS])


def test_check_exp_power_accepts_right_answer(points, capsys):
    M = _min_eigs(points, lambda a: a)
    ok = np.all(M >= -1e-10, axis=1)
    assert ok.tolist() == [True, True, True, True, False, False]   # Schoenberg + powers
    ch10.check_exp_power_min_eigs(M, ok, points, EXPS, TS)
    assert capsys.readouterr().out.startswith("Correct:")


def test_check_exp_power_rejects_mistakes(points):
    """Mistakes: squared distance to the power a, exponent forgotten, wrong verdict, None."""
    M = _min_eigs(points, lambda a: a)
    ok = np.all(M >= -1e-10, axis=1)
    for wrong, match in [(_min_eigs(points, lambda a: 2 * a), "2a"),
                         (_min_eigs(points, lambda a: 1.0), "exponent a is missing")]:
        with pytest.raises(AssertionError, match=match) as excinfo:
            ch10.check_exp_power_min_eigs(wrong, ok, points, EXPS, TS)
        _no_leak(excinfo)
    with pytest.raises(AssertionError, match="pd_all"):
        ch10.check_exp_power_min_eigs(M, np.ones(6, dtype=bool), points, EXPS, TS)
    with pytest.raises(AssertionError, match="is None"):
        ch10.check_exp_power_min_eigs(None, None, points, EXPS, TS)
    with pytest.raises(AssertionError, match="shape"):
        ch10.check_exp_power_min_eigs(M.T, ok, points, EXPS, TS)


# --------------------------------------------------------------------------- #
# embedding of the l1 distance
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def l1_points():
    return np.random.default_rng(7).uniform(0.0, 1.0, (8, 2))


def _mds(K):
    """Reference: classical MDS, eigenvectors of -J K J / 2 (not the anchored matrix)."""
    n = len(K)
    J = np.eye(n) - 1 / n
    d, U = np.linalg.eigh(-J @ K @ J / 2)
    keep = d > 1e-12 * d.max()
    return U[:, keep] * np.sqrt(d[keep])


def test_check_embedding_accepts_mds(l1_points, capsys):
    Phi = _mds(cdist(l1_points, l1_points, "cityblock"))
    ch10.check_embedding(Phi, l1_points)
    assert capsys.readouterr().out.startswith("Correct:")


def test_check_embedding_rejects_mistakes(l1_points):
    """Mistakes: missing 1/sqrt(2), the raw points, None, too few rows."""
    K = cdist(l1_points, l1_points, "cityblock")
    Phi = _mds(K)
    with pytest.raises(AssertionError, match="twice the kernel"):
        ch10.check_embedding(np.sqrt(2) * Phi, l1_points)
    with pytest.raises(AssertionError, match="do not reproduce"):
        ch10.check_embedding(l1_points, l1_points)
    with pytest.raises(AssertionError, match="is None"):
        ch10.check_embedding(None, l1_points)
    with pytest.raises(AssertionError, match="one row per point"):
        ch10.check_embedding(Phi[:5], l1_points)


# --------------------------------------------------------------------------- #
# the notebook: solutions pass, None stubs fail every check
# --------------------------------------------------------------------------- #
def test_notebook_checks_pass_with_solutions_and_fail_with_none_stubs(capsys):
    """Solution notebook: all checks print Correct. Student stubs (None): every check fails."""
    cells = notebook.code_cells(NOTEBOOK)
    assert len(notebook.check_sources(cells)) >= 3
    notebook.run_with_solutions(cells)
    assert capsys.readouterr().out.count("Correct:") == 4
    notebook.assert_checks_fail_with_none_stubs(cells)
