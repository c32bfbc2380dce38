"""Tests for the chapter-5 exercise checkers (kmlib.book.exercises.ch05).

Each checker must accept the right answer (computed here by an independent
route: an eigendecomposition, an explicit feature map, a dense eigensolver, exact
piecewise integration), accept it in another valid form, reject typical wrong
answers with a diagnosing message that does not contain the reference value, and
reject ``None``.  The last test runs the exercise notebook with solutions (every
check prints "Correct:") and with ``None`` stubs (every check fails).
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
def _eig_norm2(K, f):
    """Reference: f^T K^+ f from an eigendecomposition (positive eigenvalues only)."""
    nu, Q = np.linalg.eigh(K)
    keep = nu > 1e-10 * nu.max()
    c = Q[:, keep].T @ f
    return float(np.sum(c**2 / nu[keep]))


def test_check_finite_norm_accepts_the_eigen_route(capsys):
    K, f, _ = ch05.finite_data()
    ch05.check_finite_norm(_eig_norm2(K, f))
    assert "Correct:" in capsys.readouterr().out


def test_check_finite_norm_rejects_mistakes():
    K, f, _ = ch05.finite_data()
    ref = _eig_norm2(K, f)
    for wrong, match in [(f @ f, "Euclidean"), (f @ K @ f, "VALUES"), (np.sqrt(ref), "square root"),
                         (ref + 1.0, "pinv"), (None, "None")]:
        with pytest.raises(AssertionError, match=match) as err:
            ch05.check_finite_norm(wrong)
        _no_leak(str(err.value), ref)


def test_check_finite_membership_accepts_any_route_and_rejects_guesses(capsys):
    K, _, g = ch05.finite_data()
    nu, Q = np.linalg.eigh(K)
    Qr = Q[:, nu > 1e-10 * nu.max()]                    # eigen-route basis of the column space
    res = g - Qr @ (Qr.T @ g)
    ch05.check_finite_membership(False, res)
    ch05.check_finite_membership(np.False_, list(res))
    assert capsys.readouterr().out.count("Correct:") == 2
    for verdict, r, match in [(True, res, "contradicts"), (False, g - res, "ONTO"),
                              (True, np.zeros(5), "zero"), (False, res + 0.1, "orthogonal"),
                              (None, res, "True or False"), (False, None, "None")]:
        with pytest.raises(AssertionError, match=match):
            ch05.check_finite_membership(verdict, r)


# --------------------------------------------------------------------------- #
# projection
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def projection():
    """Reference by the interpolation conditions; residual norm computed directly."""
    k, X, alpha, Z = ch05.projection_data()
    c = np.linalg.solve(k(Z), k(Z, X) @ alpha)
    nf = alpha @ k(X) @ alpha
    XZ, ac = np.r_[X, Z], np.r_[alpha, -c]
    nr = ac @ k(XZ) @ ac                                    # direct, not Pythagoras
    return k, X, alpha, Z, c, nf, nr


def test_check_projection_accepts_the_answer(projection, capsys):
    k, X, alpha, Z, c, nf, nr = projection
    ch05.check_projection(c, nf, nr)
    ch05.check_projection(list(c), float(nf), nr)
    assert capsys.readouterr().out.count("Correct:") == 2


def test_check_projection_rejects_mistakes(projection):
    k, X, alpha, Z, c, nf, nr = projection
    for args, match in [((c, alpha @ alpha, nr), "alpha\\^T alpha"),
                        ((k(Z, X) @ alpha, nf, nr), "values"),
                        ((c * 1.1, nf, nr), "projection"),
                        ((c, nf, nf + c @ k(Z) @ c), "difference"),
                        ((None, nf, nr), "None")]:
        with pytest.raises(AssertionError, match=match):
            ch05.check_projection(*args)


# --------------------------------------------------------------------------- #
# Mercer grid
# --------------------------------------------------------------------------- #
def _grid_ev(points):
    return np.linalg.eigvalsh(np.minimum.outer(points, points) / 400)[::-1][:4]


def test_check_mercer_grid_accepts_dense_eigenvalues(capsys):
    """Reference: numpy's dense eigvalsh (the checker uses scipy's Lanczos eigsh)."""
    ch05.check_mercer_grid(_grid_ev((np.arange(1, 401) - 0.5) / 400))
    assert "Correct:" in capsys.readouterr().out


def test_check_mercer_grid_rejects_mistakes():
    ev = _grid_ev((np.arange(1, 401) - 0.5) / 400)
    mu = 4 / (np.pi**2 * (2 * np.arange(1, 5) - 1) ** 2)
    for wrong, match in [(ev[::-1], "decreasing"), (400 * ev, "eigenvalues of K"),
                         (_grid_ev(np.arange(1, 401) / 400), "midpoints"),
                         (mu, "closed-form"), (ev * 1.01, "largest eigenvalues"),
                         (None, "None")]:
        with pytest.raises(AssertionError, match=match):
            ch05.check_mercer_grid(wrong)


# --------------------------------------------------------------------------- #
# first-order Sobolev norm
# --------------------------------------------------------------------------- #
def test_check_sobolev1_norm_accepts_exact_quadrature(capsys):
    """Reference: Gauss-Legendre per piece (kmlib.book.rkhs); the checker uses alpha^T K alpha."""
    x, a = ch05.sobolev1_data()
    v = rkhs.piecewise_integral(lambda u: ((u[:, None] < x) @ a) ** 2, x, order=1)
    ch05.check_sobolev1_norm(v)
    assert "Correct:" in capsys.readouterr().out


def test_check_sobolev1_norm_rejects_mistakes_and_grid_quadrature():
    x, a = ch05.sobolev1_data()
    ref = float(a @ kernels.sobolev1()(x) @ a)
    u = np.linspace(0, 1, 1001)
    fp2 = ((u[:, None] < x) @ a) ** 2
    trapezoid = float(np.sum((fp2[1:] + fp2[:-1]) / 2) / 1000)        # passes only on a grid
    for wrong, match in [(a @ a, "alpha\\^T alpha"), (trapezoid, "exact"), (ref + 3.0, "not int"),
                         (None, "is None")]:
        with pytest.raises(AssertionError, match=match) as err:
            ch05.check_sobolev1_norm(wrong)
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
