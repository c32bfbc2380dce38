"""Run one submission: its cells in a sandbox, then the lecturer's checks in another.

**The sandbox (bubblewrap).** When ``bwrap`` (Debian package ``bubblewrap``) works, the
student's process (``run_student.py``) runs in a fresh mount namespace that holds only:
``/usr`` and the Python installation (read-only), the virtual environment (read-only, at
``/opt/venv``), a copy of ``kmlib`` whose exercise modules have no ``check_*`` functions
(read-only, at ``/opt/kmgrade``), an empty private folder ``/home/student`` (the only
writable place besides a private ``/tmp``), and no network (its own network, PID, IPC
and UTS namespaces), as the user ``nobody`` without capabilities: run by root,
bubblewrap needs no user namespace and ``setpriv`` makes the process the host's
``nobody`` (so the process limit holds); run by another user, a user namespace maps it
to ``nobody``. The lecturer's repository, home folder, exercise sheets, ``.git`` and the
other submissions are not there at all. The checks run afterwards in a second sandbox of
the same kind (``run_checks.py``) that sees, read-only at ``/opt/lecturer``, the lecturer's
``kmlib`` and a copy of the package ``_grading.reference`` (the full checks, which replace
the self-checks of ``kmlib.book.exercises`` there and are never in the student's sandbox),
and a copy of the answers, which it reads as data (JSON and ``.npy`` files, no pickle), so a
notebook that patches ``kmlib.book.exercises`` or reassigns ``check_...`` changes nothing
there; an answer that is a function runs in a forked child of that process.

**The weaker mode** (``grade.py --weak-sandbox``, only when asked for): without
bubblewrap the student's process runs in a temporary folder and, when the grader is
root, as ``nobody`` keeping only the right to read (``CAP_DAC_READ_SEARCH``: it cannot
write the lecturer's files, but it CAN read them). The checks are forked from one
process that imported the checkers once (:class:`ChecksServer`).

In both modes: limits on memory (address space), CPU time, the size of any file written
and core dumps; output goes to ``/dev/null``; after the wall-clock limit the whole
process group is killed; every path the feedback could show is scrubbed (:func:`scrub`).
"""
from __future__ import annotations

import ast
import ctypes
import functools
import importlib.util
import json
import os
import pwd
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
GRACE_SECONDS = 10
CHECKS_SECONDS = 60
STAGE_IN = "/opt/kmgrade"          # the staged files, as the sandbox sees them
VENV_IN = "/opt/venv"              # the virtual environment, as the sandbox sees it
LECTURER_IN = "/opt/lecturer"      # the lecturer's kmlib, seen by the checks sandbox only
HOME_IN = "/home/student"          # the student's private folder
ANSWERS_IN = "/home/answers"       # the answers, seen by the checks sandbox
ANSWER_FILE = re.compile(r"^(answers\.json|a\d+\.npy)$")
MAX_ANSWER_BYTES = 256 * 2**20
BWRAP_MISSING = ("bubblewrap (bwrap) is not available or cannot create namespaces here: "
                 "student code could read the lecturer's files")


@dataclass
class Limits:
    """Limits for one submission."""

    timeout: int = 120  # wall-clock seconds for the student's notebook
    memory_mb: int = 2048  # address space of each process
    file_mb: int = 64  # largest file the notebook may write
    user: str | None = "nobody"  # weak mode: run as this user when root (None: never switch)
    grace: int = GRACE_SECONDS  # after timeout + grace the process group is killed


@dataclass
class Outcome:
    """What one submission earned: a result per check, and notes for its feedback."""

    results: list[dict]
    notes: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- paths to hide
def _secret_paths(extra: tuple[str, ...] = ()) -> list[str]:
    """Paths of the lecturer's machine that feedback must not show (longest first)."""
    paths = {str(Path(__file__).resolve().parents[2]), os.path.expanduser("~"),
             tempfile.gettempdir(), sys.prefix, sys.base_prefix, sys.exec_prefix,
             os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix), os.getcwd(),
             *extra}
    spec = importlib.util.find_spec("kmlib")
    if spec is not None and spec.submodule_search_locations:
        for loc in spec.submodule_search_locations:
            paths.add(str(Path(loc).parent))
            paths.add(os.path.realpath(Path(loc).parent))
    return sorted((p for p in paths if p and p not in ("/", ".")), key=len, reverse=True)


SHOWN_PATHS = (VENV_IN, STAGE_IN, LECTURER_IN, HOME_IN, ANSWERS_IN, "/usr/", "/dev/", "/proc/")
ABSOLUTE_PATH = re.compile(r"(?<![\w.)\]}/…])/[^\s'\"`(),;<>\[\]{}|]+")


def scrub(text: str, extra: tuple[str, ...] = ()) -> str:
    """``text`` with every path of the lecturer's machine replaced by ``…``.

    The known folders (the repository, home, the Python installation, the submissions)
    go first; then every other absolute path except those the sandbox shows to every
    student (``/opt/venv``, ``/opt/kmgrade``, ``/home/student``, ``/usr``, ...).
    """
    for path in _secret_paths(extra):
        text = text.replace(path, "…")

    def hide(m: re.Match) -> str:
        path = m.group(0)
        return path if path.startswith(SHOWN_PATHS) or path in SHOWN_PATHS else "…"

    return ABSOLUTE_PATH.sub(hide, text)


# --------------------------------------------------------------------------- bubblewrap
def _as_root() -> bool:
    """Whether bwrap runs as root (the sandbox then becomes the real ``nobody``, by setpriv)."""
    return os.geteuid() == 0 and shutil.which("setpriv") is not None


def _dirs(path: str) -> list[str]:
    """``--dir`` for every folder above ``path``, readable by all (bwrap makes them 0700)."""
    args: list[str] = []
    parts = Path(path).parts
    for k in range(2, len(parts)):
        args += ["--perms", "0755", "--dir", str(Path(*parts[:k]))]
    return args


def _system_binds() -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    for etc in ("/etc/ld.so.cache", "/etc/localtime", "/etc/fonts", "/etc/alternatives"):
        args += ["--ro-bind-try", etc, etc]
    base = os.path.realpath(sys.base_prefix)
    if not base.startswith("/usr"):
        args += [*_dirs(base), "--ro-bind", base, base]  # symlinks of the venv point into it
    args += ["--perms", "0755", "--dir", "/opt", "--perms", "0755", "--dir", "/home"]
    if os.path.realpath(sys.prefix) != base:
        args += ["--ro-bind", os.path.realpath(sys.prefix), VENV_IN]
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--hostname", "sandbox",
             "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    if _as_root():
        # no user namespace: setpriv becomes the host's `nobody`, so the process limit
        # (RLIMIT_NPROC) holds and the files it writes belong to nobody
        return args + ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                       "--unshare-cgroup-try", "--cap-add", "CAP_SETUID",
                       "--cap-add", "CAP_SETGID"]
    return args + ["--unshare-all", "--unshare-user", "--uid", "65534", "--gid", "65534"]


def _drop() -> list[str]:
    """What runs the sandbox's command as ``nobody`` (nothing in a user namespace)."""
    if not _as_root():
        return []
    return [shutil.which("setpriv"), "--reuid=65534", "--regid=65534", "--clear-groups",
            "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs"]


def _python_in() -> str:
    """The interpreter, as the sandbox sees it."""
    if os.path.realpath(sys.prefix) != os.path.realpath(sys.base_prefix):
        return f"{VENV_IN}/bin/{Path(sys.executable).name}"
    return sys.executable


@functools.lru_cache(maxsize=1)
def bwrap_problem() -> str | None:
    """Why bubblewrap cannot be used here (None when it works)."""
    exe = shutil.which("bwrap")
    if exe is None:
        return "bwrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    try:
        done = subprocess.run([exe, *_system_binds(), *_drop(), _python_in(), "-I", "-c",
                               "import numpy"],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap failed to start ({type(exc).__name__})"
    if done.returncode != 0:
        return "bwrap cannot run Python in a sandbox here: " + scrub(
            done.stderr.decode(errors="replace").strip()[:300])
    return None


def _strip_checkers(source: str) -> str:
    """An exercise module without its ``check_*`` functions (each becomes a stub)."""
    tree = ast.parse(source)
    body = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("check_"):
            stub = ast.parse(f"def {node.name}(*args, **kwargs):\n"
                             f"    print('{node.name}: checked when the notebook is graded')\n")
            body += stub.body
        else:
            body.append(node)
    tree.body = body
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


class Stage:
    """The files the sandboxes need, copied into two private folders.

    ``root`` (the student's sandbox sees it): ``run_student.py`` and ``run_checks.py``, and
    ``lib/kmlib``: the library as installed, except that ``kmlib/book/exercises/ch*.py``
    keep no ``check_*`` function, so the student's process holds no checker to call.
    ``lecturer`` (only the checks see it): ``_grading/reference/``, the lecturer's full
    checks, copied from ``scripts/_grading/reference``.
    """

    def __init__(self):
        spec = importlib.util.find_spec("kmlib")
        if spec is None or not spec.submodule_search_locations:
            raise RuntimeError("kmlib is not importable")
        self.kmlib = Path(list(spec.submodule_search_locations)[0]).resolve()
        self.root = Path(tempfile.mkdtemp(prefix="kmgrade-stage-"))
        self.lecturer = Path(tempfile.mkdtemp(prefix="kmgrade-lecturer-"))
        for name in ("run_student.py", "run_checks.py"):
            shutil.copy2(HERE / name, self.root / name)
        lib = self.root / "lib" / "kmlib"
        shutil.copytree(self.kmlib, lib, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        for module in (lib / "book" / "exercises").glob("ch*.py"):
            module.write_text(_strip_checkers(module.read_text(encoding="utf-8")),
                              encoding="utf-8")
        package = self.lecturer / "_grading"
        package.mkdir()
        (package / "__init__.py").write_text('"""The lecturer\'s checks (a copy)."""\n',
                                             encoding="utf-8")
        if (HERE / "reference").is_dir():
            shutil.copytree(HERE / "reference", package / "reference",
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        for top in (self.root, self.lecturer):
            for path in [top, *top.rglob("*")]:
                os.chmod(path, 0o755 if path.is_dir() else 0o644)

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
        shutil.rmtree(self.lecturer, ignore_errors=True)


# --------------------------------------------------------------------------- weak mode
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
    """In the child: switch to ``uid``/``gid`` keeping only the right to read (weak mode)."""
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
        if ids is not None or _as_root():  # as nobody (root itself is not held by it)
            resource.setrlimit(resource.RLIMIT_NPROC, (64, 64))

    return apply


def _env(home: str) -> dict[str, str]:
    inside = home == HOME_IN  # the home folder inside a bubblewrap sandbox
    python = f"{VENV_IN}/bin" if inside else os.path.dirname(sys.executable)
    env = {"PATH": f"{python}:/usr/bin:/bin",
           "HOME": home, "TMPDIR": home, "LANG": "C.UTF-8",
           "MPLBACKEND": "Agg", "MPLCONFIGDIR": f"{home}/.matplotlib",
           "IPYTHONDIR": f"{home}/.ipython", "PYTHONHASHSEED": "0",
           "PYTHONDONTWRITEBYTECODE": "1"}
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = "1"
    return env


def _run(cmd, cwd: Path, home: str, limits: Limits, wall: int, ids,
         stdin_data: bytes | None = None):
    """Run ``cmd`` limited; return (stdout bytes or None if killed, timed_out)."""
    pipe = subprocess.PIPE if stdin_data is not None else subprocess.DEVNULL
    proc = subprocess.Popen(cmd, cwd=cwd, env=_env(home), start_new_session=True,
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
        # bwrap, root without capabilities, must be able to enter it (not to list it)
        os.chmod(path, 0o711)
    return path


class ChecksServer:
    """Weak mode: ``run_checks.py --serve`` for one sheet, modules imported once, a fork each."""

    def __init__(self, imports: str, lecturer: Path | None = None):
        self.home = Path(tempfile.mkdtemp(prefix="kmgrade-server-"))
        path = ["--path", str(lecturer)] if lecturer is not None else []
        self.proc = subprocess.Popen([sys.executable, "-I", str(HERE / "run_checks.py"), *path,
                                      "--serve"],
                                     cwd=self.home, env=_env(str(self.home)),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, start_new_session=True)
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


# --------------------------------------------------------------------------- grading
class Sandbox:
    """How submissions run: ``"bwrap"`` (the sandbox) or ``"weak"`` (asked for explicitly)."""

    def __init__(self, mode: str = "bwrap", imports: str | None = None):
        if mode not in ("bwrap", "weak"):
            raise ValueError(f"unknown sandbox mode {mode!r}")
        if mode == "bwrap" and bwrap_problem() is not None:
            raise RuntimeError(f"{BWRAP_MISSING}: {bwrap_problem()}")
        self.mode = mode
        self.stage = Stage()
        self.server = (ChecksServer(imports, self.stage.lecturer)
                       if mode == "weak" and imports is not None else None)

    def close(self) -> None:
        if self.server is not None:
            self.server.close()
        self.stage.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # bubblewrap command lines
    def _student_cmd(self, work: Path) -> list[str]:
        if self.mode == "weak":
            return [sys.executable, "-I", str(self.stage.root / "run_student.py"), str(work),
                    str(self.stage.root / "lib")]
        return [shutil.which("bwrap"), *_system_binds(),
                "--ro-bind", str(self.stage.root), STAGE_IN,
                "--bind", str(work), HOME_IN, "--chdir", HOME_IN, *_drop(),
                _python_in(), "-I", f"{STAGE_IN}/run_student.py", HOME_IN, f"{STAGE_IN}/lib"]

    def _checks_cmd(self, answers: Path, scratch: Path) -> list[str]:
        if self.mode == "weak":
            return [sys.executable, "-I", str(self.stage.root / "run_checks.py"),
                    "--path", str(self.stage.lecturer)]
        return [shutil.which("bwrap"), *_system_binds(),
                "--ro-bind", str(self.stage.root), STAGE_IN,
                "--perms", "0755", "--dir", LECTURER_IN,
                "--ro-bind", str(self.stage.kmlib), f"{LECTURER_IN}/kmlib",
                "--ro-bind", str(self.stage.lecturer / "_grading"), f"{LECTURER_IN}/_grading",
                "--ro-bind", str(answers), ANSWERS_IN,
                "--bind", str(scratch), HOME_IN, "--chdir", HOME_IN, *_drop(),
                _python_in(), "-I", f"{STAGE_IN}/run_checks.py", "--path", LECTURER_IN]

    def grade_cells(self, steps: list, sheet, limits: Limits) -> Outcome:
        """Run a submission's ``steps`` under ``limits``; grade with ``sheet``'s checks.

        A step is ``["cell", [index, source]]`` or ``["checks", [i, ...]]``, the place where
        the answers read by the sheet's checks ``i`` are saved.
        """
        ids = _user_ids(limits)  # the owner of the private folders (nobody, when root)
        if self.mode == "bwrap" and not _as_root():
            ids = None
        become = ids if self.mode == "weak" else None  # bwrap: setpriv switches inside
        work = _private_dir(ids)
        answers = _private_dir(None)
        scratch = _private_dir(ids)
        notes: list[str] = []
        home = HOME_IN if self.mode == "bwrap" else str(work)
        try:
            job = {"steps": steps, "names": [c.names for c in sheet.checks],
                   "timeout": limits.timeout}
            (work / "job.json").write_text(json.dumps(job), encoding="utf-8")
            if ids is not None:
                os.chown(work / "job.json", *ids)
            _, killed = _run(self._student_cmd(work), work, home, limits,
                             limits.timeout + limits.grace, become)
            report = _read_json(work / "report.json")
            if killed:
                notes.append(f"the notebook was stopped after {limits.timeout} s; it was graded "
                             "on the answers given at the check cells it had reached")
            elif not isinstance(report, dict):
                notes.append("the notebook's process ended abruptly (a crash or an exit); it was "
                             "graded on the answers given at the check cells it had reached")
            else:
                if report.get("timed_out"):
                    notes.append(f"the notebook did not finish within {limits.timeout} s; it "
                                 "was graded on the answers computed before it was stopped")
                errors = report.get("errors")
                for error in errors[:20] if isinstance(errors, list) else []:
                    if isinstance(error, list) and len(error) == 2:
                        notes.append(f"code cell {error[0]} raised {str(error[1])[:300]}")
            _copy_answers(work / "answers", answers)
            job = {"checks": [{"source": c.source, "names": c.names} for c in sheet.checks],
                   "imports": sheet.imports, "check_timeout": CHECKS_SECONDS,
                   "answers_dir": ANSWERS_IN if self.mode == "bwrap" else str(answers)}
            wall = CHECKS_SECONDS * len(sheet.checks) + GRACE_SECONDS
            if self.server is not None:
                job.update(cwd=str(scratch), wall=wall, limits=limits.__dict__)
                results = self.server.run(job)
            else:
                out, _ = _run(self._checks_cmd(answers, scratch), scratch,
                              HOME_IN if self.mode == "bwrap" else str(scratch), limits, wall,
                              become, stdin_data=json.dumps(job).encode())
                try:
                    results = json.loads(out.decode()) if out else None
                except ValueError:
                    results = None
            if not isinstance(results, list) or len(results) != len(sheet.checks):
                results = [{"passed": False, "message": "the checks could not run on this "
                            "notebook's answers (the grading process failed)"}
                           for _ in sheet.checks]
            return Outcome(results=results, notes=notes)
        finally:
            for folder in (work, answers, scratch):
                shutil.rmtree(folder, ignore_errors=True)


def _read_json(path: Path):
    """A JSON file the student's process wrote: a regular file, never followed through a link."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode) or os.fstat(fd).st_size > MAX_ANSWER_BYTES:
            return None
        with os.fdopen(fd, "rb") as f:
            fd = -1
            return json.loads(f.read().decode("utf-8"))
    except (OSError, ValueError):
        return None
    finally:
        if fd >= 0:
            os.close(fd)


def _copy_answers(source: Path, target: Path) -> None:
    """Copy the answer files (regular files with the expected names, no links) to ``target``."""
    try:
        if not stat.S_ISDIR(os.lstat(source).st_mode):
            return
        names = os.listdir(source)
    except OSError:
        return
    total = 0
    for name in names:
        if not ANSWER_FILE.match(name):
            continue
        try:
            fd = os.open(source / name, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            continue
        with os.fdopen(fd, "rb") as f:
            info = os.fstat(f.fileno())
            total += info.st_size
            if not stat.S_ISREG(info.st_mode) or total > MAX_ANSWER_BYTES:
                continue
            (target / name).write_bytes(f.read())
    for path in [target, *target.iterdir()]:
        os.chmod(path, 0o755 if path.is_dir() else 0o644)


def grade_cells(steps: list, sheet, limits: Limits, server: ChecksServer | None = None) -> Outcome:
    """Weak mode without a :class:`Sandbox` (kept for callers of the old interface)."""
    with Sandbox("weak") as box:
        box.server = server
        try:
            return box.grade_cells(steps, sheet, limits)
        finally:
            box.server = None
