"""Tests for the chapter-4 exercise checkers (kmlib.book.exercises.ch04).

Each checker must accept the right answer (computed here by an independent route:
a brute-force double loop over sets, factorials, scikit-learn's Matern kernel, the
rank of X, a grid of points), reject typical wrong answers with a message that
names the mistake, never print the reference value in that message, and reject
``None``.
"""
from __future__ import annotations

import math
import re

import numpy as np
import pytest
from sklearn.gaussian_process.kernels import Matern

from kmlib import kernels
from kmlib.book.exercises import ch04

pytestmark = pytest.mark.filterwarnings("error")


def _numbers(text):
    return {float(t) for t in re.findall(r"-?\d+\.\d+(?:e-?\d+)?", text)}


# --------------------------------------------------------------------------- #
# Jaccard
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def sets():
    S = np.random.default_rng(4).random((9, 6)) < 0.45
    S[0] = False
    return S


def _jaccard_loop(S):
    n = len(S)
    K = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            u = np.sum(S[i] | S[j])
            K[i, j] = 1.0 if u == 0 else np.sum(S[i] & S[j]) / u
    return K


def test_jaccard_accepts_brute_force(sets, capsys):
    """Reference: a double loop over the sets."""
    ch04.check_jaccard_gram(_jaccard_loop(sets), sets)
    assert capsys.readouterr().out.startswith("Correct:")


def test_jaccard_rejects_typical_mistakes(sets):
    K = _jaccard_loop(sets)
    wrong_empty = K.copy()
    wrong_empty[0, 0] = 0.0
    with pytest.raises(AssertionError, match="0/0 := 1"):
        ch04.check_jaccard_gram(wrong_empty, sets)
    inter = (sets[:, None, :] & sets[None, :, :]).sum(axis=2)
    sizes = sets.sum(axis=1)
    dice = np.where(np.add.outer(sizes, sizes) > 0,
                    inter / np.maximum(np.add.outer(sizes, sizes), 1), 1.0)
    with pytest.raises(AssertionError, match="counts the intersection twice"):
        ch04.check_jaccard_gram(dice, sets)
    with pytest.raises(AssertionError, match="is None"):
        ch04.check_jaccard_gram(None, sets)


# --------------------------------------------------------------------------- #
# exponential series
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def gram():
    X = np.random.default_rng(5).standard_normal((8, 2))
    return kernels.gaussian(1.0)(X)


def test_exp_series_accepts_factorial_sum(gram, capsys):
    """Reference: the explicit sum with math.factorial (the checker uses gammaincc)."""
    ch04.check_exp_series(sum(gram**i / math.factorial(i) for i in range(7)), gram, 6)
    assert capsys.readouterr().out.startswith("Correct:")


@pytest.mark.parametrize("make,match", [
    (lambda K: sum(np.linalg.matrix_power(K, i) / math.factorial(i) for i in range(7)),
     "ENTRYWISE"),
    (lambda K: sum(K**i / math.factorial(i) for i in range(1, 7)), "start at i = 0"),
    (lambda K: sum(K**i / math.factorial(i) for i in range(6)), "off by one"),
    (lambda K: sum(K**i for i in range(7)), "1 / i!"),
    (lambda K: np.exp(K), "exp\\(K\\) itself"),
])
def test_exp_series_diagnoses_mistakes(gram, make, match):
    with pytest.raises(AssertionError, match=match) as info:
        ch04.check_exp_series(make(gram), gram, 6)
    ref = sum(gram**i / math.factorial(i) for i in range(7))
    assert not any(np.isclose(v, ref).any() for v in _numbers(str(info.value)))


# --------------------------------------------------------------------------- #
# Matern
# --------------------------------------------------------------------------- #
def _sk(nu):
    return lambda r, ell: Matern(length_scale=ell, nu=nu)(np.asarray(r)[:, None],
                                                          np.zeros((1, 1)))[:, 0]


def test_matern_accepts_scikit_learn(capsys):
    """Reference: scikit-learn's closed forms for nu = 1.5 and 2.5."""
    ch04.check_matern(_sk(1.5), _sk(2.5))
    assert capsys.readouterr().out.startswith("Correct:")


def test_matern_diagnoses_mistakes():
    no_sqrt = lambda r, ell: (1 + r / ell) * np.exp(-r / ell)          # noqa: E731
    with pytest.raises(AssertionError, match="sqrt\\(2 nu\\) r / ell"):
        ch04.check_matern(no_sqrt, _sk(2.5))
    with pytest.raises(AssertionError, match="swapped"):
        ch04.check_matern(_sk(2.5), _sk(1.5))

    def bad_quadratic(r, ell):
        t = np.sqrt(5) * np.asarray(r) / ell
        return (1 + t + t**2) * np.exp(-t)

    with pytest.raises(AssertionError, match="quadratic term"):
        ch04.check_matern(_sk(1.5), bad_quadratic)
    with pytest.raises(AssertionError, match="is None"):
        ch04.check_matern(None, None)
    with pytest.raises(AssertionError, match="raised"):
        ch04.check_matern(lambda r, ell: 1 / 0, _sk(2.5))


# --------------------------------------------------------------------------- #
# inner-product Gram matrix
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def design():
    X = np.random.default_rng(6).standard_normal((12, 4))
    X[:, 3] = X[:, 0] - 2 * X[:, 1]
    return X


def test_inner_product_gram_accepts_rank_of_X(design, capsys):
    """Reference: numpy's matrix_rank of X and the zero eigenvalue forced by rank < n."""
    ch04.check_inner_product_gram(np.linalg.matrix_rank(design), 0.0, design)
    assert capsys.readouterr().out.startswith("Correct:")


def test_inner_product_gram_diagnoses_mistakes(design):
    with pytest.raises(AssertionError, match="can be smaller"):
        ch04.check_inner_product_gram(12, 0.0, design)
    with pytest.raises(AssertionError, match="upper bound"):
        ch04.check_inner_product_gram(4, 0.0, design)
    with pytest.raises(AssertionError, match="positive semidefinite"):
        ch04.check_inner_product_gram(3, -2.0, design)
    with pytest.raises(AssertionError, match="is None"):
        ch04.check_inner_product_gram(None, None, design)


# --------------------------------------------------------------------------- #
# violation
# --------------------------------------------------------------------------- #
def test_violation_accepts_a_grid(capsys):
    """Reference: a grid with spacing 0.3 (any refuting set would do)."""
    ch04.check_violation(0.3 * np.arange(10))
    assert capsys.readouterr().out.startswith("Correct:")


def test_violation_rejects_too_few_or_harmless_points():
    with pytest.raises(AssertionError, match="two points can never"):
        ch04.check_violation([0.0, 0.5])
    with pytest.raises(AssertionError, match="not below"):
        ch04.check_violation([0.0, 5.0, 10.0])          # far apart: Gram matrix close to I
    with pytest.raises(AssertionError, match="at most 10"):
        ch04.check_violation(np.arange(11.0))
    with pytest.raises(AssertionError, match="is None"):
        ch04.check_violation(None)


# --------------------------------------------------------------------------- #
# Matern Gram matrices
# --------------------------------------------------------------------------- #
def _matern_min_eig(nu, x, ell=0.5):
    """Reference: scikit-learn's Matern kernel (closed forms) and numpy's eigvalsh."""
    return np.linalg.eigvalsh(Matern(length_scale=ell, nu=nu)(x[:, None]))[0]


def test_matern_gram_accepts_scikit_learn(capsys):
    """Reference: scikit-learn's Matern Gram matrices on the sheet's points (seed 7)."""
    x = np.random.default_rng(7).uniform(0.0, 10.0, 40)          # the sheet's code
    ch04.check_matern_gram(_matern_min_eig(1.5, x), _matern_min_eig(2.5, x))
    assert capsys.readouterr().out.startswith("Correct:")


def test_matern_gram_diagnoses_mistakes():
    x = ch04.sheet_matern_points()
    lo32, lo52 = _matern_min_eig(1.5, x), _matern_min_eig(2.5, x)
    hi32 = np.linalg.eigvalsh(Matern(length_scale=0.5, nu=1.5)(x[:, None]))[-1]
    with pytest.raises(AssertionError, match="largest eigenvalue"):
        ch04.check_matern_gram(hi32, lo52)
    with pytest.raises(AssertionError, match="swapped") as info:
        ch04.check_matern_gram(lo52, lo32)
    assert not any(np.isclose(v, [lo32, lo52], rtol=1e-6).any() for v in _numbers(str(info.value)))
    with pytest.raises(AssertionError, match="clearly negative"):
        ch04.check_matern_gram(-0.5, lo52)
    with pytest.raises(AssertionError, match="not the smallest eigenvalue"):
        ch04.check_matern_gram(lo32, 0.0)                       # zero is not the answer either
    with pytest.raises(AssertionError, match="is None"):
        ch04.check_matern_gram(None, None)


# --------------------------------------------------------------------------- #
# the checkers rebuild the sheet's data from its seeds
# --------------------------------------------------------------------------- #
def test_default_data_is_the_sheets_data(capsys):
    """Reference: the data code of exercises/04_kernels.md, repeated here; a right answer
    passes without handing the data to the checker, so a changed notebook copy is ignored."""
    S = np.random.default_rng(4).random((12, 7)) < 0.45
    S[0] = False
    ch04.check_jaccard_gram(_jaccard_loop(S))
    K = kernels.gaussian(1.0)(np.random.default_rng(5).standard_normal((15, 2)))
    ch04.check_exp_series(sum(K**i / math.factorial(i) for i in range(7)))
    X = np.random.default_rng(6).standard_normal((12, 4))
    X[:, 3] = X[:, 0] - 2 * X[:, 1]
    ch04.check_inner_product_gram(np.linalg.matrix_rank(X), 0.0)
    out = capsys.readouterr().out
    assert out.count("Correct:") == 3
    np.testing.assert_array_equal(ch04.sheet_sets(), S)
    np.testing.assert_allclose(ch04.sheet_gram(), K, rtol=1e-13, atol=1e-15)
    np.testing.assert_array_equal(ch04.sheet_design(), X)


def test_answers_to_a_modified_problem_fail():
    """A notebook that changed its copy of the data is judged on the sheet's problem."""
    S = ch04.sheet_sets().copy()
    S[1] = ~S[1]
    with pytest.raises(AssertionError):
        ch04.check_jaccard_gram(_jaccard_loop(S))
    X = ch04.sheet_design()
    X[:, 3] = np.random.default_rng(0).standard_normal(12)      # removed the dependence
    with pytest.raises(AssertionError, match="rank_G"):
        ch04.check_inner_product_gram(np.linalg.matrix_rank(X), 0.0)


def test_sheet_calls_checkers_without_data():
    """The sheet's check cells pass only the answers (the checkers rebuild the data)."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "exercises" / "04_kernels.md").read_text()
    assert "ch04.check_jaccard_gram(K_jac)" in text
    assert "ch04.check_exp_series(K_series)" in text
    assert "ch04.check_inner_product_gram(rank_G, min_eig_G)" in text
    assert "ch04.check_matern_gram(min_eig_32, min_eig_52)" in text
