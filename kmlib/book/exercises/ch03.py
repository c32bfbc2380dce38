"""Self-checks for the exercises of chapter 3, "The kernel trick".

The sheet is ``exercises/03_kernel_trick.md``.

A self-check tests properties that a right answer must have, without computing the answer:
bounds that every condition number of a shifted Gram matrix obeys, the normal equations and
the row space of a minimum-norm solution, the projection property of a spectral cut-off fit,
the guarantee of a bound, and for numbers of the sheet's own data a slow salted hash of the
value rounded to six significant digits (for a vector, of two numbers that summarise it;
:func:`~kmlib.book.exercises._answers.matches_digest`). Hashes of typical wrong answers let
it name a mistake without knowing the right answer. Whole-number answers (feature dimensions,
numbers of coordinates) get bounds only: a yes/no on a small integer would give it away by
enumeration, and ``tests/test_exercise_checks_ch03.py`` tries. It raises ``AssertionError`` with a
hint when a property fails and prints one line starting with ``Self-check passed:``
otherwise. The full check, which compares every answer with an independent computation,
runs when the lecturer grades the sheet.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._answers import answer_array, answer_scalar, matches_digest

__all__ = [
    "check_condition_numbers",
    "check_monomial_counts",
    "check_pinv_dual",
    "check_gaussian_terms",
    "check_cutoff",
    "check_kernel_predictions",
    "check_tanh_counterexample",
    "check_intercept_limit",
]

GRADED = "the full check runs when the sheet is graded"
# digest(value, key) of the sheet's answers and of some typical wrong answers, rounded to
# six significant digits; for a vector, of its two summaries (_summary)
DIGESTS = {
    "kappa_P_tall": "aa3ef4fc15d6144940a88658880cde579de6409bfc8939df044591b13512784e",
    "kappa_D_tall": "221605659fad8e4d94491192b3292257f674964e6ee854405455beeb02a62a30",
    "kappa_P_wide": "10ad85f1c9af0c3c46aff549bfc367cd1af455264a323315f2fd1352f57eeba4",
    "kappa_D_wide": "52f38deec26bb92b62face6009cae92f1648fc87a52e7d5bbdd92832e72eceef",
    "w_cut:sum": "4ade76e9e33d04ac0fb368a24c3ecccf7f5336ffb8c7bb9bd2c4a1c9ce8b49ef",
    "w_cut:squares": "3c8db2f4f430f7996afc62428779514fe3b7bda89e348db07c5a5ad5040d3419",
    "w_cut[sigma^2>lam]:squares":
        "8b62339f19276e57c8fe8ce97139bf0ae710d3769826c0ac61649f569307f5d6",
    "w_cut[pinv]:squares": "b498e61c99a42a6aec75dc66a366006f96be5aab976b05534a24623ac2b4898a",
    "f_new:sum": "cd78066f01fc3961899178bd191fba4e683d969184bd111b4aee6db05be399be",
    "f_new:squares": "d17e3cec9edbcfb0a749ef67bbc5a98e838e762b3de7b56a73f18ce6a4623922",
    "f_new[lam=0]:squares": "49a55a3ab487db96d627006e24e0639b299a42e282541c3acf57183ec99e2509",
    "f_new[unsquared]:squares":
        "7d3e61edb9595303dc1b77073c05bffd4e2b356efa1a27693dd0d3482e0a7980",
}


def _matrix(A: Any, name: str) -> np.ndarray:
    A = np.asarray(A, dtype=float)
    if A.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array; got ndim={A.ndim}")
    return A


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-12, atol=1e-12))


def _summary(a: np.ndarray) -> dict[str, float]:
    """Two numbers that pin a vector down: a weighted sum and the sum of squares.

    The weights are cos(1), cos(2), ...; :func:`matches_digest` compares each number.
    """
    a = a.ravel()
    return {"sum": float(np.cos(np.arange(1, a.size + 1)) @ a), "squares": float(a @ a)}


def _is(a: np.ndarray, key: str, parts: tuple[str, ...] = ("sum", "squares")) -> bool:
    """Whether the summaries ``parts`` of ``a`` match the digests of ``key``."""
    summary = _summary(a)
    return all(matches_digest(summary[p], DIGESTS[f"{key}:{p}"], f"{key}:{p}") for p in parts)


# --------------------------------------------------------------------------- #
# primal and dual condition numbers
# --------------------------------------------------------------------------- #
def _sheet_case(Phi: np.ndarray, lam: float) -> str | None:
    """``"tall"`` or ``"wide"`` for the sheet's two matrices (seed 0), else None."""
    if lam != 0.1:
        return None
    rng = np.random.default_rng(0)
    for case, shape in (("tall", (100, 10)), ("wide", (10, 100))):
        if _same(Phi, rng.standard_normal(shape)):
            return case
    return None


def check_condition_numbers(kappa_P: Any, kappa_D: Any, Phi: Any, lam: float) -> None:
    """Self-check of the condition numbers of ``H_P`` and ``H_D``.

    ``H_P = Phi^T Phi + lam I`` and ``H_D = Phi Phi^T + lam I``.

    Properties: both are at least 1; the larger matrix, which has eigenvalues equal to
    ``lam``, has the larger condition number, ``(sigma_1^2 + lam) / lam``, which lies
    between ``(||Phi||_F^2 / r + lam) / lam`` and ``(||Phi||_F^2 + lam) / lam`` for a
    ``Phi`` of rank ``r``; for the sheet's two matrices, the hash of each value.
    """
    Phi = _matrix(Phi, "Phi")
    lam = float(lam)
    kP, kD = answer_scalar(kappa_P, "kappa_P"), answer_scalar(kappa_D, "kappa_D")
    n, M = Phi.shape
    for k, name in ((kP, "kappa_P"), (kD, "kappa_D")):
        if k < 1:
            raise AssertionError(f"{name} = {k:.6g} < 1: a condition number (largest over "
                                 "smallest eigenvalue) is at least 1")
    if M != n:
        big, small = (kD, kP) if n > M else (kP, kD)
        if big < small:
            raise AssertionError("kappa_P and kappa_D are swapped: H_P = Phi^T Phi + lam I is "
                                 f"{M} x {M}, H_D = Phi Phi^T + lam I is {n} x {n}")
        frob2, rank = float(np.sum(Phi * Phi)), min(n, M)
        if not (frob2 / rank + lam) / lam * (1 - 1e-9) <= big <= (frob2 + lam) / lam * (1 + 1e-9):
            name, size = ("kappa_D", n) if n > M else ("kappa_P", M)
            raise AssertionError(f"{name} is not the ratio of the largest to the smallest "
                                 f"eigenvalue of its matrix; this {size} x {size} matrix has "
                                 f"rank(Phi) = {rank} < {size}, so some of its eigenvalues equal "
                                 "lam exactly")
    case = _sheet_case(Phi, lam)
    if case is not None:
        for k, name in ((kP, "kappa_P"), (kD, "kappa_D")):
            if not matches_digest(k, DIGESTS[f"{name}_{case}"], f"{name}_{case}"):
                raise AssertionError(f"{name} is not the ratio of the largest to the smallest "
                                     "eigenvalue of its matrix (the shift lam I included) for "
                                     "the sheet's matrix")
    print(f"Self-check passed: both condition numbers are plausible for a {n} x {M} Phi "
          f"({GRADED}).")


# --------------------------------------------------------------------------- #
# monomial counts
# --------------------------------------------------------------------------- #
def check_monomial_counts(D_table: Any, pairs: Any) -> None:
    """Self-check of the feature dimensions ``D`` of the polynomial kernel for each ``(d, m)``.

    Properties only, since a count is a small integer that a yes/no answer would give away:
    positive whole numbers, at most ``(m + 1)^d`` (the exponent vectors with every entry at
    most ``m``, a superset of those with sum at most ``m``); for ``d >= 2``, two typical
    mistakes are named (``(m + 1)^d`` itself and ``m^d``). The exact comparison is the full
    check's.
    """
    pairs = [(int(d), int(m)) for d, m in pairs]
    vals = answer_array(D_table, "D_table", (len(pairs),))
    for v, (d, m) in zip(vals, pairs, strict=True):
        if v < 1 or v != math.floor(v):
            raise AssertionError(f"the count for (d, m) = ({d}, {m}) must be a positive whole "
                                 "number")
        if d >= 2 and v == (m + 1) ** d:
            raise AssertionError(f"the count for (d, m) = ({d}, {m}) is (m + 1)^d, the number "
                                 "of exponent vectors with every entry at most m; the total "
                                 "degree j_1 + ... + j_d must be at most m")
        if d >= 2 and v == m ** d:
            raise AssertionError(f"the count for (d, m) = ({d}, {m}) is m^d, a power; count the "
                                 "exponent vectors (j_0, j_1, ..., j_d) of non-negative "
                                 "integers with sum exactly m")
        if v > (m + 1) ** d:
            raise AssertionError(f"the count for (d, m) = ({d}, {m}) exceeds (m + 1)^d, the "
                                 "number of exponent vectors with every entry at most m")
    print(f"Self-check passed: {len(pairs)} plausible feature dimensions ({GRADED}).")


# --------------------------------------------------------------------------- #
# dual least squares with pseudoinverses
# --------------------------------------------------------------------------- #
def check_pinv_dual(w_dual: Any, Phi: Any, y: Any) -> None:
    """Self-check of ``w = Phi^T (Phi Phi^T)^+ y``, the minimum-norm least-squares solution.

    Properties: the normal equations ``Phi^T (y - Phi w) = 0`` and ``w`` in the row space of
    ``Phi`` (``w = Phi^T a`` has a solution ``a``), which together make it the minimum-norm
    least-squares solution.
    """
    Phi = _matrix(Phi, "Phi")
    y = np.asarray(y, dtype=float)
    w = answer_array(w_dual, "w_dual", (Phi.shape[1],))
    scale = float(np.linalg.norm(Phi.T @ y))
    if np.linalg.norm(Phi.T @ (y - Phi @ w)) > 1e-7 * scale:
        if np.allclose(Phi @ w, 0, atol=1e-8):
            raise AssertionError("w_dual does not fit the data; did you multiply by Phi^T at "
                                 "the end?")
        raise AssertionError("w_dual does not minimise ||y - Phi w||; both Gram matrices are "
                             "singular here, and in floating point their zero eigenvalues come "
                             "out as tiny nonzero numbers: use a pseudoinverse whose relative "
                             "cut-off treats them as zero (the default rcond of np.linalg.pinv, "
                             "not a tiny one), or lstsq; inv and solve do not work")
    a = np.linalg.lstsq(Phi.T, w, rcond=None)[0]
    if np.linalg.norm(Phi.T @ a - w) > 1e-7 * max(float(np.linalg.norm(w)), 1e-300):
        raise AssertionError("w_dual minimises the residual but is not the minimum-norm "
                             "minimiser: it has a component in the null space of Phi. Keep w in "
                             "the row space, w = Phi^T a")
    print(f"Self-check passed: w_dual solves the normal equations and lies in the row space of "
          f"Phi ({GRADED}).")


# --------------------------------------------------------------------------- #
# Gaussian feature map truncation
# --------------------------------------------------------------------------- #
def check_gaussian_terms(M_min: Any, r: float = 2.0, tol: float = 1e-10) -> None:
    """Self-check of the smallest number of coordinates ``M`` of the Gaussian feature map.

    Properties only, since ``M_min`` is a small integer that a yes/no answer would give
    away: a positive whole number, at most the ``M`` that the bound ``(r^2)^M / M! < tol``
    guarantees. The exact comparison is the full check's.
    """
    v = answer_scalar(M_min, "M_min")
    if v != int(v) or v < 1:
        raise AssertionError("M_min must be a positive whole number of coordinates")
    v = int(v)
    guaranteed = next(m for m in range(1, 10_000)
                      if 2 * m * math.log(r) - math.lgamma(m + 1) < math.log(tol))
    if v > guaranteed:
        raise AssertionError(f"M_min = {v} is more than the bound (r^2)^M / M! < tol needs: "
                             "the worst error is at most that bound")
    print(f"Self-check passed: M_min = {v} is within what the bound guarantees ({GRADED}).")


# --------------------------------------------------------------------------- #
# spectral cut-off
# --------------------------------------------------------------------------- #
def _sheet_cutoff(Phi: np.ndarray, y: np.ndarray, lam: float) -> bool:
    rng = np.random.default_rng(4)
    U = np.linalg.qr(rng.standard_normal((15, 6)))[0]
    V = np.linalg.qr(rng.standard_normal((9, 6)))[0]
    Phi0 = U @ np.diag([2.0, 1.0, 0.3, 0.1, 0.03, 0.001]) @ V.T
    return lam == 0.05 and _same(Phi, Phi0) and _same(y, rng.standard_normal(15))


def check_cutoff(w_cut: Any, Phi: Any, y: Any, lam: float) -> None:
    """Self-check of the spectral cut-off estimator (singular values ``> lam`` inverted).

    Properties: ``w_cut`` lies in the row space of ``Phi``, and its fit ``Phi w_cut`` is an
    orthogonal projection of ``y`` (onto the kept left singular vectors), so the residual
    is orthogonal to the fit, ``(Phi w)^T (y - Phi w) = 0`` (ridge's fit is not); for the
    sheet's data, the hash of two summaries of ``w_cut``.
    """
    Phi = _matrix(Phi, "Phi")
    y = np.asarray(y, dtype=float)
    lam = float(lam)
    w = answer_array(w_cut, "w_cut", (Phi.shape[1],))
    fit = Phi @ w
    if abs(fit @ (y - fit)) > 1e-8 * float(y @ y):
        raise AssertionError("Phi w_cut is not an orthogonal projection of y, as the fit of a "
                             "cut-off is; ridge regression (filter sigma / (sigma^2 + lam)) "
                             "gives such a fit: the cut-off uses 1/sigma for the kept "
                             "directions and 0 for the others")
    a = np.linalg.lstsq(Phi.T, w, rcond=None)[0]
    if np.linalg.norm(Phi.T @ a - w) > 1e-7 * max(float(np.linalg.norm(w)), 1e-300):
        raise AssertionError("w_cut is not in the row space of Phi: it is a combination of the "
                             "right singular vectors v_j")
    if _sheet_cutoff(Phi, y, lam) and not _is(w, "w_cut"):
        if _is(w, "w_cut[sigma^2>lam]", ("squares",)):
            raise AssertionError("you kept the singular values with sigma^2 > lam; the book's "
                                 "cut-off keeps sigma > lam")
        if _is(w, "w_cut[pinv]", ("squares",)):
            raise AssertionError("that is the plain pseudoinverse: no singular value was cut")
        raise AssertionError("w_cut is not V g(S) U^T y with g(sigma) = 1/sigma for sigma > lam "
                             "and 0 otherwise")
    print(f"Self-check passed: w_cut is in the row space and fits a projection of y "
          f"({GRADED}).")


# --------------------------------------------------------------------------- #
# predictions from the kernel alone
# --------------------------------------------------------------------------- #
def check_kernel_predictions(f_new: Any, X: Any, y: Any, X_new: Any, lam: float) -> None:
    """Self-check of kernel ridge predictions with the quadratic kernel ``(1 + x^T x')^2``.

    Properties: one finite value per new point; for the sheet's data, the hash of two
    summaries of ``f_new`` (and of the predictions with ``lam = 0`` or an unsquared kernel,
    to name those mistakes).
    """
    X, X_new = _matrix(X, "X"), _matrix(X_new, "X_new")
    y = np.asarray(y, dtype=float)
    f = answer_array(f_new, "f_new", (X_new.shape[0],))
    rng = np.random.default_rng(5)
    X0 = rng.standard_normal((25, 3))
    sheet = (float(lam) == 0.5 and _same(X, X0)
             and _same(y, X0[:, 0] * X0[:, 1] + 0.1 * rng.standard_normal(25))
             and _same(X_new, rng.standard_normal((8, 3))))
    if sheet and not _is(f, "f_new"):
        if _is(f, "f_new[lam=0]", ("squares",)):
            raise AssertionError("these are the unpenalised (lam = 0) predictions; "
                                 "solve (K + lam I) alpha = y")
        if _is(f, "f_new[unsquared]", ("squares",)):
            raise AssertionError("the kernel is squared: k(x, x') = (1 + x^T x')^2")
        raise AssertionError("f_new is not k_x^T alpha with (k_x)_i = k(x, x_i) and "
                             "alpha = (K + lam I)^{-1} y")
    print(f"Self-check passed: {f.size} predictions ({GRADED}).")


# --------------------------------------------------------------------------- #
# a similarity that is not a kernel
# --------------------------------------------------------------------------- #
def check_tanh_counterexample(x_bad: Any) -> None:
    """Check the student's two points x_bad for the tanh similarity.

    They must lie in ``[-3, 3]``, and the matrix ``tanh(x_i x_j)`` must have an eigenvalue
    below ``-0.1``.

    The student chooses the data, so the check verifies the choice; the full check is the same.
    """
    x = answer_array(x_bad, "x_bad", (2,))
    if np.abs(x).max() > 3:
        raise AssertionError("both points of x_bad must lie in [-3, 3]")
    low = float(np.linalg.eigvalsh(np.tanh(np.outer(x, x)))[0])
    if low >= -0.1:
        raise AssertionError("the matrix tanh(x_i x_j) of x_bad has no eigenvalue below -0.1; "
                             "one point alone, or two points of similar size, give a positive "
                             "semidefinite matrix: try one large and one small point")
    print("Self-check passed: the matrix tanh(x_i x_j) of x_bad has an eigenvalue below -0.1, "
          "so tanh(x x') is not a kernel.")


# --------------------------------------------------------------------------- #
# the constant feature and the unpenalised intercept
# --------------------------------------------------------------------------- #
def _gauss(a: np.ndarray, b: np.ndarray, sigma: float = 0.3) -> np.ndarray:
    return np.exp(-((a[:, None] - b[None, :]) ** 2) / (2 * sigma**2))


def check_intercept_limit(alpha_int: Any, mu_int: Any, gaps: Any, x: Any, y: Any, x_new: Any,
                          cs: Any) -> None:
    """Self-check of the bordered system and of the gaps between ``k + c`` and the intercept.

    Properties: the residuals of ``(K + I) alpha + mu 1 = y`` and ``1^T alpha = 0``
    (Gaussian kernel, sigma = 0.3, lam = 1); the gaps are positive, decrease, and follow the
    ``1/c`` law of part 3 (``c * gap`` within 25% between the last two values of ``c``).
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    cs = np.asarray(cs, dtype=float)
    a = answer_array(alpha_int, "alpha_int", y.shape)
    mu = answer_scalar(mu_int, "mu_int")
    g = answer_array(gaps, "gaps", cs.shape)
    K = _gauss(x, x)
    if abs(a.sum()) > 1e-8 * (1 + np.abs(a).sum()):
        raise AssertionError("alpha_int does not satisfy 1^T alpha = 0, the stationarity "
                             "condition in the unpenalised intercept")
    if np.abs(K @ a + a + mu - y).max() > 1e-8 * (1 + np.abs(y).max()):
        raise AssertionError("(alpha_int, mu_int) does not solve (K + lam I) alpha + mu 1 = y "
                             "(tolerance 1e-8); build K with the Gaussian kernel, sigma = 0.3, "
                             "and lam = 1")
    if np.any(g <= 0) or np.any(np.diff(g) >= 0):
        raise AssertionError("gaps should be positive and decrease as c grows: with a larger c "
                             "the constant feature is penalised less")
    ratio = (cs[-1] * g[-1]) / (cs[-2] * g[-2])
    if not 0.8 <= ratio <= 1.25:
        raise AssertionError("the last two gaps do not follow the 1/c law of part 3 (c * gap "
                             "should be nearly constant); compare predictions of k + c with "
                             "those of the bordered system at x_inew")
    print(f"Self-check passed: the bordered system is solved and the gaps fall like 1/c "
          f"({GRADED}).")
