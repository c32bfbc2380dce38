"""Shared private helper of the rkhs modules: points of the unit interval."""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from kmlib._validation import as_float_array, check_vector


def _unit_points(x: ArrayLike, name: str) -> NDArray[np.float64]:
    """Points of [0, 1] as a 1-D array (an (m, 1) column is flattened)."""
    v = check_vector(np.ravel(as_float_array(x, "x")) if np.ndim(x) == 2 else x, name)
    if np.any(v < 0) or np.any(v > 1):
        raise ValueError(f"{name} must lie in [0, 1]; got values in [{v.min()!r}, {v.max()!r}]")
    return v
