"""One numbering for the PDF and the website (``_latex/kmlatex.py``).

On the website (``numfig_secnum_depth: 1``) a theorem is numbered chapter.n; in the PDF
sphinx-jupyterbook-latex sets depth 2, which numbered it chapter.section.n ("Theorem
4.5.1" for the website's Theorem 4.2). ``website_numbers`` renumbers the boxes as the
website does. The expected numbers below are counted by hand from the fake chapter.
"""
from __future__ import annotations

import re
import shutil
import subprocess

import kmlatex  # _latex/ is on the tests' pythonpath (pyproject.toml)
import pytest
from _notebooks import ROOT


def test_boxes_get_the_websites_numbers():
    # chapter 4: a definition before the first section, then sections 4.1, 4.3 and 4.5
    numbers = {
        "chapters/04_kernels": {
            "definition": {"def-pd": (4, 1), "def-k": (4, 1, 1)},
            "theorem": {"thm-closure": (4, 3, 1), "thm-gauss": (4, 5, 1), "thm-b": (4, 5, 2)},
            "figure": {"fig-a": (4, 2, 1)},  # numbered by LaTeX itself: left alone
        },
        "exercises/04_kernels": {"exercise": {"ex-a": (19,)}},  # unnumbered page
    }
    kmlatex.website_numbers(numbers, {"definition", "theorem"})
    chapter = numbers["chapters/04_kernels"]
    assert chapter["definition"] == {"def-pd": (4, 1), "def-k": (4, 2)}
    assert chapter["theorem"] == {"thm-closure": (4, 1), "thm-gauss": (4, 2), "thm-b": (4, 3)}
    assert chapter["figure"] == {"fig-a": (4, 2, 1)}
    assert numbers["exercises/04_kernels"] == {"exercise": {"ex-a": (19,)}}


def test_the_pdf_numbers_no_box_by_section():
    """In the built PDF no theorem-like box or reference carries a three-part number."""
    pdf = ROOT / "_build" / "latex" / "book.pdf"
    if not pdf.is_file() or shutil.which("pdftotext") is None:
        pytest.skip("no PDF (make pdf) or no pdftotext")
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout
    kinds = "Theorem|Definition|Lemma|Proposition|Corollary|Remark|Example|Algorithm"
    # a result of a cited book keeps its own number ("Rudin [53], Theorem 1.4.3")
    three = sorted(set(re.findall(rf"(?<!\], )\b(?:{kinds})\s+\d+\.\d+\.\d+\b", text)))
    assert not three, f"numbered by section, unlike the website: {three[:10]}"
    assert re.search(r"\bTheorem\s+4\.2\b", text)


def test_a_latex_build_numbers_boxes_and_references_as_the_website(tmp_path):
    """A two-page book built with Sphinx's LaTeX builder at depth 2 (as
    sphinx-jupyterbook-latex sets it): Theorem B, the second theorem of chapter 1, is
    "Theorem 1.2" in its box and in the reference to it, not 1.2.2 (section 1.2, first
    theorem there being 1.2.1)."""
    from sphinx.application import Sphinx

    (tmp_path / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(ROOT / '_latex')!r})\n"
        "extensions = ['myst_parser', 'kmlatex']\nnumfig = True\nnumfig_secnum_depth = 2\n"
        "latex_documents = [('index', 't.tex', 'T', 'A', 'manual')]\n")
    (tmp_path / "index.md").write_text("# Book\n\n```{toctree}\n:numbered:\nch\n```\n")
    (tmp_path / "ch.md").write_text(
        "# Chapter\n\n## First section\n\n```{prf:definition} Def A\n:label: def-a\nBody.\n```\n\n"
        "## Second section\n\n```{prf:theorem} Thm A\n:label: thm-a\nBody.\n```\n\n"
        "```{prf:theorem} Thm B\n:label: thm-b\nBody.\n```\n\n"
        "See {prf:ref}`thm-b` and {prf:ref}`def-a`.\n")
    app = Sphinx(str(tmp_path), str(tmp_path), str(tmp_path / "out"), str(tmp_path / "dt"),
                 "latex", status=None, warning=None, freshenv=True)
    app.build()
    tex = (tmp_path / "out" / "t.tex").read_text(encoding="utf-8")
    assert "Theorem 1.2" in tex and "Definition 1.1" in tex
    assert not re.search(r"(Theorem|Definition) 1\.\d\.\d", tex)
    assert r"\sphinxcrossref{Theorem 1.2}" in tex
