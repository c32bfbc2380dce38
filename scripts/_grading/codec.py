"""Answers as plain data: the one format that crosses between the grader's processes.

A student's answer leaves the student's sandbox (``run_student.py``), a function answer's
arguments and return value cross between the checks (``run_checks.py``) and the function's
own sandbox (``run_function.py``), always in this form and never as a Python object: JSON
whose arrays are ``.npy`` bytes (``allow_pickle=False``) in base64. Nothing here executes
or unpickles anything; a function travels as its source text, which only
``run_function.py``, in a sandbox without the lecturer's files, ever compiles.

:func:`loads` parses untrusted JSON only after checking its size and its nesting depth
(a deep ``[[[[...]]]]`` would otherwise exhaust the parser's recursion).
"""
from __future__ import annotations

import base64
import importlib
import io
import json
import re
import types

MAX_ITEMS = 100_000
MAX_DEPTH = 20            # nesting of answers (lists of lists ...)
MAX_JSON_DEPTH = 200      # nesting of the JSON text that carries them
MAX_BYTES = 256 * 2**20
MODULES_OK = ("numpy", "scipy", "math", "cmath", "kmlib", "sklearn", "itertools", "functools",
              "collections", "statistics", "operator", "fractions")


class DataError(ValueError):
    """Untrusted data that is too large, too deep or not in the expected form."""


STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def json_depth(text: bytes | str, limit: int = MAX_JSON_DEPTH) -> int:
    """The nesting depth of the JSON ``text``; raise :class:`DataError` beyond ``limit``.

    Strings are removed, then the brackets counted in a loop: nothing recurses, so any
    input is safe, and the base64 of arrays (inside strings) costs almost nothing.
    """
    data = text.encode() if isinstance(text, str) else bytes(text)
    brackets = STRING.sub(b"", data).translate(None, NOT_BRACKETS)
    depth = deepest = 0
    for byte in brackets:
        if byte in (0x5B, 0x7B):    # [ {
            depth += 1
            if depth > limit:
                raise DataError(f"nested more than {limit} deep")
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def json_values(text: bytes | str) -> int:
    """About how many JSON values ``text`` holds (its ``[ { , :`` outside strings).

    Parsed, each costs the parser's process tens of bytes (an empty ``{}`` in 3 bytes of
    text becomes a 64-byte dict), so this bounds the memory of a parse before it starts.
    """
    data = text.encode() if isinstance(text, str) else bytes(text)
    skeleton = STRING.sub(b"", data)
    return sum(skeleton.count(c) for c in (b"[", b"{", b",", b":"))


def loads(text: bytes | str, max_bytes: int = MAX_BYTES, max_depth: int = MAX_JSON_DEPTH,
          max_values: int | None = None):
    """``json.loads`` of untrusted ``text`` after a size, a depth and a count check."""
    if len(text) > max_bytes:
        raise DataError(f"larger than {max_bytes // 2**20} MB")
    json_depth(text, max_depth)
    if max_values is not None and json_values(text) > max_values:
        raise DataError(f"more than {max_values} values")
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise DataError(f"not valid JSON ({type(exc).__name__})") from None


def _npy(array) -> str:
    import numpy as np

    buf = io.BytesIO()
    np.save(buf, np.asarray(array), allow_pickle=False)  # (ascontiguousarray makes 0-d 1-d)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _from_npy(text) -> object:
    import numpy as np

    if not isinstance(text, str):
        raise DataError("bad array")
    return np.load(io.BytesIO(base64.b64decode(text, validate=True)), allow_pickle=False)


class Encoder:
    """Turn a value into data; anything that is not plain data is recorded by type only.

    ``namespace`` (the notebook's names) lets a function carry the globals it reads: its
    helper functions and data, encoded the same way.
    """

    def __init__(self, namespace: dict | None = None):
        self.namespace, self.items = namespace or {}, 0

    def __call__(self, value, depth: int = 0):
        import numpy as np

        self.items += 1
        if depth > MAX_DEPTH or self.items > MAX_ITEMS:
            return {"t": "unsupported", "type": "too deeply nested or too large"}
        if isinstance(value, np.generic) and value.dtype.kind in "biufc":
            return {"t": "npscalar", "npy": _npy(np.asarray(value))}
        if value is None or isinstance(value, (bool, str)):
            return {"t": "py", "v": str.__str__(value) if isinstance(value, str) else value}
        if isinstance(value, int):
            return {"t": "int", "v": int.__repr__(value)}
        if isinstance(value, float):
            return {"t": "float", "v": float.__repr__(value)}
        if isinstance(value, complex):
            return {"t": "complex", "v": [float.__repr__(value.real), float.__repr__(value.imag)]}
        if isinstance(value, np.ndarray) and value.dtype.kind in "biufcUSM":
            return {"t": "array", "npy": _npy(np.asarray(value))}
        if isinstance(value, (list, tuple, set, frozenset)):
            kind = type(value).__name__ if type(value) in (list, tuple, set, frozenset) else "list"
            items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
            return {"t": kind, "v": [self(v, depth + 1) for v in items]}
        if isinstance(value, dict):
            return {"t": "dict",
                    "v": [[self(k, depth + 1), self(v, depth + 1)] for k, v in value.items()]}
        if isinstance(value, types.ModuleType):
            name = str(value.__name__)
            if name.split(".")[0] in MODULES_OK:
                return {"t": "module", "v": name}
            return {"t": "unsupported", "type": "module"}
        if isinstance(value, types.FunctionType):
            return self._function(value, depth)
        return {"t": "unsupported", "type": type(value).__name__}

    def _function(self, fn, depth: int):
        """A function travels as its source, with the globals it reads (its helpers, data)."""
        import inspect
        import textwrap

        try:
            source = textwrap.dedent(inspect.getsource(fn))
        except (OSError, TypeError):
            return {"t": "unsupported", "type": "function without source"}
        context = {}
        for name in fn.__code__.co_names:
            if name in self.namespace and name != fn.__name__ and depth < 3:
                context[name] = self(self.namespace[name], depth + 1)
        return {"t": "function", "name": str(fn.__name__), "source": source, "globals": context}


class Decoder:
    """Turn data back into values; ``function`` says what a function answer becomes."""

    def __init__(self, function=None):
        self.function = function

    def __call__(self, item, depth: int = 0):
        if not isinstance(item, dict) or depth > MAX_DEPTH + 5:
            raise DataError("not an answer")
        kind, value = item.get("t"), item.get("v")
        if kind == "py" and (value is None or isinstance(value, (bool, str))):
            return value
        if kind == "int" and isinstance(value, str) and len(value) <= 400:
            return int(value)
        if kind == "float" and isinstance(value, str) and len(value) <= 40:
            return float(value)
        if kind == "complex" and isinstance(value, list) and len(value) == 2:
            return complex(float(value[0]), float(value[1]))
        if kind in ("array", "npscalar"):
            array = _from_npy(item.get("npy"))
            return array[()] if kind == "npscalar" else array
        if kind in ("list", "tuple", "set", "frozenset") and isinstance(value, list):
            return {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}[kind](
                self(v, depth + 1) for v in value)
        if kind == "dict" and isinstance(value, list):
            return {self(k, depth + 1): self(v, depth + 1) for k, v in value}
        if kind == "module" and isinstance(value, str) and value.split(".")[0] in MODULES_OK:
            return importlib.import_module(value)
        if kind == "function" and self.function is not None:
            return self.function(item)
        if kind == "function":
            raise DataError("a function cannot be used here")
        raise DataError(str(item.get("type", "an object of unknown type"))[:80])
