"""Shared constants and input checks of the feature maps."""
from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_predict_input

_VARIANTS = ("cos_sin", "cos_phase")


_KERNELS = ("gaussian", "laplacian", "matern")


def _check_transform_input(X: ArrayLike, estimator: Any, accept_sparse: bool = True) -> Any:
    """Validate ``X`` for ``transform`` against the dimension seen in ``fit``."""
    return check_predict_input(estimator, X, accept_sparse=accept_sparse)


def _check_finite_output(total: float, out: np.ndarray, who: str) -> np.ndarray:
    """Return ``out``, whose entries sum to ``total``, unless an entry is NaN or infinite.

    Such an entry makes the sum NaN or infinite; a sum that overflows from finite
    entries is told apart by a look at every entry.  The check of ``finite_result``
    (the same message) without its full-size temporaries.
    """
    if not np.isfinite(total) and not np.all(np.isfinite(out)):
        raise ValueError(
            f"{who}: the result is not finite (overflow or underflow in floating point, or a "
            "NaN among the inputs); rescale the inputs (e.g. standardise X and y) or use "
            "hyper-parameters of moderate size")
    return out
