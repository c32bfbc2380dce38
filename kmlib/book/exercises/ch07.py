"""Self-checks for the exercises of chapter 7, "How fast does kernel ridge regression learn?".

The sheet is ``exercises/07_krr_rates.md``.

Each ``check_*`` function is a *self-check*: it tests properties a right answer must
have without computing the answer -- the residual of ``K alpha = f0(x)``, the identity
``quad = alpha^T K alpha`` and the lemma's inequality, bounds that the minimised rate
bound obeys (part 1 of its exercise, and its monotonicity in n), the exponent the
calculation predicts, valid fold splits -- and, for the numbers of the sheet, compares
a salted hash of their rounded value (:func:`kmlib.book.exercises._answers.matches_digest`).
A failed property raises ``AssertionError`` with a hint that does not print a reference
value; when all hold, one line starting with ``Self-check passed:`` is printed.  The full
check against the reference runs when the sheet is graded.
"""
from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ._answers import answer_array, answer_scalar, matches_digest

__all__ = [
    "check_bias",
    "check_rate_bound",
    "check_rate_slope",
    "check_representer",
    "check_smoothness_mse",
    "check_floor",
    "check_smooth_rate",
]

# salted PBKDF2 hashes of the sheet's rounded answers (salt: the answer's name)
_BIAS2_DIGEST = "d1c7a7afad2f7aff7b7d3d3cd2ad674177262f9d55eac14c65e7fe770b92c35f"


def _passed(what: str) -> None:
    print(f"Self-check passed: {what}; the full check runs when the sheet is graded.")


def _near(a: float, b: float, rtol: float) -> bool:
    return bool(np.isclose(a, b, rtol=rtol, atol=0.0))


# --------------------------------------------------------------------------- #
# exercise: representing f0 on the design
# --------------------------------------------------------------------------- #
def check_representer(alpha: Any, quad: Any, x: Any = None, fx: Any = None,
                       f_norm2: Any = None) -> None:
    """Self-check ``alpha`` with ``K alpha = f0(x)`` and ``quad = alpha^T K alpha``.

    Properties, for ``K = min(x_i, x_j)``: the residual of ``K alpha = f0(x)``, the
    identity ``quad = alpha^T K alpha`` for the given ``alpha``, and the lemma's
    inequality ``quad <= ||f0||_H^2``.
    """
    rng = np.random.default_rng(11)                      # the sheet's data, rebuilt
    z, coef = rng.uniform(0, 1, 4), rng.standard_normal(4)
    pts = np.sort(rng.uniform(0, 1, 25))
    values = np.minimum.outer(pts, z) @ coef
    norm2 = float(coef @ np.minimum.outer(z, z) @ coef)
    a = answer_array(alpha, "alpha", pts.shape)
    q = answer_scalar(quad, "quad")
    given = [(np.asarray(v, dtype=float), r) for v, r in
             zip((x, fx, f_norm2), (pts, values, np.asarray(norm2)), strict=True) if v is not None]
    if any(g.shape != r.shape or not np.allclose(g, r, rtol=0, atol=1e-12) for g, r in given):
        raise AssertionError("x, fx or f_norm2 differ from the sheet's cell: the exercise is "
                             "about the data of that cell (seed 11); rerun it")
    f_norm2 = norm2
    gram = np.minimum(pts[:, None], pts[None, :])
    misfit = float(np.linalg.norm(gram @ a - values)) / float(np.linalg.norm(values))
    if misfit > 1e-9:
        if np.allclose(a, values, rtol=1e-8, atol=0.0):
            raise AssertionError("alpha equals f0(x): alpha must solve K alpha = f0(x), "
                                 "not be the function values themselves")
        if misfit < 1e-3:
            raise AssertionError("K @ alpha reproduces f0(x) only approximately; solve the "
                                 "system more accurately")
        raise AssertionError("K @ alpha does not reproduce f0 at the design points; "
                             "solve K alpha = f0(x) with K the Gram matrix of the design")
    own = float(a @ gram @ a)
    if not _near(q, own, 1e-6):
        if _near(q, float(f_norm2), 1e-6):
            raise AssertionError("quad equals ||f0||_H^2 = a^T K_z a; the exercise asks for "
                                 "alpha^T K alpha with K the Gram matrix of the DESIGN")
        if _near(q, float(a @ a), 1e-6):
            raise AssertionError("quad is alpha^T alpha; the RKHS norm of "
                                 "sum_i alpha_i k(., x_i) is alpha^T K alpha")
        raise AssertionError("quad is not alpha^T K alpha for your alpha")
    if q > float(f_norm2) * (1.0 + 1e-9):
        raise AssertionError("quad exceeds ||f0||_H^2, which the lemma rules out; check K")
    _passed("K alpha = f0(x), quad = alpha^T K alpha and quad <= ||f0||_H^2")


# --------------------------------------------------------------------------- #
# exercise: the two inequalities of the bound's proof
# --------------------------------------------------------------------------- #
def _is_sheet_design(x: np.ndarray, fx: np.ndarray, lam: float) -> bool:
    """Whether (x, fx, lam) are the sheet's ``x2, f2, lam2``, whose answer is hashed."""
    design = np.sort(np.random.default_rng(12).uniform(0, 1, 50))
    return (x.shape == design.shape and fx.shape == design.shape and lam == 0.05
            and np.allclose(x, design, rtol=0, atol=1e-12)
            and np.allclose(fx, np.sin(0.5 * np.pi * design), rtol=0, atol=1e-12))


def check_bias(bias2: Any, x: Any = None, fx: Any = None, lam: Any = None) -> None:
    """Self-check the squared bias ``||(S - I) f0||^2`` with ``S = K(K+lam I)^{-1}``.

    The bias is a sum, not divided by n.  Properties: a non-negative number at most
    ``||f0(x)||^2`` (``S - I`` is a contraction); for the sheet's data, the salted hash of
    the value rounded to 6 significant digits.  The data are the sheet's (``x2, f2, lam2``,
    rebuilt from seed 12) unless given.
    """
    if x is None and fx is None and lam is None:
        x, fx = _sheet_bias_data()
        lam = 0.05
    pts = np.asarray(x, dtype=float)
    values = np.asarray(fx, dtype=float)
    v = answer_scalar(bias2, "bias2")
    if v < 0:
        raise AssertionError("bias2 is negative; a squared norm cannot be")
    if v > float(values @ values) * (1.0 + 1e-12):
        raise AssertionError("bias2 exceeds ||f0(x)||^2, but S - I = -lam (K + lam I)^{-1} "
                             "shrinks every vector; is it a sum of squared residuals?")
    if not _is_sheet_design(pts, values, float(lam)):
        raise AssertionError("the self-check knows the answer only for the sheet's data: "
                             "call check_bias(bias2) as in the check cell")
    if matches_digest(v, _BIAS2_DIGEST, "bias2"):
        _passed("bias2 matches the stored hash of the squared bias (6 significant digits)")
        return
    if matches_digest(v * pts.shape[0], _BIAS2_DIGEST, "bias2"):
        raise AssertionError("bias2 looks divided by n; the exercise asks for the sum "
                             "||(S - I) f0||^2")
    if matches_digest(v * v, _BIAS2_DIGEST, "bias2"):
        raise AssertionError("bias2 looks like the norm ||(S - I) f0||, not its square")
    raise AssertionError("bias2 is not ||(S - I) f0||^2 with S = K (K + lam I)^{-1}; "
                         "note that S is applied to the noiseless f0(x)")


# --------------------------------------------------------------------------- #
# exercise: the rate for mu_j = j^(-2m)
# --------------------------------------------------------------------------- #
def _part1_bracket(n: np.ndarray, m: int, sigma2: float, f_norm2: float
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds on ``B(n)`` from the integral comparison of part 1.

    With ``c = 2m/(2m-1) 4^(-1/(2m))`` and ``U(g) = c sigma2 g^(-1/(2m)) / n + f_norm2 g / 4``,
    ``c g^(1-1/(2m)) - g <= sum_j min(mu_j/4, g) <= c g^(1-1/(2m))``, so the objective lies
    in ``[U(g) - sigma2/n, U(g)]`` for every g and ``B(n)`` in ``[min U - sigma2/n, min U]``.
    """
    c = 2.0 * m / (2.0 * m - 1.0) * 4.0 ** (-0.5 / m)
    g_best = (2.0 * c * sigma2 / (m * n * f_norm2)) ** (2.0 * m / (2.0 * m + 1.0))
    top = c * sigma2 / n * g_best ** (-0.5 / m) + 0.25 * f_norm2 * g_best
    return top - sigma2 / n, top


def check_rate_bound(B: Any, ns: Any = None, m: int = 2, sigma2: float = 1.0,
                     f_norm2: float = 1.0) -> None:
    """Self-check the minimised rate bound ``B[i]`` for each sample size ``n = ns[i]``.

    The bound is ``B[i] = min_gamma {sigma2/(n gamma) sum_j min(mu_j/4, gamma) + f_norm2 gamma/4}``
    for ``mu_j = j^(-2m)``.  Properties: ``B`` decreases with ``n`` while ``n B`` does
    not (the objective does so for every gamma); ``B(n)`` is not below the lower bound of
    part 1; and, being a minimum over gamma, ``B(n)`` is at most the objective (the exact
    series) at each gamma of a test grid of 301 values, up to 1% for a grid of the
    student's own.  The closed-form upper bound of part 1, which is not minimised, exceeds
    the objective at the grid's best gamma by 1-23% over the sheet's ``ns``.
    """
    sizes = np.logspace(2, 8, 13) if ns is None else np.asarray(ns, dtype=float)  # the sheet's
    b = answer_array(B, "B", sizes.shape)
    if np.any(b <= 0):
        raise AssertionError("every B[i] must be positive")
    order = np.argsort(sizes)
    s, bs = sizes[order], b[order]
    if np.any(np.diff(bs) > 0):
        raise AssertionError("B increases with n somewhere, but the objective decreases in n "
                             "for every gamma, and so does its minimum")
    if np.any(np.diff(s * bs) < -1e-9 * (s * bs)[1:]):
        raise AssertionError("n B(n) decreases somewhere, but n times the objective grows with "
                             "n for every gamma; is the first term sigma2/(n gamma) sum_j ...?")
    low, _ = _part1_bracket(s, m, float(sigma2), float(f_norm2))
    if np.any(bs < low * (1 - 1e-9)):
        raise AssertionError("some B[i] lies below the lower bound of part 1, hence below the "
                             "minimum over gamma; check the factor 1/4 in min(mu_j/4, gamma) and "
                             "the term f_norm2 * gamma / 4")
    from ..rates import power_min_sum

    gammas = np.logspace(-14, 1, 301)
    sums = power_min_sum(gammas, 0.25, 2 * int(m))           # sum_j min(j^(-2m)/4, gamma)
    objective = (float(sigma2) * sums[None, :] / (s[:, None] * gammas[None, :])
                 + 0.25 * float(f_norm2) * gammas[None, :])
    worst = bs / objective.min(axis=1)
    if np.any(worst > 1.01):
        i = int(order[np.argmax(worst)])
        raise AssertionError(f"B[{i}] exceeds the objective at some gamma of a test grid by more "
                             f"than 1% at n = {sizes[i]:g}, so it is not the minimum over gamma; "
                             "minimise the objective with the exact sum over a fine and wide grid "
                             "of gamma (the closed form of part 1 is an upper bound, not the "
                             "minimum)")
    _passed("B decreases with n, n B does not, every B[i] is above the lower bound of part 1 and "
            "at most the objective at every gamma of a test grid (1%)")


def check_rate_slope(slope: Any, m: int) -> None:
    """Self-check the fitted log-log slope: negative and near the exponent -2m/(2m+1)."""
    v = answer_scalar(slope, "slope")
    if v > 0.0:
        raise AssertionError("the slope is positive: the bound must decrease with n "
                             "(fit log B against log n, not the other way round)")
    predicted = -2.0 * m / (2.0 * m + 1.0)
    if m != 1 and abs(v + 2.0 / 3.0) < 0.03:
        raise AssertionError("that is the rate of the Sobolev spectrum (m = 1); redo it "
                             "with mu_j = j^(-2m) for the m of the exercise")
    if abs(0.5 + v) < 0.02:
        raise AssertionError("a slope of -1/2 is the universal rate; the bound with "
                             "mu_j = j^(-2m) should fall faster")
    if abs(predicted - v) < 1e-3:
        raise AssertionError("that is the exponent -2m/(2m+1) of the closed form of part 1; the "
                             "exercise asks for the least-squares slope of log B against log n "
                             "over the given ns, with B minimised over gamma")
    if not abs(predicted - v) <= 0.03:
        raise AssertionError("the slope is more than 0.03 away from the exponent the "
                             "calculation predicts; check the fit (log B on log n) and B")
    _passed(f"the slope is within 0.03 of the exponent -2m/(2m+1) for m = {m}")


# --------------------------------------------------------------------------- #
# exercise: smoothness experiment with Matern-3/2
# --------------------------------------------------------------------------- #
def _fold_pairs(split: Any, n: int, name: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (train, test) index pairs of a 5-fold split of ``range(n)``, validated."""
    try:
        pairs = [(np.asarray(train, dtype=int).ravel(), np.asarray(test, dtype=int).ravel())
                 for train, test in split]
    except (ValueError, TypeError) as exc:
        raise AssertionError(f"{name} must be a list of (train_idx, test_idx) pairs, for "
                             "example list(KFold(5).split(X))") from exc
    if len(pairs) != 5:
        raise AssertionError(f"{name} has {len(pairs)} folds; the exercise asks for 5-fold CV")
    every = np.arange(n)
    if not np.array_equal(np.sort(np.concatenate([test for _, test in pairs])), every):
        raise AssertionError(f"the test folds of {name} must cover each of the {n} points once")
    if any(not np.array_equal(np.union1d(train, test), every) or np.intersect1d(train, test).size
           for train, test in pairs):
        raise AssertionError(f"in {name}, each training fold must be the complement of its "
                             "test fold")
    return pairs


def _test_folds(pairs: list[tuple[np.ndarray, np.ndarray]]) -> list[tuple[int, ...]]:
    return sorted(tuple(sorted(test.tolist())) for _, test in pairs)


def _sheet_smoothness_data() -> list[tuple[np.ndarray, np.ndarray]]:
    """The sheet's two training sets (the chapter's draw, seed 0): (X, y_sine), (X', y_square)."""
    from kmlib import datasets

    rng = np.random.default_rng(0)
    X0, y0, _ = datasets.sine_and_square(40, 0.1, random_state=rng)
    X1, _, y1 = datasets.sine_and_square(40, 0.1, random_state=rng)
    return [(np.asarray(X0, float).reshape(-1, 1), np.asarray(y0, float)),
            (np.asarray(X1, float).reshape(-1, 1), np.asarray(y1, float))]


@functools.lru_cache(maxsize=2)
def _grid_refit_mses(nu: float) -> np.ndarray:
    """Test MSE of the refit on all 40 points at every (ell, lam) of the grids: (2, 15, 17).

    Whatever fold split a student uses, the tuned fit is one of these refits, so its test
    MSE is one of these 255 values per target; which one depends on the split.
    """
    from kmlib import kernels

    from ..rates import TARGETS

    ells, lams = np.logspace(-2, 0, 15), np.logspace(-8, 0, 17)
    x_test = np.linspace(0.0, 1.0, 1000)
    out = np.empty((2, ells.size, lams.size))
    data = zip(_sheet_smoothness_data(), TARGETS.values(), strict=True)
    for a, ((X, y), target) in enumerate(data):
        truth = target(x_test)
        for e, ell in enumerate(ells):
            k = kernels.matern(float(nu), float(ell))
            nu_k, U = np.linalg.eigh(k(X))
            nu_k = np.clip(nu_k, 0.0, None)
            alphas = U @ ((U.T @ y)[:, None] / (nu_k[:, None] + lams[None, :]))   # (40, 17)
            fits = k(x_test[:, None], X) @ alphas
            out[a, e] = np.mean((fits - truth[:, None]) ** 2, axis=0)
    out.setflags(write=False)
    return out


def check_smoothness_mse(mse_new: Any, splits: Any = None, nu: float = 1.5, seed: int = 0,
                         others: Any = None) -> None:
    """Self-check the test MSEs (sine, square wave) of KRR with a Matern-3/2 kernel.

    The tuning is 5-fold CV over ``ell in logspace(-2, 0, 15)`` and
    ``lam in logspace(-8, 0, 17)``, with any 5-fold split: ``splits`` holds, per target,
    the (train_idx, test_idx) pairs used (``None``: the book's ``folds=5``).  Properties,
    on the sheet's two training sets (rebuilt from seed 0): valid 5-fold splits of the 40
    points; each value is the test MSE of the refit on all 40 points at *some* pair
    (ell, lam) of the grids -- true for any split, since CV only chooses the pair -- and
    not the MSE of one of the chapter's kernels (``others``).  Which of the 255 pairs the
    CV picks is checked when the sheet is graded.
    """
    m = answer_array(mse_new, "mse_new", (2,))
    if not (float(nu) == 1.5 and int(seed) == 0):
        raise AssertionError("the self-check knows the sheet's exercise only: call it with "
                             "nu=1.5 and seed=0, as in the check cell")
    splits = (None, None) if splits is None else splits
    if isinstance(splits, (bytes, str)) or len(splits) != 2:
        raise AssertionError("splits must hold two fold splits, one per target (or be None "
                             "for the book's folds=5)")
    for a, split in enumerate(splits):
        if split is not None:
            _test_folds(_fold_pairs(split, 40, f"splits[{a}]"))
    names = ("sine", "square wave")
    if others is not None:
        chapter = np.asarray(others, dtype=float)
        for a in (0, 1):
            if np.any(np.isclose(chapter[a], m[a], rtol=1e-6, atol=0.0)):
                raise AssertionError(f"mse_new[{a}] ({names[a]}) equals one of the chapter's "
                                     "kernels; use the Matern kernel with nu = 1.5")
    grid = _grid_refit_mses(1.5)
    for a in (0, 1):
        if np.any(np.isclose(grid[a], m[a], rtol=1e-4, atol=0.0)):
            continue
        if np.any(np.isclose(grid[1 - a], m[a], rtol=1e-4, atol=0.0)):
            raise AssertionError("the two entries of mse_new are swapped: the sine comes first")
        raise AssertionError(f"mse_new[{a}] ({names[a]}) is not the test MSE of a Matern-3/2 "
                             "fit refitted on all 40 points at any (ell, lam) of the two grids; "
                             "check the kernel, the grids, the refit on all points, and the test "
                             "error against the noiseless target on 1000 equally spaced points")
    _passed("each test MSE is that of a Matern-3/2 refit at a pair (ell, lam) of the grids, and "
            "the splits are valid 5-fold splits; which pair CV picks is checked when graded")


# --------------------------------------------------------------------------- #
# exercise: a floor under every penalty
# --------------------------------------------------------------------------- #
def _sheet_bias_data() -> tuple[np.ndarray, np.ndarray]:
    x2 = np.sort(np.random.default_rng(12).uniform(0, 1, 50))
    return x2, np.sin(0.5 * np.pi * x2)


def check_floor(floor: Any, best: Any, x: Any = None, fx: Any = None) -> None:
    """Self-check the ideal-shrinkage floor and the best ridge risk on the sheet's design.

    Properties, on the design and target of the sheet (rebuilt from seed 12) with
    sigma = 0.5: ``0 < floor <= best`` (the floor is below every ridge risk), ``floor`` at
    most the risk of the zero estimator ``||f0(x)||^2 / n`` (every summand is at most
    ``theta_i^2``), and ``best`` at most the exact risk at each penalty of a coarse test
    grid (it is a minimum over a finer grid), up to 0.1%.
    """
    pts, values = _sheet_bias_data()
    given = [(np.asarray(v, dtype=float), r) for v, r in zip((x, fx), (pts, values), strict=True)
             if v is not None]
    if any(g.shape != r.shape or not np.allclose(g, r, rtol=0, atol=1e-12) for g, r in given):
        raise AssertionError("x2 or f2 differ from the sheet's cell (seed 12); rerun it")
    fl, b = answer_scalar(floor, "floor"), answer_scalar(best, "best")
    n = pts.shape[0]
    if not 0 < fl <= b * (1 + 1e-9):
        raise AssertionError("need 0 < floor <= best: the floor minimises each summand "
                             "separately, so no penalty's risk can be below it")
    if fl > float(values @ values) / n * (1 + 1e-9):
        raise AssertionError("floor exceeds ||f0(x)||^2 / n, the risk of predicting 0, but each "
                             "summand sigma^2 theta^2 / (sigma^2 + theta^2) is at most theta^2")
    nu, U = np.linalg.eigh(np.minimum.outer(pts, pts))
    theta = U.T @ values
    lams = np.logspace(-6, 2, 41)
    s = nu[:, None] / (nu[:, None] + lams)
    risk = (0.25 * (s**2).sum(axis=0) + (theta[:, None] ** 2 * (1 - s) ** 2).sum(axis=0)) / n
    if b > risk.min() * 1.001:
        raise AssertionError("best exceeds the exact risk at some penalty of a test grid: it is "
                             "not the minimum over logspace(-6, 2, 801); is sigma^2 = 0.25 and "
                             "is the risk divided by n?")
    _passed("0 < floor <= best, floor <= ||f0(x)||^2/n, and best is at most the risk at every "
            "penalty of a test grid")


# --------------------------------------------------------------------------- #
# exercise: faster than the bound for a smooth target
# --------------------------------------------------------------------------- #
def check_smooth_rate(R_best: Any, slope_best: Any, ns: Any) -> None:
    """Self-check the minimised Mercer risk of the sine and its log-log slope.

    Properties, at the sheet's ``ns = logspace(2, 7, 11)``: ``R_best`` decreases while
    ``n R_best`` increases (as ``min_gamma R(n, gamma)`` must), each value is at most
    ``R(n, gamma)`` at every gamma of a coarse test grid (0.1%), and ``slope_best`` is the
    least-squares slope of the student's own ``R_best`` (1e-6).
    """
    sizes = np.logspace(2, 7, 11)
    given = np.asarray(ns, dtype=float)
    if given.shape != sizes.shape or not np.allclose(given, sizes, rtol=1e-12):
        raise AssertionError("ns_s differs from the exercise's np.logspace(2, 7, 11)")
    r = answer_array(R_best, "R_best", sizes.shape)
    sl = answer_scalar(slope_best, "slope_best")
    if np.any(r <= 0) or np.any(np.diff(r) >= 0):
        raise AssertionError("R_best must be positive and decrease with n")
    if np.any(np.diff(sizes * r) <= 0):
        raise AssertionError("n R_best must increase with n (n R(n, gamma) grows in n for every "
                             "gamma); check the factor sigma^2 / n on the variance sum")
    mu = 1.0 / ((np.arange(1, 100_001) - 0.5) * np.pi) ** 2
    gammas = np.logspace(-8, 0, 33)
    var_sum = np.array([np.sum(mu**2 / (mu + g) ** 2) for g in gammas])
    bias = 0.5 * gammas**2 / (mu[0] + gammas) ** 2
    upper = (0.25 / sizes[:, None] * var_sum[None, :] + bias[None, :]).min(axis=1)
    if np.any(r > upper * 1.001):
        i = int(np.argmax(r / upper))
        raise AssertionError(f"R_best[{i}] exceeds R(n, gamma) at a gamma of a test grid: it is "
                             "not the minimum over gamma (sigma^2 = 0.25, bias gamma^2 / "
                             "(2 (mu_1 + gamma)^2))")
    own = float(np.polyfit(np.log(sizes), np.log(r), 1)[0])
    if abs(sl - own) > 1e-6:
        raise AssertionError("slope_best is not the least-squares slope of log R_best against "
                             "log n for your R_best")
    _passed("R_best falls with n while n R_best grows, lies below R at every test gamma, and "
            "slope_best is its fitted slope")
