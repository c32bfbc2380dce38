"""Shared constants and input checks of the feature maps."""
from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validation import (
    check_feature_names,
    check_matrix,
    check_n_features,
)

_VARIANTS = ("cos_sin", "cos_phase")


_KERNELS = ("gaussian", "laplacian", "matern")


def _check_transform_input(X: ArrayLike, estimator: Any) -> np.ndarray:
    """Validate ``X`` for ``transform`` against the dimension seen in ``fit``."""
    check_feature_names(estimator, X, reset=False)
    X = check_matrix(X, "X")
    check_n_features(estimator, X)
    return X
