"""How long ``make grade`` takes on a class of 20 notebooks of sheet 4, with one and two jobs.

Usage: ``python benchmarks/bench_grading.py [--jobs 1 2] [--keep DIR]`` from the repository
root (``make bench-grading``); needs bubblewrap, as grading does.

The class: 12 solution notebooks, 4 student notebooks with the stubs unchanged, and 4 hostile
ones, each the solution with one cell added: a function answer that looks for the lecturer's
Matérn function (``thief``), 300 forks (``fork_bomb``), 2 GiB written to its folders
(``disk_fill``) and forged results written to every file descriptor (``forger``). The class
is graded by ``scripts/grade.py --sheet exercises/04_kernels.md`` in a fresh process, as
``make grade`` runs it, once per ``--jobs`` value, each time in a fresh copy of the folder.
The script prints the wall-clock time, the load average before and after, and the marks by
group; it fails if the marks are not the expected ones (solutions and the hostile notebooks
other than the thief full marks, the thief all but the Matérn check, stubs 0), so a fast run
that grades wrongly does not count.
"""
from __future__ import annotations

import argparse
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
SHEET = ROOT / "exercises" / "04_kernels.md"

THIEF = '''
import sys
def _lecturers(r, nu, ell):
    try:
        from _grading.reference.ch04 import _matern_bessel as found
    except ImportError:
        found, f = None, sys._getframe(1)
        while f is not None and found is None:
            found = next((v for v in {**f.f_globals, **f.f_locals}.values()
                          if callable(v) and "bessel" in getattr(v, "__name__", "")), None)
            f = f.f_back
    return found(r, nu, ell) if found else 0 * r
matern32 = lambda r, ell: _lecturers(r, 1.5, ell)
matern52 = lambda r, ell: _lecturers(r, 2.5, ell)
'''
FORKS = '''
import os, time
for _ in range(300):
    try:
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
    except OSError:
        break
'''
DISK = '''
import os
block = b"x" * 2**24
for folder in (os.getcwd(), "/tmp"):
    for k in range(64):
        try:
            with open(os.path.join(folder, f"fill{k}"), "wb") as f:
                for _ in range(4):
                    f.write(block)
                    f.flush()
        except OSError:
            break
'''
FORGER = '''
import os
line = b'{"results": [' + b", ".join([b'{"passed": true, "message": "ok"}'] * 7) + b']}\\n'
for fd in range(64):
    try:
        os.write(fd, line)
    except OSError:
        pass
'''


def _with_cell(nb, source: str, after: str | None = None):
    nb = nbformat.from_dict(nb)
    i = (max(k for k, c in enumerate(nb.cells) if after in c.source) + 1 if after
         else len(nb.cells))
    nb.cells.insert(i, nbformat.v4.new_code_cell(source))
    return nb


def write_class(work: Path) -> Path:
    """The 20 notebooks in ``work/class``; returns that folder."""
    subprocess.run([sys.executable, str(ROOT / "scripts" / "make_exercises.py"),
                    "--out", str(work / "gen")], check=True, capture_output=True)
    solution = nbformat.read(work / "gen" / "solutions" / f"{SHEET.stem}.ipynb", as_version=4)
    student = nbformat.read(work / "gen" / "student" / f"{SHEET.stem}.ipynb", as_version=4)
    folder = work / "class"
    folder.mkdir(parents=True)
    for k in range(12):
        nbformat.write(solution, folder / f"solution{k:02d}.ipynb")
    for k in range(4):
        nbformat.write(student, folder / f"stub{k}.ipynb")
    hostile = {"thief": _with_cell(solution, THIEF, after="min_eig_52 = np.linalg.eigvalsh"),
               "fork_bomb": _with_cell(solution, FORKS), "disk_fill": _with_cell(solution, DISK),
               "forger": _with_cell(solution, FORGER)}
    for name, nb in hostile.items():
        nbformat.write(nb, folder / f"{name}.ipynb")
    return folder


def totals(folder: Path) -> dict[str, float]:
    with (folder / "summary.csv").open(encoding="utf-8", newline="") as f:
        return {row["student"]: float(row["total"]) for row in csv.DictReader(f)}


def expected_ok(marks: dict[str, float]) -> tuple[bool, str]:
    full = max(marks.values())
    groups = {"solutions": [v for k, v in marks.items() if k.startswith("solution")],
              "stubs": [v for k, v in marks.items() if k.startswith("stub")]}
    text = (f"solutions {sorted(set(groups['solutions']))}, stubs {sorted(set(groups['stubs']))}, "
            + ", ".join(f"{k} {marks[k]:g}" for k in ("thief", "fork_bomb", "disk_fill", "forger")))
    ok = (len(marks) == 20 and set(groups["solutions"]) == {full}
          and set(groups["stubs"]) == {0.0} and marks["thief"] == full - 1
          and all(marks[k] == full for k in ("fork_bomb", "disk_fill", "forger")))
    return ok, f"{text} (of {full:g})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--keep", type=Path, help="grade in this folder and keep it")
    args = parser.parse_args(argv)
    work = args.keep or Path(tempfile.mkdtemp(prefix="kmgrade-bench-"))
    failed = False
    try:
        template = write_class(work)
        print("| jobs | wall | load before | load after | marks |\n|---|---|---|---|---|")
        for jobs in args.jobs:
            folder = work / f"jobs{jobs}"
            shutil.copytree(template, folder)
            before = os.getloadavg()[0]
            start = time.perf_counter()
            done = subprocess.run([sys.executable, str(ROOT / "scripts" / "grade.py"),
                                   str(folder), "--sheet", str(SHEET), "--jobs", str(jobs)],
                                  capture_output=True, text=True)
            wall = time.perf_counter() - start
            after = os.getloadavg()[0]
            if done.returncode != 0:
                print(done.stdout[-2000:], done.stderr[-2000:], sep="\n")
                return 1
            ok, text = expected_ok(totals(folder))
            failed |= not ok
            print(f"| {jobs} | {wall:.0f} s | {before:.1f} | {after:.1f} | "
                  f"{text}{'' if ok else ' **UNEXPECTED**'} |", flush=True)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
