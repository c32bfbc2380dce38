"""Shared input validation for every public entry point of kmlib.

Every check raises :class:`ValueError` (or :class:`NotFittedError`) with a
message of one shape: *which argument*, *what was given*, *what is expected*.
"""
from __future__ import annotations

import functools
import numbers
from typing import Any, Callable, TypeVar

import numpy as np
import scipy.sparse
from numpy.typing import ArrayLike, NDArray
from sklearn.exceptions import NotFittedError

__all__ = [
    "NotFittedError",
    "EPS",
    "rank_tol",
    "eig_tol",
    "as_float_array",
    "check_n_features",
    "check_binary_labels",
    "check_finite_result",
    "finite_result",
    "check_gram_psd",
    "check_eigenvalues_psd",
    "PSD_RTOL",
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


# NotFittedError is scikit-learn's own (a ValueError and an AttributeError), so that
# ``except sklearn.exceptions.NotFittedError`` catches kmlib's estimators too.

#: Machine epsilon of float64, the unit of every rank and rounding tolerance in kmlib.
EPS = float(np.finfo(float).eps)

#: Relative tolerance of :func:`check_symmetric` (scaled by the largest |entry|).
SYMMETRY_RTOL = 1e-8


#: A Gram matrix counts as indefinite (not merely rounded) when an eigenvalue lies
#: below ``-PSD_RTOL * max|eigenvalue|``; rounding alone gives about n * eps.
PSD_RTOL = float(np.sqrt(EPS))


def rank_tol(s: ArrayLike, n: int, axis: int | None = None) -> Any:
    """Rank tolerance ``n * eps * max|s|``: values of ``s`` at or below it count as zero.

    This is the default of :func:`numpy.linalg.matrix_rank` for singular values
    (or eigenvalues of a symmetric matrix) of an n-by-n (or n-by-p, n = max) matrix.
    """
    a = np.abs(np.asarray(s, dtype=float))
    if a.size == 0 and axis is None:
        return 0.0
    return n * EPS * np.max(a, axis=axis)


def eig_tol(evals: ArrayLike, n: int) -> float:
    """Eigenvalue tolerance ``10 * n * eps * max(1, max|evals|)`` of an n-by-n symmetric matrix.

    The threshold below which an eigenvalue computed by LAPACK (backward error about
    ``n * eps * ||K||_2``) cannot be told from zero, with a safety factor of 10 and an
    absolute floor ``10 * n * eps`` for matrices of norm below one.  Used to decide
    positive (semi-)definiteness and the numerical rank of a Gram matrix.
    """
    ev = np.asarray(evals, dtype=float)
    top = float(np.max(np.abs(ev))) if ev.size else 0.0
    return 10.0 * n * EPS * max(1.0, top)


def as_float_array(X: ArrayLike, name: str) -> NDArray[np.float64]:
    """Convert ``X`` to a float64 array with a clear error for what cannot be converted.

    Rejects complex values (whose imaginary part numpy would silently drop),
    sparse matrices, and anything that is not numeric (strings, dicts, ...).
    """
    if X is None:
        raise ValueError(
            f"{name} is None; Expected array-like (array or non-string sequence), got None"
        )
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
        A = A.astype(float, copy=False)
    except TypeError as exc:
        raise TypeError(f"{name} must be a numeric array; got {type(X).__name__} ({exc})") from exc
    except ValueError as exc:
        raise ValueError(f"{name} must be a numeric array; got {type(X).__name__} ({exc})") from exc
    except OverflowError as exc:
        raise ValueError(f"{name} has a value too large for float64 ({exc})") from exc
    return A


def _finite(a: np.ndarray, name: str) -> None:
    if not np.all(np.isfinite(a)):
        bad = int(np.size(a) - np.count_nonzero(np.isfinite(a)))
        raise ValueError(
            f"{name} contains {bad} NaN or infinite value(s); "
            "remove or impute them before calling this function"
        )


def check_matrix(X: ArrayLike, name: str = "X", *, allow_1d: bool = True,
                 min_rows: int = 1, finite: bool = True) -> np.ndarray:
    """Return ``X`` as a float 2-D array of shape (n, d).

    A 1-D input of length n is read as n points in one dimension (shape (n, 1)),
    the convention used throughout the book for functions on an interval.
    """
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
        raise ValueError(
            f"{name} is empty: {A.shape[0]} sample(s) (shape={A.shape}) while a minimum of "
            f"{min_rows} is required."
        )
    if finite:
        _finite(A, name)
    return A


def check_vector(y: ArrayLike, name: str = "y", *, finite: bool = True,
                 min_len: int = 1) -> np.ndarray:
    """Return ``y`` as a float 1-D array (an (n, 1) column is flattened)."""
    v = as_float_array(y, name)
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


def check_square(K: ArrayLike, name: str = "K") -> np.ndarray:
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


def check_labels(y: ArrayLike, name: str = "y") -> np.ndarray:
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
    """Raise scikit-learn's :class:`NotFittedError` unless ``estimator`` has ``attribute``."""
    if getattr(estimator, attribute, None) is None:
        raise NotFittedError(
            f"This {type(estimator).__name__} instance is not fitted yet; call fit(X, y) "
            "before using this estimator"
        )


def check_n_features(estimator: Any, X: np.ndarray, what: str = "features") -> None:
    """Raise unless ``X`` has as many columns as the data ``estimator`` was fitted on.

    The message has scikit-learn's shape ("X has 3 features, but KernelRidge is
    expecting 2 features as input"), so tools built on scikit-learn recognise it.
    """
    expected = estimator.n_features_in_
    if X.shape[1] != expected:
        raise ValueError(
            f"X has {X.shape[1]} features, but {type(estimator).__name__} is expecting "
            f"{expected} features as input ({what} of the training data). Reshape your "
            f"data to (n_samples, {expected}) if it holds one sample or one feature"
        )


def check_binary_labels(y: ArrayLike, name: str = "y") -> tuple[np.ndarray, NDArray[np.float64]]:
    """Check two-class labels and code them as -1/+1.

    Any two distinct labels are accepted (numbers, strings, booleans).  As in
    scikit-learn, ``classes_ = np.unique(y)`` and the second class is coded +1.

    Returns
    -------
    classes : ndarray of shape (2,)
        The two labels in sorted order.
    y_pm : ndarray of shape (n,)
        ``+1.0`` where ``y == classes[1]``, ``-1.0`` elsewhere.
    """
    if scipy.sparse.issparse(y):
        raise TypeError(f"{name} is a sparse matrix; pass the labels as a 1-D array")
    if y is None:
        raise ValueError(
            f"{name} is None; Expected array-like (array or non-string sequence), got None"
        )
    arr = np.asarray(y)
    if arr.dtype.kind == "c":
        raise ValueError(f"{name} must hold class labels: Complex data not supported")
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D of shape (n_samples,); got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty; expected at least 2 labels")
    if arr.dtype.kind == "f":
        _finite(arr, name)
    elif arr.dtype.kind == "O":
        try:
            arr = arr.astype(str) if all(isinstance(v, str) for v in arr) else arr.astype(float)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name} must hold class labels (numbers or strings); {exc}") from exc
        if arr.dtype.kind == "f":
            _finite(arr, name)
    elif arr.dtype.kind not in "biuUS":
        raise ValueError(f"{name} must hold class labels; got dtype {arr.dtype}")
    classes = np.unique(arr)
    if classes.shape[0] > 2 and arr.dtype.kind == "f" and np.any(classes != np.round(classes)):
        raise ValueError(
            f"Unknown label type: {name} looks like a continuous target (non-integer values "
            f"such as {classes[classes != np.round(classes)][0]!r}); a classifier needs "
            "class labels"
        )
    if classes.shape[0] > 2:
        raise ValueError(
            f"Only binary classification is supported. {name} has {classes.shape[0]} classes "
            f"{classes[:5].tolist()}; wrap the classifier in "
            "sklearn.multiclass.OneVsRestClassifier for more than two"
        )
    if classes.shape[0] < 2:
        raise ValueError(
            f"{name} must contain two classes; got only one class, the label "
            f"{classes[0].tolist()!r}"
        )
    return classes, np.where(arr == classes[1], 1.0, -1.0)


def check_finite_result(value: Any, what: str, advice: str = "") -> Any:
    """Raise unless the computed ``value`` is finite.

    Used after a computation whose inputs were finite but whose result over- or
    underflowed (e.g. data of size 1e200), so that it never returns inf or NaN silently.
    """
    if not np.all(np.isfinite(value)):
        raise ValueError(
            f"{what} is not finite (overflow in floating point); "
            + (advice or "rescale the inputs (e.g. standardise X and y) and try again")
        )
    return value


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


def check_gram_psd(K: np.ndarray, name: str = "K", *, evals: Any = None,
                   who: str = "") -> None:
    """The one rule by which kmlib rejects a Gram matrix that no kernel could produce.

    A positive semi-definite kernel has ``k(x, x) = ||phi(x)||^2 >= 0``, so

    1. a negative diagonal entry of ``K`` raises (an O(n) test, run everywhere a
       Gram matrix enters, e.g. ``-K``);
    2. where the eigenvalues ``evals`` of ``K`` are computed anyway, an eigenvalue
       below ``-PSD_RTOL * max|evals|`` raises too (indefinite beyond rounding).

    Symmetric matrices with a non-negative diagonal whose indefiniteness is not
    seen by these tests are handled by the algorithms themselves (a pseudo-inverse
    with a :class:`RuntimeWarning`, or SMO's curvature floor).
    """
    prefix = f"{who}: " if who else ""
    diag = np.diagonal(K)
    if diag.size and float(np.min(diag)) < 0.0:
        i = int(np.argmin(diag))
        raise ValueError(
            f"{prefix}{name} is not a positive semi-definite Gram matrix: its diagonal "
            f"entry {name}[{i}, {i}] = {diag[i]:.3g} is negative, and k(x, x) >= 0 for every "
            "kernel. Check the sign and the kernel"
        )
    if evals is not None:
        check_eigenvalues_psd(evals, name, who=who)


def check_eigenvalues_psd(evals: ArrayLike, name: str = "K", *, who: str = "") -> None:
    """Rule 2 of :func:`check_gram_psd` alone, for eigenvalues already computed."""
    ev = np.asarray(evals, dtype=float)
    if ev.size == 0:
        return
    prefix = f"{who}: " if who else ""
    top = float(np.max(np.abs(ev)))
    low = float(np.min(ev))
    if low < -PSD_RTOL * top:
        raise ValueError(
            f"{prefix}{name} is not positive semi-definite: its smallest eigenvalue is "
            f"{low:.3g}, below -{PSD_RTOL:.2g} * max|eigenvalue| = {-PSD_RTOL * top:.3g} "
            "(more than rounding). Use a positive-definite kernel"
        )


def _all_numbers(result: Any):
    """Every numeric array in ``result`` (arrays, numbers, tuples, lists, dicts)."""
    if isinstance(result, dict):
        for v in result.values():
            yield from _all_numbers(v)
    elif isinstance(result, (tuple, list)):
        for v in result:
            yield from _all_numbers(v)
    elif isinstance(result, (bool, np.bool_)):
        return
    elif isinstance(result, (numbers.Number, np.ndarray)):
        a = np.asarray(result)
        if a.dtype.kind in "fc":
            yield a


F = TypeVar("F", bound=Callable[..., Any])


def finite_result(func: F | None = None, *, allow_inf: bool = False) -> Any:
    """Decorate a public function so that it never returns inf or NaN silently.

    Inputs are validated by the ``check_*`` functions; this guards the *result*:
    when finite inputs over- or underflow on the way (data of size 1e200, a
    variance of 1e-300), the call raises a :class:`ValueError` that says so instead
    of returning inf or NaN.  Requests too large to allocate (``n = 10**12``) and
    Python's own ``OverflowError`` become a :class:`ValueError` as well.

    ``@finite_result(allow_inf=True)`` is for the few functions whose documented
    answer can be ``inf`` (e.g. a threshold that does not exist); NaN is still refused.
    """
    if func is None:
        return functools.partial(finite_result, allow_inf=allow_inf)
    name = getattr(func, "__qualname__", getattr(func, "__name__", "kmlib"))

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
                out = func(*args, **kwargs)
        except MemoryError as exc:
            raise ValueError(
                f"{name}: the sizes requested need more memory than is available ({exc})"
            ) from None
        except OverflowError as exc:
            raise ValueError(f"{name}: a value is too large for float64 ({exc})") from None
        for a in _all_numbers(out):
            bad = np.isnan(a) if allow_inf else ~np.isfinite(a)
            if np.any(bad):
                raise ValueError(
                    f"{name}: the result is not finite (overflow or underflow in floating "
                    "point, or a NaN among the inputs); rescale the inputs (e.g. standardise "
                    "X and y) or use hyper-parameters of moderate size"
                )
        return out

    return wrapper  # type: ignore[return-value]
