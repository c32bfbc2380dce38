"""Glue computed numbers into the book's prose and pin them to their expected values.

Every number that a chapter's prose states about a computation is produced by
:func:`stated`: the value is glued under a key (myst-nb ``glue``), so the prose
quotes it with ``{glue:text}`key:.3f```, and it is compared with an expected
value that has an independent reason to be trusted (a closed form, a theorem's
bound, a second algorithm).  When a change in the code or in a library moves the
number out of its tolerance, executing the notebook fails, and so do ``make
test`` and ``make book``.
"""
from __future__ import annotations

import numbers
from typing import Any

import numpy as np

__all__ = ["stated", "Formatted"]


class Formatted:
    """A number that displays through a format spec (used when ``fmt`` is given)."""

    def __init__(self, value: float, fmt: str) -> None:
        self.value = value
        self.fmt = fmt

    def __repr__(self) -> str:
        return format(self.value, self.fmt)

    __str__ = __repr__


def _as_python_number(value: Any, key: str) -> float | int:
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"stated({key!r}): value must be a number, got a bool")
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    arr = np.asarray(value)
    if arr.shape == () and np.issubdtype(arr.dtype, np.number):
        return arr.item()
    raise ValueError(
        f"stated({key!r}): value must be a real scalar; got {type(value).__name__} "
        f"with shape {getattr(arr, 'shape', None)}"
    )


def stated(key: str, value: Any, expected: Any, *, rtol: float = 1e-7,
           atol: float = 0.0, fmt: str | None = None) -> float | int:
    """Glue ``value`` under ``key`` and check it against ``expected``.

    Parameters
    ----------
    key : str
        The glue key the prose uses, e.g. ``{glue:text}`ridge_threshold:.3f```.
    value : float or int
        The number the code computed.
    expected : float, int or (float, float)
        The reference value.  A pair ``(lo, hi)`` means the value must lie in
        the closed interval (use it for bounds: ``(-inf, bound)``).
    rtol, atol : float
        Tolerances of ``|value - expected| <= atol + rtol * |expected|``.
        Choose them to catch a real change yet survive BLAS thread counts.
    fmt : str, optional
        A format spec (``".3f"``, ``".1%"``); the glued object then displays
        already formatted, so the prose can write ``{glue:text}`key```.

    Returns
    -------
    float or int
        ``value`` as a plain Python number, so a cell can keep using it.

    Raises
    ------
    AssertionError
        When the value leaves the tolerance; the message names the key, the
        value and the expectation.
    """
    if not isinstance(key, str) or not key.isidentifier():
        raise ValueError(f"stated: key must be an identifier-like string; got {key!r}")
    v = _as_python_number(value, key)
    if not np.isfinite(v):
        raise AssertionError(f"stated {key!r}: value is {v!r}, not a finite number")
    if isinstance(expected, tuple):
        lo, hi = (float(e) for e in expected)
        if not lo <= v <= hi:
            raise AssertionError(
                f"stated {key!r}: value {v!r} lies outside the expected interval [{lo!r}, {hi!r}]"
            )
    else:
        e = float(expected)
        if rtol < 0 or atol < 0:
            raise ValueError(f"stated {key!r}: rtol and atol must be >= 0")
        if not abs(v - e) <= atol + rtol * abs(e):
            raise AssertionError(
                f"stated {key!r}: value {v!r} differs from the expected {e!r} by "
                f"{abs(v - e):.3g}, more than atol={atol!r} + rtol={rtol!r} * |expected|"
            )
    try:
        from myst_nb import glue
    except ImportError:  # pragma: no cover - kmlib runs without the book extras
        return v
    glue(key, Formatted(v, fmt) if fmt else v, display=False)
    return v
