"""The MyST -> plain Markdown converter behind the downloadable notebooks.

Each case is a small MyST cell and the Markdown a reader of the plain notebook
should see, written out by hand from what the website shows.
"""
from __future__ import annotations

import nbformat
import plain_notebook as pn
import pytest


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
    assert "> \\tag{3.4}" in plain and "{prf:" not in plain and "(eq-a)" not in plain


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
