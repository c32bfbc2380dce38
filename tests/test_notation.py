"""The notation page lists the symbols the book's chapters use.

A full symbol parser for LaTeX is out of reach, so the test checks two families that it can
extract reliably from every chapter in ``_toc.yml``: named operators written with
``\\operatorname{...}`` or ``\\mathrm{...}`` (Err, CV, MSE, df, ...) and Greek letters. Each must
occur in ``notation.md``. Reference: the chapter sources themselves.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
# pi is the constant, not a symbol of the book
GREEK = ("alpha beta gamma delta varepsilon epsilon zeta eta theta vartheta kappa lambda mu nu xi "
         "rho sigma tau phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Phi Psi "
         "Omega").split()
# words set upright that are labels, not symbols (superscripts such as OLS, R, CV)
LABELS = {"OLS", "R", "d", "e", "T", "tr", "val", "rm"}


def _toc_chapters() -> list[Path]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = [c["file"] for part in toc.get("parts", []) for c in part.get("chapters", [])]
    return [ROOT / f"{f}.md" for f in files if f.startswith("chapters/")]


def _math(text: str) -> str:
    """The LaTeX of a MyST page: $...$, $$...$$ and math directives (code cells dropped)."""
    text = re.sub(r"```\{code-cell\}.*?```", "", text, flags=re.S)
    return text


def _operators(tex: str) -> set[str]:
    names = set(re.findall(r"\\(?:operatorname|mathrm)\{([A-Za-z]{2,})\}", tex))
    return names - LABELS


def _greek(tex: str) -> set[str]:
    return {g for g in GREEK if re.search(rf"\\{g}(?![A-Za-z])", tex)}


NOTATION = (ROOT / "notation.md").read_text(encoding="utf-8")


def test_the_scan_finds_symbols():
    """Guard against a scan that silently finds nothing (which would make the next test vacuous)."""
    tex = _math((ROOT / "chapters" / "02_cross_validation.md").read_text(encoding="utf-8"))
    assert {"CV", "Err", "GCV"} <= _operators(tex)
    assert {"kappa", "lambda"} <= _greek(tex)


@pytest.mark.parametrize("path", _toc_chapters(), ids=lambda p: p.name)
def test_every_named_operator_and_greek_letter_is_listed(path):
    tex = _math(path.read_text(encoding="utf-8"))
    missing_ops = sorted(op for op in _operators(tex) if op not in NOTATION)
    missing_greek = sorted(g for g in _greek(tex) if not re.search(rf"\\{g}(?![A-Za-z])", NOTATION))
    assert not missing_ops, f"{path.name}: operators missing from notation.md: {missing_ops}"
    assert not missing_greek, (f"{path.name}: Greek letters missing from notation.md: "
                               f"{missing_greek}")


def test_notation_page_names_no_outside_sources():
    """The book stands alone: its notation page must not point readers to other course material."""
    lowered = NOTATION.lower()
    for phrase in ("lecture notes", "the notes", "the slides", "erratum", "syllabus"):
        assert phrase not in lowered, phrase
