"""Numerical tolerances shared by every module of kmlib.

Machine epsilon, the rank and eigenvalue tolerances of a matrix, and the relative
tolerances by which a Gram matrix counts as symmetric or positive semi-definite.
Every rank, symmetry and definiteness decision in kmlib is made with these.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

#: Machine epsilon of float64, the unit of every rank and rounding tolerance in kmlib.
EPS = float(np.finfo(float).eps)

#: Relative tolerance of :func:`check_symmetric` (scaled by the largest |entry|).
SYMMETRY_RTOL = 1e-8


#: A Gram matrix counts as indefinite (not merely rounded) when an eigenvalue lies
#: below ``-PSD_RTOL * max|eigenvalue|``; rounding alone gives about n * eps.
PSD_RTOL = float(np.sqrt(EPS))


def rank_tol(s: ArrayLike, n: int, axis: int | None = None) -> Any:
    """Rank tolerance ``n * eps * max|s|``: values of ``s`` at or below it count as zero.

    This is the default of :func:`numpy.linalg.matrix_rank` for singular values
    (or eigenvalues of a symmetric matrix) of an n-by-n (or n-by-p, n = max) matrix.
    """
    a = np.abs(np.asarray(s, dtype=float))
    if a.size == 0 and axis is None:
        return 0.0
    return n * EPS * np.max(a, axis=axis)


def eig_tol(evals: ArrayLike, n: int, factor: float = 10.0) -> float:
    """Eigenvalue tolerance ``factor * n * eps * max(1, max|evals|)`` of an n-by-n symmetric matrix.

    The threshold below which an eigenvalue computed by LAPACK (backward error about
    ``n * eps * ||K||_2``) cannot be told from zero, with a safety ``factor`` (10 by default) and
    an absolute floor ``factor * n * eps`` for matrices of norm below one.  Used to decide
    positive (semi-)definiteness and the numerical rank of a Gram matrix.
    """
    ev = np.asarray(evals, dtype=float)
    top = float(np.max(np.abs(ev))) if ev.size else 0.0
    return factor * n * EPS * max(1.0, top)
