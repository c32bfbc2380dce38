"""The lecturer's full checks of "Support vector machines and kernel logistic regression".

Never shipped.  The exercise page is ``exercises/08_svm_logistic.md``; the students'
self-checks of the same names, in :mod:`kmlib.book.exercises.ch08`, test only properties
of an answer.  Every check here recomputes the answer by a route different from the one
the exercise asks for (scikit-learn's LIBSVM instead of kmlib's SMO, the closed form
:math:`\\log(e-1)` instead of a root search, a long Monte-Carlo run with its own seed and
the Jensen and Khintchine bounds instead of the student's simulation).  A wrong answer
raises ``AssertionError`` with a hint that names the likely mistake without revealing the
reference value; a right answer prints one line starting with ``Correct:``.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.svm import SVC

from kmlib.book.exercises._answers import answer_scalar

__all__ = [
    "check_C_and_intercept",
    "check_support_vectors",
    "check_crossing",
    "check_rademacher",
    "check_loss_minimisers",
    "check_intercept_interval",
]


def _gaussian_gram(X: np.ndarray, sigma: float) -> np.ndarray:
    sq = np.sum(X**2, axis=1)
    d2 = np.maximum(sq[:, None] + sq[None, :] - 2 * X @ X.T, 0.0)
    return np.exp(-d2 / (2 * sigma**2))


# --------------------------------------------------------------------------- #
# the sheet's data, rebuilt from the sheet's own seeds (never taken from the notebook)
# --------------------------------------------------------------------------- #
def _sheet_clam() -> tuple[np.ndarray, np.ndarray, float, float]:
    """``X_cl, y_cl, sigma_cl, lam_cl`` of the sheet's cell."""
    from kmlib import datasets

    X, y = datasets.two_moons(80, noise=0.25, random_state=11)
    return X, y, 0.7, 0.05


def _sheet_sv() -> tuple[np.ndarray, np.ndarray, float, float]:
    """``X_sv, y_sv, sigma_sv, C_sv`` of the sheet's cell."""
    from kmlib import datasets

    X, y = datasets.two_moons(120, noise=0.3, random_state=5)
    return X, y, 0.5, 2.0


def _sheet_rad() -> tuple[np.ndarray, float]:
    """``X_rad, Lambda_rad`` of the sheet's cell (seed 7)."""
    return np.random.default_rng(7).standard_normal((40, 3)) * np.array([3.0, 1.0, 0.2]), 2.0


def _libsvm(X: Any, y: Any, sigma: float, C: float) -> tuple[SVC, np.ndarray]:
    X = np.asarray(X, dtype=float)
    K = _gaussian_gram(X, float(sigma))
    return SVC(kernel="precomputed", C=float(C), tol=1e-10).fit(K, np.asarray(y, float)), K


# --------------------------------------------------------------------------- #
# the C and lambda forms
# --------------------------------------------------------------------------- #
def check_C_and_intercept(C: Any, intercept: Any, X: Any = None, y: Any = None,
                          sigma: Any = None, lam: Any = None, a: Any = None) -> None:
    """Check the box constant for penalty ``lam`` and the fitted intercept.

    The reference box constant is ``1/(2 lam)``; the intercept is LIBSVM's, fitted
    with that constant on the Gaussian Gram matrix of the sheet's data, rebuilt from its
    seed (the arguments ``X, y, sigma, lam, a`` are not used as the problem data).
    """
    c = answer_scalar(C, "C")
    b = answer_scalar(intercept, "intercept")
    X, y, sigma, lam = _sheet_clam()
    ref_C = 1.0 / (2.0 * lam)
    if not np.isclose(c, ref_C, rtol=1e-12):
        if np.isclose(c, 1.0 / lam, rtol=1e-12):
            raise AssertionError("C = 1/lam: you divided sum xi + lam ||f||^2 by lam; the standard "
                                 "form has 1/2 ||f||^2, so divide by 2 lam instead")
        if np.isclose(c, lam, rtol=1e-12) or np.isclose(c, 2 * lam, rtol=1e-12):
            raise AssertionError("C grows when the penalty lam shrinks: C is a reciprocal of lam")
        raise AssertionError("C is not the box constant that makes 1/2 ||f||^2 + C sum xi "
                             "proportional to sum xi + lam ||f||^2")
    sk, _ = _libsvm(X, y, sigma, ref_C)
    ref_b = float(sk.intercept_[0])
    if abs(b - ref_b) > 1e-4 * (1 + abs(ref_b)):
        if abs(b + ref_b) < 1e-4 * (1 + abs(ref_b)):
            raise AssertionError("intercept has the wrong sign: f(x) = sum a_i y_i k(x, x_i) + b, "
                                 "so b = y_i0 - sum_i a_i y_i K[i, i0] for a free i0")
        raise AssertionError("intercept does not match the SVM with this C: use a free support "
                             "vector (0 < a_i < C) and y_i0 f(x_i0) = 1, and solve SMO to tol 1e-8")
    print("Correct: C and the intercept match LIBSVM fitted in the C form.")


# --------------------------------------------------------------------------- #
# support vectors
# --------------------------------------------------------------------------- #
def check_support_vectors(sv: Any, n_free: Any, X: Any = None, y: Any = None,
                          sigma: Any = None, C: Any = None, a: Any = None) -> None:
    """Check the sorted support-vector indices and the number of free support vectors.

    The reference is LIBSVM's dual solution on the Gaussian Gram matrix of the sheet's
    data, rebuilt from its seed (the arguments ``X, y, sigma, C, a`` are not used).
    """
    X, y, sigma, C = _sheet_sv()
    sk, K = _libsvm(X, y, sigma, C)
    ref = np.sort(sk.support_)
    if sv is None:
        raise AssertionError("`sv` is None: assign your answer to `sv` first")
    s = np.asarray(sv)
    if s.ndim != 1 or not np.issubdtype(s.dtype, np.integer):
        raise AssertionError("`sv` must be a 1-D integer array of indices (use np.flatnonzero)")
    if not np.array_equal(s, np.sort(s)):
        raise AssertionError("`sv` must be sorted in increasing order")
    n = len(np.asarray(y))
    if len(s) == n:
        raise AssertionError("`sv` lists every point: keep only those with a_i > 0 "
                             "(points beyond the margin have a_i = 0)")
    missing, extra = np.setdiff1d(ref, s), np.setdiff1d(s, ref)
    if len(missing) or len(extra):
        raise AssertionError(
            f"`sv` differs from the support vectors in {len(missing) + len(extra)} indices "
            f"({len(missing)} missing, {len(extra)} extra): a point is a support vector when "
            "a_i > 0; use a threshold like 1e-8 * C, not 0.5 * C or a margin test"
        )
    k = answer_scalar(n_free, "n_free")
    a = np.abs(sk.dual_coef_[0])
    ref_free = int(np.sum(a < (1 - 1e-6) * C))
    if k != ref_free:
        if k == len(ref) - ref_free:
            raise AssertionError("`n_free` counts the bounded vectors (a_i = C); count 0 < a_i < C")
        raise AssertionError("`n_free` should count the support vectors with 0 < a_i < C, "
                             "the ones that lie exactly on the margin y_i f(x_i) = 1")
    print(f"Correct: the support vectors and the free/bounded split match LIBSVM "
          f"({len(ref)} of {n} points carry weight).")


# --------------------------------------------------------------------------- #
# hinge against logistic loss
# --------------------------------------------------------------------------- #
def check_crossing(z_star: Any, gap_limit: Any) -> None:
    """Check the crossing point of the two losses and the limit of their difference.

    The reference is the closed form of the chapter's proposition, not a root search.
    """
    z = answer_scalar(z_star, "z_star")
    g = answer_scalar(gap_limit, "gap_limit")
    ref = np.log(np.e - 1.0)
    if abs(z - ref) > 1e-8:
        d = max(0.0, 1.0 - z) - np.logaddexp(0.0, -z)
        side = "increase z" if d > 0 else "decrease z"
        raise AssertionError(
            f"at z_star the hinge minus the logistic loss is {d:.3g}, not 0 ({side}); "
            "solve (1 - z) = log(1 + exp(-z)) on [0, 1] with a tight tolerance"
        )
    if abs(g - 1.0) > 1e-6:
        if abs(g) < 1e-6 or g > 1e3:
            raise AssertionError("gap_limit: both losses grow like -z, so their difference has a "
                                 "finite non-zero limit; write log(1+e^{-z}) = -z + log(1+e^{z})")
        raise AssertionError("gap_limit is not the limit of (1 - z) - log(1 + e^{-z}) as z -> -inf")
    print("Correct: the crossing point and the limiting gap agree with the closed forms.")


# --------------------------------------------------------------------------- #
# Rademacher complexity
# --------------------------------------------------------------------------- #
def check_rademacher(rad: Any, X: Any = None, Lambda: Any = None, S: Any = None) -> None:
    """Check a Monte-Carlo estimate of the Rademacher complexity of a linear-kernel ball.

    The reference is a 2 x 10^5-draw Monte Carlo with its own seed on the sheet's
    ``X_rad`` and ``Lambda_rad``, rebuilt from its seed (the arguments ``X, Lambda, S`` are
    not used); the answer must lie within 0.03 relative of it and between the Khintchine
    lower bound and the Jensen upper bound.
    """
    r = answer_scalar(rad, "rad")
    X, Lambda = _sheet_rad()
    m = X.shape[0]
    K = X @ X.T
    trace_bound = Lambda * np.sqrt(np.trace(K)) / m
    rng = np.random.default_rng(20240601)
    S = rng.choice([-1.0, 1.0], size=(200_000, m))
    ref = Lambda / m * float(np.mean(np.linalg.norm(S @ X, axis=1)))
    if np.isclose(r, trace_bound, rtol=1e-9):
        raise AssertionError("rad equals the Jensen bound Lambda sqrt(Tr K)/n exactly: estimate "
                             "the expectation of the square root, not the root of the expectation")
    if np.isclose(r, trace_bound**2, rtol=1e-9):
        raise AssertionError("rad equals Lambda^2 Tr K / n^2 = Lambda^2 E[s'Ks] / n^2: take the "
                             "square root of s'Ks for each sign vector before averaging")
    if trace_bound / np.sqrt(2) <= r <= trace_bound and abs(r - ref) <= 0.03 * ref:
        print("Correct: the estimate agrees with a long independent simulation and respects "
              "both bounds.")
        return
    if np.isclose(r, ref * m, rtol=0.05):
        raise AssertionError("rad is n times too large: the complexity averages over the n points")
    if np.isclose(r, Lambda**2 / m**2 * np.trace(K), rtol=0.05):
        raise AssertionError("rad looks like E[s'Ks] scaled: take the square root of "
                             "s'Ks for each sign vector before averaging")
    if not (trace_bound / np.sqrt(2) <= r <= trace_bound):
        raise AssertionError("rad lies outside "
                             "[Lambda sqrt(Tr K)/(n sqrt 2), Lambda sqrt(Tr K)/n], "
                             "the range the chapter's inequalities allow")
    raise AssertionError("rad is inside the theoretical range but off the expectation by more "
                         "than 3%: use at least 10^4 sign vectors and Lambda/n * sqrt(s'Ks)")


# --------------------------------------------------------------------------- #
# which losses estimate probabilities
# --------------------------------------------------------------------------- #
def check_loss_minimisers(t_sqhinge: Any, t_exp: Any, etas: Any) -> None:
    """Check the two minimisers against the closed forms 2 eta - 1 and log(eta/(1-eta))/2.

    The sheet's ``etas`` are rebuilt (the argument is not used).
    """
    from kmlib.book.exercises._answers import answer_array

    grid = np.linspace(0.05, 0.95, 19)
    sq = answer_array(t_sqhinge, "t_sqhinge", grid.shape)
    ex = answer_array(t_exp, "t_exp", grid.shape)
    if not np.allclose(sq, 2 * grid - 1, rtol=0, atol=1e-6):
        if np.allclose(sq, np.sign(2 * grid - 1), atol=1e-6):
            raise AssertionError("t_sqhinge looks like the hinge loss's minimiser sign(2 eta - 1); "
                                 "the squared hinge (1 - z)_+^2 is smooth at z = 1")
        raise AssertionError("t_sqhinge does not minimise eta (1-t)_+^2 + (1-eta) (1+t)_+^2 "
                             "to 1e-6")
    if not np.allclose(ex, 0.5 * np.log(grid / (1 - grid)), rtol=0, atol=1e-6):
        if np.allclose(ex, np.log(grid / (1 - grid)), atol=1e-6):
            raise AssertionError("t_exp is the full log-odds, the logistic loss's minimiser; the "
                                 "exponential loss gives a different multiple")
        raise AssertionError("t_exp does not minimise eta e^{-t} + (1-eta) e^{t} to 1e-6")
    print("Correct: both minimisers agree with the closed forms, and both are invertible in eta.")


# --------------------------------------------------------------------------- #
# an interval of intercepts
# --------------------------------------------------------------------------- #
def check_intercept_interval(mu_lo: Any, mu_hi: Any, X: Any, y: Any, C: Any) -> None:
    """Check the student's data set (their choice) and the interval of optimal intercepts.

    Reference route: LIBSVM (scikit-learn's ``SVC``, linear kernel as a precomputed Gram
    matrix, tol 1e-12) for the function part, and the minimisers of
    ``g(mu) = sum_i (1 - y_i (mu + f(x_i)))_+`` found by a linear program
    (``scipy.optimize.linprog``: minimise, then the smallest and largest mu at that value).
    """
    from scipy.optimize import linprog

    from kmlib.book.exercises.ch08 import _validate_intercept_data

    lo, hi = answer_scalar(mu_lo, "mu_lo"), answer_scalar(mu_hi, "mu_hi")
    pts, labels, box = _validate_intercept_data(X, y, C)
    K = pts @ pts.T
    sk = SVC(kernel="precomputed", C=box, tol=1e-12).fit(K, labels)
    f = K[:, sk.support_] @ sk.dual_coef_[0]
    n = labels.shape[0]
    # variables (mu, xi_1..xi_n): xi_i >= 1 - y_i (mu + f_i), xi >= 0
    A = np.hstack([-labels[:, None], -np.eye(n)])
    b = -(1 - labels * f)
    bounds = [(None, None)] + [(0, None)] * n
    best = linprog(np.r_[0.0, np.ones(n)], A_ub=A, b_ub=b, bounds=bounds, method="highs")
    A2 = np.vstack([A, np.r_[0.0, np.ones(n)]])
    b2 = np.r_[b, best.fun + 1e-9 * (1 + abs(best.fun))]
    ends = [linprog(np.r_[s, np.zeros(n)], A_ub=A2, b_ub=b2, bounds=bounds, method="highs").x[0]
            for s in (1.0, -1.0)]
    if ends[1] - ends[0] < 0.5:
        raise AssertionError("for the chosen X_int, y_int, C_int the optimal intercepts form an "
                             "interval shorter than 0.5; pick data where no support vector is free")
    if abs(lo - ends[0]) > 1e-4 or abs(hi - ends[1]) > 1e-4:
        raise AssertionError("mu_lo, mu_hi are not the ends of the set of optimal intercepts for "
                             "the chosen data (to 1e-4)")
    print(f"Correct: the chosen data have an interval of optimal intercepts of length "
          f"{ends[1] - ends[0]:.3f}.")
