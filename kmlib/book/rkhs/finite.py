"""The RKHS of a kernel on a finite set: norms and inner products ``u^T K^+ v``.

Chapter "Reproducing kernel Hilbert spaces": on ``X = {1, ..., N}`` a kernel is a
PSD matrix ``K``, its RKHS is the column space of ``K`` and the RKHS norm of a
vector ``f`` in it is ``f^T K^+ f`` (:func:`finite_rkhs_inner`,
:func:`finite_rkhs_norm2`).  One ``eigh`` of ``K``; no inverse is formed.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from kmlib._validation import check_square, check_symmetric, check_vector, psd_eigh

__all__ = ["finite_rkhs_inner", "finite_rkhs_norm2"]


def _psd_eigh(K: ArrayLike, tol: float | None,
              ) -> tuple[NDArray[np.float64], NDArray[np.float64], float]:
    """Eigenvalues (ascending), eigenvectors and the zero threshold of a PSD matrix."""
    A = check_square(K, "K")
    check_symmetric(A, "K")
    # eig_tol's rule with a factor 100 instead of 10: the documented default of the tol
    # argument, looser so that hand-built PSD matrices with rounded entries pass
    return psd_eigh(A, "K", tol=tol, factor=100.0)


def _range_coordinates(v: NDArray[np.float64], d: NDArray[np.float64],
                       U: NDArray[np.float64], t: float,
                       name: str) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Coordinates of ``v`` on the range of K, checking that nothing lies in the null space."""
    c = U.T @ v
    keep = d > t
    outside = float(np.linalg.norm(c[~keep]))
    if outside > 1e-8 * max(1.0, float(np.linalg.norm(v))):
        raise ValueError(
            f"{name} is not in the column space of K (its component in the null space has "
            f"norm {outside:.3g}); only vectors K @ alpha belong to the RKHS of a finite set"
        )
    return c[keep], d[keep]


def finite_rkhs_inner(u: ArrayLike, v: ArrayLike, K: ArrayLike,
                      tol: float | None = None) -> float:
    """RKHS inner product ``u^T K^+ v`` of two functions on a finite set.

    On ``X = {1, ..., N}`` a kernel is a PSD matrix ``K`` and its RKHS is the
    column space of ``K``; a function is the vector of its values.

    Parameters
    ----------
    u, v : array-like of shape (N,)
        Values of two functions in the column space of ``K``.
    K : array-like of shape (N, N)
        Symmetric positive semidefinite matrix.
    tol : float, optional
        Eigenvalues at most ``tol`` count as zero; default ``100 N eps max(1, ||K||)``.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``K`` is not symmetric PSD, or ``u`` or ``v`` has a component in the
        null space of ``K`` (it is then not a function of the RKHS).
    """
    d, U, t = _psd_eigh(K, tol)
    u = check_vector(u, "u")
    v = check_vector(v, "v")
    if len(u) != len(d) or len(v) != len(d):
        raise ValueError(f"u and v must have length {len(d)} (the size of K); "
                         f"got {len(u)} and {len(v)}")
    cu, dk = _range_coordinates(u, d, U, t, "u")
    cv, _ = _range_coordinates(v, d, U, t, "v")
    return float(np.sum(cu * cv / dk))


def finite_rkhs_norm2(f: ArrayLike, K: ArrayLike, tol: float | None = None) -> float:
    """Squared RKHS norm ``f^T K^+ f`` of a function on a finite set.

    Parameters
    ----------
    f : array-like of shape (N,)
        Values of a function in the column space of ``K``.
    K : array-like of shape (N, N)
        Symmetric positive semidefinite matrix.
    tol : float, optional
        As in :func:`finite_rkhs_inner`.

    Returns
    -------
    float
    """
    return finite_rkhs_inner(f, f, K, tol)
