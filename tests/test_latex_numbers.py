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
import sys

import pytest
from _notebooks import ROOT

sys.path.insert(0, str(ROOT / "_latex"))
import kmlatex  # noqa: E402


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
    three = sorted(set(re.findall(rf"\b(?:{kinds})\s+\d+\.\d+\.\d+\b", text)))
    assert not three, f"numbered by section, unlike the website: {three[:10]}"
    assert re.search(r"\bTheorem\s+4\.2\b", text)
