"""Grading students' notebooks (``scripts/grade.py``) on fabricated submissions.

The submissions are made here from the notebooks ``scripts/make_exercises.py``
generates: the solution notebook, the student stub and copies with one answer
changed or one hostile cell added. The checks that grade are the lecturer's full checks
(``scripts/_grading/reference/``), put in place of the self-checks that ship; a submission
whose answer passes the self-check but not the full check loses the points. The expected
scores are not taken from the grader: they are the points written in the sheets'
check-cell metadata, added up by hand in the constants below (the fixture sheet
``tests/data/grading/sheets/01_tiny.md`` states 2 + 1 (hidden) + 3 + 1 = 7;
``exercises/06_representer.md`` 2 + 1 (hidden) + 2 + 1 + 1 + 2 + 2 = 11;
``exercises/05_rkhs.md`` 2 + 2 + 1 + 1 = 6; ``exercises/04_kernels.md`` seven checks of
1 point).
"""
from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import grade
import make_exercises
import nbformat
import numpy as np
import pytest
from _grading import sandbox
from _grading.sheet import load_sheet
from _notebooks import ROOT

SHEETS = ROOT / "tests" / "data" / "grading" / "sheets"
TINY = SHEETS / "01_tiny.md"
TINY_POINTS = {"tiny-ex-area": 2 + 1, "tiny-ex-square": 3, "tiny-ex-evens": 1}
TINY_MAX = 7
REPRESENTER_MAX = 11
LIMITS = sandbox.Limits(timeout=4, memory_mb=1024, grace=2)

pytestmark = pytest.mark.skipif(sandbox.bwrap_problem() is not None,
                                reason=f"no bubblewrap sandbox here: {sandbox.bwrap_problem()}")


def _cell(source: str):
    return nbformat.v4.new_code_cell(source)


def _after(nb, marker: str, source: str, before: bool = False):
    """A copy of ``nb`` with a code cell ``source`` next to the first cell containing ``marker``."""
    nb = nbformat.from_dict(nb)
    i = next(k for k, c in enumerate(nb.cells) if marker in c.source)
    nb.cells.insert(i if before else i + 1, _cell(source))
    return nb


def _replace(nb, old: str, new: str):
    nb = nbformat.from_dict(nb)
    cell = next(c for c in nb.cells if c.cell_type == "code" and old in c.source)
    cell.source = cell.source.replace(old, new)
    return nb


def _read_csv(path: Path) -> list[dict]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _totals(folder: Path) -> dict[str, float]:
    return {r["student"]: float(r["total"]) for r in _read_csv(folder / "summary.csv")}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """The tiny sheet's generated notebooks (solution, student) as nbformat objects."""
    out = tmp_path_factory.mktemp("tiny")
    generated = make_exercises.generate(out, [TINY, SHEETS / "02_other.md"])
    solution, student = (nbformat.read(p, as_version=4) for p in generated[0])
    other_student = nbformat.read(generated[1][1], as_version=4)
    return solution, student, other_student


@pytest.fixture(scope="module")
def graded(tiny, tmp_path_factory):
    """Grade a class of fabricated submissions of the tiny sheet twice (two folders)."""
    solution, student, other = tiny
    sentinel_dir = tmp_path_factory.mktemp("lecturer")
    sentinel = sentinel_dir / "lecturer_file.txt"
    sentinel.write_text("the lecturer's notes\n")
    hostile_delete = (
        "import os, shutil\n"
        "for name in os.listdir('.'):\n"
        "    shutil.rmtree(name, ignore_errors=True) if os.path.isdir(name) else os.remove(name)\n"
        f"for path in [{str(sentinel)!r}]:\n"
        "    try:\n"
        "        os.remove(path)\n"
        "    except OSError:\n"
        "        pass\n"
        f"open({str(sentinel_dir / 'planted.txt')!r}, 'w').write('x')\n"
    )
    submissions = {
        "solution": solution,
        "stub": student,
        "wrong_square": _replace(solution, "return x * x", "return 2 * x"),
        "crash_after_area": _after(solution, "Correct: the area", "import os\nos._exit(3)"),
        "error_cell": _after(solution, "Correct: the area", "1 / 0"),
        "hang_after_area": _after(solution, "Correct: the area", "while True:\n    pass"),
        "hang_ignoring_alarm": _after(
            solution, "Correct: the area",
            "import signal, time\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
            "while True:\n    time.sleep(0.1)"),
        "deleter": _after(solution, "import math", hostile_delete),
        "printer": _after(solution, "import math", "print('x' * 30_000_000)"),
        "memory_hog": _after(solution, "import math", "big = bytearray(4 * 2**30)"),
        "string_area": _replace(solution, "area = math.pi * 1.0**2", "area = 'pi'"),
    }
    folders = []
    for run in (1, 2):
        folder = tmp_path_factory.mktemp(f"class{run}")
        for name, nb in submissions.items():
            nbformat.write(nb, folder / f"{name}.ipynb")
        (folder / "not_a_notebook.ipynb").write_text("this is an essay, not a notebook\n")
        (folder / "photo.jpg").write_bytes(b"\xff\xd8\xff\xe0 not text")
        nbformat.write(other, folder / "other_sheet.ipynb")
        grade.grade(folder, sheet_path=TINY, sheets_dir=SHEETS, limits=LIMITS)
        folders.append(folder)
    return folders, sentinel, sentinel_dir


def test_sheet_points_and_hidden_checks_come_from_the_cell_metadata():
    """Reference: the metadata written in the fixture sheet (2, hidden 1, 3, and 1 by default)."""
    sheet = load_sheet(TINY)
    assert [(c.exercise, c.points, c.hidden) for c in sheet.checks] == [
        ("tiny-ex-area", 2, False), ("tiny-ex-area", 1, True),
        ("tiny-ex-square", 3, False), ("tiny-ex-evens", 1, False)]
    assert sheet.max_points == TINY_MAX
    assert sheet.checks[2].names == ["square"]


def test_student_version_drops_hidden_checks_and_shows_points(tiny):
    """The student notebook has the three visible checks, each headed by its points."""
    _, student, _ = tiny
    checks = [c.source for c in student.cells if "check" in c.metadata.get("tags", [])]
    assert [s.splitlines()[0] for s in checks] == [
        "# Check: 2 points", "# Check: 3 points", "# Check: 1 point"]
    text = "\n".join(c.source for c in student.cells)
    assert "hidden-check" not in str(student) and "not a string that prints like one" not in text


def test_student_version_of_real_sheets_drops_their_hidden_checks():
    """The two sheets with hidden checks lose them; every visible check shows its points."""
    import jupytext

    for name in ("06_representer", "10_negative_definite"):
        nb = jupytext.read(ROOT / "exercises" / f"{name}.md", fmt="md:myst")
        hidden = [c.source for c in nb.cells if make_exercises.is_hidden_check(c)]
        assert hidden, name
        out = make_exercises.student_version(nb)
        sources = [c.source for c in out.cells]
        assert not any(h in s for h in hidden for s in sources), name
        for cell in out.cells:
            if "check" in cell.metadata.get("tags", []):
                assert cell.source.startswith("# Check: "), (name, cell.source)


def test_solution_scores_full_marks_and_stub_scores_zero(graded):
    totals = _totals(graded[0][0])
    assert totals["solution"] == TINY_MAX
    assert totals["stub"] == 0


def test_one_wrong_answer_loses_exactly_that_checks_points(graded):
    """``square`` returns 2x: the 3-point check fails, everything else passes."""
    rows = [r for r in _read_csv(graded[0][0] / "grades.csv") if r["student"] == "wrong_square"]
    failed = [r for r in rows if r["passed"] == "no"]
    assert [(r["exercise"], r["points"], r["max_points"]) for r in failed] == [
        ("tiny-ex-square", "0", "3")]
    assert "not x * x" in failed[0]["message"]
    assert _totals(graded[0][0])["wrong_square"] == TINY_MAX - 3


def test_crashing_and_hanging_notebooks_keep_what_they_earned(graded):
    """Stopped right after the area check: exactly the area's 2 + 1 points."""
    totals = _totals(graded[0][0])
    for name in ("crash_after_area", "hang_after_area", "hang_ignoring_alarm"):
        assert totals[name] == TINY_POINTS["tiny-ex-area"], name
    assert totals["error_cell"] == TINY_MAX  # an error in one cell does not stop the others
    page = (graded[0][0] / "feedback" / "hang_after_area.html").read_text()
    assert "did not finish within 4 s" in page


def test_hostile_notebooks_cannot_touch_other_files_or_grades(graded):
    folders, sentinel, sentinel_dir = graded
    totals = _totals(folders[0])
    assert totals["deleter"] == TINY_MAX  # deleting its own working folder costs nothing
    assert totals["printer"] == TINY_MAX
    assert totals["memory_hog"] == TINY_MAX  # the allocation fails, the rest runs
    if os.geteuid() == 0:  # the notebooks ran as `nobody`: the lecturer's files are read-only
        assert sentinel.read_text() == "the lecturer's notes\n"
        assert not (sentinel_dir / "planted.txt").exists()
    page = (folders[0] / "feedback" / "memory_hog.html").read_text()
    assert "MemoryError" in page


def test_hidden_check_counts_but_its_feedback_shows_only_pass_or_fail(graded):
    """``area = 'pi'`` fails both area checks; the hidden one's message and code stay hidden."""
    folder = graded[0][0]
    rows = [r for r in _read_csv(folder / "grades.csv") if r["student"] == "string_area"]
    assert [r["passed"] for r in rows] == ["no", "no", "yes", "yes"]
    page = (folder / "feedback" / "string_area.html").read_text()
    assert "hidden check 1" in page  # a neutral name, not what the check tests
    assert "area is a float" not in page  # the hidden check's comment
    assert "isinstance" not in page and "is not a float" not in page
    assert "TypeError: unsupported operand" in page  # a visible check's message is shown


def test_non_notebooks_and_other_sheets_get_one_row_saying_so(graded):
    rows = _read_csv(graded[0][0] / "grades.csv")
    by_student = {}
    for r in rows:
        by_student.setdefault(r["student"], []).append(r)
    assert [r["message"] for r in by_student["not_a_notebook"]] == [
        "not a Jupyter notebook (JSONDecodeError)"]
    assert len(by_student["photo"]) == 1
    assert "not a Jupyter notebook" in by_student["photo"][0]["message"]
    assert len(by_student["other_sheet"]) == 1
    assert ("02_other, not of the sheet graded here (01_tiny)"
            in by_student["other_sheet"][0]["message"])
    assert len(by_student["solution"]) == 4  # one row per check, hidden included


def test_two_runs_write_identical_csvs(graded):
    first, second = graded[0]
    for name in ("grades.csv", "summary.csv"):
        assert (first / name).read_bytes() == (second / name).read_bytes(), name
    header = (first / "summary.csv").read_text(encoding="utf-8").splitlines()[0].split(",")
    assert header == ["student", "sheet", "total", "max", *TINY_POINTS]


def test_real_sheet_solution_stub_and_patched_checkers(tmp_path):
    """Chapter 6's sheet: the solution earns 11, the stub 0, and a notebook that monkey-patches
    ``kmlib.book.exercises.ch06`` (and numpy) while giving a wrong answer still fails that check."""
    sheet = ROOT / "exercises" / "06_representer.md"
    (sol_path, stu_path), = make_exercises.generate(tmp_path / "gen", [sheet])
    solution = nbformat.read(sol_path, as_version=4)
    patcher = _after(
        _replace(solution, "fitted = K @ alpha", "fitted = K @ alpha + 1.0"),
        "from kmlib.book.exercises import ch06",
        "import numpy as np\nimport kmlib.book.exercises\nfrom kmlib.book.exercises import ch06\n"
        "ch06.check_krr_fitted = lambda *a, **k: print('Correct: patched')\n"
        "kmlib.book.exercises.ch06 = ch06\nnp.allclose = lambda *a, **k: True\n"
        "check_krr_fitted = ch06.check_krr_fitted")
    folder = tmp_path / "class"
    folder.mkdir()
    nbformat.write(solution, folder / "solution.ipynb")
    nbformat.write(nbformat.read(stu_path, as_version=4), folder / "stub.ipynb")
    nbformat.write(patcher, folder / "patcher.ipynb")
    grade.grade(folder, limits=sandbox.Limits(timeout=120, memory_mb=2048, grace=5))
    totals = _totals(folder)
    assert totals == {"patcher": REPRESENTER_MAX - 2, "solution": REPRESENTER_MAX, "stub": 0}
    rows = {(r["student"], r["check"]): r for r in _read_csv(folder / "grades.csv")}
    assert rows[("patcher", "check_krr_fitted")]["passed"] == "no"


@pytest.mark.parametrize("name", ["06_representer", "10_negative_definite"])
def test_hidden_checks_do_not_reach_the_solution_free_site(name):
    """Every file of the built solution-free site is searched for each hidden check's lines."""
    import jupytext

    site = ROOT / "_build" / "hidden" / "_build" / "html"
    if not (site / "exercises" / f"{name}.html").is_file():
        pytest.skip(f"the solution-free site has no page for {name} "
                    "(make book-hidden; is it in _toc.yml?)")
    nb = jupytext.read(ROOT / "exercises" / f"{name}.md", fmt="md:myst")
    lines = {ln.strip() for c in nb.cells if make_exercises.is_hidden_check(c)
             for ln in c.source.splitlines() if ln.strip().startswith(("#", "assert", "print"))}
    assert lines
    for path in site.rglob("*"):
        if path.is_file() and path.suffix in {".html", ".ipynb", ".md", ".txt", ".js", ".json"}:
            text = path.read_text(encoding="utf-8", errors="replace")
            leaked = [ln for ln in lines if ln in text]
            assert not leaked, f"{path.relative_to(site)} shows hidden check lines: {leaked}"


def test_without_bubblewrap_grading_refuses(monkeypatch, tiny, tmp_path):
    """No bwrap: `make grade` says so and stops, with or without the old --weak-sandbox."""
    solution = tiny[0]
    nbformat.write(solution, tmp_path / "solution.ipynb")
    monkeypatch.setattr(sandbox, "bwrap_problem", lambda: "bwrap is not installed")
    monkeypatch.setenv("KMGRADE_SUBORDINATE_IDS", "0")  # main() grades in this process
    with pytest.raises(SystemExit) as stop:
        grade.grade(tmp_path, sheet_path=TINY, sheets_dir=SHEETS, limits=LIMITS)
    assert "bwrap is not installed" in str(stop.value) and "apt-get install" in str(stop.value)
    assert not (tmp_path / "summary.csv").exists()
    for extra in ([], ["--weak-sandbox"]):
        with pytest.raises(SystemExit):
            grade.main([str(tmp_path), "--sheet", str(TINY), "--sheets-dir", str(SHEETS), *extra])
    assert not (tmp_path / "summary.csv").exists()


def test_generated_notebooks_name_their_sheet(tiny):
    solution, student, other = tiny
    assert solution.metadata["kmbook"] == {"sheet": "01_tiny", "version": "solutions"}
    assert student.metadata["kmbook"] == {"sheet": "01_tiny", "version": "student"}
    assert other.metadata["kmbook"]["sheet"] == "02_other"


def test_the_sheet_comes_from_metadata_then_sheet_option_then_cells(tiny):
    """A notebook with none of the sheet's cells is still recognised by its metadata, or by
    --sheet; without either it is of no known sheet."""
    solution, _, _ = tiny
    sheets = [load_sheet(p) for p in sorted(SHEETS.glob("*.md"))]
    tiny_sheet = next(s for s in sheets if s.name == "01_tiny")
    bare = nbformat.v4.new_notebook(cells=[_cell("area = 3.14159")])
    assert grade.identify(bare, sheets) is None
    assert grade.identify(bare, sheets, given=tiny_sheet) is tiny_sheet
    bare.metadata["kmbook"] = {"sheet": "02_other"}
    assert grade.identify(bare, sheets, given=tiny_sheet).name == "02_other"
    assert grade.identify(solution, sheets).name == "01_tiny"


def test_edited_and_deleted_check_cells_still_earn_their_points(tiny, tmp_path):
    """Check cells deleted (and, in another notebook, replaced by a print): full marks, since
    the answers are read by name; the tiny sheet reuses no name across exercises, so the
    answers are saved when the next exercise starts."""
    solution, _, _ = tiny

    def checks(nb, change):
        nb = nbformat.from_dict(nb)
        cells = []
        for c in nb.cells:
            if c.cell_type == "code" and "check" in c.metadata.get("tags", []):
                c = change(c)
            if c is not None:
                cells.append(c)
        nb.cells = cells
        return nb

    deleted = checks(solution, lambda c: None)
    edited = checks(solution, lambda c: (c.update(source="print('Correct: trust me')") or c))
    untagged = checks(solution, lambda c: nbformat.v4.new_code_cell("print('all correct')"))
    wrong = _replace(deleted, "return x * x", "return 2 * x")
    for name, nb in [("deleted", deleted), ("edited", edited), ("untagged", untagged),
                     ("wrong", wrong)]:
        del nb.metadata["kmbook"]  # recognised by --sheet (no check cell left to match)
        nbformat.write(nb, tmp_path / f"{name}.ipynb")
    grade.grade(tmp_path, sheet_path=TINY, sheets_dir=SHEETS, limits=LIMITS)
    assert _totals(tmp_path) == {"deleted": TINY_MAX, "edited": TINY_MAX, "untagged": TINY_MAX,
                                 "wrong": TINY_MAX - 3}


def test_report_html_gives_class_statistics(graded):
    """14 files, 11 notebooks of the tiny sheet. The 3-point square check passes for solution,
    error_cell, deleter, printer, memory_hog and string_area: 6 of 11, mean 18 / 11 = 1.64;
    the three notebooks stopped after the area exercise fail it with the same message."""
    page = (graded[0][0] / "report.html").read_text(encoding="utf-8")
    assert 'alt="Histogram of the totals of 14 submissions (of 7 points)' in page
    assert ("<td>tiny-ex-square</td><td>check 3</td><td>1.64 / 3</td><td>55 %</td>"
            "<td>NameError: name &#x27;square&#x27; is not defined (not defined by your notebook: "
            "square) (3×)</td>") in page
    assert "<tr><td>tiny-ex-square</td><td>1.64 / 3</td><td>55 %</td></tr>" in page
    assert "(hidden)" in page


# --------------------------------------------------------------------------- #
# the grader runs the lecturer's full checks, never the self-checks that ship
# --------------------------------------------------------------------------- #
def test_use_references_puts_the_full_checks_in_place_of_the_self_checks(monkeypatch, capsys):
    """In the process of the checks, ``ch05.check_*`` (and a ``from ... import check_*``
    made afterwards) are the reference's; the data functions stay; twice changes nothing."""
    import sys

    from _grading import run_checks
    from _grading.reference import ch05 as reference

    from kmlib.book.exercises import ch05

    for module_name, module in list(sys.modules.items()):    # every chapter loaded here is
        if run_checks.SHIPPED_CHECKS.match(module_name):    # restored after the test
            for name in [n for n in vars(module) if n.startswith("check_")]:
                monkeypatch.setattr(module, name, getattr(module, name))
            monkeypatch.setattr(module, run_checks.REFERENCED, False, raising=False)
    assert "kmlib.book.exercises.ch05" in run_checks.use_references()
    assert run_checks.use_references() == []
    assert ch05.check_sobolev1_norm is reference.check_sobolev1_norm
    assert ch05.sobolev1_data.__module__ == "kmlib.book.exercises.ch05"
    namespace: dict = {}
    exec("from kmlib.book.exercises.ch05 import check_mercer_grid", namespace)
    assert namespace["check_mercer_grid"] is reference.check_mercer_grid


def test_grading_refuses_a_sheet_whose_check_has_no_reference(monkeypatch, tmp_path):
    """A check cell calling a self-check that the reference module lacks: no grading at all,
    rather than grading with what students can run at home."""
    from kmlib.book.exercises import ch05

    monkeypatch.setattr(ch05, "check_extra", lambda *a: print("Self-check passed"),
                        raising=False)
    sheet = tmp_path / "sheets" / "05_rkhs.md"
    sheet.parent.mkdir()
    text = (ROOT / "exercises" / "05_rkhs.md").read_text(encoding="utf-8")
    sheet.write_text(text.replace("ch05.check_sobolev1_norm(norm2)",
                                  "ch05.check_sobolev1_norm(norm2)\nch05.check_extra(norm2)"),
                     encoding="utf-8")
    problems = grade.reference_problems(load_sheet(sheet))
    assert problems == ["scripts/_grading/reference/ch05.py has no check_extra"]
    assert grade.reference_problems(load_sheet(ROOT / "exercises" / "05_rkhs.md")) == []
    (tmp_path / "class").mkdir()
    nbformat.write(nbformat.v4.new_notebook(), tmp_path / "class" / "alice.ipynb")
    with pytest.raises(SystemExit, match="check_extra"):
        grade.grade(tmp_path / "class", sheet_path=sheet, sheets_dir=sheet.parent,
                    limits=LIMITS)


def test_scores_come_from_the_full_checks(tmp_path):
    """Sheet 5 (points 2 + 2 + 1 + 1 = 6): the solution earns 6 with the full checks' lines;
    ``norm2`` right to six digits but not to the full check's 1e-9 passes the self-check the
    student runs, yet the grader takes its point (5); the stub earns 0."""
    from kmlib.book.exercises import ch05

    sheet = ROOT / "exercises" / "05_rkhs.md"
    (sol_path, stu_path), = make_exercises.generate(tmp_path / "gen", [sheet])
    solution = nbformat.read(sol_path, as_version=4)
    exact = "norm2 = np.sum(widths * slopes**2)"
    near = _replace(solution, exact, exact + " * (1 + 5e-7)")
    x5, a5 = ch05.sobolev1_data()
    order = np.argsort(x5)
    slopes = np.cumsum(a5[order][::-1])[::-1]
    value = float(np.sum(np.diff(np.r_[0.0, x5[order]]) * slopes**2)) * (1 + 5e-7)
    ch05.check_sobolev1_norm(value)                         # what the student saw: passed
    folder = tmp_path / "class"
    folder.mkdir()
    nbformat.write(solution, folder / "solution.ipynb")
    nbformat.write(nbformat.read(stu_path, as_version=4), folder / "stub.ipynb")
    nbformat.write(near, folder / "near.ipynb")
    grade.grade(folder, limits=sandbox.Limits(timeout=120, memory_mb=2048, grace=5))
    assert _totals(folder) == {"near": 5, "solution": 6, "stub": 0}
    rows = _read_csv(folder / "grades.csv")
    assert all(r["message"].startswith("Correct:") for r in rows if r["student"] == "solution")
    assert not any("Self-check" in r["message"] for r in rows)
    failed = [r for r in rows if r["passed"] == "no" and r["student"] == "near"]
    assert [r["check"] for r in failed] == ["check_sobolev1_norm"]


def test_a_function_answer_cannot_patch_the_checks(tmp_path):
    """Sheet 4 (seven checks of 1 point): ``matern32`` patches numpy when it runs,
    ``matern52`` when it is defined (a decorator); both return wrong values. Each call runs
    in a sandbox of its own, so the full check sees the wrong values: 6 of 7."""
    sheet = ROOT / "exercises" / "04_kernels.md"
    (sol_path, _), = make_exercises.generate(tmp_path / "gen", [sheet])
    solution = nbformat.read(sol_path, as_version=4)
    patcher = (
        "def matern32(r, ell):\n"
        "    import numpy\n"
        "    numpy.allclose = lambda *a, **k: True\n"
        "    numpy.isclose = lambda a, b, *x, **k: numpy.ones(numpy.shape(a), dtype=bool)\n"
        "    return numpy.exp(-numpy.asarray(r) / ell)\n"
        "\n"
        "@(lambda f: (__import__('numpy').__setattr__('allclose', lambda *a, **k: True), f)[1])\n"
        "def matern52(r, ell):\n"
        "    import numpy\n"
        "    return numpy.exp(-numpy.asarray(r) / ell)\n")
    nb = _after(solution, "min_eig_52 = np.linalg.eigvalsh", patcher)
    folder = tmp_path / "class"
    folder.mkdir()
    nbformat.write(nb, folder / "patcher.ipynb")
    grade.grade(folder, limits=sandbox.Limits(timeout=120, memory_mb=2048, grace=5))
    rows = _read_csv(folder / "grades.csv")
    assert [(r["check"], r["passed"]) for r in rows if r["passed"] == "no"] == [
        ("check_matern", "no")]
    assert _totals(folder) == {"patcher": 6}


def test_numbers_and_arrays_keep_their_shape_between_sandboxes():
    """A numpy scalar or 0-d array answer arrives as a scalar (a list of two ``np.float64``
    is an array of shape (2,), not (2, 1)); arrays keep shape, dtype and values."""
    import numpy as np
    from _grading import codec

    values = [np.float64(0.25), np.array(1.5), np.arange(6.0).reshape(2, 3).T,
              np.int32(7), [np.float64(0.1), np.float64(0.2)]]
    back = [codec.Decoder()(codec.loads(json.dumps(codec.Encoder()(v)).encode())) for v in values]
    for value, got in zip(values, back, strict=True):
        assert np.shape(got) == np.shape(value)
        assert np.array_equal(np.asarray(got), np.asarray(value))
        assert np.asarray(got).dtype == np.asarray(value).dtype


def test_without_sheet_option_a_mixed_class_is_refused(tiny, tmp_path):
    """No vote among the notebooks: one forged notebook of another sheet (or many) cannot
    choose the sheet; the grader asks for ``--sheet`` and writes nothing."""
    solution, _, other = tiny
    folder = tmp_path / "class"
    folder.mkdir()
    nbformat.write(solution, folder / "alice.ipynb")
    nbformat.write(solution, folder / "bob.ipynb")
    nbformat.write(other, folder / "mallory.ipynb")
    with pytest.raises(SystemExit, match="different sheets.*--sheet"):
        grade.grade(folder, sheets_dir=SHEETS, limits=LIMITS)
    assert not (folder / "grades.csv").exists()


def test_a_notebook_with_too_many_cells_is_refused_before_it_is_parsed(tmp_path):
    """A notebook of 100,000 cells gets one row saying why, in well under a second."""
    import time

    cells = [{"cell_type": "code", "id": f"c{i}", "metadata": {}, "source": f"x = {i}",
              "outputs": [], "execution_count": None} for i in range(100_000)]
    path = tmp_path / "huge.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4,
                                "nbformat_minor": 5}), encoding="utf-8")
    start = time.perf_counter()
    got, why = grade.read_notebook(path)
    assert got is None and "more than the limit of 2000" in why
    assert time.perf_counter() - start < 5  # parsed and validated, it took about a minute
