"""The site built without solutions contains no solution anywhere.

Fingerprints of every solution are taken from ``exercises/*.md`` themselves (so the
test grows with the book): each line of every code cell tagged ``solution`` and
every run of plain words in the prose between ``{solution-start}`` and
``{solution-end}``. Every file under the solution-free site (HTML with its tags
stripped, notebooks, sources, the search index, the notebooks zip) is searched
for each of them. The same search over the normal build must find them, so the
search itself is shown to work.

Needs ``make book-hidden`` (and ``make book`` for the control); CI runs both
before ``make check-site``.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import make_exercises
import pytest
from _notebooks import ROOT, file_texts, myst_notebooks, read, squash

HIDDEN = Path(os.environ.get("KMBOOK_HIDDEN_SITE", ROOT / "_build" / "hidden" / "_build" / "html"))
SHOWN = Path(os.environ.get("KMBOOK_SITE", ROOT / "_build" / "html"))
# sheets of the book (in _toc.yml); drafts not yet listed are not built
SHEETS = [s for s in myst_notebooks("exercises")
          if f"exercises/{s.stem}" in (ROOT / "_toc.yml").read_text(encoding="utf-8")]
OPEN = re.compile(r"^[`:]{3,}\{solution-start\}")
CLOSE = re.compile(r"^[`:]{3,}\{solution-end\}")
PLAIN_RUN = re.compile(r"[A-Za-z][A-Za-z ,;'()-]{28,}[A-Za-z]")
MATH_OR_CODE = re.compile(r"\$\$.*?\$\$|\$[^$]*\$|`[^`]*`|\{[\w:-]+\}")

pytestmark = pytest.mark.skipif(not (HIDDEN / "index.html").is_file(),
                                reason="no site without solutions (run `make book-hidden`)")


def fingerprints(path: Path) -> list[str]:
    """Distinctive pieces of every solution of one exercise sheet."""
    found: list[str] = []
    inside = False
    for cell in read(path).cells:
        if cell.cell_type == "code":
            if "solution" in cell.metadata.get("tags", []) or inside:
                found += [squash(ln) for ln in cell.source.splitlines() if len(ln.strip()) >= 12]
            continue
        for line in cell.source.splitlines():
            if OPEN.match(line):
                inside = True
            elif CLOSE.match(line):
                inside = False
            elif inside and not line.lstrip().startswith(":"):
                plain = MATH_OR_CODE.sub("\0", line)
                found += [squash(m.group(0)) for m in PLAIN_RUN.finditer(plain)]
    # what the statements themselves show (e.g. the data set to load) is no solution
    # and neither is a line that the chapters show too (``sigma2 = 1.0``)
    shown = squash(" ".join(c.source for c in make_exercises.student_version(read(path)).cells)
                    + " ".join(p.read_text(encoding="utf-8") for p in myst_notebooks("chapters")))
    return sorted(fp for fp in set(found) if fp not in shown)


# not searched: images, fonts, pickles and the wheel (its kmlib is the library's, checks included)
SKIPPED = frozenset({".png", ".jpg", ".jpeg", ".gif", ".woff", ".woff2", ".ttf", ".eot",
                     ".whl", ".ico", ".pickle", ".doctree"})


# Sphinx's smart quotes turn the sources' ' and " into typographic ones on the pages
TYPOGRAPHIC = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def _site_texts(site: Path) -> list[tuple[str, str]]:
    out = []
    for path in sorted(site.rglob("*")):
        if path.is_file() and "mathjax" not in path.parts:
            out += [(name, text.translate(TYPOGRAPHIC)) for name, text, _ in
                    file_texts(str(path.relative_to(site)), path.read_bytes(), skip=SKIPPED)]
    return out


@pytest.fixture(scope="module")
def prints():
    found = {sheet.name: fingerprints(sheet) for sheet in SHEETS}
    assert all(found.values()), f"a sheet without solution fingerprints: {found.keys()}"
    return found


def test_fingerprints_cover_code_and_prose(prints):
    for sheet, fps in prints.items():
        assert any("=" in fp for fp in fps), f"{sheet}: no solution code found"
        assert any(" " in fp and "=" not in fp for fp in fps), f"{sheet}: no solution prose found"


def test_no_solution_text_in_any_file_of_the_hidden_site(prints):
    texts = _site_texts(HIDDEN)
    assert any(name.startswith("_sources/exercises/") for name, _ in texts)
    leaks = [(sheet, fp, name) for sheet, fps in prints.items() for fp in fps
             for name, text in texts if fp in text]
    assert not leaks, f"solution text in the site without solutions: {leaks[:10]}"


@pytest.mark.skipif(not (SHOWN / "index.html").is_file(), reason="no normal build to compare")
def test_the_search_finds_the_solutions_in_the_normal_build(prints):
    """Control: the same search over the site with solutions finds nearly every fingerprint."""
    pages = {name: text for name, text in _site_texts(SHOWN) if name.startswith("exercises/")}
    for sheet, fps in prints.items():
        page = pages.get(f"exercises/{Path(sheet).stem}.html", "")
        hits = [fp for fp in fps if fp in page]
        assert len(hits) >= 0.9 * len(fps), (
            f"{sheet}: only {len(hits)} of {len(fps)} fingerprints found on the page with "
            f"solutions; missing e.g. {[fp for fp in fps if fp not in page][:5]}")


def test_no_image_made_by_a_solution_cell_is_published():
    for page in sorted((HIDDEN / "exercises").glob("*.html")):
        raw = page.read_text(encoding="utf-8")
        outputs = re.findall(r'<div class="cell_output[^"]*">.*?</div>\s*</div>', raw, flags=re.S)
        assert not any("<img" in out for out in outputs), f"{page.name}: an output image"
    if (SHOWN / "exercises").is_dir():
        made = set()
        for page in (SHOWN / "exercises").glob("*.html"):
            made |= set(re.findall(r'src="\.\./_images/([^"]+)"',
                                   page.read_text(encoding="utf-8")))
        published = ({p.name for p in (HIDDEN / "_images").glob("*")}
                     if (HIDDEN / "_images").is_dir() else set())
        chapters = set()
        for page in (SHOWN / "chapters").glob("*.html"):
            chapters |= set(re.findall(r'src="\.\./_images/([^"]+)"',
                                       page.read_text(encoding="utf-8")))
        assert not (made - chapters) & published
