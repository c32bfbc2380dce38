"""The chapter pattern, checked on the sources of every chapter.

* every theorem, proposition, lemma or corollary is followed (before the next one)
  by a code cell that asserts what it promises (``assert`` or a pinned ``stated``);
* every code cell that draws a figure declares a caption, a label and alt text in
  its ``mystnb`` metadata, and uses the book's style (``plotting.figure``);
* code cells stay short: the computation lives in kmlib.
"""
from __future__ import annotations

import ast
import difflib
import re

import jupytext
import pytest
from _notebooks import myst_notebooks, read

CHAPTERS = myst_notebooks("chapters")
RESULT = re.compile(r"\{prf:(theorem|proposition|lemma|corollary)\}([^\n]*)")
MAX_CELL_LINES = 20


def _ids(path):
    return path.name


@pytest.mark.parametrize("path", CHAPTERS, ids=_ids)
def test_every_result_is_followed_by_a_computation_that_asserts_it(path):
    cells = read(path).cells
    unchecked = []
    for i, cell in enumerate(cells):
        if cell.cell_type != "markdown":
            continue
        for match in RESULT.finditer(cell.source):
            checked = False
            for later in cells[i + 1:]:
                if later.cell_type == "markdown" and RESULT.search(later.source):
                    break
                if later.cell_type == "code" and ("assert" in later.source
                                                  or "stated(" in later.source):
                    checked = True
                    break
            if not checked:
                unchecked.append(f"{match.group(1)}{match.group(2)}")
    assert not unchecked, f"{path.name}: results without a numerical check: {unchecked}"


@pytest.mark.parametrize("path", CHAPTERS, ids=_ids)
def test_figures_have_caption_label_alt_text_and_the_book_style(path):
    problems = []
    for cell in read(path).cells:
        if cell.cell_type != "code" or "plt.show()" not in cell.source:
            continue
        meta = cell.metadata.get("mystnb", {})
        figure, image = meta.get("figure", {}), meta.get("image", {})
        first = cell.source.strip().splitlines()[0]
        if not (figure.get("caption") and figure.get("name") and image.get("alt")):
            problems.append(f"missing caption/name/alt: {first}")
        if "plotting.figure(" not in cell.source:
            problems.append(f"not drawn with plotting.figure(): {first}")
    assert not problems, f"{path.name}: {problems}"


@pytest.mark.parametrize("path", CHAPTERS, ids=_ids)
def test_code_cells_are_short(path):
    long_cells = [c.source.splitlines()[0] for c in read(path).cells
                  if c.cell_type == "code" and len(c.source.strip().splitlines()) > MAX_CELL_LINES]
    assert not long_cells, f"{path.name}: cells over {MAX_CELL_LINES} lines: {long_cells}"


NOTEBOOKS = myst_notebooks("chapters", "exercises")


def _hidden(cell) -> bool:
    tags = cell.metadata.get("tags", [])
    return "hide-input" in tags or "remove-input" in tags or "remove-cell" in tags


def _echoes(source: str) -> bool:
    """Whether a cell displays the value of its last statement (no trailing ``;``)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    if not tree.body or not isinstance(tree.body[-1], ast.Expr):
        return False
    last = tree.body[-1]
    if isinstance(last.value, ast.Call) and ast.unparse(last.value.func).endswith(
            ("plt.show", "print", "display")):
        return False
    code_lines = source.splitlines()[last.lineno - 1: last.end_lineno]
    tail = code_lines[-1][last.end_col_offset:] if code_lines else ""
    return not tail.lstrip().startswith(";")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids)
def test_pins_live_in_hidden_cells_that_print_nothing(path):
    """Readers see the computation; ``stated`` pins sit in a ``hide-input`` cell ending in ``;``."""
    visible, echoing = [], []
    for cell in read(path).cells:
        if cell.cell_type != "code" or "stated(" not in cell.source:
            continue
        first = cell.source.strip().splitlines()[0]
        if not _hidden(cell):
            visible.append(first)
        if _echoes(cell.source):
            echoing.append(first)
    assert not visible, f"{path.name}: stated(...) in a visible cell (tag it hide-input): {visible}"
    assert not echoing, f"{path.name}: a pin cell echoes a value (end it with ';'): {echoing}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids)
def test_saving_from_jupyter_does_not_rewrite_the_source(path):
    """jupytext round trip (MyST -> ipynb -> MyST), as JupyterLab saves a paired notebook."""
    text = path.read_text(encoding="utf-8")
    again = jupytext.writes(jupytext.reads(text, fmt="md:myst"), fmt="md:myst")
    if again != text:
        diff = difflib.unified_diff(text.splitlines(), again.splitlines(), lineterm="", n=0)
        shown = "\n".join(list(diff)[:20])
        pytest.fail(f"{path.name}: the round trip changes the file:\n{shown}")


@pytest.mark.parametrize("path", myst_notebooks("exercises"), ids=_ids)
def test_check_outputs_are_folded(path):
    """A check prints "Correct: ..." next to the folded solution: fold its output too."""
    unfolded = [c.source.splitlines()[0] for c in read(path).cells
                if c.cell_type == "code" and "check" in c.metadata.get("tags", [])
                and "hide-output" not in c.metadata.get("tags", [])]
    assert not unfolded, f"{path.name}: check cells without the hide-output tag: {unfolded}"
