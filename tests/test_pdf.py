"""The book as a PDF (``make pdf``): complete, with every reference resolved and no raw math.

The references these checks trust are outside the PDF: the chapter titles are read from
the sources named in ``_toc.yml``; the figure names from the cells' ``mystnb`` metadata;
a ``$`` or ``\\(`` is accounted for only if the code cells of the sources contain the
line it stands on; the solutions are the lines of the exercise sources (as in
``test_hidden_site.py``). The text of the PDF comes from ``pdftotext`` (poppler-utils).

Skipped when no PDF was built. ``KMBOOK_PDF``, ``KMBOOK_HIDDEN_PDF`` (book.pdf files) and
``KMBOOK_SRC`` (the book's source folder) check another build, e.g. one made with a private
table of contents.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from _notebooks import ROOT

PDF = Path(os.environ.get("KMBOOK_PDF", ROOT / "_build" / "latex" / "book.pdf"))
SRC = Path(os.environ.get("KMBOOK_SRC", ROOT))
HIDDEN_PDF = Path(os.environ.get("KMBOOK_HIDDEN_PDF",
                                ROOT / "_build" / "hidden" / "_build" / "latex" / "book.pdf"))

pytestmark = [
    pytest.mark.skipif(not PDF.is_file(), reason=f"no PDF at {PDF} (run `make pdf`)"),
    pytest.mark.skipif(shutil.which("pdftotext") is None,
                       reason="pdftotext missing (apt-get install poppler-utils)"),
]

CODE_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```", re.M | re.S)
INLINE_CODE = re.compile(r"`([^`\n]+)`")
HEADING = re.compile(r"^# (.+)$", re.M)
CELL_METADATA = re.compile(r"^```\{code-cell\}[^\n]*\n---\n(.*?)\n---\n", re.M | re.S)


def _squash(text: str) -> str:
    return " ".join(text.split())


def _unwrapped(text: str) -> str:
    # pdftotext joins a line that ends in "-" with the next one and drops the "-"
    return re.sub(r"[\s↪␣-]", "", text)


def pdf_text(path: Path) -> str:
    """Text of the PDF, with code lines that LaTeX wrapped (marked ``↪``) joined again."""
    out = subprocess.run(["pdftotext", "-enc", "UTF-8", str(path), "-"], check=True,
                         capture_output=True, text=True).stdout
    out = out.translate(str.maketrans("‘’“”", "''\"\""))  # LaTeX typesets ' as ’
    return re.sub(r"\n\s*↪", "", out.replace("␣\n", " \n"))


def toc_documents(src: Path) -> list[Path]:
    """The source file of every document that ``_toc.yml`` names, in order."""
    toc = yaml.safe_load((src / "_toc.yml").read_text(encoding="utf-8"))
    names = [toc["root"]]

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                names.append(entry["file"])
            walk(entry.get("sections"))

    for part in toc.get("parts", []):
        walk(part.get("chapters"))
    walk(toc.get("chapters"))
    return [next(p for p in (src / f"{n}.md", src / f"{n}.ipynb") if p.exists()) for n in names]


def _body(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    return text.split("\n---\n", 1)[1] if text.startswith("---\n") else text


def title(path: Path) -> str:
    """The page's ``#`` heading as it reads in print (markup and math delimiters dropped)."""
    prose = CODE_CELL.sub("", _body(path))
    plain = re.sub(r"[*_`$]", "", HEADING.search(prose).group(1))
    return _squash(plain)


@pytest.fixture(scope="module")
def text() -> str:
    sources = [SRC / "_toc.yml", *toc_documents(SRC)]
    if PDF.stat().st_mtime < max(p.stat().st_mtime for p in sources):
        pytest.skip(f"{PDF} is older than its sources (run `make pdf` again)")
    return pdf_text(PDF)


def test_page_count_is_reported(text):
    """pdfinfo gives the page count (printed with -s); every page is a ``\\f`` in the text."""
    info = subprocess.run(["pdfinfo", str(PDF)], check=True, capture_output=True,
                          text=True).stdout
    pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    print(f"\n{PDF}: {pages} pages")
    assert pages >= len(toc_documents(SRC))
    assert text.count("\f") == pages


def test_every_page_of_the_toc_is_in_the_pdf(text):
    """Each heading of a document named in _toc.yml appears in the text of the PDF."""
    flat = _squash(text)
    missing = [f"{p.relative_to(SRC)}: {title(p)!r}" for p in toc_documents(SRC)
               if title(p) not in flat]
    assert not missing, "chapter titles not found in the PDF:\n" + "\n".join(missing)


def test_no_unresolved_reference(text):
    """LaTeX prints ?? for a reference it cannot resolve; its log names each one."""
    lines = [ln for ln in text.splitlines() if "??" in ln]
    assert not lines, "unresolved references in the PDF:\n" + "\n".join(lines[:20])
    log = PDF.with_suffix(".log")
    if log.is_file():
        undefined = re.findall(r"LaTeX Warning: (?:Hyper r|R)eference `([^']+)'",
                               log.read_text(encoding="utf-8", errors="replace"))
        assert not undefined, f"undefined references in {log.name}: {sorted(set(undefined))}"


def test_no_raw_math(text):
    """Every ``$`` or ``\\(`` in the PDF stands in a line of code shown by a code cell.

    Math that MyST did not parse would reach the page as ``$x$`` or ``\\(x\\)``; code
    legitimately contains both (matplotlib labels), so a line passes only when the code
    cells or inline code of the sources contain it.
    """
    code = set()
    for path in toc_documents(SRC):
        body = _body(path)
        code.add(_squash("\n".join(CODE_CELL.findall(body))))
        code.update(_squash(m) for m in INLINE_CODE.findall(body))
    # compared without blanks: LaTeX wraps long code lines (marked ↪ and ␣) anywhere
    code_text = "\n".join(_unwrapped(c) for c in code)
    raw = [ln for ln in text.splitlines()
           if re.search(r"\$|\\[(\[]", ln) and _unwrapped(ln) not in code_text]
    assert not raw, "math not typeset (or code not in the sources):\n" + "\n".join(raw[:20])


def test_every_figure_is_in_the_pdf(text):
    """Each figure named in a cell's mystnb metadata is a labelled float in book.tex."""
    tex = PDF.with_suffix(".tex")
    if not tex.is_file():
        pytest.skip(f"no {tex.name} next to the PDF")
    source = tex.read_text(encoding="utf-8")
    names = []
    for path in toc_documents(SRC):
        doc = path.relative_to(SRC).with_suffix("").as_posix()
        for meta in CELL_METADATA.findall(_body(path)):
            figure = ((yaml.safe_load(meta) or {}).get("mystnb") or {}).get("figure") or {}
            if "name" in figure:
                names.append((doc, figure["name"]))
    missing = [f"{d}:{n}" for d, n in names
               if f"\\label{{\\detokenize{{{d}:{n}}}}}" not in source]
    assert not missing, f"figures without their label in {tex.name}: {missing}"


@pytest.mark.skipif(not HIDDEN_PDF.is_file(), reason="no PDF without solutions "
                    "(run `make pdf SOLUTIONS=hide`)")
def test_pdf_without_solutions_has_none():
    """No line of any solution (taken from exercises/*.md) is in the solution-free PDF."""
    from test_hidden_site import fingerprints  # the solution lines the site test uses

    hidden = _squash(pdf_text(HIDDEN_PDF))
    assert "??" not in hidden, f"unresolved references in {HIDDEN_PDF}"
    prints = [fp for p in toc_documents(SRC) if p.parent.name == "exercises"
              for fp in fingerprints(p)]
    leaked = [fp for fp in prints if fp in hidden]
    assert not leaked, f"solution text in {HIDDEN_PDF}: {leaked[:10]}"
    shown = _squash(pdf_text(PDF))  # the check can fail: the full PDF holds solution lines
    assert sum(fp in shown for fp in prints) >= len(prints) // 2
