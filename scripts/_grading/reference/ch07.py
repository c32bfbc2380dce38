"""The lecturer's full checks of chapter 7, "How fast does kernel ridge regression learn?".

Never shipped.  The sheet is ``exercises/07_krr_rates.md``; the students' self-checks of
the same names, in :mod:`kmlib.book.exercises.ch07`, test only properties of an answer.

Every check here recomputes the answer by a route different from the one the exercise
suggests: the tridiagonal inverse of the ``min(x, x')`` Gram matrix instead of a dense
solve, a banded solve instead of the smoother matrix, an exact piecewise minimisation
with Hurwitz zeta tails instead of a grid, explicit Cholesky refits on every fold instead
of a batched eigendecomposition.  A wrong answer raises ``AssertionError`` with a hint
that does not print the reference value; a right one prints a line starting ``Correct:``.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from scipy import linalg

from kmlib import kernels
from kmlib.book import rates
from kmlib.book.exercises._answers import answer_array, answer_scalar
from kmlib.book.exercises.ch07 import _fold_pairs  # a split's validation, as in the self-check

__all__ = [
    "check_bias",
    "check_rate_bound",
    "check_rate_slope",
    "check_representer",
    "check_smoothness_mse",
    "check_floor",
    "check_smooth_rate",
]


# --------------------------------------------------------------------------- #
# the sheet's data, rebuilt from the sheet's own seeds (never taken from the notebook)
# --------------------------------------------------------------------------- #
def _sheet_representer() -> tuple[np.ndarray, np.ndarray, float]:
    """``x, fx, f_norm2`` of the sheet's cell (seed 11)."""
    rng = np.random.default_rng(11)
    z, a = rng.uniform(0, 1, 4), rng.standard_normal(4)
    x = np.sort(rng.uniform(0, 1, 25))
    return x, np.minimum.outer(x, z) @ a, float(a @ np.minimum.outer(z, z) @ a)


def _sheet_bias() -> tuple[np.ndarray, np.ndarray, float]:
    """``x2, f2, lam2`` of the sheet's cell (seed 12)."""
    x2 = np.sort(np.random.default_rng(12).uniform(0, 1, 50))
    return x2, np.sin(np.pi * x2 / 2), 0.05


#: The sample sizes of the sheet (``ns`` in its cell), over which the slope is fitted.
SHEET_NS = np.logspace(2, 8, 13)
#: The exercise on mu_j = j^(-2m): m, sigma^2 and ||f0||^2 of the statement.
SHEET_M, SHEET_SIGMA2, SHEET_FNORM2 = 2, 1.0, 1.0


def _close(a: float, b: float, rtol: float) -> bool:
    return abs(a - b) <= rtol * max(abs(b), np.finfo(float).tiny)


def _precision_apply(x: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``K^{-1} v`` for ``K = min(x_i, x_j)`` at sorted ``x``, by the tridiagonal inverse."""
    diag, off = rates.brownian_precision(x)
    out = diag * v
    out[:-1] += off * v[1:]
    out[1:] += off * v[:-1]
    return out


# --------------------------------------------------------------------------- #
# exercise: representing f0 on the design
# --------------------------------------------------------------------------- #
def check_representer(alpha: Any, quad: Any, x: Any = None, fx: Any = None,
                       f_norm2: Any = None) -> None:
    """Check ``alpha`` with ``K alpha = f0(x)`` and ``quad = alpha^T K alpha`` for ``min(x, x')``.

    Reference: ``alpha = Q f0(x)`` with the tridiagonal inverse ``Q`` of ``K`` (no dense solve),
    and ``quad = f0(x)^T Q f0(x)``, on the sheet's data rebuilt from its seed (the
    arguments ``x, fx, f_norm2`` are not used as the problem data).
    """
    x, fx, f_norm2 = _sheet_representer()
    a = answer_array(alpha, "alpha", x.shape)
    q = answer_scalar(quad, "quad")
    order = np.argsort(x)
    alpha_ref = np.empty_like(fx)
    alpha_ref[order] = _precision_apply(x[order], fx[order])
    quad_ref = float(fx @ alpha_ref)
    K = np.minimum.outer(x, x)
    if not np.allclose(a, alpha_ref, rtol=1e-6, atol=1e-8 * np.abs(alpha_ref).max()):
        if np.allclose(K @ a, fx, rtol=1e-6, atol=1e-8):
            raise AssertionError("K @ alpha reproduces f0(x) only approximately; solve the "
                                 "system more accurately")
        if np.allclose(a, fx, rtol=1e-8):
            raise AssertionError("alpha equals f0(x): alpha must solve K alpha = f0(x), "
                                 "not be the function values themselves")
        raise AssertionError("K @ alpha does not reproduce f0 at the design points; "
                             "solve K alpha = f0(x) with K the Gram matrix of the design")
    if not _close(q, quad_ref, 1e-6):
        if _close(q, f_norm2, 1e-6):
            raise AssertionError("quad equals ||f0||_H^2 = a^T K_z a; the exercise asks for "
                                 "alpha^T K alpha with K the Gram matrix of the DESIGN")
        if _close(q, float(a @ a), 1e-6):
            raise AssertionError("quad is alpha^T alpha; the RKHS norm of sum_i alpha_i k(., x_i) "
                                 "is alpha^T K alpha")
        raise AssertionError("quad is not alpha^T K alpha for your alpha")
    if q > f_norm2 * (1 + 1e-9):
        raise AssertionError("quad exceeds ||f0||_H^2, which the lemma rules out; check K")
    print(f"Correct: alpha^T K alpha is {quad_ref / f_norm2:.1%} of ||f0||_H^2.")


# --------------------------------------------------------------------------- #
# exercise: the two inequalities of the bound's proof
# --------------------------------------------------------------------------- #
def check_bias(bias2: Any, x: Any = None, fx: Any = None, lam: Any = None) -> None:
    """Check the squared bias ``||(S - I) f0||^2`` with ``S = K(K+lam I)^{-1}``.

    The bias is a sum, not divided by n.

    Reference: the exact MSPE with zero noise from :func:`kmlib.book.rates.sobolev_mspe`
    (one banded solve with the tridiagonal inverse of ``K``), times ``n``, on the sheet's
    data rebuilt from its seed (the arguments ``x, fx, lam`` are not used).
    """
    x, fx, lam = _sheet_bias()
    v = answer_scalar(bias2, "bias2")
    n = x.shape[0]
    ref = n * rates.sobolev_mspe(x, fx, 0.0, lam)
    if not _close(v, ref, 1e-6):
        if _close(v, ref / n, 1e-6):
            raise AssertionError("bias2 looks divided by n; the exercise asks for the sum "
                                 "||(S - I) f0||^2")
        if _close(v * v, ref, 1e-6):
            raise AssertionError("bias2 looks like the norm ||(S - I) f0||, not its square")
        raise AssertionError("bias2 is not ||(S - I) f0||^2 with S = K (K + lam I)^{-1}; "
                             "note that S is applied to the noiseless f0(x)")
    print(f"Correct: the squared bias is {ref:.3e}.")


# --------------------------------------------------------------------------- #
# exercise: the rate for mu_j = j^(-2m)
# --------------------------------------------------------------------------- #
def _bound_min(n: float, m: int, sigma2: float, f_norm2: float) -> float:
    """Exact min over gamma of sigma2/(n gamma) sum_j min(mu_j/4, gamma) + f_norm2 gamma / 4.

    On the interval of gamma where exactly J terms mu_j/4 exceed gamma, the objective is
    sigma2 J/n + sigma2 T_J/(n gamma) + f_norm2 gamma/4 with the tail T_J = sum_{j>J} mu_j/4,
    minimised in closed form and clipped to the interval; the answer is the smallest piece.
    """
    from scipy import special

    J = np.arange(0, 20001, dtype=float)
    tail = 0.25 * special.zeta(2 * m, J + 1.0)
    upper = np.where(J == 0, np.inf, 0.25 * np.maximum(J, 1.0) ** (-2 * m))   # mu_J / 4
    lower = 0.25 * (J + 1.0) ** (-2 * m)                                      # mu_{J+1} / 4
    g = np.clip(2.0 * np.sqrt(sigma2 * tail / (n * f_norm2)), lower, upper)
    vals = sigma2 * J / n + sigma2 * tail / (n * g) + f_norm2 * g / 4.0
    return float(np.min(vals))


def check_rate_bound(B: Any, ns: Any = None, m: int = 2, sigma2: float = 1.0,
                     f_norm2: float = 1.0) -> None:
    """Check the minimised rate bound ``B[i]`` for each sample size ``n = ns[i]``.

    The bound is ``B[i] = min_gamma {sigma2/(n gamma) sum_j min(mu_j/4, gamma) + f_norm2 gamma/4}``
    for ``mu_j = j^(-2m)``.

    Reference: on each interval of gamma where the number of terms above gamma is fixed,
    the objective is minimised in closed form (tail sums by the Hurwitz zeta function);
    a fine grid of gamma values agrees to 1%.  The sample sizes, m, sigma^2 and ||f0||^2
    are the sheet's (the arguments are not used as the problem data).
    """
    ns, m, sigma2, f_norm2 = SHEET_NS, SHEET_M, SHEET_SIGMA2, SHEET_FNORM2
    b = answer_array(B, "B", ns.shape)
    ref = np.array([_bound_min(n, m, sigma2, f_norm2) for n in ns])
    if np.any(b < ref * (1 - 1e-6)):
        raise AssertionError("some B[i] lies below the true minimum over gamma; check the "
                             "factor 1/4 in min(mu_j/4, gamma) and the term f_norm2 * gamma / 4")
    if not np.allclose(b, ref, rtol=0.01):
        i = int(np.argmax(np.abs(b / ref - 1)))
        raise AssertionError(f"B[{i}] is more than 1% above the minimum over gamma at n = "
                             f"{ns[i]:g}; use a finer or wider grid of gamma values")
    print(f"Correct: the bound falls from {ref[0]:.3g} to {ref[-1]:.3g}.")


def check_rate_slope(slope: Any, m: int) -> None:
    """Check the fitted log-log slope of the bound for ``mu_j = j^(-2m)``.

    Reference: the least-squares slope of ``log B`` on ``log n`` over the sheet's ``ns``
    with the exact minimum ``B`` (Hurwitz zeta tails, as in :func:`check_rate_bound`); the
    answer must lie within 0.005 of it, and within 0.03 of the exponent -2m/(2m+1) the
    calculation predicts.  ``m`` is the sheet's (the argument is not used).
    """
    m = SHEET_M
    v = answer_scalar(slope, "slope")
    target = -2 * m / (2 * m + 1)
    if v > 0:
        raise AssertionError("the slope is positive: the bound must decrease with n "
                             "(fit log B against log n, not the other way round)")
    if abs(v - (-2.0 / 3.0)) < 0.03 and m != 1:
        raise AssertionError("that is the rate of the Sobolev spectrum (m = 1); redo it "
                             "with mu_j = j^(-2m) for the m of the exercise")
    if abs(v + 0.5) < 0.02:
        raise AssertionError("a slope of -1/2 is the universal rate; the bound with "
                             "mu_j = j^(-2m) should fall faster")
    if abs(v - target) > 0.03:
        raise AssertionError("the slope is more than 0.03 away from the exponent the "
                             "calculation predicts; check the fit (log B on log n) and B")
    exact = np.array([_bound_min(n, m, 1.0, 1.0) for n in SHEET_NS])
    fitted = float(np.polyfit(np.log(SHEET_NS), np.log(exact), 1)[0])
    if abs(v - fitted) > 0.005:
        raise AssertionError("the slope is near the predicted exponent but not the least-squares "
                             "slope of log B on log n over the sheet's ns; fit a line to all "
                             "13 points (np.polyfit(np.log(ns), np.log(B), 1))")
    print(f"Correct: slope {v:.3f}, against the predicted exponent -2m/(2m+1) for m = {m}.")


def _smoothness_data(seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The two training sets of the chapter's draw ``seed``: (X, y_sine), (X', y_square)."""
    from kmlib import datasets

    rng = np.random.default_rng(seed)
    X0, y0, _ = datasets.sine_and_square(40, 0.1, random_state=rng)
    X1, _, y1 = datasets.sine_and_square(40, 0.1, random_state=rng)
    return [(np.asarray(X0, float).reshape(-1, 1), np.asarray(y0, float)),
            (np.asarray(X1, float).reshape(-1, 1), np.asarray(y1, float))]


def _brute_cv_choice(X: np.ndarray, y: np.ndarray, nu: float, ells: np.ndarray,
                     lams: np.ndarray, pairs: list) -> tuple[np.ndarray, tuple[int, int]]:
    """CV errors by explicit Cholesky refits on every fold for every (ell, lam); the argmin."""
    cv = np.zeros((ells.shape[0], lams.shape[0]))
    for a, ell in enumerate(ells):
        K = kernels.matern(nu, float(ell))(X)
        for b, lam in enumerate(lams):
            for tr, te in pairs:
                c = linalg.cho_factor(K[np.ix_(tr, tr)] + lam * np.eye(tr.shape[0]))
                cv[a, b] += np.sum((y[te] - K[np.ix_(te, tr)] @ linalg.cho_solve(c, y[tr])) ** 2)
    i, j = np.unravel_index(np.argmin(cv), cv.shape)
    return cv, (int(i), int(j))


def _refit_mse(X: np.ndarray, y: np.ndarray, nu: float, ell: float, lam: float,
               x_test: np.ndarray, truth: np.ndarray) -> float:
    k = kernels.matern(nu, ell)
    alpha = linalg.cho_solve(linalg.cho_factor(k(X) + lam * np.eye(y.shape[0])), y)
    return float(np.mean((k(x_test[:, None], X) @ alpha - truth) ** 2))


def check_smoothness_mse(mse_new: Any, splits: Any = None, nu: float = 1.5, seed: int = 0,
                         others: Any = None) -> None:
    """Check the test MSEs (sine, square wave) of KRR with a Matern-``nu`` kernel, tuned by CV.

    The tuning is 5-fold CV over ``ell in logspace(-2, 0, 15)`` and
    ``lam in logspace(-8, 0, 17)``, with any 5-fold split: ``splits`` holds, per target,
    the (train_idx, test_idx) pairs used (``None``: the book's ``folds=5``).  The data
    are rebuilt from ``seed`` (the chapter's draw).

    Reference: explicit Cholesky refits on every fold for every pair (no batched
    eigendecomposition) with the student's split, then one refit on all points at the
    CV choice, scored on 1000 equally spaced points.  ``others`` (optional, shape (2, k))
    holds the chapter's MSEs for other kernels, to recognise the wrong kernel.
    """
    from kmlib._folds import resolve_folds

    m = answer_array(mse_new, "mse_new", (2,))
    nu, seed = 1.5, 0                                  # the sheet's exercise, not the arguments
    others = rates.smoothness_experiment(seed)["mse"]  # the chapter's kernels, rebuilt
    data = _smoothness_data(seed)
    if splits is None:
        splits = [None, None]
    if isinstance(splits, (str, bytes)) or len(splits) != 2:
        raise AssertionError("splits must hold two fold splits, one per target (or be None "
                             "for the book's folds=5)")
    ells, lams = np.logspace(-2, 0, 15), np.logspace(-8, 0, 17)
    x_test = np.linspace(0.0, 1.0, 1000)
    truths = [rates.TARGETS[t](x_test) for t in rates.TARGETS]
    names = ["sine", "square wave"]
    ref, ref_book = np.empty(2), np.empty(2)
    for a, (X, y) in enumerate(data):
        book = list(resolve_folds(5, y.shape[0]))
        pairs = book if splits[a] is None else _fold_pairs(splits[a], y.shape[0], f"splits[{a}]")
        cv, (i, j) = _brute_cv_choice(X, y, nu, ells, lams, pairs)
        # any pair whose CV error ties the minimum (to rounding) is an equally valid choice
        ties = np.argwhere(cv <= cv[i, j] * (1 + 1e-9))
        cands = [_refit_mse(X, y, nu, float(ells[p]), float(lams[q]), x_test, truths[a])
                 for p, q in ties]
        ref[a] = cands[int(np.argmin([abs(c - m[a]) for c in cands]))]
        if splits[a] is None:
            ref_book[a] = ref[a]
        else:
            _, (ib, jb) = _brute_cv_choice(X, y, nu, ells, lams, book)
            ref_book[a] = _refit_mse(X, y, nu, float(ells[ib]), float(lams[jb]), x_test, truths[a])
    for a in range(2):
        if _close(m[a], ref[a], 1e-4):
            continue
        if others is not None and np.any(np.isclose(np.asarray(others)[a], m[a], rtol=1e-6)):
            raise AssertionError(f"mse_new[{a}] ({names[a]}) equals one of the chapter's kernels; "
                                 f"use the Matern kernel with nu = {nu}")
        if a == 0 and _close(m[0], ref[1], 1e-4) or a == 1 and _close(m[1], ref[0], 1e-4):
            raise AssertionError("the two entries are swapped: the sine comes first")
        if splits[a] is None and not _close(m[a], ref_book[a], 1e-4):
            raise AssertionError(f"mse_new[{a}] ({names[a]}) is not the test MSE of the fit tuned "
                                 "with the book's folds=5; if you used another 5-fold split, pass "
                                 "it in splits")
        raise AssertionError(f"mse_new[{a}] ({names[a]}) is not the test MSE of the CV-tuned fit "
                             "for the fold split given; check 5 folds, both grids, the refit on "
                             "all 40 points, and the test error against the noiseless target on "
                             "1000 equally spaced points")
    print(f"Correct: Matern-{nu:g} test MSEs computed for the sine and the square wave.")


# --------------------------------------------------------------------------- #
# exercise: a floor under every penalty
# --------------------------------------------------------------------------- #
def check_floor(floor: Any, best: Any, x: Any = None, fx: Any = None) -> None:
    """Check the ideal-shrinkage floor and the best ridge risk, sigma = 0.5.

    Reference: the floor through the dense eigendecomposition; the best risk through the
    tridiagonal inverse of ``K`` (:func:`kmlib.book.rates.sobolev_mspe`) over the same
    grid of penalties.  The data are the sheet's, rebuilt (the arguments are not used).
    """
    x, fx, _ = _sheet_bias()
    fl, b = answer_scalar(floor, "floor"), answer_scalar(best, "best")
    nu, U = np.linalg.eigh(np.minimum.outer(x, x))
    theta = U.T @ fx
    ref_floor = float(np.sum(0.25 * theta**2 / (0.25 + theta**2)) / x.shape[0])
    ref_best = float(np.min(rates.sobolev_mspe(x, fx, 0.25, np.logspace(-6, 2, 801))))
    if not _close(fl, ref_floor, 1e-6):
        if _close(fl, ref_floor * x.shape[0], 1e-6):
            raise AssertionError("floor is not divided by n")
        raise AssertionError("floor is not (1/n) sum_i sigma^2 theta_i^2 / (sigma^2 + theta_i^2) "
                             "with theta = U^T f0(x) and sigma = 0.5")
    if not _close(b, ref_best, 1e-6):
        if _close(b, ref_best * x.shape[0], 1e-6):
            raise AssertionError("best is not divided by n")
        raise AssertionError("best is not the smallest exact risk over logspace(-6, 2, 801)")
    print(f"Correct: the best ridge risk is {ref_best / ref_floor:.2f} times the ideal floor.")


# --------------------------------------------------------------------------- #
# exercise: faster than the bound for a smooth target
# --------------------------------------------------------------------------- #
def check_smooth_rate(R_best: Any, slope_best: Any, ns: Any) -> None:
    """Check the minimised Mercer risk of the sine and its slope.

    Reference: the variance sum by the integral comparison of its tail beyond 2 x 10^5
    terms, and the grid minimum over the sheet's 801 gammas; the sheet's ``ns``
    (the argument is not used).  Tolerances: 1e-4 relative on ``R_best``, 1e-3 on the slope.
    """
    ns = np.logspace(2, 7, 11)
    r = answer_array(R_best, "R_best", ns.shape)
    sl = answer_scalar(slope_best, "slope_best")
    mu = 1.0 / ((np.arange(1, 200_001) - 0.5) * np.pi) ** 2
    gammas = np.logspace(-8, 0, 801)
    var_sum = np.array([np.sum(mu**2 / (mu + g) ** 2) for g in gammas])
    bias = 0.5 * gammas**2 / (mu[0] + gammas) ** 2
    ref = (0.25 / ns[:, None] * var_sum[None, :] + bias[None, :]).min(axis=1)
    if not np.allclose(r, ref, rtol=1e-4):
        if np.allclose(r, (1.0 / ns[:, None] * var_sum[None, :] + bias[None, :]).min(axis=1),
                       rtol=1e-4):
            raise AssertionError("R_best uses sigma^2 = 1; the exercise has sigma = 0.5")
        raise AssertionError("R_best is not min over the gamma grid of R(n, gamma) (1e-4)")
    ref_slope = float(np.polyfit(np.log(ns), np.log(ref), 1)[0])
    if abs(sl - ref_slope) > 1e-3:
        raise AssertionError("slope_best is not the least-squares slope of log R_best on log n")
    print(f"Correct: the minimised risk falls with slope {ref_slope:.3f}.")
