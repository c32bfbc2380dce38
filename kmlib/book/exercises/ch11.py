"""Self-checks for the exercises of chapter 11, "Kernel methods without labels".

The sheet is ``exercises/11_mean_embeddings.md``. A self-check tests properties that a right
answer must have, without computing the answer: the range of a squared MMD, the centring
and orthogonality of kernel PCA scores and the order of their squared norms, a width inside
the search interval, the form ``(1 + count) / (1 + B)`` of a permutation p-value, and for
the sheet's numbers a slow salted hash of the value rounded to a few significant digits
(:func:`~kmlib.book.exercises._answers.matches_digest`). It raises ``AssertionError`` with a
hint when a property fails and prints one line starting with ``Self-check passed:``
otherwise. The full check, which compares every answer with an independent computation,
runs when the lecturer grades the sheet.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from kmlib import kernels
from kmlib.datasets import two_moons

from ._answers import answer_array, answer_scalar, matches_digest

__all__ = [
    "gaussian_mmd_data",
    "kpca_data",
    "width_data",
    "hsic_data",
    "energy_data",
    "mcd_data",
    "check_gaussian_mmd",
    "check_kpca",
    "check_width",
    "check_hsic_test",
    "check_energy",
    "check_mcdiarmid",
]

GRADED = "the full check runs when the sheet is graded"
# digest(value, key, digits) of the sheet's answers; six significant digits unless DIGITS says
DIGESTS = {
    "mmd2_ab": "b81808a9cd9493213290a840c4fdfca50c1201caf327ab01b71ed08b0b12d4ed",
    "Z_train:nu0": "9790bd258e51bb259f1c0910f5b23cbd678292ed9831892e62ccbc6687f80c0f",
    "Z_train:nu1": "9b152f9c30153a9a59311ca3aa34daad4479741ba3779bc2dfb3091177b6ea2b",
    "Z_new:col0": "a12b6bbf112837876e79d8ae5f026c130654255d0d80db0681959d3413d34794",
    "Z_new:col1": "48217f17e126fe1185cdd489a82526baa12f7bd22b60e6250e5a80f4f5c9bc97",
    "mmd2_best": "f0681b298eae7335ca0f747b38a7ac3dab5d678b4e3bd9ca04e58a643d70eea8",
    "hsic_stat": "caf7307090a6c63a603b6ad6c3c8ac86876bdce60f7082d7e4a32d5cef3b967d",
    "null_hsic:sum": "72810b0eceb9416e7f8239a37b7cf8ae7f15759c376c4fc02093993f7017a518",
    "null_hsic:max": "71501bbeb817dca8e97ae19ea55028faf9f25d48f7bb97f640cc2f168ac43fb6",
    "energy": "ebeb00a53d718f007781e93843316cfbd68e1e353c7c002d71fa4d0769d88862",
    "u_stat": "e1fbf41cbb17fa52d856ba6c951d7442c15a6a3ebb26358d8443d914f63f0e87",
}
DIGITS: dict[str, int] = {}


def _known(value: float, key: str) -> bool:
    return matches_digest(value, DIGESTS[key], key, DIGITS.get(key, 6))


# --------------------------------------------------------------------------- #
# MMD between two Gaussian distributions
# --------------------------------------------------------------------------- #
def gaussian_mmd_data() -> tuple[np.ndarray, float, np.ndarray, float, float]:
    """``(m_p, s_p, m_q, s_q, sigma)``: P = N(m_p, s_p^2 I_3), Q = N(m_q, s_q^2 I_3), the width."""
    return np.zeros(3), 0.8, np.array([0.5, 0.0, -0.5]), 1.0, 1.5


def check_gaussian_mmd(mmd2_ab: Any) -> None:
    """Self-check of MMD^2(P, Q) for the Gaussian kernel and two Gaussian distributions.

    Properties: between 0 and 2 (the kernel lies in [0, 1]); the hash of the value.
    """
    v = answer_scalar(mmd2_ab, "mmd2_ab")
    if v < 0:
        raise AssertionError("mmd2_ab is a squared distance between mean embeddings: it cannot "
                             "be negative (an unbiased ESTIMATE can be; the population value "
                             "cannot)")
    if v > 2:
        raise AssertionError("with 0 <= k <= 1, MMD^2 = E k(X,X') + E k(Y,Y') - 2 E k(X,Y) is at "
                             "most 2; check the three expectations")
    if _known(v, "mmd2_ab"):
        print(f"Self-check passed: mmd2_ab is recognised ({GRADED}).")
        return
    raise AssertionError("mmd2_ab is not recognised: in E k(X, X') the variances add to "
                         "sigma^2 + s_a^2 + s_b^2, the prefactor carries the power d/2 with "
                         "d = 3, and the cross term E k(X, Y) counts twice")


# --------------------------------------------------------------------------- #
# kernel PCA by hand
# --------------------------------------------------------------------------- #
def kpca_data() -> tuple[np.ndarray, np.ndarray, float]:
    """``(X, X_new, sigma)``: 60 training points (two moons), 5 new points, the width."""
    X = two_moons(60, noise=0.1, random_state=np.random.default_rng(11))[0]
    X_new = np.random.default_rng(12).uniform(-1.0, 2.0, (5, 2))
    return X, X_new, 1.0


def check_kpca(Z_train: Any, Z_new: Any) -> None:
    """Self-check of the scores of the training and the new points on two kernel PCs.

    Properties: the training scores average to zero (centring), their columns are
    orthogonal, their squared norms (the eigenvalues nu_l of the centred Gram matrix)
    decrease and match the hashes; the column sums of squares of ``Z_new`` match theirs.
    Signs are free.
    """
    X, X_new, _ = kpca_data()
    n = len(X)
    Zt = answer_array(Z_train, "Z_train", (n, 2))
    Zn = answer_array(Z_new, "Z_new", (len(X_new), 2))
    nu = np.sum(Zt**2, axis=0)
    if np.abs(Zt.sum(axis=0)).max() > 1e-8 * max(1.0, float(np.sqrt(nu.max() * n))):
        raise AssertionError("the training scores do not average to zero: kernel PCA works with "
                             "the CENTRED Gram matrix Q K Q, Q = I - 11^T/n, not with K")
    if abs(float(Zt[:, 0] @ Zt[:, 1])) > 1e-8 * max(1.0, float(nu.max())):
        raise AssertionError("the two columns of Z_train are not orthogonal: the training scores "
                             "are sqrt(nu_l) a_l with orthonormal eigenvectors a_l")
    if nu[0] < nu[1]:
        raise AssertionError("order the components by decreasing eigenvalue, largest first")
    if not all(_known(v, f"Z_train:nu{i}") for i, v in enumerate(nu)):
        if np.allclose(nu, 1.0, rtol=1e-8):
            raise AssertionError("the columns of Z_train have norm 1: those are the unit "
                                 "eigenvectors a_l; the scores are K~ alpha_l = sqrt(nu_l) a_l")
        if all(_known(v * n, f"Z_train:nu{i}") for i, v in enumerate(nu)):
            raise AssertionError("the squared norms of your scores are nu_l / n: the scores use "
                                 "the centred Gram matrix K~ itself, K~ alpha_l with "
                                 "alpha_l^T K~ alpha_l = 1, not K~ / n")
        if all(_known(v / n, f"Z_train:nu{i}") for i, v in enumerate(nu)):
            raise AssertionError("the squared norms of your scores are n nu_l: normalise "
                                 "alpha_l = a_l / sqrt(nu_l) with the eigenvalues of K~, "
                                 "not of K~ / n")
        raise AssertionError("Z_train is not the scores on the two leading kernel principal "
                             "components: eigendecompose Q K Q (Gaussian kernel, sigma = 1)")
    cols = np.sum(Zn**2, axis=0)
    if not all(_known(v, f"Z_new:col{i}") for i, v in enumerate(cols)):
        raise AssertionError("Z_new is not recognised: centre the kernel vectors of the new "
                             "points with the TRAINING means, k~_x = Q (k_x - K 1 / n), then "
                             "multiply by alpha_l = a_l / sqrt(nu_l)")
    # signs: with alpha_l = Z_train[:, l] / nu_l taken from the student's own training scores,
    # the new scores (k_x - K 1 / n)^T alpha_l must point the same way as Z_new[:, l]
    k = kernels.gaussian(kpca_data()[2])
    implied = (k(X_new, X) - k(X).mean(axis=0)) @ (Zt / nu)
    if np.any(np.sum(Zn * implied, axis=0) <= 0):
        raise AssertionError("Z_new has the opposite sign from Z_train in some column: the "
                             "sign of each component is free, but the new points must use the "
                             "same alpha_l as the training points")
    print(f"Self-check passed: centred, orthogonal training scores with the right eigenvalues, "
          f"and recognised scores of the new points ({GRADED}).")


# --------------------------------------------------------------------------- #
# the width that maximises MMD
# --------------------------------------------------------------------------- #
def width_data() -> tuple[float, float, float]:
    """``(a, lo, hi)``: Q_a = (N(-a, 1 - a^2) + N(a, 1 - a^2)) / 2 and the search interval."""
    return 0.8, 0.05, 3.0


def check_width(sigma_best: Any, mmd2_best: Any) -> None:
    """Self-check of the width maximising MMD^2(N(0, 1), Q_a) and of the maximum.

    Properties: the width lies inside the search interval, the maximum is positive and at
    most 2, and the hash of the maximum (six significant digits). The width itself is checked
    only when graded: four digits of a number in (0.05, 3) are too few to hash safely.
    """
    _, lo, hi = width_data()
    s = answer_scalar(sigma_best, "sigma_best")
    v = answer_scalar(mmd2_best, "mmd2_best")
    if not lo < s < hi:
        raise AssertionError(f"sigma_best must lie inside the search interval ({lo}, {hi})")
    if not 0 < v <= 2:
        raise AssertionError("mmd2_best is a squared MMD of two different distributions under a "
                             "Gaussian kernel: positive and at most 2")
    if not _known(v, "mmd2_best"):
        raise AssertionError("mmd2_best is not recognised: it is the value of MMD^2 at the best "
                             "width, E k(X,X') + E k(Y,Y') - 2 E k(X,Y) with the mixture's four "
                             "pairs of components, for a = 0.8")
    print(f"Self-check passed: mmd2_best is recognised and sigma_best lies in the interval; "
          f"the maximum is flat, so locate sigma_best with a tight tolerance ({GRADED}).")


# --------------------------------------------------------------------------- #
# HSIC and its permutation test
# --------------------------------------------------------------------------- #
def hsic_data() -> tuple[np.ndarray, np.ndarray, np.ndarray, float, float]:
    """``(x, y, perms, sigma_x, sigma_y)``: 40 pairs, 199 permutations, the two widths."""
    rng = np.random.default_rng(0)
    x = rng.uniform(-1.0, 1.0, (40, 1))
    y = np.cos(np.pi * x) + 0.8 * rng.standard_normal((40, 1))
    perms = np.array([rng.permutation(40) for _ in range(199)])
    return x, y, perms, 0.5, 0.5


def check_hsic_test(hsic_stat: Any, null_hsic: Any, p_value: Any) -> None:
    """Self-check of the biased HSIC statistic, its permutation null and the p-value.

    Properties: the statistic and every null value are nonnegative (squared MMDs); the
    statistic, and the sum and the largest of the null values, match their hashes (also
    after the usual rescalings are undone); the p-value is ``(1 + c) / (1 + B)`` with ``c``
    the number of the student's own null values at or above the student's statistic. The
    p-value itself is never compared with a hidden value.
    """
    x, _, perms, _, _ = hsic_data()
    n, B = len(x), len(perms)
    s = answer_scalar(hsic_stat, "hsic_stat")
    null = answer_array(null_hsic, "null_hsic", (B,))
    p = answer_scalar(p_value, "p_value")
    if s < 0 or np.any(null < 0):
        raise AssertionError("the biased HSIC tr(K Q L Q) / n^2 is a squared MMD: neither "
                             "`hsic_stat` nor a value of `null_hsic` can be negative")
    tol = 1e-9 * s
    low = (1 + int(np.sum(null >= s + tol))) / (B + 1)        # ties within round-off may go
    high = (1 + int(np.sum(null >= s - tol))) / (B + 1)       # either way
    if not low - 1e-12 <= p <= high + 1e-12 or abs(p * (B + 1) - round(p * (B + 1))) > 1e-9:
        raise AssertionError(f"p_value is not (1 + #{{b : null_hsic[b] >= hsic_stat}}) / (1 + B) "
                             f"with B = {B}, computed from your own `null_hsic` and `hsic_stat`")
    if not _known(s, "hsic_stat"):
        if _known(s * (n - 1) ** 2 / n**2, "hsic_stat"):
            raise AssertionError("you divided by (n - 1)^2; the book's biased HSIC is "
                                 "tr(K Q L Q) / n^2")
        if _known(s / n**2, "hsic_stat"):
            raise AssertionError("divide the trace by n^2")
        raise AssertionError("hsic_stat is not recognised: tr(K Q L Q) / n^2 with Gaussian "
                             "kernels of width 0.5 on x and on y, and Q = I - 11^T / n")
    if not (_known(float(np.sum(null)), "null_hsic:sum")
            and _known(float(np.max(null)), "null_hsic:max")):
        raise AssertionError("null_hsic is not recognised: null_hsic[b] is the statistic of "
                             "(x, y[perms[b]]), with x fixed and the rows and columns of L "
                             "permuted by perms[b], in the order of the rows of `perms`")
    print(f"Self-check passed: hsic_stat and null_hsic are recognised and p_value follows from "
          f"them ({GRADED}).")


# --------------------------------------------------------------------------- #
# energy distance and the anchored kernel
# --------------------------------------------------------------------------- #
def energy_data() -> tuple[np.ndarray, np.ndarray]:
    """``(x, y)``: 50 points of N(0, I_2) and 60 points of N((0.5, 0), I_2)."""
    rng = np.random.default_rng(21)
    return rng.standard_normal((50, 2)), rng.standard_normal((60, 2)) + np.array([0.5, 0.0])


def check_energy(energy: Any, mmd2_anchor: Any) -> None:
    """Self-check of the sample energy distance and the V-statistic with the anchored kernel.

    Properties: both are nonnegative, they agree to ``1e-9`` relative (the exercise's
    identity holds on every sample), and the energy distance matches its hash.
    """
    e = answer_scalar(energy, "energy")
    v = answer_scalar(mmd2_anchor, "mmd2_anchor")
    if e < 0 or v < 0:
        raise AssertionError("both `energy` and `mmd2_anchor` are squared norms of a difference "
                             "of mean embeddings here, so neither can be negative")
    if abs(e - v) > 1e-9 * max(abs(e), abs(v), 1e-300):
        raise AssertionError("`energy` and `mmd2_anchor` differ by more than 1e-9 relative, but "
                             "part 1 shows they are equal on every sample: check the weights "
                             "1/m and -1/n and that both use the Euclidean distance itself")
    if not _known(e, "energy"):
        raise AssertionError("`energy` is not recognised: 2 mean ||x_i - y_j|| - "
                             "mean ||x_i - x_j|| - mean ||y_i - y_j|| over ALL pairs, the zero "
                             "diagonal included")
    print(f"Self-check passed: energy equals mmd2_anchor and is recognised ({GRADED}).")


# --------------------------------------------------------------------------- #
# a McDiarmid test for the unbiased statistic
# --------------------------------------------------------------------------- #
def mcd_data() -> tuple[np.ndarray, np.ndarray]:
    """``(x, y)``: two samples of 100 points of N(0, 1), drawn independently."""
    rng = np.random.default_rng(22)
    return rng.standard_normal((100, 1)), rng.standard_normal((100, 1))


def check_mcdiarmid(eps_mcd: Any, u_stat: Any) -> None:
    """Self-check of the McDiarmid threshold and of the unbiased statistic on the sheet's data.

    Properties: the threshold is positive and at most 2 (``|U| <= 2`` for a kernel in
    ``[0, 1]``), so its value is left to the full check; ``u_stat`` matches its hash.
    """
    e = answer_scalar(eps_mcd, "eps_mcd")
    u = answer_scalar(u_stat, "u_stat")
    if not 0 < e:
        raise AssertionError("eps_mcd is a threshold for a deviation: it must be positive")
    if abs(u) > 2:
        raise AssertionError("with 0 <= k <= 1 the unbiased statistic lies in [-2, 2]")
    if not _known(u, "u_stat"):
        raise AssertionError("u_stat is not recognised: the unbiased MMD^2 drops the diagonal "
                             "of K_XX and K_YY, divides by m (m - 1) and n (n - 1), and keeps "
                             "all of K_XY (Gaussian kernel, sigma = 1)")
    print(f"Self-check passed: eps_mcd is in range and u_stat is recognised ({GRADED}).")
