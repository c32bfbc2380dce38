"""The lecturer's full checks of chapter 9 on large-scale kernel machines (never shipped).

The chapter is "Large-scale kernel machines: random features and Nystrom"
(``exercises/09_large_scale.md``); the students' self-checks of the same names, in
:mod:`kmlib.book.exercises.ch09`, test only properties of an answer.  Every check here
recomputes the answer by a route different from the one the exercise asks for
(numerical quadrature instead of the closed-form variance, a brute-force search instead
of the formula for D, a least-squares Schur complement instead of a pseudoinverse, an
SVD of the materialised features instead of accumulated normal equations), raises
``AssertionError`` with a hint when the answer is missing or wrong -- without printing
the reference value -- and prints one line starting with ``Correct:`` when it is right.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import integrate, linalg

from kmlib.book.exercises._answers import answer_array, answer_scalar
from kmlib.book.large_scale import regression_blocks
from kmlib.features import RandomFourierFeatures
from kmlib.kernels import gaussian
from kmlib.ridge import ridge

__all__ = [
    "check_rff_variances",
    "check_prf_variance",
    "check_nystroem",
    "check_choose_D",
    "check_streaming_coef",
    "check_not_pd",
    "check_domain_error",
]


def _close(a: float, b: float, rtol: float = 1e-6) -> bool:
    return abs(a - b) <= rtol * max(abs(b), 1e-300)


# --------------------------------------------------------------------------- #
# exercise: variance of random Fourier features for the Laplacian kernel
# --------------------------------------------------------------------------- #
def _laplacian_moment(delta: float, ell: float, freq: float) -> float:
    """E cos(freq * w * delta) for w with a Cauchy density, by quadrature.

    The density is ell / (pi (1 + ell^2 w^2)).
    """
    def dens(w: float) -> float:
        return ell / (math.pi * (1.0 + (ell * w) ** 2))
    val = integrate.quad(dens, 0.0, np.inf, weight="cos", wvar=freq * delta)[0]
    return 2.0 * val


def check_rff_variances(var_pair: Any, var_phase: Any, delta: float, ell: float, D: int) -> None:
    """Check both RFF variances for the 1-D Laplacian kernel ``exp(-|Delta|/ell)``.

    The reference integrates ``cos`` and ``cos^2`` against the Cauchy spectral
    density numerically (no closed form for ``h``).
    """
    delta, ell, D = 0.4, 0.5, 25                 # the sheet's values, not the arguments
    vp = answer_scalar(var_pair, "var_pair")
    vf = answer_scalar(var_phase, "var_phase")
    h1 = _laplacian_moment(delta, ell, 1.0)
    h2 = _laplacian_moment(delta, ell, 2.0)
    ref_pair = (1.0 + h2 - 2.0 * h1**2) / (2.0 * D)
    ref_phase = (1.0 + h2 / 2.0 - h1**2) / D
    gauss_pair = (1.0 - h1**2) ** 2 / (2.0 * D)
    gauss_phase = (1.0 + h1**4 / 2.0 - h1**2) / D
    if _close(vp, ref_phase) and _close(vf, ref_pair):
        raise AssertionError("var_pair and var_phase are swapped: the cosine-sine pairs have "
                             "the smaller variance")
    for name, v, ref, gauss in (("var_pair", vp, ref_pair, gauss_pair),
                                ("var_phase", vf, ref_phase, gauss_phase)):
        if _close(v, ref):
            continue
        if _close(v, gauss):
            raise AssertionError(
                f"{name} uses h(2 Delta) = h(Delta)^4, which holds for the Gaussian kernel only; "
                "for exp(-|Delta|/ell), compute h(2 Delta) for this kernel")
        if _close(v, ref * D):
            raise AssertionError(f"{name} is the variance of a single term; divide by D")
        raise AssertionError(
            f"{name} does not match the variance of the estimator; write the second moment of "
            "one term with cos^2 t = (1 + cos 2t)/2 and subtract h(Delta)^2")
    print(f"Correct: the pairs have variance {ref_pair:.5f} and the phases {ref_phase:.5f} "
          f"(ratio {ref_pair / ref_phase:.2f}).")


# --------------------------------------------------------------------------- #
# exercise: positive random features
# --------------------------------------------------------------------------- #
def check_prf_variance(prf_mean: Any, prf_var: Any, x: Any, xp: Any, D: int) -> None:
    """Check the mean ``e^{x.x'}`` and variance of the positive-feature estimator.

    The reference multiplies the two Gaussian moment generating functions
    separately: ``E phi(x)^2 phi(x')^2 = exp(-|x|^2 - |x'|^2) * exp(2 |x + x'|^2)``.
    """
    x, xp, D = [0.2, -0.1, 0.3], [0.1, 0.4, -0.2], 50      # the sheet's values
    x = np.asarray(x, dtype=float)
    xp = np.asarray(xp, dtype=float)
    m = answer_scalar(prf_mean, "prf_mean")
    v = answer_scalar(prf_var, "prf_var")
    s = x + xp
    first = math.exp(-0.5 * (x @ x) - 0.5 * (xp @ xp)) * math.exp(0.5 * (s @ s))
    second = math.exp(-(x @ x) - (xp @ xp)) * math.exp(2.0 * (s @ s))
    ref = (second - first**2) / D
    if not _close(m, first, 1e-8):
        if _close(m, math.exp(0.5 * (s @ s)), 1e-8):
            raise AssertionError("prf_mean omits the factor exp(-|x|^2/2) of each feature")
        raise AssertionError("prf_mean is not E phi_w(x) phi_w(x'); use E exp(w.v) = exp(|v|^2/2)")
    if _close(v, second / D, 1e-8):
        raise AssertionError("prf_var is the second moment over D; subtract the squared mean")
    if _close(v, ref * D, 1e-8):
        raise AssertionError("prf_var is the variance of one feature product; divide by D")
    if not _close(v, ref, 1e-8):
        raise AssertionError("prf_var does not match; the second moment of one product uses "
                             "E exp(w.v) with v = 2(x + x')")
    print(f"Correct: mean {first:.4f}, variance {ref:.5f}, "
          f"relative s.d. {math.sqrt(ref) / first:.3f}.")


# --------------------------------------------------------------------------- #
# exercise: Nystrom is a Schur complement
# --------------------------------------------------------------------------- #
def check_nystroem(K_tilde: Any, X: Any, anchors: Any, sigma: float) -> None:
    """Check the Nystrom approximation with (possibly repeated) anchors.

    The reference projects each column of ``K`` on the span of the anchor columns
    in the RKHS geometry by least squares: with ``C = K[:, anchors]`` and
    ``W = C[anchors]``, ``K~ = C c`` where ``c`` solves ``W c = C^T`` in the
    least-squares, minimum-norm sense (``lstsq``), not by a pseudoinverse.
    """
    X = np.random.default_rng(9).standard_normal((40, 2))  # the sheet's data, rebuilt
    anchors, sigma = np.array([0, 5, 12, 12, 27, 33, 5]), 1.0
    X = np.asarray(X, dtype=float)
    idx = np.asarray(anchors)
    n = X.shape[0]
    Kt = answer_array(K_tilde, "K_tilde", (n, n))
    K = gaussian(sigma)(X)
    C = K[:, idx]
    W = C[idx]
    coef = np.linalg.lstsq(W, C.T, rcond=1e-12)[0]
    ref = C @ coef
    ref = 0.5 * (ref + ref.T)
    if not np.allclose(Kt[:, idx], K[:, idx], atol=1e-6):
        raise AssertionError(
            "K_tilde does not reproduce the anchor columns of K; with repeated anchors K_mm is "
            "singular, so use its pseudoinverse (or a jitter of at most 1e-8, since a jitter "
            "eta moves the entries by up to about eta / (nu + eta) along small eigenvalues nu), "
            "not its inverse")
    if not np.allclose(Kt, Kt.T, atol=1e-8):
        raise AssertionError("K_tilde must be symmetric: K_nm K_mm^+ K_nm^T")
    if np.linalg.eigvalsh(K - 0.5 * (Kt + Kt.T))[0] < -1e-6:
        raise AssertionError("K - K_tilde has a negative eigenvalue; the Schur complement must "
                             "be positive semi-definite (check the kernel's bandwidth and the "
                             "anchors)")
    if not np.allclose(Kt, ref, atol=1e-6):
        raise AssertionError("K_tilde reproduces the anchor columns but differs elsewhere; the "
                             "other entries are K_nm K_mm^+ K_mn (a jitter above about 1e-8 "
                             "biases them far more than the jitter itself)")
    print("Correct: K - K_tilde is positive semi-definite and vanishes on the "
          f"{len(set(idx.tolist()))} distinct anchors' rows and columns.")


# --------------------------------------------------------------------------- #
# exercise: choosing D from the uniform bound
# --------------------------------------------------------------------------- #
def _smallest_D(pairs: int, eps: float, delta: float, width: float) -> int:
    """Smallest integer D with 2 pairs exp(-2 D eps^2 / width^2) <= delta, by bisection."""
    def ok(D: int) -> bool:
        return 2.0 * pairs * math.exp(-2.0 * D * eps**2 / width**2) <= delta
    lo, hi = 0, 1
    while not ok(hi):
        hi *= 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def check_choose_D(D_needed: Any, eps_guaranteed: Any, D_phase: Any, n: int, eps: float,
                   delta: float, D_given: int) -> None:
    """Check the uniform bound: D for (n, eps, delta), eps for a given D, and the phase variant."""
    n, eps, delta, D_given = 1000, 0.05, 0.01, 5000         # the sheet's values
    d1 = answer_scalar(D_needed, "D_needed")
    e1 = answer_scalar(eps_guaranteed, "eps_guaranteed")
    d2 = answer_scalar(D_phase, "D_phase")
    ref_D = _smallest_D(n**2, eps, delta, 2.0)
    ref_phase = _smallest_D(n**2, eps, delta, 4.0)
    # eps for given D: the smallest eps with 2 n^2 exp(-D eps^2/2) <= delta, by bisection
    lo, hi = 0.0, 10.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if 2.0 * n**2 * math.exp(-D_given * mid**2 / 2.0) <= delta else (mid, hi)
    ref_eps = hi
    if d1 != round(d1):
        raise AssertionError("D_needed must be an integer: round the bound up")
    if d1 != ref_D:
        if d1 == _smallest_D(n, eps, delta, 2.0):
            raise AssertionError("D_needed uses n pairs; the union bound runs over all n^2 pairs")
        if abs(d1 - (ref_D - 1)) < 0.5:
            raise AssertionError("D_needed is one too small: round the bound up, not down")
        side = "small" if d1 < ref_D else "large"
        raise AssertionError(f"D_needed is too {side}; solve 2 n^2 exp(-D eps^2/2) <= delta for D")
    if not _close(e1, ref_eps, 1e-6):
        raise AssertionError("eps_guaranteed does not solve 2 n^2 exp(-D eps^2/2) = delta for eps "
                             "at the given D")
    if d2 != ref_phase:
        if d2 == ref_D:
            raise AssertionError("D_phase: the terms 2 cos(a+u) cos(b+u) range over [-2, 2], "
                                 "so Hoeffding's constant changes")
        raise AssertionError("D_phase is wrong; redo Hoeffding with terms of range 4")
    print(f"Correct: D = {ref_D} pair frequencies, eps = {ref_eps:.4f} at D = {D_given}, "
          f"and {ref_phase} random-phase features.")


# --------------------------------------------------------------------------- #
# exercise: streaming ridge
# --------------------------------------------------------------------------- #
def check_streaming_coef(coef: Any, n: int, d: int, block_size: int, seed: int,
                         sigma: float, n_features: int, rff_seed: int, lam: float) -> None:
    """Check ridge coefficients on RFF accumulated over blocks, against an SVD of the full Z."""
    n, d, block_size, seed = 20_000, 5, 4000, 3             # the sheet's values
    sigma, n_features, rff_seed, lam = 2.0, 50, 0, 1.0
    blocks = list(regression_blocks(n, d, block_size=block_size, seed=seed))
    X = np.vstack([b[0] for b in blocks])
    y = np.concatenate([b[1] for b in blocks])
    rff = RandomFourierFeatures(sigma=sigma, n_features=n_features,
                                random_state=rff_seed).fit(X[:1])
    Z = rff.transform(X)
    c = answer_array(coef, "coef", (Z.shape[1],))
    ref = ridge(Z, y, lam, method="svd")
    scale = 1e-6 * (1.0 + np.abs(ref).max())
    if np.allclose(c, ref, rtol=1e-6, atol=scale):
        print(f"Correct: the streamed normal equations give the ridge solution on all {n} rows "
              f"(max difference {np.abs(c - ref).max():.1e}).")
        return
    Zl, yl = rff.transform(blocks[-1][0]), blocks[-1][1]
    if np.allclose(c, ridge(Zl, yl, lam, method="svd"), rtol=1e-6, atol=scale):
        raise AssertionError("coef uses the last block only; add Z_b^T Z_b and Z_b^T y_b over "
                             "all blocks before solving")
    if np.allclose(c, ridge(Z, y, lam * n, method="svd"), rtol=1e-6, atol=scale):
        raise AssertionError("coef uses the penalty n * lam; the objective has no 1/n in front "
                             "of the squared errors")
    if np.allclose(c, ridge(Z, y, 1e-12, method="svd"), rtol=1e-4, atol=1e-3 * scale * 1e6):
        raise AssertionError("coef ignores the penalty; add lam to the diagonal of Z^T Z")
    raise AssertionError("coef differs from ridge on the whole feature matrix; draw the "
                         "frequencies once (fit the feature map on the first block) and reuse them")


# --------------------------------------------------------------------------- #
# exercise: a stationary function that is not positive definite
# --------------------------------------------------------------------------- #
def check_not_pd(x_epa: Any, min_eig: Any) -> None:
    """Check the student's points (their choice) against the Epanechnikov profile.

    Reference route: LAPACK's smallest eigenvalue (``scipy.linalg.eigh`` with a subset)
    and, independently, a failed Cholesky factorisation of the Gram matrix.
    """
    v = answer_scalar(min_eig, "min_eig")
    try:
        pts = np.asarray(x_epa, dtype=float).ravel()
    except (TypeError, ValueError):
        raise AssertionError("x_epa must be a 1-D numeric array of points") from None
    if x_epa is None or not 2 <= pts.size <= 30 or not np.all(np.isfinite(pts)):
        raise AssertionError("x_epa must hold between 2 and 30 finite points")
    gram = np.maximum(0.0, 1.0 - (pts[:, None] - pts[None, :]) ** 2)
    low = float(linalg.eigh(gram, eigvals_only=True, subset_by_index=[0, 0])[0])
    try:
        linalg.cholesky(gram + 1e-3 * np.eye(pts.size))
        factorises = True
    except linalg.LinAlgError:
        factorises = False
    if low > -1e-3 or factorises:
        raise AssertionError("the Gram matrix at x_epa has no eigenvalue below -1e-3")
    if abs(v - low) > 1e-8 * max(1.0, abs(low)):
        raise AssertionError("min_eig is not the smallest eigenvalue of the Gram matrix at x_epa")
    print(f"Correct: {pts.size} points with smallest eigenvalue {low:.4f}.")


# --------------------------------------------------------------------------- #
# exercise: how the worst error grows with the domain
# --------------------------------------------------------------------------- #
def check_domain_error(sup_err: Any, Ls: Any) -> None:
    """Check the worst RFF error over [0, L] for the sheet's L and frequencies.

    Reference route: the cosine-sine features at the grid points x (the error over all
    pairs of a grid equals the error over the differences, part 1), evaluated as
    ``max |z(x)^T z(0) - k(x, 0)|`` with the features built explicitly; tolerance 1e-9.
    """
    e = answer_array(sup_err, "sup_err", (4,))
    w = np.random.default_rng(0).standard_normal(100)
    ref = []
    for L in (1, 10, 100, 1000):
        d = np.arange(0, L + 1e-9, 0.005)
        z = np.hstack([np.cos(np.outer(d, w)), np.sin(np.outer(d, w))]) / np.sqrt(100)
        z0 = np.r_[np.ones(100), np.zeros(100)] / np.sqrt(100)          # z(0)
        ref.append(float(np.max(np.abs(z @ z0 - np.exp(-d**2 / 2)))))
    if not np.allclose(e, ref, rtol=1e-9, atol=1e-12):
        raise AssertionError("sup_err is not the largest absolute error over the grid "
                             "np.arange(0, L + 1e-9, 0.005) for each L, with the sheet's "
                             "frequencies (seed 0, D = 100)")
    print(f"Correct: the worst error grows from {ref[0]:.3f} to {ref[-1]:.3f}.")
