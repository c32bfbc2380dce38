"""Run one student's notebook cells and save the answers as plain data (the sandboxed half).

Usage: ``python -I run_student.py JOB_DIR [LIB]`` (``LIB``: a folder put first on
``sys.path``, the staged ``kmlib`` without checkers). ``JOB_DIR/job.json`` holds the steps (a
cell to run, or the place of a check cell: save now what those checks read, as the
notebook's own check cell would see it), the names each check reads and the time
limit; this script is started by ``scripts/grade.py``
in ``JOB_DIR`` (a fresh temporary folder) with resource limits already set, and
nothing it writes is trusted: the answers go to ``JOB_DIR/answers/`` as JSON and
``.npy`` files (read back without pickle) and the lecturer's checks run later in
another process. Cells run in an IPython shell, so magics work as in Jupyter.
"""
from __future__ import annotations

import contextlib
import inspect
import json
import os
import signal
import sys
import textwrap
import types
from pathlib import Path

MAX_ITEMS = 100_000
MAX_DEPTH = 20
MODULES_OK = ("numpy", "scipy", "math", "cmath", "kmlib", "sklearn", "itertools", "functools",
              "collections", "statistics", "operator", "fractions")


class NotebookTimeout(BaseException):
    """Raised inside the student's code when the notebook runs out of time."""


class Encoder:
    """Turn answers into JSON plus ``.npy`` files; anything else is recorded by type only."""

    def __init__(self, folder: Path, namespace: dict):
        self.folder, self.namespace, self.arrays, self.items = folder, namespace, 0, 0

    def __call__(self, value, depth: int = 0):
        import numpy as np

        self.items += 1
        if depth > MAX_DEPTH or self.items > MAX_ITEMS:
            return {"t": "unsupported", "type": "too deeply nested or too large"}
        if isinstance(value, np.generic) and value.dtype.kind in "biufc":
            return {"t": "npscalar", "file": self._save(np.asarray(value))}
        if value is None or isinstance(value, (bool, str)):
            return {"t": "py", "v": str(value) if isinstance(value, str) else value}
        if isinstance(value, int):
            return {"t": "int", "v": int.__repr__(value)}
        if isinstance(value, float):
            return {"t": "float", "v": float.__repr__(value)}
        if isinstance(value, complex):
            return {"t": "complex", "v": [float.__repr__(value.real), float.__repr__(value.imag)]}
        if isinstance(value, np.ndarray) and value.dtype.kind in "biufcUSM":
            return {"t": "array", "file": self._save(value)}
        if isinstance(value, (list, tuple, set, frozenset)):
            kind = type(value).__name__ if type(value) in (list, tuple, set, frozenset) else "list"
            items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
            return {"t": kind, "v": [self(v, depth + 1) for v in items]}
        if isinstance(value, dict):
            return {"t": "dict",
                    "v": [[self(k, depth + 1), self(v, depth + 1)] for k, v in value.items()]}
        if isinstance(value, types.ModuleType):
            top = value.__name__.split(".")[0]
            if top in MODULES_OK:
                return {"t": "module", "v": value.__name__}
            return {"t": "unsupported", "type": f"module {value.__name__}"}
        if isinstance(value, types.FunctionType):
            return self._function(value, depth)
        return {"t": "unsupported", "type": type(value).__name__}

    def _save(self, array) -> str:
        import numpy as np

        self.arrays += 1
        name = f"a{self.arrays}.npy"
        np.save(self.folder / name, np.ascontiguousarray(array), allow_pickle=False)
        return name

    def _function(self, fn, depth: int):
        """A function travels as its source, with the globals it reads (its helpers, data)."""
        try:
            source = textwrap.dedent(inspect.getsource(fn))
        except (OSError, TypeError):
            return {"t": "unsupported", "type": "function without source"}
        context = {}
        for name in fn.__code__.co_names:
            if name in self.namespace and name != fn.__name__ and depth < 3:
                context[name] = self(self.namespace[name], depth + 1)
        return {"t": "function", "name": fn.__name__, "source": source, "globals": context}


def main(job_dir: str) -> int:
    job_dir = Path(job_dir)
    job = json.loads((job_dir / "job.json").read_text(encoding="utf-8"))
    report = {"cells_run": 0, "errors": [], "timed_out": False}
    timed_out = []
    folder = job_dir / "answers"
    answers: dict[str, dict] = {}

    def on_alarm(signum, frame):
        timed_out.append(True)
        raise NotebookTimeout()

    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.enabled = False
    shell = InteractiveShell.instance(config=config, colors="nocolor")
    encode = Encoder(folder, shell.user_ns)

    def snapshot(checks: list[int]) -> None:
        """Save what each of ``checks`` reads, as it is at this point of the notebook.

        The file is rewritten at every check, so a notebook that later crashes or hangs
        keeps the answers it had given.
        """
        try:
            folder.mkdir(exist_ok=True)  # the notebook may have deleted it
        except OSError:
            return
        for check in checks:
            if str(check) in answers:
                continue
            saved = answers[str(check)] = {}
            for name in job["names"][check]:
                if name in shell.user_ns:
                    try:
                        saved[name] = encode(shell.user_ns[name])
                    except Exception as exc:  # noqa: BLE001 - an answer that cannot be saved
                        saved[name] = {"t": "unsupported",
                                       "type": f"not saved ({type(exc).__name__})"}
        with contextlib.suppress(OSError):
            (folder / "answers.json").write_text(json.dumps(answers), encoding="utf-8")

    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(max(int(job["timeout"]), 1))
    try:
        for kind, payload in job["steps"]:
            if timed_out:
                break
            if kind == "checks":
                snapshot(payload)
                continue
            index, source = payload
            try:
                result = shell.run_cell(source, store_history=False, silent=True)
            except NotebookTimeout:
                break
            report["cells_run"] += 1
            error = result.error_before_exec or result.error_in_exec
            if isinstance(error, NotebookTimeout) or timed_out:
                break
            if error is not None:
                report["errors"].append([index, f"{type(error).__name__}: {str(error)[:300]}"])
    except NotebookTimeout:
        pass
    signal.alarm(0)
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    report["timed_out"] = bool(timed_out)
    snapshot(list(range(len(job["names"]))))  # checks whose cell was not reached or not found
    (job_dir / "report.json").write_text(json.dumps(report), encoding="utf-8")
    os._exit(0)  # skip atexit hooks the notebook may have registered


if __name__ == "__main__":
    if len(sys.argv) > 2:
        sys.path.insert(0, sys.argv[2])
    sys.exit(main(sys.argv[1]))
