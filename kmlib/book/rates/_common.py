"""Shared private helper of the rates modules: penalty grids."""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from kmlib._validation import check_lam


def _lam_grid(lam: ArrayLike, name: str = "lam") -> tuple[NDArray[np.float64], bool]:
    """Penalties (or thresholds) as a 1-D array of values > 0, and whether one scalar came in."""
    scalar = np.ndim(lam) == 0
    arr = np.atleast_1d(check_lam(lam, name, allow_array=True))
    if np.any(arr <= 0):
        raise ValueError(f"{name} must be > 0; got minimum {arr.min()!r}")
    return arr, scalar
