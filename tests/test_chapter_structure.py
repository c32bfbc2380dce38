"""The chapter pattern, checked on the sources of every chapter.

* every theorem, proposition, lemma or corollary is followed (before the next one)
  by a code cell that asserts what it promises (``assert`` or a pinned ``stated``);
* every code cell that draws a figure declares a caption, a label and alt text in
  its ``mystnb`` metadata, and uses the book's style (``plotting.figure``);
* code cells stay short: the computation lives in kmlib.
"""
from __future__ import annotations

import re

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
                if later.cell_type == "code" and ("assert" in later.source or "stated(" in later.source):
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
