"""Array arguments: conversion to float64 and checks of shape, finiteness and length."""
from __future__ import annotations

import functools
from typing import Any, Callable, Literal, overload

import numpy as np
import scipy.sparse
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator
from sklearn.utils import check_array


def check_given(X: Any, name: str) -> None:
    """Raise unless ``X`` is given (not None), in scikit-learn's words."""
    if X is None:
        raise ValueError(f"{name} is None; Expected array-like (array or non-string sequence), "
                         "got None")


def as_float_array(X: ArrayLike, name: str) -> NDArray[np.float64]:
    """Convert ``X`` to a float64 array with a clear error for what cannot be converted.

    Rejects complex values (whose imaginary part numpy would silently drop),
    sparse matrices, and anything that is not numeric (strings, dicts, ...).
    """
    check_given(X, name)
    if scipy.sparse.issparse(X):
        raise TypeError(
            f"{name} is a sparse matrix; sparse input is not supported, pass a dense "
            f"array, e.g. {name}.toarray()"
        )
    try:
        A = np.asarray(X)
    except (TypeError, ValueError) as exc:  # e.g. ragged nested lists
        raise ValueError(f"{name} must be a numeric array; got {type(X).__name__} ({exc})") from exc
    if A.dtype.kind == "c" or (A.dtype.kind == "O"
                               and any(isinstance(v, complex) for v in A.flat)):
        raise ValueError(
            f"{name} must be real: Complex data not supported (got dtype {A.dtype}); "
            "pass the real part explicitly if that is what you mean"
        )
    try:
        return A.astype(float, copy=False)
    except (TypeError, ValueError, OverflowError) as exc:  # a TypeError stays a TypeError
        kind = TypeError if isinstance(exc, TypeError) else ValueError
        raise kind(f"{name} must be a numeric array of float64 values; got "
                   f"{type(X).__name__} ({exc})") from exc


def _is_float32(A: Any) -> bool:
    return getattr(A, "dtype", None) == np.float32


def _called(obj: Any, method: Callable[..., Any]) -> str:
    """What the user called: ``KernelPCA.transform``, ``linear()``, ``linear().diag``."""
    if isinstance(obj, BaseEstimator):
        return f"{type(obj).__name__}.{method.__name__}"
    text = repr(obj)
    if method.__name__ == "__call__":
        return text
    return f"({text}).{method.__name__}" if " " in text else f"{text}.{method.__name__}"


def preserve_float32(method: Callable[..., Any] | None = None, *, pair: bool = False) -> Any:
    """Return a method's array result in float32 when its input ``X`` is float32.

    scikit-learn's rule for its kernels and transformers: float32 in, float32 out (a Gram
    matrix of two arguments is float32 when both are).  kmlib computes in float64 and
    rounds the result once; a result beyond float32's range raises a ValueError instead
    of becoming inf.  ``pair``: the method takes ``(X, Y=None)``, and Y must be float32 too.
    """
    if method is None:
        return functools.partial(preserve_float32, pair=pair)

    @functools.wraps(method)
    def wrapper(self: Any, X: Any, *args: Any, **kwargs: Any) -> Any:
        out = method(self, X, *args, **kwargs)
        Y = (args[0] if args else kwargs.get("Y")) if pair else None
        if not (_is_float32(X) and (Y is None or _is_float32(Y))):
            return out
        with np.errstate(over="ignore"):
            out32 = out.astype(np.float32)
        if not np.all(np.isfinite(out32)) and np.all(np.isfinite(out)):
            raise ValueError(f"{_called(self, method)}: the result exceeds the range of float32 "
                             "(about 3.4e38); pass the input as float64")
        return out32

    return wrapper


def _finite(a: np.ndarray, name: str) -> None:
    """Raise unless every entry of ``a`` is finite.

    A finite sum means finite entries (scikit-learn's fast path: one pass, no n-sized
    temporary); only a sum that is not finite (a bad entry, or large entries whose sum
    overflows) leads to a look at every entry.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(np.sum(a)):
            return
    if not np.all(np.isfinite(a)):
        bad = int(np.size(a) - np.count_nonzero(np.isfinite(a)))
        raise ValueError(
            f"{name} contains {bad} NaN or infinite value(s); "
            "remove or impute them before calling this function"
        )


@overload
def check_matrix(X: ArrayLike, name: str = ..., *, allow_1d: bool = ..., min_rows: int = ...,
                 finite: bool = ..., accept_sparse: Literal[False] = ...,
                 why: str = ..., square: bool = ...) -> np.ndarray: ...
@overload
def check_matrix(X: Any, name: str = ..., *, allow_1d: bool = ..., min_rows: int = ...,
                 finite: bool = ..., accept_sparse: bool, why: str = ...,
                 square: bool = ...) -> Any: ...
def check_matrix(X: Any, name: str = "X", *, allow_1d: bool = True, min_rows: int = 1,
                 finite: bool = True, accept_sparse: bool = False, why: str = "",
                 square: bool = False) -> Any:
    """Return ``X`` as a float 2-D array of shape (n, d), with at least ``min_rows`` rows.

    A 1-D input of length n is read as n points in one dimension (shape (n, 1)),
    the convention used throughout the book for functions on an interval.  With
    ``accept_sparse``, a ``scipy.sparse`` matrix is returned as a float64 CSR matrix,
    checked by scikit-learn's public ``check_array`` (finite, not empty); otherwise it
    is refused with a TypeError that names ``X.toarray()``.  ``why`` says, in the message
    for too few rows, why ``min_rows`` are needed.  With ``square`` (dense only), the
    matrix must be square, as by :func:`check_square`.
    """
    if accept_sparse and scipy.sparse.issparse(X):
        return check_array(X, accept_sparse="csr", dtype=np.float64, input_name=name,
                           ensure_min_samples=min_rows)
    A = as_float_array(X, name)
    if A.ndim == 1 and allow_1d:
        A = A[:, None]
    if A.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array of shape (n_samples, n_features)"
            f"{' or a 1-D array' if allow_1d else ''}; got an array with ndim={A.ndim}"
        )
    if A.shape[1] == 0:
        raise ValueError(
            f"{name} is empty: 0 feature(s) (shape={A.shape}) while a minimum of 1 is required."
        )
    if A.shape[0] < min_rows:
        has = "is empty: 0" if A.shape[0] == 0 else f"has {A.shape[0]}"
        raise ValueError(f"{name} {has} sample(s) (shape={A.shape}) while a minimum of "
                         f"{min_rows} is required{f' ({why})' if why else ''}.")
    if finite:
        _finite(A, name)
    if square and A.shape[0] != A.shape[1]:
        raise ValueError(f"{name} must be a square matrix; got shape {A.shape}")
    return A


def check_vector(y: ArrayLike, name: str = "y", *, finite: bool = True,
                 min_len: int = 1, length: int | None = None) -> np.ndarray:
    """Return ``y`` as a float 1-D array (an (n, 1) column is flattened).

    With ``length``, ``y`` must have exactly that many entries.
    """
    v = as_float_array(y, name)
    if v.ndim == 2 and v.shape[1] == 1:
        v = v[:, 0]
    if v.ndim != 1:
        raise ValueError(f"{name} must be 1-D of shape (n_samples,); got shape {v.shape}")
    if v.shape[0] < min_len:
        raise ValueError(f"{name} is empty; expected at least {min_len} value(s)")
    if length is not None and v.shape[0] != length:
        raise ValueError(f"{name} must have length {length}; got {v.shape[0]}")
    if finite:
        _finite(v, name)
    return v


def check_targets(y: ArrayLike, name: str = "y", *, multi_output: bool = True) -> np.ndarray:
    """Return a regression's responses: shape (n,), or (n, t) for t outputs.

    A column (n, 1) is flattened, as by :func:`check_vector`; with ``multi_output=False``
    every other shape is refused as by :func:`check_vector` too.
    """
    Y = as_float_array(y, name)
    if multi_output and Y.ndim >= 2 and Y.shape[1:] != (1,):
        return check_matrix(Y, name, allow_1d=False)
    return check_vector(Y, name)


def check_same_length(a: Any, b: Any, name_a: str = "X", name_b: str = "y", *,
                      axis: int = 0) -> None:
    """Raise unless ``a`` and ``b`` have the same number of rows (``axis=1``: of columns)."""
    what = "samples" if axis == 0 else "features (columns)"
    if a.shape[axis] != b.shape[axis]:
        raise ValueError(f"{name_a} and {name_b} must have the same number of {what}; "
                         f"got {a.shape[axis]} and {b.shape[axis]}")


def check_square(K: ArrayLike, name: str = "K", *, min_rows: int = 1,
                 why: str = "") -> np.ndarray:
    """Return ``K`` as a finite float square 2-D array (``min_rows``: see check_matrix)."""
    return check_matrix(K, name, allow_1d=False, min_rows=min_rows, why=why, square=True)


def check_unit_interval(X: Any, name: str = "x", who: str = "", *,
                        min_rows: int = 1) -> np.ndarray:
    """Return ``X`` as a finite (n, 1) float array of points of [0, 1] (1-D: n points).

    ``who`` (e.g. a kernel's repr) is named in the messages.
    """
    A = check_matrix(X, name, min_rows=min_rows)
    for_who = f" for {who}" if who else ""
    if A.shape[1] != 1:
        raise ValueError(f"{name} must hold points of [0, 1], i.e. have one column (or be 1-D)"
                         f"{for_who}; got {A.shape[1]} columns")
    if np.any(A < 0.0) or np.any(A > 1.0):
        raise ValueError(f"{name} must lie in [0, 1]{for_who}; got values in "
                         f"[{A.min()!r}, {A.max()!r}]")
    return A


def check_batch(X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    """A stack of datasets: finite X of shape (R, n, p) and y of shape (R, n)."""
    X, y = as_float_array(X, "X"), as_float_array(y, "y")
    if X.ndim != 3 or min(X.shape) == 0:
        raise ValueError(f"X must have shape (n_datasets, n, p) with no empty axis; got {X.shape}")
    if y.shape != X.shape[:2]:
        raise ValueError(f"y must have shape (n_datasets, n) = {X.shape[:2]}; got {y.shape}")
    _finite(X, "X")
    _finite(y, "y")
    return X, y
