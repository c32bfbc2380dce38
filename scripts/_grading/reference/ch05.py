"""The lecturer's full checks of chapter 5, "Reproducing kernel Hilbert spaces".

The sheet is ``exercises/05_rkhs.md``. Never shipped (see the package's docstring).

Every check recomputes the answer by a route different from the one the exercise suggests
(a minimum-norm least-squares representation instead of a pseudoinverse, least squares in
an explicit feature space instead of the interpolation equations, the quadratic form
``alpha^T K alpha`` instead of an integral, the closed-form Mercer eigenvalues next to a
Lanczos eigensolver), raises ``AssertionError`` with a hint that names the likely mistake
without revealing the reference value, and prints one line starting with ``Correct:`` when
the answer is right. The data come from the data functions of
:mod:`kmlib.book.exercises.ch05`.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from scipy.sparse.linalg import eigsh

from kmlib import kernels
from kmlib.book.exercises._answers import answer_array, answer_scalar
from kmlib.book.exercises.ch05 import finite_data, projection_data, sobolev1_data
from kmlib.book.theory import sobolev_eigenvalues

__all__ = [
    "check_finite_norm",
    "check_finite_membership",
    "check_projection",
    "check_mercer_grid",
    "check_sobolev1_norm",
]


def _close(a: float, b: float, rtol: float = 1e-8) -> bool:
    return abs(a - b) <= rtol * max(1.0, abs(b))


# --------------------------------------------------------------------------- #
# the RKHS of a finite set
# --------------------------------------------------------------------------- #
def check_finite_norm(norm2_f: Any) -> None:
    """Check ``||f||^2 = f^T K^+ f`` for ``f`` in the column space of ``K``.

    Reference: the minimum-norm ``alpha`` with ``K alpha = f`` (least squares),
    then ``alpha^T K alpha`` -- the completion norm, not the pseudoinverse formula.
    """
    K, f, _ = finite_data()
    v = answer_scalar(norm2_f, "norm2_f")
    alpha = np.linalg.lstsq(K, f, rcond=None)[0]
    ref = float(alpha @ K @ alpha)
    if _close(v, ref):
        print("Correct: f^T K^+ f equals alpha^T K alpha for every alpha with K alpha = f.")
        return
    if _close(v, float(f @ f)):
        raise AssertionError("that is the Euclidean norm f^T f; the RKHS norm weights f by K^+")
    if _close(v, float(f @ K @ f)):
        raise AssertionError("f^T K f is the norm of the expansion with coefficients f; "
                             "here f holds the VALUES, so use f^T K^+ f "
                             "(or alpha^T K alpha with K alpha = f)")
    if _close(v, float(np.sqrt(max(ref, 0.0)))):
        raise AssertionError("norm2_f is the squared norm; do not take the square root")
    raise AssertionError("norm2_f is not f^T K^+ f; compute K^+ with np.linalg.pinv "
                         "(K is singular, so np.linalg.inv is not an option) "
                         "or solve K alpha = f by least squares")


def check_finite_membership(g_in_rkhs: Any, g_res: Any) -> None:
    """Check the component of ``g`` outside the column space of ``K`` and the verdict.

    ``g_res`` must be the part of ``g`` orthogonal to the column space (in the
    Euclidean sense), whatever route computed it, and ``g_in_rkhs`` must say
    whether it vanishes. Reference: the column space of the factor ``B``
    (``K = B B^T``), an orthonormal basis from a QR factorisation.
    """
    K, _, g = finite_data()
    r = answer_array(g_res, "g_res", (5,))
    if g_in_rkhs is None or not isinstance(g_in_rkhs, (bool, np.bool_)):
        raise AssertionError("`g_in_rkhs` must be True or False")
    B = np.random.default_rng(11).standard_normal((5, 3))
    Qb = np.linalg.qr(B)[0]
    ref = g - Qb @ (Qb.T @ g)
    if not np.allclose(r, ref, atol=1e-9):
        if np.allclose(r, g - ref, atol=1e-9):
            raise AssertionError("g_res is the projection of g ONTO the column space; "
                                 "the residual is g minus that projection")
        if np.allclose(r, np.zeros(5), atol=1e-9):
            raise AssertionError("g_res is zero, so g would be K alpha for some alpha; "
                                 "check with the projection K K^+ g whether that is so")
        raise AssertionError("g_res is not the component of g orthogonal to the column space "
                             "of K; compute g - K K^+ g")
    inside = bool(np.linalg.norm(ref) <= 1e-8 * max(1.0, np.linalg.norm(g)))
    if bool(g_in_rkhs) != inside:
        raise AssertionError("g_in_rkhs contradicts g_res: g is in the RKHS exactly when "
                             "its residual g - K K^+ g vanishes")
    print("Correct: membership in the RKHS is membership in the column space of K.")


# --------------------------------------------------------------------------- #
# the norm of an expansion and of its projection
# --------------------------------------------------------------------------- #
def check_projection(c: Any, norm2_f: Any, norm2_res: Any) -> None:
    """Check the projection of ``sum alpha_i k(., x_i)`` onto span{k(., z_j)} and two norms.

    Reference: an explicit feature map of the joint Gram matrix on ``X`` and
    ``Z`` (eigen-route), where the projection is an ordinary least-squares fit.
    """
    kernel, X, alpha, Z = projection_data()
    m = len(Z)
    cv = answer_array(c, "c", (m,))
    nf = answer_scalar(norm2_f, "norm2_f")
    nr = answer_scalar(norm2_res, "norm2_res")
    P = np.concatenate([X, Z])
    Phi = kernels.empirical_feature_map(kernel(P))
    PhiX, PhiZ = Phi[:len(X)], Phi[len(X):]
    f_vec = PhiX.T @ alpha
    c_ref = np.linalg.lstsq(PhiZ.T, f_vec, rcond=None)[0]
    res = f_vec - PhiZ.T @ c_ref
    nf_ref, nr_ref = float(f_vec @ f_vec), float(res @ res)
    if not _close(nf, nf_ref, 1e-7):
        if _close(nf, float(alpha @ alpha), 1e-7):
            raise AssertionError("norm2_f is alpha^T alpha; "
                                 "the RKHS norm of an expansion is alpha^T K alpha")
        raise AssertionError("norm2_f is not the squared RKHS norm of f; "
                             "use alpha^T k(X, X) alpha")
    if not np.allclose(cv, c_ref, rtol=1e-6, atol=1e-8 * max(1.0, np.abs(c_ref).max())):
        if np.allclose(cv, np.asarray(kernel(Z, X)) @ alpha, rtol=1e-6):
            raise AssertionError("c holds the values f(z_j); "
                                 "the coefficients solve k(Z, Z) c = f(Z)")
        raise AssertionError("c is not the projection: "
                             "require <f - Pf, k(., z_l)> = 0 for every l, "
                             "which reads k(Z, Z) c = k(Z, X) alpha")
    if not _close(nr, nr_ref, 1e-6):
        if _close(nr, nf_ref + float(c_ref @ kernel(Z, Z) @ c_ref), 1e-6):
            raise AssertionError("norm2_res: by Pythagoras ||f - Pf||^2 = ||f||^2 - ||Pf||^2, "
                                 "a difference")
        raise AssertionError("norm2_res is not ||f - Pf||^2; "
                             "expand the residual over the points X and Z "
                             "with coefficients (alpha, -c)")
    print("Correct: the projection interpolates f at Z and Pythagoras holds.")


# --------------------------------------------------------------------------- #
# Mercer's eigenvalues of min(x, x') from a grid
# --------------------------------------------------------------------------- #
def check_mercer_grid(ev: Any, n: int = 400, J: int = 4) -> None:
    """Check the ``J`` largest eigenvalues of ``K/n`` for min(x, x') on a midpoint grid.

    Here ``K_ik = min(x_i, x_k)`` and ``x_i = (i - 1/2)/n``.
    References: the Lanczos eigensolver of scipy (``eigsh``) on the checker's own
    grid, a different algorithm from a dense ``eigvalsh``, and the closed form
    ``mu_j = 4 / (pi^2 (2j - 1)^2)``, which the values approach at the rate
    ``O(1/n^2)`` of the midpoint rule.
    """
    e = answer_array(ev, "ev", (J,))
    x = (np.arange(1, n + 1) - 0.5) / n
    A = np.minimum.outer(x, x) / n
    ref = np.sort(eigsh(A, k=J, which="LA", tol=1e-13, v0=np.ones(n))[0])[::-1]
    mu = sobolev_eigenvalues(np.arange(1, J + 1))
    if np.allclose(e, ref, rtol=1e-9):
        print("Correct: the grid eigenvalues approach 4 / (pi^2 (2j - 1)^2); the largest "
              f"relative gap is {np.max(np.abs(ref / mu - 1)):.1e} at n = {n}.")
        return
    if np.allclose(np.sort(e), np.sort(ref), rtol=1e-9):
        raise AssertionError("list the eigenvalues in decreasing order, largest first")
    if np.allclose(e, mu, rtol=1e-9):
        raise AssertionError("these are the closed-form Mercer eigenvalues; the exercise asks "
                             "for the eigenvalues of the matrix K / n on the grid")
    if np.allclose(e, n * ref, rtol=1e-9):
        raise AssertionError("these are eigenvalues of K; "
                             "the integral operator is approximated by K / n")
    xe = np.arange(1, n + 1) / n
    if np.allclose(e, np.sort(np.linalg.eigvalsh(np.minimum.outer(xe, xe) / n))[::-1][:J],
                   rtol=1e-9):
        raise AssertionError("use the midpoints x_i = (i - 1/2) / n, "
                             "not the right end points i / n")
    raise AssertionError("ev are not the largest eigenvalues of K / n on the midpoint grid")


# --------------------------------------------------------------------------- #
# the first-order Sobolev norm, exactly
# --------------------------------------------------------------------------- #
def check_sobolev1_norm(norm2: Any) -> None:
    """Check ``int_0^1 f'(u)^2 du`` for ``f = sum alpha_i min(., x_i)``.

    Reference: the quadratic form ``alpha^T K alpha`` with ``K_ij = min(x_i, x_j)``.
    """
    x, alpha = sobolev1_data()
    v = answer_scalar(norm2, "norm2")
    ref = float(alpha @ np.minimum.outer(x, x) @ alpha)
    if _close(v, ref, 1e-9):
        print("Correct: the exact integral of f'^2 is alpha^T K alpha.")
        return
    if _close(v, float(alpha @ alpha), 1e-9):
        raise AssertionError("alpha^T alpha is not the norm: "
                             "f' on (x_(k-1), x_(k)) is the sum of alpha_i "
                             "over the centres to the RIGHT of u")
    if abs(v - ref) < 0.05 * max(1.0, abs(ref)):
        raise AssertionError("close but not exact: "
                             "f'^2 is constant between sorted centres, so integrate "
                             "piece by piece rather than on a grid")
    raise AssertionError("norm2 is not int_0^1 f'^2: "
                         "f'(u) = sum_i alpha_i 1{u < x_i} and f' = 0 after the "
                         "largest centre")
