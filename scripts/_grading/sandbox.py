"""Run one submission in three sandboxes: its cells, the checks, its function answers.

Only data crosses between them, through the grader.

**The sandboxes (bubblewrap, required).** Each one is a fresh mount, PID, IPC, network and
UTS namespace holding only the host's system folders (``/usr``, read-only), the Python
installation (read-only, at ``/opt/python``), the virtual environment's packages
(read-only, at ``/opt/venv``), the staged grading scripts and a copy of ``kmlib`` whose
exercise modules have no ``check_*`` functions (read-only, at ``/opt/kmgrade``), and a
private, size-limited ``tmpfs`` as its home and ``/tmp`` (:attr:`Limits.disk_mb`). The
Python installation and the packages are a relocated copy (:mod:`runtime`) and the staged
files are compiled with their sandbox paths, all kept under neutrally named folders of
``/var/tmp``: no file, compiled module, mount table (``/proc/self/mountinfo`` shows a bind
mount's host folder), environment variable or interpreter attribute in a sandbox names the
lecturer's repository, environment, Python installation, home or temporary folder. It has
no network and no capability. The lecturer's repository, home folder, sheets, ``.git``
and the other submissions are not there at all.

**Whose user id** (:func:`mode` says which applies). Run by root, bubblewrap needs no user
namespace and ``setpriv`` turns the sandbox's process into a host user without privileges,
a fresh, otherwise unused user id for each sandbox. Run by an ordinary user who has
subordinate ids (:mod:`userns`), ``grade.py`` runs in a user namespace where it is root
over those ids, and the sandboxes run as they do for root, each under a fresh id of the
range: on the host, a user id that is neither the lecturer's nor another sandbox's.
Otherwise each sandbox has a user namespace of its own that maps its process to
``nobody``, and the host sees the lecturer's own id for every sandbox.

1. ``run_student.py`` runs the notebook's cells and sends, on its standard output, the
   answers each check reads as data (:mod:`codec`), as they are at the check cell.
2. ``run_checks.py`` runs the lecturer's checks on those answers, with the lecturer's
   ``kmlib`` and ``_grading.reference`` (the full checks) at ``/opt/lecturer``, under its
   own user id, non-dumpable. It never runs student code: when a check calls a function
   answer, the call's arguments come out as data, the grader hands them to
3. ``run_function.py``, a fresh sandbox of the student's kind started for each check that
   calls a function answer (the calls of one check share it; it is killed when the check ends),
   which rebuilds the function from its source, calls it and sends the value back as data;
   the grader passes it to the checks. It holds no pipe to the grader's results.

The grader takes results only from the checks' standard output, in the expected form
(one ``{"passed", "message"}`` per check, messages cut to 300 characters and scrubbed).

**Limits** (:class:`Limits`), set by each sandboxed script on itself before any student
code runs, in every mode: address space, CPU time, size of a written file, number of
processes (``RLIMIT_NPROC``: the processes of the sandbox's own user id, or, when every
sandbox runs under the lecturer's id, of that id inside the sandbox's user namespace), no
core dumps; a size-limited ``tmpfs`` for everything the notebook writes;
a cap on the bytes the grader reads back; the wall clock, after which the whole process
group is killed. Untrusted JSON is checked for size and depth before it is parsed.
"""
from __future__ import annotations

import ast
import compileall
import functools
import importlib.util
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import codec  # noqa: E402
import runtime  # noqa: E402
import userns  # noqa: E402

GRACE_SECONDS = 10
CHECKS_SECONDS = 60
FUNCTION_SECONDS = 30              # one call of a student's function
STAGE_IN = "/opt/kmgrade"          # the staged files, as the sandbox sees them
VENV_IN = "/opt/venv"              # the virtual environment, as the sandbox sees it
PYTHON_IN = "/opt/python"          # the Python installation, as the sandbox sees it
LECTURER_IN = "/opt/lecturer"      # the lecturer's kmlib, seen by the checks sandbox only
HOME_IN = "/home/student"          # the private folder (a tmpfs)
STUDENT_UID = 65534                # nobody (inside a sandbox's own user namespace)
FREE_UIDS = (1_000_000_000, 2_000_000_000)  # root of the host: a fresh unused id per sandbox
MAX_STREAM_BYTES = 256 * 2**20     # what the grader reads from a sandbox
MAX_LINE_BYTES = 64 * 2**20
MAX_LINE_VALUES = 2_000_000        # JSON values in one line from a sandbox (codec.json_values)
MAX_ANSWER_VALUES = 4_000_000      # in all the answers of one notebook the grader keeps
MEMORY_POLL = 0.25                 # seconds between two looks at a sandbox's resident memory
STAGED = ("run_student.py", "run_checks.py", "run_function.py", "codec.py")
BWRAP_MISSING = ("bubblewrap (bwrap) is not available or cannot create namespaces here: "
                 "student code could read the lecturer's files")


@dataclass
class Limits:
    """Limits for one submission (each of its sandboxes)."""

    timeout: int = 120     # wall-clock seconds for the student's notebook
    memory_mb: int = 2048  # address space of each process
    file_mb: int = 64      # largest file the notebook may write
    disk_mb: int = 256     # its private tmpfs (home and /tmp, each)
    processes: int = 64    # processes of its user in its sandbox (RLIMIT_NPROC)
    grace: int = GRACE_SECONDS  # after timeout + grace the process group is killed

    def inside(self, cpu_seconds: int) -> dict:
        return {"memory_mb": self.memory_mb, "file_mb": self.file_mb,
                "cpu_seconds": cpu_seconds, "processes": self.processes}


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


SHOWN_PATHS = (VENV_IN, PYTHON_IN, STAGE_IN, LECTURER_IN, HOME_IN, "/usr/", "/dev/", "/proc/")
ABSOLUTE_PATH = re.compile(r"(?<![\w.)\]}/…])/[^\s'\"`(),;<>\[\]{}|]+")
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def scrub(text: str, extra: tuple[str, ...] = ()) -> str:
    """``text`` with every path of the lecturer's machine replaced by ``…``.

    The known folders (the repository, home, the Python installation, the submissions)
    go first; then every other absolute path except those the sandbox shows to every
    student (``/opt/venv``, ``/opt/kmgrade``, ``/home/student``, ``/usr``, ...). Control
    characters go too.
    """
    text = CONTROL.sub(" ", text)
    for path in _secret_paths(extra):
        text = text.replace(path, "…")

    def hide(m: re.Match) -> str:
        path = m.group(0)
        return path if path.startswith(SHOWN_PATHS) or path in SHOWN_PATHS else "…"

    return ABSOLUTE_PATH.sub(hide, text)


# --------------------------------------------------------------------------- bubblewrap
def _as_root() -> bool:
    """Whether bwrap runs as root (the sandbox then switches user with setpriv)."""
    return os.geteuid() == 0 and shutil.which("setpriv") is not None


def _base() -> str:
    return runtime.base()


def _python_in() -> str:
    """The interpreter, as the sandbox sees it."""
    if runtime.in_venv():
        return f"{VENV_IN}/bin/python3"
    real = os.path.realpath(sys.executable)
    return runtime.python_in() + real[len(_base()):]


class Stage:
    """The files the sandboxes need, in folders whose paths name nothing of the lecturer's.

    ``runtime`` (:mod:`runtime`, built once per environment and reused): the Python
    installation and the virtual environment's packages, seen at ``/opt/python`` and
    ``/opt/venv``. Per grading run, a folder ``kmgrade-stage-XXXXXXXX`` next to it:
    ``root`` (every sandbox sees it at ``/opt/kmgrade``): the grading scripts and
    ``lib/kmlib``, the library as installed except that ``kmlib/book/exercises/ch*.py`` keep
    no ``check_*`` function, so the student's process holds no checker to call;
    ``lecturer`` (only the checks see it, at ``/opt/lecturer``): a copy of ``kmlib`` and
    ``_grading/reference/``, the lecturer's full checks. Both are compiled with their
    sandbox paths as file names.
    """

    def __init__(self):
        spec = importlib.util.find_spec("kmlib")
        if spec is None or not spec.submodule_search_locations:
            raise RuntimeError("kmlib is not importable")
        self.kmlib = Path(list(spec.submodule_search_locations)[0]).resolve()
        self.runtime = runtime.ensure()
        self.top = Path(tempfile.mkdtemp(prefix="kmgrade-stage-", dir=runtime.parent()))
        self.root, self.lecturer = self.top / "s", self.top / "l"
        self.root.mkdir()
        for name in STAGED:
            shutil.copy2(HERE / name, self.root / name)
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
        lib = self.root / "lib" / "kmlib"
        shutil.copytree(self.kmlib, lib, ignore=ignore)
        for module in (lib / "book" / "exercises").glob("ch*.py"):
            module.write_text(_strip_checkers(module.read_text(encoding="utf-8")),
                              encoding="utf-8")
        shutil.copytree(self.kmlib, self.lecturer / "kmlib", ignore=ignore)
        package = self.lecturer / "_grading"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text('"""The lecturer\'s checks (a copy)."""\n',
                                             encoding="utf-8")
        if (HERE / "reference").is_dir():
            shutil.copytree(HERE / "reference", package / "reference", ignore=ignore)
        for folder, inside in ((self.root, STAGE_IN), (self.lecturer, LECTURER_IN)):
            compileall.compile_dir(str(folder), ddir=inside, quiet=2, workers=1)
        self.binds = []
        if runtime.staged_python():
            if runtime.python_in() != PYTHON_IN:
                self.binds += ["--perms", "0755", "--dir", PYTHON_IN]
            self.binds += ["--ro-bind", str(self.runtime / "python"), runtime.python_in()]
        if runtime.in_venv():
            self.binds += ["--ro-bind", str(self.runtime / "venv"), VENV_IN]
        for top in (self.top, *self.top.rglob("*")):
            if not top.is_symlink():
                os.chmod(top, 0o755 if top.is_dir() else 0o644)

    def close(self) -> None:
        shutil.rmtree(self.top, ignore_errors=True)


def _common(stage: Stage, limits: Limits) -> list[str]:
    """The bwrap options every sandbox shares (what it sees, and its namespaces)."""
    args = ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    for etc in ("/etc/ld.so.cache", "/etc/localtime", "/etc/fonts", "/etc/alternatives"):
        args += ["--ro-bind-try", etc, etc]
    args += ["--perms", "0755", "--dir", "/opt", "--perms", "0755", "--dir", "/home",
             *stage.binds, "--ro-bind", str(stage.root), STAGE_IN,
             "--proc", "/proc", "--dev", "/dev",
             "--size", str(limits.disk_mb * 2**20), "--perms", "1777", "--tmpfs", "/tmp",
             "--size", str(limits.disk_mb * 2**20), "--perms", "1777", "--tmpfs", HOME_IN,
             "--chdir", HOME_IN, "--hostname", "sandbox", "--die-with-parent",
             "--new-session", "--cap-drop", "ALL"]
    if _as_root():
        return args + ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                       "--unshare-cgroup-try", "--cap-add", "CAP_SETUID",
                       "--cap-add", "CAP_SETGID"]
    return args + ["--unshare-all", "--unshare-user", "--disable-userns",
                   "--uid", str(STUDENT_UID), "--gid", str(STUDENT_UID)]


@functools.lru_cache(maxsize=1)
def _uid_pool() -> tuple[tuple[int, int], ...]:
    """The user ids a sandbox may get, as (first, count) ranges (root mode).

    Root of the host: :data:`FREE_UIDS`, ids no account has. Root of a user namespace (the
    grader in :mod:`userns`'s namespace of subordinate ids): every id its map holds except
    0, the grader itself.
    """
    mapped = userns.uid_map()
    if mapped == [userns.IDENTITY]:
        return ((FREE_UIDS[0], FREE_UIDS[1] - FREE_UIDS[0]),)
    pool = []
    for inner, _outer, count in mapped:
        if inner == 0:
            inner, count = 1, count - 1
        if count > 0:
            pool.append((inner, count))
    return tuple(pool)


_UID_LOCK = threading.Lock()
_uid_next: list[int] = []


def _fresh_uid() -> int:
    """A user id of no other process (root mode), one per sandbox.

    The ids of one grading run are taken in turn from a random place in :func:`_uid_pool`,
    so no two sandboxes of a run share one (until the pool wraps around: 65,535 sandboxes
    with subordinate ids) and the process limit counts that sandbox's processes only.
    ``nobody`` (65534) is never given.
    """
    import secrets

    pool = _uid_pool()
    total = sum(count for _, count in pool)
    with _UID_LOCK:
        if not _uid_next:
            _uid_next.append(secrets.randbelow(total))
        while True:
            k = _uid_next[0] % total
            _uid_next[0] += 1
            for start, count in pool:
                if k < count:
                    uid = start + k
                    break
                k -= count
            if uid != STUDENT_UID:
                return uid


def mode(why_not_subordinate: str | None = None) -> str:
    """Under which host user ids the sandboxes run here, in a sentence for the console."""
    if not _as_root():
        why = f" (no subordinate ids: {why_not_subordinate})" if why_not_subordinate else ""
        return (f"ordinary user: every sandbox runs under your own user id {os.getuid()}, "
                f"in a user namespace of its own{why}")
    mapped = userns.uid_map()
    if mapped == [userns.IDENTITY]:
        return "root: each sandbox runs under a fresh, otherwise unused user id"
    own = next((outer for inner, outer, _ in mapped if inner == 0), None)
    ranges = ", ".join(f"{outer}-{outer + count - 1}" for inner, outer, count in mapped
                       if inner != 0)
    if userns.inside():
        return (f"subordinate user ids: each sandbox runs under a host user id of its own "
                f"from {ranges}, not yours ({own})")
    return (f"root of a user namespace (you are {own} on the host): each sandbox runs "
            f"under a fresh user id of its map ({ranges})")


def _drop(uid: int) -> list[str]:
    """What runs the sandbox's command as ``uid`` without privileges (nothing when not root)."""
    if not _as_root():
        return []
    return [shutil.which("setpriv"), f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
            "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs"]


def _env() -> dict[str, str]:
    env = {"PATH": f"{VENV_IN}/bin:/usr/bin:/bin", "HOME": HOME_IN, "TMPDIR": HOME_IN,
           "LANG": "C.UTF-8", "MPLBACKEND": "Agg", "MPLCONFIGDIR": f"{HOME_IN}/.matplotlib",
           "IPYTHONDIR": f"{HOME_IN}/.ipython", "PYTHONHASHSEED": "0",
           "PYTHONDONTWRITEBYTECODE": "1"}
    if runtime.staged_python():
        env["LD_LIBRARY_PATH"] = f"{runtime.python_in()}/lib"
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = "1"
    return env


@functools.lru_cache(maxsize=1)
def bwrap_problem() -> str | None:
    """Why bubblewrap cannot be used here (None when it works)."""
    exe = shutil.which("bwrap")
    if exe is None:
        return "bwrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    stage = None
    try:
        stage = Stage()
        proc = _spawn([exe, *_common(stage, Limits()), "--", *_drop(_fresh_uid()),
                       _python_in(), "-I", "-c", "import numpy"],
                      stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                      stderr=subprocess.PIPE)
        _, err = proc.communicate(timeout=60)
        done = subprocess.CompletedProcess(proc.args, proc.returncode, None, err)
    except (OSError, subprocess.TimeoutExpired, RuntimeError) as exc:
        return f"bwrap failed to start ({type(exc).__name__})"
    finally:
        if stage is not None:
            stage.close()
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


# --------------------------------------------------------------------------- processes
def _args_fd(args: list[str]) -> int:
    """A pipe's read end holding ``args`` NUL-separated (``bwrap --args FD``).

    The sandbox's ``/proc/1/cmdline`` then shows ``bwrap --args N``, not the host paths.
    """
    data = b"".join(a.encode() + b"\0" for a in args)
    read_fd, write_fd = os.pipe()
    if len(data) > 60_000:
        raise RuntimeError("bwrap arguments too long for a pipe")
    os.write(write_fd, data)
    os.close(write_fd)
    return read_fd


def _spawn(cmd: list[str], **kwargs) -> subprocess.Popen:
    """Start ``[bwrap, *options, --, command...]`` with the options passed through a pipe."""
    split = cmd.index("--")
    fd = _args_fd(cmd[1:split])
    try:
        return subprocess.Popen([cmd[0], "--args", str(fd), *cmd[split + 1:]], env=_env(),
                                cwd="/", pass_fds=(fd,), **kwargs)
    finally:
        os.close(fd)


def _pss(pid: int, page: int) -> int:
    """The proportional set size of ``pid`` (its resident size if that cannot be read)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
            for row in f:
                if row.startswith(b"Pss:"):
                    return int(row.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * page
    except (OSError, ValueError, IndexError):
        return 0


class Proc:
    """A sandboxed process with pipes: lines in and out, each read under a deadline and a cap."""

    def __init__(self, cmd: list[str], max_rss_mb: int | None = None):
        self.popen = _spawn(cmd, start_new_session=True, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.buffer = b""
        self.read_bytes = 0
        self.overflow = False
        self.max_rss = None if max_rss_mb is None else max_rss_mb * 2**20
        self.memory_exceeded = False
        self.looked = 0.0

    def rss(self) -> int:
        """Memory of all the sandbox's processes (every descendant of its bwrap), in bytes.

        The address-space limit holds per process; this sum is what a notebook that forks
        many large processes uses of the machine. Orphans are adopted by the sandbox's own
        first process, so they stay descendants. Each process counts its proportional
        share of the pages it shares (``Pss``: forked children share their parent's), or
        all its resident pages when that share cannot be read.
        """
        children: dict[int, list[int]] = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat", "rb") as f:
                        stat = f.read()
                    ppid = int(stat[stat.rindex(b")") + 2:].split()[1])
                except (OSError, ValueError, IndexError):
                    continue
                children.setdefault(ppid, []).append(int(entry))
        total, todo, page = 0, [self.popen.pid], os.sysconf("SC_PAGE_SIZE")
        while todo:
            pid = todo.pop()
            todo += children.get(pid, [])
            total += _pss(pid, page)
        return total

    def _memory_ok(self) -> bool:
        if self.max_rss is None or time.monotonic() - self.looked < MEMORY_POLL:
            return not self.memory_exceeded
        self.looked = time.monotonic()
        self.memory_exceeded = self.memory_exceeded or self.rss() > self.max_rss
        return not self.memory_exceeded

    def write(self, data: bytes, deadline: float) -> bool:
        """Write ``data`` by the ``deadline``; False if the process stops reading or exits.

        The pipe is non-blocking: a sandbox that keeps its input open but never reads it
        cannot hold the grader in a write.
        """
        try:
            fd = self.popen.stdin.fileno()
            os.set_blocking(fd, False)
            view = memoryview(data)
            while view:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([], [fd], [], left)[1]:
                    return False
                try:
                    view = view[os.write(fd, view):]
                except BlockingIOError:
                    continue
            return True
        except (BrokenPipeError, OSError, ValueError):
            return False

    def close_input(self) -> None:
        try:
            self.popen.stdin.close()
        except OSError:
            pass

    def line(self, deadline: float) -> bytes | None:
        """The next line (without its newline), or None at the end, the deadline or the cap."""
        fd = self.popen.stdout.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or self.overflow or not self._memory_ok():
                return None
            wait = left if self.max_rss is None else min(left, MEMORY_POLL)
            if not select.select([fd], [], [], wait)[0]:
                continue
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return None
            self.read_bytes += len(chunk)
            self.buffer += chunk
            if self.read_bytes > MAX_STREAM_BYTES or len(self.buffer) > MAX_LINE_BYTES:
                self.overflow = True
                self.buffer = b""
                return None
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line

    def kill(self) -> int | None:
        """Kill the process group; return the exit status (negative: the signal)."""
        try:
            os.killpg(self.popen.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        for stream in (self.popen.stdin, self.popen.stdout):
            try:
                stream.close()
            except OSError:
                pass
        return self.popen.wait()


def _message(line: bytes | None, max_values: int = MAX_LINE_VALUES):
    if line is None:
        return None
    try:
        return codec.loads(line, MAX_LINE_BYTES, max_values=max(max_values, 0))
    except codec.DataError:
        return None


LIMIT_NOTES = (
    ("No space left on device", "the notebook filled its private disk ({disk} MB): later "
     "writes failed"),
    ("Resource temporarily unavailable", "the notebook reached its limit of {processes} "
     "processes: starting more failed"),
    ("MemoryError", "the notebook reached its memory limit ({memory} MB): an allocation failed"),
    ("File too large", "the notebook wrote a file larger than its limit ({file} MB)"),
)


# --------------------------------------------------------------------------- grading
class Sandbox:
    """Runs submissions in bubblewrap sandboxes (see the module docstring)."""

    def __init__(self, imports: str | None = None):
        if bwrap_problem() is not None:
            raise RuntimeError(f"{BWRAP_MISSING}: {bwrap_problem()}")
        self.stage = Stage()

    def close(self) -> None:
        self.stage.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _cmd(self, limits: Limits, script: str, lecturer: bool = False) -> list[str]:
        extra: list[str] = []
        uid = _fresh_uid()
        if lecturer:
            extra = ["--ro-bind", str(self.stage.lecturer), LECTURER_IN]
        path = ["--path", LECTURER_IN] if lecturer else []
        return [shutil.which("bwrap"), *_common(self.stage, limits), *extra, "--",
                *_drop(uid), _python_in(), "-I", f"{STAGE_IN}/{script}", *path]

    # the student's notebook ----------------------------------------------------------------
    def _run_student(self, steps: list, sheet, limits: Limits) -> tuple[dict, list[str]]:
        notes: list[str] = []
        job = {"steps": steps, "names": [c.names for c in sheet.checks],
               "timeout": limits.timeout, "limits": limits.inside(limits.timeout + 5)}
        proc = Proc(self._cmd(limits, "run_student.py"), max_rss_mb=limits.memory_mb)
        deadline = time.monotonic() + limits.timeout + limits.grace
        proc.write(json.dumps(job).encode(), deadline)
        proc.close_input()
        answers: dict = {}
        report = None
        left = MAX_ANSWER_VALUES  # what the grader keeps in memory, parsed
        while True:
            line = proc.line(deadline)
            if line is None:
                break
            message = _message(line, min(left, MAX_LINE_VALUES))
            if not isinstance(message, dict):
                continue
            if isinstance(message.get("answers"), dict):
                left -= codec.json_values(line)
                for key, values in message["answers"].items():
                    if isinstance(values, dict):
                        answers.setdefault(str(key), values)
            elif isinstance(message.get("report"), dict):
                report = message["report"]  # the last one counts
        timed_out = time.monotonic() >= deadline
        status = proc.kill()
        if proc.memory_exceeded:
            notes.append(f"the notebook's processes together used more than "
                         f"{limits.memory_mb} MB of memory (a limit): it was stopped and "
                         "graded on the answers given at the check cells it had reached")
        elif proc.overflow:
            notes.append(f"the notebook's answers exceeded {MAX_STREAM_BYTES // 2**20} MB (a "
                         "limit): it was stopped and graded on the answers sent before")
        elif timed_out:
            notes.append(f"the notebook was stopped after {limits.timeout} s (a limit); it "
                         "was graded on the answers given at the check cells it had reached")
        elif report is None:
            cpu = status in (-signal.SIGXCPU, 128 + signal.SIGXCPU)  # bwrap passes it on
            why = "it reached its CPU time limit" if cpu else "a crash or an exit"
            notes.append(f"the notebook's process ended abruptly ({why}); it was graded on "
                         "the answers given at the check cells it had reached")
        if isinstance(report, dict):
            if report.get("timed_out"):
                notes.append(f"the notebook did not finish within {limits.timeout} s (a "
                             "limit); it was graded on the answers computed before it was "
                             "stopped")
            errors = report.get("errors")
            errors = [e for e in errors if isinstance(e, list) and len(e) == 2][:20] \
                if isinstance(errors, list) else []
            for index, text in errors:
                notes.append(f"code cell {str(index)[:10]} raised {str(text)[:300]}")
            seen = " ".join(str(text) for _, text in errors)
            values = {"disk": limits.disk_mb, "processes": limits.processes,
                      "memory": limits.memory_mb, "file": limits.file_mb}
            if report.get("disk_full") is True:
                seen += " No space left on device"
            processes = report.get("processes")
            if isinstance(processes, int) and processes >= limits.processes - 2:
                seen += " Resource temporarily unavailable"
            for marker, note in LIMIT_NOTES:
                if marker in seen:
                    notes.append(note.format(**values))
        return answers, notes

    # the checks, and the student's functions they call ------------------------------------
    def _start_checks(self, sheet, limits: Limits) -> Proc:
        """The checks' sandbox, started early: it imports the lecturer's modules meanwhile."""
        checks = Proc(self._cmd(limits, "run_checks.py", lecturer=True))
        inside = Limits(memory_mb=max(limits.memory_mb, 2048), processes=limits.processes)
        checks.write(json.dumps({"limits": inside.inside(CHECKS_SECONDS * len(sheet.checks)
                                                          + limits.timeout + limits.grace),
                                 "imports": sheet.imports}).encode() + b"\n",
                     time.monotonic() + CHECKS_SECONDS)
        return checks

    def _run_checks(self, checks: Proc, answers: dict, sheet, limits: Limits) -> list | str:
        job = {"checks": [{"source": c.source, "names": c.names} for c in sheet.checks],
               "check_timeout": CHECKS_SECONDS, "answers": answers}
        function: Proc | None = None
        serving = None  # the check whose calls the running function sandbox answers
        deadline = time.monotonic() + CHECKS_SECONDS * len(sheet.checks) + GRACE_SECONDS
        results: list | str = "the grading process failed"
        try:
            checks.write(json.dumps(job).encode() + b"\n", deadline)
            while True:
                message = _message(checks.line(deadline))
                if not isinstance(message, dict):
                    break
                if "results" in message:
                    results = message["results"]
                    break
                if "fatal" in message:
                    results = str(message["fatal"])[:300]
                    break
                call = message.get("call")
                if not isinstance(call, dict):
                    continue
                # a fresh sandbox for every check: the calls of one check share it (as
                # calls share a notebook), and nothing of it (a process left running, a
                # file, its memory) outlives that check
                reply = None
                until = min(deadline, time.monotonic() + FUNCTION_SECONDS)
                if function is not None and serving != call.get("check"):
                    function.kill()
                    function = None
                first = b""
                if function is None:
                    function = Proc(self._cmd(limits, "run_function.py"),
                                    max_rss_mb=limits.memory_mb)
                    serving = call.get("check")
                    first = json.dumps({"limits": limits.inside(limits.timeout),
                                        "imports": sheet.imports}).encode() + b"\n"
                if function.write(first + json.dumps({k: call.get(k) for k in
                                                      ("fn", "args", "kwargs")}).encode()
                                  + b"\n", until):
                    reply = _message(function.line(until))
                if not isinstance(reply, dict):
                    function.kill()
                    function = None
                if not isinstance(reply, dict) or not ({"value", "error"} & set(reply)):
                    reply = {"error": ["RuntimeError", "the function did not return a value "
                                       f"within {FUNCTION_SECONDS} s or within its limits"]}
                reply = {k: reply[k] for k in ("value", "error") if k in reply}
                reply["id"] = call.get("id")
                if not checks.write(json.dumps(reply).encode() + b"\n", deadline):
                    break
        finally:
            checks.kill()
            if function is not None:
                function.kill()
        return results

    def grade_cells(self, steps: list, sheet, limits: Limits) -> Outcome:
        """Run a submission's ``steps`` under ``limits``; grade with ``sheet``'s checks.

        A step is ``["cell", [index, source]]`` or ``["checks", [i, ...]]``, the place where
        the answers read by the sheet's checks ``i`` are saved.
        """
        checks = self._start_checks(sheet, limits)
        try:
            answers, notes = self._run_student(steps, sheet, limits)
        except BaseException:
            checks.kill()
            raise
        results = self._run_checks(checks, answers, sheet, limits)
        return Outcome(results=accepted(results, len(sheet.checks)), notes=notes)


def accepted(results, count: int) -> list[dict]:
    """The checks' results in the only form the grader takes; anything else fails them all."""
    if (isinstance(results, list) and len(results) == count
            and all(isinstance(r, dict) and isinstance(r.get("passed"), bool)
                    and isinstance(r.get("message"), str) for r in results)):
        return [{"passed": r["passed"], "message": scrub(r["message"][:300])} for r in results]
    why = results if isinstance(results, str) else "the grading process failed"
    return [{"passed": False, "message": f"the checks could not run on this notebook's "
                                         f"answers ({why})"} for _ in range(count)]
