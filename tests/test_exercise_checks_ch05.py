"""Tests for the chapter-5 checks: the self-checks that ship (kmlib.book.exercises.ch05) and
the lecturer's full checks (scripts/_grading/reference/ch05.py).

Both must accept the right answer (computed here by an independent route: an
eigendecomposition, an explicit feature map, a dense eigensolver, exact piecewise
integration), accept it in another valid form, and reject ``None``. The full check must
reject typical wrong answers with a diagnosing message that does not contain the reference
value; the self-check those its properties can tell (orthogonality, interpolation
equations, Pythagoras, order, trace and the midpoint rule's error, the hashes of the sheet's
answers). The last test runs the exercise notebook with solutions (self-checks, then the
full checks in their place as when grading) and with ``None`` stubs.
"""
from __future__ import annotations

import re
from pathlib import Path

import _exercise_cells as notebook
import numpy as np
import pytest
from _exercise_cells import SELF, self_and_full
from _grading.reference import ch05 as ref

from kmlib import kernels
from kmlib.book import rkhs
from kmlib.book.exercises import ch05

pytestmark = pytest.mark.filterwarnings("error")

NOTEBOOK = Path(__file__).resolve().parents[1] / "exercises" / "05_rkhs.md"


_both, _rejected = self_and_full(ch05, ref)


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
    _both(capsys, lambda m: m.check_finite_norm(_eig_norm2(K, f)))


def test_check_finite_norm_rejects_mistakes():
    K, f, _ = ch05.finite_data()
    ref_value = _eig_norm2(K, f)
    for wrong, match in [(f @ f, "Euclidean"), (f @ K @ f, "VALUES"),
                         (np.sqrt(ref_value), "square root"), (ref_value + 1.0, "pinv"),
                         (None, "None")]:
        for message in _rejected(lambda m, wrong=wrong: m.check_finite_norm(wrong), match, match):
            _no_leak(message, ref_value)


def test_check_finite_membership_accepts_any_route_and_rejects_guesses(capsys):
    K, _, g = ch05.finite_data()
    nu, Q = np.linalg.eigh(K)
    Qr = Q[:, nu > 1e-10 * nu.max()]                    # eigen-route basis of the column space
    res = g - Qr @ (Qr.T @ g)
    _both(capsys, lambda m: m.check_finite_membership(False, res))
    _both(capsys, lambda m: m.check_finite_membership(np.False_, list(res)))
    null = Q[:, nu <= 1e-10 * nu.max()]                 # orthogonal to the column space too
    for verdict, r, match, self_match in [
            (True, res, "contradicts", "contradicts"), (False, g - res, "ONTO", "ONTO"),
            (True, np.zeros(5), "zero", "zero"), (False, res + 0.1, "orthogonal", "orthogonal"),
            (False, null[:, 0], "orthogonal", "not the component"),
            (None, res, "True or False", "True or False"), (False, None, "None", "None")]:
        _rejected(lambda m, v=verdict, r=r: m.check_finite_membership(v, r), match, self_match)


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
    _both(capsys, lambda m: m.check_projection(c, nf, nr))
    _both(capsys, lambda m: m.check_projection(list(c), float(nf), nr))


def test_check_projection_rejects_mistakes(projection):
    """Every mistake breaks the hash of norm2_f, the interpolation equations or Pythagoras."""
    k, X, alpha, Z, c, nf, nr = projection
    for args, match in [((c, alpha @ alpha, nr), "alpha\\^T alpha"),
                        ((k(Z, X) @ alpha, nf, nr), "values"),
                        ((c * 1.1, nf, nr), "projection"),
                        ((c, nf, nf + c @ k(Z) @ c), "difference"),
                        ((c, nf, nr * 1.01), "norm2_res"),
                        ((None, nf, nr), "None")]:
        _rejected(lambda m, args=args: m.check_projection(*args), match, match)


# --------------------------------------------------------------------------- #
# Mercer grid
# --------------------------------------------------------------------------- #
def _grid_ev(points):
    return np.linalg.eigvalsh(np.minimum.outer(points, points) / 400)[::-1][:4]


def test_check_mercer_grid_accepts_dense_eigenvalues(capsys):
    """Reference: numpy's dense eigvalsh (the full check uses scipy's Lanczos eigsh)."""
    _both(capsys, lambda m: m.check_mercer_grid(_grid_ev((np.arange(1, 401) - 0.5) / 400)))


def test_check_mercer_grid_rejects_mistakes():
    ev = _grid_ev((np.arange(1, 401) - 0.5) / 400)
    mu = 4 / (np.pi**2 * (2 * np.arange(1, 5) - 1) ** 2)
    for wrong, match in [(ev[::-1], "decreasing"), (400 * ev, "eigenvalues of K"),
                         (_grid_ev(np.arange(1, 401) / 400), "midpoints"),
                         (mu, "closed-form"), (ev * 1.01, "largest eigenvalues"),
                         (ev * (1 + 1e-5), "largest eigenvalues"), (None, "None")]:
        _rejected(lambda m, wrong=wrong: m.check_mercer_grid(wrong), match, match)


def test_check_mercer_grid_cannot_identify_the_eigenvalues(capsys):
    """Brute force over the six-significant-digit candidates near each eigenvalue (ten units of
    the last digit either side, one coordinate at a time): the self-check accepts several of them
    for every coordinate, so trying candidates does not reveal the grid eigenvalues."""
    ev = _grid_ev((np.arange(1, 401) - 0.5) / 400)
    assert not any(k.startswith("ev[") for k in ch05.DIGESTS)
    for j in range(4):
        unit = 10.0 ** (np.floor(np.log10(ev[j])) - 5)
        passed = 0
        for step in range(-10, 11):
            cand = ev.copy()
            cand[j] = float(f"{ev[j]:.5e}") + step * unit
            try:
                ch05.check_mercer_grid(cand)
                passed += 1
            except AssertionError:
                pass
        assert passed >= 2, (j, passed)
    capsys.readouterr()


def test_check_mercer_grid_on_another_grid_gets_the_properties_only(capsys):
    """n = 200: no hash; the midpoint rule's error bound still holds, the end points fail it."""
    x = (np.arange(1, 201) - 0.5) / 200
    ev = np.linalg.eigvalsh(np.minimum.outer(x, x) / 200)[::-1][:4]
    _both(capsys, lambda m: m.check_mercer_grid(ev, n=200))
    xe = np.arange(1, 201) / 200
    ends = np.linalg.eigvalsh(np.minimum.outer(xe, xe) / 200)[::-1][:4]
    _rejected(lambda m: m.check_mercer_grid(ends, n=200), "midpoints", "midpoints")


# --------------------------------------------------------------------------- #
# first-order Sobolev norm
# --------------------------------------------------------------------------- #
def test_check_sobolev1_norm_accepts_exact_quadrature(capsys):
    """Reference: Gauss-Legendre per piece (kmlib.book.rkhs); the full check uses
    alpha^T K alpha."""
    x, a = ch05.sobolev1_data()
    v = rkhs.piecewise_integral(lambda u: ((u[:, None] < x) @ a) ** 2, x, order=1)
    _both(capsys, lambda m: m.check_sobolev1_norm(v))


def test_check_sobolev1_norm_rejects_mistakes_and_grid_quadrature():
    x, a = ch05.sobolev1_data()
    ref_value = float(a @ kernels.sobolev1()(x) @ a)
    u = np.linspace(0, 1, 1001)
    fp2 = ((u[:, None] < x) @ a) ** 2
    trapezoid = float(np.sum((fp2[1:] + fp2[:-1]) / 2) / 1000)        # passes only on a grid
    for wrong, match in [(a @ a, "alpha\\^T alpha"), (trapezoid, "exact"),
                         (ref_value + 3.0, "not int"), (None, "is None")]:
        for message in _rejected(lambda m, wrong=wrong: m.check_sobolev1_norm(wrong), match, match):
            _no_leak(message, ref_value)


def test_sobolev1_norm_right_to_six_digits_passes_only_the_self_check(capsys):
    """Off by 5e-7 (relative): six significant digits of 3.94918 match the hash, the full
    check's tolerance of 1e-9 does not."""
    x, a = ch05.sobolev1_data()
    near = float(a @ kernels.sobolev1()(x) @ a) * (1 + 5e-7)
    _rejected(lambda m: m.check_sobolev1_norm(near), "exact", None)
    assert capsys.readouterr().out.startswith(SELF)


# --------------------------------------------------------------------------- #
# the notebook
# --------------------------------------------------------------------------- #
def test_the_self_checks_hashes_are_the_sheets_answers(projection):
    """Each digest in ch05 recognises the answer computed here by an independent route."""
    K, f, g = ch05.finite_data()
    assert ch05._known(_eig_norm2(K, f), "finite:norm2_f")
    nu, Q = np.linalg.eigh(K)
    Qr = Q[:, nu > 1e-10 * nu.max()]
    assert all(ch05._known(v, f"g_res[{i}]") for i, v in enumerate(g - Qr @ (Qr.T @ g)))
    assert ch05._known(projection[5], "projection:norm2_f")
    x, a = ch05.sobolev1_data()
    assert ch05._known(rkhs.piecewise_integral(lambda u: ((u[:, None] < x) @ a) ** 2, x, order=1),
                       "norm2")


def test_notebook_passes_self_checks_and_full_checks_and_stubs_fail(capsys, monkeypatch):
    """Solution notebook: every check passes, the self-checks and then, in their place as
    when grading, the full checks. Student stubs (None): every check fails."""
    notebook.assert_sheet_passes_self_then_full(NOTEBOOK, ch05, ref, 5, capsys, monkeypatch)
