"""Tests for the chapter-3 checks: the self-checks that ship (kmlib.book.exercises.ch03) and
the lecturer's full checks (scripts/_grading/reference/ch03.py).

Both must accept the right answer (computed here by an independent route: np.linalg.cond,
math.comb, lstsq, brute-force truncation, explicit features) and reject ``None``. The full
check must reject typical wrong answers with a diagnosing message that does not contain the
reference value; the self-check those its properties can tell (bounds, normal equations,
row space, projection, the hashes of the sheet's answers and of typical wrong answers). The
last test runs the exercise notebook with the solutions (self-checks, then the full checks
in their place as when grading) and with ``None`` stubs, where every check cell must fail.
"""
from __future__ import annotations

import math
from pathlib import Path

import _exercise_cells as notebook
import numpy as np
import pytest
from _exercise_cells import self_and_full
from _grading.reference import ch03 as ref

from kmlib.book import kernel_trick as kt
from kmlib.book.exercises import ch03
from kmlib.book.exercises._answers import matches_digest

pytestmark = pytest.mark.filterwarnings("error")

NOTEBOOK = Path(__file__).resolve().parents[1] / "exercises" / "03_kernel_trick.md"


_both, _ = self_and_full(ch03, ref)


def _rejected(call, full: str, self_check: str | None, *no_leak) -> None:
    """The full check rejects with ``full``; the self-check with ``self_check``, or passes
    (None: its properties cannot tell this mistake). Neither message shows ``no_leak``."""
    with pytest.raises(AssertionError, match=full) as e:
        call(ref)
    _no_leak(e, *no_leak)
    if self_check is None:
        call(ch03)
    else:
        with pytest.raises(AssertionError, match=self_check) as e:
            call(ch03)
        _no_leak(e, *no_leak)


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
    """Reference: np.linalg.cond of the two explicit matrices (the full check uses the SVD of
    Phi)."""
    Phi = np.random.default_rng(1).standard_normal(shape)
    _both(capsys, lambda m: m.check_condition_numbers(*_conds(Phi, 0.1), Phi, 0.1))


def test_condition_numbers_match_the_approximate_published_sizes(tall):
    """Sanity: with lam = 0.1, kappa(H_P) is a few units and kappa(H_D) is of order 10^3
    for 100 x 10."""
    kP, kD = _conds(tall, 0.1)
    assert 2 < kP < 5 and 1000 < kD < 3000


def test_check_condition_numbers_rejects_mistakes(tall, capsys):
    """Mistakes: swapped, unshifted cond(Phi), a wrong lam, None. On the sheet's matrix the
    hash tells the unshifted ratio, which differs from kappa_P by 1e-3 only."""
    kP, kD = _conds(tall, 0.1)
    _both(capsys, lambda m: m.check_condition_numbers(kP, kD, tall, 0.1))
    _rejected(lambda m: m.check_condition_numbers(kD, kP, tall, 0.1), "swapped", "swapped",
              kP, kD)
    s = np.linalg.svd(tall, compute_uv=False)
    _rejected(lambda m: m.check_condition_numbers((s[0] / s[-1]) ** 2, kD, tall, 0.1),
              "without the shift", "shift lam I", kP, kD)
    _rejected(lambda m: m.check_condition_numbers(kP, _conds(tall, 1.0)[1], tall, 0.1),
              "extra|some of its eigenvalues equal lam", "some of its eigenvalues equal lam",
              kP, kD)
    _rejected(lambda m: m.check_condition_numbers(None, None, tall, 0.1), "is None", "is None")


# --------------------------------------------------------------------------- #
# monomial counts
# --------------------------------------------------------------------------- #
PAIRS = [(1, 3), (3, 5), (5, 10), (10, 10), (10, 15), (100, 3)]


def test_check_monomial_counts_accepts_brute_force_and_comb(capsys):
    """Reference: math.comb, and brute-force enumeration for the small pairs."""
    right = [math.comb(d + p, p) for d, p in PAIRS]
    assert right[:3] == [len(kt.monomial_exponents(d, p)) for d, p in PAIRS[:3]]
    _both(capsys, lambda m: m.check_monomial_counts(right, PAIRS))


@pytest.mark.parametrize("mistake,match,self_match", [
    (lambda d, p: math.comb(d + p - 1, p), "degree exactly m", None),
    (lambda d, p: p ** d, "power", "power"),
    (lambda d, p: (p + 1) ** d, "wrong|power", "every entry at most m"),
    (lambda d, p: math.comb(2 * d, d) if (d, p) == (10, 15) else math.comb(d + p, p), "d = m",
     None),
    (lambda d, p: math.comb(d + p, p) + (d == 100), "wrong", None),
])
def test_check_monomial_counts_rejects_mistakes(mistake, match, self_match):
    """The full check names the mistake; the self-check, which has bounds only, names the
    mistakes its bounds tell ((m+1)^d and m^d) and lets the others through."""
    _rejected(lambda m: m.check_monomial_counts([mistake(d, p) for d, p in PAIRS], PAIRS), match,
              self_match, 3268760, 176851)


def test_monomial_self_check_cannot_be_enumerated():
    """Brute force over every candidate count of each small pair (and a window around the
    large ones): at least two candidates pass the self-check for every pair, so repeated
    calls cannot single out the answer."""
    right = [math.comb(d + p, p) for d, p in PAIRS]
    for i, (d, p) in enumerate(PAIRS):
        top = min((p + 1) ** d, 5000)
        cands = list(range(1, top + 1)) if top < 5000 else list(range(right[i] - 2000,
                                                                       right[i] + 2000))
        passed = 0
        for c in cands:
            table = list(right)
            table[i] = c
            try:
                ch03.check_monomial_counts(table, PAIRS)
                passed += 1
            except AssertionError:
                pass
        assert passed >= 2 and passed >= len(cands) // 2, (d, p, passed)


def test_check_monomial_counts_rejects_none_and_shape():
    _rejected(lambda m: m.check_monomial_counts(None, PAIRS), "is None", "is None")
    _rejected(lambda m: m.check_monomial_counts([4, 56], PAIRS), "shape", "shape")


# --------------------------------------------------------------------------- #
# pseudoinverse dual
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def rank6():
    rng = np.random.default_rng(3)
    Phi = rng.standard_normal((10, 6)) @ rng.standard_normal((6, 30))
    return Phi, rng.standard_normal(10)


def test_check_pinv_dual_accepts_both_pinv_routes(rank6, capsys):
    """Reference: the two pseudoinverse expressions of the chapter (the full check uses
    lstsq)."""
    Phi, y = rank6
    _both(capsys, lambda m: m.check_pinv_dual(Phi.T @ np.linalg.pinv(Phi @ Phi.T) @ y, Phi, y))
    _both(capsys, lambda m: m.check_pinv_dual(np.linalg.pinv(Phi.T @ Phi) @ Phi.T @ y, Phi, y))


def test_check_pinv_dual_rejects_mistakes(rank6):
    """Mistakes: a non-minimum-norm solution, half the answer, an inverse of the singular Gram
    matrix, None. The normal equations and the row space tell all of them."""
    Phi, y = rank6
    w = np.linalg.lstsq(Phi, y, rcond=None)[0]
    z = np.linalg.svd(Phi)[2][-1]
    _rejected(lambda m: m.check_pinv_dual(w + z, Phi, y), "minimum-norm", "minimum-norm")
    _rejected(lambda m: m.check_pinv_dual(0.5 * w, Phi, y), "does not minimise|does not fit",
              "does not minimise|does not fit")
    tiny = Phi.T @ np.linalg.pinv(Phi @ Phi.T, rcond=1e-18) @ y     # keeps round-off eigenvalues
    if not np.allclose(tiny, w, atol=1e-6):
        _rejected(lambda m: m.check_pinv_dual(tiny, Phi, y), "does not minimise|minimum-norm",
                  "does not minimise|minimum-norm")
    _rejected(lambda m: m.check_pinv_dual(None, Phi, y), "is None", "is None")


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
    """Reference: truncated feature maps on the grid (the full check uses the incomplete gamma
    function)."""
    M = _brute_M()
    _both(capsys, lambda m: m.check_gaussian_terms(M))


def test_check_gaussian_terms_rejects_mistakes():
    """The full check names each mistake; the self-check (a bound only) rejects what lies
    beyond the bound and lets the near misses through."""
    M = _brute_M()
    bound_M = next(M for M in range(1, 60) if 4.0**M / math.factorial(M) < 1e-10)   # 4^M/M!
    assert bound_M > M
    _rejected(lambda m: m.check_gaussian_terms(bound_M), "bound", None, M)
    _rejected(lambda m: m.check_gaussian_terms(bound_M + 1), "not the first M", "bound", M)
    _rejected(lambda m: m.check_gaussian_terms(M - 1), "off by one", None)
    _rejected(lambda m: m.check_gaussian_terms(M + 1), "off by one", None)
    _rejected(lambda m: m.check_gaussian_terms(M - 5), "not the first M", None)
    _rejected(lambda m: m.check_gaussian_terms(2.5), "whole number", "whole number")
    _rejected(lambda m: m.check_gaussian_terms(None), "is None", "is None")


def test_gaussian_terms_self_check_cannot_be_enumerated(capsys):
    """Brute force M = 1, ..., 200 through the self-check: many candidates pass (every M up
    to the bound's), so repeated calls cannot single out M_min."""
    passed = []
    for M in range(1, 201):
        try:
            ch03.check_gaussian_terms(M)
            passed.append(M)
        except AssertionError:
            pass
    capsys.readouterr()
    assert _brute_M() in passed and len(passed) >= 20


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
    """Reference: the cut-off filter applied to one SVD (the full check uses a truncated
    pinv)."""
    Phi, y = cut_problem
    _both(capsys, lambda m: m.check_cutoff(_filtered(Phi, y, _cut(0.05)), Phi, y, 0.05))


def test_check_cutoff_rejects_mistakes(cut_problem):
    """On the sheet's data the self-check names the mistakes by their hashes, and ridge by
    its fit, which is no projection."""
    Phi, y = cut_problem
    _rejected(lambda m: m.check_cutoff(_filtered(Phi, y, _cut(np.sqrt(0.05))), Phi, y, 0.05),
              "sigma\\^2 > lam", "sigma\\^2 > lam")
    _rejected(lambda m: m.check_cutoff(_filtered(Phi, y, _cut(1e-12)), Phi, y, 0.05),
              "plain pseudoinverse", "plain pseudoinverse")
    _rejected(lambda m: m.check_cutoff(_filtered(Phi, y, lambda s: s / (s**2 + 0.05)), Phi, y,
                                       0.05), "ridge", "ridge")
    _rejected(lambda m: m.check_cutoff(_filtered(Phi, y, _cut(0.5)), Phi, y, 0.05), "g\\(S\\)",
              "g\\(S\\)")
    _rejected(lambda m: m.check_cutoff(None, Phi, y, 0.05), "is None", "is None")


def test_check_cutoff_on_other_data_has_only_the_properties(capsys):
    """Another matrix: no hash; a cut at the wrong level is still a projection in the row
    space, so only the full check tells it."""
    rng = np.random.default_rng(8)
    Phi, y = rng.standard_normal((12, 7)), rng.standard_normal(12)
    s = np.linalg.svd(Phi, compute_uv=False)
    lam = float(s[3] + s[4]) / 2
    _both(capsys, lambda m: m.check_cutoff(_filtered(Phi, y, _cut(lam)), Phi, y, lam))
    _rejected(lambda m: m.check_cutoff(_filtered(Phi, y, _cut(s[2] * 1.01)), Phi, y, lam),
              "g\\(S\\)", None)


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
    """Reference: the dual route with kmlib.kernels (the full check uses explicit features,
    primal)."""
    from kmlib import kernels
    X, y, Xn = kdata
    k = kernels.polynomial(2, 1.0)
    f = k(Xn, X) @ np.linalg.solve(k(X) + 0.5 * np.eye(25), y)
    _both(capsys, lambda m: m.check_kernel_predictions(f, X, y, Xn, 0.5))


def test_check_kernel_predictions_rejects_mistakes(kdata):
    X, y, Xn = kdata
    K, Kn = (1 + X @ X.T) ** 2, (1 + Xn @ X.T) ** 2
    unpenalised = Kn @ np.linalg.pinv(K, hermitian=True) @ y
    _rejected(lambda m: m.check_kernel_predictions(unpenalised, X, y, Xn, 0.5), "unpenalised",
              "unpenalised")
    unsquared = (1 + Xn @ X.T) @ np.linalg.solve(1 + X @ X.T + 0.5 * np.eye(25), y)
    _rejected(lambda m: m.check_kernel_predictions(unsquared, X, y, Xn, 0.5), "squared",
              "squared")
    other_lam = Kn @ np.linalg.solve(K + 5.0 * np.eye(25), y)
    _rejected(lambda m: m.check_kernel_predictions(other_lam, X, y, Xn, 0.5), "k_x\\^T alpha",
              "k_x\\^T alpha")
    _rejected(lambda m: m.check_kernel_predictions(np.zeros(3), X, y, Xn, 0.5), "shape", "shape")


# --------------------------------------------------------------------------- #
# tanh is not a kernel; the intercept as the limit of k + c
# --------------------------------------------------------------------------- #
def test_check_tanh_counterexample(capsys):
    """Accept a large and a small point (eigenvalue about -0.36 by the 2 x 2 closed form,
    cross-checked with eigvalsh); reject equal points, points outside [-3, 3], None."""
    good = np.array([-3.0, 0.4])
    assert np.linalg.eigvalsh(np.tanh(np.outer(good, good)))[0] < -0.1
    _both(capsys, lambda m: m.check_tanh_counterexample(good))
    _rejected(lambda m: m.check_tanh_counterexample(np.array([1.5, 1.5])), "no eigenvalue",
              "no eigenvalue")
    _rejected(lambda m: m.check_tanh_counterexample(np.array([5.0, 0.5])), r"\[-3, 3\]",
              r"\[-3, 3\]")
    _rejected(lambda m: m.check_tanh_counterexample(None), "is None", "is None")


@pytest.fixture(scope="module")
def icpt():
    rng = np.random.default_rng(6)
    x = np.sort(rng.uniform(-1, 1, 30))
    y = 2.0 + np.sin(3 * x) + 0.1 * rng.standard_normal(30)
    return x, y, np.linspace(-1, 1, 7), np.array([1.0, 10.0, 100.0, 1000.0])


def _icpt_answer(x, y, xn, cs):
    """Independent route: eliminate alpha = (K + I)^-1 (y - mu 1), fix mu by 1^T alpha = 0,
    and take the gaps from the kernel k + c directly."""
    g = lambda a, b: np.exp(-((a[:, None] - b[None, :]) ** 2) / (2 * 0.09))  # noqa: E731
    K, Kn, n = g(x, x), g(xn, x), len(y)
    # unpenalised intercept: mu minimises ||y - mu 1 - K a|| with a = (K + I)^-1 (y - mu 1)
    R = np.linalg.solve(K + np.eye(n), np.column_stack([y, np.ones(n)]))
    mu = R[:, 0].sum() / R[:, 1].sum()                    # from 1^T alpha = 0
    a = R[:, 0] - mu * R[:, 1]
    f = Kn @ a + mu
    gaps = np.array([np.abs((Kn + c) @ np.linalg.solve(K + c + np.eye(n), y) - f).max()
                     for c in cs])
    return a, mu, gaps


def test_check_intercept_limit(icpt, capsys):
    """Reference: alpha = (K + I)^-1 (y - mu 1) with mu fixed by 1^T alpha = 0 (a route
    different from both checks). Mistakes: mu = mean(y), the penalised fit (mu = 0), gaps
    reversed, gaps of a 1/sqrt(c) law, None."""
    x, y, xn, cs = icpt
    a, mu, gaps = _icpt_answer(x, y, xn, cs)
    _both(capsys, lambda m: m.check_intercept_limit(a, mu, gaps, x, y, xn, cs))
    K = np.exp(-((x[:, None] - x[None, :]) ** 2) / 0.18)
    a_pen = np.linalg.solve(K + np.eye(30), y)
    _rejected(lambda m: m.check_intercept_limit(a_pen, 0.0, gaps, x, y, xn, cs), "mu_int|fitted",
              "1\\^T alpha")
    a_mean = np.linalg.solve(K + np.eye(30), y - y.mean())
    _rejected(lambda m: m.check_intercept_limit(a_mean, y.mean(), gaps, x, y, xn, cs),
              "mu_int|fitted", "1\\^T alpha|solve")
    _rejected(lambda m: m.check_intercept_limit(a, mu, gaps[::-1], x, y, xn, cs), "reverse",
              "decrease")
    slow = gaps[0] / np.sqrt(cs / cs[0])
    _rejected(lambda m: m.check_intercept_limit(a, mu, slow, x, y, xn, cs), "gaps differ",
              "1/c law")
    _rejected(lambda m: m.check_intercept_limit(None, mu, gaps, x, y, xn, cs), "is None",
              "is None")


# --------------------------------------------------------------------------- #
# the hashes, and the notebook
# --------------------------------------------------------------------------- #
def test_the_self_checks_hashes_are_the_sheets_answers(tall, cut_problem, kdata):
    """Each digest in ch03 recognises the answer computed here by an independent route."""
    wide = np.random.default_rng(0)
    wide.standard_normal((100, 10))
    for case, Phi in (("tall", tall), ("wide", wide.standard_normal((10, 100)))):
        kP, kD = _conds(Phi, 0.1)
        assert matches_digest(kP, ch03.DIGESTS[f"kappa_P_{case}"], f"kappa_P_{case}")
        assert matches_digest(kD, ch03.DIGESTS[f"kappa_D_{case}"], f"kappa_D_{case}")
    assert not any(key.startswith(("D[", "M_min")) for key in ch03.DIGESTS)   # no integer digests
    Phi, y = cut_problem
    assert ch03._is(_filtered(Phi, y, _cut(0.05)), "w_cut")
    X, y, Xn = kdata
    from kmlib import kernels
    k = kernels.polynomial(2, 1.0)
    assert ch03._is(k(Xn, X) @ np.linalg.solve(k(X) + 0.5 * np.eye(25), y), "f_new")


def test_notebook_passes_self_checks_and_full_checks_and_stubs_fail(capsys, monkeypatch):
    """Solution notebook: every check passes, the self-checks and then, in their place as
    when grading, the full checks. Student stubs (None): every check fails."""
    notebook.assert_sheet_passes_self_then_full(NOTEBOOK, ch03, ref, 9, capsys, monkeypatch)
