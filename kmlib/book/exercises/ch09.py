"""Self-checks for the exercises of chapter 9 on large-scale kernel machines.

The chapter is "Large-scale kernel machines: random features and Nystrom"
(``exercises/09_large_scale.md``).  Each ``check_*`` function is a *self-check*: it
tests properties a right answer must have without computing it -- the identity
``var_phase - var_pair = 1/(2D)`` between the two RFF variances, the three properties
that pin down a Nystrom approximation (symmetric, reproduces the anchor columns, columns
in their span) and the Schur complement's sign, the defining inequality of the smallest
admissible ``D`` and the equation for ``eps``, the normal equations of streamed ridge
evaluated block by block -- and, for numbers of the sheet, compares a salted hash of the
rounded value (:func:`kmlib.book.exercises._answers.matches_digest`).  A failed property
raises ``AssertionError`` with a hint that does not print a reference value; when all
hold, one line starting with ``Self-check passed:`` is printed.  The full check against
the reference runs when the sheet is graded.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._answers import answer_array, answer_scalar, matches_digest

__all__ = [
    "check_rff_variances",
    "check_prf_variance",
    "check_nystroem",
    "check_choose_D",
    "check_streaming_coef",
    "check_not_pd",
    "check_domain_error",
]

# salted PBKDF2 hashes of the sheet's rounded answers (salt: the answer's name)
_VAR_PAIR_DIGEST = "73a3c0a4dd0dd30e553a91ed15980b5138dcd2dd2cd982a161f3f52a56da5c4c"
_PRF_MEAN_DIGEST = "ee69810c20bf17d297cf8d380d4838bf4ae34ee6440cad5d11a6771908ea85c2"
_PRF_VAR_DIGEST = "72c1a13e1cee49b7338df29cf22c36c3f155232447034bac57b15711d5430d29"


def _passed(what: str) -> None:
    print(f"Self-check passed: {what}; the full check runs when the sheet is graded.")


def _same(a: float, b: float, rtol: float = 1e-6) -> bool:
    return bool(np.isclose(a, b, rtol=rtol, atol=0.0))


def _sheet_only(ok: bool, call: str) -> None:
    if not ok:
        raise AssertionError(f"the self-check knows the answer only for the sheet's values: "
                             f"call {call} as in the check cell")


# --------------------------------------------------------------------------- #
# exercise: variance of random Fourier features for the Laplacian kernel
# --------------------------------------------------------------------------- #
def check_rff_variances(var_pair: Any, var_phase: Any, delta: float, ell: float, D: int) -> None:
    """Self-check both RFF variances for the 1-D Laplacian kernel ``exp(-|Delta|/ell)``.

    Properties: positive values with ``var_phase - var_pair = 1/(2D)`` (subtract the two
    formulas of part 2: it holds for every kernel); ``var_pair`` of the sheet's values is
    compared with the salted hash of its value rounded to 6 significant digits.
    """
    vp = answer_scalar(var_pair, "var_pair")
    vf = answer_scalar(var_phase, "var_phase")
    if vp < 0 or vf < 0:
        raise AssertionError("a variance cannot be negative")
    D = int(D)
    gap = 0.5 / D
    if _same(vp - vf, gap):
        raise AssertionError("var_pair and var_phase are swapped: the cosine-sine pairs have "
                             "the smaller variance")
    _sheet_only(float(delta) == 0.4 and float(ell) == 0.5 and D == 25,
                "check_rff_variances(var_pair, var_phase, delta=0.4, ell=0.5, D=25)")
    k = math.exp(-float(delta) / float(ell))                 # the kernel value k_0(Delta)
    gaussian_pair = (1.0 - k * k) ** 2 / (2 * D)             # with k_0(2 Delta) = k_0(Delta)^4
    gaussian_phase = (1.0 - k * k + 0.5 * k**4) / D
    if not matches_digest(vp, _VAR_PAIR_DIGEST, "var_pair"):
        if _same(vp, gaussian_pair):
            raise AssertionError(
                "var_pair uses k_0(2 Delta) = k_0(Delta)^4, which holds for the Gaussian kernel "
                "only; for exp(-|Delta|/ell), compute k_0(2 Delta) for this kernel")
        if matches_digest(vp / D, _VAR_PAIR_DIGEST, "var_pair"):
            raise AssertionError("var_pair is the variance of a single term; divide by D")
        raise AssertionError(
            "var_pair does not match the variance of the estimator; write the second moment "
            "of one term with cos^2 t = (1 + cos 2t)/2 and subtract k_0(Delta)^2")
    if not _same(vf - vp, gap):
        if _same(vf, gaussian_phase):
            raise AssertionError(
                "var_phase uses k_0(2 Delta) = k_0(Delta)^4, which holds for the Gaussian kernel "
                "only; for exp(-|Delta|/ell), compute k_0(2 Delta) for this kernel")
        if _same(vf / D - vp, gap):
            raise AssertionError("var_phase is the variance of a single term; divide by D")
        raise AssertionError(
            "var_phase does not match the variance of the estimator (var_phase - var_pair "
            "must be 1/(2D) by part 2); the phase term adds E[B^2 | w] = 1/2 to the second "
            "moment")
    _passed("var_pair matches the stored hash and var_phase - var_pair = 1/(2D)")


# --------------------------------------------------------------------------- #
# exercise: positive random features
# --------------------------------------------------------------------------- #
def check_prf_variance(prf_mean: Any, prf_var: Any, x: Any, xp: Any, D: int) -> None:
    """Self-check the mean and the variance of the positive-feature estimator.

    Properties: both positive; for the sheet's ``x``, ``x'`` and ``D``, the salted hashes
    of the two values rounded to 6 significant digits.
    """
    u = np.asarray(x, dtype=float)
    w = np.asarray(xp, dtype=float)
    m = answer_scalar(prf_mean, "prf_mean")
    v = answer_scalar(prf_var, "prf_var")
    if m <= 0:
        raise AssertionError("prf_mean must be positive: every feature is an exponential")
    if v <= 0:
        raise AssertionError("prf_var must be positive: the products are not constant in w")
    D = int(D)
    _sheet_only(u.shape == (3,) and w.shape == (3,) and D == 50
                and np.array_equal(u, [0.2, -0.1, 0.3]) and np.array_equal(w, [0.1, 0.4, -0.2]),
                "check_prf_variance(prf_mean, prf_var, [0.2, -0.1, 0.3], [0.1, 0.4, -0.2], D=50)")
    if not matches_digest(m, _PRF_MEAN_DIGEST, "prf_mean"):
        if _same(m, math.exp(0.5 * float((u + w) @ (u + w))), 1e-8):
            raise AssertionError("prf_mean omits the factor exp(-|x|^2/2) of each feature")
        raise AssertionError("prf_mean is not E phi_w(x) phi_w(x'); use E exp(w.v) = exp(|v|^2/2)")
    if not matches_digest(v, _PRF_VAR_DIGEST, "prf_var"):
        if matches_digest(v - m * m / D, _PRF_VAR_DIGEST, "prf_var"):
            raise AssertionError("prf_var is the second moment over D; subtract the squared mean")
        if matches_digest(v / D, _PRF_VAR_DIGEST, "prf_var"):
            raise AssertionError("prf_var is the variance of one feature product; divide by D")
        raise AssertionError("prf_var does not match; the second moment of one product uses "
                             "E exp(w.v) with v = 2(x + x')")
    _passed("prf_mean and prf_var match the stored hashes (6 significant digits)")


# --------------------------------------------------------------------------- #
# exercise: Nystrom is a Schur complement
# --------------------------------------------------------------------------- #
def check_nystroem(K_tilde: Any, X: Any, anchors: Any, sigma: float) -> None:
    """Self-check the Nystrom approximation with (possibly repeated) anchors.

    Properties that together determine ``K~ = K_nm K_mm^+ K_mn``: it reproduces the anchor
    columns of ``K``, it is symmetric, and its columns lie in the span of the anchor
    columns (checked by projecting on an orthonormal basis of that span); moreover
    ``K - K~`` is positive semi-definite (a Schur complement).
    """
    pts = np.asarray(X, dtype=float)
    idx = np.asarray(anchors, dtype=int)
    n = pts.shape[0]
    Kt = answer_array(K_tilde, "K_tilde", (n, n))
    sq = np.einsum("ij,ij->i", pts, pts)
    full = np.exp(-np.maximum(sq[:, None] + sq[None, :] - 2.0 * pts @ pts.T, 0.0)
                  / (2.0 * float(sigma) ** 2))
    cols = full[:, idx]
    if np.max(np.abs(Kt[:, idx] - cols)) > 1e-6:
        raise AssertionError(
            "K_tilde does not reproduce the anchor columns of K; with repeated anchors K_mm is "
            "singular, so use its pseudoinverse (or a jitter of at most 1e-8, since a jitter "
            "eta moves the entries by up to about eta / (nu + eta) along small eigenvalues nu), "
            "not its inverse")
    if np.max(np.abs(Kt - Kt.T)) > 1e-8:
        raise AssertionError("K_tilde must be symmetric: K_nm K_mm^+ K_nm^T")
    if np.linalg.eigvalsh(full - 0.5 * (Kt + Kt.T))[0] < -1e-6:
        raise AssertionError("K - K_tilde has a negative eigenvalue; the Schur complement must "
                             "be positive semi-definite (check the kernel's bandwidth and the "
                             "anchors)")
    left, singular, _ = np.linalg.svd(cols, full_matrices=False)
    span = left[:, singular > 1e-10 * singular[0]]
    if np.max(np.abs(Kt - span @ (span.T @ Kt))) > 1e-6:
        raise AssertionError("K_tilde reproduces the anchor columns but its other columns are not "
                             "in their span; the other entries are K_nm K_mm^+ K_mn (a jitter "
                             "above about 1e-8 biases them far more than the jitter itself)")
    _passed(f"K_tilde is symmetric, reproduces the columns of the {np.unique(idx).size} "
            "distinct anchors, lies in their span and K - K_tilde is positive semi-definite")


# --------------------------------------------------------------------------- #
# exercise: choosing D from the uniform bound
# --------------------------------------------------------------------------- #
def check_choose_D(D_needed: Any, eps_guaranteed: Any, D_phase: Any, n: int, eps: float,
                   delta: float, D_given: int) -> None:
    """Self-check the uniform bound: D for (n, eps, delta), eps for a given D, the phase variant.

    Properties: ``D_needed`` and ``D_phase`` are positive whole numbers, and ``D_phase`` is
    what the proof with terms in ``[-2, 2]`` gives for the same bound, four times as many
    features up to rounding: ``4 (D_needed - 1) < D_phase <= 4 D_needed``; ``eps_guaranteed``
    makes the bound an equality at ``D_given``.  The values of the two integers are not
    checked here: a check that confirms an integer finds it for whoever tries the integers
    one by one (any pair ``(D, 4 D)`` passes); they are checked when the sheet is graded.
    """
    d1 = answer_scalar(D_needed, "D_needed")
    e1 = answer_scalar(eps_guaranteed, "eps_guaranteed")
    d2 = answer_scalar(D_phase, "D_phase")
    n, eps, delta = int(n), float(eps), float(delta)
    if d1 != math.floor(d1) or d1 < 1:
        raise AssertionError("D_needed must be a positive integer: solve the bound for D and "
                             "round up")
    pairs = float(n) ** 2
    exponent = float(D_given) * e1**2 / 2.0
    if e1 <= 0 or not _same(exponent, math.log(2.0 * pairs / delta), 2e-6):
        raise AssertionError("eps_guaranteed does not solve 2 n^2 exp(-D eps^2/2) = delta for eps "
                             "at the given D")
    if d2 != math.floor(d2) or d2 < 1:
        raise AssertionError("D_phase must be a positive integer: round the bound up")
    if d2 <= d1:
        raise AssertionError("D_phase: the terms 2 cos(a+u) cos(b+u) range over [-2, 2], twice "
                             "the range of the cosine-sine terms, so Hoeffding's bound needs more "
                             "features than D_needed")
    if not 4 * (d1 - 1) < d2 <= 4 * d1:
        raise AssertionError("D_phase and D_needed do not come from the same bound: with range "
                             "b - a = 4 instead of 2, Hoeffding's exponent -2 D eps^2/(b-a)^2 "
                             "needs four times as many features, so D_phase = ceil(4 x) when "
                             "D_needed = ceil(x); compute both from the same log(2 n^2/delta)")
    _passed("eps_guaranteed makes the bound an equality, and D_phase is four times D_needed up "
            "to rounding (the two integers themselves are checked only when graded)")


# --------------------------------------------------------------------------- #
# exercise: streaming ridge
# --------------------------------------------------------------------------- #
def check_streaming_coef(coef: Any, n: int, d: int, block_size: int, seed: int,
                         sigma: float, n_features: int, rff_seed: int, lam: float) -> None:
    """Self-check ridge coefficients on random Fourier features accumulated over blocks.

    Property: the normal equations ``Z^T (y - Z beta) = lam beta`` over all rows, with the
    feature map fitted on the first block, evaluated block by block on the answer (no
    solve).
    """
    from kmlib.features import RandomFourierFeatures

    from ..large_scale import regression_blocks

    c = answer_array(coef, "coef", (2 * int(n_features),))
    penalty = float(lam)
    fmap = None
    unpenalised = np.zeros_like(c)                # Z^T (y - Z c), summed over the blocks
    rhs = np.zeros_like(c)                        # Z^T y, for the scale of the tolerance
    for Xb, yb in regression_blocks(n, d, block_size=block_size, seed=seed):
        if fmap is None:
            fmap = RandomFourierFeatures(sigma=sigma, n_features=n_features,
                                         random_state=rff_seed).fit(Xb)
        Zb = fmap.transform(Xb)
        last = Zb.T @ (yb - Zb @ c)
        unpenalised += last
        rhs += Zb.T @ yb

    def vanishes(residual: np.ndarray, rtol: float = 1e-8) -> bool:
        return float(np.abs(residual).max()) <= rtol * (1.0 + float(np.abs(rhs).max()))

    if vanishes(unpenalised - penalty * c):
        _passed(f"coef satisfies the normal equations Z^T (y - Z coef) = lam coef on all {n} "
                "rows")
        return
    if vanishes(last - penalty * c):
        raise AssertionError("coef uses the last block only; add Z_b^T Z_b and Z_b^T y_b over "
                             "all blocks before solving")
    if vanishes(unpenalised - penalty * n * c):
        raise AssertionError("coef uses the penalty n * lam; the objective has no 1/n in front "
                             "of the squared errors")
    if vanishes(unpenalised, 1e-6):
        raise AssertionError("coef ignores the penalty; add lam to the diagonal of Z^T Z")
    raise AssertionError("coef does not satisfy the normal equations of ridge on the whole "
                         "feature matrix; draw the frequencies once (fit the feature map on the "
                         "first block) and reuse them")


# --------------------------------------------------------------------------- #
# exercise: a stationary function that is not positive definite
# --------------------------------------------------------------------------- #
def check_not_pd(x_epa: Any, min_eig: Any) -> None:
    """Self-check a set of points where the Epanechnikov profile max(0, 1 - Delta^2) fails.

    The points are the student's choice, so the check verifies the choice: at most 30
    finite points, whose Gram matrix has smallest eigenvalue below -1e-3, and ``min_eig``
    equal to that eigenvalue (to 1e-8).
    """
    v = answer_scalar(min_eig, "min_eig")
    try:
        pts = np.asarray(x_epa, dtype=float).ravel()
    except (TypeError, ValueError):
        raise AssertionError("x_epa must be a 1-D numeric array of points") from None
    if x_epa is None or not 2 <= pts.size <= 30 or not np.all(np.isfinite(pts)):
        raise AssertionError("x_epa must hold between 2 and 30 finite points")
    gram = np.maximum(0.0, 1.0 - (pts[:, None] - pts[None, :]) ** 2)
    low = float(np.linalg.eigvalsh(gram)[0])
    if low > -1e-3:
        raise AssertionError("the Gram matrix of max(0, 1 - Delta^2) at your points has no "
                             "eigenvalue below -1e-3; the negative part of the Fourier transform "
                             "sits near w = 2 pi, so try points whose spacing is a fraction of 1")
    if abs(v - low) > 1e-8 * max(1.0, abs(low)):
        raise AssertionError("min_eig is not the smallest eigenvalue of the Gram matrix at x_epa")
    _passed("your points give the Epanechnikov Gram matrix an eigenvalue below -1e-3, and "
            "min_eig is it")


# --------------------------------------------------------------------------- #
# exercise: how the worst error grows with the domain
# --------------------------------------------------------------------------- #
def check_domain_error(sup_err: Any, Ls: Any) -> None:
    """Self-check the worst RFF error over [0, L] for L = 1, 10, 100, 1000.

    Properties, with the sheet's frequencies (rebuilt from seed 0): the four values are
    non-decreasing (the grids are nested), at most 2, and at least the error at 500
    random grid points of each interval (a maximum dominates every sample).  Its value is
    compared with the reference when the sheet is graded.
    """
    try:
        given = np.atleast_1d(np.asarray(Ls, dtype=float)).tolist()
    except (TypeError, ValueError):
        given = None
    if given != [1.0, 10.0, 100.0, 1000.0]:
        raise AssertionError("Ls differs from the exercise's [1, 10, 100, 1000]")
    e = answer_array(sup_err, "sup_err", (4,))
    if np.any(e < 0) or np.any(e > 2):
        raise AssertionError("each worst error lies in [0, 2]: both terms lie in [-1, 1]")
    if np.any(np.diff(e) < 0):
        raise AssertionError("sup_err must not decrease with L: the intervals are nested")
    w = np.random.default_rng(0).standard_normal(100)
    pick = np.random.default_rng(12345)
    for i, L in enumerate((1, 10, 100, 1000)):
        grid = np.arange(0, L + 1e-9, 0.005)
        d = pick.choice(grid, size=min(500, grid.size), replace=False)
        sample = float(np.max(np.abs(np.cos(np.outer(d, w)).mean(axis=1) - np.exp(-d**2 / 2))))
        if e[i] < sample - 1e-12:
            raise AssertionError(f"sup_err[{i}] is smaller than the error at some Delta of the "
                                 f"grid for L = {L}; take the maximum of the absolute error "
                                 "over all of np.arange(0, L + 1e-9, 0.005)")
    _passed("sup_err is non-decreasing, at most 2, and dominates the error at sampled grid points")
