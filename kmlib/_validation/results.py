"""Results: a computation from finite inputs must not return inf or NaN silently."""
from __future__ import annotations

import functools
import numbers
from typing import Any, Callable, TypeVar

import numpy as np


def check_finite_result(value: Any, what: str, advice: str = "", *,
                        allow_inf: bool = False, total: float | None = None) -> Any:
    """Raise unless the computed ``value`` is finite (``allow_inf``: is not NaN).

    Used after a computation whose inputs were finite but whose result over- or
    underflowed (e.g. data of size 1e200), so that it never returns inf or NaN silently.
    ``total``, the sum of ``value``'s entries when the caller has it (a transform sums its
    blocks while they are in cache): a finite sum means finite entries, and only a sum
    that is not finite (a bad entry, or finite entries whose sum overflows) leads to a
    look at every entry, so a large result needs no full-size temporary.
    """
    if total is not None and np.isfinite(total) and not allow_inf:
        return value
    if np.any(np.isnan(value) if allow_inf else ~np.isfinite(value)):
        raise ValueError(
            f"{what} is not finite: from finite inputs, a floating-point overflow (or an "
            "underflow followed by a division) made inf or NaN; "
            + (advice or "rescale the inputs (e.g. standardise X and y) or use "
               "hyper-parameters of moderate size")
        )
    return value


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
    of returning inf or NaN.  Python's own ``OverflowError`` becomes a :class:`ValueError`
    as well; a request too large to allocate (``n = 10**12``) stays a :class:`MemoryError`,
    whose message names the function.

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
        except MemoryError as exc:   # stays a MemoryError (Python's convention), named
            raise MemoryError(
                f"{name}: the sizes requested need more memory than is available ({exc})"
            ) from exc
        except OverflowError as exc:
            raise ValueError(f"{name}: a value is too large for float64 ({exc})") from None
        for a in _all_numbers(out):
            check_finite_result(a, f"{name}: the result", allow_inf=allow_inf)
        return out

    return wrapper


class FiniteResults:
    """Mixin of kmlib's estimators: their results are never inf or NaN silently.

    Each method named in ``_finite_methods`` that a class defines (an inherited one is
    guarded already) is wrapped by :func:`finite_result` when the class is created: one
    declaration per class instead of a decorator per method.  The guard is applied before
    the ``__init_subclass__`` of the other bases runs (e.g. scikit-learn's ``set_output``
    wrapper), so that it sees the array the method returns.
    """

    _finite_methods: tuple[str, ...] = ("predict", "transform", "decision_function")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        for name in cls._finite_methods:
            if name in vars(cls):
                setattr(cls, name, finite_result(vars(cls)[name]))
        super().__init_subclass__(**kwargs)
