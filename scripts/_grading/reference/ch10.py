"""The lecturer's full checks of chapter 10 on negative-definite kernels (never shipped).

The chapter is "Negative-definite kernels: Schoenberg's theorem and embeddings of metrics"
(``exercises/10_negative_definite.md``); the students' self-checks of the same names, in
:mod:`kmlib.book.exercises.ch10`, test only properties of an answer.

Every check here recomputes the answer by a route different from the one the exercise
suggests (a Helmert basis of the sum-zero space instead of a null-space basis, a
Householder test from :func:`kmlib.kernels.is_nds`, LAPACK's ``evr`` driver for a single
eigenvalue, the expansion of ``(x - x')^4`` in moments, pairwise distances from scipy),
raises ``AssertionError`` with a hint when the answer is missing or wrong, without
printing the reference answer, and prints one line starting with ``Correct:`` when it is
right.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from scipy import linalg
from scipy.spatial.distance import cdist

from kmlib import kernels
from kmlib.book import negdef
from kmlib.book.exercises._answers import answer_array
from kmlib.book.exercises.ch10 import CANDIDATES, candidate_grams

__all__ = [
    "check_nds_table",
    "check_witness",
    "check_exp_power_min_eigs",
    "check_embedding",
    "check_circle_witness",
]

_NDS_TOL = 1e-9


def _bools(answer: Any, name: str, n: int) -> np.ndarray:
    if answer is None:
        raise AssertionError(f"`{name}` is None: assign your answer to `{name}` first")
    a = np.asarray(answer)
    if a.shape != (n,):
        raise AssertionError(f"`{name}` must have shape ({n},); got shape {a.shape}")
    if a.dtype != bool:
        raise AssertionError(f"`{name}` must hold True/False values; got dtype {a.dtype}")
    return a


# --------------------------------------------------------------------------- #
# exercise: negative definite or not?
# --------------------------------------------------------------------------- #
def check_nds_table(top: Any, nds: Any, x: Any) -> None:
    """Check the largest sum-zero eigenvalues ``top`` and the NDS verdicts ``nds``.

    The reference restricts each Gram matrix to the sum-zero hyperplane with the
    Helmert basis of :func:`kmlib.book.negdef.sum_zero_basis`; the verdicts are
    cross-checked with the Householder test of :func:`kmlib.kernels.is_nds`.
    """
    grams = candidate_grams(x)
    m = len(grams)
    t = answer_array(top, "top", (m,))
    v = _bools(nds, "nds", m)
    ref = np.array([negdef.sum_zero_top_eigenvalue(K) for K in grams])
    scale = np.array([max(1.0, float(np.abs(K).max())) for K in grams])
    close = np.abs(t - ref) <= 1e-8 * scale
    if not close.all():
        whole = np.array([np.linalg.eigvalsh(K)[-1] for K in grams])
        if np.allclose(t, whole, rtol=1e-8, atol=1e-10):
            raise AssertionError(
                "`top` holds the largest eigenvalues of the whole Gram matrices; restrict "
                "each matrix to the sum-zero vectors first: B.T @ K @ B with B an "
                "orthonormal basis of {c : sum(c) = 0}"
            )
        if np.allclose(t, np.maximum(ref, 0.0), rtol=1e-8, atol=1e-10):
            raise AssertionError(
                "`top` is never negative: the centred matrix Q K Q has an extra eigenvalue 0 "
                "(along the ones vector) that hides negative values; use B.T @ K @ B with an "
                "orthonormal basis B of the sum-zero vectors, an (n - 1) x (n - 1) matrix"
            )
        bad = [CANDIDATES[i][0] for i in np.flatnonzero(~close)]
        raise AssertionError(
            f"`top` is wrong for {', '.join(bad)}: check the Gram matrix K_ij = k(x_i, x_j) "
            "of that candidate on the given points"
        )
    truth = ref <= _NDS_TOL
    householder = np.array([kernels.is_nds(K, tol=_NDS_TOL) for K in grams])
    assert np.array_equal(truth, householder), "internal: the two NDS tests disagree"
    wrong = int(np.sum(v != truth))
    if wrong:
        raise AssertionError(
            f"{wrong} of your {m} verdicts in `nds` are wrong: a candidate is NDS exactly when "
            f"its `top` is <= {_NDS_TOL:g} (a positive value means some zero-sum c has c^T K c > 0)"
        )
    print(f"Correct: {int(truth.sum())} of the {m} candidates are negative definite on these "
          "points.")


def check_witness(c_bad: Any, x: Any) -> None:
    """Check a zero-sum vector with ``c^T K c > 0`` for ``(x - x')^4`` on the points ``x``.

    Reference: no Gram matrix; for ``sum(c) = 0`` the binomial expansion of ``(x_i - x_j)^4``
    leaves ``c^T K c = 6 m_2^2 - 8 m_1 m_3`` with the moments ``m_k = sum_i c_i x_i^k``.
    """
    pts = np.asarray(x, dtype=float).ravel()
    if pts.size < 3:
        raise ValueError(f"x must be a 1-D array of at least 3 points; got shape {pts.shape}")
    c = answer_array(c_bad, "c_bad", (pts.size,))
    norm = float(np.linalg.norm(c))
    if norm == 0.0:
        raise AssertionError("`c_bad` is the zero vector; a witness must be non-zero")
    if abs(float(c.sum())) > 1e-10 * norm * np.sqrt(pts.size):
        raise AssertionError(
            f"`c_bad` must sum to zero (it sums to {c.sum():.3g}); the definition only "
            "constrains zero-sum coefficient vectors"
        )
    m1, m2, m3 = (float(c @ pts**k) for k in (1, 2, 3))
    q = 6.0 * m2**2 - 8.0 * m1 * m3 + 2.0 * float(c.sum()) * float(c @ pts**4)
    scale = max(1.0, float(np.ptp(pts)) ** 4)
    if q <= 1e-10 * norm**2 * scale:
        raise AssertionError(
            "c_bad^T K c_bad is not positive, so `c_bad` does not show that (x - x')^4 fails to "
            "be NDS; look for a direction in which the restricted matrix B^T K B is positive "
            "and map it back by B"
        )
    print(f"Correct: the zero-sum vector gives c^T K c = {q:.4g} > 0, so (x - x')^4 is not NDS.")


# --------------------------------------------------------------------------- #
# exercise: exp(-t ||x - x'||^a)
# --------------------------------------------------------------------------- #
def _exp_power_min(X: np.ndarray, a: float, t: float) -> float:
    G = np.exp(-t * cdist(X, X) ** a)
    n = len(G)
    return float(linalg.eigh(G, eigvals_only=True, subset_by_index=[0, 0], driver="evr")[0]
                 if n > 1 else G[0, 0])


def check_exp_power_min_eigs(min_eig: Any, pd_all: Any, X: Any, exponents: Any, ts: Any) -> None:
    """Check ``min_eig[i, j]`` = smallest eigenvalue of ``exp(-ts[j] ||x - x'||^exponents[i])``.

    The reference uses scipy's pairwise distances and LAPACK's ``evr`` driver for
    the single smallest eigenvalue.  ``pd_all[i]`` must say whether the kernel
    is PSD (smallest eigenvalue >= -1e-10) for every ``t`` in ``ts``.
    """
    X = np.asarray(X, dtype=float)
    a = np.asarray(exponents, dtype=float)
    t = np.asarray(ts, dtype=float)
    M = answer_array(min_eig, "min_eig", (a.size, t.size))
    v = _bools(pd_all, "pd_all", a.size)
    ref = np.array([[_exp_power_min(X, ai, tj) for tj in t] for ai in a])
    if not np.allclose(M, ref, rtol=1e-8, atol=1e-9):
        sq = np.array([[_exp_power_min(X, 2 * ai, tj) for tj in t] for ai in a])
        if np.allclose(M, sq, rtol=1e-8, atol=1e-9):
            raise AssertionError(
                "these are the values for ||x - x'||^(2a): raise the distance, not the squared "
                "distance, to the power a"
            )
        plain = np.array([[_exp_power_min(X, 1.0, tj) for tj in t] for _ in a])
        if np.allclose(M, plain, rtol=1e-8, atol=1e-9):
            raise AssertionError("every row is the same: the exponent a is missing from the kernel")
        if np.allclose(M, ref.T.reshape(M.shape), rtol=1e-8, atol=1e-9) and a.size != t.size:
            raise AssertionError("rows must correspond to exponents a and columns to values of t")
        raise AssertionError(
            "`min_eig` differs from the smallest eigenvalues of exp(-t ||x_i - x_j||^a); check "
            "the distances (Euclidean, between rows of X) and that you take the smallest "
            "eigenvalue"
        )
    truth = np.all(ref >= -1e-10, axis=1)
    wrong = int(np.sum(v != truth))
    if wrong:
        raise AssertionError(
            f"{wrong} entries of `pd_all` are wrong: an exponent passes when the smallest "
            "eigenvalue is >= -1e-10 for every t"
        )
    print(f"Correct: exp(-t ||x - x'||^a) is PSD at every t for {int(truth.sum())} of the "
          f"{a.size} exponents, as Schoenberg's theorem predicts.")


# --------------------------------------------------------------------------- #
# exercise: embedding the l1 distance
# --------------------------------------------------------------------------- #
def check_embedding(Phi: Any, X: Any) -> None:
    """Check rows ``Phi_i`` with ``||Phi_i - Phi_j||^2 = ||x_i - x_j||_1``.

    The reference compares scipy's pairwise Euclidean distances of ``Phi`` with
    scipy's ``cityblock`` distances of ``X``; any dimension of ``Phi`` is accepted.
    """
    X = np.asarray(X, dtype=float)
    n = len(X)
    if Phi is None:
        raise AssertionError("`Phi` is None: assign your answer to `Phi` first")
    P = np.asarray(Phi, dtype=float)
    if P.ndim != 2 or P.shape[0] != n:
        raise AssertionError(f"`Phi` must have shape ({n}, r), one row per point; got {P.shape}")
    if not np.all(np.isfinite(P)):
        raise AssertionError("`Phi` contains NaN or infinite values")
    K = cdist(X, X, "cityblock")
    D2 = cdist(P, P) ** 2
    tol = 1e-9 * max(1.0, float(K.max()))
    if np.allclose(D2, K, atol=tol):
        print(f"Correct: {n} points in R^{P.shape[1]} whose squared distances are the l1 "
              "distances of X.")
        return
    if np.allclose(D2, 2 * K, atol=2 * tol):
        raise AssertionError(
            "the squared distances are twice the kernel: ||Phi'(x) - Phi'(x')||^2 = 2 k(x, x'), "
            "so factor -Q K Q / 2 (not -Q K Q), with Q the centring matrix"
        )
    raise AssertionError(
        "the squared distances between the rows of `Phi` do not reproduce ||x_i - x_j||_1; "
        "factor -Q K Q / 2 = U diag(d) U^T with Q = I - 1 1^T / n and K the l1 distance "
        "matrix, and take U diag(sqrt(d)) over the positive d"
    )


# --------------------------------------------------------------------------- #
# exercise: the geodesic distance on the circle
# --------------------------------------------------------------------------- #
def check_circle_witness(theta_bad: Any, c_circle: Any, t_bad: Any) -> None:
    """Check the student's counterexample for the squared geodesic distance on the circle.

    The answer is data the student chooses, so the check verifies the choice. Reference
    route: geodesic distances from the angle of ``exp(i (theta_i - theta_j))`` (no modular
    arithmetic) and the smallest eigenvalue from LAPACK's ``eigh``.
    """
    if theta_bad is None:
        raise AssertionError("`theta_bad` is None: assign your angles to `theta_bad` first")
    try:
        theta = np.asarray(theta_bad, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError("`theta_bad` must be an array of numbers") from None
    if not np.all(np.isfinite(theta)):
        raise AssertionError("`theta_bad` must hold finite numbers")
    if theta.ndim != 1 or theta.size < 2:
        raise AssertionError("`theta_bad` must be a 1-D array of at least two angles")
    c = answer_array(c_circle, "c_circle", theta.shape)
    norm = float(np.linalg.norm(c))
    if norm == 0.0:
        raise AssertionError("`c_circle` is the zero vector; a witness must be non-zero")
    if abs(float(c.sum())) > 1e-10 * norm * np.sqrt(c.size):
        raise AssertionError("`c_circle` must sum to zero")
    D2 = np.abs(np.angle(np.exp(1j * np.subtract.outer(theta, theta)))) ** 2
    quad = float(c @ D2 @ c)
    if quad <= 1e-10 * norm**2 * np.pi**2:
        raise AssertionError("c_circle^T D^2 c_circle is not positive for the squared geodesic "
                             "distances of `theta_bad`")
    t = float(answer_array(t_bad, "t_bad", ()))
    if not t > 0.0:
        raise AssertionError("`t_bad` must be a positive number")
    low = float(linalg.eigh(np.exp(-t * D2), eigvals_only=True, subset_by_index=[0, 0])[0])
    if low >= -1e-8:
        raise AssertionError("the Gram matrix of exp(-t_bad d^2) on `theta_bad` has no eigenvalue "
                             "below -1e-8")
    print(f"Correct: c^T D^2 c = {quad:.4g} > 0 and exp(-t d^2) has the eigenvalue {low:.3g} < 0.")
