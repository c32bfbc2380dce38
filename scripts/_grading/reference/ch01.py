"""The lecturer's full checks of chapter 1, "Ridge regression" (``exercises/01_ridge.md``).

Never shipped (see the package's docstring). Every check recomputes the answer by a route
different from the one the exercise asks for (an eigendecomposition instead of an SVD, a
dense solve of the hat matrix, a stacked least-squares problem, the root of a secular
equation instead of bisection), raises ``AssertionError`` with a hint when the answer is
missing or wrong, and prints one line starting with ``Correct:`` when it is right.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from scipy import optimize

from kmlib.book.exercises._answers import answer_array, answer_scalar

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
    "lambda_star_exact",
]


def _inputs(X: Any, lam: Any | None = None) -> tuple[np.ndarray, float | None]:
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-D array; got ndim={X.ndim}")
    return X, (None if lam is None else float(lam))


# --------------------------------------------------------------------------- #
# shrinkage factors and effective degrees of freedom
# --------------------------------------------------------------------------- #
def check_shrinkage(shrink: Any, X: Any, lam: float) -> None:
    """Check the shrinkage factors ``d_j^2/(d_j^2+lam)``, ordered by decreasing ``d_j``.

    The reference uses the eigenvalues of ``X^T X`` (or ``X X^T`` when ``p > n``),
    which are the squared singular values, computed by ``eigh``, not the SVD.
    """
    X, lam = _inputs(X, lam)
    m = min(X.shape)
    s = answer_array(shrink, "shrink", (m,))
    gram = X.T @ X if X.shape[1] <= X.shape[0] else X @ X.T
    d2 = np.clip(np.linalg.eigvalsh(gram)[::-1], 0.0, None)
    ref = d2 / (d2 + lam)
    if np.allclose(s, ref[::-1], rtol=1e-8, atol=1e-10) and not np.allclose(s, ref, rtol=1e-8):
        raise AssertionError("the factors are in increasing order; list them for d_1 >= d_2 >= ...")
    if np.allclose(s, np.sqrt(d2) / (np.sqrt(d2) + lam), rtol=1e-6):
        raise AssertionError("use the squared singular values: d_j^2 / (d_j^2 + lam)")
    if not np.allclose(s, ref, rtol=1e-8, atol=1e-10):
        worst = int(np.argmax(np.abs(s - ref)))
        raise AssertionError(
            f"shrink[{worst}] is not the factor d^2/(d^2+lam) of that singular value (relative "
            "tolerance 1e-8); are you using the singular values of the same (standardised) X?"
        )
    print(f"Correct: shrinkage factors run from {ref[0]:.4f} down to {ref[-1]:.4f}.")


def check_effective_df(df: Any, X: Any, lam: float) -> None:
    """Check ``df = tr(X (X^T X + lam I)^{-1} X^T)`` against the trace of a dense hat matrix."""
    X, lam = _inputs(X, lam)
    v = answer_scalar(df, "df")
    H = X @ np.linalg.solve(X.T @ X + lam * np.eye(X.shape[1]), X.T)
    ref = float(np.trace(H))
    if abs(v - ref) > 1e-8 * max(1.0, abs(ref)):
        hint = ""
        if abs(v - min(X.shape)) < 1e-8:
            hint = " (that is the rank: lam > 0 must reduce the degrees of freedom)"
        raise AssertionError("df is not tr(H_lam) with H_lam = X (X^T X + lam I)^{-1} X^T "
                             f"(relative tolerance 1e-8){hint}")
    print(f"Correct: df({lam:g}) = {ref:.4f} out of rank {np.linalg.matrix_rank(X)}.")


# --------------------------------------------------------------------------- #
# the intercept and the dual route
# --------------------------------------------------------------------------- #
def check_intercept(intercept: Any, coef: Any, X: Any, y: Any, lam: float) -> None:
    """Check ridge with an unpenalised intercept on the original (unscaled) columns.

    The reference solves ``min ||y - mu 1 - X beta||^2 + lam ||beta||^2`` as one
    stacked least-squares problem, without any centring.
    """
    X, lam = _inputs(X, lam)
    y = np.asarray(y, dtype=float)
    n, p = X.shape
    mu = answer_scalar(intercept, "intercept")
    b = answer_array(coef, "coef", (p,))
    A = np.vstack([np.hstack([np.ones((n, 1)), X]),
                   np.hstack([np.zeros((p, 1)), np.sqrt(lam) * np.eye(p)])])
    sol = np.linalg.lstsq(A, np.concatenate([y, np.zeros(p)]), rcond=None)[0]
    mu_ref, b_ref = float(sol[0]), sol[1:]
    scale = 1.0 + np.abs(b_ref).max()
    if not np.allclose(b, b_ref, rtol=1e-7, atol=1e-9 * scale):
        raise AssertionError(
            "coef differs from the minimiser; centre the columns of X (and y) before "
            "applying (X^T X + lam I)^{-1} X^T y, and do not penalise the intercept"
        )
    if abs(mu - mu_ref) > 1e-7 * (1.0 + abs(mu_ref)):
        hint = ""
        if abs(mu - y.mean()) < 1e-9 * (1.0 + abs(mu_ref)):
            hint = ("; mean(y) is the intercept for CENTRED columns, on the original scale "
                    "it is mean(y) - mean(X) @ coef")
        raise AssertionError(f"intercept is not the minimiser's intercept (tolerance 1e-7){hint}")
    print(f"Correct: intercept {mu_ref:.4f}, and mean(y) - mean(X) @ coef reproduces it.")


def check_dual(beta_dual: Any, X: Any, y: Any, lam: float) -> None:
    """Check ``X^T (X X^T + lam I)^{-1} y`` against the primal p x p solve."""
    X, lam = _inputs(X, lam)
    y = np.asarray(y, dtype=float)
    b = answer_array(beta_dual, "beta_dual", (X.shape[1],))
    ref = np.linalg.solve(X.T @ X + lam * np.eye(X.shape[1]), X.T @ y)
    if not np.allclose(b, ref, rtol=1e-7, atol=1e-9 * (1 + np.abs(ref).max())):
        raise AssertionError(
            "beta_dual does not equal (X^T X + lam I)^{-1} X^T y; the dual route is "
            "alpha = (X X^T + lam I)^{-1} y (an n x n system) followed by beta = X^T alpha"
        )
    print(f"Correct: the n x n route gives the p x p answer (max difference "
          f"{np.abs(b - ref).max():.1e}).")


# --------------------------------------------------------------------------- #
# the largest lambda at which ridge beats OLS
# --------------------------------------------------------------------------- #
def lambda_star_exact(X: np.ndarray, beta0: np.ndarray, sigma2: float) -> float:
    """Root of the secular equation ``lam * sum_j g_j c_j^2 / (sigma2 (2 g_j + lam)) = 1``.

    ``g_j`` are the eigenvalues of ``X^T X`` and ``c = Q^T beta0`` its eigen-coordinates.
    The MSE difference is positive definite exactly when the left side is < 1
    (a rank-one perturbation of a positive definite matrix), and the left side
    increases in ``lam`` towards ``||X beta0||^2 / sigma2``.
    """
    g, Q = np.linalg.eigh(X.T @ X)
    c2 = (Q.T @ beta0) ** 2

    def f(lam: float) -> float:
        return lam * float(np.sum(g * c2 / (sigma2 * (2 * g + lam)))) - 1.0

    if np.sum(g * c2) / sigma2 <= 1.0:
        return float(np.inf)
    hi = 2 * sigma2 / float(beta0 @ beta0)
    while f(hi) < 0:
        hi *= 2
    return float(optimize.brentq(f, 0.0, hi, xtol=1e-14, rtol=1e-13))


def check_lambda_star(lam_star: Any, ratio: Any, X: Any, beta0: Any, sigma2: float) -> None:
    """Check the exact crossing ``lam_star`` and its ratio to ``2 sigma2 / ||beta0||^2``."""
    X, _ = _inputs(X)
    beta0 = np.asarray(beta0, dtype=float)
    v = answer_scalar(lam_star, "lam_star")
    r = answer_scalar(ratio, "ratio")
    thr = 2 * float(sigma2) / float(beta0 @ beta0)
    ref = lambda_star_exact(X, beta0, float(sigma2))
    if abs(v - thr) < 1e-9 * thr and abs(ref - thr) > 1e-6 * thr:
        raise AssertionError(
            "lam_star equals the sufficient threshold 2 sigma2/||beta0||^2; the exercise asks "
            "where the smallest eigenvalue of the MSE difference actually changes sign"
        )
    if abs(v - ref) > 1e-6 * ref:
        raise AssertionError(
            "lam_star is not the crossing (relative tolerance 1e-6): there the smallest "
            "eigenvalue of MSE(OLS) - MSE(ridge) is 0; bisect until the bracket is narrower "
            "than 1e-8 * lam"
        )
    if abs(r - v / thr) > 1e-6 * (v / thr):
        raise AssertionError(f"ratio = {r:.6g}, but your lam_star / (2 sigma2/||beta0||^2) = "
                             f"{v / thr:.6g}")
    print(f"Correct: ridge beats OLS exactly for 0 < lam < {ref:.6f}, "
          f"{ref / thr:.3f} times the sufficient threshold {thr:.6f}.")


# --------------------------------------------------------------------------- #
# Gauss-Markov for weighted least squares
# --------------------------------------------------------------------------- #
def _wls_reference(X: np.ndarray, w: np.ndarray, sigma2: float) -> tuple[np.ndarray, np.ndarray]:
    """``sigma2 C C^T`` with ``C = A_W - (X^T X)^{-1} X^T`` (the proof's route), and ``A_W``."""
    A_w = np.linalg.lstsq(np.sqrt(w)[:, None] * X, np.diag(np.sqrt(w)), rcond=None)[0]
    A_ols = np.linalg.pinv(X)
    C = A_w - A_ols
    return sigma2 * C @ C.T, A_w


def check_wls_gap(gap_eigs: Any, X: Any, w: Any, sigma2: float) -> None:
    """Check the eigenvalues (ascending) of ``Var(A_W Y) - Var(OLS)`` for weighted least squares.

    The reference never forms either covariance: it builds ``A_W`` by a weighted least-squares
    solve, ``C = A_W - X^+``, and takes the eigenvalues of ``sigma2 C C^T``, as in the proof of
    the Gauss-Markov theorem.
    """
    X, _ = _inputs(X)
    w = np.asarray(w, dtype=float)
    p = X.shape[1]
    g = answer_array(gap_eigs, "gap_eigs", (p,))
    CC, A_w = _wls_reference(X, w, float(sigma2))
    ref = np.linalg.eigvalsh(CC)
    scale = max(1.0, np.abs(ref).max())
    if (np.allclose(g, ref[::-1], rtol=1e-6, atol=1e-10 * scale)
            and not np.allclose(g, ref, rtol=1e-6)):
        raise AssertionError("list the eigenvalues in ascending order (np.linalg.eigvalsh does)")
    if np.all(g < 0):
        raise AssertionError("all eigenvalues are negative: you computed Var(OLS) - Var(A_W Y); "
                             "the theorem compares them the other way round")
    A_wrong = np.linalg.solve(X.T @ (X / w[:, None]), X.T / w)       # weights inverted
    bad = np.linalg.eigvalsh(float(sigma2) * (A_wrong @ A_wrong.T)
                             - float(sigma2) * np.linalg.inv(X.T @ X))
    if np.allclose(g, bad, rtol=1e-6, atol=1e-10 * scale):
        raise AssertionError("these belong to the weights 1/w: W = diag(w) multiplies, "
                             "A_W = (X^T W X)^{-1} X^T W")
    if not np.allclose(g, ref, rtol=1e-6, atol=1e-10 * scale):
        raise AssertionError("gap_eigs does not match Var(A_W Y) - Var(OLS) with Var(A_W Y) = "
                             "sigma2 A_W A_W^T; check A_W X = I first")
    print(f"Correct: all {p} eigenvalues are >= 0, as the Gauss-Markov theorem promises.")


def check_worst_direction(a_worst: Any, X: Any, w: Any, sigma2: float) -> None:
    """Check the unit vector ``a`` along which weighting inflates ``Var(a^T beta_hat)`` most.

    Reference: the top eigenvector of ``sigma2 C C^T`` (sign free), compared through the
    variance gain it achieves, so any unit vector with the same gain passes.
    """
    X, _ = _inputs(X)
    w = np.asarray(w, dtype=float)
    a = answer_array(a_worst, "a_worst", (X.shape[1],))
    if abs(np.linalg.norm(a) - 1.0) > 1e-8:
        raise AssertionError("a_worst must be a unit vector (divide by its norm)")
    CC, _ = _wls_reference(X, w, float(sigma2))
    ev = np.linalg.eigvalsh(CC)
    gain = float(a @ CC @ a)
    if gain < ev[-1] * (1 - 1e-8) - 1e-14:
        least = gain <= ev[0] * (1 + 1e-8) + 1e-14
        hint = " (that is the direction of least inflation)" if least else ""
        raise AssertionError("along a_worst the variance grows less than along the top "
                             f"eigenvector of the gap{hint}")
    print("Correct: a_worst is the direction in which weighting hurts most.")


def check_coordinate_growth(X_cx: Any, y_cx: Any) -> None:
    """Check the student's construction X_cx, y_cx for the growing coordinate.

    Route: the augmented least-squares problem ``[X; sqrt(lam) I] b = [y; 0]`` at
    ``lam = 0.1`` and ``lam = 10``.
    """
    if X_cx is None or y_cx is None:
        answer_array(None, "X_cx" if X_cx is None else "y_cx", (0,))
    X = answer_array(X_cx, "X_cx", (np.shape(X_cx)[0], 2))
    y = answer_array(y_cx, "y_cx", (X.shape[0],))
    if not 2 <= X.shape[0] <= 200:
        raise AssertionError("X_cx must have between 2 and 200 rows")

    def first(lam: float) -> float:
        A = np.vstack([X, np.sqrt(lam) * np.eye(2)])
        return float(np.linalg.lstsq(A, np.r_[y, 0.0, 0.0], rcond=None)[0][0])

    small, large = first(0.1), first(10.0)
    if abs(small) < 0.01:
        raise AssertionError("the first coefficient at lam = 0.1 must be at least 0.01 in "
                             "absolute value")
    if abs(large) < 1.2 * abs(small):
        raise AssertionError("the first coefficient does not grow by 20% from lam = 0.1 to "
                             "lam = 10")
    print(f"Correct: the first coefficient goes from {small:.3g} to {large:.3g}.")


def check_risk_bound(lam_b: Any, bound_b: Any, risk_b: Any, X: Any, beta0: Any,
                     sigma2: float) -> None:
    """Check the minimiser of the risk bound, the bound and the exact risk.

    ``lam_b`` and ``bound_b`` against their closed forms, ``risk_b`` against the SVD formula
    of part 1.
    """
    X, _ = _inputs(X)
    beta0 = np.asarray(beta0, dtype=float)
    lam = answer_scalar(lam_b, "lam_b")
    bnd = answer_scalar(bound_b, "bound_b")
    rk = answer_scalar(risk_b, "risk_b")
    n, sigma = X.shape[0], float(np.sqrt(sigma2))
    trG, norm_b = float(np.sum(X * X)), float(np.linalg.norm(beta0))
    lam_ref = 2 * sigma * np.sqrt(trG) / norm_b
    if abs(lam - lam_ref) > 1e-8 * lam_ref:
        raise AssertionError("lam_b is not the minimiser 2 sigma sqrt(tr X^T X) / ||beta0|| of "
                             "the bound (relative tolerance 1e-8)")
    bound_ref = sigma * norm_b * np.sqrt(trG) / n
    if abs(bnd - bound_ref) > 1e-8 * bound_ref:
        raise AssertionError("bound_b is not the bound at lam_b (relative tolerance 1e-8)")
    _, d, Vt = np.linalg.svd(X, full_matrices=False)
    c = Vt @ beta0
    ref = float(np.sum((lam_ref * d / (d**2 + lam_ref)) ** 2 * c**2)
                + sigma2 * np.sum((d**2 / (d**2 + lam_ref)) ** 2)) / n
    if abs(rk - ref) > 1e-6 * ref:
        variance = float(sigma2) * float(np.sum((d**2 / (d**2 + lam_ref)) ** 2)) / n
        if abs(rk - (ref - variance)) <= 1e-6 * ref:
            raise AssertionError("risk_b has the squared bias only: add the variance sigma^2 "
                                 "tr H^2 / n")
        raise AssertionError("risk_b is not the exact risk r(lam_b) of part 1 (relative "
                             "tolerance 1e-6)")
    print(f"Correct: the risk at lam_b is {ref:.4f}, {bound_ref / ref:.1f} times below the "
          "bound.")
