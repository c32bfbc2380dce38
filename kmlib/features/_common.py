"""Shared constants and input checks of the feature maps."""
from __future__ import annotations

from typing import Any

from numpy.typing import ArrayLike

from .._validation import check_predict_input

_VARIANTS = ("cos_sin", "cos_phase")


_KERNELS = ("gaussian", "laplacian", "matern")


def _check_transform_input(X: ArrayLike, estimator: Any, accept_sparse: bool = True) -> Any:
    """Validate ``X`` for ``transform`` against the dimension seen in ``fit``."""
    return check_predict_input(estimator, X, accept_sparse=accept_sparse)
