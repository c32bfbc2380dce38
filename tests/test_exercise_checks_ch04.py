"""Tests for the chapter-4 checks: the self-checks that ship (kmlib.book.exercises.ch04) and
the lecturer's full checks (scripts/_grading/reference/ch04.py).

Both must accept the right answer (computed here by an independent route: a brute-force
double loop over sets, factorials, scikit-learn's Matern kernel, the rank of X, a grid of
points) and reject ``None``. The full check must reject typical wrong answers with a
message that names the mistake and never prints the reference value; the self-check those
its properties can tell (symmetry, positive semidefiniteness, the diagonal, bounds and
monotonicity, the hashes of the sheet's answers and of typical wrong answers).
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import _exercise_cells as notebook
import numpy as np
import pytest
from _exercise_cells import FULL, SELF, self_and_full
from _grading.reference import ch04 as ref
from sklearn.gaussian_process.kernels import Matern

from kmlib import kernels
from kmlib.book.exercises import ch04

pytestmark = pytest.mark.filterwarnings("error")

NOTEBOOK = Path(__file__).resolve().parents[1] / "exercises" / "04_kernels.md"


_both, _rejected = self_and_full(ch04, ref)


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
    _both(capsys, lambda m: m.check_jaccard_gram(_jaccard_loop(sets), sets))


def test_jaccard_rejects_typical_mistakes(sets):
    """Every mistake breaks a property of a Jaccard Gram matrix."""
    K = _jaccard_loop(sets)
    wrong_empty = K.copy()
    wrong_empty[0, 0] = 0.0
    _rejected(lambda m: m.check_jaccard_gram(wrong_empty, sets), "0/0 := 1", "0/0 := 1")
    inter = (sets[:, None, :] & sets[None, :, :]).sum(axis=2)
    sizes = sets.sum(axis=1)
    dice = np.where(np.add.outer(sizes, sizes) > 0,
                    inter / np.maximum(np.add.outer(sizes, sizes), 1), 1.0)
    _rejected(lambda m: m.check_jaccard_gram(dice, sets), "counts the intersection twice",
              "counts the intersection twice")
    union = (sets[:, None, :] | sets[None, :, :]).sum(axis=2)
    upside = np.where(union > 0, union / np.maximum(inter, 1), 1.0)
    _rejected(lambda m: m.check_jaccard_gram(upside, sets), "\\|A ∪ B\\| / \\|A ∩ B\\|",
              "\\|A ∪ B\\| / \\|A ∩ B\\|")
    _rejected(lambda m: m.check_jaccard_gram(None, sets), "is None", "is None")


def test_jaccard_of_the_sheets_sets_is_recognised():
    """On the sheet's sets an entry off by 1/7 (symmetric, still PSD) fails the hash."""
    S = ch04.sheet_sets()
    K = _jaccard_loop(S)
    assert ch04._is(K, "K_jac")
    off = K.copy()
    off[3, 5] = off[5, 3] = K[3, 5] + 1 / 7 if K[3, 5] < 0.5 else K[3, 5] - 1 / 7
    if np.linalg.eigvalsh(off).min() > -1e-10:
        _rejected(lambda m: m.check_jaccard_gram(off), "K_jac\\[", "not the Jaccard index")


# --------------------------------------------------------------------------- #
# exponential series
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def gram():
    X = np.random.default_rng(5).standard_normal((8, 2))
    return kernels.gaussian(1.0)(X)


def test_exp_series_accepts_factorial_sum(gram, capsys):
    """Reference: the explicit sum with math.factorial (the full check uses gammaincc)."""
    _both(capsys, lambda m: m.check_exp_series(sum(gram**i / math.factorial(i) for i in range(7)),
                                               gram, 6))


@pytest.mark.parametrize("make,match,self_match", [
    (lambda K: sum(np.linalg.matrix_power(K, i) / math.factorial(i) for i in range(7)),
     "ENTRYWISE", "ENTRYWISE"),
    (lambda K: sum(K**i / math.factorial(i) for i in range(1, 7)), "start at i = 0",
     "start at i = 0"),
    (lambda K: sum(K**i / math.factorial(i) for i in range(6)), "off by one", None),
    (lambda K: sum(K**i for i in range(7)), "1 / i!", "1 / i!"),
    (lambda K: np.exp(K), "exp\\(K\\) itself", "exp\\(K\\) itself"),
])
def test_exp_series_diagnoses_mistakes(gram, make, match, self_match):
    """Another Gram matrix than the sheet's: an off-by-one stays within the bounds, so only
    the full check (or, on the sheet's matrix, the hash) tells it."""
    messages = _rejected(lambda m: m.check_exp_series(make(gram), gram, 6), match, self_match)
    ref_value = sum(gram**i / math.factorial(i) for i in range(7))
    for message in messages:
        assert not any(np.isclose(v, ref_value).any() for v in _numbers(message))


def test_exp_series_off_by_one_on_the_sheets_matrix():
    K = ch04.sheet_gram()
    for terms in (6, 8):
        S = sum(K**i / math.factorial(i) for i in range(terms))
        _rejected(lambda m, S=S: m.check_exp_series(S), "off by one", "off by one")


# --------------------------------------------------------------------------- #
# Matern
# --------------------------------------------------------------------------- #
def _sk(nu):
    return lambda r, ell: Matern(length_scale=ell, nu=nu)(np.asarray(r)[:, None],
                                                          np.zeros((1, 1)))[:, 0]


def test_matern_accepts_scikit_learn(capsys):
    """Reference: scikit-learn's closed forms for nu = 1.5 and 2.5."""
    _both(capsys, lambda m: m.check_matern(_sk(1.5), _sk(2.5)))


def test_matern_diagnoses_mistakes():
    """The self-check names each mistake by the hash of the values of the wrong form."""
    no_sqrt = lambda r, ell: (1 + r / ell) * np.exp(-r / ell)          # noqa: E731
    _rejected(lambda m: m.check_matern(no_sqrt, _sk(2.5)), "sqrt\\(2 nu\\) r / ell",
              "sqrt\\(2 nu\\) r / ell")
    _rejected(lambda m: m.check_matern(_sk(2.5), _sk(1.5)), "swapped", "swapped")

    def bad_quadratic(r, ell):
        t = np.sqrt(5) * np.asarray(r) / ell
        return (1 + t + t**2) * np.exp(-t)

    _rejected(lambda m: m.check_matern(_sk(1.5), bad_quadratic), "quadratic term",
              "quadratic term")
    _rejected(lambda m: m.check_matern(_sk(1.5), lambda r, ell: np.exp(-r / ell)),
              "Bessel-function formula", "Bessel-function formula")
    _rejected(lambda m: m.check_matern(lambda r, ell: 0.5 + 0 * r, _sk(2.5)), "normalised",
              "normalised")
    _rejected(lambda m: m.check_matern(None, None), "is None", "is None")
    _rejected(lambda m: m.check_matern(lambda r, ell: 1 / 0, _sk(2.5)), "raised", "raised")


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
    _both(capsys, lambda m: m.check_inner_product_gram(np.linalg.matrix_rank(design), 0.0,
                                                       design))


def test_inner_product_gram_diagnoses_mistakes(design, capsys):
    _rejected(lambda m: m.check_inner_product_gram(12, 0.0, design), "can be smaller",
              "at most the number of columns")
    with pytest.raises(AssertionError, match="upper bound"):
        ref.check_inner_product_gram(4, 0.0, design)
    ch04.check_inner_product_gram(4, 0.0, design)       # possible, so the self-check passes
    assert SELF in capsys.readouterr().out
    _rejected(lambda m: m.check_inner_product_gram(3, -2.0, design), "positive semidefinite",
              "positive semidefinite")
    _rejected(lambda m: m.check_inner_product_gram(3, 0.5, design), "not the smallest",
              "not the smallest")
    _rejected(lambda m: m.check_inner_product_gram(None, None, design), "is None", "is None")


# --------------------------------------------------------------------------- #
# violation
# --------------------------------------------------------------------------- #
def test_violation_accepts_a_grid(capsys):
    """Reference: a grid with spacing 0.3 (any refuting set would do)."""
    _both(capsys, lambda m: m.check_violation(0.3 * np.arange(10)))


def test_violation_rejects_too_few_or_harmless_points():
    """The property is the whole answer: the self-check tells every mistake."""
    _rejected(lambda m: m.check_violation([0.0, 0.5]), "two points can never",
              "two points can never")
    _rejected(lambda m: m.check_violation([0.0, 5.0, 10.0]), "not below", "not below")
    _rejected(lambda m: m.check_violation(np.arange(11.0)), "at most 10", "at most 10")
    _rejected(lambda m: m.check_violation(None), "is None", "is None")


# --------------------------------------------------------------------------- #
# Matern Gram matrices
# --------------------------------------------------------------------------- #
def _matern_min_eig(nu, x, ell=0.5):
    """Reference: scikit-learn's Matern kernel (closed forms) and numpy's eigvalsh."""
    return np.linalg.eigvalsh(Matern(length_scale=ell, nu=nu)(x[:, None]))[0]


def test_matern_gram_accepts_scikit_learn(capsys):
    """Reference: scikit-learn's Matern Gram matrices on the sheet's points (seed 7)."""
    x = np.random.default_rng(7).uniform(0.0, 10.0, 40)          # the sheet's code
    _both(capsys, lambda m: m.check_matern_gram(_matern_min_eig(1.5, x), _matern_min_eig(2.5, x)))


def test_matern_gram_diagnoses_mistakes():
    x = ch04.sheet_matern_points()
    lo32, lo52 = _matern_min_eig(1.5, x), _matern_min_eig(2.5, x)
    hi32 = np.linalg.eigvalsh(Matern(length_scale=0.5, nu=1.5)(x[:, None]))[-1]
    _rejected(lambda m: m.check_matern_gram(hi32, lo52), "largest eigenvalue",
              "largest eigenvalue")
    for message in _rejected(lambda m: m.check_matern_gram(lo52, lo32), "swapped", None):
        assert not any(np.isclose(v, [lo32, lo52], rtol=1e-6).any() for v in _numbers(message))
    _rejected(lambda m: m.check_matern_gram(-0.5, lo52), "clearly negative", "not positive")
    _rejected(lambda m: m.check_matern_gram(lo32, 0.0), "not the smallest eigenvalue",
              "not positive")
    trace_mean = 1.0                                    # the mean eigenvalue, not the smallest
    _rejected(lambda m: m.check_matern_gram(lo32, 0.5 * trace_mean), "not the smallest",
              "Rayleigh quotient")


def test_matern_gram_self_check_cannot_identify_the_eigenvalues(capsys):
    """Brute force over a log grid of 200 candidates from 1e-9 up to the true values: the
    self-check accepts every one of them, so repeated calls cannot single out the answer; and it
    holds no hash of either value."""
    x = ch04.sheet_matern_points()
    lo32, lo52 = _matern_min_eig(1.5, x), _matern_min_eig(2.5, x)
    assert "min_eig_32" not in ch04.DIGESTS and "min_eig_52" not in ch04.DIGESTS
    for t in np.logspace(-9, 0, 200):
        ch04.check_matern_gram(t * lo32, t * lo52)
    assert capsys.readouterr().out.count(SELF) == 200
    _rejected(lambda m: m.check_matern_gram(None, None), "is None", "is None")


# --------------------------------------------------------------------------- #
# the checkers rebuild the sheet's data from its seeds
# --------------------------------------------------------------------------- #
def test_default_data_is_the_sheets_data(capsys):
    """Reference: the data code of exercises/04_kernels.md, repeated here; a right answer
    passes without handing the data to the checker, so a changed notebook copy is ignored."""
    S = np.random.default_rng(4).random((12, 7)) < 0.45
    S[0] = False
    K = kernels.gaussian(1.0)(np.random.default_rng(5).standard_normal((15, 2)))
    X = np.random.default_rng(6).standard_normal((12, 4))
    X[:, 3] = X[:, 0] - 2 * X[:, 1]
    for module, line in ((ch04, SELF), (ref, FULL)):
        module.check_jaccard_gram(_jaccard_loop(S))
        module.check_exp_series(sum(K**i / math.factorial(i) for i in range(7)))
        module.check_inner_product_gram(np.linalg.matrix_rank(X), 0.0)
        assert capsys.readouterr().out.count(line) == 3
    np.testing.assert_array_equal(ch04.sheet_sets(), S)
    np.testing.assert_allclose(ch04.sheet_gram(), K, rtol=1e-13, atol=1e-15)
    np.testing.assert_array_equal(ch04.sheet_design(), X)


def test_answers_to_a_modified_problem_fail():
    """A notebook that changed its copy of the data is judged on the sheet's problem."""
    S = ch04.sheet_sets().copy()
    S[1] = ~S[1]
    for module in (ch04, ref):
        with pytest.raises(AssertionError):
            module.check_jaccard_gram(_jaccard_loop(S))
    X = ch04.sheet_design()
    X[:, 3] = np.random.default_rng(0).standard_normal(12)      # removed the dependence
    with pytest.raises(AssertionError, match="rank_G"):
        ref.check_inner_product_gram(np.linalg.matrix_rank(X), 0.0)


def test_sheet_calls_checkers_without_data():
    """The sheet's check cells pass only the answers (the checkers rebuild the data)."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "exercises" / "04_kernels.md").read_text()
    assert "ch04.check_jaccard_gram(K_jac)" in text
    assert "ch04.check_exp_series(K_series)" in text
    assert "ch04.check_inner_product_gram(rank_G, min_eig_G)" in text
    assert "ch04.check_matern_gram(min_eig_32, min_eig_52)" in text


def test_the_self_checks_hashes_are_the_sheets_answers():
    """Each digest in ch04 recognises the answer computed here by an independent route."""
    assert ch04._is(_jaccard_loop(ch04.sheet_sets()), "K_jac")
    K = ch04.sheet_gram()
    assert ch04._is(sum(K**i / math.factorial(i) for i in range(7)), "K_series")
    r = np.linspace(0.0, 4.0, 81)
    for name, nu in (("matern32", 1.5), ("matern52", 2.5)):
        assert ch04._is(np.concatenate([_sk(nu)(r, ell) for ell in (0.5, 1.7)]), name)


def test_rank_self_check_cannot_identify_the_rank(capsys):
    """Brute force over every plausible rank 0..min(n, p) with a consistent smallest eigenvalue:
    the self-check accepts all of them, so it cannot tell the student which one is right."""
    X = ch04.sheet_design()
    for rk in range(min(X.shape) + 1):
        ch04.check_inner_product_gram(rk, 0.0)
    assert capsys.readouterr().out.count(SELF) == min(X.shape) + 1
    assert "rank_G" not in ch04.DIGESTS


def test_digests_are_of_matrix_and_function_summaries_only():
    """No digest in ch04 hashes a scalar answer (an integer or a low-entropy number): every key
    is a summary of a matrix or of a function's values."""
    assert {k.split(":")[0].split("[")[0] for k in ch04.DIGESTS} == {
        "K_jac", "K_series", "matern32", "matern52"}


# --------------------------------------------------------------------------- #
# non-integer degree on the sphere
# --------------------------------------------------------------------------- #
def _cube():
    corners = np.array([[a, b, c] for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)], float)
    return corners / np.sqrt(3.0)


def test_sphere_violation_accepts_cube_and_icosahedron(capsys):
    """Reference: the cube's Gram matrix has the eigenvector sign(xyz) with a Rayleigh quotient
    below -0.02 (computed here without eigvalsh); the icosahedron (12 vertices) too."""
    X = _cube()
    v = np.prod(X, axis=1)
    G = (2.0 + X @ X.T) ** 1.5
    assert v @ G @ v / (v @ v) < -0.03
    _both(capsys, lambda m: m.check_sphere_violation(X))
    g = (1 + 5**0.5) / 2
    ico = np.array([[0, s1, s2 * g] for s1 in (-1, 1) for s2 in (-1, 1)]
                   + [[s1, s2 * g, 0] for s1 in (-1, 1) for s2 in (-1, 1)]
                   + [[s2 * g, 0, s1] for s1 in (-1, 1) for s2 in (-1, 1)], float)
    _both(capsys, lambda m: m.check_sphere_violation(ico / np.linalg.norm(ico, axis=1)[:, None]))


def test_sphere_violation_rejects_bad_points():
    """Off the sphere, too many points, too few (the octahedron gives a PSD matrix here),
    wrong shape, None."""
    _rejected(lambda m: m.check_sphere_violation(2 * _cube()), "norm 1", "norm 1")
    many = np.random.default_rng(0).standard_normal((13, 3))
    many /= np.linalg.norm(many, axis=1, keepdims=True)
    _rejected(lambda m: m.check_sphere_violation(many), "at most 12", "at most 12")
    octa = np.vstack([np.eye(3), -np.eye(3)])
    assert np.linalg.eigvalsh((2.0 + octa @ octa.T) ** 1.5)[0] > -0.02
    _rejected(lambda m: m.check_sphere_violation(octa), "not below", "not below")
    _rejected(lambda m: m.check_sphere_violation(_cube()[:, :2]), "shape", "shape")
    _rejected(lambda m: m.check_sphere_violation(None), "is None", "is None")


def test_notebook_passes_self_checks_and_full_checks_and_stubs_fail(capsys, monkeypatch):
    """Solution notebook: every check passes, the self-checks and then, in their place as
    when grading, the full checks. Student stubs (None): every check fails."""
    notebook.assert_sheet_passes_self_then_full(NOTEBOOK, ch04, ref, 7, capsys, monkeypatch)
