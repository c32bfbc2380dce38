"""Tests for the chapter-7 exercise checks: the students' self-checks and the lecturer's.

``kmlib.book.exercises.ch07`` ships the self-checks (a residual, an identity, bounds the
answer obeys, a hash of a rounded number); ``_grading.reference.ch07`` holds the full
checks that recompute every answer.  Both must accept the right answer (computed here by
an independent route: a dense solve, scikit-learn, a fine grid,
kmlib.model_selection.tune_krr); the reference must reject typical wrong answers with a
message that names the mistake, and the self-check those its properties can see; no
message prints the reference value; both reject ``None``.  The last test runs the sheet.
"""
from __future__ import annotations

from pathlib import Path

import _exercise_cells as notebook
import numpy as np
import pytest
from _grading.reference import ch07 as reference
from sklearn.kernel_ridge import KernelRidge
from sklearn.model_selection import KFold as SkKFold

from kmlib import kernels
from kmlib import model_selection as ms
from kmlib.book import rates
from kmlib.book.exercises import ch07

pytestmark = pytest.mark.filterwarnings("error")

NOTEBOOK = Path(__file__).resolve().parents[1] / "exercises" / "07_krr_rates.md"
BOTH = pytest.mark.parametrize("module", [ch07, reference], ids=["self", "reference"])
PASSED = {ch07: "Self-check passed:", reference: "Correct:"}


def _no_leak(excinfo, value):
    for fmt in (".3g", ".4f", ".6g", ".2e"):
        assert format(value, fmt) not in str(excinfo.value)


def _passed(module, capsys):
    out = capsys.readouterr().out
    assert out.startswith(PASSED[module]) and out.count("\n") == 1, out


# --------------------------------------------------------------------------- #
# representing f0 on the design
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def rep():
    rng = np.random.default_rng(11)
    z, a = rng.uniform(0, 1, 4), rng.standard_normal(4)
    x = np.sort(rng.uniform(0, 1, 25))
    fx = np.minimum.outer(x, z) @ a
    K = np.minimum.outer(x, x)
    alpha = np.linalg.solve(K, fx)          # dense LU (the reference: K^{-1} is tridiagonal)
    return x, fx, a @ np.minimum.outer(z, z) @ a, alpha, alpha @ K @ alpha


@BOTH
def test_check_representer_accepts_dense_solve(module, rep, capsys):
    x, fx, f_norm2, alpha, quad = rep
    module.check_representer(alpha, quad, x, fx, f_norm2)
    _passed(module, capsys)


@BOTH
@pytest.mark.parametrize("which,match", [
    ("norm", "equals \\|\\|f0\\|\\|_H\\^2"),
    ("aTa", "alpha\\^T alpha"),
    ("alpha_fx", "alpha equals f0"),
    ("alpha_wrong", "does not reproduce"),
    ("jitter", "only approximately"),
    ("none", "is None"),
])
def test_check_representer_rejects_mistakes(module, rep, which, match):
    x, fx, f_norm2, alpha, quad = rep
    jittered = np.linalg.solve(np.minimum.outer(x, x) + 1e-8 * np.eye(25), fx)
    args = {"norm": (alpha, f_norm2), "aTa": (alpha, alpha @ alpha), "alpha_fx": (fx, quad),
            "alpha_wrong": (alpha * 1.1, quad), "jitter": (jittered, quad),
            "none": (None, quad)}[which]
    with pytest.raises(AssertionError, match=match) as exc:
        module.check_representer(*args, x, fx, f_norm2)
    _no_leak(exc, quad)


@BOTH
def test_check_representer_rebuilds_the_sheets_data(module, rep):
    """Trivial data in place of the cell's (one point, alpha = quad = 1) do not pass:
    both checks rebuild x, fx, f_norm2 from the sheet's seed."""
    with pytest.raises(AssertionError):
        module.check_representer(np.ones(1), 1.0, np.ones(1), np.ones(1), 1.0)
    x, fx, f_norm2, alpha, quad = rep
    with pytest.raises(AssertionError):
        module.check_representer(alpha[:5], quad, x[:5], fx[:5], f_norm2)


# --------------------------------------------------------------------------- #
# squared bias
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def bias_case():
    """The sheet's data x2, f2, lam2 = 0.05."""
    x = np.sort(np.random.default_rng(12).uniform(0, 1, 50))
    f = np.sin(np.pi * x / 2)
    K = np.minimum.outer(x, x)
    S = K @ np.linalg.inv(K + 0.05 * np.eye(50))    # explicit smoother matrix, a third route
    r = (S - np.eye(50)) @ f
    return x, f, r @ r


@BOTH
def test_check_bias_accepts_smoother_matrix_answer(module, bias_case, capsys):
    x, f, b = bias_case
    module.check_bias(b, x, f, 0.05)
    _passed(module, capsys)


@BOTH
@pytest.mark.parametrize("transform,match", [
    (lambda b: b / 50, "divided by n"),
    (lambda b: np.sqrt(b), "not its square"),
    (lambda b: 2 * b, "not \\|\\|\\(S - I\\) f0"),
    (lambda b: b * (1 + 1e-4), "not \\|\\|\\(S - I\\) f0"),
    (lambda b: None, "is None"),
])
def test_check_bias_rejects_mistakes(module, bias_case, transform, match):
    x, f, b = bias_case
    with pytest.raises(AssertionError, match=match) as exc:
        module.check_bias(transform(b), x, f, 0.05)
    _no_leak(exc, b)


def test_check_bias_self_check_properties_and_other_data(bias_case, capsys):
    """Out of range values fail by their properties alone; other data are not hashed, and the
    reference rebuilds the sheet's data, so the right answer for other data fails."""
    x, f, b = bias_case
    with pytest.raises(AssertionError, match="negative"):
        ch07.check_bias(-b, x, f, 0.05)
    with pytest.raises(AssertionError, match="exceeds"):
        ch07.check_bias(2 * f @ f, x, f, 0.05)
    with pytest.raises(AssertionError, match="sheet's data"):
        ch07.check_bias(b, x, f, 0.1)
    K = np.minimum.outer(x, x)
    r = 0.1 * np.linalg.solve(K + 0.1 * np.eye(50), f)
    with pytest.raises(AssertionError, match="not \\|\\|\\(S - I\\) f0"):
        reference.check_bias(r @ r, x, f, 0.1)
    reference.check_bias(b, x[:3], f[:3], 0.1)           # the notebook's data are not used
    _passed(reference, capsys)
    with pytest.raises(AssertionError):                  # trivial data: the answer 0 fails
        reference.check_bias(0.0, np.zeros(1), np.zeros(1), 1.0)


def test_check_bias_digest_cannot_be_brute_forced_quickly(bias_case):
    """The self-check compares a slow salted hash of 6 significant digits: enumerating the
    about 10^6 candidates of one decade around the answer takes far longer than the few
    seconds tried here, and those seconds (from the bottom of the decade) do not find it."""
    import time

    from kmlib.book.exercises._answers import matches_digest
    x, f, b = bias_case
    start = 10 ** np.floor(np.log10(b))
    t0, tried, found = time.perf_counter(), 0, False
    while time.perf_counter() - t0 < 2.0:
        cand = start * (1 + tried * 1e-5)
        found |= matches_digest(cand, ch07._BIAS2_DIGEST, "bias2")
        tried += 1
    per_call = (time.perf_counter() - t0) / tried
    assert not found
    assert per_call * 9e5 > 60.0           # the decade at 6 digits: more than a minute


# --------------------------------------------------------------------------- #
# the rate for mu_j = j^(-2m)
# --------------------------------------------------------------------------- #
NS = np.logspace(2, 8, 13)


def _grid_bound(m, n_grid=4000):
    """Reference: brute-force grid minimisation with the exact series."""
    gam = np.logspace(-16, 1, n_grid)
    sums = rates.power_min_sum(gam, 0.25, 2 * m)
    return np.array([np.min(sums / (n * gam) + gam / 4) for n in NS])


@BOTH
def test_check_rate_bound_accepts_fine_grid(module, capsys):
    module.check_rate_bound(_grid_bound(2), NS, 2)
    _passed(module, capsys)


@pytest.mark.parametrize("m", [1, 3])
def test_self_check_rate_bound_properties_hold_for_other_m(m, capsys):
    ch07.check_rate_bound(_grid_bound(m), NS, m)
    _passed(ch07, capsys)


def test_reference_rate_bound_uses_the_sheets_m_and_ns():
    """Another m, or other sample sizes, in the call do not change the problem graded."""
    with pytest.raises(AssertionError):
        reference.check_rate_bound(_grid_bound(1), NS, 1)
    with pytest.raises(AssertionError, match="shape"):
        reference.check_rate_bound(_grid_bound(2)[:3], NS[:3], 2)


def _part1_closed_form(m):
    """The closed-form upper bound of part 1, minimised: not the minimum of the objective."""
    return reference_bracket(m)[1]


def reference_bracket(m):
    return ch07._part1_bracket(NS, m, 1.0, 1.0)


def test_rate_bound_rejects_the_closed_form_of_part_1():
    """Submitting part 1's closed form (1-23% above the minimum) fails both checks."""
    U = _part1_closed_form(2)
    for module, match in ((ch07, "closed form of part 1"), (reference, "more than 1% above")):
        with pytest.raises(AssertionError, match=match):
            module.check_rate_bound(U, NS, 2)
    slope_U = np.polyfit(np.log(NS), np.log(U), 1)[0]
    with pytest.raises(AssertionError, match="closed form"):
        ch07.check_rate_slope(slope_U, 2)


def test_rate_bound_self_check_is_not_an_oracle():
    """Scaling B[0] alone, the self-check accepts a range more than 10% wide around the
    answer (the lower bound of part 1 is that loose at n = 100): it cannot locate B[0]."""
    B = _grid_bound(2)
    accepted = []
    for f in np.linspace(0.7, 1.05, 141):
        trial = B.copy()
        trial[0] *= f
        try:
            ch07.check_rate_bound(trial, NS, 2)
        except AssertionError:
            continue
        accepted.append(f)
    assert 1.0 in np.round(accepted, 10) and max(accepted) - min(accepted) > 0.1


def test_check_rate_bound_m1_matches_the_chapter_closed_form():
    """Reference: the Sobolev count sum_j min(mu_j/4, g) <= sqrt(g)/pi + g/2 is for
    mu_j = 4/(pi^2 (2j-1)^2); here mu_j = j^-2, so compare with the exercise's own
    bound (2m/(2m-1)) 4^(-1/(2m)) g^(1 - 1/(2m)) minimised in closed form."""
    B = _grid_bound(1)
    c = 2 * 4 ** -0.5                                # c_m for m = 1
    g = (4 * c / (2 * NS)) ** (2 / 3)                # argmin of c g^{-1/2}/n + g/4
    assert np.all(B <= c * g ** -0.5 / NS + g / 4 + 1e-15)


@BOTH
@pytest.mark.parametrize("transform,match", [
    (lambda B: 0.5 * B, "below the"),
    (lambda B: 1.2 * B, "more than 1%"),
    (lambda B: None, "is None"),
    (lambda B: B[:5], "shape"),
])
def test_check_rate_bound_rejects_mistakes(module, transform, match):
    B = _grid_bound(2)
    with pytest.raises(AssertionError, match=match) as exc:
        module.check_rate_bound(transform(B), NS, 2)
    _no_leak(exc, B[0])


def test_check_rate_bound_self_check_monotonicity():
    """B must fall with n while n B does not: a reversed array, or B * n, fails."""
    B = _grid_bound(2)
    with pytest.raises(AssertionError, match="increases with n"):
        ch07.check_rate_bound(B[::-1], NS, 2)
    with pytest.raises(AssertionError, match="n B\\(n\\) decreases"):
        ch07.check_rate_bound(B * NS[0] / NS, NS, 2)
    with pytest.raises(AssertionError, match="positive"):
        ch07.check_rate_bound(-B, NS, 2)


@BOTH
def test_check_rate_slope_accepts_fitted_slope(module, capsys):
    B = _grid_bound(2)
    module.check_rate_slope(np.polyfit(np.log(NS), np.log(B), 1)[0], 2)
    _passed(module, capsys)


@BOTH
@pytest.mark.parametrize("value,match", [
    (0.8, "positive"),
    (-2 / 3, "Sobolev"),
    (-0.5, "universal"),
    (-1.0, "more than 0.03 away"),
    (None, "is None"),
])
def test_check_rate_slope_rejects_mistakes(module, value, match):
    with pytest.raises(AssertionError, match=match) as exc:
        module.check_rate_slope(value, 2)
    assert "0.8" not in str(exc.value) and "4/5" not in str(exc.value)


def test_reference_rate_slope_recomputes_the_fit(capsys):
    """The reference also compares with the slope of the exact bound over the sheet's ns:
    a value near the exponent but not the fit passes only the self-check; the exponent
    itself (-0.8, the slope of part 1's closed form) fails both."""
    ch07.check_rate_slope(-0.795, 2)
    _passed(ch07, capsys)
    with pytest.raises(AssertionError, match="least-squares slope"):
        reference.check_rate_slope(-0.795, 2)
    with pytest.raises(AssertionError, match="closed form"):
        ch07.check_rate_slope(-0.8, 2)


def test_rate_slope_self_check_is_not_an_oracle():
    """The self-check accepts every slope in a window about 0.05 wide: it cannot locate the
    answer to the 0.005 the full check demands."""
    grid = np.arange(-0.85, -0.75, 0.0005)
    accepted = []
    for v in grid:
        try:
            ch07.check_rate_slope(float(v), 2)
        except AssertionError:
            continue
        accepted.append(v)
    assert max(accepted) - min(accepted) > 0.05


# --------------------------------------------------------------------------- #
# smoothness experiment with Matern-3/2
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def smooth():
    run = rates.smoothness_experiment(seed=0)
    x_test = np.linspace(0, 1, 1000)

    def answer(folds):
        out = []
        for a, target in enumerate(rates.TARGETS.values()):     # tune_krr for the choice,
            _, table = ms.tune_krr(run["X"][a], run["y"][a], lambda e: kernels.matern(1.5, e),
                                   np.logspace(-2, 0, 15).tolist(), np.logspace(-8, 0, 17),
                                   folds=folds)
            k = kernels.matern(1.5, table.best_param)           # scikit-learn for the refit
            m = KernelRidge(alpha=table.best_lam, kernel="precomputed").fit(k(run["X"][a]),
                                                                            run["y"][a])
            out.append(np.mean((m.predict(k(x_test[:, None], run["X"][a])) - target(x_test)) ** 2))
        return np.array(out)

    return run, answer(5), answer(SkKFold(5))


@BOTH
def test_check_smoothness_accepts_tuned_matern32(module, smooth, capsys):
    """The book's split, given implicitly (None) or explicitly."""
    run, ref, _ = smooth
    module.check_smoothness_mse(ref, None, nu=1.5, others=run["mse"])
    _passed(module, capsys)
    book = [list(ms.KFold(5, shuffle=True, random_state=0).split(X)) for X in run["X"]]
    module.check_smoothness_mse(ref, book, nu=1.5, others=run["mse"])
    _passed(module, capsys)


@BOTH
def test_check_smoothness_accepts_another_valid_split(module, smooth, capsys):
    """scikit-learn's unshuffled KFold(5): a different but correct answer passes."""
    run, ref, ref_sk = smooth
    assert not np.allclose(ref, ref_sk, rtol=1e-3)       # the split matters on this draw
    splits = [list(SkKFold(5).split(X)) for X in run["X"]]
    module.check_smoothness_mse(ref_sk, splits, nu=1.5, others=run["mse"])
    _passed(module, capsys)
    if module is reference:
        with pytest.raises(AssertionError, match="pass it in splits"):
            module.check_smoothness_mse(ref_sk, None, nu=1.5, others=run["mse"])


@BOTH
@pytest.mark.parametrize("which,match", [
    ("other_kernel", "equals one of the chapter's kernels"),
    ("swapped", "swapped"),
    ("off", "not the test MSE"),
    ("none", "is None"),
    ("bad_split", "cover each"),
    ("four_folds", "5-fold"),
])
def test_check_smoothness_rejects_mistakes(module, smooth, which, match):
    run, ref, _ = smooth
    splits = None
    answer = {"other_kernel": run["mse"][:, 1], "swapped": ref[::-1], "off": ref * 1.3,
              "none": None, "bad_split": ref, "four_folds": ref}[which]
    if which == "bad_split":
        splits = [[(np.arange(8, 40), np.arange(8))] * 5] * 2
    if which == "four_folds":
        splits = [list(SkKFold(4).split(X)) for X in run["X"]]
    with pytest.raises(AssertionError, match=match) as exc:
        module.check_smoothness_mse(answer, splits, nu=1.5, others=run["mse"])
    _no_leak(exc, ref[0])
    _no_leak(exc, ref[1])


def test_self_check_rejects_junk_for_any_split(smooth, capsys):
    """Whatever the split, the self-check rejects a value that is no Matern-3/2 refit on the
    grids; it cannot tell which refit the split's CV picks (the book's answer with
    another split passes it), which the reference recomputes."""
    run, ref, ref_sk = smooth
    splits = [list(SkKFold(5).split(X)) for X in run["X"]]
    for junk in (ref_sk * 1.3, np.array([0.5, 0.7])):
        with pytest.raises(AssertionError, match="not the test MSE"):
            ch07.check_smoothness_mse(junk, splits, nu=1.5, others=run["mse"])
    ch07.check_smoothness_mse(ref, splits, nu=1.5, others=run["mse"])
    assert "graded" in capsys.readouterr().out
    with pytest.raises(AssertionError, match="not the test MSE"):
        reference.check_smoothness_mse(ref, splits, nu=1.5, others=run["mse"])


def test_smoothness_self_check_is_not_an_oracle(smooth):
    """All 255 refits of the grids pass the self-check for each target: it cannot single
    out the CV choice."""
    grid = ch07._grid_refit_mses(1.5)
    run, ref, _ = smooth
    for i in range(grid.shape[1]):
        for j in range(0, grid.shape[2], 4):
            ch07.check_smoothness_mse([grid[0, i, j], ref[1]], None, others=None)
            ch07.check_smoothness_mse([ref[0], grid[1, i, j]], None, others=None)


def test_reference_smoothness_rebuilds_data_and_kernel(smooth):
    """The reference uses the sheet's nu = 1.5 and seed 0 whatever the call says."""
    run, ref, _ = smooth
    reference.check_smoothness_mse(ref, None, nu=2.5, seed=3, others=None)
    with pytest.raises(AssertionError):
        reference.check_smoothness_mse(run["mse"][:, 1], None, nu=2.5, seed=0, others=None)


# --------------------------------------------------------------------------- #
# a floor under every penalty
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def floor_case():
    """The sheet's x2, f2; floor and best through the tridiagonal route and a fine grid."""
    x = np.sort(np.random.default_rng(12).uniform(0, 1, 50))
    f = np.sin(np.pi * x / 2)
    w, V = np.linalg.eigh(np.minimum.outer(x, x))
    th = V.T @ f
    floor = np.sum(0.25 * th**2 / (0.25 + th**2)) / 50
    best = np.min(rates.sobolev_mspe(x, f, 0.25, np.logspace(-6, 2, 801)))
    return x, f, floor, best


@BOTH
def test_check_floor_accepts_answer(module, floor_case, capsys):
    x, f, floor, best = floor_case
    module.check_floor(floor, best, x, f)
    _passed(module, capsys)


@BOTH
@pytest.mark.parametrize("which", ["swap", "best_high", "floor_n", "none", "floor_zero"])
def test_check_floor_rejects_mistakes(module, floor_case, which):
    x, f, floor, best = floor_case
    args = {"swap": (best, floor), "best_high": (floor, 1.2 * best),
            "floor_n": (50 * floor, 50 * best), "none": (None, best),
            "floor_zero": (0.0, best)}[which]
    with pytest.raises(AssertionError) as exc:
        module.check_floor(*args, x, f)
    _no_leak(exc, floor)
    _no_leak(exc, best)


def test_floor_checks_use_the_sheets_data(floor_case):
    x, f, floor, best = floor_case
    with pytest.raises(AssertionError, match="differ from the sheet's"):
        ch07.check_floor(1.0, 1.0, np.ones(3), np.ones(3))
    with pytest.raises(AssertionError):
        reference.check_floor(1.0, 1.0, np.ones(3), np.ones(3))


def test_floor_self_check_is_not_an_oracle(floor_case):
    """Any floor in (0, best] and any best down to the floor pass: no value is singled out."""
    x, f, floor, best = floor_case
    for fl, b in ((0.5 * floor, best), (floor, 1.0001 * floor), (1e-9, 0.5 * best)):
        ch07.check_floor(fl, b, x, f)


# --------------------------------------------------------------------------- #
# faster than the bound
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def smooth_rate():
    """Bounded scalar minimisation in log gamma (the sheet uses a grid)."""
    from scipy.optimize import minimize_scalar
    ns = np.logspace(2, 7, 11)
    mu = 1 / ((np.arange(1, 100_001) - 0.5) * np.pi) ** 2

    def R(n, lg):
        g = np.exp(lg)
        return 0.25 / n * np.sum(mu**2 / (mu + g) ** 2) + 0.5 * g**2 / (mu[0] + g) ** 2
    r = np.array([minimize_scalar(lambda t, n=n: R(n, t), bounds=(np.log(1e-8), 0),
                                  method="bounded", options={"xatol": 1e-9}).fun for n in ns])
    return ns, r, np.polyfit(np.log(ns), np.log(r), 1)[0]


@BOTH
def test_check_smooth_rate_accepts_answer(module, smooth_rate, capsys):
    ns, r, sl = smooth_rate
    module.check_smooth_rate(r, sl, ns)
    _passed(module, capsys)


@BOTH
@pytest.mark.parametrize("which", ["sigma1", "high", "slope", "none", "reversed"])
def test_check_smooth_rate_rejects_mistakes(module, smooth_rate, which):
    ns, r, sl = smooth_rate
    args = {"sigma1": (4 * r, sl), "high": (1.05 * r, sl), "slope": (r, -2 / 3),
            "none": (None, sl), "reversed": (r[::-1], -sl)}[which]
    with pytest.raises(AssertionError):
        module.check_smooth_rate(*args, ns)


def test_smooth_rate_self_check_is_not_an_oracle(smooth_rate, capsys):
    """Values well below the minimum pass the self-check (it tests the minimum's upper
    side and the slope's consistency only); the reference rejects them."""
    ns, r, sl = smooth_rate
    low = 0.7 * r
    ch07.check_smooth_rate(low, np.polyfit(np.log(ns), np.log(low), 1)[0], ns)
    _passed(ch07, capsys)
    with pytest.raises(AssertionError):
        reference.check_smooth_rate(low, sl, ns)


# --------------------------------------------------------------------------- #
# the notebook
# --------------------------------------------------------------------------- #
def test_notebook_checks_pass_with_solutions_and_fail_with_none_stubs(capsys, monkeypatch):
    """Solution notebook: every self-check passes and, substituted as the grader does, every
    reference check; with None stubs every check fails, both ways (one execution each)."""
    notebook.assert_sheet_passes_self_then_full(NOTEBOOK, ch07, reference, 7, capsys,
                                                monkeypatch)
