"""Tests for the chapter-8 exercise checkers (kmlib.book.exercises.ch08).

Each checker must accept the right answer (computed here by an independent
route: kmlib's SMO where the checker uses scikit-learn, a root search where it
uses the closed form, a simulation with another seed), reject typical wrong
answers with a diagnosing message that does not contain the reference value,
and reject ``None``.
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import brentq

from kmlib import datasets, kernels, svm
from kmlib.book import margin
from kmlib.book.exercises import ch08

pytestmark = pytest.mark.filterwarnings("error")


# --------------------------------------------------------------------------- #
# C and lambda
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def clam():
    X, y = datasets.two_moons(80, noise=0.25, random_state=11)
    C = 1 / (2 * 0.05)
    a, b, *_ = svm.smo_solve(kernels.gaussian(0.7)(X), y, C, tol=1e-10)
    return X, y, C, b


def test_check_C_accepts_smo_answer(clam, capsys):
    """Reference in the checker: LIBSVM; the answer here comes from kmlib's SMO."""
    X, y, C, b = clam
    ch08.check_C_and_intercept(C, b, X, y, 0.7, 0.05)
    assert capsys.readouterr().out.startswith("Correct:")


@pytest.mark.parametrize("mistake,match", [
    (lambda C, b: (2 * C, b), "divide by 2 lam"),
    (lambda C, b: (0.05, b), "reciprocal"),
    (lambda C, b: (C, -b), "wrong sign"),
    (lambda C, b: (C, b + 0.3), "free support"),
    (lambda C, b: (None, b), "is None"),
])
def test_check_C_rejects_mistakes_without_leaking(clam, mistake, match):
    X, y, C, b = clam
    c_wrong, b_wrong = mistake(C, b)
    with pytest.raises(AssertionError, match=match) as info:
        ch08.check_C_and_intercept(c_wrong, b_wrong, X, y, 0.7, 0.05)
    assert f"{b:.4f}" not in str(info.value) and "10.0" not in str(info.value)


# --------------------------------------------------------------------------- #
# support vectors
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def sv_case():
    X, y = datasets.two_moons(120, noise=0.3, random_state=5)
    a, *_ = svm.smo_solve(kernels.gaussian(0.5)(X), y, 2.0, tol=1e-10)
    sv = np.flatnonzero(a > 1e-8 * 2.0)
    n_free = int(np.sum((a > 1e-8 * 2.0) & (a < (1 - 1e-8) * 2.0)))
    return X, y, a, sv, n_free


def test_check_support_vectors_accepts_smo_answer(sv_case, capsys):
    """Reference in the checker: LIBSVM; the answer here comes from kmlib's SMO."""
    X, y, _, sv, n_free = sv_case
    ch08.check_support_vectors(sv, n_free, X, y, 0.5, 2.0)
    assert capsys.readouterr().out.startswith("Correct:")


def test_check_support_vectors_rejects_mistakes(sv_case):
    """Typical mistakes: every point, a threshold at C/2, the bounded count, unsorted, None."""
    X, y, a, sv, n_free = sv_case
    n_bound = len(sv) - n_free
    cases = [
        ((np.arange(len(y)), n_free), "every point"),
        ((np.flatnonzero(a > 0.5 * 2.0), n_free), "differs from the support vectors"),
        ((sv, n_bound), "bounded"),
        ((sv[::-1], n_free), "sorted"),
        ((None, n_free), "is None"),
        ((sv.astype(float), n_free), "integer"),
    ]
    for (s, k), match in cases:
        with pytest.raises(AssertionError, match=match) as info:
            ch08.check_support_vectors(s, k, X, y, 0.5, 2.0)
        assert str(len(sv)) + " of" not in str(info.value)


# --------------------------------------------------------------------------- #
# crossing point
# --------------------------------------------------------------------------- #
def test_check_crossing_accepts_root_search(capsys):
    """Reference in the checker: log(e - 1); the answer here is a Brent root search."""
    z = brentq(lambda t: margin.hinge_loss(t) - margin.logistic_loss(t), 0.0, 1.0, xtol=1e-14)
    ch08.check_crossing(z, 1.0)
    assert capsys.readouterr().out.startswith("Correct:")


@pytest.mark.parametrize("answer,match", [
    ((0.0, 1.0), "increase z"),
    ((0.9, 1.0), "decrease z"),
    ((np.log(np.e - 1), 0.0), "finite non-zero limit"),
    ((np.log(np.e - 1), 0.5), "not the limit"),
    ((None, 1.0), "is None"),
])
def test_check_crossing_rejects_mistakes_without_leaking(answer, match):
    with pytest.raises(AssertionError, match=match) as info:
        ch08.check_crossing(*answer)
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


def test_check_rademacher_accepts_simulation(rad_case, capsys):
    """Reference in the checker: a 2e5-draw simulation with another seed."""
    X, rad = rad_case
    ch08.check_rademacher(rad, X, 2.0)
    assert capsys.readouterr().out.startswith("Correct:")


def test_check_rademacher_rejects_mistakes(rad_case):
    """Typical mistakes: the Jensen bound itself, no 1/m, far below the Khintchine bound, None."""
    X, rad = rad_case
    bound = 2.0 * np.sqrt(np.trace(X @ X.T)) / 40
    for wrong, match in [(bound, "Jensen bound"), (40 * rad, "m times too large"),
                         (0.5 * bound, "outside"), (None, "is None")]:
        with pytest.raises(AssertionError, match=match) as info:
            ch08.check_rademacher(wrong, X, 2.0)
        assert f"{rad:.3f}" not in str(info.value)
