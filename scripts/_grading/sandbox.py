"""Run one submission: its cells in a limited process, then the lecturer's checks in another.

The student's process (``run_student.py``) starts in a fresh temporary folder with
a minimal environment, in its own session, with limits on memory (address space),
CPU time, the size of any file it writes and core dumps; its output goes to
``/dev/null``, so printing megabytes costs nothing but time. When the grader runs
as root, that process also drops to the unprivileged user ``nobody``, so it
cannot write the lecturer's files or another student's folder; it keeps only the
capability to read and search folders (``CAP_DAC_READ_SEARCH``), since the Python
installation may sit in a folder only root can enter. After the wall-clock limit
the whole process group is killed.

The checks then run in a second fresh process (``run_checks.py``) that imports
the lecturer's checkers and reads the answers as data, so a notebook that
patches ``kmlib.book.exercises`` or reassigns ``check_...`` changes nothing there.
With a :class:`ChecksServer` that process is forked, under the same limits, from
one that imported the checkers once for the whole class.
"""
from __future__ import annotations

import ctypes
import json
import os
import pwd
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
GRACE_SECONDS = 10
CHECKS_SECONDS = 60


@dataclass
class Limits:
    """Limits for one submission."""

    timeout: int = 120  # wall-clock seconds for the student's notebook
    memory_mb: int = 2048  # address space of each process
    file_mb: int = 64  # largest file the notebook may write
    user: str | None = "nobody"  # run as this user when the grader is root (None: never switch)
    grace: int = GRACE_SECONDS  # after timeout + grace the process group is killed


@dataclass
class Outcome:
    """What one submission earned: a result per check, and notes for its feedback."""

    results: list[dict]
    notes: list[str] = field(default_factory=list)


def _user_ids(limits: Limits) -> tuple[int, int] | None:
    if limits.user is None or os.geteuid() != 0:
        return None
    entry = pwd.getpwnam(limits.user)
    return entry.pw_uid, entry.pw_gid


CAP_DAC_READ_SEARCH = 2
PR_SET_KEEPCAPS, PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE = 8, 38, 47, 2


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


def _become(uid: int, gid: int) -> None:
    """In the child: switch to ``uid``/``gid`` keeping only the right to read (see module doc)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0)
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    data = (_CapData * 2)()
    data[0].effective = data[0].permitted = data[0].inheritable = 1 << CAP_DAC_READ_SEARCH
    version_3 = 0x20080522  # _LINUX_CAPABILITY_VERSION_3
    if libc.capset(ctypes.byref(_CapHeader(version_3, 0)), data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")
    if libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_DAC_READ_SEARCH, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "cannot keep CAP_DAC_READ_SEARCH across exec")
    libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)


def _preexec(limits: Limits, cpu_seconds: int, ids: tuple[int, int] | None):
    memory = limits.memory_mb * 2**20
    fsize = limits.file_mb * 2**20

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 5))
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an oversized write fails, it does not kill
        if ids is not None:
            _become(*ids)
            resource.setrlimit(resource.RLIMIT_NPROC, (64, 64))

    return apply


def _env(home: Path) -> dict[str, str]:
    env = {"PATH": os.path.dirname(sys.executable) + os.pathsep + "/usr/bin:/bin",
           "HOME": str(home), "TMPDIR": str(home), "LANG": "C.UTF-8",
           "MPLBACKEND": "Agg", "MPLCONFIGDIR": str(home / ".matplotlib"),
           "IPYTHONDIR": str(home / ".ipython"), "PYTHONHASHSEED": "0"}
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = "1"
    return env


def _run(cmd, cwd: Path, limits: Limits, wall: int, ids, stdin_data: bytes | None = None):
    """Run ``cmd`` limited; return (stdout bytes or None if killed, timed_out)."""
    pipe = subprocess.PIPE if stdin_data is not None else subprocess.DEVNULL
    proc = subprocess.Popen(cmd, cwd=cwd, env=_env(cwd), start_new_session=True,
                            stdin=pipe, stdout=pipe,
                            stderr=subprocess.DEVNULL, preexec_fn=_preexec(limits, wall, ids))
    try:
        out, _ = proc.communicate(stdin_data, timeout=wall)
        return out, False
    except subprocess.TimeoutExpired:
        return None, True
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the notebook's children too
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait()


def _private_dir(ids) -> Path:
    path = Path(tempfile.mkdtemp(prefix="kmgrade-"))
    if ids is not None:
        os.chown(path, *ids)
    return path


class ChecksServer:
    """``run_checks.py --serve`` for one sheet: its modules imported once, a fork per student."""

    def __init__(self, imports: str):
        self.home = Path(tempfile.mkdtemp(prefix="kmgrade-server-"))
        self.proc = subprocess.Popen([sys.executable, "-I", str(HERE / "run_checks.py"), "--serve"],
                                     cwd=self.home, env=_env(self.home), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        self.lock = threading.Lock()
        self._send({"imports": imports})

    def _send(self, message: dict) -> None:
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def run(self, job: dict) -> list | None:
        with self.lock:
            self._send(job)
            line = self.proc.stdout.readline()
        try:
            return json.loads(line.decode())
        except ValueError:
            return None

    def close(self) -> None:
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()
        shutil.rmtree(self.home, ignore_errors=True)


def grade_cells(steps: list, sheet, limits: Limits, server: ChecksServer | None = None) -> Outcome:
    """Run a submission's ``steps`` under ``limits``; grade with ``sheet``'s checks.

    A step is ``["cell", [index, source]]`` or ``["checks", [i, ...]]``, the place where the
    answers read by the sheet's checks ``i`` are saved.
    """
    ids = _user_ids(limits)
    work = _private_dir(ids)
    checks_dir = _private_dir(ids)
    notes: list[str] = []
    try:
        job = {"steps": steps, "names": [c.names for c in sheet.checks], "timeout": limits.timeout}
        (work / "job.json").write_text(json.dumps(job), encoding="utf-8")
        if ids is not None:
            os.chown(work / "job.json", *ids)
        _, killed = _run([sys.executable, "-I", str(HERE / "run_student.py"), str(work)],
                         work, limits, limits.timeout + limits.grace, ids)
        report = _read_report(work)
        if killed:
            notes.append(f"the notebook was stopped after {limits.timeout} s; it was graded on "
                         "the answers given at the check cells it had reached")
        elif report is None:
            notes.append("the notebook's process ended abruptly (a crash or an exit); it was "
                         "graded on the answers given at the check cells it had reached")
        else:
            if report.get("timed_out"):
                notes.append(f"the notebook did not finish within {limits.timeout} s; it was "
                             "graded on the answers computed before it was stopped")
            errors = report.get("errors")
            for error in errors[:20] if isinstance(errors, list) else []:
                if isinstance(error, list) and len(error) == 2:
                    notes.append(f"code cell {error[0]} raised {str(error[1])[:300]}")
        answers_dir = work / "answers"
        if not (answers_dir / "answers.json").is_file():
            answers_dir = checks_dir  # nothing saved: every check sees missing answers
        job = {"checks": [{"source": c.source, "names": c.names} for c in sheet.checks],
               "imports": sheet.imports, "answers_dir": str(answers_dir),
               "check_timeout": CHECKS_SECONDS}
        wall = CHECKS_SECONDS * len(sheet.checks) + GRACE_SECONDS
        if server is not None:
            job.update(cwd=str(checks_dir), wall=wall, limits=limits.__dict__)
            results = server.run(job)
        else:
            out, _ = _run([sys.executable, "-I", str(HERE / "run_checks.py")], checks_dir, limits,
                          wall, ids, stdin_data=json.dumps(job).encode())
            try:
                results = json.loads(out.decode()) if out else None
            except ValueError:
                results = None
        if not isinstance(results, list) or len(results) != len(sheet.checks):
            results = [{"passed": False, "message": "the checks could not run on this notebook's "
                        "answers (the grading process failed)"} for _ in sheet.checks]
        return Outcome(results=results, notes=notes)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(checks_dir, ignore_errors=True)


def _read_report(work: Path) -> dict | None:
    try:
        report = json.loads((work / "report.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return report if isinstance(report, dict) else None
