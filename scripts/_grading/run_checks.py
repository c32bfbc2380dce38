"""Run the lecturer's checks on one student's answers (the trusted half).

Usage: ``python -I run_checks.py [--path DIR]...`` (``DIR``: a folder put first on
``sys.path``; inside the sandbox ``/opt/lecturer``, which holds the lecturer's ``kmlib`` and
the package ``_grading.reference``), started by ``scripts/grade.py`` in a sandbox of its own
under a user id that no student process has. The first line on stdin is the job: the check
cells of the lecturer's copy of the sheet, its import statements, the limits, and the
student's answers as data (:mod:`codec`: JSON and ``.npy`` bytes, no pickle). The last line
on stdout is ``{"results": [...]}``, one ``{"passed", "message"}`` per check.

The sheet's check cells call ``chNN.check_...`` of ``kmlib.book.exercises``, which ships to
students and holds only their *self-checks* (properties of an answer, never the answer).
After the sheet's imports, :func:`use_references` puts in their place the functions of the
same names from ``_grading.reference.chNN``, the lecturer's full checks, so every score
comes from a check that recomputes the answer; a check without a reference fails.

Each check runs in a fresh namespace: the sheet's imports plus the student's answers
decoded as data. **No code of the student runs in this process.** An answer that is a
function becomes an :class:`IsolatedFunction`: each call sends its arguments out as data
(``{"call": ...}`` on stdout), the grader evaluates the function in a separate sandbox
(``run_function.py``) and passes back only the returned value, as data. The process makes
itself non-dumpable first (no process of the same user may read its memory or attach to
it), and it runs in its own PID namespace, where no student process exists. The result of
each check is its printed line when it passes and its error message when it fails, both cut
to :data:`MESSAGE_CHARS` characters.
"""
from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import re
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import codec  # noqa: E402
from run_student import take_limits  # noqa: E402

SHIPPED_CHECKS = re.compile(r"^kmlib\.book\.exercises\.(ch\d+)$")
REFERENCE_PACKAGE = "_grading.reference"
REFERENCED = "__kmgrade_reference__"
MESSAGE_CHARS = 300
OUT = 1  # the private copy of the standard output (set by main)


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


class IsolatedFunction:
    """A student's function answer, evaluated outside this process each time a check calls it.

    The call's arguments leave as data on this process's standard output (``{"call": ...}``);
    the grader evaluates the function in a sandbox of its own (``run_function.py``, which sees
    no lecturer file and holds no pipe to the results) and passes back what it returned, as
    data, on the standard input. No code of the student ever runs here.
    """

    calls = 0

    def __init__(self, item: dict):
        self.item = item
        self.__name__ = str(item.get("name", "function"))[:80]

    def __repr__(self) -> str:
        return f"<student function {self.__name__}>"

    def __call__(self, *args, **kwargs):
        IsolatedFunction.calls += 1
        ident = IsolatedFunction.calls
        encode = codec.Encoder()
        call = {"id": ident, "check": CURRENT[0], "fn": self.item,
                "args": [encode(a) for a in args],
                "kwargs": [[str(k), encode(v)] for k, v in kwargs.items()]}
        _send({"call": call})
        while True:
            line = sys.stdin.buffer.readline()
            if not line:
                raise RuntimeError(f"{self.__name__} could not be evaluated")
            try:
                reply = codec.loads(line)
            except codec.DataError:
                continue
            if isinstance(reply, dict) and reply.get("id") == ident:
                break
        if isinstance(reply.get("error"), list) and len(reply["error"]) == 2:
            kind, message = (str(x)[:300] for x in reply["error"])
            name = kind if kind.isidentifier() else "Exception"
            raise type(name, (Exception,), {})(message)
        if "value" not in reply:
            raise RuntimeError(f"{self.__name__} ended without returning (a crash, an exit "
                               "or a limit)")
        return codec.Decoder()(reply["value"])


CURRENT = [0]  # the check running now: its calls share one sandbox (see sandbox.py)


def _send(message: dict) -> None:
    data = (json.dumps(message) + "\n").encode()
    while data:
        data = data[os.write(OUT, data):]


def _decode_answer(item):
    return codec.Decoder(function=IsolatedFunction)(item)


def run_check(check: dict, answers: dict, imports: str, seconds: int) -> dict:
    namespace: dict = {}
    exec(imports, namespace)
    for name in check["names"]:
        if name in namespace or name not in answers:
            continue
        try:
            namespace[name] = _decode_answer(answers[name])
        except Exception as exc:  # noqa: BLE001 - report the answer as unusable
            return {"passed": False,
                    "message": f"`{name}` could not be graded: {type(exc).__name__}: "
                               f"{str(exc)[:200]}"}
    missing = [n for n in check["names"] if n not in namespace]
    out = io.StringIO()
    signal.alarm(seconds)
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(check["source"], "<check>", "exec"), namespace)
    except AssertionError as exc:
        return {"passed": False, "message": (str(exc) or "AssertionError")[:MESSAGE_CHARS]}
    except NameError as exc:
        hint = f" (not defined by your notebook: {', '.join(missing)})" if missing else ""
        return {"passed": False, "message": f"NameError: {str(exc)[:200]}{hint}"[:MESSAGE_CHARS]}
    except CheckTimeout:
        return {"passed": False, "message": f"the check did not finish within {seconds} s"}
    except RecursionError:
        return {"passed": False, "message": "the check ran out of recursion depth"}
    except Exception as exc:  # noqa: BLE001 - any other failure of the check
        return {"passed": False, "message": f"{type(exc).__name__}: {str(exc)[:300]}"}
    finally:
        signal.alarm(0)
    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    return {"passed": True, "message": (lines[-1] if lines else "passed")[:MESSAGE_CHARS]}


def load(imports: str) -> str | None:
    """Import the sheet's modules and put the full checks in place; the error, if any."""
    try:
        exec(imports, {})
        use_references()
    except Exception as exc:  # noqa: BLE001 - no check can run without the lecturer's modules
        return f"the lecturer's checks could not be loaded: {type(exc).__name__}: {exc}"[:300]
    return None


def grade_job(job: dict, problem: str | None = None) -> list[dict]:
    """The result of every check of ``job`` on the answers in ``job["answers"]``."""

    def on_alarm(signum, frame):
        raise CheckTimeout()

    signal.signal(signal.SIGALRM, on_alarm)
    answers = job.get("answers")
    answers = answers if isinstance(answers, dict) else {}
    problem = problem or load(job["imports"])
    if problem is not None:
        return [{"passed": False, "message": problem} for _ in job["checks"]]
    results = []
    for i, check in enumerate(job["checks"]):
        CURRENT[0] = i
        seen = answers.get(str(i))
        results.append(run_check(check, seen if isinstance(seen, dict) else {},
                                 job["imports"], job["check_timeout"]))
    return results


def not_dumpable() -> None:
    """No other process of the same user may attach to this one or read its memory."""
    import ctypes

    PR_SET_DUMPABLE = 4
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0) failed")


def main() -> int:
    global OUT
    not_dumpable()
    OUT = os.dup(1)
    os.set_inheritable(OUT, False)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # what the checks print is caught per check; nothing else reaches out
    first = json.loads(sys.stdin.buffer.readline())  # from the grader: limits, imports
    take_limits(first["limits"])
    problem = load(first["imports"])  # while the student's notebook runs
    line = sys.stdin.buffer.readline()
    try:
        job = codec.loads(line)
    except codec.DataError as exc:
        _send({"fatal": f"the answers could not be read: {exc}"})
        return 0
    job["imports"] = first["imports"]
    _send({"results": grade_job(job, problem)})
    return 0


if __name__ == "__main__":
    args = sys.argv[1:]
    while args[:1] == ["--path"] and len(args) > 1:
        sys.path.insert(0, args[1])
        args = args[2:]
    sys.exit(main())
