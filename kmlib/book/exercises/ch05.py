"""Self-checks for the exercises of chapter 5, "Reproducing kernel Hilbert spaces".

The sheet is ``exercises/05_rkhs.md``. A self-check tests properties that a right answer
must have, without computing the answer: a residual orthogonal to the column space of
``K``, the interpolation equations of a projection and Pythagoras between its norms, the
order of eigenvalues, the trace they cannot exceed and the ``O(1/n^2)`` distance of the
midpoint rule to Mercer's eigenvalues, and for the sheet's numbers a slow salted hash of
the value rounded to six significant digits
(:func:`~kmlib.book.exercises._answers.matches_digest`). It raises ``AssertionError`` with a
hint when a property fails and prints one line starting with ``Self-check passed:``
otherwise. The full check, which compares every answer with an independent computation,
runs when the lecturer grades the sheet.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from kmlib import kernels

from ._answers import answer_array, answer_scalar, matches_digest

__all__ = [
    "finite_data",
    "projection_data",
    "sobolev1_data",
    "check_finite_norm",
    "check_finite_membership",
    "check_projection",
    "check_mercer_grid",
    "check_sobolev1_norm",
]

GRADED = "the full check runs when the sheet is graded"
# digest(value, key) of the sheet's answers, rounded to six significant digits
DIGESTS = {
    "finite:norm2_f": "fd5acdae0b38b6888b402fc99f9a6cd17251036852a796be096df8905a655c6c",
    "g_res[0]": "8ac98d03aa5bea9b8a22a16b335079deedfe66bf5a02b924475fc47038023a0d",
    "g_res[1]": "82595599ef5ce5cbefdff6eaaa7910f4c0750144a1552168cb037ce8ba2ac3ef",
    "g_res[2]": "741c665b41d74bb27ac6d3ba624e4e8733d4b48ad5b10c7df354ca7efce55a4d",
    "g_res[3]": "de1d37e5fa4b9fe1c66aad3c1ea91937ca12a14924ebf9cb992e87e5446aec8d",
    "g_res[4]": "40dddd353334b4bb818213bee4c5ee3017e65e54dfb59afb08785775d8702798",
    "projection:norm2_f": "c90cb21609e272b36cce26322c23b660f65ff828aaeafdac20b681762112047c",
    "norm2": "4805d2be88ba7454e586a8c63b6ff223f01c02bfbe68096a2b3c41d35f94309d",
}


def _close(a: float, b: float, rtol: float = 1e-8) -> bool:
    return abs(a - b) <= rtol * max(1.0, abs(b))


def _known(value: float, key: str) -> bool:
    return matches_digest(value, DIGESTS[key], key)


# --------------------------------------------------------------------------- #
# the RKHS of a finite set
# --------------------------------------------------------------------------- #
def finite_data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``K``, ``f`` and ``g`` of the finite-set exercise, rebuilt from the stated seed."""
    B = np.random.default_rng(11).standard_normal((5, 3))
    K = B @ B.T
    return K, K @ np.array([1.0, -1.0, 2.0, 0.0, 1.0]), np.eye(5)[0]


def check_finite_norm(norm2_f: Any) -> None:
    """Self-check of ``||f||^2 = f^T K^+ f`` for ``f`` in the column space of ``K``.

    Properties: the hash of the value; the Euclidean ``f^T f``, the form ``f^T K f`` and the
    square root of the answer are named.
    """
    K, f, _ = finite_data()
    v = answer_scalar(norm2_f, "norm2_f")
    if _known(v, "finite:norm2_f"):
        print(f"Self-check passed: norm2_f is recognised ({GRADED}).")
        return
    if _close(v, float(f @ f)):
        raise AssertionError("that is the Euclidean norm f^T f; the RKHS norm weights f by K^+")
    if _close(v, float(f @ K @ f)):
        raise AssertionError("f^T K f is the norm of the expansion with coefficients f; "
                             "here f holds the VALUES, so use f^T K^+ f "
                             "(or alpha^T K alpha with K alpha = f)")
    if v > 0 and _known(v * v, "finite:norm2_f"):
        raise AssertionError("norm2_f is the squared norm; do not take the square root")
    raise AssertionError("norm2_f is not f^T K^+ f; compute K^+ with np.linalg.pinv "
                         "(K is singular, so np.linalg.inv is not an option) "
                         "or solve K alpha = f by least squares")


def check_finite_membership(g_in_rkhs: Any, g_res: Any) -> None:
    """Self-check of the component of ``g`` outside the column space of ``K`` and the verdict.

    Properties: ``g_res`` is orthogonal to the column space (``K g_res = 0``), ``g - g_res``
    is not (unless ``g`` is in it), the verdict says whether ``g_res`` vanishes, and the
    hash of each coordinate.
    """
    K, _, g = finite_data()
    r = answer_array(g_res, "g_res", (5,))
    if g_in_rkhs is None or not isinstance(g_in_rkhs, (bool, np.bool_)):
        raise AssertionError("`g_in_rkhs` must be True or False")
    scale = float(np.abs(K).max())
    if np.abs(K @ r).max() > 1e-9 * scale:
        if np.abs(K @ (g - r)).max() <= 1e-9 * scale:
            raise AssertionError("g_res is the projection of g ONTO the column space; "
                                 "the residual is g minus that projection")
        raise AssertionError("g_res is not orthogonal to the column space of K (K g_res is not "
                             "0); compute g - K K^+ g")
    if not all(_known(value, f"g_res[{i}]") for i, value in enumerate(r)):
        if np.allclose(r, 0.0, atol=1e-9):
            raise AssertionError("g_res is zero, so g would be K alpha for some alpha; "
                                 "check with the projection K K^+ g whether that is so")
        raise AssertionError("g_res is orthogonal to the column space of K but it is not the "
                             "component of g orthogonal to it; compute g - K K^+ g")
    inside = bool(np.linalg.norm(r) <= 1e-8 * max(1.0, float(np.linalg.norm(g))))
    if bool(g_in_rkhs) != inside:
        raise AssertionError("g_in_rkhs contradicts g_res: g is in the RKHS exactly when "
                             "its residual g - K K^+ g vanishes")
    print(f"Self-check passed: g_res is orthogonal to the column space and the verdict agrees "
          f"with it ({GRADED}).")


# --------------------------------------------------------------------------- #
# the norm of an expansion and of its projection
# --------------------------------------------------------------------------- #
def projection_data() -> tuple[Any, np.ndarray, np.ndarray, np.ndarray]:
    """Kernel, ``X``, ``alpha`` and ``Z`` of the projection exercise, from the stated seed."""
    return (kernels.gaussian(sigma=0.3), np.linspace(0, 1, 8),
            np.random.default_rng(12).standard_normal(8), np.array([0.1, 0.5, 0.9]))


def check_projection(c: Any, norm2_f: Any, norm2_res: Any) -> None:
    """Self-check of the projection of ``sum alpha_i k(., x_i)`` onto span{k(., z_j)}.

    Properties: the hash of ``norm2_f``; the interpolation equations ``k(Z, Z) c =
    k(Z, X) alpha`` evaluated on ``c``; Pythagoras, ``norm2_res = norm2_f - c^T k(Z, Z) c``,
    between the three answers, and ``0 <= norm2_res <= norm2_f``.
    """
    kernel, X, alpha, Z = projection_data()
    cv = answer_array(c, "c", (len(Z),))
    nf = answer_scalar(norm2_f, "norm2_f")
    nr = answer_scalar(norm2_res, "norm2_res")
    if not _known(nf, "projection:norm2_f"):
        if _close(nf, float(alpha @ alpha), 1e-7):
            raise AssertionError("norm2_f is alpha^T alpha; "
                                 "the RKHS norm of an expansion is alpha^T K alpha")
        raise AssertionError("norm2_f is not the squared RKHS norm of f; "
                             "use alpha^T k(X, X) alpha")
    values = np.asarray(kernel(Z, X)) @ alpha            # f(z_j)
    KZ = np.asarray(kernel(Z))
    if np.abs(KZ @ cv - values).max() > 1e-8 * max(1.0, float(np.abs(values).max())):
        if np.allclose(cv, values, rtol=1e-6):
            raise AssertionError("c holds the values f(z_j); "
                                 "the coefficients solve k(Z, Z) c = f(Z)")
        raise AssertionError("c is not the projection: "
                             "require <f - Pf, k(., z_l)> = 0 for every l, "
                             "which reads k(Z, Z) c = k(Z, X) alpha")
    squared = float(cv @ KZ @ cv)                        # ||Pf||^2
    if not _close(nr, nf - squared, 1e-6) or not 0 <= nr <= nf:
        if _close(nr, nf + squared, 1e-6):
            raise AssertionError("norm2_res: by Pythagoras ||f - Pf||^2 = ||f||^2 - ||Pf||^2, "
                                 "a difference")
        raise AssertionError("norm2_res is not ||f - Pf||^2; "
                             "expand the residual over the points X and Z "
                             "with coefficients (alpha, -c)")
    print(f"Self-check passed: c interpolates f at Z and Pythagoras holds ({GRADED}).")


# --------------------------------------------------------------------------- #
# Mercer's eigenvalues of min(x, x') from a grid
# --------------------------------------------------------------------------- #
def check_mercer_grid(ev: Any, n: int = 400, J: int = 4) -> None:
    """Self-check of the ``J`` largest eigenvalues of ``K/n`` for min(x, x') on a midpoint grid.

    Properties: positive and decreasing; their sum at most ``tr(K/n) = 1/2``; each within
    twice the midpoint rule's leading error ``(2j - 1)^2 pi^2 / (48 n^2)`` (relative) of
    Mercer's ``mu_j = 4 / (pi^2 (2j - 1)^2)``, yet not equal to it. No hash: rounded to six
    digits, the grid eigenvalues lie within 0.5 to 52 units of the closed form's, and adding the
    leading error predicts them to within a unit, so a hash of them could be found by trying a
    handful of candidates.
    """
    e = answer_array(ev, "ev", (J,))
    j = np.arange(1, J + 1)
    mu = 4 / (np.pi**2 * (2 * j - 1) ** 2)
    if np.any(np.diff(e) > 0):
        if np.all(np.diff(e) >= 0):
            raise AssertionError("list the eigenvalues in decreasing order, largest first")
        raise AssertionError("ev are not in decreasing order")
    if np.allclose(e, mu, rtol=1e-9):
        raise AssertionError("these are the closed-form Mercer eigenvalues; the exercise asks "
                             "for the eigenvalues of the matrix K / n on the grid")
    if e.sum() > 0.5 * (1 + 1e-12):
        if (e / n).sum() <= 0.5:
            raise AssertionError("these are eigenvalues of K; "
                                 "the integral operator is approximated by K / n")
        raise AssertionError("the eigenvalues of K / n sum to tr(K / n) = 1/2 at most")
    if np.any(e <= 0):
        raise AssertionError("K / n is positive definite: its eigenvalues are positive")
    gap = np.abs(e / mu - 1)
    if n >= 20 * J and np.any(gap > 2 * (2 * j - 1) ** 2 * np.pi**2 / (48 * n**2) + 1e-12):
        if np.all((gap > 0.5 / n) & (gap < 2.0 / n)):
            raise AssertionError("use the midpoints x_i = (i - 1/2) / n, "
                                 "not the right end points i / n")
        raise AssertionError("ev are not the largest eigenvalues of K / n on the midpoint grid")
    print(f"Self-check passed: {J} decreasing eigenvalues within O(1/n^2) of Mercer's "
          f"({GRADED}).")


# --------------------------------------------------------------------------- #
# the first-order Sobolev norm, exactly
# --------------------------------------------------------------------------- #
def sobolev1_data() -> tuple[np.ndarray, np.ndarray]:
    """Centres and coefficients of the first-order Sobolev exercise, from the stated seed.

    The centres are uniform draws, not on a decimal grid, so a quadrature rule on a
    grid cannot reproduce the exact integral.
    """
    rng = np.random.default_rng(13)
    return rng.uniform(0, 1, 5), rng.standard_normal(5)


def check_sobolev1_norm(norm2: Any) -> None:
    """Self-check of ``int_0^1 f'(u)^2 du`` for ``f = sum alpha_i min(., x_i)``.

    Properties: positive; the hash of the value (six significant digits: a quadrature on a
    grid does not reach them).
    """
    _, alpha = sobolev1_data()
    v = answer_scalar(norm2, "norm2")
    if v <= 0:
        raise AssertionError("norm2 is an integral of a square: it is positive")
    if _known(v, "norm2"):
        print(f"Self-check passed: norm2 is recognised ({GRADED}).")
        return
    if _close(v, float(alpha @ alpha), 1e-9):
        raise AssertionError("alpha^T alpha is not the norm: "
                             "f' on (x_(k-1), x_(k)) is the sum of alpha_i "
                             "over the centres to the RIGHT of u")
    raise AssertionError("norm2 is not int_0^1 f'^2 exactly: f'(u) = sum_i alpha_i 1{u < x_i} "
                         "is constant between the sorted centres and 0 after the largest one, "
                         "so integrate piece by piece rather than on a grid")
