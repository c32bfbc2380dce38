"""Shared pieces of the subpackage: sample checks, Gram centring, the permutation p-value."""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_matrix, check_same_length


def samples(X: ArrayLike, Y: ArrayLike, min_rows: int, why: str, *, same_d: bool = True,
            same_n: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``X`` and ``Y`` as finite 2-D float arrays with at least ``min_rows`` rows each."""
    X = check_matrix(X, "X", min_rows=min_rows, why=why)
    Y = check_matrix(Y, "Y", min_rows=min_rows, why=why)
    if same_d:
        check_same_length(X, Y, "X", "Y", axis=1)
    if same_n:
        check_same_length(X, Y, "X", "Y (paired rows)")
    return X, Y


def center_gram(K: np.ndarray, overwrite: bool = False) -> tuple[np.ndarray, np.ndarray, float]:
    """``(HKH, column means of K, their mean)`` for a symmetric K, H = I - 11^T/n not formed.

    HKH is a new array, or ``K`` itself centred in place if ``overwrite``.
    """
    col = K.mean(axis=0)
    grand = float(col.mean())
    Kc = K if overwrite else np.array(K, dtype=float)
    Kc -= col[:, None]
    Kc -= col
    Kc += grand
    return Kc, col, grand


#: Permuted statistics within this fraction of the scale of the summed terms of the
#: observed one count as ties (rounding differs between sums of the same terms in another
#: order; a tie lost to it makes the test anti-conservative on discrete data).
TIE_RTOL = 1e-9


def p_value(observed: float, null: np.ndarray, scale: float) -> float:
    """``(1 + #{null >= observed - tol}) / (1 + len(null))``: a valid permutation p-value.

    ``tol = TIE_RTOL * scale``, where ``scale`` bounds the terms the statistic sums (e.g.
    the largest kernel value): statistics equal in exact arithmetic count as ties.
    """
    tol = TIE_RTOL * abs(float(scale))
    return float((1 + np.count_nonzero(null >= observed - tol)) / (1 + len(null)))
