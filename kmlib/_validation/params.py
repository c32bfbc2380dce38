"""Declarative constraints on hyper-parameters and arguments, checked once at the boundary.

The pattern of scikit-learn's ``_parameter_constraints``, written with public APIs only:
an estimator lists, per constructor parameter, what it accepts::

    _parameter_constraints = {"lam": [Interval(Real, 0, None, closed="left")],
                              "kernel": ["kernel"], "random_state": ["random_state"]}

and its ``fit`` calls :func:`validate_params` once, first.  A public function declares its
arguments' constraints with the decorator :func:`validate_args`.  A constraint is one of

* :class:`Interval` (integers or finite reals between two bounds; ``math.inf`` as the
  right bound of a closed interval admits infinity),
* :class:`Options` (a fixed set of values, e.g. strings),
* ``None`` (the value None), ``callable`` (any callable), a type (``isinstance``),
* the strings ``"kernel"`` (a callable ``k(X, Y)`` or ``"precomputed"``),
  ``"random_state"`` (None, an int, a numpy Generator or a RandomState),
  ``"kernel factory"`` (a callable ``p -> kernel``), ``"non-empty collection"`` (a
  list, tuple or array with at least one entry), ``"boolean"`` and ``"array-like"``
  (anything but None and a string; the array itself is checked where it is converted).

A value passes if it satisfies one constraint of its list; otherwise a :class:`ValueError`
says which parameter, what was given and what is accepted, e.g.
``"KernelRidge: lam must be >= 0; got -1.0"``.
"""
from __future__ import annotations

import functools
import inspect
import math
import numbers
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from .estimators import check_feature_names

Real, Integral = numbers.Real, numbers.Integral


def _as_real(v: Any) -> float:
    """``v`` as a float; a Python int beyond float64's range reads as +-inf."""
    try:
        return float(v)
    except OverflowError:
        return math.inf if v > 0 else -math.inf


class Interval:
    """Numbers of ``kind`` (``Real`` or ``Integral``) between ``left`` and ``right``.

    ``closed`` is ``"left"``, ``"right"``, ``"both"`` or ``"neither"``; a bound None is
    unbounded.  Reals must be finite unless ``right`` is ``math.inf`` and closed.
    """

    def __init__(self, kind: type, left: float | None, right: float | None,
                 closed: str = "both") -> None:
        self.kind, self.left, self.right, self.closed = kind, left, right, closed

    def _has_type(self, v: Any) -> bool:
        return isinstance(v, self.kind) and not isinstance(v, (bool, np.bool_))

    def _in_bounds(self, v: Any) -> bool:
        lo_closed, hi_closed = self.closed in ("left", "both"), self.closed in ("right", "both")
        if self.left is not None and not (v >= self.left if lo_closed else v > self.left):
            return False
        if self.right is not None and not (v <= self.right if hi_closed else v < self.right):
            return False
        if self.kind is Integral:   # an int is finite whatever its size
            return True
        x = _as_real(v)
        return not math.isnan(x) and (not math.isinf(x) or x == self.right)

    def __call__(self, v: Any) -> bool:
        return self._has_type(v) and self._in_bounds(v)

    def bounds(self) -> str:
        """The bounds alone: ``"> 0"``, ``">= 0 (or inf)"``, ``"in (0, 1)"`` or ``""``."""
        lo, hi = self.left, self.right
        lo_closed, hi_closed = self.closed in ("left", "both"), self.closed in ("right", "both")
        if lo is not None and hi is not None and hi != math.inf:
            return f"in {'[' if lo_closed else '('}{lo:g}, {hi:g}{']' if hi_closed else ')'}"
        if lo is not None:
            return f"{'>=' if lo_closed else '>'} {lo:g}" + (" (or inf)" if hi == math.inf else "")
        return "" if hi is None else f"{'<=' if hi_closed else '<'} {hi:g}"

    def noun(self) -> str:
        return "an integer" if self.kind is Integral else "a real number"

    def describe(self) -> str:
        return f"{self.noun()} {self.bounds()}".rstrip()


class Options:
    """One of a fixed set of values (compared with ``==``)."""

    def __init__(self, *values: Any) -> None:
        self.values = values

    def __call__(self, v: Any) -> bool:
        return isinstance(v, type(self.values[0])) and v in self.values

    def describe(self) -> str:
        return "one of " + ", ".join(repr(v) for v in self.values)


#: The intervals most hyper-parameters use.
POSITIVE = Interval(Real, 0, None, closed="neither")
NONNEGATIVE = Interval(Real, 0, None, closed="left")
POSITIVE_INT = Interval(Integral, 1, None, closed="left")


def _random_state(v: Any) -> bool:
    return v is None or isinstance(v, (np.random.Generator, np.random.RandomState)) or (
        isinstance(v, Integral) and not isinstance(v, bool))


_NAMED: dict[str, tuple[Callable[[Any], bool], str]] = {
    "kernel": (lambda v: callable(v) or (isinstance(v, str) and v == "precomputed"),
               "a callable k(X, Y) returning a Gram matrix (e.g. kmlib.kernels.gaussian(1.0))"
               " or the string 'precomputed'"),
    "callable kernel": (callable, "a callable k(X, Y) returning a Gram matrix (e.g. "
                        "kmlib.kernels.gaussian(1.0))"),
    "random_state": (_random_state, "None, an int, a numpy Generator or a RandomState"),
    "kernel factory": (callable, "a callable p -> kernel, e.g. "
                       "lambda s: kmlib.kernels.gaussian(s)"),
    "non-empty collection": (lambda v: hasattr(v, "__len__") and hasattr(v, "__iter__")
                             and not isinstance(v, (str, bytes)) and len(v) > 0,
                             "a non-empty sequence (a list, tuple or array)"),
    "boolean": (lambda v: isinstance(v, (bool, np.bool_)), "True or False"),
    "array-like": (lambda v: v is not None and not isinstance(v, str), "an array"),
}


def _accepts(constraint: Any, v: Any) -> bool:
    if constraint is None:
        return v is None
    if isinstance(constraint, str):
        return _NAMED[constraint][0](v)
    if constraint is callable:
        return callable(v)
    if isinstance(constraint, type):
        return isinstance(v, constraint)
    return constraint(v)


def _describe(constraint: Any) -> str:
    if constraint is None:
        return "None"
    if isinstance(constraint, str):
        return _NAMED[constraint][1]
    if constraint is callable:
        return "a callable"
    if isinstance(constraint, type):
        return f"an instance of {getattr(constraint, '_constraint_name', constraint.__name__)}"
    return constraint.describe()


def check_constraints(name: str, value: Any, allowed: Sequence[Any], who: str = "",
                      hint: str = "") -> None:
    """Raise a ValueError unless ``value`` satisfies one constraint of ``allowed``.

    With a single interval (and perhaps None) the message says which rule failed:
    the type, finiteness or the bound ("sigma must be > 0; got 0.0").  ``hint`` (why
    the rule holds) ends the message, in parentheses.
    """
    if any(_accepts(c, value) for c in allowed):
        return
    prefix = f"{who}: " if who else ""
    intervals = [c for c in allowed if isinstance(c, Interval)]
    if len(intervals) == 1 and len(allowed) - (None in allowed) == 1:
        iv = intervals[0]
        bounds = iv.bounds()
        rule = ("be " + iv.noun() if not iv._has_type(value)
                else "be finite" if not math.isfinite(_as_real(value)) and value != iv.right
                else ("lie " if bounds.startswith("in") else "be ") + bounds)
        rule += " or None" if None in allowed else ""
    else:
        rule = "be " + ", or ".join(_describe(c) for c in allowed)
    why = f" ({hint})" if hint else ""
    raise ValueError(f"{prefix}{name} must {rule}; got {value!r}{why}")


def validate_params(estimator: Any, X: Any = None) -> None:
    """Check every hyper-parameter of ``estimator`` against its ``_parameter_constraints``.

    An optional class attribute ``_parameter_hints`` (name -> text) adds why a rule
    holds to the message of that parameter.  Given ``X``, the training data of ``fit``,
    then record its column names (a DataFrame's), as scikit-learn's ``validate_data``
    does with ``reset=True``: the first step of every ``fit``.
    """
    params, cls = estimator.get_params(deep=False), type(estimator)
    hints = getattr(cls, "_parameter_hints", {})
    for name, allowed in cls._parameter_constraints.items():
        check_constraints(name, params[name], allowed, cls.__name__, hints.get(name, ""))
    if X is not None:
        check_feature_names(estimator, X, reset=True)


def validate_args(constraints: Mapping[str, Sequence[Any]]) -> Callable[[Callable], Callable]:
    """Decorate a public function: its named arguments are checked before it runs."""
    def decorate(func: Callable) -> Callable:
        sig = inspect.signature(func)

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            bound = sig.bind(*args, **kwargs)
            for name, allowed in constraints.items():
                if name in bound.arguments:
                    check_constraints(name, bound.arguments[name], allowed)
            return func(*args, **kwargs)
        return wrapper
    return decorate
