"""Scalar arguments: real, non-negative and positive numbers, penalties, integers, seeds."""
from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .arrays import _finite, as_float_array
from .params import Integral, Interval, Real, check_constraints


def check_real(value: Any, name: str) -> float:
    """Return ``value`` as a float, raising unless it is a finite real number (any sign)."""
    check_constraints(name, value, [Interval(Real, None, None)])
    return float(value)


def check_nonnegative(value: Any, name: str) -> float:
    """Return ``value`` as a float, raising unless it is finite and >= 0."""
    check_constraints(name, value, [Interval(Real, 0, None, closed="left")])
    return float(value)


def check_positive(value: Any, name: str) -> float:
    """Return ``value`` as a float, raising unless it is finite and > 0."""
    check_constraints(name, value, [Interval(Real, 0, None, closed="neither")])
    return float(value)


def check_lam(lam: Any, name: str = "lam", *, allow_array: bool = False) -> Any:
    """Validate a regularisation parameter (or a grid of them): finite and >= 0."""
    if allow_array and np.ndim(lam) > 0:
        arr = as_float_array(lam, "lam")
        if arr.ndim != 1 or arr.size == 0:
            raise ValueError(
                f"{name} must be a non-empty 1-D grid of values; got shape {arr.shape}"
            )
        _finite(arr, name)
        if np.any(arr < 0):
            raise ValueError(
                f"{name} must contain only values >= 0; got minimum {arr.min()!r}"
            )
        return arr
    return check_nonnegative(lam, name)


def check_lam_grid(lams: Any, name: str = "lams") -> np.ndarray:
    """Penalties as a non-empty 1-D float array, each finite and >= 0 (a scalar gives one)."""
    if np.ndim(lams) == 0:
        return np.array([check_lam(lams, name)])
    return check_lam(lams, name, allow_array=True)


def check_int(value: Any, name: str, *, minimum: int = 1,
              maximum: int | None = None) -> int:
    """Return ``value`` as an int in [minimum, maximum] (``maximum`` None: no upper bound)."""
    check_constraints(name, value, [Interval(Integral, minimum, maximum, closed="both")])
    return int(value)


def check_rng(seed: Any, name: str = "seed") -> np.random.Generator:
    """Turn ``seed`` into a :class:`numpy.random.Generator`: scikit-learn's contract.

    None (fresh entropy), an int (a seed), a Generator (used as is) or a legacy
    ``numpy.random.RandomState``: a Generator is seeded from one draw of it, so the
    RandomState advances and the same state gives the same result.
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, np.random.RandomState):
        return np.random.default_rng(seed.randint(np.iinfo(np.int64).max, dtype=np.int64))
    if seed is None or (isinstance(seed, numbers.Integral) and not isinstance(seed, bool)):
        return np.random.default_rng(None if seed is None else int(seed))
    raise ValueError(f"{name} must be None, an int, a numpy Generator or a RandomState; "
                     f"got {seed!r}")
