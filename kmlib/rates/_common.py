"""Shared private helpers of the rates modules: one BLAS thread, penalty grids."""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import check_lam

try:  # shipped with scikit-learn; without it BLAS keeps its threads
    from threadpoolctl import threadpool_limits as _threadpool_limits
except ImportError:  # pragma: no cover
    _threadpool_limits = None


_LIMITED = False     # True while an outer call already holds the one-thread limit


def _one_blas_thread(func: Callable[..., Any]) -> Callable[..., Any]:
    """Run ``func`` with one BLAS thread.

    Its many small factorisations gain nothing from threading and lose a factor of ten or
    more to thread spinning on a busy machine. Nested calls reuse the outer limit (setting
    one costs milliseconds).
    """
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        global _LIMITED
        if _LIMITED or _threadpool_limits is None:
            return func(*args, **kwargs)
        with _threadpool_limits(limits=1, user_api="blas"):
            _LIMITED = True
            try:
                return func(*args, **kwargs)
            finally:
                _LIMITED = False
    return wrapper


def _lam_grid(lam: ArrayLike, name: str = "lam") -> tuple[NDArray[np.float64], bool]:
    """Penalties (or thresholds) as a 1-D array of values > 0, and whether one scalar came in."""
    scalar = np.ndim(lam) == 0
    arr = np.atleast_1d(check_lam(lam, name, allow_array=True))
    if np.any(arr <= 0):
        raise ValueError(f"{name} must be > 0; got minimum {arr.min()!r}")
    return arr, scalar
