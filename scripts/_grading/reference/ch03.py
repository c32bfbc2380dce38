"""The lecturer's full checks of chapter 3, "The kernel trick" (``exercises/03_kernel_trick.md``).

Never shipped (see the package's docstring). Every check recomputes the answer by a route
different from the one the exercise suggests (closed forms from one SVD instead of
``np.linalg.cond``, a polynomial-coefficient count instead of a binomial coefficient,
``lstsq`` instead of pseudoinverses of Gram matrices, the incomplete gamma function instead
of truncated feature maps, explicit features instead of the kernel), raises
``AssertionError`` with a message that names the likely mistake without revealing the
reference value, and prints one line starting with ``Correct:`` when the answer is right.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from scipy import special

from kmlib.book.exercises._answers import answer_array, answer_scalar

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


def _matrix(A: Any, name: str) -> np.ndarray:
    A = np.asarray(A, dtype=float)
    if A.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array; got ndim={A.ndim}")
    return A


def _close(a: float, b: float, rtol: float) -> bool:
    return abs(a - b) <= rtol * abs(b)


# --------------------------------------------------------------------------- #
# primal and dual condition numbers
# --------------------------------------------------------------------------- #
def check_condition_numbers(kappa_P: Any, kappa_D: Any, Phi: Any, lam: float) -> None:
    """Check the 2-norm condition numbers of the primal and dual ridge matrices.

    They are ``H_P = Phi^T Phi + lam I`` and ``H_D = Phi Phi^T + lam I``.

    Reference: the closed forms from the singular values of ``Phi`` -- the smaller
    matrix has condition number ``(s_1^2 + lam) / (s_min^2 + lam)``, the larger one
    ``(s_1^2 + lam) / lam`` because of its extra eigenvalues equal to ``lam``.
    """
    Phi = _matrix(Phi, "Phi")
    lam = float(lam)
    kP, kD = answer_scalar(kappa_P, "kappa_P"), answer_scalar(kappa_D, "kappa_D")
    n, M = Phi.shape
    s = np.linalg.svd(Phi, compute_uv=False)
    top = s[0] ** 2 + lam
    small = top / (s[-1] ** 2 + lam)
    big = top / lam
    ref_P, ref_D = (small, big) if M <= n else (big, small)
    if M == n:
        ref_P = ref_D = small
    if _close(kP, ref_D, 1e-6) and _close(kD, ref_P, 1e-6) and not _close(kP, ref_P, 1e-6):
        raise AssertionError("kappa_P and kappa_D are swapped: H_P = Phi^T Phi + lam I is "
                             f"{M} x {M}, H_D = Phi Phi^T + lam I is {n} x {n}")
    plain = s[0] / s[-1]
    for k, name in ((kP, "kappa_P"), (kD, "kappa_D")):
        if _close(k, plain, 1e-6) or _close(k, plain**2, 1e-6):
            raise AssertionError(f"{name} looks like the condition number of Phi (or Phi^T Phi) "
                                 "without the shift: add lam I before taking the ratio of "
                                 "eigenvalues")
    for k, ref, name, size in ((kP, ref_P, "kappa_P", M), (kD, ref_D, "kappa_D", n)):
        if not _close(k, ref, 1e-6):
            hint = ""
            if size > min(n, M):
                hint = (f"; this {size} x {size} matrix has rank(Phi) = {min(n, M)} < {size}, so "
                        "some of its eigenvalues equal lam exactly")
            raise AssertionError(f"{name} is not the ratio of the largest to the smallest "
                                 f"eigenvalue of its matrix{hint}")
    print(f"Correct: kappa(H_P) = {ref_P:.4g} and kappa(H_D) = {ref_D:.4g} for a {n} x {M} Phi.")


# --------------------------------------------------------------------------- #
# monomial counts
# --------------------------------------------------------------------------- #
def _count_by_polynomial(d: int, p: int) -> int:
    """Number of (j_1..j_d) >= 0 with sum <= p.

    Counted as the coefficients of (1 + t + ... + t^p)^d up to t^p.
    """
    counts = [1] + [0] * p
    for _ in range(d):
        run, new = 0, []
        for c in counts:                    # prefix sums: multiply by 1/(1 - t) truncated at t^p
            run += c
            new.append(run)
        counts = new
    return sum(counts)


def check_monomial_counts(D_table: Any, pairs: Any) -> None:
    """Check the feature dimensions ``D`` of the polynomial kernel for each ``(d, p)`` in ``pairs``.

    Reference: the number of exponent vectors with total degree at most ``p``,
    counted as coefficients of a product of polynomials (exact integers).
    """
    pairs = [(int(d), int(p)) for d, p in pairs]
    vals = answer_array(D_table, "D_table", (len(pairs),))
    for v, (d, p) in zip(vals, pairs, strict=True):
        ref = _count_by_polynomial(d, p)
        if v == ref:
            continue
        if v == special.comb(d + p - 1, p, exact=True):
            raise AssertionError(f"for (d, m) = ({d}, {p}) you counted the monomials of degree "
                                 "exactly m; the kernel (x^T x' + 1)^m also contains all lower "
                                 "degrees")
        if v == p**d or v == (p + 1) ** d:
            raise AssertionError(f"for (d, m) = ({d}, {p}) your value is a power (m^d or "
                                 "(m+1)^d), an order of growth, not the exact count")
        if v == special.comb(2 * d, d, exact=True):
            raise AssertionError(f"for (d, m) = ({d}, {p}) your value is the count for d = m "
                             f"= {d}")
        raise AssertionError(f"the count for (d, m) = ({d}, {p}) is wrong; count the exponent "
                             "vectors (j_0, j_1, ..., j_d) of non-negative integers with sum "
                             "exactly m")
    print(f"Correct: all {len(pairs)} feature dimensions are C(d + m, m).")


# --------------------------------------------------------------------------- #
# dual least squares with pseudoinverses
# --------------------------------------------------------------------------- #
def check_pinv_dual(w_dual: Any, Phi: Any, y: Any) -> None:
    """Check ``w = Phi^T (Phi Phi^T)^+ y``, the minimum-norm least-squares solution.

    Reference: :func:`numpy.linalg.lstsq` (an SVD-based least-squares solver).
    """
    Phi = _matrix(Phi, "Phi")
    y = np.asarray(y, dtype=float)
    w = answer_array(w_dual, "w_dual", (Phi.shape[1],))
    ref = np.linalg.lstsq(Phi, y, rcond=None)[0]
    scale = np.linalg.norm(ref)
    if np.linalg.norm(w - ref) <= 1e-7 * scale:
        print(f"Correct: w_dual is the minimum-norm least-squares solution (norm {scale:.4f}).")
        return
    res_ref = np.linalg.norm(y - Phi @ ref)
    res_w = np.linalg.norm(y - Phi @ w)
    if res_w <= res_ref * (1 + 1e-7) + 1e-10:
        raise AssertionError("w_dual minimises the residual but is not the minimum-norm "
                             "minimiser: it has a component in the null space of Phi. Keep w in "
                             "the row space, w = Phi^T a")
    if np.allclose(Phi @ w, 0, atol=1e-8) or not np.all(np.isfinite(w)):
        raise AssertionError("w_dual does not fit the data; did you multiply by Phi^T at the end?")
    raise AssertionError("w_dual does not minimise ||y - Phi w||; both Gram matrices are singular "
                         "here, and in floating point their zero eigenvalues come out as tiny "
                         "nonzero numbers: use a pseudoinverse whose relative cut-off treats them "
                         "as zero (the default rcond of np.linalg.pinv, not a tiny one), or lstsq; "
                         "inv and solve do not work")


# --------------------------------------------------------------------------- #
# Gaussian feature map truncation
# --------------------------------------------------------------------------- #
def check_gaussian_terms(M_min: Any, r: float = 2.0, tol: float = 1e-10) -> None:
    """Check the smallest number of coordinates ``M`` of the Gaussian feature map (sigma = 1).

    The worst error on a grid of ``[-r, r]^2`` containing ``+-r`` is attained at
    ``x = x' = r``, where it equals ``e^{-r^2} sum_{m >= M} r^{2m}/m!``, the
    regularised lower incomplete gamma function ``P(M, r^2)``.
    """
    v = answer_scalar(M_min, "M_min")
    if v != int(v) or v < 1:
        raise AssertionError("M_min must be a positive whole number of coordinates")
    M = np.arange(1, 200)
    err = special.gammainc(M, r**2)
    ref = int(M[np.argmax(err < tol)])
    bound_M = int(M[np.argmax(np.exp(2 * M * np.log(r) - special.gammaln(M + 1)) < tol)])
    if int(v) == ref:
        print(f"Correct: {ref} coordinates bring the error below {tol:g} on [-{r:g}, {r:g}]^2.")
        return
    if int(v) == bound_M and bound_M != ref:
        raise AssertionError("that is the M the bound (r^2)^M / M! guarantees; the measured error "
                             "falls below the tolerance earlier")
    if abs(int(v) - ref) == 1:
        raise AssertionError("off by one: M counts the coordinates m = 0, 1, ..., M-1")
    raise AssertionError("M_min is not the first M whose worst error on the grid is below the "
                         "tolerance")


# --------------------------------------------------------------------------- #
# spectral cut-off
# --------------------------------------------------------------------------- #
def check_cutoff(w_cut: Any, Phi: Any, y: Any, lam: float) -> None:
    """Check the spectral cut-off estimator, which inverts only the singular values ``> lam``.

    Reference: the pseudoinverse of the rank-k truncation of ``Phi`` (``np.linalg.pinv``),
    where k is the number of singular values above ``lam``.
    """
    Phi = _matrix(Phi, "Phi")
    y = np.asarray(y, dtype=float)
    lam = float(lam)
    w = answer_array(w_cut, "w_cut", (Phi.shape[1],))
    U, s, Vt = np.linalg.svd(Phi, full_matrices=False)

    def trunc_pinv_fit(thr: float) -> np.ndarray:
        k = int(np.sum(s > thr))
        Phi_k = (U[:, :k] * s[:k]) @ Vt[:k]
        return np.linalg.pinv(Phi_k) @ y

    ref = trunc_pinv_fit(lam)
    tol = 1e-7 * max(np.linalg.norm(ref), 1e-12)
    if np.linalg.norm(w - ref) <= tol:
        print(f"Correct: the cut-off keeps {int(np.sum(s > lam))} of {s.size} singular directions.")
        return
    if np.linalg.norm(w - trunc_pinv_fit(np.sqrt(lam))) <= tol:
        raise AssertionError("you kept the singular values with sigma^2 > lam; the book's cut-off "
                             "keeps sigma > lam")
    if np.linalg.norm(w - trunc_pinv_fit(0.0)) <= tol:
        raise AssertionError("that is the plain pseudoinverse: no singular value was cut")
    ridge = Vt.T @ (s / (s**2 + lam) * (U.T @ y))
    if np.linalg.norm(w - ridge) <= tol:
        raise AssertionError("that is ridge regression (filter sigma / (sigma^2 + lam)); the "
                             "cut-off uses 1/sigma for the kept directions and 0 for the others")
    raise AssertionError("w_cut is not V g(S) U^T y with g(sigma) = 1/sigma for sigma > lam "
                         "and 0 otherwise")


# --------------------------------------------------------------------------- #
# predictions from the kernel alone
# --------------------------------------------------------------------------- #
def check_kernel_predictions(f_new: Any, X: Any, y: Any, X_new: Any, lam: float) -> None:
    """Check kernel ridge predictions with the quadratic kernel ``(1 + x^T x')^2``.

    Reference: ridge on the explicit monomial features of degree <= 2 (the primal route).
    """
    from kmlib.book.kernel_trick import polynomial_features

    X, X_new = _matrix(X, "X"), _matrix(X_new, "X_new")
    y = np.asarray(y, dtype=float)
    lam = float(lam)
    f = answer_array(f_new, "f_new", (X_new.shape[0],))
    P = polynomial_features(X, 2)
    w = np.linalg.solve(P.T @ P + lam * np.eye(P.shape[1]), P.T @ y)     # primal ridge
    ref = polynomial_features(X_new, 2) @ w
    tol = 1e-7 * (1 + np.abs(ref).max())
    if np.abs(f - ref).max() <= tol:
        n_feat = polynomial_features(X[:1], 2).shape[1]
        print(f"Correct: the dual predictions match ridge on the {n_feat} explicit features.")
        return
    Phi = polynomial_features(X, 2)
    least_squares = polynomial_features(X_new, 2) @ np.linalg.lstsq(Phi, y, rcond=None)[0]
    if np.abs(f - least_squares).max() <= 1e-4 * (1 + np.abs(ref).max()):
        raise AssertionError("these are the unpenalised (lam = 0) predictions; "
                             "solve (K + lam I) alpha = y")
    unsquared = (1 + X_new @ X.T) @ np.linalg.solve(1 + X @ X.T + lam * np.eye(len(y)), y)
    if np.abs(f - unsquared).max() <= tol:
        raise AssertionError("the kernel is squared: k(x, x') = (1 + x^T x')^2")
    raise AssertionError("f_new is not k_x^T alpha with (k_x)_i = k(x, x_i) and "
                         "alpha = (K + lam I)^{-1} y")


def check_tanh_counterexample(x_bad: Any) -> None:
    """Check the student's two points x_bad for the tanh similarity.

    They must lie in ``[-3, 3]``, with an eigenvalue of the matrix ``tanh(x_i x_j)`` below
    ``-0.1`` (computed in closed form for a 2 x 2 matrix).
    """
    x = answer_array(x_bad, "x_bad", (2,))
    if np.abs(x).max() > 3:
        raise AssertionError("both points of x_bad must lie in [-3, 3]")
    a, b, c = np.tanh(x[0] ** 2), np.tanh(x[1] ** 2), np.tanh(x[0] * x[1])
    low = (a + b - np.hypot(a - b, 2 * c)) / 2
    if low >= -0.1:
        raise AssertionError("the matrix tanh(x_i x_j) of x_bad has no eigenvalue below -0.1; "
                             "try one large and one small point")
    print(f"Correct: the smallest eigenvalue at x_bad is {low:.3f} < -0.1.")


def check_intercept_limit(alpha_int: Any, mu_int: Any, gaps: Any, x: Any, y: Any, x_new: Any,
                          cs: Any) -> None:
    """Check the intercept fit and the gaps.

    Reference: the primal problem in ``(mu, w)`` on explicit features ``Phi = Q sqrt(Lambda)``
    of the Gram matrix (least squares on the augmented design), and for each ``c`` the
    bordered system with corner ``-1/c``, which is the kernel ``k + c`` rewritten stably.
    Predictions are compared, not only coefficients.
    """
    x, y, x_new = (np.asarray(t, dtype=float) for t in (x, y, x_new))
    cs = np.asarray(cs, dtype=float)
    a = answer_array(alpha_int, "alpha_int", y.shape)
    mu = answer_scalar(mu_int, "mu_int")
    g = answer_array(gaps, "gaps", cs.shape)
    gauss = lambda s, t: np.exp(-((s[:, None] - t[None, :]) ** 2) / (2 * 0.3**2))  # noqa: E731
    K, K_new, n = gauss(x, x), gauss(x_new, x), len(y)
    ev, Q = np.linalg.eigh(K)
    Phi = Q * np.sqrt(np.clip(ev, 0.0, None))
    A = np.vstack([np.column_stack([np.ones(n), Phi]), np.column_stack([np.zeros(n), np.eye(n)])])
    coef = np.linalg.lstsq(A, np.r_[y, np.zeros(n)], rcond=None)[0]
    fit_ref = coef[0] + Phi @ coef[1:]
    if abs(mu - coef[0]) > 1e-6 * (1 + abs(coef[0])):
        raise AssertionError("mu_int is not the unpenalised intercept (tolerance 1e-6); it "
                             "comes from the bordered system, not from mean(y)")
    if np.abs(K @ a + mu - fit_ref).max() > 1e-6 * (1 + np.abs(y).max()):
        raise AssertionError("the fitted values K alpha_int + mu_int are not those of ridge "
                             "with an unpenalised intercept (tolerance 1e-6)")
    ones = np.ones((n, 1))
    f_int = K_new @ a + mu
    ref = []
    for c in cs:
        B = np.block([[K + np.eye(n), ones], [ones.T, -np.ones((1, 1)) / c]])
        sol = np.linalg.solve(B, np.r_[y, 0.0])
        ref.append(np.abs(K_new @ sol[:n] + sol[n] - f_int).max())
    ref = np.array(ref)
    if np.allclose(g, ref, rtol=1e-4):
        print(f"Correct: the gap falls from {ref[0]:.3g} to {ref[-1]:.3g}, like 1/c.")
        return
    if np.allclose(g, ref[::-1], rtol=1e-4):
        raise AssertionError("gaps is in the reverse order of cs")
    raise AssertionError("gaps differ from the largest |f_c - f_int| over x_inew (relative "
                         "tolerance 1e-4) at some c; predict with k + c: "
                         "(K_new + c) (K + c + lam I)^{-1} y")
