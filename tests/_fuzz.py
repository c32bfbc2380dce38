"""Harness of the bad-input tests: malformed values, a time limit, and the contract.

An entry point is a function with a dict of valid keyword arguments.  One argument is
replaced by a malformed value of its kind; the call must, within a time limit, raise
``ValueError``, ``TypeError`` or ``MemoryError`` (kmlib's clear errors) or return a result
whose every number is finite.  A complex array must always be refused: its imaginary part would
otherwise be dropped silently, so a finite result is no excuse.
"""
from __future__ import annotations

import signal
import warnings
from contextlib import contextmanager
from typing import Any, Callable

import numpy as np

TIME_LIMIT = 20  # seconds per call; every valid call in the tables takes well under 0.1 s


def bad_values(valid: Any) -> list[Any]:
    """Malformed replacements for one valid argument (array, number, int or other)."""
    bad = [None, "abc", complex(1, 1), float("nan"), float("inf")]
    if isinstance(valid, np.ndarray):
        a = valid.astype(float)
        bad += [a * 1e200, a * 1e300, a * 1e-300, a + 5j, a.astype(str).astype(object),
                np.where(np.arange(a.size).reshape(a.shape) == 0, np.nan, a),
                np.where(np.arange(a.size).reshape(a.shape) == 0, np.inf, a),
                a[:0], a.ravel()[:1], a[..., None], -a, np.full(a.shape, 1e308)]
        if a.ndim == 2 and a.shape[0] == a.shape[1]:
            bad += [a - np.triu(np.ones_like(a), 1)]  # not symmetric
    elif isinstance(valid, bool):
        bad += [2.5]
    elif isinstance(valid, (int, np.integer)):
        bad += [0, -1, 10**12, 2.5, 10**300]
    elif isinstance(valid, float):
        bad += [1e300, 1e-300, -1.0, 0.0, 1e200, -1e300, 5e-324]
    return bad


def is_complex_array(value: Any) -> bool:
    return isinstance(value, np.ndarray) and value.dtype.kind == "c"


@contextmanager
def time_limit(seconds: int):
    def handler(signum, frame):
        raise TimeoutError(f"call did not return within {seconds} s")
    old = signal.signal(signal.SIGALRM, handler)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def numbers(result: Any):
    """Every number in a result (arrays, scalars, tuples, lists, dicts), as arrays."""
    if isinstance(result, dict):
        for v in result.values():
            yield from numbers(v)
    elif isinstance(result, (tuple, list)):
        for v in result:
            yield from numbers(v)
    elif isinstance(result, (bool, np.bool_)) or result is None:
        return
    elif isinstance(result, (int, float, np.number, np.ndarray)):
        a = np.asarray(result)
        if a.dtype.kind in "fciu":
            yield a


def check_contract(name: str, fn: Callable[..., Any], kwargs: dict, *,
                   allow_inf: bool = False, complex_arg: str | None = None) -> str:
    """Call ``fn(**kwargs)``; return "error" or "ok", or fail the contract.

    ``allow_inf``: the documented answer may be +inf (NaN is still refused).
    ``complex_arg``: the name of the argument holding a complex array, which must be refused.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a warning is allowed; the result is what is checked
        with time_limit(TIME_LIMIT):
            try:
                result = fn(**kwargs)
            except (ValueError, TypeError, MemoryError):
                return "error"
    assert complex_arg is None, f"{name} accepted the complex array {complex_arg}= silently"
    for a in numbers(result):
        ok = ~np.isnan(a) if allow_inf else np.isfinite(a)
        assert np.all(ok), f"{name} returned non-finite values for {kwargs!r}"
    return "ok"


def short(v: Any) -> str:
    if isinstance(v, np.ndarray):
        return f"array(shape={v.shape}, dtype={v.dtype}, first={v.ravel()[:1]})"
    return repr(v)


def sweep(name: str, fn: Callable[..., Any], valid: dict, *, allow_inf: bool = False
          ) -> list[str]:
    """Every bad value of every argument, one at a time; the list of contract failures."""
    failures = []
    for arg in valid:
        for bad in bad_values(valid[arg]):
            kwargs = dict(valid)
            kwargs[arg] = bad
            try:
                check_contract(name, fn, kwargs, allow_inf=allow_inf,
                               complex_arg=arg if is_complex_array(bad) else None)
            except Exception as exc:  # collect them all, report at once
                failures.append(f"{arg}={short(bad)}: {type(exc).__name__}: {exc}"[:300])
    return failures
