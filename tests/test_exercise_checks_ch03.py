"""Tests for the chapter-3 exercise checkers (kmlib.book.exercises.ch03).

Each checker must accept the right answer (computed here by an independent
route: np.linalg.cond, math.comb, lstsq, brute-force truncation, explicit
features), reject typical wrong answers with a diagnosing message that does not
contain the reference value, and reject ``None``.  The last test runs the
exercise notebook with every solution cell replaced by ``None`` stubs and
requires every check cell to fail.
"""
from __future__ import annotations

import math
from pathlib import Path

import _exercise_cells as notebook
import numpy as np
import pytest

from kmlib.book import kernel_trick as kt
from kmlib.book.exercises import ch03

pytestmark = pytest.mark.filterwarnings("error")

NOTEBOOK = Path(__file__).resolve().parents[1] / "exercises" / "03_kernel_trick.md"


def _no_leak(excinfo, *values):
    """The failure message must not print the reference answer."""
    msg = str(excinfo.value)
    for v in values:
        for fmt in ("{:.4g}", "{:.3g}", "{:.6g}", "{:d}" if float(v).is_integer() else "{:.5f}"):
            text = fmt.format(int(v) if fmt == "{:d}" else v)
            assert text not in msg, f"message leaks {text}: {msg}"


# --------------------------------------------------------------------------- #
# condition numbers
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def tall():
    return np.random.default_rng(0).standard_normal((100, 10))


def _conds(Phi, lam):
    n, M = Phi.shape
    return (np.linalg.cond(Phi.T @ Phi + lam * np.eye(M)),
            np.linalg.cond(Phi @ Phi.T + lam * np.eye(n)))


@pytest.mark.parametrize("shape", [(100, 10), (10, 100)])
def test_check_condition_numbers_accepts_np_cond(shape, capsys):
    """Reference: np.linalg.cond of the two explicit matrices (the checker uses the SVD of Phi)."""
    Phi = np.random.default_rng(1).standard_normal(shape)
    ch03.check_condition_numbers(*_conds(Phi, 0.1), Phi, 0.1)
    assert capsys.readouterr().out.startswith("Correct:")


def test_condition_numbers_match_the_approximate_published_sizes(tall):
    """Sanity: with lam = 0.1, kappa(H_P) is a few units and kappa(H_D) is of order 10^3
    for 100 x 10."""
    kP, kD = _conds(tall, 0.1)
    assert 2 < kP < 5 and 1000 < kD < 3000


def test_check_condition_numbers_rejects_mistakes(tall):
    """Mistakes: swapped, unshifted cond(Phi), None, and a wrong lam."""
    kP, kD = _conds(tall, 0.1)
    with pytest.raises(AssertionError, match="swapped") as e:
        ch03.check_condition_numbers(kD, kP, tall, 0.1)
    _no_leak(e, kP, kD)
    s = np.linalg.svd(tall, compute_uv=False)
    with pytest.raises(AssertionError, match="without the shift") as e:
        ch03.check_condition_numbers(s[0] / s[-1], kD, tall, 0.1)
    _no_leak(e, kP, kD)
    with pytest.raises(AssertionError, match="extra|some of its eigenvalues equal lam") as e:
        ch03.check_condition_numbers(kP, _conds(tall, 1.0)[1], tall, 0.1)
    _no_leak(e, kP, kD)
    with pytest.raises(AssertionError, match="is None"):
        ch03.check_condition_numbers(None, None, tall, 0.1)


# --------------------------------------------------------------------------- #
# monomial counts
# --------------------------------------------------------------------------- #
PAIRS = [(1, 3), (3, 5), (5, 10), (10, 10), (10, 15), (100, 3)]


def test_check_monomial_counts_accepts_brute_force_and_comb(capsys):
    """Reference: math.comb, and brute-force enumeration for the small pairs."""
    right = [math.comb(d + p, p) for d, p in PAIRS]
    assert right[:3] == [len(kt.monomial_exponents(d, p)) for d, p in PAIRS[:3]]
    ch03.check_monomial_counts(right, PAIRS)
    assert capsys.readouterr().out.startswith("Correct:")


@pytest.mark.parametrize("mistake,match", [
    (lambda d, p: math.comb(d + p - 1, p), "degree exactly p"),
    (lambda d, p: p ** d, "power"),
    (lambda d, p: math.comb(2 * d, d) if (d, p) == (10, 15) else math.comb(d + p, p), "d = p"),
    (lambda d, p: math.comb(d + p, p) + (d == 100), "wrong"),
])
def test_check_monomial_counts_rejects_mistakes(mistake, match):
    with pytest.raises(AssertionError, match=match) as e:
        ch03.check_monomial_counts([mistake(d, p) for d, p in PAIRS], PAIRS)
    _no_leak(e, 3268760, 176851)


def test_check_monomial_counts_rejects_none_and_shape():
    with pytest.raises(AssertionError, match="is None"):
        ch03.check_monomial_counts(None, PAIRS)
    with pytest.raises(AssertionError, match="shape"):
        ch03.check_monomial_counts([4, 56], PAIRS)


# --------------------------------------------------------------------------- #
# pseudoinverse dual
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def rank6():
    rng = np.random.default_rng(3)
    Phi = rng.standard_normal((10, 6)) @ rng.standard_normal((6, 30))
    return Phi, rng.standard_normal(10)


def test_check_pinv_dual_accepts_both_pinv_routes(rank6, capsys):
    """Reference: the two pseudoinverse expressions of the chapter (checker uses lstsq)."""
    Phi, y = rank6
    ch03.check_pinv_dual(Phi.T @ np.linalg.pinv(Phi @ Phi.T) @ y, Phi, y)
    ch03.check_pinv_dual(np.linalg.pinv(Phi.T @ Phi) @ Phi.T @ y, Phi, y)
    assert capsys.readouterr().out.count("Correct:") == 2


def test_check_pinv_dual_rejects_mistakes(rank6):
    """Mistakes: a non-minimum-norm solution, a forgotten Phi^T, None."""
    Phi, y = rank6
    w = np.linalg.lstsq(Phi, y, rcond=None)[0]
    z = np.linalg.svd(Phi)[2][-1]
    with pytest.raises(AssertionError, match="minimum-norm"):
        ch03.check_pinv_dual(w + z, Phi, y)
    with pytest.raises(AssertionError, match="does not minimise|does not fit"):
        ch03.check_pinv_dual(0.5 * w, Phi, y)
    with pytest.raises(AssertionError, match="is None"):
        ch03.check_pinv_dual(None, Phi, y)


# --------------------------------------------------------------------------- #
# Gaussian truncation
# --------------------------------------------------------------------------- #
def _brute_M():
    xs = np.linspace(-2, 2, 41)
    K = np.exp(-0.5 * (xs[:, None] - xs[None, :]) ** 2)
    for M in range(1, 60):
        F = kt.gaussian_features_1d(xs, 1.0, M)
        if np.abs(F @ F.T - K).max() < 1e-10:
            return M
    raise AssertionError("no M found")


def test_check_gaussian_terms_accepts_brute_force(capsys):
    """Reference: truncated feature maps on the grid (checker uses the incomplete gamma
    function)."""
    ch03.check_gaussian_terms(_brute_M())
    assert capsys.readouterr().out.startswith("Correct:")


def test_check_gaussian_terms_rejects_mistakes():
    M = _brute_M()
    bound_M = next(M for M in range(1, 60) if 4.0**M / math.factorial(M) < 1e-10)   # 4^M/M!
    assert bound_M > M
    with pytest.raises(AssertionError, match="bound") as e:
        ch03.check_gaussian_terms(bound_M)
    _no_leak(e, M)
    with pytest.raises(AssertionError, match="off by one") as e:
        ch03.check_gaussian_terms(M - 1)
    with pytest.raises(AssertionError, match="whole number"):
        ch03.check_gaussian_terms(2.5)
    with pytest.raises(AssertionError, match="is None"):
        ch03.check_gaussian_terms(None)


# --------------------------------------------------------------------------- #
# spectral cut-off
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def cut_problem():
    rng = np.random.default_rng(4)
    U = np.linalg.qr(rng.standard_normal((15, 6)))[0]
    V = np.linalg.qr(rng.standard_normal((9, 6)))[0]
    Phi = U @ np.diag([2.0, 1.0, 0.3, 0.1, 0.03, 0.001]) @ V.T
    return Phi, rng.standard_normal(15)


def _filtered(Phi, y, g):
    """w = V g(sigma) U^T y from one SVD (the checker uses a truncated pinv instead)."""
    U, s, Vt = np.linalg.svd(Phi, full_matrices=False)
    return Vt.T @ (g(s) * (U.T @ y))


def _cut(thr):
    return lambda s: np.where(s > thr, 1.0 / s, 0.0)


def test_check_cutoff_accepts_svd_filter(cut_problem, capsys):
    """Reference: the cut-off filter applied to one SVD (the checker uses a truncated pinv)."""
    Phi, y = cut_problem
    ch03.check_cutoff(_filtered(Phi, y, _cut(0.05)), Phi, y, 0.05)
    assert capsys.readouterr().out.startswith("Correct:")


def test_check_cutoff_rejects_mistakes(cut_problem):
    Phi, y = cut_problem
    with pytest.raises(AssertionError, match="sigma\\^2 > lam"):
        ch03.check_cutoff(_filtered(Phi, y, _cut(np.sqrt(0.05))), Phi, y, 0.05)
    with pytest.raises(AssertionError, match="plain pseudoinverse"):
        ch03.check_cutoff(_filtered(Phi, y, _cut(1e-12)), Phi, y, 0.05)
    with pytest.raises(AssertionError, match="ridge"):
        ch03.check_cutoff(_filtered(Phi, y, lambda s: s / (s**2 + 0.05)), Phi, y, 0.05)
    with pytest.raises(AssertionError, match="is None"):
        ch03.check_cutoff(None, Phi, y, 0.05)


# --------------------------------------------------------------------------- #
# kernel predictions
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def kdata():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((25, 3))
    y = X[:, 0] * X[:, 1] + 0.1 * rng.standard_normal(25)
    return X, y, rng.standard_normal((8, 3))


def test_check_kernel_predictions_accepts_dual_route(kdata, capsys):
    """Reference: the dual route with kmlib.kernels (checker uses explicit features, primal)."""
    from kmlib import kernels
    X, y, Xn = kdata
    k = kernels.polynomial(2, 1.0)
    f = k(Xn, X) @ np.linalg.solve(k(X) + 0.5 * np.eye(25), y)
    ch03.check_kernel_predictions(f, X, y, Xn, 0.5)
    assert capsys.readouterr().out.startswith("Correct:")


def test_check_kernel_predictions_rejects_mistakes(kdata):
    X, y, Xn = kdata
    K, Kn = (1 + X @ X.T) ** 2, (1 + Xn @ X.T) ** 2
    with pytest.raises(AssertionError, match="unpenalised"):
        ch03.check_kernel_predictions(Kn @ np.linalg.pinv(K, hermitian=True) @ y, X, y, Xn, 0.5)
    with pytest.raises(AssertionError, match="squared"):
        ch03.check_kernel_predictions(
            (1 + Xn @ X.T) @ np.linalg.solve(1 + X @ X.T + 0.5 * np.eye(25), y), X, y, Xn, 0.5)
    with pytest.raises(AssertionError, match="k_x\\^T alpha"):
        ch03.check_kernel_predictions(Kn @ np.linalg.solve(K + 5.0 * np.eye(25), y), X, y, Xn, 0.5)
    with pytest.raises(AssertionError, match="shape"):
        ch03.check_kernel_predictions(np.zeros(3), X, y, Xn, 0.5)


# --------------------------------------------------------------------------- #
# the notebook: solutions pass, None stubs fail every check
# --------------------------------------------------------------------------- #
def test_notebook_checks_pass_with_solutions_and_fail_with_none_stubs(capsys):
    """Solution notebook: all checks print Correct. Student stubs (None): every check fails."""
    cells = notebook.code_cells(NOTEBOOK)
    checks = notebook.check_sources(cells)
    assert len(checks) == 6
    notebook.run_with_solutions(cells)
    assert capsys.readouterr().out.count("Correct:") == 7
    notebook.assert_checks_fail_with_none_stubs(cells)
