"""Input checks shared by the ridge routes and the spectral filters of chapter 3.

Chapter 3 ("The kernel trick") fits ridge regression and its spectral relatives
on a feature matrix ``Phi`` of shape ``(n, D)`` and responses ``y`` of shape
``(n,)``; :func:`_check_Phi_y` validates that pair once for every entry point.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from kmlib._validation import check_matrix, check_same_length, check_vector


def _check_Phi_y(Phi: ArrayLike, y: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    P = check_matrix(Phi, "Phi", allow_1d=False)
    v = check_vector(y, "y")
    check_same_length(P, v, "Phi", "y")
    return P, v
