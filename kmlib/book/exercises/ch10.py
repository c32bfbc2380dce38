"""Data and self-checks for the exercises of chapter 10 on negative-definite kernels.

The chapter is "Negative-definite kernels: Schoenberg's theorem and embeddings of metrics"
(``exercises/10_negative_definite.md``).

Each ``check_*`` function is a *self-check*: it tests properties a right answer must
have without computing the answer.  An eigenvalue is certified rather than recomputed:
``t`` is the largest eigenvalue of a symmetric ``M`` exactly when ``(t + d) I - M`` is
positive definite and ``(t - d) I - M`` is not, for a small ``d`` (two Cholesky
attempts), and the smallest one likewise.  A witness must sum to zero and give a positive
quadratic form; an embedding must reproduce the distances.  A failed property raises
``AssertionError`` with a hint that does not print a reference value; when all hold, one
line starting with ``Self-check passed:`` is printed.  The full check against the
reference runs when the sheet is graded.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ._answers import answer_array

__all__ = [
    "CANDIDATES",
    "candidate_grams",
    "check_nds_table",
    "check_witness",
    "check_exp_power_min_eigs",
    "check_embedding",
    "check_circle_witness",
]

#: The six candidate functions of the "negative definite or not" exercise, in order.
CANDIDATES: tuple[tuple[str, Callable[[np.ndarray, np.ndarray], np.ndarray]], ...] = (
    ("|x - x'|^1.5", lambda s, t: np.abs(s - t) ** 1.5),
    ("(x - x')^4", lambda s, t: (s - t) ** 4),
    ("min(x, x')", np.minimum),
    ("max(x, x')", np.maximum),
    ("log(1 + (x - x')^2)", lambda s, t: np.log1p((s - t) ** 2)),
    ("exp(|x - x'|) - 1", lambda s, t: np.expm1(np.abs(s - t))),
)


def _points_1d(x: Any) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    if x.ndim != 1 or x.size < 3:
        raise ValueError(f"x must be a 1-D array of at least 3 points; got shape {x.shape}")
    return x


def candidate_grams(x: Any) -> list[np.ndarray]:
    """Gram matrices of the six :data:`CANDIDATES` on the points ``x`` (1-D)."""
    x = _points_1d(x)
    return [f(x[:, None], x[None, :]) for _, f in CANDIDATES]


def _passed(what: str) -> None:
    print(f"Self-check passed: {what}; the full check runs when the sheet is graded.")


def _verdicts(answer: Any, name: str, count: int) -> np.ndarray:
    """The answer ``name`` as a boolean array of length ``count``."""
    if answer is None:  # the stub
        raise AssertionError(f"`{name}` is None: assign your answer to `{name}` first")
    flags = np.asarray(answer)
    if flags.shape != (count,):
        raise AssertionError(f"`{name}` must have shape ({count},); got shape {flags.shape}")
    if flags.dtype.kind != "b":
        raise AssertionError(f"`{name}` must hold True/False values; got dtype {flags.dtype}")
    return flags


def _positive_definite(A: np.ndarray) -> bool:
    try:
        np.linalg.cholesky(A)
    except np.linalg.LinAlgError:
        return False
    return True


def _is_top_eigenvalue(M: np.ndarray, t: float, d: float, sum_zero: bool = False) -> bool:
    """Whether ``t`` is the largest eigenvalue of the symmetric ``M`` to within ``d``.

    With ``sum_zero``, ``M`` is ``Q K Q`` and only its restriction to the sum-zero vectors
    counts: a multiple of the projection on the ones vector, large enough to keep that
    direction positive, is added before the two Cholesky attempts.
    """
    n = M.shape[0]
    shifted = -M
    if sum_zero:
        shifted = shifted + (2.0 * abs(t) + 2.0 * d + 1.0) * np.full((n, n), 1.0 / n)
    eye = np.eye(n)
    return (_positive_definite(shifted + (t + d) * eye)
            and not _positive_definite(shifted + (t - d) * eye))


# --------------------------------------------------------------------------- #
# exercise: negative definite or not?
# --------------------------------------------------------------------------- #
def check_nds_table(top: Any, nds: Any, x: Any) -> None:
    """Self-check the largest sum-zero eigenvalues ``top`` and the NDS verdicts ``nds``.

    Property: ``top[i]`` is certified as the largest eigenvalue of each Gram matrix on
    the sum-zero vectors, ``Q K Q`` restricted to ``{c : sum(c) = 0}`` with the centring
    matrix ``Q`` (two Cholesky attempts each, to within ``1e-8`` times the largest entry);
    ``nds`` must follow from ``top`` by the rule ``top <= 1e-9``.
    """
    grams = candidate_grams(np.asarray(x, dtype=float))
    count = len(grams)
    t = answer_array(top, "top", (count,))
    v = _verdicts(nds, "nds", count)
    n = grams[0].shape[0]
    centre = np.eye(n) - np.full((n, n), 1.0 / n)
    slack = [1e-8 * max(1.0, float(np.max(np.abs(K)))) for K in grams]
    ok = [_is_top_eigenvalue(centre @ K @ centre, ti, di, sum_zero=True)
          for K, ti, di in zip(grams, t, slack, strict=True)]
    if not all(ok):
        if all(_is_top_eigenvalue(K, ti, di) for K, ti, di in zip(grams, t, slack, strict=True)):
            raise AssertionError(
                "`top` holds the largest eigenvalues of the whole Gram matrices; restrict "
                "each matrix to the sum-zero vectors first: B.T @ K @ B with B an "
                "orthonormal basis of {c : sum(c) = 0}"
            )
        if all(_is_top_eigenvalue(centre @ K @ centre, ti, di)
               for K, ti, di in zip(grams, t, slack, strict=True)):
            raise AssertionError(
                "`top` is never negative: the centred matrix Q K Q has an extra eigenvalue 0 "
                "(along the ones vector) that hides negative values; use B.T @ K @ B with an "
                "orthonormal basis B of the sum-zero vectors, an (n - 1) x (n - 1) matrix"
            )
        wrong = ", ".join(CANDIDATES[i][0] for i, good in enumerate(ok) if not good)
        raise AssertionError(
            f"`top` is wrong for {wrong}: it is not the largest eigenvalue of that Gram "
            "matrix K_ij = k(x_i, x_j) restricted to the sum-zero vectors"
        )
    mistakes = int(np.count_nonzero(v != (t <= 1e-9)))
    if mistakes:
        raise AssertionError(
            f"{mistakes} of your {count} verdicts in `nds` are wrong: a candidate is NDS "
            "exactly when its `top` is <= 1e-9 (a positive value means some zero-sum c has "
            "c^T K c > 0)"
        )
    _passed("each top[i] is the largest eigenvalue on the sum-zero vectors and nds follows "
            "from top")


def check_witness(c_bad: Any, x: Any) -> None:
    """Self-check a zero-sum vector with ``c^T K c > 0`` for ``(x - x')^4`` on the points ``x``.

    The properties are the whole answer: non-zero, zero sum, a positive quadratic form.
    """
    pts = _points_1d(x)
    c = answer_array(c_bad, "c_bad", pts.shape)
    size = float(np.sqrt(c @ c))
    if not size > 0.0:
        raise AssertionError("`c_bad` is the zero vector; a witness must be non-zero")
    if abs(float(np.sum(c))) > 1e-10 * size * np.sqrt(pts.shape[0]):
        raise AssertionError("`c_bad` must sum to zero; the definition only constrains "
                             "zero-sum coefficient vectors")
    quartic = np.subtract.outer(pts, pts) ** 4
    if float(c @ quartic @ c) <= 1e-10 * size**2 * max(1.0, float(quartic.max())):
        raise AssertionError(
            "c_bad^T K c_bad is not positive, so `c_bad` does not show that (x - x')^4 fails to "
            "be NDS; look for a direction in which the restricted matrix B^T K B is positive "
            "and map it back by B"
        )
    _passed("c_bad sums to zero and c_bad^T K c_bad > 0 for (x - x')^4")


# --------------------------------------------------------------------------- #
# exercise: exp(-t ||x - x'||^a)
# --------------------------------------------------------------------------- #
def _euclidean(X: np.ndarray) -> np.ndarray:
    sq = np.einsum("ij,ij->i", X, X)
    return np.sqrt(np.maximum(sq[:, None] + sq[None, :] - 2.0 * X @ X.T, 0.0))


def _is_min_eigenvalue(G: np.ndarray, value: float, d: float) -> bool:
    """Whether ``value`` is the smallest eigenvalue of ``G`` to within ``d`` (Cholesky twice)."""
    eye = np.eye(G.shape[0])
    return _positive_definite(G - (value - d) * eye) and not _positive_definite(
        G - (value + d) * eye)


def _min_eigs_certified(M: np.ndarray, R: np.ndarray, powers: np.ndarray, ts: np.ndarray
                        ) -> bool:
    return all(_is_min_eigenvalue(np.exp(-tj * R ** ai), M[i, j], 1e-9 + 1e-8 * abs(M[i, j]))
               for i, ai in enumerate(powers) for j, tj in enumerate(ts))


def check_exp_power_min_eigs(min_eig: Any, pd_all: Any, X: Any, exponents: Any, ts: Any) -> None:
    """Self-check ``min_eig[i, j]``, the smallest eigenvalue of ``exp(-ts[j] ||x - x'||^a_i)``.

    Property: each entry is certified as the smallest eigenvalue by two Cholesky attempts
    (to within ``1e-9 + 1e-8 |value|``); ``pd_all[i]`` must say whether row ``i`` is
    ``>= -1e-10`` for every ``t``.
    """
    pts = np.asarray(X, dtype=float)
    powers = np.asarray(exponents, dtype=float)
    scales = np.asarray(ts, dtype=float)
    M = answer_array(min_eig, "min_eig", (powers.size, scales.size))
    flags = _verdicts(pd_all, "pd_all", powers.size)
    R = _euclidean(pts)
    if not _min_eigs_certified(M, R, powers, scales):
        if _min_eigs_certified(M, R, 2.0 * powers, scales):
            raise AssertionError(
                "these are the values for ||x - x'||^(2a): raise the distance, not the squared "
                "distance, to the power a"
            )
        if powers.size > 1 and np.all(M == M[:1]):
            raise AssertionError("every row is the same: the exponent a is missing from the kernel")
        raise AssertionError(
            "`min_eig` differs from the smallest eigenvalues of exp(-t ||x_i - x_j||^a); check "
            "the distances (Euclidean, between rows of X), that rows are exponents and columns "
            "values of t, and that you take the smallest eigenvalue"
        )
    mistakes = int(np.count_nonzero(flags != np.all(M >= -1e-10, axis=1)))
    if mistakes:
        raise AssertionError(
            f"{mistakes} entries of `pd_all` are wrong: an exponent passes when the smallest "
            "eigenvalue is >= -1e-10 for every t"
        )
    _passed("every min_eig[i, j] is the smallest eigenvalue of its Gram matrix and pd_all "
            "follows from min_eig")


# --------------------------------------------------------------------------- #
# exercise: embedding the l1 distance
# --------------------------------------------------------------------------- #
def check_embedding(Phi: Any, X: Any) -> None:
    """Self-check rows ``Phi_i`` with ``||Phi_i - Phi_j||^2 = ||x_i - x_j||_1``.

    The property is the whole answer; any number of columns is accepted.
    """
    pts = np.asarray(X, dtype=float)
    n = pts.shape[0]
    if Phi is None:  # the stub
        raise AssertionError("`Phi` is None: assign your answer to `Phi` first")
    rows = np.asarray(Phi, dtype=float)
    if rows.ndim != 2 or rows.shape[0] != n:
        raise AssertionError(f"`Phi` must have shape ({n}, r), one row per point; "
                             f"got {rows.shape}")
    if not np.isfinite(rows).all():
        raise AssertionError("`Phi` contains NaN or infinite values")
    l1 = np.abs(pts[:, None, :] - pts[None, :, :]).sum(axis=2)
    diff = rows[:, None, :] - rows[None, :, :]
    squared = np.einsum("ijk,ijk->ij", diff, diff)
    atol = 1e-9 * max(1.0, float(l1.max()))
    if np.allclose(squared, l1, rtol=0.0, atol=atol):
        _passed(f"the squared distances between the {n} rows of Phi are the l1 distances of X")
        return
    if np.allclose(squared, 2.0 * l1, rtol=0.0, atol=2.0 * atol):
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
def _geodesic_sq(theta: np.ndarray) -> np.ndarray:
    gap = np.abs(np.subtract.outer(theta, theta)) % (2.0 * np.pi)
    return np.minimum(gap, 2.0 * np.pi - gap) ** 2


def check_circle_witness(theta_bad: Any, c_circle: Any, t_bad: Any) -> None:
    """Self-check the student's counterexample for the squared geodesic distance.

    The answer is a choice of data, so the properties are the whole answer: ``c_circle``
    is non-zero and sums to zero, ``c^T D^2 c > 0`` for the squared geodesic distances of
    the angles ``theta_bad``, and the Gram matrix of ``exp(-t_bad d^2)`` on those angles is
    not positive semidefinite (``G + 1e-8 I`` has no Cholesky factor).
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
        raise AssertionError("`theta_bad` must be a 1-D array of at least two angles; got shape "
                             f"{theta.shape}")
    c = answer_array(c_circle, "c_circle", theta.shape)
    size = float(np.sqrt(c @ c))
    if not size > 0.0:
        raise AssertionError("`c_circle` is the zero vector; a witness must be non-zero")
    if abs(float(np.sum(c))) > 1e-10 * size * np.sqrt(c.size):
        raise AssertionError("`c_circle` must sum to zero; the definition of NDS only "
                             "constrains zero-sum coefficient vectors")
    D2 = _geodesic_sq(theta)
    if float(c @ D2 @ c) <= 1e-10 * size**2 * np.pi**2:
        raise AssertionError("c_circle^T D^2 c_circle is not positive for the squared geodesic "
                             "distances of `theta_bad` (up to 1e-10 of its scale), so this pair "
                             "does not show that d^2 fails to be NDS")
    t = float(answer_array(t_bad, "t_bad", ()))
    if not t > 0.0:
        raise AssertionError("`t_bad` must be a positive number")
    if _positive_definite(np.exp(-t * D2) + 1e-8 * np.eye(theta.size)):
        raise AssertionError("the Gram matrix of exp(-t_bad d^2) on `theta_bad` has no eigenvalue "
                             "below -1e-8; which values of t does the proof of Schoenberg's "
                             "theorem say must fail?")
    _passed("c_circle sums to zero, c^T D^2 c > 0, and exp(-t_bad d^2) has a negative eigenvalue")
