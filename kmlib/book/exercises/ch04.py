"""Self-checks for the exercises of chapter 4.

The chapter is "Kernels: positive definiteness, closure rules and a catalogue"; the sheet
is ``exercises/04_kernels.md``. A self-check tests properties that a right answer must
have, without computing the answer: a Gram matrix is symmetric and positive semidefinite
with the right diagonal, a partial sum of the exponential series lies between ``1 + t``
and ``e^t`` and grows with each entry, a normalised kernel is 1 at ``r = 0`` and
decreasing, a rank is bounded by the shape of the data and forces zero eigenvalues, a
smallest eigenvalue lies below a Rayleigh quotient, and the sheet's matrices and functions are
recognised by a slow salted hash of two numbers that summarise their values, rounded to six
significant digits (:func:`~kmlib.book.exercises._answers.matches_digest`). No scalar answer is
hashed: an integer or a number known to a few digits could be found by trying candidates.
Hashes of typical wrong answers
let it name a mistake without knowing the right answer. It raises ``AssertionError`` with
a hint when a property fails and prints one line starting with ``Self-check passed:``
otherwise. The full check, which compares every answer with an independent computation,
runs when the lecturer grades the sheet.

The data of an exercise are rebuilt here from the seed the sheet states (the ``sheet_*``
functions), so that a notebook whose copy of the data was changed is judged on the problem
the sheet poses; the tests pass other data explicitly.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from kmlib import kernels

from ._answers import answer_array, answer_scalar, matches_digest

__all__ = [
    "check_jaccard_gram",
    "check_exp_series",
    "check_matern",
    "check_matern_gram",
    "check_inner_product_gram",
    "check_violation",
    "check_sphere_violation",
    "sheet_sets",
    "sheet_gram",
    "sheet_matern_points",
    "sheet_design",
]

GRADED = "the full check runs when the sheet is graded"
# digest(value, key) of the sheet's answers and of some typical wrong answers, rounded to
# six significant digits (integers: ten); for an array, of its two summaries (_summary)
DIGESTS = {
    "K_jac:sum": "85ef15102309e4f3fdb2dd031cec44c9ff5fe567ae63787cfd5c982c13780a0b",
    "K_jac:squares": "fdbd3828ed9a1f97ef64de86798a54812ad6eea4e238c27ec1b536392b289eb2",
    "K_series:sum": "dedbaefe3a4621f18618de1309f2ae53f5172b038e9c9f06bd69a03197ee028f",
    "K_series:squares": "21ab0dd4e2cd9a307a2535d8353559652b8c6f3e7f0fecd469561dfeb7073061",
    "K_series[m-1]:squares": "c0586de9019b64cf72c511bc633230e92afeaa3429003db3a8a1eb05fe84a8d1",
    "K_series[m+1]:squares": "4eea4170787b170d06e906c4e4c53f913453762c27edb53f099681bf9bd6d737",
    "matern32:sum": "2f4fbd99813f5cb852ef6db29cae0afa4e6ca23ae62df03270b3c8cdb0d2d081",
    "matern32:squares": "cfa008aacde183e3e0e1042e0a704602f62639ef834a42f5861934ee5cd9df85",
    "matern52:sum": "810672efcfe32f1bae7c046cabbf677ad7efc5c64eed2feaf9e390c666fca324",
    "matern52:squares": "3a23f762f3fd2c61408ce7ff983964f21bf075ebbaaaa32347f495bffae3c705",
    "matern32[r/ell]:squares":
        "7dc2e81ba7c20102bd718b61a2eb167e5527ac97772ed3e562d3a32362132907",
    "matern52[r/ell]:squares":
        "1dd7cff6e60e7ab7ec5a68ab620faa863dd6a6a32fc31aebda3db210f6cfdc44",
    "matern52[t^2]:squares": "e724e3e165ca3932c6ca8d38eaa5e7eeddfcb99bf11ebbdf8e79cebe148b11b4",
}


# --------------------------------------------------------------------------- #
# the sheet's data, rebuilt from the seeds it states
# --------------------------------------------------------------------------- #
def sheet_sets() -> np.ndarray:
    """The 12 subsets of {0, ..., 6} of exercise pd-ex-min-jaccard (seed 4, first one empty)."""
    S = np.random.default_rng(4).random((12, 7)) < 0.45
    S[0] = False
    return S


def sheet_gram() -> np.ndarray:
    """The Gaussian Gram matrix of exercise pd-ex-exp (15 points in R^2, seed 5, sigma = 1)."""
    X = np.random.default_rng(5).standard_normal((15, 2))
    sq = np.sum(X**2, axis=1)
    return np.exp(-np.clip(sq[:, None] + sq[None, :] - 2 * X @ X.T, 0.0, None) / 2.0)


def sheet_matern_points() -> np.ndarray:
    """The 40 points of exercise pd-ex-matern (uniform on [0, 10], seed 7)."""
    return np.random.default_rng(7).uniform(0.0, 10.0, 40)


def sheet_design() -> np.ndarray:
    """The 12 x 4 design of exercise pd-ex-constant-gram (seed 6, last column dependent)."""
    X = np.random.default_rng(6).standard_normal((12, 4))
    X[:, 3] = X[:, 0] - 2 * X[:, 1]
    return X


# --------------------------------------------------------------------------- #
# helpers
# --------------------------------------------------------------------------- #
def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-12, atol=1e-12))


def _summary(a: np.ndarray) -> dict[str, float]:
    """Two numbers that pin an array down: a weighted sum and the sum of squares.

    The weights are cos(1), cos(2), ...; :func:`matches_digest` compares each number.
    """
    a = np.asarray(a, dtype=float).ravel()
    return {"sum": float(np.cos(np.arange(1, a.size + 1)) @ a), "squares": float(a @ a)}


def _is(a: np.ndarray, key: str, parts: tuple[str, ...] = ("sum", "squares")) -> bool:
    """Whether the summaries ``parts`` of ``a`` match the digests of ``key``."""
    summary = _summary(a)
    return all(matches_digest(summary[p], DIGESTS[f"{key}:{p}"], f"{key}:{p}") for p in parts)


def _sets(S: Any) -> np.ndarray:
    A = np.asarray(S)
    if A.ndim != 2 or not np.all((A == 0) | (A == 1)):
        raise ValueError("S must be a 2-D 0/1 (or boolean) indicator matrix of sets")
    return A.astype(bool)


def _lowest(G: np.ndarray) -> float:
    return float(np.linalg.eigvalsh((G + G.T) / 2).min())


# --------------------------------------------------------------------------- #
# exercise: Jaccard kernel
# --------------------------------------------------------------------------- #
def check_jaccard_gram(K_jac: Any, S: Any = None) -> None:
    """Self-check of the Jaccard Gram matrix of the sets in the rows of ``S``.

    ``S`` defaults to :func:`sheet_sets`. Properties: entries in ``[0, 1]``, a unit
    diagonal (the empty set included, by ``0/0 := 1``), symmetry, positive semidefiniteness
    (a kernel's Gram matrix); for the sheet's sets, the hash of two summaries of the matrix.
    """
    A = _sets(sheet_sets() if S is None else S)
    n = len(A)
    K = answer_array(K_jac, "K_jac", (n, n))
    empty = ~A.any(axis=1)
    diag = np.diag(K)
    if empty.any() and not np.allclose(diag[empty], 1.0):
        raise AssertionError(
            "a diagonal entry for the empty set is not 1: use the convention 0/0 := 1, so "
            "k(A, A) = 1 for every set A, including the empty one"
        )
    if K.max() > 1 + 1e-12 or K.min() < 0:
        raise AssertionError("a Jaccard index lies in [0, 1]; |A ∪ B| / |A ∩ B| would exceed 1: "
                             "the Jaccard index is |A ∩ B| / |A ∪ B|")
    if not np.allclose(K, K.T, atol=1e-12):
        raise AssertionError("K_jac is not symmetric; entry (i, j) must use the sets i and j only")
    if (~empty).any() and np.allclose(diag[~empty], 0.5):
        raise AssertionError("the denominator |A| + |B| counts the intersection twice; use |A ∪ B|")
    if not np.allclose(diag, 1.0):
        raise AssertionError("k(A, A) = |A| / |A| = 1 for every set: the diagonal of K_jac is 1")
    if _lowest(K) < -1e-10:
        raise AssertionError("K_jac has a negative eigenvalue, but the Jaccard kernel is positive "
                             "definite; count the elements the two sets share and divide by the "
                             "number of elements in either set")
    if _same(A.astype(float), sheet_sets().astype(float)) and not _is(K, "K_jac"):
        raise AssertionError("some entry of K_jac is not the Jaccard index of its two sets; count "
                             "the elements the two sets share and divide by the number of "
                             "elements in either set")
    print(f"Self-check passed: the {n} x {n} matrix is symmetric, positive semidefinite, with a "
          f"unit diagonal ({GRADED}).")


# --------------------------------------------------------------------------- #
# exercise: e^k is a kernel
# --------------------------------------------------------------------------- #
def check_exp_series(K_series: Any, K: Any = None, m: int = 6) -> None:
    """Self-check of the partial sum ``sum_{i=0}^m K^{∘i} / i!`` (entrywise powers).

    ``K`` defaults to :func:`sheet_gram`. Properties: the partial sum is a fixed polynomial
    applied to each entry, so it is symmetric and grows with the entry of ``K``; where
    ``t = K_ij >= 0`` it lies between ``1 + t`` and ``e^t`` (strictly below ``e^t`` for
    ``t > 0``); for the sheet's matrix and ``m = 6``, the hash of two summaries (and of the
    sums with ``m +- 1`` terms, to tell an off-by-one).
    """
    Kg = sheet_gram() if K is None else np.asarray(K, dtype=float)
    n = len(Kg)
    S = answer_array(K_series, "K_series", (n, n))
    m = int(m)
    if not np.allclose(S, S.T, rtol=1e-12, atol=1e-12):
        raise AssertionError("K_series is not symmetric; the kernel k(x, x')^i has the "
                             "ENTRYWISE power K ** i as its Gram matrix")
    t, s = Kg.ravel(), S.ravel()
    order = np.argsort(t, kind="stable")
    if np.any(np.diff(s[order]) < -1e-10 * np.abs(s).max()):
        raise AssertionError(
            "the entries of K_series do not grow with those of K: you used matrix powers "
            "(K @ K ...); the kernel k(x, x')^i has the ENTRYWISE power K ** i as its Gram matrix"
        )
    pos = t >= 0
    if np.allclose(s[pos], np.exp(t[pos]), rtol=1e-12):
        raise AssertionError("that is exp(K) itself; "
                             f"the exercise asks for the partial sum up to i = {m}")
    if np.any(s[pos] > np.exp(t[pos]) * (1 + 1e-12)):
        raise AssertionError("K_series exceeds exp(K): the coefficients of the exponential "
                             "series are 1 / i!")
    if m >= 1 and np.any(s[pos] < (1 + t[pos]) * (1 - 1e-12)):
        if np.all(s[pos] + 1 >= (1 + t[pos]) * (1 - 1e-12)):
            raise AssertionError("the series must start at i = 0 (the constant term 1)")
        raise AssertionError(f"K_series is not sum_{{i=0}}^{m} K**i / i! (entrywise powers)")
    if K is None or _same(Kg, sheet_gram()):
        if m == 6 and not _is(S, "K_series"):
            for key, mm in (("K_series[m-1]", m - 1), ("K_series[m+1]", m + 1)):
                if _is(S, key, ("squares",)):
                    raise AssertionError(f"off by one (terms up to i = {mm}): include the terms "
                                         f"i = 0, 1, ..., {m}")
            raise AssertionError(f"K_series is not sum_{{i=0}}^{m} K**i / i! (entrywise powers)")
    print(f"Self-check passed: K_series applies one increasing polynomial to every entry, between "
          f"1 + t and e^t ({GRADED}).")


# --------------------------------------------------------------------------- #
# exercise: Matern 3/2 and 5/2
# --------------------------------------------------------------------------- #
def _values(f: Any, name: str) -> np.ndarray:
    """``f(r, ell)`` on 81 distances in [0, 4], for ell = 0.5 and ell = 1.7, end to end."""
    if f is None:
        raise AssertionError(f"`{name}` is None: define the function `{name}(r, ell)` first")
    if not callable(f):
        raise AssertionError(f"`{name}` must be a function of (r, ell); got {type(f).__name__}")
    r = np.linspace(0.0, 4.0, 81)
    out = []
    for ell in (0.5, 1.7):
        try:
            v = f(r.copy(), ell)
        except Exception as exc:  # noqa: BLE001 - report any failure of the student's code
            raise AssertionError(f"`{name}(r, ell)` raised {type(exc).__name__}: {exc}") from None
        out.append(answer_array(v, f"{name}(r, ell)", r.shape))
    return np.concatenate(out)


def check_matern(matern32: Callable, matern52: Callable) -> None:
    """Self-check of the closed forms of the Matern kernels with nu = 3/2 and 5/2.

    Both functions are evaluated on ``r`` in [0, 4] for two length scales. Properties: the
    value 1 at ``r = 0``; the hash of two summaries of the values (and of the values of
    typical wrong forms, to name them); values that are not recognised are tested for being
    positive and decreasing in ``r``.
    """
    values = {"matern32": _values(matern32, "matern32"), "matern52": _values(matern52, "matern52")}
    for name, other in (("matern32", "matern52"), ("matern52", "matern32")):
        v = values[name]
        if abs(v[0] - 1.0) > 1e-12 or abs(v[81] - 1.0) > 1e-12:
            raise AssertionError(f"{name}(0, ell) must be 1: the kernel is normalised at r = 0")
        if _is(v, name):
            continue
        if _is(v, other):
            raise AssertionError(f"{name} computes the other Matern kernel (3/2 and 5/2 swapped)")
        if _is(v, f"{name}[r/ell]", ("squares",)):
            raise AssertionError(f"{name}: the argument is sqrt(2 nu) r / ell, not r / ell")
        if name == "matern52" and _is(v, "matern52[t^2]", ("squares",)):
            raise AssertionError("matern52: check the coefficient of the quadratic term")
        if np.any(v <= 0) or np.any(np.diff(v[:81]) > 1e-15) or np.any(np.diff(v[81:]) > 1e-15):
            raise AssertionError(f"{name}(r, ell) must be positive and decrease with r")
        nu = 1.5 if name == "matern32" else 2.5
        raise AssertionError(f"{name}(r, ell) differs from the Bessel-function formula; "
                             f"substitute the half-integer closed form of K_nu with nu = {nu}")
    print(f"Self-check passed: both functions are normalised and recognised by their values "
          f"({GRADED}).")


def check_matern_gram(min_eig_32: Any, min_eig_52: Any, x: Any = None, ell: float = 0.5) -> None:
    """Self-check of the smallest eigenvalues of the Matern 3/2 and 5/2 Gram matrices.

    ``x`` defaults to :func:`sheet_matern_points`. Properties: positive (the kernels are
    strictly positive definite) and at most the Rayleigh quotient of ``e_i - e_j`` for the two
    closest points, ``1 - k(|x_i - x_j|)``, an upper bound for the smallest eigenvalue (and at
    most 1, the mean eigenvalue). No hash: every value between 0 and that bound passes, so the
    self-check cannot be searched for the answer.
    """
    pts = sheet_matern_points() if x is None else np.asarray(x, dtype=float).reshape(-1)
    gaps = np.abs(np.subtract.outer(pts, pts))
    np.fill_diagonal(gaps, np.inf)
    r_min = float(gaps.min())
    given = {"min_eig_32": (answer_scalar(min_eig_32, "min_eig_32"), 1.5),
             "min_eig_52": (answer_scalar(min_eig_52, "min_eig_52"), 2.5)}
    for name, (v, nu) in given.items():
        if v > 1.0:
            raise AssertionError(f"{name} is the largest eigenvalue (or another one); eigvalsh "
                                 "returns the eigenvalues in increasing order, and the smallest "
                                 "is at most the mean, 1")
        if v <= 0.0:
            raise AssertionError(f"{name} is not positive, but a Matern Gram matrix on distinct "
                                 "points is positive definite; build the matrix from the "
                                 "distances |x_i - x_j| (not the differences) and check your "
                                 "closed form")
        bound = 1.0 - float(kernels.matern(nu, ell)(np.array([0.0]), np.array([r_min]))[0, 0])
        if v > bound:
            raise AssertionError(
                f"{name} is not the smallest eigenvalue: for the two closest points x_i, x_j the "
                "vector e_i - e_j has Rayleigh quotient 1 - k(|x_i - x_j|), and the smallest "
                "eigenvalue is at most that; use eigvalsh on the Gram matrix with "
                f"ell = {ell:g}")
    print(f"Self-check passed: both smallest eigenvalues are positive and below the Rayleigh "
          f"quotient of the closest pair ({GRADED}).")


# --------------------------------------------------------------------------- #
# exercise: constant kernels and Gram matrices of inner products
# --------------------------------------------------------------------------- #
def check_inner_product_gram(rank_G: Any, min_eig_G: Any, X: Any = None) -> None:
    """Self-check of the rank and smallest eigenvalue of ``G = X X^T``.

    ``X`` defaults to :func:`sheet_design`. Properties: the rank is a whole number at most
    ``min(n, p)``; when it is below ``n`` (always when ``n > p``) the smallest eigenvalue is
    0 up to round-off, and it is never clearly negative. The self-check does not know the rank:
    every whole number up to ``min(n, p)`` passes with a consistent eigenvalue.
    """
    X = sheet_design() if X is None else np.asarray(X, dtype=float)
    n, p = X.shape
    rk = answer_scalar(rank_G, "rank_G")
    lo = answer_scalar(min_eig_G, "min_eig_G")
    if rk != int(rk) or rk < 0:
        raise AssertionError("rank_G must be a whole number")
    if rk > min(n, p):
        raise AssertionError("rank_G: G is n x n but its rank is rank(X), which is at most the "
                             "number of columns of X")
    tol = 1e-10 * float(np.sum(X * X))
    if lo < -tol:
        raise AssertionError("min_eig_G is clearly negative, but G = X X^T is positive "
                             "semidefinite: c^T G c = ||X^T c||^2")
    if (rk < n or n > p) and lo > tol:
        raise AssertionError("min_eig_G is not the smallest eigenvalue of G: a rank below n "
                             "forces a zero eigenvalue; use eigvalsh on G, whose eigenvalues "
                             "come in increasing order")
    print(f"Self-check passed: rank {int(rk)} is possible for G and the smallest eigenvalue is "
          f"consistent with it ({GRADED}).")


# --------------------------------------------------------------------------- #
# exercise: find points that refute a candidate kernel
# --------------------------------------------------------------------------- #
def check_violation(X_bad: Any, threshold: float = -1e-3) -> None:
    """Self-check that ``exp(-(x - x')^4)`` is not positive definite on the points ``X_bad``.

    The Gram matrix of ``X_bad`` must have an eigenvalue below ``threshold``: this property
    is the whole answer (many sets of points refute the candidate), so the self-check is
    the full check.
    """
    if X_bad is None:
        raise AssertionError("`X_bad` is None: assign an array of points on the real line first")
    try:
        x = np.asarray(X_bad, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise AssertionError(f"`X_bad` must be numeric; got {type(X_bad).__name__}") from None
    if not np.all(np.isfinite(x)):
        raise AssertionError("`X_bad` contains NaN or infinite values")
    if x.size > 10:
        raise AssertionError(f"use at most 10 points; got {x.size}")
    if x.size <= 2:
        raise AssertionError(
            "one or two points can never refute this candidate: k(x, x) = 1 and 0 < k <= 1, so "
            "every 2 x 2 Gram matrix has determinant 1 - k^2 >= 0; use more points"
        )
    gram = np.exp(-np.subtract.outer(x, x) ** 4)
    if _lowest(gram) >= threshold:
        raise AssertionError(
            f"the smallest eigenvalue of the Gram matrix of your points is not below "
            f"{threshold:g}; try more points, evenly spaced at distances below 1"
        )
    print(f"Self-check passed: your {x.size} points give a Gram matrix with a negative "
          f"eigenvalue, so exp(-(x - x')^4) is not a kernel ({GRADED}).")


SPHERE_THRESHOLD, SPHERE_MAX_POINTS = -0.02, 12


def _sphere_points(X_sph: Any) -> np.ndarray:
    """Validate the points of exercise pd-ex-fractional: at most 12 unit vectors in R^3."""
    if X_sph is None:
        raise AssertionError("`X_sph` is None: assign an array of points on the unit sphere "
                             "of R^3 (one point per row) first")
    try:
        X = np.asarray(X_sph, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError(f"`X_sph` must be numeric; got {type(X_sph).__name__}") from None
    if X.ndim != 2 or X.shape[1] != 3:
        raise AssertionError(f"`X_sph` must have shape (n, 3), one point per row; got shape "
                             f"{X.shape}")
    if not np.all(np.isfinite(X)):
        raise AssertionError("`X_sph` contains NaN or infinite values")
    if len(X) > SPHERE_MAX_POINTS:
        raise AssertionError(f"use at most {SPHERE_MAX_POINTS} points; got {len(X)}")
    if np.abs(np.linalg.norm(X, axis=1) - 1.0).max() > 1e-9:
        raise AssertionError("the rows of `X_sph` must have Euclidean norm 1 (to 1e-9): the "
                             "candidate is to be refuted on the unit sphere, where its base "
                             "2 + x^T x' is positive")
    return X


def check_sphere_violation(X_sph: Any) -> None:
    """Self-check that ``(2 + x^T x')^{3/2}`` is not positive definite on the points ``X_sph``.

    The Gram matrix of the at most 12 unit vectors ``X_sph`` must have an eigenvalue below
    -0.02: this property is the whole answer (many sets of points refute the candidate), so
    the self-check is the full check.
    """
    X = _sphere_points(X_sph)
    gram = (2.0 + np.clip(X @ X.T, -1.0, 1.0)) ** 1.5
    if _lowest(gram) >= SPHERE_THRESHOLD:
        raise AssertionError(
            f"the smallest eigenvalue of the Gram matrix of your points is not below "
            f"{SPHERE_THRESHOLD:g}; think about which Legendre coefficient of "
            "(2 + t)^{3/2} is negative, and which points make the matching spherical harmonic "
            "large with alternating signs"
        )
    print(f"Self-check passed: your {len(X)} points on the unit sphere give a Gram matrix with "
          f"an eigenvalue below {SPHERE_THRESHOLD:g}, so (2 + x^T x')^(3/2) is not a kernel there "
          f"({GRADED}).")
