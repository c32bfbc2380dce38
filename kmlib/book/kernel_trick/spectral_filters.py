"""The pseudoinverse and the spectral view of regularisation.

Chapter 3 ("The kernel trick: ..., pseudoinverse, spectral filters") writes
least squares, the truncated SVD and ridge regression as one formula
``w = V g(S) U^T y`` with a filter ``g`` that replaces ``1/s``:

* :func:`pinv_svd` -- the Moore-Penrose pseudoinverse from one thin SVD, and
  :func:`penrose_residuals`, the four Penrose conditions as a check;
* :data:`FILTERS` and :func:`filter_factors` -- the filters ``"pinv"``
  (least squares), ``"cutoff"`` (spectral cut-off) and ``"ridge"``;
* :func:`spectral_fit` and :func:`spectral_path_errors` -- the filtered fit, and
  its training and test errors along a grid of penalties from one SVD.

Singular values at or below ``max(n, D) * eps * s_1``
(:func:`kmlib._validation.rank_tol`, the rule of
:func:`numpy.linalg.matrix_rank`) count as zero.
"""
from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from kmlib._validation import (
    as_float_array,
    check_lam,
    check_matrix,
    check_nonnegative,
    rank_tol,
)

from ._common import _check_Phi_y

#: The spectral filters of the chapter: least squares, spectral cut-off, ridge.
FILTERS = ("pinv", "cutoff", "ridge")

#: The name of one of :data:`FILTERS`.
Filter = Literal["pinv", "cutoff", "ridge"]


def pinv_svd(A: ArrayLike, rtol: float | None = None) -> NDArray[np.float64]:
    """Moore-Penrose pseudoinverse ``V diag(1/s_j for s_j > tol) U^T`` from one thin SVD.

    Parameters
    ----------
    A : array of shape (n, D)
    rtol : float, optional
        Singular values ``<= rtol * s_1`` count as zero.  The default is
        ``max(n, D) * eps``, the tolerance of :func:`numpy.linalg.matrix_rank`.

    Returns
    -------
    ndarray of shape (D, n)
    """
    A = check_matrix(A, "A", allow_1d=False)
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    if rtol is None:
        tol = rank_tol(s, max(A.shape)) if s.size else 0.0
    else:
        tol = check_nonnegative(rtol, "rtol") * s[0]
    inv = np.zeros_like(s)
    keep = s > tol
    inv[keep] = 1.0 / s[keep]
    return (Vt.T * inv) @ U.T


def penrose_residuals(A: ArrayLike, B: ArrayLike) -> NDArray[np.float64]:
    """Relative residuals of the four Penrose conditions for a candidate ``B = A^+``.

    Returns
    -------
    ndarray of shape (4,)
        ``||ABA - A||``, ``||BAB - B||``, ``||(AB)^T - AB||``, ``||(BA)^T - BA||``
        (Frobenius norms), each divided by the norm of the matrix it compares
        (``A``, ``B``, ``AB``, ``BA``).  All four are zero exactly when ``B`` is the
        pseudoinverse of ``A``.
    """
    A = check_matrix(A, "A", allow_1d=False)
    B = check_matrix(B, "B", allow_1d=False)
    if B.shape != A.shape[::-1]:
        raise ValueError(f"B must have shape {A.shape[::-1]} (the transpose of A's); got {B.shape}")
    AB, BA = A @ B, B @ A

    def rel(E: np.ndarray, M: np.ndarray) -> float:
        return float(np.linalg.norm(E) / max(np.linalg.norm(M), np.finfo(float).tiny))

    return np.array([rel(AB @ A - A, A), rel(BA @ B - B, B), rel(AB.T - AB, AB),
                     rel(BA.T - BA, BA)])


def filter_factors(s: ArrayLike, lam: float, kind: Filter) -> NDArray[np.float64]:
    """Spectral filter factors ``g(s)`` that replace ``1/s`` in ``w = V g(S) U^T y``.

    Parameters
    ----------
    s : array
        Singular values ``s >= 0``.
    lam : float
        Regularisation ``lam >= 0`` (ignored by ``"pinv"``).
    kind : {"pinv", "cutoff", "ridge"}
        ``"pinv"``: ``1/s`` for ``s > 0`` and 0 otherwise (least squares);
        ``"cutoff"``: ``1/s`` for ``s > lam`` and 0 otherwise (truncated SVD);
        ``"ridge"``: ``s / (s^2 + lam)``.

    Returns
    -------
    ndarray of the shape of ``s``
    """
    s = as_float_array(s, "s")
    if not np.all(np.isfinite(s)) or np.any(s < 0):
        raise ValueError("s must contain finite singular values >= 0; "
                         "got a negative or non-finite value")
    lam = check_lam(lam)
    if kind not in FILTERS:
        raise ValueError(f"kind must be one of {FILTERS}; got {kind!r}")
    if kind == "ridge":
        if lam == 0:
            kind = "pinv"
        else:
            return s / (s**2 + lam)
    thr = 0.0 if kind == "pinv" else lam
    out = np.zeros_like(s)
    keep = s > thr
    out[keep] = 1.0 / s[keep]
    return out


def spectral_fit(Phi: ArrayLike, y: ArrayLike, lam: float, kind: Filter) -> NDArray[np.float64]:
    """Coefficients ``w = V g(S) U^T y`` of a spectral filter (see :func:`filter_factors`).

    ``kind="pinv"`` is the minimum-norm least-squares solution ``Phi^+ y``
    (singular values below ``max(n, D) eps s_1`` count as zero); ``"cutoff"`` keeps
    only singular values above ``lam``; ``"ridge"`` is ridge regression.

    Returns
    -------
    ndarray of shape (D,)
    """
    P, v = _check_Phi_y(Phi, y)
    U, s, Vt = np.linalg.svd(P, full_matrices=False)
    s_eff = np.where(s > (rank_tol(s, max(P.shape)) if s.size else 0.0), s, 0.0)
    return Vt.T @ (filter_factors(s_eff, lam, kind) * (U.T @ v))


def spectral_path_errors(Phi: ArrayLike, y: ArrayLike, Phi_test: ArrayLike, y_test: ArrayLike,
                         lams: ArrayLike, kind: Filter = "ridge"
                         ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Training and test mean squared errors of a spectral filter along a grid of ``lam``.

    One thin SVD of ``Phi`` serves the whole grid.

    Parameters
    ----------
    Phi, y : training features (n, D) and responses (n,)
    Phi_test, y_test : test features (m, D) and responses (m,)
    lams : 1-D array of penalties (>= 0)
    kind : {"ridge", "cutoff", "pinv"}

    Returns
    -------
    train_mse, test_mse : ndarrays of shape (len(lams),)
    """
    P, v = _check_Phi_y(Phi, y)
    Pt, vt = _check_Phi_y(Phi_test, y_test)
    if Pt.shape[1] != P.shape[1]:
        raise ValueError(f"Phi_test must have {P.shape[1]} columns like Phi; got {Pt.shape[1]}")
    lams = check_lam(lams, "lams", allow_array=True)
    lams = np.atleast_1d(lams)
    U, s, Vt = np.linalg.svd(P, full_matrices=False)
    s_eff = np.where(s > (rank_tol(s, max(P.shape)) if s.size else 0.0), s, 0.0)
    Uy = U.T @ v
    G = np.array([filter_factors(s_eff, lam, kind) for lam in lams])   # (L, r)
    W = (G * Uy) @ Vt                                                   # (L, D)
    train = np.mean((v[None, :] - W @ P.T) ** 2, axis=1)
    test = np.mean((vt[None, :] - W @ Pt.T) ** 2, axis=1)
    return train, test
