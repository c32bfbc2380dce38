"""Tests for the chapter-7 exercise checkers (kmlib.book.exercises.ch07).

Each checker must accept the right answer (computed here by an independent route:
a dense solve, scikit-learn, a fine grid, kmlib.model_selection.tune_krr), reject
typical wrong answers with a message that names the mistake, never print the
reference value in that message, and reject ``None``.
"""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.kernel_ridge import KernelRidge
from sklearn.model_selection import KFold as SkKFold

from kmlib import kernels
from kmlib import model_selection as ms
from kmlib.book import rates
from kmlib.book.exercises import ch07

pytestmark = pytest.mark.filterwarnings("error")


def _no_leak(excinfo, value):
    for fmt in (".3g", ".4f", ".6g", ".2e"):
        assert format(value, fmt) not in str(excinfo.value)


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
    alpha = np.linalg.solve(K, fx)                  # dense LU (the checker uses K^{-1} tridiagonal)
    return x, fx, a @ np.minimum.outer(z, z) @ a, alpha, alpha @ K @ alpha


def test_check_representer_accepts_dense_solve(rep, capsys):
    x, fx, f_norm2, alpha, quad = rep
    ch07.check_representer(alpha, quad, x, fx, f_norm2)
    assert capsys.readouterr().out.startswith("Correct:")


@pytest.mark.parametrize("which,match", [
    ("norm", "equals \\|\\|f0\\|\\|_H\\^2"),
    ("aTa", "alpha\\^T alpha"),
    ("alpha_fx", "alpha equals f0"),
    ("alpha_wrong", "does not reproduce"),
    ("none", "is None"),
])
def test_check_representer_rejects_mistakes(rep, which, match):
    x, fx, f_norm2, alpha, quad = rep
    args = {"norm": (alpha, f_norm2), "aTa": (alpha, alpha @ alpha), "alpha_fx": (fx, quad),
            "alpha_wrong": (alpha * 1.1, quad), "none": (None, quad)}[which]
    with pytest.raises(AssertionError, match=match) as exc:
        ch07.check_representer(*args, x, fx, f_norm2)
    _no_leak(exc, quad)


# --------------------------------------------------------------------------- #
# squared bias
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def bias_case():
    x = np.sort(np.random.default_rng(12).uniform(0, 1, 50))
    f = np.sin(np.pi * x / 2)
    K = np.minimum.outer(x, x)
    S = K @ np.linalg.inv(K + 0.05 * np.eye(50))    # explicit smoother matrix, a third route
    r = (S - np.eye(50)) @ f
    return x, f, r @ r


def test_check_bias_accepts_smoother_matrix_answer(bias_case, capsys):
    x, f, b = bias_case
    ch07.check_bias(b, x, f, 0.05)
    assert capsys.readouterr().out.startswith("Correct:")


@pytest.mark.parametrize("transform,match", [
    (lambda b: b / 50, "divided by n"),
    (lambda b: np.sqrt(b), "not its square"),
    (lambda b: 2 * b, "not \\|\\|\\(S - I\\) f0"),
    (lambda b: None, "is None"),
])
def test_check_bias_rejects_mistakes(bias_case, transform, match):
    x, f, b = bias_case
    with pytest.raises(AssertionError, match=match) as exc:
        ch07.check_bias(transform(b), x, f, 0.05)
    _no_leak(exc, b)


# --------------------------------------------------------------------------- #
# the rate for mu_j = j^(-2m)
# --------------------------------------------------------------------------- #
NS = np.logspace(2, 8, 13)


def _grid_bound(m, n_grid=4000):
    """Reference: brute-force grid minimisation with the exact series."""
    gam = np.logspace(-16, 1, n_grid)
    sums = rates.power_min_sum(gam, 0.25, 2 * m)
    return np.array([np.min(sums / (n * gam) + gam / 4) for n in NS])


@pytest.mark.parametrize("m", [1, 2, 3])
def test_check_rate_bound_accepts_fine_grid(m, capsys):
    ch07.check_rate_bound(_grid_bound(m), NS, m)
    assert capsys.readouterr().out.startswith("Correct:")


def test_check_rate_bound_m1_matches_the_chapter_closed_form():
    """Reference: the Sobolev count sum_j min(mu_j/4, g) <= sqrt(g)/pi + g/2 is for
    mu_j = 4/(pi^2 (2j-1)^2); here mu_j = j^-2, so compare with the exercise's own
    bound (2m/(2m-1)) 4^(-1/(2m)) g^(1 - 1/(2m)) minimised in closed form."""
    B = _grid_bound(1)
    c = 2 * 4 ** -0.5                                # c_m for m = 1
    g = (4 * c / (2 * NS)) ** (2 / 3)                # argmin of c g^{-1/2}/n + g/4
    assert np.all(B <= c * g ** -0.5 / NS + g / 4 + 1e-15)


@pytest.mark.parametrize("transform,match", [
    (lambda B: 0.5 * B, "below the true minimum"),
    (lambda B: 1.2 * B, "more than 1% above"),
    (lambda B: None, "is None"),
    (lambda B: B[:5], "shape"),
])
def test_check_rate_bound_rejects_mistakes(transform, match):
    B = _grid_bound(2)
    with pytest.raises(AssertionError, match=match) as exc:
        ch07.check_rate_bound(transform(B), NS, 2)
    _no_leak(exc, B[0])


def test_check_rate_slope_accepts_fitted_slope(capsys):
    B = _grid_bound(2)
    ch07.check_rate_slope(np.polyfit(np.log(NS), np.log(B), 1)[0], 2)
    assert capsys.readouterr().out.startswith("Correct:")


@pytest.mark.parametrize("value,match", [
    (0.8, "positive"),
    (-2 / 3, "Sobolev"),
    (-0.5, "universal"),
    (-1.0, "more than 0.03 away"),
    (None, "is None"),
])
def test_check_rate_slope_rejects_mistakes(value, match):
    with pytest.raises(AssertionError, match=match) as exc:
        ch07.check_rate_slope(value, 2)
    assert "0.8" not in str(exc.value) and "4/5" not in str(exc.value)


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


def test_check_smoothness_accepts_tuned_matern32(smooth, capsys):
    """The book's split, given implicitly (None) or explicitly."""
    run, ref, _ = smooth
    ch07.check_smoothness_mse(ref, None, nu=1.5, others=run["mse"])
    assert capsys.readouterr().out.startswith("Correct:")
    book = [list(ms.KFold(5, shuffle=True, random_state=0).split(X)) for X in run["X"]]
    ch07.check_smoothness_mse(ref, book, nu=1.5, others=run["mse"])
    assert capsys.readouterr().out.startswith("Correct:")


def test_check_smoothness_accepts_another_valid_split(smooth, capsys):
    """scikit-learn's unshuffled KFold(5): a different but correct answer passes."""
    run, ref, ref_sk = smooth
    assert not np.allclose(ref, ref_sk, rtol=1e-3)       # the split matters on this draw
    splits = [list(SkKFold(5).split(X)) for X in run["X"]]
    ch07.check_smoothness_mse(ref_sk, splits, nu=1.5, others=run["mse"])
    assert capsys.readouterr().out.startswith("Correct:")
    with pytest.raises(AssertionError, match="pass it in splits"):
        ch07.check_smoothness_mse(ref_sk, None, nu=1.5, others=run["mse"])


@pytest.mark.parametrize("which,match", [
    ("other_kernel", "equals one of the chapter's kernels"),
    ("swapped", "swapped"),
    ("off", "not the test MSE"),
    ("none", "is None"),
    ("bad_split", "cover each"),
    ("four_folds", "5-fold"),
])
def test_check_smoothness_rejects_mistakes(smooth, which, match):
    run, ref, _ = smooth
    splits = None
    answer = {"other_kernel": run["mse"][:, 1], "swapped": ref[::-1], "off": ref * 1.3,
              "none": None, "bad_split": ref, "four_folds": ref}[which]
    if which == "bad_split":
        splits = [[(np.arange(8, 40), np.arange(8))] * 5] * 2
    if which == "four_folds":
        splits = [list(SkKFold(4).split(X)) for X in run["X"]]
    with pytest.raises(AssertionError, match=match) as exc:
        ch07.check_smoothness_mse(answer, splits, nu=1.5, others=run["mse"])
    _no_leak(exc, ref[0])
    _no_leak(exc, ref[1])
