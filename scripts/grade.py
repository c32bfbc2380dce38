"""Grade students' exercise notebooks: scores, a CSV for the lecturer, feedback for each student.

``python scripts/grade.py SUBMISSIONS`` (``make grade SUBMISSIONS=dir``) grades every
file in the folder ``SUBMISSIONS`` (one ``.ipynb`` per student; the student's name
is the file stem) against the lecturer's copy of its exercise sheet
(``exercises/*.md``, found by comparing the notebook's cells with each sheet, or
given with ``--sheet``), and writes

* ``SUBMISSIONS/grades.csv`` — one row per student and check: student, sheet,
  exercise, check, points, max_points, passed, message;
* ``SUBMISSIONS/summary.csv`` — one row per student: total, max and the total of
  each exercise;
* ``SUBMISSIONS/feedback/<student>.html`` — each check with its points and its
  message; hidden checks show their name and pass/fail only.

Each check cell of a sheet is worth its metadata ``points`` (1 when absent); cells
tagged ``hidden-check`` are lecturer-only checks, absent from student notebooks.
Every submission runs in its own limited process and temporary folder, and the
checks run afterwards in a fresh process from the lecturer's checkers (see
``_grading/sandbox.py``). A file that is not a notebook, or a notebook of another
sheet, gets one row saying so.
"""
from __future__ import annotations

import argparse
import collections
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _grading import report, sandbox  # noqa: E402
from _grading.sheet import Sheet, load_sheet, match, normalise  # noqa: E402
from make_exercises import CHECK_TAG  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OUTPUTS = {"grades.csv", "summary.csv", "feedback"}
MIN_MATCH = 0.5


def submissions(folder: Path) -> list[Path]:
    """Every file of ``folder`` except hidden files and the grader's own outputs."""
    return sorted(p for p in folder.iterdir()
                  if p.is_file() and not p.name.startswith(".") and p.name not in OUTPUTS)


def read_notebook(path: Path):
    """The notebook at ``path``, or the reason it is not one."""
    try:
        nb = nbformat.reads(path.read_text(encoding="utf-8"), as_version=4)
        cells = nb["cells"]
        if not isinstance(cells, list) or any("cell_type" not in c or "source" not in c
                                               for c in cells):
            return None, "not a Jupyter notebook (no cells)"
        return nb, None
    except Exception as exc:  # noqa: BLE001 - any unreadable file is reported, not raised
        return None, f"not a Jupyter notebook ({type(exc).__name__})"


def _code(nb) -> list[tuple[int, str, list[str]]]:
    out = []
    for i, cell in enumerate(c for c in nb.cells if c.cell_type == "code"):
        source = cell.source if isinstance(cell.source, str) else "".join(cell.source)
        tags = cell.get("metadata", {}).get("tags", [])
        out.append((i + 1, source, tags if isinstance(tags, list) else []))
    return out


def identify(nb, sheets: list[Sheet]) -> Sheet | None:
    """The sheet whose given cells the notebook contains best (at least half of them)."""
    sources = [source for _, source, _ in _code(nb)]
    scored = sorted(((match(s, sources), s.name) for s in sheets), reverse=True)
    if scored and scored[0][0] >= MIN_MATCH:
        return next(s for s in sheets if s.name == scored[0][1])
    return None


def student_steps(nb, sheet: Sheet) -> list:
    """What to run: every code cell except the check cells.

    A check cell becomes the place where the answers its check reads are saved (a hidden
    check goes with the visible check before it in the sheet).
    """
    anchors: dict[str, list[int]] = {}
    last = None
    for i, check in enumerate(sheet.checks):
        if not check.hidden:
            last = normalise(check.source)
        if last is not None:
            anchors.setdefault(last, []).append(i)
    steps: list = []
    for i, source, tags in _code(nb):
        key = normalise(source)
        if key in anchors:
            steps.append(["checks", anchors[key]])
        elif CHECK_TAG not in tags:
            steps.append(["cell", [i, source]])
    return steps


def _rejected(student: str, sheet: Sheet, found: str, message: str) -> report.StudentResult:
    row = report.Row(student, found, "", "submission", 0, sheet.max_points, False, message)
    return report.StudentResult(student, found, [row], notes=[message])


def grade_one(student: str, nb, sheet: Sheet, limits: sandbox.Limits,
              server: sandbox.ChecksServer | None = None) -> report.StudentResult:
    """Run one notebook of ``sheet`` and turn the results of its checks into rows."""
    outcome = sandbox.grade_cells(student_steps(nb, sheet), sheet, limits, server)
    rows = []
    for check, result in zip(sheet.checks, outcome.results, strict=True):
        passed = bool(result.get("passed"))
        rows.append(report.Row(student, sheet.name, check.exercise, check.name,
                               check.points if passed else 0, check.points, passed,
                               str(result.get("message", "")), hidden=check.hidden))
    return report.StudentResult(student, sheet.name, rows, outcome.notes)


def grade(folder: Path, sheet_path: Path | None = None, sheets_dir: Path = ROOT / "exercises",
          limits: sandbox.Limits | None = None, jobs: int = 1) -> list[report.StudentResult]:
    """Grade every submission in ``folder``; write the CSVs and feedback pages; return them."""
    limits = limits or sandbox.Limits()
    known = [load_sheet(p) for p in sorted(sheets_dir.glob("*.md"))]
    if sheet_path is not None:
        target = load_sheet(sheet_path)
        known = [s for s in known if s.name != target.name] + [target]
    files = submissions(folder)
    names = collections.Counter(p.stem for p in files)
    students = {p: (p.stem if names[p.stem] == 1 else p.name) for p in files}
    read = {p: read_notebook(p) for p in files}
    found = {p: identify(nb, known) if nb is not None else None for p, (nb, _) in read.items()}
    if sheet_path is None:
        votes = collections.Counter(s.name for s in found.values() if s is not None)
        if not votes:
            raise SystemExit(f"no submission in {folder} is a notebook of a sheet in {sheets_dir}")
        best = max(votes.values())
        name = min(n for n, v in votes.items() if v == best)
        target = next(s for s in known if s.name == name)

    def one(path: Path) -> report.StudentResult:
        student, (nb, why) = students[path], read[path]
        if nb is None:
            return _rejected(student, target, "", why)
        if found[path] is None or found[path].name != target.name:
            other = found[path].name if found[path] is not None else "no known sheet"
            return _rejected(student, target, found[path].name if found[path] else "",
                             f"a notebook of {other}, not of the sheet graded here ({target.name})")
        return grade_one(student, nb, target, limits, server)

    server = sandbox.ChecksServer(target.imports)
    try:
        with ThreadPoolExecutor(max_workers=max(jobs, 1)) as pool:
            results = sorted(pool.map(one, files), key=lambda r: r.student)
    finally:
        server.close()
    report.write_grades(folder / "grades.csv", results)
    report.write_summary(folder / "summary.csv", results, target.max_points, target.exercises)
    feedback = folder / "feedback"
    feedback.mkdir(exist_ok=True)
    for result in results:
        report.write_feedback(feedback / f"{result.student}.html", result, target.max_points)
    return results


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python scripts/grade.py SUBMISSIONS [--sheet ...] [--timeout ...]``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("submissions", type=Path, help="folder with one notebook per student")
    parser.add_argument("--sheet", type=Path, help="the sheet to grade (default: recognised)")
    parser.add_argument("--sheets-dir", type=Path, default=ROOT / "exercises")
    parser.add_argument("--timeout", type=int, default=120, help="seconds per notebook (120)")
    parser.add_argument("--memory-mb", type=int, default=2048, help="memory per notebook (2048)")
    parser.add_argument("--jobs", type=int, default=1, help="notebooks graded at once (1)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    results = grade(args.submissions, args.sheet, args.sheets_dir,
                    sandbox.Limits(timeout=args.timeout, memory_mb=args.memory_mb), args.jobs)
    seconds = time.perf_counter() - start
    sheets = sorted({r.sheet for r in results if r.sheet})
    print(f"graded {len(results)} submissions ({', '.join(sheets)}) in {seconds:.1f} s: "
          f"{args.submissions / 'grades.csv'}, summary.csv and feedback/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
