"""Evaluate a student's function answer on the inputs the checks send (a sandbox of its own).

Usage: ``python -I run_function.py``, started by ``scripts/grade.py`` in a fresh sandbox of
the student's kind (no lecturer file, no network, the student's limits) while the checks of
one notebook run. The first line on stdin holds the limits and the sheet's import
statements; every further line asks for one call: ``{"fn": <function answer>, "args":
[...], "kwargs": [...]}`` in the form of :mod:`codec`. The function is rebuilt from its
source here, called, and one line goes back: ``{"value": ...}`` (what it returned, as data)
or ``{"error": [type, message]}``. The grader passes these lines to the checks, which hold
the only pipe to the grader's results; this process holds none.
"""
from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import codec  # noqa: E402
from run_student import send, take_limits  # noqa: E402


def build(item: dict, imports: str, decode: codec.Decoder):
    """The student's function re-created from its source, with the globals it read."""
    namespace: dict = {}
    exec(imports, namespace)
    for name, sub in (item.get("globals") or {}).items():
        try:
            namespace[str(name)] = decode(sub)
        except Exception:  # noqa: BLE001, S112 - a global that cannot be rebuilt is left out
            continue
    exec(compile(str(item["source"]), "<student function>", "exec"), namespace)
    return namespace[str(item["name"])]


def main() -> int:
    first = json.loads(sys.stdin.buffer.readline())
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
    take_limits(first["limits"])
    out = os.dup(1)
    os.set_inheritable(out, False)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    built: dict = {}
    decode = codec.Decoder(function=lambda item: build(item, first["imports"], decode))
    for line in sys.stdin.buffer:
        try:
            call = codec.loads(line)
            key = json.dumps(call["fn"], sort_keys=True)
            if key not in built:
                built[key] = build(call["fn"], first["imports"], decode)
            args = [decode(a) for a in call.get("args", [])]
            kwargs = {str(k): decode(v) for k, v in call.get("kwargs", [])}
            reply = {"value": codec.Encoder()(built[key](*args, **kwargs))}
        except BaseException as exc:  # noqa: BLE001 - the student's error goes to the check
            reply = {"error": [type(exc).__name__, str(exc)[:300]]}
        try:
            send(out, reply)
        except (OSError, ValueError, RecursionError):
            send(out, {"error": ["ValueError", "the returned value cannot be sent"]})
    return 0


if __name__ == "__main__":
    sys.exit(main())
