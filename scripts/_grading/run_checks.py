"""Run the lecturer's checks on one student's saved answers (the trusted half).

Usage: ``python -I run_checks.py [--path DIR]... [--serve] < job.json > results.json``
(``DIR``: a folder put first on ``sys.path``; inside the sandbox ``/opt/lecturer``, which
holds the lecturer's ``kmlib`` and the package ``_grading.reference``), or ``--serve`` (the
weaker mode without bubblewrap): a server that imports the lecturer's modules once and then,
for each job line on stdin, forks a child that takes the limits of a submission
(``sandbox.Limits``), runs the checks and answers one line on stdout; forking from a warm
process saves re-importing numpy, scipy and kmlib for every student. Started by
``scripts/grade.py``. The job (on stdin) holds the check cells of the lecturer's copy of the
sheet, its import statements and the folder of answers written by ``run_student.py``.

The sheet's check cells call ``chNN.check_...`` of ``kmlib.book.exercises``, which ships to
students and holds only their *self-checks* (properties of an answer, never the answer).
After the sheet's imports, :func:`use_references` puts in their place the functions of the
same names from ``_grading.reference.chNN``, the lecturer's full checks, so every score
comes from a check that recomputes the answer; a check without a reference fails.

Each check runs in a fresh namespace: the sheet's imports (the lecturer's modules, imported
here, in a sandbox of their own when bubblewrap is used, never touched by the student's
code) plus the student's answers decoded from JSON and ``.npy`` files without pickle. An
answer that is a function is rebuilt from its source and runs, each time a check calls it,
in a forked child (:class:`IsolatedFunction`), so it cannot patch the checks either. The
result of each check is its printed line when it passes and its error message when it fails.
"""
from __future__ import annotations

import contextlib
import importlib
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
SHIPPED_CHECKS = re.compile(r"^kmlib\.book\.exercises\.(ch\d+)$")
REFERENCE_PACKAGE = "_grading.reference"
REFERENCED = "__kmgrade_reference__"
MODULES_OK = ("numpy", "scipy", "math", "cmath", "kmlib", "sklearn", "itertools", "functools",
              "collections", "statistics", "operator", "fractions")


class CheckTimeout(Exception):
    """A check ran longer than its limit."""


def _no_reference(module: str, name: str):
    def check(*args, **kwargs):
        raise AssertionError(f"{name} cannot be graded: the lecturer's reference check "
                             f"{REFERENCE_PACKAGE}.{module.rsplit('.', 1)[-1]}.{name} is missing")

    return check


def use_references() -> list[str]:
    """Put the lecturer's full checks in place of the students' self-checks.

    Every module ``kmlib.book.exercises.chNN`` already imported (by the sheet's imports)
    gets, for each of its ``check_*`` names, the function of that name from
    ``_grading.reference.chNN``, so ``chNN.check_x(...)`` and ``from
    kmlib.book.exercises.chNN import check_x`` both reach the reference; the data
    functions stay. A self-check without a reference is replaced by a check that fails
    saying so: a sheet is never graded by what students can run at home. Returns the
    names of the modules replaced (each module once; calling again changes nothing).
    """
    done = []
    for name, module in list(sys.modules.items()):
        match = SHIPPED_CHECKS.match(name)
        if match is None or module is None or getattr(module, REFERENCED, False):
            continue
        target = f"{REFERENCE_PACKAGE}.{match.group(1)}"
        try:
            reference = importlib.import_module(target)
        except ModuleNotFoundError as exc:
            if exc.name not in (target, REFERENCE_PACKAGE, REFERENCE_PACKAGE.split(".")[0]):
                raise
            reference = None
        for attr in [a for a in vars(module) if a.startswith("check_")]:
            found = getattr(reference, attr, None)
            setattr(module, attr, found if callable(found) else _no_reference(name, attr))
        setattr(module, REFERENCED, True)
        done.append(name)
    return done


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
            return IsolatedFunction(item, self)
        raise TypeError(item.get("type", "an object of unknown type"))

    def build_function(self, item: dict):
        """The student's function re-created from its source (only ever in a forked child)."""
        namespace: dict = {}
        exec(self.imports, namespace)
        for name, sub in (item.get("globals") or {}).items():
            with contextlib.suppress(Exception):
                namespace[name] = self(sub)
        exec(compile(item["source"], "<student function>", "exec"), namespace)
        return namespace[item["name"]]


class IsolatedFunction:
    """A student's function that runs in a forked child each time a check calls it.

    Neither its definition (decorators, default values) nor its body ever runs in the
    process of the checks: each call forks, the child rebuilds the function from its source,
    calls it and sends back what it returned as data (JSON and ``.npy`` files, as the answers
    travel), or the error it raised. Whatever the function does to numpy, to the checks or to
    the rest of the process dies with the child. A child that outlives the check is killed.
    """

    def __init__(self, item: dict, decode: Decoder):
        self.item, self.decode = item, decode
        self.__name__ = str(item.get("name", "function"))

    def __repr__(self) -> str:
        return f"<student function {self.__name__}>"

    def _child(self, args, kwargs, folder: Path, write_fd: int) -> None:
        os.setpgid(0, 0)                     # its own group, killed as a whole afterwards
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from run_student import Encoder

        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        try:
            value = self.decode.build_function(self.item)(*args, **kwargs)
            out = {"value": Encoder(folder, {})(value)}
        except BaseException as exc:  # noqa: BLE001 - the student's error goes to the check
            out = {"error": [type(exc).__name__, str(exc)[:300]]}
        data = json.dumps(out).encode()
        while data:
            data = data[os.write(write_fd, data):]

    def __call__(self, *args, **kwargs):
        import tempfile

        folder = Path(tempfile.mkdtemp(prefix="call-", dir=os.getcwd()))  # the private folder
        read_fd, write_fd = os.pipe()
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(read_fd)
                self._child(args, kwargs, folder, write_fd)
            finally:
                os._exit(0)
        os.close(write_fd)
        chunks = []
        try:
            while chunk := os.read(read_fd, 1 << 16):
                chunks.append(chunk)
            reply = json.loads(b"".join(chunks).decode() or "null")
            if isinstance(reply, dict) and isinstance(reply.get("error"), list):
                kind, message = (str(x) for x in reply["error"][:2])
                name = kind if kind.isidentifier() else "Exception"
                raise type(name, (Exception,), {})(message)
            if not isinstance(reply, dict) or "value" not in reply:
                raise RuntimeError(f"{self.__name__} ended without returning (a crash or an exit)")
            return Decoder(folder, self.decode.imports)(reply["value"])
        finally:
            os.close(read_fd)
            for kill in (os.killpg, os.kill):   # the group (what the function started), then it
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    kill(pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
            import shutil

            shutil.rmtree(folder, ignore_errors=True)


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
    try:
        exec(job["imports"], {})
        use_references()
    except Exception as exc:  # noqa: BLE001 - no check can run without the lecturer's modules
        message = f"the lecturer's checks could not be loaded: {type(exc).__name__}: {exc}"
        return [{"passed": False, "message": message[:300]} for _ in job["checks"]]
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
    use_references()  # the lecturer's checks in place of the self-checks, for every child
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
    args = sys.argv[1:]
    while args[:1] == ["--path"] and len(args) > 1:
        sys.path.insert(0, args[1])
        args = args[2:]
    sys.exit(serve() if args == ["--serve"] else main())
