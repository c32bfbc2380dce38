"""The Python the sandboxes run: a copy that names none of the lecturer's folders.

A sandbox sees the Python installation at ``/opt/python`` and the virtual environment at
``/opt/venv``. Bound in place, these would still show where they live on the lecturer's
machine: ``/proc/self/mountinfo`` lists the host folder of every bind mount, the compiled
modules (``.pyc``) record the path they were compiled at, the interpreter and its
extension modules carry the installation's folder (``RUNPATH``, the compiled-in prefix),
``_sysconfigdata`` and an editable install's files name it as text.

So the grader builds a *runtime*: a folder under ``/var/tmp`` (a system folder, not the
lecturer's temporary folder; ``KMGRADE_RUNTIME_DIR`` overrides it) with a neutral name,
``kmgrade-runtime-XXXXXXXX``, holding

* ``python/``: the interpreter, its shared library and the standard library (no
  ``site-packages``, tests or build configuration);
* ``venv/``: ``pyvenv.cfg`` naming ``/opt/python``, the interpreter's link and the
  environment's ``site-packages`` (an editable install's finder, ``.pth`` files naming a
  lecturer folder and every ``direct_url.json`` left out).

Files that name no lecturer folder are hard links (no copy of the data; a copy where
linking is not allowed). Text files that do are copied with the folder replaced by its
sandbox path; binary files likewise, each C string padded with NUL bytes to its length
(as conda relocates binaries). Compiled modules are rewritten with the sandbox path as
their file name; one that still names a lecturer folder is left out (Python then compiles
its source in memory). Finally every file of the runtime is read and the build refused if
any still contains a lecturer folder. The runtime is built once per environment (about a
minute) and reused while the environment is unchanged (the index is kept in the
lecturer's cache folder, which no sandbox sees).
"""
from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import json
import marshal
import os
import re
import shutil
import stat
import sys
import tempfile
import time
import types
from pathlib import Path

FORMAT = 3
PARENT_ENV = "KMGRADE_RUNTIME_DIR"
PREFIX = "kmgrade-runtime-"
STALE_SECONDS = 86_400  # an older runtime is removed a day after it was replaced
VENV_IN = "/opt/venv"
PYTHON_IN = "/opt/python"
VERSION = f"python{sys.version_info.major}.{sys.version_info.minor}"
STDLIB_SKIP = {"site-packages", "test", "idlelib", "turtledemo", "ensurepip", "__phello__"}


def base() -> str:
    return os.path.realpath(sys.base_prefix)


def in_venv() -> bool:
    return os.path.realpath(sys.prefix) != base()


def staged_python() -> bool:
    """Whether the installation is copied (anything outside ``/usr``, which is bound as is)."""
    return not base().startswith("/usr/")


def repository() -> str | None:
    spec = importlib.util.find_spec("kmlib")
    if spec is None or not spec.submodule_search_locations:
        return None
    return str(Path(list(spec.submodule_search_locations)[0]).resolve().parent)


def _kept_tail() -> str | None:
    """The installation folder's last part when it names only a version (``3.11.7``).

    A linker may store a string that is the end of another (``PY_VERSION``, ``"3.11.7"``,
    inside ``"/root/.pyenv/versions/3.11.7"``) only once; relocating the longer one must
    keep those last bytes, so the sandbox then sees the installation at
    ``/opt/python/3.11.7`` and the binaries read ``/opt/python//////3.11.7``.
    """
    tail = os.path.basename(base())
    return tail if re.fullmatch(r"(python|py|cpython)?-?\d+(\.\d+)*[a-z0-9+]*", tail) else None


def python_in() -> str:
    """Where the sandbox sees the Python installation."""
    if not staged_python():
        return base()
    tail = _kept_tail()
    return f"{PYTHON_IN}/{tail}" if tail else PYTHON_IN


def replacements() -> list[tuple[bytes, bytes]]:
    """(lecturer folder, sandbox folder), longest first."""
    pairs = {}
    if staged_python():
        for p in {sys.base_prefix, sys.base_exec_prefix, base()}:
            pairs[p] = python_in()
    if in_venv():
        for p in {sys.prefix, sys.exec_prefix, os.path.realpath(sys.prefix)}:
            pairs[p] = VENV_IN
        tail = os.path.join("lib", VERSION, "site-packages")
        for site_dir in site_packages():  # packages of another environment, linked here
            if site_dir.endswith(os.sep + tail):
                pairs[site_dir[:-len(tail) - 1]] = VENV_IN
    return sorted(((k.encode(), v.encode()) for k, v in pairs.items() if len(k) > 1),
                  key=lambda kv: len(kv[0]), reverse=True)


def forbidden() -> list[bytes]:
    """Folders of the lecturer's machine that no file of the runtime may contain."""
    found = {old for old, _ in replacements()}
    repo = repository()
    if repo:
        found |= {repo.encode(), os.path.realpath(repo).encode()}
    home = os.path.expanduser("~")
    if home not in ("/", "/root"):  # "/root" is also a common word in library texts
        found.add(home.encode())
    temp = tempfile.gettempdir()
    if temp not in ("/tmp", "/var/tmp"):
        found.add(temp.encode())
    return sorted((f for f in found if len(f) > 1), key=len, reverse=True)


# --------------------------------------------------------------------------- rewriting
def _binary(data: bytes, old: bytes, new: bytes) -> bytes:
    """``old`` replaced by ``new`` in every C string of ``data``, padded to its length.

    When ``new`` ends with the last part of ``old`` (:func:`_kept_tail`), it is padded with
    slashes before that part, so every byte of that part stays where it was; otherwise the
    rest of each C string moves up and NUL bytes fill its end.
    """
    tail = old[old.rfind(b"/"):]
    if new.endswith(tail) and len(old) > len(new):
        same = new[:len(new) - len(tail)] + b"/" * (len(old) - len(new)) + tail
        return data.replace(old, same)
    if len(new) > len(old):
        raise RuntimeError("the sandbox path is longer than the folder it replaces")
    pattern = re.compile(re.escape(old) + rb"([^\0]*?)\0")

    def one(m: re.Match) -> bytes:
        rest = m.group(1)
        count = rest.count(old) + 1
        rest = rest.replace(old, new)
        return new + rest + b"\0" * ((len(old) - len(new)) * count + 1)

    out = pattern.sub(one, data)
    if len(out) != len(data):
        raise RuntimeError("a binary changed its length while relocated")
    return out


def rewrite(data: bytes, pairs: list[tuple[bytes, bytes]]) -> bytes:
    for old, new in pairs:
        if old in data:
            data = _binary(data, old, new) if b"\0" in data else data.replace(old, new)
    return data


def _code(code: types.CodeType, pairs: list[tuple[str, str]]) -> types.CodeType:
    name = code.co_filename
    for old, new in pairs:
        name = name.replace(old, new)
    consts = tuple(_code(c, pairs) if isinstance(c, types.CodeType) else c
                   for c in code.co_consts)
    return code.replace(co_filename=name, co_consts=consts)


def rewrite_pyc(data: bytes, pairs: list[tuple[bytes, bytes]]) -> bytes | None:
    """A compiled module with its file names moved to the sandbox (None if unreadable)."""
    try:
        code = marshal.loads(data[16:])
    except (ValueError, EOFError, TypeError):
        return None
    if not isinstance(code, types.CodeType):
        return None
    text = [(o.decode(errors="surrogateescape"), n.decode()) for o, n in pairs]
    return data[:16] + marshal.dumps(_code(code, text))


# --------------------------------------------------------------------------- building
class _Builder:
    def __init__(self, pairs, secrets):
        self.pairs, self.secrets = pairs, secrets
        self.can_link = True

    def file(self, src: str, dst: str, drop=lambda name, data: False) -> None:
        if drop(os.path.basename(src), None):
            return
        info = os.lstat(src)
        if stat.S_ISLNK(info.st_mode):
            target = os.readlink(src).encode()
            os.symlink(rewrite(target, self.pairs).decode(), dst)
            return
        if not stat.S_ISREG(info.st_mode):
            return
        with open(src, "rb") as f:
            data = f.read()
        name = os.path.basename(src)
        if name.endswith(".pyc"):
            new = rewrite_pyc(data, self.pairs)
            if new is None or any(s in new for s in self.secrets):
                return
            self._write(dst, new, info.st_mode)
            return
        if not any(old in data for old, _ in self.pairs) and not any(
                s in data for s in self.secrets):
            self._link(src, dst, info.st_mode)
            return
        if drop(name, data):
            return
        self._write(dst, rewrite(data, self.pairs), info.st_mode)

    def _link(self, src: str, dst: str, mode: int) -> None:
        if self.can_link:
            try:
                os.link(src, dst)
                return
            except OSError:
                self.can_link = False
        shutil.copyfile(src, dst)
        os.chmod(dst, 0o755 if mode & 0o111 else 0o644)

    @staticmethod
    def _write(dst: str, data: bytes, mode: int) -> None:
        with open(dst, "wb") as f:
            f.write(data)
        os.chmod(dst, 0o755 if mode & 0o111 else 0o644)

    def tree(self, src: str, dst: str, skip_dirs=frozenset(), drop=lambda n, d: False) -> None:
        os.makedirs(dst, mode=0o755, exist_ok=True)
        for dirpath, dirnames, filenames in os.walk(src):
            rel = os.path.relpath(dirpath, src)
            here = os.path.normpath(os.path.join(dst, rel))
            keep = []
            for d in dirnames:
                path = os.path.join(dirpath, d)
                if rel == "." and d in skip_dirs:
                    continue
                if os.path.islink(path):
                    self.file(path, os.path.join(here, d))
                    continue
                os.makedirs(os.path.join(here, d), mode=0o755, exist_ok=True)
                os.chmod(os.path.join(here, d), 0o755)
                keep.append(d)
            dirnames[:] = keep
            for name in filenames:
                self.file(os.path.join(dirpath, name), os.path.join(here, name), drop)


def _venv_drop(name: str, data: bytes | None) -> bool:
    """Whether a file of site-packages is left out.

    Always (``data`` None): an editable install's files and every ``direct_url.json``;
    when it names a lecturer folder (``data`` given): ``.pth`` and ``.egg-link`` files.
    """
    if data is None:
        return name.startswith("__editable__") or name == "direct_url.json"
    return name.endswith((".pth", ".egg-link"))


def site_packages() -> list[str]:
    import site

    return [os.path.realpath(p) for p in site.getsitepackages()
            if p.startswith(sys.prefix + os.sep) and os.path.isdir(p)]


def build(top: Path) -> None:
    """Fill ``top`` with ``python/`` and ``venv/`` (see the module docstring)."""
    pairs, secrets = replacements(), forbidden()
    builder = _Builder(pairs, secrets)
    b = base()
    if staged_python():
        python = top / "python"
        (python / "bin").mkdir(parents=True)
        real = os.path.realpath(sys.executable if not in_venv() else
                                os.path.join(sys.base_prefix, "bin", os.path.basename(
                                    os.path.realpath(sys.executable))))
        if not real.startswith(b + os.sep):
            raise RuntimeError("the interpreter is not inside its installation")
        builder.file(real, str(python / os.path.relpath(real, b)))
        for link in ("python3", "python"):
            if not (python / "bin" / link).exists():
                os.symlink(os.path.basename(real), python / "bin" / link)
        lib = Path(b) / "lib"
        (python / "lib").mkdir(exist_ok=True)
        for entry in sorted(lib.glob("libpython*")):
            builder.file(str(entry), str(python / "lib" / entry.name))
        skip = set(STDLIB_SKIP) | {p.name for p in (lib / VERSION).glob("config-*")}
        if not in_venv():
            skip.discard("site-packages")
        builder.tree(str(lib / VERSION), str(python / "lib" / VERSION), frozenset(skip))
    if in_venv():
        venv = top / "venv"
        (venv / "bin").mkdir(parents=True)
        home = python_in()
        exe = os.path.basename(os.path.realpath(sys.executable))
        os.symlink(f"{home}/bin/{exe}", venv / "bin" / "python3")
        (venv / "pyvenv.cfg").write_text(
            f"home = {home}/bin\ninclude-system-site-packages = false\nversion = "
            f"{sys.version_info.major}.{sys.version_info.minor}.{sys.version_info.micro}\n",
            encoding="utf-8")
        inside = venv / "lib" / VERSION / "site-packages"
        for site_dir in site_packages():
            builder.tree(site_dir, str(inside), drop=_venv_drop)
    if staged_python():
        _same_interpreter(top / "python")
    left = leaks(top, secrets)
    if left:
        raise RuntimeError(f"{len(left)} files of the sandbox's Python still name a folder "
                           "of this machine")
    for path in (top, *top.rglob("*")):
        if path.is_dir() and not path.is_symlink():
            os.chmod(path, 0o755)


def _same_interpreter(python: Path) -> None:
    """Refuse a relocated interpreter that does not report this one's version and platform."""
    import subprocess

    exe = python / "bin" / os.path.basename(os.path.realpath(sys.executable))
    probe = "import sys; print(repr((sys.version, sys.platform, sys.implementation.cache_tag)))"
    env = {"LD_LIBRARY_PATH": str(python / "lib"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([str(exe), "-I", "-c", probe], env=env, capture_output=True,
                          text=True, timeout=120, cwd="/")
    want = repr((sys.version, sys.platform, sys.implementation.cache_tag))
    if done.returncode != 0 or done.stdout.strip() != want:
        raise RuntimeError("the relocated copy of the Python installation does not run as the "
                           "original (install Python under /usr, or with pyenv): "
                           + f"{done.returncode} {done.stdout.strip()!r} {want!r} "
                           + done.stderr.strip()[-300:])


def leaks(top: Path, secrets: list[bytes]) -> list[str]:
    """Files under ``top`` (not followed through links) that contain one of ``secrets``."""
    found = []
    for dirpath, _, filenames in os.walk(top):
        for name in filenames:
            path = os.path.join(dirpath, name)
            if os.path.islink(path):
                target = os.readlink(path).encode()
                if any(s in target for s in secrets):
                    found.append(path)
                continue
            with open(path, "rb") as f:
                data = f.read()
            if any(s in data for s in secrets):
                found.append(path)
    return found


# --------------------------------------------------------------------------- the cache
def parent() -> Path:
    """Where runtimes are kept: ``$KMGRADE_RUNTIME_DIR``, else ``/var/tmp``, else ``/tmp``."""
    for folder in (os.environ.get(PARENT_ENV), "/var/tmp", "/tmp"):
        if folder and os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK):
            return Path(folder)
    raise RuntimeError("no folder to build the sandbox's Python in (set KMGRADE_RUNTIME_DIR)")


def fingerprint() -> str:
    """What the runtime depends on: this environment's files (names and times)."""
    h = hashlib.sha256(f"{FORMAT} {sys.version} {sys.prefix} {base()}".encode())
    roots = [os.path.join(base(), "lib", VERSION), os.path.join(base(), "lib"),
             os.path.realpath(sys.executable), *site_packages()]
    for root in roots:
        try:
            entries = sorted(os.scandir(root), key=lambda e: e.name) if os.path.isdir(root) \
                else []
            h.update(f"{root} {os.stat(root).st_mtime_ns}".encode())
            for e in entries:
                h.update(f"{e.name} {e.stat(follow_symlinks=False).st_mtime_ns}\n".encode())
        except OSError:
            h.update(b"?")
    return h.hexdigest()


def _index() -> Path:
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "kmgrade" / "runtime.json"


def _ours(path: Path, mark: str | None = None) -> bool:
    """Whether ``path`` is a complete runtime this user built (and no one else can change)."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    if (not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid()
            or info.st_mode & 0o022 or not path.name.startswith(PREFIX)):
        return False
    if mark is None:
        return True
    try:
        done = os.lstat(path / "complete")
        return (stat.S_ISREG(done.st_mode) and done.st_uid == os.geteuid()
                and (path / "complete").read_text(encoding="utf-8") == mark)
    except OSError:
        return False


def ensure() -> Path:
    """The runtime of this environment, built now if there is none yet.

    Graders started at the same time wait for each other (a lock next to the index).
    """
    index = _index()
    index.parent.mkdir(parents=True, exist_ok=True)
    with open(index.with_suffix(".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return _ensure(index)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _ensure(index: Path) -> Path:
    mark = fingerprint()
    try:
        known = json.loads(index.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    path = Path(known.get("path", "")) if isinstance(known, dict) else Path()
    if known.get("fingerprint") == mark and _ours(path, mark):
        return path
    top = Path(tempfile.mkdtemp(prefix=PREFIX, dir=parent()))
    try:
        build(top)
        (top / "complete").write_text(mark, encoding="utf-8")
        os.chmod(top / "complete", 0o644)
        os.chmod(top, 0o755)
    except BaseException:
        shutil.rmtree(top, ignore_errors=True)
        raise
    # an older environment's runtime may still serve a grader started before: it is
    # removed a day later, by the first grader that builds or checks the runtime then
    older = [p for p in (known.get("older", []) if isinstance(known, dict) else [])
             if isinstance(p, str)] + ([str(path)] if path != Path() and path != top else [])
    keep = []
    for old in older:
        try:
            stale = time.time() - os.lstat(old).st_mtime > STALE_SECONDS
        except OSError:
            continue
        if stale and _ours(Path(old)):
            shutil.rmtree(old, ignore_errors=True)
        else:
            keep.append(old)
    tmp = index.with_suffix(f".{os.getpid()}")
    tmp.write_text(json.dumps({"fingerprint": mark, "path": str(top), "older": keep}),
                   encoding="utf-8")
    os.replace(tmp, index)
    if older:
        os.utime(top)
    return top


def remove() -> None:
    """Delete this user's runtime and its index entry (``make grade-clean``, tests)."""
    index = _index()
    try:
        known = json.loads(index.read_text(encoding="utf-8"))
        path = Path(known["path"])
    except (OSError, ValueError, KeyError, TypeError):
        return
    for built in [path, *(Path(p) for p in known.get("older", []) if isinstance(p, str))]:
        if _ours(built):
            shutil.rmtree(built, ignore_errors=True)
    index.unlink(missing_ok=True)
