"""Stated numbers: every number the prose quotes is glued by exactly one ``stated`` call.

The scan reads every chapter and exercise notebook as text (no execution): glue
references in markdown cells against ``stated("key", ...)`` calls in code cells.
Execution itself (nbval, the book build) checks each value against its expectation.
"""
from __future__ import annotations

from collections import Counter

import pytest
from _notebooks import GLUE_DIRECTIVE, GLUE_ROLE, RAW_GLUE_CALL, STATED_CALL, myst_notebooks, read

NOTEBOOKS = myst_notebooks("chapters", "exercises")


def test_there_are_notebooks_to_scan():
    assert len(myst_notebooks("chapters")) >= 2, "expected at least the first two chapters"


def _scan(path):
    nb = read(path)
    prose, stated, raw = Counter(), Counter(), []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            prose.update(GLUE_ROLE.findall(cell.source))
            prose.update(GLUE_DIRECTIVE.findall(cell.source))
        elif cell.cell_type == "code":
            stated.update(m.group("key") for m in STATED_CALL.finditer(cell.source))
            if RAW_GLUE_CALL.search(cell.source):
                raw.append(cell.source.splitlines()[0])
    return prose, stated, raw


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_quoted_number_is_stated_once_and_every_stated_number_quoted(path):
    prose, stated, raw = _scan(path)
    assert not raw, f"{path.name}: glue directly (use kmlib.book.stated): {raw}"
    missing = sorted(k for k in prose if stated[k] == 0)
    duplicated = sorted(k for k, c in stated.items() if c > 1)
    unquoted = sorted(k for k in stated if prose[k] == 0)
    assert not missing, f"{path.name}: prose quotes keys with no stated(...) call: {missing}"
    assert not duplicated, f"{path.name}: keys stated more than once: {duplicated}"
    assert not unquoted, f"{path.name}: stated keys the prose never quotes: {unquoted}"


def test_chapters_state_numbers():
    """A chapter that quotes no computed number at all is suspicious for this book."""
    for path in myst_notebooks("chapters"):
        _, stated, _ = _scan(path)
        assert sum(stated.values()) >= 3, f"{path.name} states fewer than 3 numbers"
