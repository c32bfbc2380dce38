"""The lecturer's full checks of chapter 4 (``exercises/04_kernels.md``).

The chapter is "Kernels: positive definiteness, closure rules and a catalogue". Never
shipped (see the package's docstring). Every check recomputes the answer by a route
different from the one the exercise asks for: the Jaccard Gram matrix by min-hashing over
all orderings of the ground set, the exponential series through ``scipy.special`` and the
Taylor remainder, the Matern kernels through the modified Bessel function ``K_nu``, the
smallest eigenvalue of a Matern Gram matrix from the Bessel formula and
``scipy.linalg.eigvalsh``, the rank of an inner-product Gram matrix from the singular values
of the data, and the Gram matrix of a candidate kernel by a plain double loop. A wrong
answer raises ``AssertionError`` with a hint that names the likely mistake without
revealing the reference values; a right one prints one line starting with ``Correct:``.

The data of an exercise are rebuilt from the seed the sheet states (the ``sheet_*``
functions of :mod:`kmlib.book.exercises.ch04`), so that a notebook whose copy of the data
was changed is judged on the problem the sheet poses; the tests pass other data explicitly.
"""
from __future__ import annotations

import math
from itertools import permutations
from typing import Any, Callable

import numpy as np
from scipy import linalg, special

from kmlib._validation import rank_tol
from kmlib.book.exercises._answers import answer_array, answer_scalar
from kmlib.book.exercises.ch04 import (
    SPHERE_THRESHOLD,
    _sphere_points,
    sheet_design,
    sheet_gram,
    sheet_matern_points,
    sheet_sets,
)

__all__ = [
    "check_jaccard_gram",
    "check_exp_series",
    "check_matern",
    "check_matern_gram",
    "check_inner_product_gram",
    "check_violation",
    "check_sphere_violation",
]


def _minhash_first(A: np.ndarray) -> np.ndarray:
    """First element of each set (row of ``A``) under every ordering of the ground set.

    The empty set gets -1.  The fraction of orderings in which two sets share their
    first element is their Jaccard index (min-hashing).
    """
    p = A.shape[1]
    ranks = np.argsort(np.array(list(permutations(range(p)))), axis=1)  # position of each element
    masked = np.where(A[None, :, :], ranks[:, None, :], p)              # non-members come last
    first = masked.argmin(axis=2)
    first[:, ~A.any(axis=1)] = -1
    return first


def _sets(S: Any) -> np.ndarray:
    A = np.asarray(S)
    if A.ndim != 2 or not np.all((A == 0) | (A == 1)):
        raise ValueError("S must be a 2-D 0/1 (or boolean) indicator matrix of sets")
    return A.astype(bool)


# --------------------------------------------------------------------------- #
# exercise: Jaccard kernel
# --------------------------------------------------------------------------- #
def check_jaccard_gram(K_jac: Any, S: Any = None) -> None:
    """Check the Jaccard Gram matrix of the sets in the rows of ``S`` (default: :func:`sheet_sets`).

    Reference: the fraction of orderings of the ground set under which two sets
    share their first element (min-hashing), enumerated exactly.
    """
    A = _sets(sheet_sets() if S is None else S)
    n = len(A)
    K = answer_array(K_jac, "K_jac", (n, n))
    first = _minhash_first(A)
    ref = (first[:, :, None] == first[:, None, :]).mean(axis=0)
    if np.allclose(K, ref, atol=1e-10):
        print(f"Correct: the {n} x {n} Jaccard Gram matrix matches the min-hash collision rates.")
        return
    empty = ~A.any(axis=1)
    inter = (A[:, None, :] & A[None, :, :]).sum(axis=2)
    union = (A[:, None, :] | A[None, :, :]).sum(axis=2)
    if empty.any() and not np.allclose(np.diag(K)[empty], 1.0):
        raise AssertionError(
            "a diagonal entry for the empty set is not 1: use the convention 0/0 := 1, so "
            "k(A, A) = 1 for every set A, including the empty one"
        )
    both = union > 0
    if np.allclose(K[both], (union / np.maximum(inter, 1))[both], rtol=1e-8):
        raise AssertionError("you computed |A ∪ B| / |A ∩ B|; "
                             "the Jaccard index is |A ∩ B| / |A ∪ B|")
    if not np.allclose(K, K.T, atol=1e-12):
        raise AssertionError("K_jac is not symmetric; entry (i, j) must use the sets i and j only")
    sizes = A.sum(axis=1)
    if np.allclose(K[both], (inter / np.maximum(np.add.outer(sizes, sizes), 1))[both], rtol=1e-8):
        raise AssertionError("the denominator |A| + |B| counts the intersection twice; use |A ∪ B|")
    bad = np.argwhere(~np.isclose(K, ref, atol=1e-10))
    i, j = bad[0]
    raise AssertionError(
        f"K_jac[{i}, {j}] is not the Jaccard index of sets {i} and {j}; count the elements "
        "the two sets share and divide by the number of elements in either set"
    )


# --------------------------------------------------------------------------- #
# exercise: e^k is a kernel
# --------------------------------------------------------------------------- #
def check_exp_series(K_series: Any, K: Any = None, m: int = 6) -> None:
    """Check the partial sum ``sum_{i=0}^m K^{∘i} / i!`` (entrywise powers) of a Gram matrix ``K``.

    ``K`` defaults to :func:`sheet_gram`, the matrix of the sheet.

    Reference: ``exp(K)`` minus the Taylor tail computed with the regularised
    incomplete Gamma function, ``e^t P(m+1, t)`` being the tail ``sum_{i>m} t^i/i!``.
    """
    Kg = sheet_gram() if K is None else np.asarray(K, dtype=float)
    n = len(Kg)
    S = answer_array(K_series, "K_series", (n, n))
    m = int(m)
    ref = np.exp(Kg) * special.gammaincc(m + 1, Kg)     # e^t Q(m+1, t) = sum_{i<=m} t^i / i!
    if np.allclose(S, ref, rtol=1e-10, atol=1e-12):
        print(f"Correct: the partial sum with terms 0..{m} is a kernel's Gram matrix "
              "(entrywise powers of K).")
        return
    mat = sum(np.linalg.matrix_power(Kg, i) / math.factorial(i) for i in range(m + 1))
    if np.allclose(S, mat, rtol=1e-8):
        raise AssertionError(
            "you used matrix powers (K @ K ...); the kernel k(x, x')^i has the ENTRYWISE "
            "power K ** i as its Gram matrix"
        )
    if np.allclose(S, ref - 1.0, rtol=1e-8, atol=1e-10):
        raise AssertionError("the series must start at i = 0 (the constant term 1)")
    if np.allclose(S, np.exp(Kg), rtol=1e-10):
        raise AssertionError("that is exp(K) itself; "
                             f"the exercise asks for the partial sum up to i = {m}")
    no_fact = sum(Kg**i for i in range(m + 1))
    if np.allclose(S, no_fact, rtol=1e-8):
        raise AssertionError("the coefficients of the exponential series are 1 / i!")
    for mm in (m - 1, m + 1):
        if mm >= 0 and np.allclose(S, np.exp(Kg) * special.gammaincc(mm + 1, Kg), rtol=1e-10):
            raise AssertionError(f"off by one: include the terms i = 0, 1, ..., {m}")
    raise AssertionError(f"K_series is not sum_{{i=0}}^{m} K**i / i! (entrywise powers)")


# --------------------------------------------------------------------------- #
# exercise: Matern 3/2 and 5/2
# --------------------------------------------------------------------------- #
def _matern_bessel(r: np.ndarray, nu: float, ell: float) -> np.ndarray:
    t = np.sqrt(2 * nu) * r / ell
    out = np.ones_like(t)
    pos = t > 0
    out[pos] = 2 ** (1 - nu) / special.gamma(nu) * t[pos] ** nu * special.kv(nu, t[pos])
    return out


def _evaluate(f: Any, name: str, r: np.ndarray, ell: float) -> np.ndarray:
    if f is None:
        raise AssertionError(f"`{name}` is None: define the function `{name}(r, ell)` first")
    if not callable(f):
        raise AssertionError(f"`{name}` must be a function of (r, ell); got {type(f).__name__}")
    try:
        v = f(r, ell)
    except Exception as exc:  # noqa: BLE001 - report any failure of the student's code
        raise AssertionError(f"`{name}(r, ell)` raised {type(exc).__name__}: {exc}") from None
    return answer_array(v, f"{name}(r, ell)", r.shape)


def check_matern(matern32: Callable, matern52: Callable) -> None:
    """Check the closed forms of the Matern kernels with nu = 3/2 and 5/2.

    Reference: the general formula with the Bessel function ``scipy.special.kv``,
    on ``r`` in [0, 4] for two length scales.
    """
    r = np.linspace(0.0, 4.0, 81)
    for name, f, nu, c in (("matern32", matern32, 1.5, math.sqrt(3)),
                           ("matern52", matern52, 2.5, math.sqrt(5))):
        for ell in (0.5, 1.7):
            v = _evaluate(f, name, r, ell)
            ref = _matern_bessel(r, nu, ell)
            if np.allclose(v, ref, rtol=1e-10, atol=1e-13):
                continue
            if abs(v[0] - 1.0) > 1e-12:
                raise AssertionError(f"{name}(0, ell) must be 1: the kernel is normalised at r = 0")
            other = _matern_bessel(r, 4.0 - nu, ell)
            if np.allclose(v, other, rtol=1e-8, atol=1e-12):
                raise AssertionError(f"{name} computes the other Matern kernel "
                                     "(3/2 and 5/2 swapped)")
            t = r / ell
            if np.allclose(v, (1 + t) * np.exp(-t), rtol=1e-8) or np.allclose(
                    v, (1 + t + t**2 / 3) * np.exp(-t), rtol=1e-8):
                raise AssertionError(f"{name}: the argument is sqrt(2 nu) r / ell, not r / ell")
            if nu == 2.5:
                tt = c * r / ell
                if np.allclose(v, (1 + tt + tt**2) * np.exp(-tt), rtol=1e-8):
                    raise AssertionError("matern52: check the coefficient of the quadratic term")
            raise AssertionError(
                f"{name}(r, ell) differs from the Bessel-function formula for ell = {ell}; "
                f"substitute the half-integer closed form of K_nu with nu = {nu}"
            )
    print("Correct: both closed forms agree with the Bessel-function formula "
          "for two length scales.")


def check_matern_gram(min_eig_32: Any, min_eig_52: Any, x: Any = None, ell: float = 0.5) -> None:
    """Check the smallest eigenvalues of the Matern 3/2 and 5/2 Gram matrices on the points ``x``.

    ``x`` defaults to :func:`sheet_matern_points`.  Reference: the Gram matrices from
    the Bessel-function formula (not the closed forms) and the smallest eigenvalue by
    bisection in LAPACK (``scipy.linalg.eigvalsh`` with ``driver="evx"``).
    """
    pts = sheet_matern_points() if x is None else np.asarray(x, dtype=float).reshape(-1)
    r = np.abs(pts[:, None] - pts[None, :])
    for name, value, nu in (("min_eig_32", min_eig_32, 1.5), ("min_eig_52", min_eig_52, 2.5)):
        v = answer_scalar(value, name)
        G = _matern_bessel(r, nu, ell)
        ev = linalg.eigvalsh(G, driver="evx")
        tol = 1e-10 * ev[-1]                 # round-off of eigvalsh is about 1e-15 * ev[-1]
        if abs(v - ev[0]) <= tol:
            continue
        if abs(v - ev[-1]) <= 1e-6 * ev[-1]:
            raise AssertionError(f"{name} is the largest eigenvalue; eigvalsh returns the "
                                 "eigenvalues in increasing order")
        other = _matern_bessel(r, 4.0 - nu, ell)
        if abs(v - linalg.eigvalsh(other, driver="evx")[0]) <= tol:
            raise AssertionError(f"{name} belongs to the other Matern kernel (3/2 and 5/2 swapped)")
        if v < -tol:
            raise AssertionError(f"{name} is clearly negative, but a Matern Gram matrix is "
                                 "positive semidefinite; build the matrix from the distances "
                                 "|x_i - x_j| (not the differences) and check your closed form")
        raise AssertionError(f"{name} is not the smallest eigenvalue of the Gram matrix "
                             f"k(|x_i - x_j|) with ell = {ell:g} on the {len(pts)} points")
    print(f"Correct: both Matern Gram matrices are positive definite on the {len(pts)} points "
          "(smallest eigenvalues positive).")


# --------------------------------------------------------------------------- #
# exercise: constant kernels and Gram matrices of inner products
# --------------------------------------------------------------------------- #
def check_inner_product_gram(rank_G: Any, min_eig_G: Any, X: Any = None) -> None:
    """Check the rank and smallest eigenvalue of ``G = X X^T``.

    ``X`` defaults to :func:`sheet_design`, the matrix of the sheet.

    Reference: the singular values of ``X`` (never forming ``G``): the rank of
    ``G`` is the number of non-zero singular values, and its smallest eigenvalue
    is 0 when ``n`` exceeds that rank, else the smallest squared singular value.
    """
    X = sheet_design() if X is None else np.asarray(X, dtype=float)
    n = X.shape[0]
    rk = answer_scalar(rank_G, "rank_G")
    lo = answer_scalar(min_eig_G, "min_eig_G")
    s = np.linalg.svd(X, compute_uv=False)
    tol = rank_tol(s, max(X.shape))
    r = int(np.sum(s > tol))
    if rk != r:
        if rk == n:
            raise AssertionError("rank_G: G is n x n but its rank is rank(X), which can be smaller "
                                 "than n (and than p): look at the columns of X")
        if rk == min(X.shape):
            raise AssertionError("rank_G: min(n, p) is only an upper bound; are the columns of X "
                                 "linearly independent?")
        raise AssertionError("rank_G is not the rank of X X^T; count the singular values of X "
                             "above a round-off tolerance")
    ref = 0.0 if n > r else float(s[-1] ** 2)
    scale = s[0] ** 2
    if abs(lo - ref) > 1e-10 * scale:
        if lo < -1e-10 * scale:
            raise AssertionError("min_eig_G is clearly negative, but G = X X^T is positive "
                                 "semidefinite: c^T G c = ||X^T c||^2")
        raise AssertionError("min_eig_G is not the smallest eigenvalue of G; use eigvalsh on G, "
                             "whose eigenvalues come in increasing order")
    print(f"Correct: G has rank {r} and is positive semidefinite.")


# --------------------------------------------------------------------------- #
# exercise: find points that refute a candidate kernel
# --------------------------------------------------------------------------- #
def _candidate(a: float, b: float) -> float:
    return math.exp(-((a - b) ** 4))


def check_violation(X_bad: Any, threshold: float = -1e-3) -> None:
    """Check that ``exp(-(x - x')^4)`` is not positive definite on the points ``X_bad``.

    The Gram matrix of ``X_bad`` must have an eigenvalue below ``threshold``.

    Reference: the Gram matrix built entry by entry in a double loop, and its
    smallest eigenvalue from ``scipy.linalg.eigvalsh``.
    """
    if X_bad is None:
        raise AssertionError("`X_bad` is None: assign an array of points on the real line first")
    try:
        x = np.asarray(X_bad, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise AssertionError(f"`X_bad` must be numeric; got {type(X_bad).__name__}") from None
    if not np.all(np.isfinite(x)):
        raise AssertionError("`X_bad` contains NaN or infinite values")
    if len(x) > 10:
        raise AssertionError(f"use at most 10 points; got {len(x)}")
    if len(x) <= 2:
        raise AssertionError(
            "one or two points can never refute this candidate: k(x, x) = 1 and 0 < k <= 1, so "
            "every 2 x 2 Gram matrix has determinant 1 - k^2 >= 0; use more points"
        )
    G = np.array([[_candidate(a, b) for b in x] for a in x])
    low = float(linalg.eigvalsh(G, driver="evd")[0])
    if low >= threshold:
        raise AssertionError(
            f"the smallest eigenvalue of the Gram matrix of your points is not below "
            f"{threshold:g}; try more points, evenly spaced at distances below 1"
        )
    print(f"Correct: your {len(x)} points give a Gram matrix with a negative eigenvalue, so "
          "exp(-(x - x')^4) is not a kernel.")


def check_sphere_violation(X_sph: Any) -> None:
    """Check that ``(2 + x^T x')^{3/2}`` is not positive definite on the unit vectors ``X_sph``.

    Reference: the Gram matrix built entry by entry from ``math.fsum`` inner products, and its
    smallest eigenvalue from ``scipy.linalg.eigvalsh``.
    """
    X = _sphere_points(X_sph)
    G = np.array([[(2.0 + min(1.0, max(-1.0, math.fsum(a * b)))) ** 1.5 for b in X] for a in X])
    low = float(linalg.eigvalsh(G, driver="evd")[0])
    if low >= SPHERE_THRESHOLD:
        raise AssertionError(
            f"the smallest eigenvalue of the Gram matrix of your points is not below "
            f"{SPHERE_THRESHOLD:g}; the points do not refute the candidate strongly enough"
        )
    print(f"Correct: your {len(X)} points on the unit sphere refute (2 + x^T x')^(3/2).")
