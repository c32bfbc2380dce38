"""Subordinate user ids: a host user id of its own for every sandbox, also for an ordinary user.

Run by root, the grader gives each sandbox a fresh, otherwise unused host user id
(``setpriv``). An ordinary user cannot become another user, except one of the *subordinate
ids* the system granted it in ``/etc/subuid`` and ``/etc/subgid`` (``useradd`` gives every
new user a range of 65,536 on Debian and Ubuntu; rootless Podman and Docker use them), and
only through the setuid helpers ``newuidmap`` and ``newgidmap`` (Debian/Ubuntu package
``uidmap``). Where both are there, ``grade.py`` runs itself in a user namespace whose user
and group id 0 are the lecturer's and whose ids 1…N are the first subordinate range (as
``unshare --map-auto --map-root-user`` of util-linux does). Inside it the grader holds the
capabilities root has there, and runs the sandboxes as root does (:mod:`sandbox`): each
under a fresh id of that range. So on the host every sandbox's processes belong to a user
id that is neither the lecturer's nor the checks' nor another sandbox's.

Elsewhere, or when ``KMGRADE_SUBORDINATE_IDS=0`` is set, the grader stays the lecturer and
every sandbox runs in a user namespace of its own under the lecturer's id (bubblewrap's
``--unshare-user``). :func:`problem` says why the subordinate ids cannot be used.
"""
from __future__ import annotations

import os
import pwd
import shutil
import signal
import subprocess
import sys

SWITCH = "KMGRADE_SUBORDINATE_IDS"   # 0 (or no, off, false): do not use them
INSIDE = "KMGRADE_IN_SUBORDINATE_NAMESPACE"
SUBUID, SUBGID = "/etc/subuid", "/etc/subgid"
MIN_IDS = 1024                      # a smaller range is not used
IDENTITY = (0, 0, 2**32 - 1)        # the initial user namespace's map

# Started as a fresh (single-threaded) Python: it enters a new user namespace, tells the
# grader its process id through one pipe, waits for the grader to write its id maps, then
# runs the grader's command in its place. The grader's parent-death signal reaches it.
LAUNCHER = r"""
import ctypes, os, sys
ready, go = int(sys.argv[1]), int(sys.argv[2])
libc = ctypes.CDLL(None, use_errno=True)
if libc.unshare(0x10000000) != 0:
    os.write(ready, b"E" + os.strerror(ctypes.get_errno()).encode())
    os._exit(111)
os.write(ready, b"R")
answer = os.read(go, 1)
os.close(ready)
os.close(go)
if answer != b"G":
    os._exit(111)
libc.prctl(1, 15)  # PR_SET_PDEATHSIG, SIGTERM: the grader ends when its starter does
os.execv(sys.argv[3], sys.argv[3:])
"""


class Unavailable(RuntimeError):
    """The user namespace with subordinate ids could not be made (the reason)."""


def _ranges(path: str, user: pwd.struct_passwd) -> list[tuple[int, int]]:
    """The subordinate ranges (start, count) of ``user`` in ``path``, in file order."""
    found = []
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                parts = line.strip().split(":")
                if len(parts) != 3 or parts[0] not in (user.pw_name, str(user.pw_uid)):
                    continue
                try:
                    start, count = int(parts[1]), int(parts[2])
                except ValueError:
                    continue
                if start > 0 and count > 0:
                    found.append((start, count))
    except OSError:
        return []
    return found


def _first(path: str, user: pwd.struct_passwd) -> tuple[int, int] | None:
    return next(((s, c) for s, c in _ranges(path, user) if c >= MIN_IDS), None)


def switched_off() -> bool:
    return os.environ.get(SWITCH, "").strip().lower() in ("0", "no", "off", "false")


def problem() -> str | None:
    """Why this process cannot grade with subordinate ids (None when it can try)."""
    if os.geteuid() == 0:
        return "run by root, which needs no subordinate ids"
    if switched_off():
        return f"switched off ({SWITCH}={os.environ[SWITCH]})"
    for tool in ("newuidmap", "newgidmap"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (Debian/Ubuntu: apt-get install uidmap)"
    if shutil.which("setpriv") is None:
        return "setpriv (util-linux) is not installed"
    try:
        with open("/proc/self/status", encoding="utf-8") as f:
            if any(line.split() == ["NoNewPrivs:", "1"] for line in f):
                return ("this process may not gain privileges (no_new_privs), so the setuid "
                        "newuidmap cannot work")
    except OSError:
        pass
    try:
        user = pwd.getpwuid(os.getuid())
    except KeyError:
        return f"user id {os.getuid()} has no name (no entry in the password database)"
    for path in (SUBUID, SUBGID):
        if _first(path, user) is None:
            return (f"{path} grants {user.pw_name} no range of at least {MIN_IDS} ids "
                    f"(root can add one: usermod --add-subuids 200000-265535 "
                    f"--add-subgids 200000-265535 {user.pw_name})")
    return None


def _map(tool: str, pid: int, own: int, first: tuple[int, int]) -> None:
    """Write the id map of process ``pid``: 0 -> ``own``, 1..count -> the subordinate range."""
    start, count = first
    done = subprocess.run([shutil.which(tool), str(pid), "0", str(own), "1", "1", str(start),
                           str(count)], capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        raise Unavailable(f"{tool} failed: {(done.stderr or done.stdout).strip()[:300]}")


def run_inside(cmd: list[str]) -> int:
    """Run ``cmd`` in a user namespace with the subordinate ids; return its exit status.

    Raises :class:`Unavailable` (nothing has run yet) when the namespace or its maps cannot
    be made.
    """
    why = problem()
    if why is not None:
        raise Unavailable(why)
    user = pwd.getpwuid(os.getuid())
    uids, gids = _first(SUBUID, user), _first(SUBGID, user)
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    env = dict(os.environ, **{INSIDE: f"{uids[0]}:{uids[1]}"})
    try:
        proc = subprocess.Popen([sys.executable, "-I", "-S", "-c", LAUNCHER, str(ready_w),
                                 str(go_r), *cmd], pass_fds=(ready_w, go_r), env=env)
    finally:
        os.close(ready_w)
        os.close(go_r)
    try:
        with os.fdopen(ready_r, "rb") as f:
            said = f.read(1)
            if said != b"R":
                detail = f.read(300).decode(errors="replace") if said == b"E" else ""
                raise Unavailable("a user namespace cannot be created here"
                                  + (f" ({detail})" if detail else ""))
            _map("newuidmap", proc.pid, os.getuid(), uids)
            _map("newgidmap", proc.pid, os.getgid(), gids)
        os.write(go_w, b"G")
    except BaseException:
        os.close(go_w)
        proc.wait()
        raise
    os.close(go_w)
    # Ctrl-C reaches the grader inside directly (same process group); a TERM or HUP sent
    # to this process is passed on
    previous = {sig: signal.signal(sig, lambda s, _f: proc.send_signal(s))
                for sig in (signal.SIGTERM, signal.SIGHUP)}
    previous[signal.SIGINT] = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        status = proc.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 128 - status if status < 0 else status


def inside() -> bool:
    """Whether this process is the grader inside the namespace :func:`run_inside` made."""
    return INSIDE in os.environ and os.geteuid() == 0 and uid_map() != [IDENTITY]


def uid_map() -> list[tuple[int, int, int]]:
    """The user id map of this process: (first id inside, first id outside, count) per line."""
    try:
        with open("/proc/self/uid_map", encoding="ascii") as f:
            return [tuple(int(x) for x in line.split()) for line in f if line.strip()]
    except (OSError, ValueError):
        return [IDENTITY]
