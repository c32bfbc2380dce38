"""Tests for the chapter-5 exercise checkers (kmlib.book.exercises.ch05).

Each checker must accept the right answer (computed here by an independent
route: kmlib.book.rkhs, a pseudoinverse, the closed-form Mercer eigenvalues, the
quadratic form), reject typical wrong answers with a diagnosing message that
does not contain the reference value, and reject ``None``.  The last test runs
the exercise notebook with solutions (every check prints "Correct:") and with
``None`` stubs (every check fails).
"""
from __future__ import annotations

import re
from pathlib import Path

import _exercise_cells as notebook
import numpy as np
import pytest

from kmlib import kernels
from kmlib.book import rkhs
from kmlib.book.exercises import ch05

pytestmark = pytest.mark.filterwarnings("error")

NOTEBOOK = Path(__file__).resolve().parents[1] / "exercises" / "05_rkhs.md"


def _no_leak(message: str, value: float) -> None:
    """The message must not print the reference value (to 3 significant digits)."""
    for num in re.findall(r"-?\d+\.\d+(?:e-?\d+)?", message):
        assert not np.isclose(float(num), value, rtol=1e-3), f"{message!r} leaks {value}"


# --------------------------------------------------------------------------- #
# finite set
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def finite():
    B = np.random.default_rng(11).standard_normal((5, 3))
    K = B @ B.T
    f = K @ np.array([1.0, -1.0, 2.0, 0.0, 1.0])
    return K, f


def test_check_finite_norm_accepts_kmlib_value(finite, capsys):
    """Reference: kmlib.book.rkhs.finite_rkhs_norm2 (eigh) against the checker's least squares."""
    K, f = finite
    ch05.check_finite_norm(rkhs.finite_rkhs_norm2(f, K), K, f)
    assert capsys.readouterr().out.startswith("Correct:")


@pytest.mark.parametrize("wrong,match", [
    (lambda K, f: f @ f, "Euclidean"),
    (lambda K, f: f @ K @ f, "VALUES"),
    (lambda K, f: np.sqrt(f @ np.linalg.pinv(K) @ f), "square root"),
    (lambda K, f: 1.0, "not f\\^T K\\^\\+ f"),
    (lambda K, f: None, "is None"),
])
def test_check_finite_norm_rejects_mistakes(finite, wrong, match):
    K, f = finite
    with pytest.raises(AssertionError, match=match) as err:
        ch05.check_finite_norm(wrong(K, f), K, f)
    _no_leak(str(err.value), float(f @ np.linalg.pinv(K) @ f))


def test_check_finite_membership(finite, capsys):
    """Reference: the null space of K is 2-dimensional, so e_1 is generically outside the range."""
    K, f = finite
    ch05.check_finite_membership(False, K, np.eye(5)[0])
    ch05.check_finite_membership(True, K, f)
    assert capsys.readouterr().out.count("Correct:") == 2
    with pytest.raises(AssertionError, match="column space"):
        ch05.check_finite_membership(True, K, np.eye(5)[0])
    with pytest.raises(AssertionError, match="is None"):
        ch05.check_finite_membership(None, K, f)
    with pytest.raises(AssertionError, match="True or False"):
        ch05.check_finite_membership("yes", K, f)


# --------------------------------------------------------------------------- #
# projection
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def proj():
    k = kernels.gaussian(sigma=0.3)
    X = np.linspace(0, 1, 8)
    alpha = np.random.default_rng(12).standard_normal(8)
    Z = np.array([0.1, 0.5, 0.9])
    c = rkhs.project(k, X, alpha, Z)
    nf = rkhs.expansion_inner(k, X, alpha, X, alpha)
    XZ, ac = np.r_[X, Z], np.r_[alpha, -c]
    nr = rkhs.expansion_inner(k, XZ, ac, XZ, ac)          # direct, not Pythagoras
    return k, X, alpha, Z, c, nf, nr


def test_check_projection_accepts_direct_residual_norm(proj, capsys):
    k, X, alpha, Z, c, nf, nr = proj
    ch05.check_projection(c, nf, nr, k, X, alpha, Z)
    assert capsys.readouterr().out.startswith("Correct:")


def test_check_projection_rejects_mistakes(proj):
    k, X, alpha, Z, c, nf, nr = proj
    with pytest.raises(AssertionError, match="alpha\\^T alpha"):
        ch05.check_projection(c, alpha @ alpha, nr, k, X, alpha, Z)
    with pytest.raises(AssertionError, match="values f\\(z_j\\)"):
        ch05.check_projection(k(Z, X) @ alpha, nf, nr, k, X, alpha, Z)
    with pytest.raises(AssertionError, match="not the projection"):
        ch05.check_projection(c * 1.1, nf, nr, k, X, alpha, Z)
    with pytest.raises(AssertionError, match="Pythagoras") as err:
        ch05.check_projection(c, nf, nf + c @ k(Z) @ c, k, X, alpha, Z)
    _no_leak(str(err.value), nr)
    with pytest.raises(AssertionError, match="is None"):
        ch05.check_projection(None, nf, nr, k, X, alpha, Z)


# --------------------------------------------------------------------------- #
# Mercer eigenvalues on a grid
# --------------------------------------------------------------------------- #
def test_check_mercer_grid_accepts_kmlib_eigenvalues(capsys):
    """Reference: kmlib.book.rkhs.grid_eigenvalues (scipy eigh with an index subset)."""
    ch05.check_mercer_grid(rkhs.grid_eigenvalues(400, 4), 400, 4)
    assert capsys.readouterr().out.startswith("Correct:")


def test_check_mercer_grid_rejects_mistakes():
    ev = rkhs.grid_eigenvalues(400, 4)
    x = np.arange(1, 401) / 400
    ends = np.linalg.eigvalsh(np.minimum.outer(x, x) / 400)[::-1][:4]
    for wrong, match in [(ev[::-1], "decreasing"), (400 * ev, "K / n"), (ends, "midpoints"),
                         (ev * 1.01, "largest eigenvalues"), (None, "is None"), (ev[:3], "shape")]:
        with pytest.raises(AssertionError, match=match):
            ch05.check_mercer_grid(wrong, 400, 4)


# --------------------------------------------------------------------------- #
# first-order Sobolev norm
# --------------------------------------------------------------------------- #
X5 = np.array([0.13, 0.41, 0.57, 0.78, 0.94])
A5 = np.array([1.0, -2.0, 0.5, 1.5, -1.0])


def test_check_sobolev1_norm_accepts_piecewise_integral(capsys):
    """Reference: kmlib.book.rkhs.piecewise_integral of f'^2 (the checker uses alpha^T K alpha)."""
    v = rkhs.piecewise_integral(lambda u: rkhs.sobolev1_derivative(X5, A5, u) ** 2, X5, order=1)
    ch05.check_sobolev1_norm(v, X5, A5)
    assert capsys.readouterr().out.startswith("Correct:")


def test_check_sobolev1_norm_rejects_mistakes():
    ref = float(A5 @ np.minimum.outer(X5, X5) @ A5)
    u = np.linspace(0, 1, 201)
    riemann = float(np.mean(rkhs.sobolev1_derivative(X5, A5, u) ** 2))
    for wrong, match in [(A5 @ A5, "alpha\\^T alpha"), (riemann, "exact"), (ref + 3.0, "not int"),
                         (None, "is None")]:
        with pytest.raises(AssertionError, match=match) as err:
            ch05.check_sobolev1_norm(wrong, X5, A5)
        _no_leak(str(err.value), ref)


# --------------------------------------------------------------------------- #
# the notebook
# --------------------------------------------------------------------------- #
def test_notebook_checks_pass_with_solutions_and_fail_with_none_stubs(capsys):
    """Solution notebook: all checks print Correct. Student stubs (None): every check fails."""
    cells = notebook.code_cells(NOTEBOOK)
    checks = notebook.check_sources(cells)
    assert len(checks) == 4
    notebook.run_with_solutions(cells)
    assert capsys.readouterr().out.count("Correct:") == 5
    notebook.assert_checks_fail_with_none_stubs(cells)
