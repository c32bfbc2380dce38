"""Argument checks shared by the chapter-1 risk and simulation helpers."""
from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from kmlib._validation import check_matrix, check_nonnegative, check_vector


def check_beta(beta: ArrayLike, p: int, name: str = "beta0") -> np.ndarray:
    """``beta`` as a vector with one entry per column of X."""
    b = check_vector(beta, name)
    if b.shape[0] != p:
        raise ValueError(
            f"{name} must have one entry per column of X (length {p}); got length {b.shape[0]}"
        )
    return b


def check_moments(X: ArrayLike, beta0: ArrayLike, sigma2: Any) -> tuple[np.ndarray, np.ndarray,
                                                                     float]:
    """Design, true coefficients and noise variance of the linear model, checked."""
    X = check_matrix(X, "X")
    return X, check_beta(beta0, X.shape[1]), check_nonnegative(sigma2, "sigma2")
