"""A fabricated class for ``exercises/06_representer.md``, graded in the bubblewrap sandbox.

The expected totals are the points written in the sheet's check-cell metadata, added up
by hand: krr 2 + 1 (hidden), intercept 2, minnorm 1, map 1, poisson 2, spline 2 = 11.
The checks that grade are the lecturer's full checks (``scripts/_grading/reference/ch06.py``),
never the self-checks of ``kmlib.book.exercises.ch06`` that students have: olivia's
``lam_map`` is right to six digits, so her self-check passed, and the grader takes the map
exercise's point. The cheaters never solve anything: each answer cell looks for the
lecturer's files (the sheet's Markdown, the repository's ``.git``, the checkers' source)
and runs what it finds, or runs the shipped self-check's code under a tracer to catch any
answer it computes. In the sandbox they find nothing and score 0. mallory tries to delete
copies of lecturer files made in a temporary folder (never the working tree).
"""
from __future__ import annotations

import csv
import hashlib
import os
import sys
from pathlib import Path

import grade
import make_exercises
import nbformat
import pytest
from _grading import sandbox
from _notebooks import ROOT

SHEET = ROOT / "exercises" / "06_representer.md"
FULL = 11
KRR = 2 + 1
LIMITS = sandbox.Limits(timeout=60, memory_mb=2048, grace=5)

pytestmark = pytest.mark.skipif(sandbox.bwrap_problem() is not None,
                                reason=f"no bubblewrap sandbox here: {sandbox.bwrap_problem()}")

FIND = f'''
import os, re, subprocess
LECTURER = {str(ROOT)!r}
SKIP = {{"proc", "sys", "dev", "usr", "lib", "bin", "sbin", "etc", "var", "boot", "run"}}
def _find(name, depth=6):
    hits = []
    for top in [LECTURER, os.path.expanduser("~"), "/"]:
        for here, dirs, files in os.walk(top):
            rel = os.path.relpath(here, top)
            dirs[:] = [d for d in dirs if not (here == "/" and d in SKIP)
                       and rel.count(os.sep) < depth and d not in ("node_modules", ".venv")]
            hits += [os.path.join(here, f) for f in files + dirs if f == name]
    return hits
def _solutions(text):
    part = text.split("{{solution-start}} " + LABEL)[-1].split("{{solution-end}}")[0]
    cell = r"```\\{{code-cell\\}} ipython3\\n:tags: \\[solution\\]\\n\\n(.*?)```"
    return re.findall(cell, part, re.S)
'''

CHEATS = {
    # the lecturer's copy of the sheet, anywhere on disk
    "markdown": FIND + '''
for path in _find("06_representer.md"):
    for code in _solutions(open(path).read()):
        exec(code, globals())
''',
    # the sheet as committed, from any git repository found
    "git": FIND + '''
for git_dir in _find(".git"):
    out = subprocess.run(["git", "-c", "safe.directory=*", "--git-dir", git_dir, "show",
                          "HEAD:exercises/06_representer.md"], capture_output=True, text=True)
    for code in _solutions(out.stdout):
        exec(code, globals())
''',
    # the checker's reference computation: run check_krr_fitted with _close recording its
    # reference; the checkers' source is taken from the imported module and from disk (the
    # lecturer's scripts/_grading/reference/ch06.py, in the weaker mode)
    "checker": FIND + '''
import inspect
sources = [inspect.getsource(ch06)] + [open(p).read() for p in _find("ch06.py")]
for source in sources:
    namespace = {"__name__": "kmlib.book.exercises.ch06", "__package__": "kmlib.book.exercises"}
    try:
        exec(source, namespace)
    except Exception:
        continue
    seen = []
    namespace["_close"] = lambda a, b, rtol=1e-7: seen.append(b) or True
    try:
        namespace["check_krr_fitted"](np.zeros(25))
    except Exception:
        pass
    if seen:
        fitted = seen[0]
''',
    # the self-check that ships (as a student has it, from the wheel), run under a tracer
    # that collects every vector of 25 numbers in its frames, then tried as the answer
    "selfcheck": '''
import sys, numpy as np
SOURCE = __SHIPPED__
namespace = {"__name__": "kmlib.book.exercises.ch06", "__package__": "kmlib.book.exercises"}
exec(compile(SOURCE, "<shipped ch06>", "exec"), namespace)
seen = []
def _local(frame, event, arg):
    for value in list(frame.f_locals.values()):
        if isinstance(value, np.ndarray) and value.shape == (25,):
            seen.append(np.array(value, dtype=float))
    return _local
sys.settrace(lambda frame, event, arg: _local if frame.f_code.co_filename == "<shipped ch06>"
             else None)
for probe in (np.zeros(25), np.ones(25), np.arange(25.0)):
    try:
        namespace["check_krr_fitted"](probe)
    except Exception:
        pass
sys.settrace(None)
for candidate in seen:
    try:
        namespace["check_krr_fitted"](candidate)
    except Exception:
        continue
    fitted = candidate
    break
''',
}


def _read_csv(path: Path) -> list[dict]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _totals(folder: Path) -> dict[str, float]:
    return {r["student"]: float(r["total"]) for r in _read_csv(folder / "summary.csv")}


def _insert_after(nb, marker: str, source: str):
    nb = nbformat.from_dict(nb)
    i = next(k for k, c in enumerate(nb.cells) if marker in c.source)
    nb.cells.insert(i + 1, nbformat.v4.new_code_cell(source))
    return nb


def _map_code(nb, change):
    nb = nbformat.from_dict(nb)
    cells = []
    for cell in nb.cells:
        new = change(cell)
        if new is not None:
            cells.append(new)
    nb.cells = cells
    return nb


def _is_check(cell) -> bool:
    return cell.cell_type == "code" and "check" in cell.metadata.get("tags", [])


def _cheater(student, code: str):
    code = code.replace("__SHIPPED__", repr((ROOT / "kmlib" / "book" / "exercises" / "ch06.py")
                                            .read_text(encoding="utf-8")))

    def change(cell):
        if "student-answer" in cell.metadata.get("tags", []):
            label = cell.source.split("# Exercise ")[1].split(":")[0]
            cell.source = f"LABEL = {label!r}\n" + code
        return cell

    return _map_code(student, change)


def _digest(paths) -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    out = tmp_path_factory.mktemp("gen")
    generated = make_exercises.generate(out, [SHEET, ROOT / "exercises" / "04_kernels.md"])
    return [tuple(nbformat.read(p, as_version=4) for p in pair) for pair in generated]


def _class(made, sentinels: list[Path]) -> dict:
    """The class; mallory tries to delete ``sentinels`` (copies of lecturer files in a
    temporary folder, never the working tree) and to patch the checks."""
    (solution, student), (_, other_student) = made
    lecturer_files = sentinels
    mallory = ("import os, numpy as np\nfrom kmlib.book.exercises import ch06\n"
               + "".join(f"try:\n    os.remove({str(p)!r})\nexcept OSError:\n    pass\n"
                         for p in lecturer_files)
               + "for name in dir(ch06):\n"
                 "    if name.startswith('check_'):\n"
                 "        setattr(ch06, name, lambda *a, **k: print('Correct'))\n"
                 "np.allclose = lambda *a, **k: True\n")
    leaker = ("import os, sys, glob, kmlib\n"
              "finders = glob.glob(sys.prefix + '/lib/*/site-packages/__editable__*finder.py')\n"
              "text = ' '.join(open(f).read()[-400:] for f in finders)\n"
              "raise RuntimeError(f'{os.getcwd()} {sys.prefix} {sys.base_prefix} '\n"
              "                   f'{kmlib.__file__} {sys.path} {text}')\n")
    return {
        "alice": solution,
        "bob": student,
        "carol": _map_code(solution, lambda c: (c.update(source=c.source.replace(
            "fitted = K @ alpha", "fitted = K @ alpha + 1.0")) or c)),
        "dave": _insert_after(solution, "ch06.check_krr_fitted", "import os\nos._exit(3)"),
        "eve": _insert_after(solution, "ch06.check_krr_fitted", "while True:\n    pass"),
        "mallory": _insert_after(solution, "from kmlib.book.exercises import ch06", mallory),
        "ivan": _map_code(solution, lambda c: None if _is_check(c) else c),
        "ken": _map_code(solution, lambda c: (c.update(
            source="print('Correct: trust me')") or c) if _is_check(c) else c),
        "leaker": _insert_after(solution, "from kmlib.book.exercises import ch06", leaker),
        "heidi": other_student,
        "olivia": _map_code(solution, lambda c: (c.update(source=c.source.replace(
            "lam_map = 0.36 / 1.5", "lam_map = 0.36 / 1.5 * (1 + 3e-7)")) or c)),
        **{f"judy_{name}": _cheater(student, code) for name, code in CHEATS.items()},
    }


MAP = 1
EXPECTED = {"alice": FULL, "bob": 0, "carol": FULL - 2, "dave": KRR, "eve": KRR,
            "mallory": FULL, "ivan": FULL, "ken": FULL, "leaker": FULL, "heidi": 0,
            "olivia": FULL - MAP, "judy_markdown": 0, "judy_git": 0, "judy_checker": 0,
            "judy_selfcheck": 0, "frank": 0, "grace": 0}


def _write_class(folder: Path, submissions: dict) -> None:
    folder.mkdir(parents=True)
    for name, nb in submissions.items():
        nbformat.write(nb, folder / f"{name}.ipynb")
    (folder / "frank.ipynb").write_text("import numpy as np\nprint('a script, not a notebook')\n")
    (folder / "grace.txt").write_text("my answers: 42\n")


@pytest.fixture(scope="module")
def graded(made, tmp_path_factory):
    """The class graded twice in the sandbox, two notebooks at once."""
    copies = tmp_path_factory.mktemp("lecturer")
    lecturer = []
    for path in (SHEET, ROOT / "kmlib" / "book" / "exercises" / "ch06.py"):
        (copies / path.name).write_bytes(path.read_bytes())
        os.chmod(copies / path.name, 0o666)  # even writable by all, out of the sandbox's view
        lecturer.append(copies / path.name)
    os.chmod(copies, 0o777)
    before = _digest(lecturer)
    submissions = _class(made, lecturer)
    folders = []
    for run in (1, 2):
        folder = tmp_path_factory.mktemp(f"class06-{run}") / "submissions"
        _write_class(folder, submissions)
        grade.grade(folder, sheet_path=SHEET, limits=LIMITS, jobs=2)
        folders.append(folder)
    return folders, before, _digest(lecturer)


def test_the_class_gets_the_points_the_sheet_says(graded):
    folders, _, _ = graded
    assert _totals(folders[0]) == EXPECTED


def test_grading_twice_gives_identical_csvs(graded):
    first, second = graded[0]
    for name in ("grades.csv", "summary.csv"):
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


def test_the_lecturers_files_are_untouched(graded):
    _, before, after = graded
    assert before == after


def test_one_wrong_answer_costs_that_check_only(graded):
    rows = [r for r in _read_csv(graded[0][0] / "grades.csv") if r["student"] == "carol"]
    assert [(r["check"], r["points"]) for r in rows if r["passed"] == "no"] == [
        ("check_krr_fitted", "0")]


def test_the_scores_come_from_the_full_checks(graded, capsys):
    """Every passed check says ``Correct:``, the full checks' line, never the self-checks'.
    olivia's answers pass her self-check (run here as she ran it), not the full check."""
    import numpy as np

    from kmlib.book.exercises import ch06

    rows = _read_csv(graded[0][0] / "grades.csv")
    passed = [r for r in rows if r["passed"] == "yes"]
    assert passed and all(r["message"].startswith("Correct:") for r in passed)
    assert not any("Self-check" in r["message"] for r in rows)
    Phi, y = ch06.map_data()
    lam = 0.36 / 1.5 * (1 + 3e-7)
    ch06.check_map(lam, Phi.T @ np.linalg.solve(Phi @ Phi.T + lam * np.eye(len(y)), y))
    assert capsys.readouterr().out.startswith("Self-check passed")
    failed = [(r["check"], r["points"]) for r in rows
              if r["student"] == "olivia" and r["passed"] == "no"]
    assert failed == [("check_map", "0")]


def test_edited_or_deleted_check_cells_cost_nothing(graded):
    """ivan deleted every check cell, ken replaced them: both are graded from their answers.

    ``alpha`` is the answer of two exercises (krr, then intercept): ivan's hidden krr check
    passes only if his krr ``alpha`` is saved before the intercept exercise redefines it.
    """
    rows = [r for r in _read_csv(graded[0][0] / "grades.csv") if r["student"] == "ivan"]
    assert all(r["passed"] == "yes" for r in rows), rows


def test_feedback_shows_no_path_of_the_lecturers_machine(graded):
    folder = graded[0][0]
    secrets = {str(ROOT), os.path.realpath(ROOT), str(folder), str(folder.parent),
               sys.prefix, os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix),
               os.path.expanduser("~"), "/work/", "/tmp/"}
    page = (folder / "feedback" / "leaker.html").read_text(encoding="utf-8")
    assert "RuntimeError" in page and "/home/student" in page  # the message is shown ...
    for path in [*(folder / "feedback").iterdir(), folder / "grades.csv",
                 folder / "report.html"]:
        text = path.read_text(encoding="utf-8")
        leaked = [s for s in secrets if s and s in text]
        assert not leaked, f"{path.name} shows {leaked}"  # ... without the lecturer's paths


def test_report_html_has_the_class_statistics(graded):
    page = (graded[0][0] / "report.html").read_text(encoding="utf-8")
    assert '<img src="data:image/png;base64,' in page
    assert 'alt="Histogram of the totals of 17 submissions (of 11 points)' in page
    # 14 notebooks of sheet 06 (heidi, frank, grace are not); check_krr_fitted is failed by
    # bob, carol and the four cheaters: passed by 8 of 14, mean 2 * 8 / 14 = 1.14
    assert "<td>rep-ex-krr</td><td>check_krr_fitted</td><td>1.14 / 2</td><td>57 %</td>" in page


def test_the_sandbox_shows_nothing_of_the_machine(tmp_path):
    """The tiny sheet's solution, with ``area`` right only if the notebook sees neither the
    repository nor the submissions nor the home folder, has no network, runs as a user
    without privileges and can write only its own folder: then it earns the area's 2 + 1
    points."""
    sheets = ROOT / "tests" / "data" / "grading" / "sheets"
    (solution, _), = make_exercises.generate(tmp_path / "gen", [sheets / "01_tiny.md"])
    nb = nbformat.read(solution, as_version=4)
    home, base = Path.home(), Path(os.path.realpath(sys.base_prefix))
    # the Python installation may sit in the home folder (pyenv): only its path is bound
    python_top = base.relative_to(home).parts[0] if base.is_relative_to(home) else None
    # the ids the notebook must not see itself run as: root and the grader's own; except
    # that a sandbox of an ordinary user without subordinate ids always sees itself as
    # nobody, the grader's id when the grader is nobody (test_grading_attacks checks the
    # host's ids of every mode)
    forbidden = {0, os.getuid()} - (set() if sandbox._as_root() else {sandbox.STUDENT_UID})
    probe = (
        "import os, socket, math\n"
        f"seen = [p for p in [{str(ROOT)!r}, {str(tmp_path)!r}, {os.path.realpath(sys.prefix)!r}]"
        " if os.path.exists(p)]\n"
        f"home = {str(home)!r}\n"
        "seen += [n for n in (os.listdir(home) if os.path.isdir(home) else [])"
        f" if n != {python_top!r}]\n"
        "try:\n"
        "    socket.create_connection(('1.1.1.1', 53), timeout=3)\n"
        "    seen.append('network')\n"
        "except OSError:\n"
        "    pass\n"
        "for place in ['/usr/evil', '/opt/venv/evil', '/opt/kmgrade/evil']:\n"
        "    try:\n"
        "        open(place, 'w')\n"
        "        seen.append(place)\n"
        "    except OSError:\n"
        "        pass\n"
        f"if os.getuid() in {sorted(forbidden)!r} or os.getcwd() != '/home/student':\n"
        "    seen.append('user or folder')\n"
        "area = math.pi if not seen else 0.0\n")
    cell = next(c for c in nb.cells if "area = math.pi" in c.source)
    cell.source = probe
    folder = tmp_path / "class"
    folder.mkdir()
    nbformat.write(nb, folder / "probe.ipynb")
    grade.grade(folder, sheet_path=sheets / "01_tiny.md", sheets_dir=sheets, limits=LIMITS)
    rows = _read_csv(folder / "grades.csv")
    assert [r["passed"] for r in rows] == ["yes", "yes", "yes", "yes"], rows
