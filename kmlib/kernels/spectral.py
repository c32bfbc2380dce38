"""Spectral checks of Gram matrices; from negative- to positive-definite kernels.

Chapters "Kernels: positive definiteness, closure rules and a catalogue" and
"Negative-definite kernels: Schoenberg's theorem and embeddings of metrics".
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import linalg

from .._linalg import psd_eigenpairs
from .._validation import (
    as_float_array,
    check_same_length,
    check_square,
    check_symmetric,
    eig_tol,
    finite_result,
    validate_args,
)
from .._validation.params import NONNEGATIVE
from .base import Kernel

__all__ = ["pds_from_nds", "is_psd", "is_nds", "empirical_feature_map"]


class _PDSFromNDS(Kernel):
    def __init__(self, kernel: Kernel, x0: np.ndarray):
        self.kernel, self.x0 = kernel, x0

    def _check(self, X, name):
        A = self.kernel._check(X, name)
        check_same_length(A, self.x0, name, "x0", axis=1)
        return A

    def _anchor(self, X):
        return self.kernel._gram(X, self.x0)[:, 0]

    def _k00(self):
        return self.kernel._gram(self.x0, self.x0)[0, 0]

    def _gram(self, X, Y):
        kx = self._anchor(X)
        ky = kx if Y is X else self._anchor(Y)
        G = -self.kernel._gram(X, Y)
        G += kx[:, None]
        G += ky[None, :]
        G -= self._k00()
        return G

    def _paired(self, X, Y):
        p = self.kernel._paired(X, Y)
        return None if p is None else self._anchor(X) + self._anchor(Y) - p - self._k00()

    def _diag(self, X):
        return 2.0 * self._anchor(X) - self.kernel._diag(X) - self._k00()

    def __repr__(self):
        return f"pds_from_nds({self.kernel!r}, x0={self.x0[0].tolist()})"


@validate_args({"k": [Kernel]})
def pds_from_nds(k: Kernel, x0: ArrayLike) -> Kernel:
    """Kernel ``k'(x, x') = k(x, x0) + k(x', x0) - k(x, x') - k(x0, x0)``.

    A symmetric ``k`` is conditionally negative definite (NDS) if and only if
    ``k'`` is positive definite (chapter 10).  For ``squared_distance()``,
    ``k'(x, x') = 2 (x - x0)^T (x' - x0)``.

    Parameters
    ----------
    k : Kernel
        The (typically NDS) kernel.
    x0 : float or array-like of shape (d,) or (1, d)
        A single anchor point; unlike data arrays, a 1-D ``x0`` is one point
        of R^d.

    Returns
    -------
    Kernel

    Notes
    -----
    The last term is ``k(x0, x0)``, a constant: writing ``k(x, x0)`` there instead
    would cancel the first term (a slip worth checking for when copying the formula).
    """
    a = as_float_array(x0, "x0")
    if a.ndim == 0:
        a = a.reshape(1, 1)
    elif a.ndim == 1:
        a = a[None, :]
    if a.ndim != 2 or a.shape[0] != 1:
        raise ValueError(
            "x0 must be a single point: a number, a 1-D array of length d or an "
            f"array of shape (1, d); got shape {np.shape(x0)}"
        )
    a = k._check(a, "x0")
    return _PDSFromNDS(k, a)


def _symmetrized(K: ArrayLike) -> np.ndarray:
    """``(K + K^T) / 2`` of a finite square ``K`` that is symmetric up to rounding."""
    A = check_square(K, "K")
    check_symmetric(A, "K")
    return 0.5 * (A + A.T)


def _symmetric_part(K: ArrayLike, tol: Any) -> tuple[np.ndarray, np.ndarray, float]:
    """Validate ``K``; return ``(S, eigenvalues, tol)``.

    ``S = (K + K^T) / 2``; eigenvalues are in increasing order.
    """
    S = _symmetrized(K)
    evals = linalg.eigvalsh(S)
    return S, evals, eig_tol(evals, len(S)) if tol is None else float(tol)


@validate_args({"tol": [NONNEGATIVE, None]})
def is_psd(K: ArrayLike, tol: float | None = None) -> bool:
    """Return True when the symmetric matrix ``K`` is positive semidefinite.

    Parameters
    ----------
    K : array-like of shape (n, n)
        A symmetric matrix, e.g. a Gram matrix ``k(X)``.
    tol : float, optional
        Accept eigenvalues ``>= -tol``.  Default
        ``tol = 10 * n * eps * max(1, ||S||_2)`` with ``eps`` the float64
        machine epsilon and ``S = (K + K^T) / 2``.

    Returns
    -------
    bool
        ``lambda_min(S) >= -tol``.

    Raises
    ------
    ValueError
        If ``K`` is not a finite square matrix, or if ``max |K - K^T|``
        exceeds ``max(tol, default tol)``.
    """
    _, evals, tol_v = _symmetric_part(K, tol)
    return bool(evals[0] >= -tol_v)


@validate_args({"tol": [NONNEGATIVE, None]})
def is_nds(K: ArrayLike, tol: float | None = None) -> bool:
    """Return True when ``K`` is conditionally negative semidefinite.

    That is, ``c^T K c <= tol ||c||^2`` for every ``c`` with ``sum(c) = 0``.
    ``K`` is projected onto the sum-zero subspace with the orthonormal basis
    given by a Householder reflection that maps ``1/sqrt(n)`` to ``-e_1``, and
    the largest eigenvalue of the projected matrix is compared with ``tol``.

    Parameters
    ----------
    K : array-like of shape (n, n)
        A symmetric matrix, e.g. ``squared_distance()(X)``.
    tol : float, optional
        Default ``10 * n * eps * max(1, ||S||_2)`` with ``S = (K + K^T) / 2``.

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        If ``K`` is not a finite square matrix, or not symmetric within
        ``max(tol, default tol)``.
    """
    S, _, tol_v = _symmetric_part(K, tol)
    n = len(S)
    if n == 1:
        return True  # the only sum-zero vector is 0
    w = np.full(n, 1.0 / np.sqrt(n))
    w[0] += 1.0
    beta = 2.0 / (w @ w)
    HS = S - beta * np.outer(w, w @ S)  # H S with H = I - beta w w^T
    HSH = HS - beta * np.outer(HS @ w, w)
    B = HSH[1:, 1:]  # columns 2..n of H span {c : sum(c) = 0}
    evals = linalg.eigvalsh(0.5 * (B + B.T))
    return bool(evals[-1] <= tol_v)


@finite_result
@validate_args({"tol": [NONNEGATIVE, None]})
def empirical_feature_map(K: ArrayLike, tol: float | None = None) -> np.ndarray:
    """Return ``Phi`` of shape (n, r) with ``Phi @ Phi.T = K`` for a PSD ``K``.

    From ``K = U diag(lam) U^T`` (``eigh``), ``Phi = U_r diag(sqrt(lam_r))``
    keeps the ``r`` eigenvalues above ``tol`` in decreasing order, so a
    rank-deficient ``K`` (e.g. a duplicated point) gives ``r < n``.  Row i is
    a feature vector of the i-th sample; it equals, up to a rotation of
    R^r, the whitened empirical kernel map ``(K^+)^{1/2} K e_i`` of chapter 4.

    Parameters
    ----------
    K : array-like of shape (n, n)
        A symmetric positive semidefinite matrix, e.g. ``k(X)``.
    tol : float, optional
        Eigenvalues in ``[-tol, tol]`` are treated as 0, and one below ``-tol`` raises.
        Default: kmlib's rule for a PSD matrix (``kmlib._linalg.psd_eigenpairs``), the one
        of ``Nystroem`` and of the pseudo-inverse: eigenvalues at or below
        ``n * eps * ||K||_2`` are dropped, one below ``-sqrt(eps) * ||K||_2`` raises.

    Returns
    -------
    ndarray of shape (n, r)

    Raises
    ------
    ValueError
        If ``K`` is not a finite symmetric square matrix, or is not positive
        semi-definite (an eigenvalue below the negative tolerance).
    """
    lam, U = linalg.eigh(_symmetrized(K), check_finite=False)
    lam, U = psd_eigenpairs(lam, U, atol=tol, name="K",
                            who="empirical_feature_map")
    return U[:, ::-1] * np.sqrt(lam[::-1])
