"""Grade students' exercise notebooks: scores, a CSV for the lecturer, feedback for each student.

``python scripts/grade.py SUBMISSIONS`` (``make grade SUBMISSIONS=dir``) grades every
file in the folder ``SUBMISSIONS`` (one ``.ipynb`` per student; the student's name
is the file stem) against the lecturer's copy of its exercise sheet
(``exercises/*.md``: the one given with ``--sheet``; without it, the sheet every
notebook belongs to, by its metadata ``kmbook.sheet``, which ``make exercises`` and the
site's downloads stamp, or else by the cells it contains; when the notebooks belong to
different sheets the grader refuses and asks for ``--sheet``), and writes

* ``SUBMISSIONS/grades.csv`` — one row per student and check: student, sheet,
  exercise, check, points, max_points, passed, message;
* ``SUBMISSIONS/summary.csv`` — one row per student: total, max and the total of
  each exercise;
* ``SUBMISSIONS/feedback/<student>.html`` — each check with its points and its
  message; hidden checks show their name and pass/fail only;
* ``SUBMISSIONS/report.html`` — the class report: per exercise and check the class
  mean, the share who passed and the most common failure message, and a histogram
  of the totals.

Answers, not cells, are graded: each check reads the names it needs (``fitted``,
``alpha``, ...) from the student's namespace where the notebook's copy of the check
cell stands, or, when the student edited or deleted that cell, just before the next
exercise starts (or at the end). A check cell the student changed is never run.

Each check cell of a sheet is worth its metadata ``points`` (1 when absent); cells
tagged ``hidden-check`` are lecturer-only checks, absent from student notebooks, shown to
students as "hidden check 1", "hidden check 2", ... with pass/fail only.
Every submission runs in a bubblewrap sandbox that sees only the Python packages and a
private size-limited folder, with no network and with limits; the checks run afterwards in
a second sandbox, and a function answer runs, on the inputs the checks send, in a third
(see ``_grading/sandbox.py``); only data crosses between them. There the sheet's check cells
call the lecturer's full checks: ``chNN.check_x`` of ``kmlib.book.exercises`` (the students'
self-checks, which test properties of an answer and never compute it) is replaced by
``check_x`` of ``_grading.reference.chNN`` (``scripts/_grading/reference/``, never
shipped), which recomputes the answer; the grader refuses a sheet whose check cells call a
check without a reference. Without bubblewrap the grader refuses to run.

Whose user id a sandbox runs under: as root, a fresh unused one for each; as an ordinary user
with subordinate ids (``/etc/subuid``, ``/etc/subgid`` and the package ``uidmap``), the grader
runs itself in a user namespace over them and gives each sandbox a host user id of its own
from that range (``_grading/userns.py``; ``--no-subordinate-ids`` or
``KMGRADE_SUBORDINATE_IDS=0`` turns this off); otherwise every sandbox runs under the
lecturer's id, each in a user namespace of its own. The grader's first line of output says
which applies and why.

Only regular files are graded (a symbolic link, a folder or a device gets one row saying it
was skipped). A file that is not a notebook, or a notebook of another sheet, gets one row
saying so. Student names (file stems) are text everywhere: HTML-escaped in the pages, and in
the CSVs a cell starting with ``= + - @``, a tab or a carriage return is prefixed with ``'``
(spreadsheets would otherwise run it as a formula).
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import stat
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import make_exercises
import nbformat
from _grading import codec, report, sandbox, userns
from _grading.sheet import (
    Sheet,
    load_sheet,
    match,
    normalise,
    reference_problems,
)
from make_exercises import CHECK_TAG  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OUTPUTS = {"grades.csv", "summary.csv", "feedback", "report.html"}
METADATA_KEY = "kmbook"
MIN_MATCH = 0.5
MAX_NOTEBOOK_BYTES = 64 * 2**20
MAX_CELLS = 2000  # a sheet has about 100; more is refused before the notebook is validated


def submissions(folder: Path) -> list[Path]:
    """Every entry of ``folder`` except hidden ones and the grader's own outputs."""
    return sorted(p for p in folder.iterdir()
                  if not p.name.startswith(".") and p.name not in OUTPUTS)


def not_regular(path: Path) -> str | None:
    """Why ``path`` is not graded (a link, a folder, ...), or None for a regular file."""
    try:
        mode = os.lstat(path).st_mode
    except OSError as exc:
        return f"skipped: the file cannot be read ({type(exc).__name__})"
    if stat.S_ISREG(mode):
        return None
    kind = ("a symbolic link" if stat.S_ISLNK(mode) else "a folder" if stat.S_ISDIR(mode)
            else "not a regular file")
    return f"skipped: {kind} (only regular files are graded)"


def read_regular(path: Path) -> str:
    """The text of the regular file ``path``, never followed through a link."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise OSError("not a regular file")
        data = f.read(MAX_NOTEBOOK_BYTES + 1)
    if len(data) > MAX_NOTEBOOK_BYTES:
        raise ValueError(f"larger than {MAX_NOTEBOOK_BYTES // 2**20} MB")
    return data.decode("utf-8")


def read_notebook(path: Path):
    """The notebook at ``path``, or the reason it is not one."""
    why = not_regular(path)
    if why is not None:
        return None, why
    try:
        text = read_regular(path)
        # a cell's key "cell_type" (inside a JSON string a quote is escaped): counted before
        # anything parses the text, so a notebook of a million cells costs milliseconds
        count = text.count('"cell_type"')
        if count > MAX_CELLS:
            return None, f"not graded: {count} cells, more than the limit of {MAX_CELLS}"
        codec.json_depth(text)
        raw = json.loads(text)
        count = len(raw["cells"]) if isinstance(raw, dict) and isinstance(
            raw.get("cells"), list) else 0
        if count > MAX_CELLS:
            return None, f"not graded: {count} cells, more than the limit of {MAX_CELLS}"
        nb = nbformat.from_dict(raw)
        if nb.get("nbformat") != 4:
            nb = nbformat.reads(text, as_version=4)
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


def stamped_sheet(nb) -> str | None:
    """The sheet named in the notebook's metadata (``make exercises`` stamps it)."""
    meta = nb.get("metadata", {}).get(METADATA_KEY)
    sheet = meta.get("sheet") if isinstance(meta, dict) else None
    return sheet if isinstance(sheet, str) else None


def identify(nb, sheets: list[Sheet], given: Sheet | None = None) -> Sheet | None:
    """The notebook's sheet: from its metadata, else from its cells, else ``given``.

    With ``given`` (``--sheet``): that sheet, unless the notebook holds at least half of
    another sheet's given cells and more of them than of ``given``'s. Without: the sheet
    whose given cells the notebook contains best (at least half of them, or the only best
    match with any).
    """
    stamped = stamped_sheet(nb)
    for sheet in sheets:
        if sheet.name == stamped:
            return sheet
    sources = [source for _, source, _ in _code(nb)]
    scored = sorted(((match(s, sources), s.name) for s in sheets), reverse=True)
    best = next((s for s in sheets if scored and s.name == scored[0][1]), None)
    if given is not None:
        # another sheet only if the notebook holds more of its given cells than of ``given``'s
        found = {normalise(s) for s in sources}
        shared = {s.name: len(s.fingerprints & found) for s in sheets}
        if (best is not None and best.name != given.name and scored[0][0] >= MIN_MATCH
                and shared[best.name] > shared[given.name]):
            return best
        return given
    if scored and scored[0][0] >= MIN_MATCH:
        return best
    if scored and scored[0][0] > 0 and (len(scored) == 1 or scored[1][0] < scored[0][0]):
        return best
    return None


def _exercise_started(cell, sheet: Sheet, numbers: dict) -> str | None:
    """The label of the exercise a cell opens: its statement, or the stub of its answer."""
    source = cell.source if isinstance(cell.source, str) else "".join(cell.source)
    if cell.cell_type == "markdown":
        for label, title in sheet.titles.items():
            # MyST (":label:") or the plain notebook's heading "**Exercise 19** (Title)."
            if f":label: {label}" in source or (title and f"** ({title})" in source):
                return label
    elif cell.cell_type == "code":
        for label in sheet.titles:
            # the stub's first line: "# Exercise 3.1:" (older handouts: the label)
            if any(line.startswith((f"# Exercise {numbers[label]}:", f"# Exercise {label}:"))
                   for line in source.splitlines()):
                return label
    return None


def student_steps(nb, sheet: Sheet) -> list:
    """What to run: every code cell except check cells, and where to save the answers.

    A check cell of the sheet found unchanged in the notebook becomes the place where the
    answers its check reads are saved (a hidden check goes with the visible check before it
    in the sheet). The answers of a check whose cell the student edited or deleted are saved
    when the notebook reaches the next exercise (its statement or its answer cell), or at
    the end. Cells tagged ``check`` that differ from the sheet's are not run.
    """
    anchors: dict[str, list[int]] = {}
    last = None
    for i, check in enumerate(sheet.checks):
        if not check.hidden:
            last = normalise(check.source)
        if last is not None:
            anchors.setdefault(last, []).append(i)
    present = {normalise(source) for _, source, _ in _code(nb)}
    anchored = {i for key, ids in anchors.items() if key in present for i in ids}
    order = {label: k for k, label in enumerate(sheet.titles)}
    position = {i: order.get(c.exercise, -1) for i, c in enumerate(sheet.checks)}
    waiting = [i for i in range(len(sheet.checks)) if i not in anchored]
    steps: list = []
    index = 0
    numbers = make_exercises.exercise_numbers(list(sheet.titles), sheet.name)
    for cell in nb.cells:
        label = _exercise_started(cell, sheet, numbers)
        if label is not None:
            due = [i for i in waiting if position[i] < order[label]]
            if due:
                steps.append(["checks", due])
                waiting = [i for i in waiting if i not in due]
        if cell.cell_type != "code":
            continue
        index += 1
        source = cell.source if isinstance(cell.source, str) else "".join(cell.source)
        tags = cell.get("metadata", {}).get("tags", [])
        key = normalise(source)
        if key in anchors:
            steps.append(["checks", anchors[key]])
        elif not (isinstance(tags, list) and CHECK_TAG in tags):
            steps.append(["cell", [index, source]])
    return steps


def _rejected(student: str, sheet: Sheet, found: str, message: str) -> report.StudentResult:
    row = report.Row(student, found, "", "submission", 0, sheet.max_points, False, message)
    return report.StudentResult(student, found, [row], notes=[message])


def grade_one(student: str, nb, sheet: Sheet, limits: sandbox.Limits, box: sandbox.Sandbox,
              hide: tuple[str, ...] = ()) -> report.StudentResult:
    """Run one notebook of ``sheet`` and turn the results of its checks into rows."""
    outcome = box.grade_cells(student_steps(nb, sheet), sheet, limits)
    rows = []
    for check, result in zip(sheet.checks, outcome.results, strict=True):
        passed = bool(result.get("passed"))
        rows.append(report.Row(student, sheet.name, check.exercise, check.name,
                               check.points if passed else 0, check.points, passed,
                               sandbox.scrub(str(result.get("message", "")), hide),
                               hidden=check.hidden))
    notes = [sandbox.scrub(n, hide) for n in outcome.notes]
    return report.StudentResult(student, sheet.name, rows, notes)


def grade(folder: Path, sheet_path: Path | None = None, sheets_dir: Path = ROOT / "exercises",
          limits: sandbox.Limits | None = None, jobs: int = 1) -> list[report.StudentResult]:
    """Grade every submission in ``folder``; write the CSVs, feedback pages and class report.

    Student code runs in the bubblewrap sandbox; without bubblewrap this raises
    ``SystemExit``.
    """
    limits = limits or sandbox.Limits()
    problem = sandbox.bwrap_problem()
    if problem is not None:
        raise SystemExit(f"{sandbox.BWRAP_MISSING}.\n  {problem}\nRefusing to grade: install "
                         "bubblewrap (Debian/Ubuntu: apt-get install bubblewrap).")
    known = [load_sheet(p) for p in sorted(sheets_dir.glob("*.md"))]
    given = None
    if sheet_path is not None:
        given = load_sheet(sheet_path)
        known = [s for s in known if s.name != given.name] + [given]
    files = submissions(folder)
    names = collections.Counter(p.stem for p in files)
    students = {p: (p.stem if names[p.stem] == 1 else p.name) for p in files}
    while True:  # a stem may equal another file's name ("bob.ipynb.ipynb", "bob.ipynb")
        taken = collections.Counter(students.values())
        clash = [p for p in files if taken[students[p]] > 1 and students[p] != p.name]
        if not clash:
            break
        students.update({p: p.name for p in clash})
    read = {p: read_notebook(p) for p in files}
    found = {p: identify(nb, known, given) if nb is not None else None
             for p, (nb, _) in read.items()}
    target = given
    if target is None:
        # never a vote: one forged notebook must not choose the sheet a class is graded on
        votes = collections.Counter(s.name for s in found.values() if s is not None)
        if not votes:
            raise SystemExit(f"no submission in {folder} is a notebook of a sheet in {sheets_dir}")
        if len(votes) > 1:
            counts = ", ".join(f"{n} ({v})" for n, v in sorted(votes.items()))
            raise SystemExit(f"the submissions in {folder} are notebooks of different sheets: "
                             f"{counts}; say which to grade with --sheet (make grade SHEET=...)")
        target = next(s for s in known if s.name == next(iter(votes)))
    problems = reference_problems(target)
    if problems:
        raise SystemExit(f"refusing to grade {target.name}: the lecturer's full checks are "
                         "incomplete (students' self-checks never grade):\n  "
                         + "\n  ".join(problems))
    hide = (str(folder.resolve()), str(folder), str(sheets_dir.resolve()))

    def one(path: Path) -> report.StudentResult:
        student, (nb, why) = students[path], read[path]
        if nb is None:
            return _rejected(student, target, "", why)
        if found[path] is None or found[path].name != target.name:
            other = found[path].name if found[path] is not None else "no known sheet"
            return _rejected(student, target, found[path].name if found[path] else "",
                             f"a notebook of {other}, not of the sheet graded here ({target.name})")
        return grade_one(student, nb, target, limits, box, hide)

    with sandbox.Sandbox(target.imports) as box:
        with ThreadPoolExecutor(max_workers=max(jobs, 1)) as pool:
            results = sorted(pool.map(one, files), key=lambda r: r.student)
    report.write_grades(folder / "grades.csv", results)
    report.write_summary(folder / "summary.csv", results, target.max_points, target.exercises)
    feedback = folder / "feedback"
    feedback.mkdir(exist_ok=True)
    for result in results:
        report.write_feedback(feedback / f"{result.student}.html", result, target.max_points)
    report.write_class_report(folder / "report.html", results, target)
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
    parser.add_argument("--no-subordinate-ids", action="store_true",
                        help="as an ordinary user, run every sandbox under your own user id "
                             f"even where subordinate ids could give each its own (or set "
                             f"{userns.SWITCH}=0)")
    parser.add_argument("--weak-sandbox", action="store_true",
                        help="no longer offered: grading needs bubblewrap")
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)
    if args.no_subordinate_ids:
        os.environ[userns.SWITCH] = "0"
    why = userns.problem()
    if why is None and userns.INSIDE not in os.environ:
        # an ordinary user with subordinate ids: the grader runs again, as root of a user
        # namespace over them, and each sandbox gets a host user id of its own
        try:
            return userns.run_inside([sys.executable, str(Path(__file__).resolve()), *argv])
        except userns.Unavailable as exc:
            why = str(exc)
    print(f"sandbox: {sandbox.mode(why)}", flush=True)
    start = time.perf_counter()
    if args.weak_sandbox:
        print("--weak-sandbox is no longer offered: student code runs only in the bubblewrap "
              "sandbox", file=sys.stderr)
    results = grade(args.submissions, args.sheet, args.sheets_dir,
                    sandbox.Limits(timeout=args.timeout, memory_mb=args.memory_mb), args.jobs)
    seconds = time.perf_counter() - start
    sheet = next((r.sheet for r in results if r.rows and r.rows[0].check != "submission"), "")
    print(f"graded {len(results)} submissions of {sheet or 'the sheet'} in {seconds:.1f} s: "
          f"{args.submissions / 'grades.csv'}, summary.csv, report.html and feedback/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
