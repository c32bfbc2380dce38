"""The checks of every sheet take only answers from the student, never the problem's data.

A check that reads the problem's data from the student's notebook (the points, the
regularisation, a split) can be fooled by replacing the data with a trivial problem whose
answer is obvious: the check then compares a trivial answer with the reference computed
on the trivial data. So every name a check cell reads from the notebook must be an answer
(a name some solution cell of the sheet binds); the data are rebuilt inside the check cell
or the check from the sheet's own seeds. Sheets that break this today are marked
``xfail(strict=True)`` with the sheet named (none today).
"""
from __future__ import annotations

import re

import jupytext
import make_exercises
import pytest
from _grading.sheet import load_sheet
from _notebooks import ROOT

SHEETS = sorted((ROOT / "exercises").glob("*.md"))
READS_DATA: dict[str, str] = {}


def data_read_by_checks(path) -> list[str]:
    """Names the sheet's check cells read from the notebook that no solution cell binds."""
    nb = jupytext.read(path, fmt="md:myst")
    answers = set()
    for cell in nb.cells:
        if cell.cell_type == "code" and "solution" in cell.metadata.get("tags", []):
            answers |= set(make_exercises.assigned_names(cell.source))
    return sorted({n for check in load_sheet(path).checks for n in check.names
                   if n not in answers})


def _param(path):
    why = READS_DATA.get(path.stem)
    marks = [pytest.mark.xfail(strict=True, reason=f"breaks the rule today: {why}")] if why else []
    return pytest.param(path, id=path.stem, marks=marks)


@pytest.mark.parametrize("sheet", [_param(p) for p in SHEETS])
def test_checks_read_only_answers_from_the_notebook(sheet):
    names = data_read_by_checks(sheet)
    assert not names, f"{sheet.name}: check cells read the problem's data: {names}"


HIDDEN_CONSISTENCY_ONLY: dict[str, str] = {}


def _hidden_param(path):
    why = HIDDEN_CONSISTENCY_ONLY.get(path.stem)
    marks = [pytest.mark.xfail(strict=True, reason=f"breaks the rule today: {why}")] if why else []
    return pytest.param(path, id=path.stem, marks=marks)


@pytest.mark.parametrize("sheet", [_hidden_param(p) for p in SHEETS])
def test_hidden_checks_compare_with_the_sheets_problem(sheet):
    """A hidden check that only compares the student's answers with each other gives points
    for any consistent pair (``top = 0``, ``nds = True``); each must use the sheet's own
    problem, through its chapter module (``chNN.``: its data or a reference check)."""
    lonely = [c.name for c in load_sheet(sheet).checks
              if c.hidden and not re.search(r"\bch\d\d\.\w+", c.source)]
    assert not lonely, f"{sheet.name}: hidden checks without the sheet's problem: {lonely}"
