"""Run the lecturer's checks on one student's saved answers (the trusted half).

Usage: ``python -I run_checks.py [--path LIB] < job.json > results.json`` (``LIB``: a folder
put first on ``sys.path``, the lecturer's ``kmlib`` inside the sandbox), or ``--serve`` (the
weaker mode without bubblewrap): a server that imports the lecturer's modules once and then,
for each job line on stdin, forks a child that takes the limits of a submission
(``sandbox.Limits``), runs the checks and answers one line on stdout; forking from a warm
process saves re-importing numpy, scipy and kmlib for every student. Started by
``scripts/grade.py``. The job (on stdin) holds the check cells of the lecturer's copy of the
sheet, its import statements and the folder of answers written by ``run_student.py``. Each
check runs in a fresh namespace: the sheet's imports (the lecturer's
``kmlib.book.exercises`` modules, imported here, in a sandbox of their own when bubblewrap
is used, never touched by the student's code) plus the student's answers decoded from JSON
and ``.npy`` files without pickle. The result of each check is its printed line when it
passes and its error message when it fails.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import re
import select
import signal
import sys
import time
from pathlib import Path

ARRAY_FILE = re.compile(r"^a\d+\.npy$")
MODULES_OK = ("numpy", "scipy", "math", "cmath", "kmlib", "sklearn", "itertools", "functools",
              "collections", "statistics", "operator", "fractions")


class CheckTimeout(Exception):
    """A check ran longer than its limit."""


class Decoder:
    def __init__(self, folder: Path, imports: str):
        self.folder, self.imports = folder, imports

    def __call__(self, item):
        import importlib

        import numpy as np

        kind, value = item.get("t"), item.get("v")
        if kind == "py":
            return value
        if kind == "int":
            return int(value)
        if kind == "float":
            return float(value)
        if kind == "complex":
            return complex(float(value[0]), float(value[1]))
        if kind in ("array", "npscalar"):
            name = str(item.get("file"))
            if not ARRAY_FILE.match(name):
                raise ValueError("bad array file name")
            array = np.load(self.folder / name, allow_pickle=False)
            return array[()] if kind == "npscalar" else array
        if kind in ("list", "tuple", "set", "frozenset"):
            return {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}[kind](
                self(v) for v in value)
        if kind == "dict":
            return {self(k): self(v) for k, v in value}
        if kind == "module" and str(value).split(".")[0] in MODULES_OK:
            return importlib.import_module(value)
        if kind == "function":
            # The student's function is re-created from its source; it runs only when a
            # checker calls it, in this process, under the same limits.
            namespace: dict = {}
            exec(self.imports, namespace)
            for name, sub in (item.get("globals") or {}).items():
                with contextlib.suppress(Exception):
                    namespace[name] = self(sub)
            exec(compile(item["source"], "<student function>", "exec"), namespace)
            return namespace[item["name"]]
        raise TypeError(item.get("type", "an object of unknown type"))


def run_check(check: dict, answers: dict, decode: Decoder, imports: str, seconds: int) -> dict:
    namespace: dict = {}
    exec(imports, namespace)
    for name in check["names"]:
        if name in namespace or name not in answers:
            continue
        try:
            namespace[name] = decode(answers[name])
        except Exception as exc:  # noqa: BLE001 - report the answer as unusable
            return {"passed": False,
                    "message": f"`{name}` could not be graded: {type(exc).__name__}: {exc}"}
    missing = [n for n in check["names"] if n not in namespace]
    out = io.StringIO()
    signal.alarm(seconds)
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(check["source"], "<check>", "exec"), namespace)
    except AssertionError as exc:
        return {"passed": False, "message": str(exc) or "AssertionError"}
    except NameError as exc:
        hint = f" (not defined by your notebook: {', '.join(missing)})" if missing else ""
        return {"passed": False, "message": f"NameError: {exc}{hint}"}
    except CheckTimeout:
        return {"passed": False, "message": f"the check did not finish within {seconds} s"}
    except Exception as exc:  # noqa: BLE001 - any other failure of the check
        return {"passed": False, "message": f"{type(exc).__name__}: {str(exc)[:300]}"}
    finally:
        signal.alarm(0)
    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    return {"passed": True, "message": (lines[-1] if lines else "passed")[:300]}


def grade_job(job: dict) -> list[dict]:
    """The result of every check of ``job`` on the answers in ``job["answers_dir"]``."""

    def on_alarm(signum, frame):
        raise CheckTimeout()

    signal.signal(signal.SIGALRM, on_alarm)
    folder = Path(job["answers_dir"])
    try:
        answers = json.loads((folder / "answers.json").read_text(encoding="utf-8"))
        if not isinstance(answers, dict):
            answers = {}
    except (OSError, ValueError):
        answers = {}
    decode = Decoder(folder, job["imports"])
    results = []
    for i, check in enumerate(job["checks"]):
        seen = answers.get(str(i))
        results.append(run_check(check, seen if isinstance(seen, dict) else {}, decode,
                                 job["imports"], job["check_timeout"]))
    return results


def main() -> int:
    real_stdout = sys.stdout
    real_stdout.write(json.dumps(grade_job(json.load(sys.stdin))))
    real_stdout.flush()
    return 0


def _child(job: dict, write_fd: int) -> None:
    """In the forked child: take the submission's limits, grade, send the results."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import sandbox

    os.setsid()
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.chdir(job["cwd"])
    limits = sandbox.Limits(**job["limits"])
    sandbox._preexec(limits, job["wall"], sandbox._user_ids(limits))()
    data = json.dumps(grade_job(job)).encode()
    while data:
        data = data[os.write(write_fd, data):]


def _collect(pid: int, read_fd: int, wall: float) -> list | None:
    """Read the child's answer until it closes its pipe or ``wall`` seconds pass."""
    chunks, deadline = [], time.monotonic() + wall
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([read_fd], [], [], left)[0]:
            break
        chunk = os.read(read_fd, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read_fd)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    try:
        results = json.loads(b"".join(chunks).decode())
    except ValueError:
        return None
    return results if isinstance(results, list) else None


def serve() -> int:
    """Import the sheet's modules once, then grade each job line in a forked child."""
    out = sys.stdout
    first = json.loads(sys.stdin.readline())
    exec(first["imports"], {})  # numpy, scipy, kmlib.book.exercises.chNN: loaded before any fork
    for line in sys.stdin:
        job = json.loads(line)
        read_fd, write_fd = os.pipe()
        out.flush()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(read_fd)
                _child(job, write_fd)
            finally:
                os._exit(0)
        os.close(write_fd)
        out.write(json.dumps(_collect(pid, read_fd, job["wall"])) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--path"]:
        sys.path.insert(0, sys.argv[2])
    sys.exit(serve() if sys.argv[1:] == ["--serve"] else main())
