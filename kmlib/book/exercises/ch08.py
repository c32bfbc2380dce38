"""Self-checks for the exercises of "Support vector machines and kernel logistic regression".

The exercise page is ``exercises/08_svm_logistic.md``.  Each ``check_*`` function is a
*self-check*: it tests properties a right answer must have without computing it -- the
identity ``2 lam C = 1``, the structure of a support set and the condition
``sum_i a_i y_i = 0`` of the dual, the residual of the loss equation at the crossing
point, the Jensen and Khintchine bounds on the Rademacher complexity -- and, for the
sheet's numbers, compares a salted hash of the rounded value
(:func:`kmlib.book.exercises._answers.matches_digest`, or of the list of indices).  A
failed property raises ``AssertionError`` with a hint that does not reveal a reference
value; when all hold, one line starting with ``Self-check passed:`` is printed.  The
full check against the reference runs when the sheet is graded.
"""
from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from ._answers import DIGEST_ITERATIONS, answer_scalar, matches_digest

__all__ = [
    "check_C_and_intercept",
    "check_support_vectors",
    "check_crossing",
    "check_rademacher",
]

# salted PBKDF2 hashes of the sheet's rounded answers (salt: the answer's name)
_INTERCEPT_DIGEST = "0d834a74615d1de82a53516cb289464f3a6f64599cb6fc3b9bcc14ffe659bbbb"
_INTERCEPT_DIGITS = 4    # the intercept is compared to 4 significant digits
_SV_DIGEST = "a4837144bb1bf7a4171b1ce8dd1f0570f723eab81750f239a919362c0080ade9"
_N_FREE_DIGEST = "2f7897363c4e533daa8b666810a221e21da8cd6c3a6f83827e0760746095ae90"
_GAP_DIGEST = "5194e3517a31315d1820fa7a48d8cad11cb76d97f4bbc7678e4d05a87f0b9560"


def _passed(what: str) -> None:
    print(f"Self-check passed: {what}; the full check runs when the sheet is graded.")


def _index_digest(indices: np.ndarray, salt: str) -> str:
    """Salted PBKDF2 hash of a list of indices written as ``"i,j,k"``."""
    text = ",".join(str(int(i)) for i in indices).encode()
    return hashlib.pbkdf2_hmac("sha256", text, salt.encode(), DIGEST_ITERATIONS).hex()


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


# --------------------------------------------------------------------------- #
# the C and lambda forms
# --------------------------------------------------------------------------- #
def check_C_and_intercept(C: Any, intercept: Any, X: Any, y: Any, sigma: float,
                          lam: float) -> None:
    """Self-check the box constant for penalty ``lam`` and the fitted intercept.

    Properties: the C form is the lambda form times C, so ``2 lam C = 1``; the intercept
    of the sheet's SVM is compared with the salted hash of its value rounded to 4
    significant digits.
    """
    c = answer_scalar(C, "C")
    b = answer_scalar(intercept, "intercept")
    penalty = float(lam)
    if not np.isclose(2.0 * penalty * c, 1.0, rtol=1e-12, atol=0.0):
        if np.isclose(penalty * c, 1.0, rtol=1e-12, atol=0.0):
            raise AssertionError("C = 1/lam: you divided sum xi + lam ||f||^2 by lam; the standard "
                                 "form has 1/2 ||f||^2, so divide by 2 lam instead")
        if np.isclose(c / penalty, 1.0, rtol=1e-12) or np.isclose(c / penalty, 2.0, rtol=1e-12):
            raise AssertionError("C grows when the penalty lam shrinks: C is a reciprocal of lam")
        raise AssertionError("C is not the box constant that makes 1/2 ||f||^2 + C sum xi "
                             "proportional to sum xi + lam ||f||^2")
    if not (_is_sheet_moons(X, y, 80, 0.25, 11) and float(sigma) == 0.7 and penalty == 0.05):
        raise AssertionError("the self-check knows the intercept only for the sheet's data: call "
                             "it with X_cl, y_cl, sigma_cl, lam_cl from the exercise's cell")
    if matches_digest(b, _INTERCEPT_DIGEST, "intercept", _INTERCEPT_DIGITS):
        _passed("2 lam C = 1 and the intercept matches the stored hash (4 significant digits)")
        return
    if matches_digest(-b, _INTERCEPT_DIGEST, "intercept", _INTERCEPT_DIGITS):
        raise AssertionError("intercept has the wrong sign: f(x) = sum a_i y_i k(x, x_i) + b, "
                             "so b = y_i0 - sum_i a_i y_i K[i, i0] for a free i0")
    raise AssertionError("intercept does not match the SVM with this C: use a free support "
                         "vector (0 < a_i < C) and y_i0 f(x_i0) = 1, and solve SMO to tol 1e-8")


# --------------------------------------------------------------------------- #
# support vectors
# --------------------------------------------------------------------------- #
def check_support_vectors(sv: Any, n_free: Any, X: Any, y: Any, sigma: float,
                          C: float) -> None:
    """Self-check the sorted support-vector indices and the number of free support vectors.

    Properties: distinct sorted indices of some but not all points, with both labels among
    them (``sum_i a_i y_i = 0`` with ``a_i >= 0``), and ``0 <= n_free <= len(sv)``; for the
    sheet's data, the salted hashes of the index list and of ``n_free``.
    """
    if sv is None:  # the stub
        raise AssertionError("`sv` is None: assign your answer to `sv` first")
    idx = np.asarray(sv)
    if idx.ndim != 1 or idx.dtype.kind not in "iu":
        raise AssertionError("`sv` must be a 1-D integer array of indices (use np.flatnonzero)")
    labels = np.asarray(y, dtype=float)
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
    if np.unique(labels[idx]).size < 2:
        raise AssertionError("`sv` must hold points of both classes: the dual constraint "
                             "sum_i a_i y_i = 0 with every a_i >= 0 needs a positive a_i in each")
    k = answer_scalar(n_free, "n_free")
    if k != int(k) or not 0 <= k <= idx.size:
        raise AssertionError("`n_free` must be a whole number between 0 and len(sv)")
    if not (_is_sheet_moons(X, y, 120, 0.3, 5) and float(sigma) == 0.5 and float(C) == 2.0):
        raise AssertionError("the self-check knows the support vectors only for the sheet's "
                             "data: call it with X_sv, y_sv, sigma_sv, C_sv from the cell")
    if _index_digest(idx, "sv") != _SV_DIGEST:
        raise AssertionError(
            "`sv` differs from the support vectors: a point is a support vector when "
            "a_i > 0; use a threshold like 1e-8 * C, not 0.5 * C or a margin test, and "
            "solve SMO to tol=1e-10"
        )
    if not matches_digest(float(k), _N_FREE_DIGEST, "n_free"):
        if matches_digest(float(idx.size - k), _N_FREE_DIGEST, "n_free"):
            raise AssertionError("`n_free` counts the bounded vectors (a_i = C); count 0 < a_i < C")
        raise AssertionError("`n_free` should count the support vectors with 0 < a_i < C, "
                             "the ones that lie exactly on the margin y_i f(x_i) = 1")
    _passed("the support vectors and n_free match the stored hashes")


# --------------------------------------------------------------------------- #
# hinge against logistic loss
# --------------------------------------------------------------------------- #
def check_crossing(z_star: Any, gap_limit: Any) -> None:
    """Self-check the crossing point of the two losses and the limit of their difference.

    Properties: the residual ``(1 - z)_+ - log(1 + e^{-z})`` vanishes at ``z_star`` (it
    has one root, where its slope is about -0.6); ``gap_limit`` is compared with the
    salted hash of its rounded value.
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
    if not matches_digest(g, _GAP_DIGEST, "gap_limit"):
        if g > 1e3 or abs(g) < 1e-6:
            raise AssertionError("gap_limit: both losses grow like -z, so their difference has a "
                                 "finite non-zero limit; write log(1+e^{-z}) = -z + log(1+e^{z})")
        raise AssertionError("gap_limit is not the limit of (1 - z) - log(1 + e^{-z}) "
                             "as z -> -inf")
    _passed("the two losses agree at z_star and gap_limit matches the stored hash")


# --------------------------------------------------------------------------- #
# Rademacher complexity
# --------------------------------------------------------------------------- #
def check_rademacher(rad: Any, X: Any, Lambda: float) -> None:
    """Self-check a Monte-Carlo estimate of the Rademacher complexity of a linear-kernel ball.

    Property: the estimate must lie between the Khintchine lower bound
    ``Lambda sqrt(Tr K) / (m sqrt 2)`` and the Jensen upper bound ``Lambda sqrt(Tr K) / m``
    (and not be the upper bound itself).  Its distance to the expectation is checked when
    the sheet is graded, against a long simulation.
    """
    r = answer_scalar(rad, "rad")
    pts = np.asarray(X, dtype=float)
    m = pts.shape[0]
    radius = float(Lambda)
    upper = radius * float(np.sqrt(np.sum(pts * pts))) / m           # Tr K = sum of x_i^2
    lower = upper / np.sqrt(2.0)
    if np.isclose(r, upper, rtol=1e-9, atol=0.0):
        raise AssertionError("rad equals the Jensen bound Lambda sqrt(Tr K)/m exactly: estimate "
                             "the expectation of the square root, not the root of the expectation")
    if np.isclose(r, upper**2, rtol=1e-9, atol=0.0):
        raise AssertionError("rad is Lambda^2 Tr K / m^2, E[s'Ks] scaled: take the square root "
                             "of s'Ks for each sign vector before averaging")
    if lower <= r <= upper:
        _passed("rad lies between the Khintchine and Jensen bounds")
        return
    if lower <= r / m <= upper:
        raise AssertionError("rad is m times too large: the complexity averages over the m points")
    if np.isclose(r, upper**2, rtol=0.05, atol=0.0):
        raise AssertionError("rad looks like E[s'Ks] scaled: take the square root of "
                             "s'Ks for each sign vector before averaging")
    raise AssertionError("rad lies outside "
                         "[Lambda sqrt(Tr K)/(m sqrt 2), Lambda sqrt(Tr K)/m], "
                         "the range the chapter's inequalities allow")
