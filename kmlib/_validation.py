"""Shared input validation for every public entry point of kmlib.

Every check raises :class:`ValueError` (or :class:`NotFittedError`) with a
message of one shape: *which argument*, *what was given*, *what is expected*.
"""
from __future__ import annotations

import numbers
from typing import Any

import numpy as np

__all__ = [
    "NotFittedError",
    "check_matrix",
    "check_vector",
    "check_same_length",
    "check_lam",
    "check_positive",
    "check_nonnegative",
    "check_int",
    "check_labels",
    "check_kernel",
    "check_rng",
    "check_fitted",
    "check_square",
    "check_real",
    "check_symmetric",
]


class NotFittedError(ValueError, AttributeError):
    """Raised when ``predict``-like methods are called before ``fit``."""


#: Relative tolerance of :func:`check_symmetric` (scaled by the largest |entry|).
SYMMETRY_RTOL = 1e-8


def _finite(a: np.ndarray, name: str) -> None:
    if not np.all(np.isfinite(a)):
        bad = int(np.size(a) - np.count_nonzero(np.isfinite(a)))
        raise ValueError(
            f"{name} contains {bad} NaN or infinite value(s); "
            "remove or impute them before calling this function"
        )


def check_matrix(X: Any, name: str = "X", *, allow_1d: bool = True,
                 min_rows: int = 1, finite: bool = True) -> np.ndarray:
    """Return ``X`` as a float 2-D array of shape (n, d).

    A 1-D input of length n is read as n points in one dimension (shape (n, 1)),
    the convention used throughout the book for functions on an interval.
    """
    try:
        A = np.asarray(X, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric array; got {type(X).__name__}") from exc
    if A.ndim == 1 and allow_1d:
        A = A[:, None]
    if A.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array of shape (n_samples, n_features)"
            f"{' or a 1-D array' if allow_1d else ''}; got an array with ndim={A.ndim}"
        )
    if A.shape[0] < min_rows or A.shape[1] == 0:
        raise ValueError(
            f"{name} is empty (shape {A.shape}); expected at least {min_rows} row(s) "
            "and one column"
        )
    if finite:
        _finite(A, name)
    return A


def check_vector(y: Any, name: str = "y", *, finite: bool = True,
                 min_len: int = 1) -> np.ndarray:
    """Return ``y`` as a float 1-D array (an (n, 1) column is flattened)."""
    try:
        v = np.asarray(y, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric array; got {type(y).__name__}") from exc
    if v.ndim == 2 and v.shape[1] == 1:
        v = v[:, 0]
    if v.ndim != 1:
        raise ValueError(f"{name} must be 1-D of shape (n_samples,); got shape {v.shape}")
    if v.shape[0] < min_len:
        raise ValueError(f"{name} is empty; expected at least {min_len} value(s)")
    if finite:
        _finite(v, name)
    return v


def check_same_length(a: np.ndarray, b: np.ndarray, name_a: str = "X",
                      name_b: str = "y") -> None:
    """Raise if ``a`` and ``b`` do not have the same number of rows."""
    if len(a) != len(b):
        raise ValueError(
            f"{name_a} and {name_b} must have the same number of samples; "
            f"got {len(a)} and {len(b)}"
        )


def check_square(K: Any, name: str = "K") -> np.ndarray:
    """Return ``K`` as a finite float square 2-D array."""
    A = check_matrix(K, name, allow_1d=False)
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"{name} must be a square matrix; got shape {A.shape}")
    return A


def check_real(value: Any, name: str) -> float:
    """Return ``value`` as a float, raising unless it is a finite real number (any sign)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number; got {value!r}")
    v = float(value)
    if not np.isfinite(v):
        raise ValueError(f"{name} must be finite; got {value!r}")
    return v


def check_nonnegative(value: Any, name: str) -> float:
    """Return ``value`` as a float, raising unless it is finite and >= 0."""
    v = check_real(value, name)
    if v < 0:
        raise ValueError(f"{name} must be >= 0; got {value!r}")
    return v


def check_positive(value: Any, name: str) -> float:
    """Return ``value`` as a float, raising unless it is finite and > 0."""
    v = check_real(value, name)
    if v <= 0:
        raise ValueError(f"{name} must be > 0; got {value!r}")
    return v


def check_lam(lam: Any, name: str = "lam", *, allow_array: bool = False) -> Any:
    """Validate a regularisation parameter (or a grid of them): finite and >= 0."""
    if allow_array and np.ndim(lam) > 0:
        arr = np.asarray(lam, dtype=float)
        if arr.ndim != 1 or arr.size == 0:
            raise ValueError(f"{name} must be a non-empty 1-D grid of values; got shape {arr.shape}")
        _finite(arr, name)
        if np.any(arr < 0):
            raise ValueError(
                f"{name} must contain only values >= 0; got minimum {arr.min()!r}"
            )
        return arr
    return check_nonnegative(lam, name)


def check_int(value: Any, name: str, *, minimum: int = 1,
              maximum: int | None = None) -> int:
    """Return ``value`` as an int in [minimum, maximum]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer; got {value!r}")
    v = int(value)
    if v < minimum:
        raise ValueError(f"{name} must be >= {minimum}; got {v}")
    if maximum is not None and v > maximum:
        raise ValueError(f"{name} must be <= {maximum}; got {v}")
    return v


def check_labels(y: Any, name: str = "y") -> np.ndarray:
    """Return labels as a float array, raising unless every entry is -1 or 1."""
    v = check_vector(y, name)
    bad = ~np.isin(v, (-1.0, 1.0))
    if np.any(bad):
        found = np.unique(v[bad])[:5]
        raise ValueError(
            f"{name} must contain only the labels -1 and 1; found {found.tolist()}. "
            "Recode the classes, e.g. y = np.where(y == positive_class, 1, -1)"
        )
    return v


def check_kernel(kernel: Any, name: str = "kernel") -> Any:
    """Raise unless ``kernel`` is callable as ``kernel(X, Y)``."""
    if not callable(kernel):
        raise ValueError(
            f"{name} must be a callable k(X, Y) returning a Gram matrix, e.g. "
            f"kmlib.kernels.gaussian(1.0); got {type(kernel).__name__}"
        )
    return kernel


def check_rng(seed: Any, name: str = "seed") -> np.random.Generator:
    """Turn ``seed`` (None, int or Generator) into a :class:`numpy.random.Generator`."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or (isinstance(seed, numbers.Integral) and not isinstance(seed, bool)):
        return np.random.default_rng(seed)
    raise ValueError(f"{name} must be None, an int or a numpy Generator; got {seed!r}")


def check_fitted(estimator: Any, attribute: str) -> None:
    """Raise :class:`NotFittedError` unless ``estimator`` has ``attribute``."""
    if getattr(estimator, attribute, None) is None:
        raise NotFittedError(
            f"this {type(estimator).__name__} is not fitted yet; call fit(X, y) first"
        )


def check_symmetric(K: np.ndarray, name: str = "K") -> None:
    """Raise unless the square matrix ``K`` is finite and symmetric up to rounding.

    The comparison runs tile by tile (each tile against its mirror image), so
    it stays cache-friendly and never allocates a second n-by-n array (Gram
    matrices in the book reach n = 5000).  A NaN or infinite entry makes its
    tile difference non-finite, so the same pass also rejects those.
    """
    n = K.shape[0]
    b = 128
    buf = np.empty((b, b))
    worst = 0.0
    scale = 0.0
    for i in range(0, n, b):
        for j in range(i, n, b):
            upper = K[i:i + b, j:j + b]
            mirror = K[j:j + b, i:i + b].T
            out = buf[: upper.shape[0], : upper.shape[1]]
            with np.errstate(over="ignore", invalid="ignore"):
                np.subtract(upper, mirror, out=out)
            diff = float(np.max(np.abs(out, out=out)))
            if not np.isfinite(diff):
                if not (np.all(np.isfinite(upper)) and np.all(np.isfinite(mirror))):
                    raise ValueError(
                        f"{name} contains NaN or infinite values; a Gram matrix must be "
                        "finite (check the kernel and its inputs)"
                    )
                diff = np.inf  # finite entries whose difference overflows
            worst = max(worst, diff)
            scale = max(scale, float(np.max(upper)), -float(np.min(upper)))
    scale = max(scale, np.finfo(float).tiny)
    if worst > SYMMETRY_RTOL * scale:
        raise ValueError(
            f"{name} must be a symmetric Gram matrix; got max |{name} - {name}.T| = "
            f"{worst:.3g} (relative {worst / scale:.3g}, allowed {SYMMETRY_RTOL:g})"
        )
