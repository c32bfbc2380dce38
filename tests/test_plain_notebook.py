"""The MyST -> plain Markdown converter behind the downloadable notebooks.

Each case is a small MyST cell and the Markdown a reader of the plain notebook
should see, written out by hand from what the website shows.
"""
from __future__ import annotations

import re

import nbformat
import plain_notebook as pn
import pytest
from _notebooks import ROOT, myst_notebooks, read


def _look(**kw):
    base = dict(
        glue={"gap": "0.0123456", "n_big": "3268760"},
        numbers={"thm-a": ("Theorem", "3.2"), "eq-a": ("", "3.4"), "fig-a": ("Figure", "3.1")},
        docs={"chapters/01_ridge": "Ridge regression"},
        targets={"thm-a": "chapters/03_x#thm-a"},
        cite=lambda key, textual: {True: "Hastie et al. (2009)", False: "Hastie et al., 2009",
                                   None: "Hastie, T. (2009). *ESL*."}[textual],
        docname="chapters/03_x",
    )
    base.update(kw)
    return pn.Lookups(**base)


@pytest.mark.parametrize("myst, plain", [
    ("The gap is {glue:text}`gap:.2e`.", "The gap is 1.23e-02."),
    ("D = {glue:text}`n_big:,d`.", "D = 3,268,760."),
    ("By {prf:ref}`thm-a` and {eq}`eq-a`.", "By Theorem 3.2 and (3.4)."),
    ("See {numref}`fig-a`.", "See Figure 3.1."),
    ("As in {doc}`../chapters/01_ridge`.", "As in *Ridge regression*."),
    ("A {index}`minimax\nrate` here.", "A minimax rate here."),
    ("Shown by {cite:t}`hastie2009`.", "Shown by Hastie et al. (2009)."),
    ("Known {cite}`hastie2009`.", "Known (Hastie et al., 2009)."),
    ("(sec-a)=\n## Title", "## Title"),
])
def test_roles_become_the_text_the_website_shows(myst, plain):
    assert pn.convert_markdown(myst, _look()) == plain


def test_theorem_box_becomes_numbered_bold_heading_and_quote():
    myst = ("```{prf:theorem} Push-through\n:label: thm-a\n\n"
            "For all $x$,\n\n$$\nx = x\n$$ (eq-a)\n```")
    plain = pn.convert_markdown(myst, _look())
    assert plain.splitlines()[0] == "> **Theorem 3.2** (Push-through)."
    assert "> For all $x$," in plain
    assert "\\tag{3.4}" in plain.splitlines() and "{prf:" not in plain and "(eq-a)" not in plain


def test_proof_ends_with_a_square_and_admonition_keeps_its_title():
    proof = pn.convert_markdown("```{prf:proof}\nObvious.\n```", _look())
    assert proof == "*Proof.*\nObvious. $\\square$"
    note = pn.convert_markdown(":::{admonition} Conventions\nWe use $\\sigma$.\n:::", _look())
    assert note == "> **Conventions**\n>\n> We use $\\sigma$."


def test_a_missing_glue_key_is_an_error_not_a_silent_blank():
    with pytest.raises(KeyError, match="no glued value"):
        pn.convert_markdown("{glue:text}`nope`", _look())


def test_notebook_conversion_drops_glue_outputs_collapses_pins_and_adds_captions():
    nb = nbformat.v4.new_notebook()
    code = nbformat.v4.new_code_cell("x = 1")
    code.metadata["mystnb"] = {"figure": {"caption": "What to see.", "name": "fig-a"}}
    code.outputs = [nbformat.v4.new_output(
        "display_data", data={"application/papermill.record/text/plain": "1"},
        metadata={"scrapbook": {"name": "gap", "mime_prefix": "application/papermill.record/"}})]
    pin = nbformat.v4.new_code_cell("stated('gap', x, 1);")
    pin.metadata["tags"] = ["hide-input"]
    nb.cells = [nbformat.v4.new_markdown_cell("# T"), code, pin]
    assert pn.glue_values(nb) == {"gap": "1"}
    out = pn.convert(nb, _look())
    assert [c.cell_type for c in out.cells] == ["markdown", "code", "markdown", "code"]
    assert out.cells[1].outputs == []
    assert out.cells[2].source == "**Figure 3.1.** What to see."
    assert out.cells[3].metadata["jupyter"]["source_hidden"] is True
    nbformat.validate(out)


# ------------------------------------------------------------ display math and citations
# JupyterLab, Notebook and VS Code take the math out of a Markdown cell before parsing the
# Markdown: a ">" in front of a line of a display equation shows up inside the formula.
QUOTE = re.compile(r"^\s*(?:>\s?)+")
# An accent command whose backslash was lost (St'ephane, Sch"olkopf, Mat'ern) sits inside a
# word; a French elision (d'une, l'espace) follows a one-letter word and is text.
BIBTEX_LEFTOVER = re.compile(r"\\|[{}]|[A-Za-z]{2}[\"'`^~=][aeiouAEIOU]|[A-Za-z]\"[a-z]")


def quoted_math_lines(markdown: str) -> list[str]:
    """Lines of ``markdown`` that put a ``>`` in front of display math (or inside it)."""
    bad, in_math, env = [], False, None
    for line in markdown.splitlines():
        quoted = QUOTE.match(line)
        body = line[quoted.end():] if quoted else line.strip()
        starts_math = body.startswith(("$$", "\\begin{", "\\tag"))
        if quoted and (in_math or env or starts_math):
            bad.append(line)
        if env:
            env = None if f"\\end{{{env}}}" in body else env
            continue
        m = re.match(r"\\begin\{([\w*]+)\}", body)
        if not in_math and m and f"\\end{{{m.group(1)}}}" not in body:
            env = m.group(1)
        if body.count("$$") % 2 == 1 and (in_math or body.lstrip().startswith("$$")):
            in_math = not in_math
        elif not in_math and body.lstrip().startswith("$$") and body.count("$$") == 1:
            in_math = True
    return bad


def test_display_math_in_a_box_is_outside_the_block_quote():
    myst = ("```{prf:theorem} Push-through\n:label: thm-a\n\nFor all $x$,\n\n$$\nx = x\n"
            "$$ (eq-a)\n\nand $y$.\n\n:::{note}\nNested\n\\begin{align}\na &= b\n\\end{align}\n"
            "after\n:::\n```")
    plain = pn.convert_markdown(myst, _look())
    assert quoted_math_lines(plain) == [], plain
    lines = plain.splitlines()
    assert lines[0] == "> **Theorem 3.2** (Push-through)."
    assert "\\tag{3.4}" in lines and "x = x" in lines and "a &= b" in lines
    assert "> and $y$." in lines and "> > after" in lines
    # a "greater than" at the start of a line of math is not read as a quote
    assert pn.convert_markdown("$$\nx\n> y\n$$", _look()) == "$$\nx\n{}> y\n$$"
    # the checker itself sees the old form
    assert quoted_math_lines("> For\n>\n> $$\n> x\n> $$") == ["> $$", "> x", "> $$"]


@pytest.mark.parametrize("bibtex, text", [
    ('Sch{\\"o}lkopf, Bernhard', "Schölkopf, Bernhard"),
    ("Canu, St{\\'e}phane", "Canu, Stéphane"),
    ("Mat{\\'e}rn, Bertil", "Matérn, Bertil"),
    ('mit unendlich vielen Ver{\\"a}nderlichen', "mit unendlich vielen Veränderlichen"),
    ("Sankhy{\\=a}: The Indian Journal", "Sankhyā: The Indian Journal"),
    ("Lata{\\l}a, Rafa{\\l} and Alpayd{\\i}n", "Latała, Rafał and Alpaydın"),
    ("On the {N}ystr{\\\"o}m Method, pages 1--10", "On the Nyström Method, pages 1–10"),
])
def test_bibtex_accents_become_unicode(bibtex, text):
    assert pn.bibtex_text(bibtex) == text


class _AnyGlue(dict):
    def __contains__(self, key):
        return True

    def __getitem__(self, key):
        return "0"


SOURCES = myst_notebooks("chapters", "exercises")


@pytest.fixture(scope="module")
def cite():
    return pn._citation_formatter([str(ROOT / "references.bib")])


@pytest.mark.parametrize("path", SOURCES, ids=[f"{p.parent.name}/{p.stem}" for p in SOURCES])
def test_every_page_converts_without_quoted_math_or_bibtex_escapes(path, cite):
    """Every Markdown cell of every chapter and sheet, converted as the build does."""
    look = _look(glue=_AnyGlue(), numbers={}, targets={}, cite=cite,
                 docname=f"{path.parent.name}/{path.stem}")
    nb = read(path)
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        plain = pn.convert_markdown(cell.source, look)
        assert quoted_math_lines(plain) == [], f"{path.name}: {plain[:300]}"
    for key in look.cited:
        for textual in (True, False, None):
            shown = cite(key, textual).replace("*", "")
            assert not BIBTEX_LEFTOVER.search(shown), f"{path.name}: {key}: {shown}"


BUILT = ROOT / "_build" / "html" / "_sources"


@pytest.mark.skipif(not BUILT.is_dir(), reason="no website build (run `make book` first)")
def test_built_plain_notebooks_have_no_quoted_math_or_bibtex_escapes():
    """The notebooks the site offers (and the zip holds): the same checks on the real output."""
    paths = sorted(BUILT.glob("chapters/*.ipynb")) + sorted(BUILT.glob("exercises/*.ipynb"))
    assert len(paths) >= len(SOURCES)
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type != "markdown":
                continue
            assert quoted_math_lines(cell.source) == [], f"{path.name}: {cell.source[:300]}"
            if cell.source.startswith("## References"):
                assert not BIBTEX_LEFTOVER.search(cell.source.replace("*", "")), path.name
            for cited in re.findall(r"\(([^()$]*?\d{4})\)", cell.source):
                assert not BIBTEX_LEFTOVER.search(cited), f"{path.name}: {cited}"


@pytest.mark.parametrize("text,leftover", [
    ("St'ephane Boucheron", True), ('Sch"olkopf', True), ("Mat'ern kernels", True),
    ("Stéphane, Schölkopf, Matérn", False), ("Sur la définition d'une classe, l'espace", False),
])
def test_bibtex_leftover_pattern(text, leftover):
    """Reference: hand-classified strings, lost accent commands against French elisions."""
    assert bool(BIBTEX_LEFTOVER.search(text)) is leftover
