"""What a student sees of the exercise machinery: stubs, and a failed self-check.

The stubs of the student notebooks are headed by the exercise's number as the sheet shows
it (``# Exercise 3.1``), never an internal label, and name only the answers that a check
cell reads (the solution's helper variables stay unnamed). A failed self-check shows in
IPython as one short block headed by the exercise's number, not as a traceback through the
checker's source; its exercise comes from ``kmlib.book.exercises.EXERCISE_OF``, which must
match the sheets.
"""
from __future__ import annotations

import re

import jupytext
import make_exercises
import pytest
from _notebooks import ROOT

from kmlib.book import exercises

SHEETS = sorted((ROOT / "exercises").glob("*.md"))


def _student(path):
    return make_exercises.student_version(jupytext.read(path, fmt="md:myst"), path.stem)


def test_stubs_name_the_exercise_as_numbered_and_only_the_graded_answers():
    """Examples checked by hand against the sheets: exercise 6.2 asks for ``alpha`` and
    ``mu`` (its solution also binds ``X, y, K, n, A, sol``), 3.1 for the four condition
    numbers."""
    stubs = {}
    for path in SHEETS:
        for cell in _student(path).cells:
            if "student-answer" in cell.metadata.get("tags", []):
                head = cell.source.splitlines()
                number = re.match(r"# Exercise (\d+\.\d+): write your solution here\.$",
                                  head[0])
                assert number, (path.name, head[0])
                assert not re.search(r"[a-z]+-ex-", cell.source), cell.source  # no label
                shown = head[1].split(": ", 1)[1].split(", ") if len(head) > 1 and \
                    head[1].startswith("# Your code should define:") else []
                stubs[number.group(1)] = shown
    assert stubs["6.2"] == ["alpha", "mu"]
    assert stubs["3.1"] == ["kappa_P_tall", "kappa_D_tall", "kappa_P_wide", "kappa_D_wide"]
    # every name listed is read by some check cell of its sheet
    for path in SHEETS:
        nb = jupytext.read(path, fmt="md:myst")
        read = set().union(*(make_exercises.read_names(c.source) for c in nb.cells
                             if "check" in c.metadata.get("tags", [])))
        for cell in _student(path).cells:
            if "student-answer" in cell.metadata.get("tags", []):
                listed = re.findall(r"^(\w+) = None$", cell.source, re.M)
                assert set(listed) <= read, (path.name, set(listed) - read)


def test_a_student_version_made_twice_is_made_once():
    """The solution-free site makes its pages from student versions, and the site makes
    the downloads from those: the points comment must not be added twice."""
    path = ROOT / "exercises" / "06_representer.md"
    once = _student(path)
    twice = make_exercises.student_version(once, path.stem)
    assert [c.source for c in twice.cells] == [c.source for c in once.cells]


def test_exercise_of_matches_the_sheets():
    """Each self-check called in a check cell, with the number of the exercise it follows."""
    found = {}
    for path in SHEETS:
        nb = jupytext.read(path, fmt="md:myst")
        numbers = make_exercises.exercise_numbers(make_exercises.exercise_labels(nb), path.stem)
        label = None
        for cell in nb.cells:
            if cell.cell_type == "markdown":
                labels = make_exercises.EXERCISE_LABEL.findall(cell.source)
                label = labels[-1] if labels else label
            elif "check" in cell.metadata.get("tags", []) and label is not None:
                for m in re.finditer(r"\b(ch\d\d)\.(check_\w+)\s*\(", cell.source):
                    found.setdefault(f"{m.group(1)}.{m.group(2)}", numbers[label])
    assert found == exercises.EXERCISE_OF, (
        "update EXERCISE_OF in kmlib/book/exercises/__init__.py to:\n" + repr(found))


@pytest.fixture()
def shell():
    IPython = pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell

    assert IPython
    sh = InteractiveShell.instance()
    # in a notebook the kernel's shell exists before the package is imported; here the
    # package came first, so the display is installed as the import would have done
    assert exercises.show_short_failures()
    yield sh
    InteractiveShell.clear_instance()


def test_a_failed_self_check_shows_one_short_block(shell, capsys):
    """Sheet 3's first self-check with wrong condition numbers: the student sees the
    exercise's number and the message, not the checker's source; a plain assert of the
    student's own keeps IPython's usual traceback; the error is still an AssertionError."""
    shell.run_cell("import numpy as np\nfrom kmlib.book.exercises import ch03\n"
                   "Phi = np.random.default_rng(0).standard_normal((10, 3))")
    capsys.readouterr()
    result = shell.run_cell("ch03.check_condition_numbers(1.0, 2.0, Phi, 0.1)")
    shown = capsys.readouterr()
    text = shown.out + shown.err
    assert isinstance(result.error_in_exec, AssertionError)
    assert "Exercise 3.1: self-check failed" in text
    assert "def check_condition_numbers" not in text and "Traceback" not in text
    assert len(text.strip().splitlines()) <= 4
    shell.run_cell("assert 1 == 2, 'my own assert'")
    shown = capsys.readouterr()
    assert "Traceback" in shown.out + shown.err and "self-check failed" not in shown.out


def test_self_check_failed_carries_its_exercise_and_hint(shell, capsys):
    error = exercises.SelfCheckFailed("`w` has the wrong sign", exercise="8.4",
                                      hint="check the labels")
    assert isinstance(error, AssertionError)
    assert str(error) == "`w` has the wrong sign Try: check the labels"
    shell.run_cell("from kmlib.book.exercises import SelfCheckFailed\n"
                   "raise SelfCheckFailed('`w` has the wrong sign', exercise='8.4')")
    shown = capsys.readouterr()
    assert "Exercise 8.4: self-check failed" in shown.out + shown.err
    assert "Traceback" not in shown.out + shown.err
