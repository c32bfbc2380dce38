"""Shared constants and input checks of the feature maps."""
from __future__ import annotations

from typing import Any

from numpy.typing import ArrayLike

from .._validation import (
    check_feature_names,
    check_matrix,
    check_n_features,
)

_VARIANTS = ("cos_sin", "cos_phase")


_KERNELS = ("gaussian", "laplacian", "matern")


def _check_transform_input(X: ArrayLike, estimator: Any, accept_sparse: bool = True) -> Any:
    """Validate ``X`` for ``transform`` against the dimension seen in ``fit``."""
    check_feature_names(estimator, X, reset=False)
    A = check_matrix(X, "X", accept_sparse=accept_sparse)
    check_n_features(estimator, A)
    return A
