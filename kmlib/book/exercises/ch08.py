"""Self-checks for the exercises of "Support vector machines and kernel logistic regression".

The exercise page is ``exercises/08_svm_logistic.md``.  Each ``check_*`` function is a
*self-check*: it tests properties a right answer must have without computing it -- the
identity ``2 lam C = 1``, the KKT conditions of the SVM dual for the student's dual
variables (on the sheet's data, rebuilt from its seeds), the support set and free count
read off those variables, the residual of the loss equation at the crossing point, the
Monte-Carlo estimator on the student's own sign vectors and the Jensen and Khintchine
bounds.  No self-check compares a hash: the answers here have too few plausible values
for a hash not to give them away.  A failed property raises ``AssertionError`` with a
hint that does not reveal a reference value; when all hold, one line starting with
``Self-check passed:`` is printed.  The full check against the reference runs when the
sheet is graded.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ._answers import answer_array, answer_scalar

__all__ = [
    "check_C_and_intercept",
    "check_support_vectors",
    "check_crossing",
    "check_rademacher",
    "check_loss_minimisers",
    "check_intercept_interval",
]

# salted PBKDF2 hashes of the sheet's rounded answers (salt: the answer's name)


def _passed(what: str) -> None:
    print(f"Self-check passed: {what}; the full check runs when the sheet is graded.")


def _is_sheet_moons(X: Any, y: Any, n: int, noise: float, seed: int) -> bool:
    """Whether ``X, y`` are the sheet's ``datasets.two_moons(n, noise=..., random_state=...)``."""
    from kmlib import datasets

    X0, y0 = datasets.two_moons(n, noise=noise, random_state=seed)
    try:
        Xa, ya = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    except (TypeError, ValueError):
        return False
    return (Xa.shape == X0.shape and ya.shape == y0.shape
            and np.allclose(Xa, X0, rtol=0, atol=1e-12) and np.array_equal(ya, y0))


def _sheet_gram(n: int, noise: float, seed: int, sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """The Gaussian Gram matrix and labels of the sheet's ``two_moons(n, noise, seed)``."""
    from kmlib import datasets, kernels

    X0, y0 = datasets.two_moons(n, noise=noise, random_state=seed)
    return kernels.gaussian(sigma)(X0), np.asarray(y0, dtype=float)


def _kkt_violation(a: np.ndarray, b: float, K: np.ndarray, y: np.ndarray, C: float
                   ) -> tuple[float, float]:
    """Feasibility and complementary-slackness violations of ``(a, b)`` for the SVM dual.

    Returns ``(feasibility, margin)``: the largest violation of ``0 <= a_i <= C`` and of
    ``sum_i a_i y_i = 0`` (relative to C), and the largest violation of the KKT margin
    conditions ``y_i f(x_i) >= 1`` where ``a_i < C`` and ``y_i f(x_i) <= 1`` where
    ``a_i > 0``, with ``f = K (a * y) + b``.  Both vanish exactly at a solution: these
    conditions are necessary and sufficient for the convex dual.
    """
    feas = max(float(np.max(-a, initial=0.0)), float(np.max(a - C, initial=0.0)),
               abs(float(a @ y))) / C
    z = y * (K @ (a * y) + b)
    slack = 1e-6 * C                                   # a_i this close to 0 or C counts as there
    low = np.where(a < C - slack, np.maximum(1.0 - z, 0.0), 0.0)      # needs z >= 1
    high = np.where(a > slack, np.maximum(z - 1.0, 0.0), 0.0)         # needs z <= 1
    return feas, float(max(low.max(), high.max()))


#: KKT tolerance of the SVM self-checks: what smo_solve(..., tol=1e-8) reaches with room.
_KKT_TOL = 1e-5


# --------------------------------------------------------------------------- #
# the C and lambda forms
# --------------------------------------------------------------------------- #
def check_C_and_intercept(C: Any, intercept: Any, X: Any = None, y: Any = None,
                          sigma: Any = None, lam: Any = None, a: Any = None) -> None:
    """Self-check the box constant for penalty ``lam`` and the fitted intercept.

    Properties, on the sheet's data rebuilt from its seed (two moons, n = 80, noise 0.25,
    seed 11, sigma = 0.7, lam = 0.05): the C form is the lambda form times C, so
    ``2 lam C = 1``; the dual variables ``a`` and the intercept satisfy the KKT conditions
    of the SVM dual (box, ``sum a_i y_i = 0``, margins of free and bound vectors) to 1e-5,
    which makes them a solution whatever solver produced them.
    """
    c = answer_scalar(C, "C")
    bias = answer_scalar(intercept, "intercept")
    given = any(v is not None for v in (X, y, sigma, lam))  # else the sheet's, rebuilt
    penalty = 0.05 if lam is None else float(lam)
    if given and not (X is not None and y is not None and sigma is not None
                      and _is_sheet_moons(X, y, 80, 0.25, 11) and float(sigma) == 0.7
                      and penalty == 0.05):
        raise AssertionError("X_cl, y_cl, sigma_cl or lam_cl differ from the exercise's cell; "
                             "the exercise is about the data of that cell, so rerun it")
    if not np.isclose(2.0 * penalty * c, 1.0, rtol=1e-12, atol=0.0):
        if np.isclose(penalty * c, 1.0, rtol=1e-12, atol=0.0):
            raise AssertionError("C = 1/lam: you divided sum xi + lam ||f||^2 by lam; the standard "
                                 "form has 1/2 ||f||^2, so divide by 2 lam instead")
        if np.isclose(c / penalty, 1.0, rtol=1e-12) or np.isclose(c / penalty, 2.0, rtol=1e-12):
            raise AssertionError("C grows when the penalty lam shrinks: C is a reciprocal of lam")
        raise AssertionError("C is not the box constant that makes 1/2 ||f||^2 + C sum xi "
                             "proportional to sum xi + lam ||f||^2")
    K, labels = _sheet_gram(80, 0.25, 11, 0.7)
    duals = answer_array(a, "a_cl", labels.shape)
    feas, marg = _kkt_violation(duals, bias, K, labels, c)
    if feas > 1e-8:
        raise AssertionError("a_cl is not feasible for the dual: it needs 0 <= a_i <= C and "
                             "sum_i a_i y_i = 0 (to 1e-8 C); pass the dual variables of the fit")
    if marg > _KKT_TOL:
        _, flipped = _kkt_violation(duals, -bias, K, labels, c)
        if flipped <= _KKT_TOL:
            raise AssertionError("intercept has the wrong sign: f(x) = sum a_i y_i k(x, x_i) + b, "
                                 "so b = y_i0 - sum_i a_i y_i K[i, i0] for a free i0")
        raise AssertionError(f"the KKT margin conditions fail by more than {_KKT_TOL:g}: free "
                             "support vectors need y_i f(x_i) = 1, non-support vectors >= 1, "
                             "bound ones <= 1; solve SMO to tol=1e-8 or below and take b from a "
                             "free support vector")
    _passed("2 lam C = 1, and a_cl with the intercept satisfies the KKT conditions of the SVM "
            f"dual to {_KKT_TOL:g}")


# --------------------------------------------------------------------------- #
# support vectors
# --------------------------------------------------------------------------- #
def check_support_vectors(sv: Any, n_free: Any, X: Any = None, y: Any = None,
                          sigma: Any = None, C: Any = None, a: Any = None) -> None:
    """Self-check the sorted support-vector indices and the number of free support vectors.

    Properties, on the sheet's data rebuilt from its seed (two moons, n = 120, noise 0.3,
    seed 5, sigma = 0.5, C = 2): the dual variables ``a`` satisfy the KKT conditions of the
    SVM dual to 1e-5 (with the intercept read off the free support vectors); ``sv`` is the
    sorted set of indices where ``a`` is non-zero (above 1e-6 C) and ``n_free`` counts those
    strictly inside the box.
    """
    if any(v is not None for v in (X, y, sigma, C)) and not (  # else the sheet's, rebuilt
            X is not None and y is not None and sigma is not None and C is not None
            and _is_sheet_moons(X, y, 120, 0.3, 5) and float(sigma) == 0.5 and float(C) == 2.0):
        raise AssertionError("X_sv, y_sv, sigma_sv or C_sv differ from the exercise's cell; "
                             "the exercise is about the data of that cell, so rerun it")
    if sv is None:  # the stub
        raise AssertionError("`sv` is None: assign your answer to `sv` first")
    idx = np.asarray(sv)
    if idx.ndim != 1 or idx.dtype.kind not in "iu":
        raise AssertionError("`sv` must be a 1-D integer array of indices (use np.flatnonzero)")
    K, labels = _sheet_gram(120, 0.3, 5, 0.5)
    box = 2.0
    total = labels.shape[0]
    if np.any(np.diff(idx) < 0):
        raise AssertionError("`sv` must be sorted in increasing order")
    if np.any(np.diff(idx) == 0):
        raise AssertionError("`sv` lists an index twice")
    if idx.size and (idx[0] < 0 or idx[-1] >= total):
        raise AssertionError(f"`sv` holds indices outside 0, ..., {total - 1}")
    if idx.size == total:
        raise AssertionError("`sv` lists every point: keep only those with a_i > 0 "
                             "(points beyond the margin have a_i = 0)")
    k = answer_scalar(n_free, "n_free")
    if k != int(k) or not 0 <= k <= idx.size:
        raise AssertionError("`n_free` must be a whole number between 0 and len(sv)")
    duals = answer_array(a, "a_sv", labels.shape)
    slack = 1e-6 * box
    free = (duals > slack) & (duals < box - slack)
    if not free.any():
        raise AssertionError("a_sv has no free support vector (0 < a_i < C), but this SVM has "
                             "some; pass the dual variables of the fit")
    bias = float(np.median(labels[free] - K[free] @ (duals * labels)))
    feas, marg = _kkt_violation(duals, bias, K, labels, box)
    if feas > 1e-8 or marg > _KKT_TOL:
        raise AssertionError(f"a_sv does not satisfy the KKT conditions of the SVM dual to "
                             f"{_KKT_TOL:g} (box, sum a_i y_i = 0, margins); solve SMO with "
                             "tol=1e-10")
    if not np.array_equal(idx, np.flatnonzero(duals > slack)):
        raise AssertionError("`sv` is not the set of indices where a_sv is non-zero: a point is a "
                             "support vector when a_i > 0; use a threshold like 1e-8 * C, not "
                             "0.5 * C or a margin test")
    if k != int(np.sum(free)):
        if k == idx.size - int(np.sum(free)):
            raise AssertionError("`n_free` counts the bounded vectors (a_i = C); count 0 < a_i < C")
        raise AssertionError("`n_free` should count the support vectors with 0 < a_i < C, "
                             "the ones that lie exactly on the margin y_i f(x_i) = 1")
    _passed("a_sv satisfies the KKT conditions of the SVM dual, and sv and n_free are its "
            "support and its free part")


# --------------------------------------------------------------------------- #
# hinge against logistic loss
# --------------------------------------------------------------------------- #
def check_crossing(z_star: Any, gap_limit: Any) -> None:
    """Self-check the crossing point of the two losses and the limit of their difference.

    Properties: the residual ``(1 - z)_+ - log(1 + e^{-z})`` vanishes at ``z_star`` (it
    has one root, where its slope is about -0.6); ``gap_limit`` must be finite.  A number
    with a handful of plausible values (such as this limit) cannot be self-checked without
    giving it away, so its value is checked only when the sheet is graded.
    """
    z = answer_scalar(z_star, "z_star")
    g = answer_scalar(gap_limit, "gap_limit")
    logistic = max(-z, 0.0) + float(np.log1p(np.exp(-abs(z))))      # log(1 + e^{-z}), stably
    gap = max(1.0 - z, 0.0) - logistic
    if abs(gap) > 5e-9:
        direction = "increase z" if gap > 0 else "decrease z"
        raise AssertionError(
            f"at z_star the hinge minus the logistic loss is {gap:.3g}, not 0 ({direction}); "
            "solve (1 - z) = log(1 + exp(-z)) on [0, 1] with a tight tolerance"
        )
    if not np.isfinite(g):
        raise AssertionError("gap_limit must be a finite number")
    _passed("the two losses agree at z_star (gap_limit, a single number, is checked only "
            "when graded)")


# --------------------------------------------------------------------------- #
# Rademacher complexity
# --------------------------------------------------------------------------- #
def check_rademacher(rad: Any, X: Any = None, Lambda: Any = None, S: Any = None) -> None:
    """Self-check a Monte-Carlo estimate of the Rademacher complexity of a linear-kernel ball.

    Properties, on the sheet's ``X_rad`` (rebuilt from seed 7) and ``Lambda = 2``: the sign
    vectors ``S`` (one per row, at least 10^4 of them, 40 columns) are +-1 and look like
    fair coins (each column's share of +1 within 5 standard errors of 1/2, rows not all
    equal); ``rad`` is the estimator ``Lambda / n * mean_rows ||S X||`` on those signs; and
    it lies between the Khintchine and Jensen bounds.  Its distance to the expectation is
    checked when the sheet is graded, against a long simulation.
    """
    r = answer_scalar(rad, "rad")
    pts = np.random.default_rng(7).standard_normal((40, 3)) * np.array([3.0, 1.0, 0.2])
    given = pts if X is None else np.asarray(X, dtype=float)  # else the sheet's, rebuilt
    if given.shape != pts.shape or not np.allclose(given, pts, rtol=0, atol=1e-12) \
            or (Lambda is not None and float(Lambda) != 2.0):
        raise AssertionError("X_rad or Lambda_rad differ from the exercise's cell; the exercise "
                             "is about the data of that cell, so rerun it")
    n, radius = pts.shape[0], 2.0
    if S is None:
        raise AssertionError("`S` is None: pass the sign vectors you averaged over, "
                             "check_rademacher(rad, S=S)")
    try:
        signs = np.asarray(S, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError("`S` must be a numeric array of signs") from None
    if signs.ndim != 2 or signs.shape[1] != n or signs.shape[0] < 10_000:
        raise AssertionError(f"S must hold at least 10^4 sign vectors of length {n}, one per row")
    if not np.all(np.abs(signs) == 1.0):
        raise AssertionError("S must contain only the signs -1 and +1")
    share = np.mean(signs > 0, axis=0)
    if np.any(np.abs(share - 0.5) > 5 * 0.5 / np.sqrt(signs.shape[0])) \
            or np.all(signs == signs[0]):
        raise AssertionError("the rows of S do not look like independent fair signs; draw them "
                             "with rng.choice([-1.0, 1.0], size=(20_000, 40))")
    own = radius / n * float(np.mean(np.linalg.norm(signs @ pts, axis=1)))
    upper = radius * float(np.sqrt(np.sum(pts * pts))) / n           # Tr K = sum of x_i^2
    lower = upper / np.sqrt(2.0)
    if not np.isclose(r, own, rtol=1e-9, atol=0.0):
        if np.isclose(r, upper, rtol=1e-9, atol=0.0):
            raise AssertionError("rad equals the Jensen bound Lambda sqrt(Tr K)/n exactly: "
                                 "estimate the expectation of the square root, not the root of "
                                 "the expectation")
        if np.isclose(r * n, own, rtol=1e-9) or np.isclose(r, own * n, rtol=1e-9):
            raise AssertionError("rad is off by the factor n: the complexity is "
                                 "Lambda/n * E||sum_i s_i x_i||")
        raise AssertionError("rad is not Lambda/n times the mean over the rows of S of "
                             "||sum_i s_i x_i|| (= sqrt(s'Ks)) for the sign vectors S you passed")
    if not lower <= r <= upper:
        raise AssertionError("rad lies outside [Lambda sqrt(Tr K)/(n sqrt 2), "
                             "Lambda sqrt(Tr K)/n], the range the chapter's inequalities allow")
    _passed("rad is the Monte-Carlo average over your sign vectors and lies between the "
            "Khintchine and Jensen bounds")


# --------------------------------------------------------------------------- #
# which losses estimate probabilities
# --------------------------------------------------------------------------- #
def check_loss_minimisers(t_sqhinge: Any, t_exp: Any, etas: Any) -> None:
    """Self-check the minimisers of the conditional risks of the squared hinge and exp losses.

    Properties, at the sheet's ``etas = linspace(0.05, 0.95, 19)``: each value is a
    stationary point of its conditional risk ``eta phi(t) + (1 - eta) phi(-t)`` (derivative
    below 1e-6 in absolute value; both risks are convex, so a stationary point is the
    minimiser).
    """
    grid = np.linspace(0.05, 0.95, 19)
    given = np.asarray(etas, dtype=float)
    if given.shape != grid.shape or not np.allclose(given, grid, rtol=0, atol=1e-12):
        raise AssertionError("etas differs from the exercise's np.linspace(0.05, 0.95, 19)")
    sq = answer_array(t_sqhinge, "t_sqhinge", grid.shape)
    ex = answer_array(t_exp, "t_exp", grid.shape)
    d_sq = -2 * grid * np.maximum(1 - sq, 0) + 2 * (1 - grid) * np.maximum(1 + sq, 0)
    if np.max(np.abs(d_sq)) > 1e-6:
        i = int(np.argmax(np.abs(d_sq)))
        raise AssertionError(f"t_sqhinge[{i}] is not a stationary point of the squared-hinge "
                             "risk eta (1-t)_+^2 + (1-eta) (1+t)_+^2 (derivative above 1e-6); "
                             "minimise it more accurately")
    d_ex = -grid * np.exp(-ex) + (1 - grid) * np.exp(ex)
    if np.max(np.abs(d_ex)) > 1e-6:
        i = int(np.argmax(np.abs(d_ex)))
        raise AssertionError(f"t_exp[{i}] is not a stationary point of the exponential risk "
                             "eta e^{-t} + (1-eta) e^{t} (derivative above 1e-6)")
    _passed("both arrays are stationary points of their convex conditional risks")


# --------------------------------------------------------------------------- #
# an interval of intercepts
# --------------------------------------------------------------------------- #
def _intercept_interval(f: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Ends of the set of minimisers of ``g(mu) = sum_i (1 - y_i (mu + f_i))_+``.

    ``g`` is convex and piecewise linear with kinks at ``mu = y_i - f_i``; with both labels
    present its minimisers form a closed interval whose ends are kinks.
    """
    kinks = np.sort(y - f)
    vals = np.array([np.maximum(1 - y * (m + f), 0).sum() for m in kinks])
    low = vals.min()
    at_min = kinks[vals <= low + 1e-9 * (1 + low)]
    return float(at_min.min()), float(at_min.max())


def _validate_intercept_data(X: Any, y: Any, C: Any) -> tuple[np.ndarray, np.ndarray, float]:
    try:
        pts = np.asarray(X, dtype=float)
        labels = np.asarray(y, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError("X_int and y_int must be numeric arrays") from None
    if pts.ndim != 2 or not 2 <= pts.shape[0] <= 50 or not np.all(np.isfinite(pts)):
        raise AssertionError("X_int must be a finite array of shape (n, d) with 2 <= n <= 50")
    if labels.shape != (pts.shape[0],) or not np.all(np.abs(labels) == 1.0):
        raise AssertionError("y_int must hold one label in {-1, +1} per row of X_int")
    if np.unique(labels).size < 2:
        raise AssertionError("y_int must contain both labels")
    box = answer_scalar(C, "C_int")
    if not box > 0:
        raise AssertionError("C_int must be positive")
    return pts, labels, box


def check_intercept_interval(mu_lo: Any, mu_hi: Any, X: Any, y: Any, C: Any) -> None:
    """Self-check a data set whose SVM has an interval of optimal intercepts, and its ends.

    The data are the student's choice, so the check verifies the choice: it solves the SVM
    with the linear kernel on ``X, y`` with box constant ``C`` (kmlib's SMO, tol 1e-12),
    computes the minimisers of ``g(mu) = sum_i (1 - y_i (mu + f(x_i)))_+`` exactly (the
    kinks of a convex piecewise-linear function), and compares both ends to 1e-4; the
    interval must have length at least 0.5.
    """
    from kmlib import svm

    lo, hi = answer_scalar(mu_lo, "mu_lo"), answer_scalar(mu_hi, "mu_hi")
    pts, labels, box = _validate_intercept_data(X, y, C)
    K = pts @ pts.T
    a = svm.smo_solve(K, labels, box, tol=1e-12)[0]
    ref_lo, ref_hi = _intercept_interval(K @ (a * labels), labels)
    if ref_hi - ref_lo < 0.5:
        raise AssertionError("for your X_int, y_int, C_int the optimal intercepts form an "
                             "interval shorter than 0.5 (or a single point): pick data where no "
                             "support vector is free, e.g. a box constant that binds every a_i")
    if abs(lo - ref_lo) > 1e-4 or abs(hi - ref_hi) > 1e-4:
        raise AssertionError("mu_lo, mu_hi are not the ends of the set of minimisers of "
                             "g(mu) = sum_i (1 - y_i (mu + f(x_i)))_+ for your data (to 1e-4); "
                             "the ends are kinks mu = y_i - f(x_i)")
    _passed("your data have an interval of optimal intercepts of length >= 0.5, and mu_lo, "
            "mu_hi are its ends")
