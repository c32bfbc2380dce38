"""Tests for the chapter-10 exercise checks: the students' self-checks and the lecturer's.

``kmlib.book.exercises.ch10`` ships the self-checks (eigenvalues certified by Cholesky
attempts, not recomputed; the defining properties of a witness and of an embedding);
``_grading.reference.ch10`` holds the full checks that recompute every answer.  Both must
accept the right answer, computed here by an independent route (numpy's eigvalsh with a
null-space basis, an explicit witness, a dense eigendecomposition, classical
multidimensional scaling), and reject the typical wrong answers with a message that
diagnoses the mistake without printing the reference value, and ``None``.  The last test
runs the exercise notebook with solutions and with every solution cell replaced by
``None`` stubs.
"""
from __future__ import annotations

import re
from pathlib import Path

import _exercise_cells as notebook
import numpy as np
import pytest
from _grading.reference import ch10 as reference
from scipy import linalg
from scipy.spatial.distance import cdist

from kmlib.book.exercises import ch10

pytestmark = pytest.mark.filterwarnings("error")

NOTEBOOK = Path(__file__).resolve().parents[1] / "exercises" / "10_negative_definite.md"
X12 = np.linspace(0.0, 3.0, 12)
NUMBER = re.compile(r"-?\d+\.\d{3,}")        # a leaked reference value would show many digits
BOTH = pytest.mark.parametrize("module", [ch10, reference], ids=["self", "reference"])
PASSED = {ch10: "Self-check passed:", reference: "Correct:"}


def _no_leak(excinfo):
    assert not NUMBER.search(str(excinfo.value)), f"message leaks a number: {excinfo.value}"


def _passed(module, capsys):
    out = capsys.readouterr().out
    assert out.startswith(PASSED[module]) and out.count("\n") == 1, out


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


@BOTH
def test_check_nds_table_accepts_right_answer(module, table, capsys):
    top, nds = table
    module.check_nds_table(top, nds, X12)
    _passed(module, capsys)


@BOTH
@pytest.mark.parametrize("mistake,match", [
    ("whole", "whole Gram matrices"),
    ("centred", "centred matrix Q K Q"),
    ("one_wrong", "is wrong for"),
    ("second", "is wrong for"),
    ("verdict", "verdicts in `nds` are wrong"),
    ("none_top", "is None"),
    ("none_nds", "is None"),
    ("shape", "shape"),
    ("ints", "True/False"),
])
def test_check_nds_table_rejects_mistakes(module, table, mistake, match):
    """Typical mistakes: no restriction, Q K Q, one wrong Gram matrix, the second largest
    eigenvalue, a flipped verdict, None, 0/1 instead of booleans."""
    top, nds = table
    grams = ch10.candidate_grams(X12)
    t, v = top.copy(), nds.copy()
    if mistake == "whole":
        t = np.array([np.linalg.eigvalsh(K)[-1] for K in grams])
    elif mistake == "centred":
        Q = np.eye(12) - 1 / 12
        t = np.array([np.linalg.eigvalsh(Q @ K @ Q)[-1] for K in grams])
    elif mistake == "one_wrong":
        t[2] += 0.5
    elif mistake == "second":
        B = linalg.null_space(np.ones((1, 12)))
        t[1] = np.linalg.eigvalsh(B.T @ grams[1] @ B)[-2]
    elif mistake == "verdict":
        v[3] = not v[3]
    elif mistake == "none_top":
        t = None
    elif mistake == "none_nds":
        v = None
    elif mistake == "shape":
        t = t[:5]
    elif mistake == "ints":
        v = v.astype(int)
    with pytest.raises(AssertionError, match=match) as excinfo:
        module.check_nds_table(t, v, X12)
    _no_leak(excinfo)


@BOTH
def test_check_witness(module, capsys):
    """Reference: the second difference (1, -2, 1) gives 2 (2^4 - 4) h^4 > 0 (closed form)."""
    c = np.zeros(12)
    c[4:7] = [1.0, -2.0, 1.0]
    module.check_witness(c, X12)
    _passed(module, capsys)
    module.check_witness(-3.0 * c, X12)
    _passed(module, capsys)
    with pytest.raises(AssertionError, match="sum to zero"):
        module.check_witness(np.r_[1.0, np.zeros(11)], X12)
    with pytest.raises(AssertionError, match="not positive"):
        module.check_witness(np.r_[1.0, -1.0, np.zeros(10)], X12)
    with pytest.raises(AssertionError, match="zero vector"):
        module.check_witness(np.zeros(12), X12)
    with pytest.raises(AssertionError, match="is None"):
        module.check_witness(None, X12)


def test_witness_checks_agree_on_random_zero_sum_vectors():
    """The self-check (Gram matrix) and the reference (moments) judge alike."""
    rng = np.random.default_rng(3)
    for _ in range(40):
        c = rng.standard_normal(12)
        c -= c.mean()
        K = np.subtract.outer(X12, X12) ** 4
        verdicts = []
        for module in (ch10, reference):
            try:
                module.check_witness(c, X12)
                verdicts.append(True)
            except AssertionError:
                verdicts.append(False)
        assert verdicts[0] == verdicts[1] == (c @ K @ c > 0)


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


@BOTH
def test_check_exp_power_accepts_right_answer(module, points, capsys):
    M = _min_eigs(points, lambda a: a)
    ok = np.all(M >= -1e-10, axis=1)
    assert ok.tolist() == [True, True, True, True, False, False]   # Schoenberg + powers
    module.check_exp_power_min_eigs(M, ok, points, EXPS, TS)
    _passed(module, capsys)


@BOTH
def test_check_exp_power_rejects_mistakes(module, points):
    """Mistakes: squared distance to the power a, exponent forgotten, the largest eigenvalue,
    wrong verdict, None, transposed."""
    M = _min_eigs(points, lambda a: a)
    ok = np.all(M >= -1e-10, axis=1)
    largest = np.array([[np.linalg.eigvalsh(np.exp(-t * cdist(points, points) ** a))[-1]
                         for t in TS] for a in EXPS])
    for wrong, match in [(_min_eigs(points, lambda a: 2 * a), "2a"),
                         (_min_eigs(points, lambda a: 1.0), "exponent a is missing"),
                         (largest, "smallest eigenvalue")]:
        with pytest.raises(AssertionError, match=match) as excinfo:
            module.check_exp_power_min_eigs(wrong, ok, points, EXPS, TS)
        _no_leak(excinfo)
    with pytest.raises(AssertionError, match="pd_all"):
        module.check_exp_power_min_eigs(M, np.ones(6, dtype=bool), points, EXPS, TS)
    with pytest.raises(AssertionError, match="is None"):
        module.check_exp_power_min_eigs(None, None, points, EXPS, TS)
    with pytest.raises(AssertionError, match="shape"):
        module.check_exp_power_min_eigs(M.T, ok, points, EXPS, TS)


def test_self_check_certificate_is_tight(points):
    """An entry moved by 1e-6 fails the self-check's certificate."""
    M = _min_eigs(points, lambda a: a)
    ok = np.all(M >= -1e-10, axis=1)
    M[2, 1] += 1e-6
    with pytest.raises(AssertionError, match="differs from the smallest"):
        ch10.check_exp_power_min_eigs(M, ok, points, EXPS, TS)


# --------------------------------------------------------------------------- #
# embedding of the l1 distance
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def l1_points():
    return np.random.default_rng(7).uniform(0.0, 1.0, (8, 2))


def _mds(K):
    """Reference: classical MDS, eigenvectors of -Q K Q / 2 (not the anchored matrix)."""
    n = len(K)
    Q = np.eye(n) - 1 / n
    d, U = np.linalg.eigh(-Q @ K @ Q / 2)
    keep = d > 1e-12 * d.max()
    return U[:, keep] * np.sqrt(d[keep])


@BOTH
def test_check_embedding_accepts_mds(module, l1_points, capsys):
    Phi = _mds(cdist(l1_points, l1_points, "cityblock"))
    module.check_embedding(Phi, l1_points)
    _passed(module, capsys)


@BOTH
def test_check_embedding_rejects_mistakes(module, l1_points):
    """Mistakes: missing 1/sqrt(2), the raw points, None, too few rows."""
    K = cdist(l1_points, l1_points, "cityblock")
    Phi = _mds(K)
    with pytest.raises(AssertionError, match="twice the kernel"):
        module.check_embedding(np.sqrt(2) * Phi, l1_points)
    with pytest.raises(AssertionError, match="do not reproduce"):
        module.check_embedding(l1_points, l1_points)
    with pytest.raises(AssertionError, match="is None"):
        module.check_embedding(None, l1_points)
    with pytest.raises(AssertionError, match="one row per point"):
        module.check_embedding(Phi[:5], l1_points)


# --------------------------------------------------------------------------- #
# the notebook: solutions pass, None stubs fail every check
# --------------------------------------------------------------------------- #
def test_notebook_checks_pass_with_solutions_and_fail_with_none_stubs(capsys, monkeypatch):
    """Solution notebook: every self-check passes and, substituted as the grader does, every
    reference check; with None stubs every check fails, both ways (one execution each)."""
    notebook.assert_sheet_passes_self_then_full(NOTEBOOK, ch10, reference, 5, capsys,
                                                monkeypatch)


# --------------------------------------------------------------------------- #
# the geodesic distance on the circle
# --------------------------------------------------------------------------- #
QUARTER = np.array([0.0, 0.5, 1.0, 1.5]) * np.pi
ALTERNATE = np.array([1.0, -1.0, 1.0, -1.0])


def test_circle_witness_closed_form():
    """Four points a quarter turn apart: c^T D^2 c = 2 pi^2 and the eigenvalue of
    exp(-t D^2) for c is 1 - 2a + b, a = exp(-t pi^2 / 4), b = exp(-t pi^2)."""
    gap = np.abs(QUARTER[:, None] - QUARTER[None, :])
    D2 = np.minimum(gap, 2 * np.pi - gap) ** 2
    assert np.isclose(ALTERNATE @ D2 @ ALTERNATE, 2 * np.pi**2, rtol=1e-12)
    lam = 1 - 2 * np.exp(-0.1 * np.pi**2 / 4) + np.exp(-0.1 * np.pi**2)
    assert np.isclose(np.linalg.eigvalsh(np.exp(-0.1 * D2))[0], lam, rtol=1e-10) and lam < -0.1


@BOTH
def test_circle_witness_accepts_a_counterexample(module, capsys):
    module.check_circle_witness(QUARTER + 0.3, ALTERNATE * 2.5, 0.1)   # rotated and rescaled
    _passed(module, capsys)


@BOTH
@pytest.mark.parametrize("theta, c, t, hint", [
    (QUARTER, np.zeros(4), 0.1, "zero vector"),
    (QUARTER, np.array([1.0, -1.0, 1.0, 0.0]), 0.1, "sum to zero"),
    (QUARTER, np.array([1.0, 1.0, -1.0, -1.0]), 0.1, "not positive"),   # a junk direction
    (np.array([0.0, 0.1, 0.2, 0.3]), ALTERNATE, 0.1, "not positive"),  # an arc: d is Euclidean
    (QUARTER, ALTERNATE, 10.0, "no eigenvalue"),                        # too large t here
    (QUARTER, ALTERNATE, -0.1, "positive number"),
    (None, ALTERNATE, 0.1, "None"),
])
def test_circle_witness_rejects_junk(module, theta, c, t, hint):
    with pytest.raises(AssertionError, match=hint) as excinfo:
        module.check_circle_witness(theta, c, t)
    _no_leak(excinfo)
