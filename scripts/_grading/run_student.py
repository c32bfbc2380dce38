"""Run one student's notebook cells and send the answers out as plain data (the sandboxed half).

Usage: ``python -I run_student.py < job.json``, started by ``scripts/grade.py`` inside the
student's sandbox. The job holds the resource limits, the steps (a cell to run, or the place
of a check cell: send now what those checks read, as the notebook's own check cell would see
it), the names each check reads and the time limit. The first thing this script does is
take the limits (memory, CPU time, file size, number of processes, no core dumps), which
no code of the notebook can raise again.

Nothing it sends is trusted: the answers leave on a private copy of the standard output,
one JSON line per check cell reached (:mod:`codec`: numbers, strings, containers, arrays as
``.npy`` bytes; a function as its source text), so a notebook that later crashes or hangs
keeps the answers it had given; the lecturer's checks read them later, in another sandbox,
as data. What the notebook prints goes nowhere. Cells run in an IPython shell, so magics
work as in Jupyter.
"""
from __future__ import annotations

import json
import os
import resource
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import codec  # noqa: E402


class NotebookTimeout(BaseException):
    """Raised inside the student's code when the notebook runs out of time."""


def take_limits(limits: dict) -> None:
    """Set the hard limits of this process and of every process it starts."""
    memory = int(limits["memory_mb"]) * 2**20
    fsize = int(limits["file_mb"]) * 2**20
    cpu = int(limits["cpu_seconds"])
    for kind, value in ((resource.RLIMIT_AS, memory), (resource.RLIMIT_FSIZE, fsize),
                        (resource.RLIMIT_CPU, cpu), (resource.RLIMIT_CORE, 0),
                        (resource.RLIMIT_NPROC, int(limits["processes"]))):
        resource.setrlimit(kind, (value, value))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an oversized write fails, it does not kill


def private_stdout() -> int:
    """A private copy of the standard output (the pipe to the grader); fd 1 and 2 go nowhere."""
    out = os.dup(1)
    os.set_inheritable(out, False)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    return out


def send(fd: int, message: dict) -> None:
    data = (json.dumps(message) + "\n").encode()
    while data:
        data = data[os.write(fd, data):]


def usage() -> dict:
    """How close the notebook came to its disk and process limits (for its feedback)."""
    out = {}
    try:
        out["disk_full"] = any(os.statvfs(p).f_bavail * os.statvfs(p).f_frsize < 2**20
                               for p in (os.path.expanduser("~"), "/tmp"))
        out["processes"] = sum(p.isdigit() for p in os.listdir("/proc"))
    except OSError:
        pass
    return out


def main() -> int:
    job = json.loads(sys.stdin.buffer.read())
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
    take_limits(job["limits"])
    out = private_stdout()
    report = {"cells_run": 0, "errors": [], "timed_out": False}
    timed_out = []
    sent: set[int] = set()

    def on_alarm(signum, frame):
        timed_out.append(True)
        raise NotebookTimeout()

    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.enabled = False
    shell = InteractiveShell.instance(config=config, colors="nocolor")

    def snapshot(checks: list[int]) -> None:
        """Send what each of ``checks`` reads, as it is at this point of the notebook."""
        encode = codec.Encoder(shell.user_ns)
        saved: dict[str, dict] = {}
        for check in checks:
            if check in sent:
                continue
            sent.add(check)
            saved[str(check)] = values = {}
            for name in job["names"][check]:
                if name in shell.user_ns:
                    try:
                        values[name] = encode(shell.user_ns[name])
                    except Exception as exc:  # noqa: BLE001 - an answer that cannot be saved
                        values[name] = {"t": "unsupported",
                                        "type": f"not saved ({type(exc).__name__})"}
        if saved:
            try:
                send(out, {"answers": saved})
            except (OSError, MemoryError, RecursionError):
                pass

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
    report.update(usage())
    send(out, {"report": report})
    os._exit(0)  # skip atexit hooks the notebook may have registered


if __name__ == "__main__":
    sys.exit(main())
