"""Coercion of students' answers, shared by the exercise checkers of every chapter.

The checkers in :mod:`kmlib.book.exercises.ch01` (chapter 1, ridge regression) and
:mod:`kmlib.book.exercises.ch02` (chapter 2, choosing lambda) receive whatever a
student assigned to a variable: ``None`` (the stub of the student version), a
list, an array, a string, a bool.  The two functions here turn a valid answer
into a float array or a float and raise ``AssertionError`` with a hint
otherwise, so that a notebook check cell fails with a readable message.

:func:`digest` and :func:`matches_digest` let a student's self-check recognise a
number without shipping it: the self-check holds only a slow salted hash
(PBKDF2-HMAC-SHA256) of the value rounded to a few significant digits, so reading the
checker's source does not give the answer away, and guessing it by brute force costs
days instead of seconds.
"""
from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

__all__ = ["answer_array", "answer_scalar", "digest", "matches_digest"]

DIGEST_ITERATIONS = 50_000


def _require(answer: Any, name: str) -> None:
    """Raise unless the student assigned something to ``name``."""
    if answer is None:
        raise AssertionError(f"`{name}` is None: assign your answer to `{name}` first")


def answer_array(answer: Any, name: str, shape: tuple[int, ...]) -> np.ndarray:
    """Return the answer ``name`` as a finite float array of the expected ``shape``.

    Parameters
    ----------
    answer : object
        What the student assigned.
    name : str
        The variable's name, quoted in the messages.
    shape : tuple of int
        The shape the answer must have.

    Returns
    -------
    ndarray
        ``answer`` as a float array.

    Raises
    ------
    AssertionError
        If ``answer`` is None, not numeric, of another shape, or not finite.
    """
    _require(answer, name)
    try:
        a = np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError(
            f"`{name}` must be a numeric array; got {type(answer).__name__}"
        ) from None
    if a.shape != shape:
        raise AssertionError(f"`{name}` must have shape {shape}; got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise AssertionError(f"`{name}` contains NaN or infinite values")
    return a


def answer_scalar(answer: Any, name: str) -> float:
    """Return the answer ``name`` as one finite float.

    Parameters
    ----------
    answer : object
        What the student assigned: a number, or an array holding one number.
    name : str
        The variable's name, quoted in the messages.

    Returns
    -------
    float

    Raises
    ------
    AssertionError
        If ``answer`` is None, a bool, not numeric, not a single number, or not finite.
    """
    _require(answer, name)
    if isinstance(answer, (bool, np.bool_)):
        raise AssertionError(f"`{name}` must be a number; got a bool")
    try:
        a = np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError(f"`{name}` must be a number; got {type(answer).__name__}") from None
    if a.size != 1:
        raise AssertionError(f"`{name}` must be a single number; got an array of shape {a.shape}")
    v = float(a.reshape(()))
    if not np.isfinite(v):
        raise AssertionError(f"`{name}` must be finite; got {v}")
    return v


def _rounded(value: float, digits: int) -> str:
    """``value`` in scientific notation with ``digits`` significant digits; ``0`` for zero."""
    if value == 0.0:
        return "0"
    return f"{value:.{digits - 1}e}"


def digest(value: float, salt: str, digits: int = 6) -> str:
    """Salted slow hash of ``value`` rounded to ``digits`` significant digits.

    Parameters
    ----------
    value : float
        The number to hide.
    salt : str
        A string proper to the exercise (for example its answer's name), so that equal
        values of two exercises have unrelated digests.
    digits : int, default 6
        Significant digits kept before hashing.

    Returns
    -------
    str
        The PBKDF2-HMAC-SHA256 digest, hexadecimal.
    """
    text = _rounded(float(value) + 0.0, digits).encode()
    return hashlib.pbkdf2_hmac("sha256", text, salt.encode(), DIGEST_ITERATIONS).hex()


def matches_digest(value: float, expected: str, salt: str, digits: int = 6) -> bool:
    """Whether ``value`` rounds to the number whose :func:`digest` is ``expected``.

    The value and its two neighbours ``value * (1 +- 10**-digits)`` are tried, so a
    value within about one part in ``10**digits`` of the hidden number matches even
    when the two lie on either side of a rounding boundary.

    Parameters
    ----------
    value : float
        The student's number.
    expected : str
        ``digest(reference, salt, digits)``.
    salt, digits :
        As given to :func:`digest`.

    Returns
    -------
    bool
    """
    step = 10.0 ** -digits
    return any(digest(value * f, salt, digits) == expected for f in (1.0, 1 + step, 1 - step))
