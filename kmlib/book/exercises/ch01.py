"""Self-checks for the exercises of chapter 1, "Ridge regression" (``exercises/01_ridge.md``).

A self-check tests properties that a right answer must have, without computing the answer:
its shape and order, identities it satisfies (the shrinkage factors give back the squared
Frobenius norm of the design), the residuals of the equations that define it (the normal
equations of ridge with an intercept, of the primal problem, the sign change of the MSE
difference around ``lam_star``), and for numbers of the sheet's own data a slow salted hash
of the value rounded to six significant digits (:func:`~kmlib.book.exercises._answers.
matches_digest`). It raises ``AssertionError`` with a hint when a property fails and
prints one line starting with ``Self-check passed:`` otherwise. The full check, which
compares every answer with an independent computation, runs when the lecturer grades
the sheet.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from kmlib import datasets, ridge

from ._answers import answer_array, answer_scalar, matches_digest

__all__ = [
    "check_shrinkage",
    "check_effective_df",
    "check_intercept",
    "check_dual",
    "check_lambda_star",
    "check_wls_gap",
    "check_worst_direction",
    "check_coordinate_growth",
    "check_risk_bound",
]

GRADED = "the full check runs when the sheet is graded"
# digest(value, name) of the sheet's answers, rounded to six significant digits
DIGESTS = {
    "df": "ac541247807d36221962fdce86a30badb590b3152d2dc6dbefef4e9c3b1bf63e",
    "gap_eigs[0]": "0a290bf9923e9a86ef08c25dc0834a7b1ab34969e26a88735053447a0988338d",
    "gap_eigs[1]": "9799dbbc149460e445c9dc8a4d7ca71614bd4e58d77456c37c89f8bec6261447",
    "gap_eigs[2]": "c08c2d0f7fa635610dfe72a2462241f8650e8dd0e188923e3f5f7a5a4c822b2a",
    "a_worst[0]": "b1087c2be45cab52d671142572bb31c43d37d21d804d61552aa69de21e8d8a8d",
    "a_worst[1]": "66a4dc069ef215344e4e6bddc66f4bafc6161d60b9eb1199f30f8888e5e0a431",
    "a_worst[2]": "871ba10c022106ef0c65036deb547606090405fe43fbf3cce9971423457e7d30",
}


def _design(X: Any) -> np.ndarray:
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-D array; got ndim={X.ndim}")
    return X


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-12, atol=1e-12))


def _sheet_diabetes(X: np.ndarray, lam: float) -> bool:
    """Whether ``(X, lam)`` is the problem of the sheet: standardised diabetes, lam = 50."""
    return lam == 50.0 and _same(X, ridge.standardize(datasets.diabetes()[0])[0])


def _sheet_weights(X: np.ndarray, w: np.ndarray, sigma2: float) -> bool:
    """Whether ``(X, w, sigma2)`` is the weighted least-squares problem of the sheet."""
    X0 = datasets.linear_model(25, 3, random_state=40)[0]
    return float(sigma2) == 1.0 and _same(X, X0) and _same(w, 1.0 + X0[:, 0] ** 2)


# --------------------------------------------------------------------------- #
# shrinkage factors and effective degrees of freedom
# --------------------------------------------------------------------------- #
def check_shrinkage(shrink: Any, X: Any, lam: float) -> None:
    """Self-check of the shrinkage factors ``d_j^2/(d_j^2+lam)``, by decreasing ``d_j``.

    Properties: ``m = min(n, p)`` factors in ``[0, 1)``, non-increasing, and the identity
    ``sum_j lam s_j / (1 - s_j) = sum_j d_j^2 = ||X||_F^2`` (with ``s = d^2/(d^2+lam)``,
    ``lam s/(1-s)`` gives ``d^2`` back) together with the same for the squares,
    ``sum_j d_j^4 = ||X^T X||_F^2``.
    """
    X, lam = _design(X), float(lam)
    s = answer_array(shrink, "shrink", (min(X.shape),))
    if np.any(s < 0) or np.any(s >= 1):
        raise AssertionError("every factor d_j^2 / (d_j^2 + lam) lies in [0, 1) for lam > 0")
    steps = np.diff(s)
    if np.any(steps > 1e-12):
        if np.all(steps >= -1e-12):
            raise AssertionError("the factors are in increasing order; list them for "
                                 "d_1 >= d_2 >= ...")
        raise AssertionError("list the factors in the order of decreasing singular values")
    back = lam * s / (1.0 - s)                      # d_j^2, if s is right
    frob2 = float(np.sum(X * X))
    if abs(np.sum(back**2) - frob2) <= 1e-6 * frob2:
        raise AssertionError("use the squared singular values: d_j^2 / (d_j^2 + lam)")
    small = X.T @ X if X.shape[1] <= X.shape[0] else X @ X.T
    if (abs(np.sum(back) - frob2) > 1e-6 * frob2
            or abs(np.sum(back**2) - np.sum(small * small)) > 1e-6 * np.sum(small * small)):
        raise AssertionError("lam s_j / (1 - s_j) should give back d_j^2, whose sum is "
                             "||X||_F^2; are you using the singular values of the same "
                             "(standardised) X and this lam?")
    print(f"Self-check passed: {s.size} factors in decreasing order that give back the "
          f"squared singular values ({GRADED}).")


def check_effective_df(df: Any, X: Any, lam: float) -> None:
    """Self-check of ``df = tr(X (X^T X + lam I)^{-1} X^T)``.

    Properties: ``0 < df < rank(X)`` and ``df <= ||X||_F^2 / lam`` (each factor is at most
    ``d_j^2 / lam``); for the sheet's data, the hash of the value.
    """
    X, lam = _design(X), float(lam)
    v = answer_scalar(df, "df")
    rank = int(np.linalg.matrix_rank(X))
    if abs(v - rank) < 1e-8:
        raise AssertionError(f"df = {v:.6g} is the rank: lam > 0 must reduce the degrees of "
                             "freedom")
    if not 0 < v < rank or v > np.sum(X * X) / lam * (1 + 1e-12):
        raise AssertionError(f"df = {v:.6g} is impossible: 0 < df < rank(X) = {rank}, and "
                             "each factor d_j^2/(d_j^2 + lam) is below d_j^2 / lam")
    if _sheet_diabetes(X, lam) and not matches_digest(v, DIGESTS["df"], "df"):
        raise AssertionError(f"df = {v:.6g} is not tr(H_lam) for the sheet's data (to six "
                             "significant digits); it is the sum of the shrinkage factors")
    print(f"Self-check passed: df = {v:.4f} lies between 0 and rank {rank} ({GRADED}).")


# --------------------------------------------------------------------------- #
# the intercept and the dual route
# --------------------------------------------------------------------------- #
def check_intercept(intercept: Any, coef: Any, X: Any, y: Any, lam: float) -> None:
    """Self-check of ridge with an unpenalised intercept on the original columns.

    Properties: the two stationarity conditions of ``||y - mu 1 - X beta||^2 +
    lam ||beta||^2``, evaluated on the answer: the residuals ``r = y - mu 1 - X coef`` sum
    to zero, and ``X^T r = lam coef``.
    """
    X, lam = _design(X), float(lam)
    y = np.asarray(y, dtype=float)
    mu = answer_scalar(intercept, "intercept")
    b = answer_array(coef, "coef", (X.shape[1],))
    mean_x, mean_y = X.mean(axis=0), float(y.mean())
    centred = y - mean_y - (X - mean_x) @ b         # residuals with the intercept for this coef
    scale = float(np.linalg.norm((X - mean_x).T @ (y - mean_y)))
    if np.linalg.norm((X - mean_x).T @ centred - lam * b) > 1e-7 * scale:
        raise AssertionError(
            "coef does not satisfy X_c^T (y_c - X_c coef) = lam coef; centre the columns of X "
            "(and y) before applying (X^T X + lam I)^{-1} X^T y, and do not penalise the "
            "intercept"
        )
    r = y - mu - X @ b
    if abs(r.sum()) > 1e-7 * len(y) * (1.0 + abs(mu) + float(np.abs(y).max())):
        hint = ""
        if abs(mu - mean_y) < 1e-9 * (1.0 + abs(mu)):
            hint = ("; mean(y) is the intercept for CENTRED columns, on the original scale "
                    "it is mean(y) - mean(X) @ coef")
        raise AssertionError(f"with intercept = {mu:.6g} the residuals y - intercept - X coef "
                             f"do not sum to zero{hint}")
    print(f"Self-check passed: intercept and coef satisfy both stationarity conditions "
          f"({GRADED}).")


def check_dual(beta_dual: Any, X: Any, y: Any, lam: float) -> None:
    """Self-check of ``X^T (X X^T + lam I)^{-1} y``: it solves ``(X^T X + lam I) b = X^T y``.

    Property: the residual of the primal normal equations, evaluated on the answer.
    """
    X, lam = _design(X), float(lam)
    y = np.asarray(y, dtype=float)
    b = answer_array(beta_dual, "beta_dual", (X.shape[1],))
    rhs = X.T @ y
    if np.linalg.norm(X.T @ (X @ b) + lam * b - rhs) > 1e-7 * np.linalg.norm(rhs):
        raise AssertionError(
            "beta_dual does not solve (X^T X + lam I) beta = X^T y; the dual route is "
            "alpha = (X X^T + lam I)^{-1} y (an n x n system) followed by beta = X^T alpha"
        )
    print(f"Self-check passed: beta_dual solves the p x p normal equations ({GRADED}).")


# --------------------------------------------------------------------------- #
# the largest lambda at which ridge beats OLS
# --------------------------------------------------------------------------- #
def _least_gain(X: np.ndarray, beta0: np.ndarray, sigma2: float, lam: float) -> float:
    """Smallest eigenvalue of the middle factor ``sigma2 (2I + lam G^{-1}) - lam b b^T``.

    By the proof of the chapter's theorem it has the sign of the smallest eigenvalue of
    MSE(OLS) - MSE(ridge) at ``lam`` and is better scaled.
    """
    G = X.T @ X
    Gi = np.linalg.solve(G, np.eye(len(G)))
    return float(np.linalg.eigvalsh(sigma2 * (2 * np.eye(len(G)) + lam * Gi)
                                    - lam * np.outer(beta0, beta0))[0])


def check_lambda_star(lam_star: Any, ratio: Any, X: Any, beta0: Any, sigma2: float) -> None:
    """Self-check of the crossing ``lam_star`` and its ratio to ``2 sigma2 / ||beta0||^2``.

    Properties: the smallest eigenvalue of ``MSE(OLS) - MSE(ridge)`` is positive at
    ``lam_star (1 - 1e-7)`` and negative at ``lam_star (1 + 1e-7)``, so it changes sign
    within a relative 1e-7 of the answer, and ``ratio = lam_star / (2 sigma2/||beta0||^2)``.
    A failure does not say on which side the crossing lies: the check cannot be bisected.
    """
    X = _design(X)
    beta0 = np.asarray(beta0, dtype=float)
    sigma2 = float(sigma2)
    v = answer_scalar(lam_star, "lam_star")
    r = answer_scalar(ratio, "ratio")
    thr = 2 * sigma2 / float(beta0 @ beta0)
    if v <= 0:
        raise AssertionError("lam_star must be positive")
    below = _least_gain(X, beta0, sigma2, v * (1 - 1e-7))
    above = _least_gain(X, beta0, sigma2, v * (1 + 1e-7))
    if below > 0 and above > 0 and abs(v - thr) < 1e-9 * thr:
        raise AssertionError(
            "lam_star equals the sufficient threshold 2 sigma2/||beta0||^2; the exercise asks "
            "where the smallest eigenvalue of the MSE difference actually changes sign"
        )
    if not below > 0 > above:
        raise AssertionError(
            "the smallest eigenvalue of MSE(OLS) - MSE(ridge) does not change sign within a "
            "relative 1e-7 of lam_star; evaluate your own MSE difference on both ends of your "
            "final bracket (positive below, negative above) and bisect until the bracket is "
            "narrower than 1e-8 * lam"
        )
    if abs(r * thr - v) > 1e-9 * v:
        raise AssertionError(f"ratio = {r:.6g}, but lam_star / (2 sigma2/||beta0||^2) = "
                             f"{v / thr:.6g}")
    print(f"Self-check passed: the smallest eigenvalue changes sign within 1e-7 of lam_star "
          f"({GRADED}).")


# --------------------------------------------------------------------------- #
# Gauss-Markov for weighted least squares
# --------------------------------------------------------------------------- #
def check_wls_gap(gap_eigs: Any, X: Any, w: Any, sigma2: float) -> None:
    """Self-check of the eigenvalues (ascending) of ``Var(A_W Y) - Var(OLS)``.

    Properties: ascending order, none clearly negative (the Gauss-Markov theorem); for the
    sheet's data, the hash of each eigenvalue.
    """
    X = _design(X)
    w = np.asarray(w, dtype=float)
    g = answer_array(gap_eigs, "gap_eigs", (X.shape[1],))
    if np.any(np.diff(g) < 0):
        raise AssertionError("list the eigenvalues in ascending order (np.linalg.eigvalsh does)")
    if np.all(g < 0):
        raise AssertionError("all eigenvalues are negative: you computed Var(OLS) - Var(A_W Y); "
                             "the theorem compares them the other way round")
    if g[0] < -1e-10 * max(1.0, float(np.abs(g).max())):
        raise AssertionError("a clearly negative eigenvalue: by the Gauss-Markov theorem "
                             "Var(A_W Y) - Var(OLS) is positive semidefinite")
    if _sheet_weights(X, w, sigma2):
        for i, value in enumerate(g):
            if not matches_digest(value, DIGESTS[f"gap_eigs[{i}]"], f"gap_eigs[{i}]"):
                raise AssertionError(
                    f"gap_eigs[{i}] does not match Var(A_W Y) - Var(OLS) with Var(A_W Y) = "
                    "sigma2 A_W A_W^T and A_W = (X^T W X)^{-1} X^T W; check A_W X = I first")
    print(f"Self-check passed: {g.size} eigenvalues, ascending and >= 0 ({GRADED}).")


def check_worst_direction(a_worst: Any, X: Any, w: Any, sigma2: float) -> None:
    """Self-check of the unit vector along which weighting inflates ``Var(a^T beta_hat)`` most.

    Properties: a unit vector; for the sheet's data, the hash of each coordinate (the sign
    of the vector is free: it is compared with its largest coordinate made positive).
    """
    X = _design(X)
    w = np.asarray(w, dtype=float)
    a = answer_array(a_worst, "a_worst", (X.shape[1],))
    if abs(np.linalg.norm(a) - 1.0) > 1e-8:
        raise AssertionError("a_worst must be a unit vector (divide by its norm)")
    if _sheet_weights(X, w, sigma2):
        a = a * np.sign(a[np.argmax(np.abs(a))])
        for i, value in enumerate(a):
            if not matches_digest(value, DIGESTS[f"a_worst[{i}]"], f"a_worst[{i}]"):
                raise AssertionError("a_worst is not the eigenvector of the gap "
                                     "Var(A_W Y) - Var(OLS) for its largest eigenvalue")
    print(f"Self-check passed: a_worst is a unit vector ({GRADED}).")


# --------------------------------------------------------------------------- #
# a coordinate that grows along the path
# --------------------------------------------------------------------------- #
def _ridge_first(X: np.ndarray, y: np.ndarray, lam: float) -> float:
    return float(np.linalg.solve(X.T @ X + lam * np.eye(X.shape[1]), X.T @ y)[0])


def check_coordinate_growth(X_cx: Any, y_cx: Any) -> None:
    """Check the student's construction X_cx, y_cx for the growing coordinate.

    Two columns, at most 200 rows, and the first ridge coefficient (no intercept) grows by
    at least 20% from ``lam = 0.1`` to ``lam = 10``.

    The student chooses the data, so the check verifies the choice.
    """
    X = answer_array(X_cx, "X_cx", (np.shape(X_cx)[0] if X_cx is not None else 0, 2))
    y = answer_array(y_cx, "y_cx", (X.shape[0],))
    if not 2 <= X.shape[0] <= 200:
        raise AssertionError("X_cx must have between 2 and 200 rows")
    small, large = _ridge_first(X, y, 0.1), _ridge_first(X, y, 10.0)
    if abs(small) < 0.01:
        raise AssertionError("the first coefficient at lam = 0.1 must be at least 0.01 in "
                             "absolute value")
    if abs(large) < 1.2 * abs(small):
        raise AssertionError("the first coefficient does not grow by 20% from lam = 0.1 to "
                             "lam = 10; try two strongly correlated columns whose least-squares "
                             "coefficients have opposite signs along the two singular directions")
    print("Self-check passed: the first coefficient grows by at least 20% while lam goes from "
          "0.1 to 10.")


# --------------------------------------------------------------------------- #
# a dimension-free bound on the in-sample risk
# --------------------------------------------------------------------------- #
def check_risk_bound(lam_b: Any, bound_b: Any, risk_b: Any, X: Any, beta0: Any,
                     sigma2: float) -> None:
    """Self-check of the bound ``a lam + b / lam`` at its minimiser and of the exact risk.

    Properties: ``lam_b`` is a stationary point of the bound (``a lam^2 = b``, relative 1e-8),
    ``bound_b`` is the bound's value there, and ``risk_b`` is the exact in-sample risk at
    ``lam_b`` (relative 1e-6), evaluated as ``(lam^2 ||X A b||^2 + sigma2 tr H^2) / n`` from
    the dual system, and lies below ``bound_b``.
    """
    X = _design(X)
    beta0 = np.asarray(beta0, dtype=float)
    lam = answer_scalar(lam_b, "lam_b")
    bnd = answer_scalar(bound_b, "bound_b")
    rk = answer_scalar(risk_b, "risk_b")
    n = X.shape[0]
    a, b = float(beta0 @ beta0) / (4 * n), float(sigma2) * float(np.sum(X * X)) / n
    if lam <= 0 or abs(a * lam**2 - b) > 1e-8 * b:
        raise AssertionError("lam_b does not minimise lam ||beta0||^2 / (4n) + sigma^2 "
                             "tr(X^T X) / (n lam): set its derivative to zero")
    if abs(bnd - (a * lam + b / lam)) > 1e-8 * bnd:
        raise AssertionError("bound_b is not the value of the bound at lam_b")
    K = X @ X.T
    H = np.linalg.solve(K + lam * np.eye(n), K)                 # (K + lam I)^{-1} K = H (sym.)
    bias = lam * np.linalg.solve(K + lam * np.eye(n), X @ beta0)   # X A b = (K + lam I)^-1 X b
    exact = (float(bias @ bias) + float(sigma2) * float(np.sum(H * H))) / n
    if abs(rk - exact) > 1e-6 * exact:
        raise AssertionError("risk_b is not the exact in-sample risk r(lam_b) of part 1 "
                             "(relative tolerance 1e-6): squared bias plus sigma^2 tr H^2, "
                             "divided by n")
    if rk > bnd:
        raise AssertionError("risk_b exceeds bound_b, which part 2 excludes")
    print(f"Self-check passed: lam_b minimises the bound and risk_b is the exact risk there "
          f"({GRADED}).")
