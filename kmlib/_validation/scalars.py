"""Scalar arguments: real, non-negative and positive numbers, penalties, integers, seeds."""
from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .arrays import as_float_array, check_batch
from .estimators import check_pair
from .params import NONNEGATIVE, Integral, Interval, Real, check_constraints


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
        arr = as_float_array(lam, name)
        if arr.ndim != 1 or arr.size == 0:
            raise ValueError(
                f"{name} must be a non-empty 1-D grid of values; got shape {arr.shape}"
            )
        for v in arr.tolist():   # the scalar rule (finite, >= 0) for each value
            check_constraints(f"each value of {name}", v, [NONNEGATIVE])
        return arr
    return check_nonnegative(lam, name)


def check_lam_grid(lams: Any, name: str = "lams") -> np.ndarray:
    """Penalties as a non-empty 1-D float array, each finite and >= 0 (a scalar gives one)."""
    return np.atleast_1d(check_lam(lams, name, allow_array=True))


def check_path(M: Any, v: Any, lams: Any, names: tuple[str, str] = ("X", "y"), *,
               matrix: str = "points", min_rows: int = 1, why: str = ""
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The arguments of a regularisation path, checked and returned as ``(M, v, lams)``.

    ``M, v`` as by :func:`check_pair` (same options), or with ``matrix="batch"`` a stack
    of datasets as by :func:`check_batch`; the penalties ``lams`` as by
    :func:`check_lam_grid`.
    """
    if matrix == "batch":
        M, v = check_batch(M, v)
    else:
        M, v = check_pair(M, v, names, matrix=matrix, min_rows=min_rows, why=why)
    lams = check_lam_grid(lams)
    return M, v, lams


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
    check_constraints(name, seed, ["random_state"])   # the rule of the declarations
    return as_generator(seed)


def as_generator(seed: Any) -> np.random.Generator:
    """The Generator of a ``random_state`` that a declaration has checked (see check_rng).

    Estimators whose ``_parameter_constraints``, and functions whose ``@validate_args``,
    declare ``"random_state": ["random_state"]`` convert it with this, unchecked again.
    """
    if isinstance(seed, np.random.RandomState):
        seed = seed.randint(np.iinfo(np.int64).max, dtype=np.int64)
    elif isinstance(seed, numbers.Integral):
        seed = int(seed)
    return np.random.default_rng(seed)   # a Generator is returned as it is
