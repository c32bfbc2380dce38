"""LaTeX output of theorem boxes (sphinx-proof) and exercises for the PDF of the book.

sphinx-proof looks up the page a theorem box belongs to through a ``docname``
attribute that sphinx-jupyterbook-latex sets only on the sections of the root page.
For every other page it finds none, so in the PDF each box gets the label
``None:<label>`` (every ``{prf:ref}`` to it is a dead link) and an empty number
("Definition (Linear model)" while the text refers to "Definition 1.1.1").

The LaTeX writer itself knows the page it is writing (``curfilestack``), so the two
visitors below take the page from there: the box is numbered as on the website and
carries the label ``<page>:<label>`` that the cross-references point to. HTML output
is left to sphinx-proof.

sphinx-exercise labels a numbered exercise only ``exercise:<label>`` (what its own
``{numref}`` uses), while a ``{ref}`` from a chapter points at ``<page>:<label>`` and
prints "Exercise \\ref{...}". The exercise visitor below adds that label too, carrying
the exercise's number, so such a reference reads "Exercise 5" and links to the box.

A proof is set as text ending in a square (environment ``kmproof`` of kmbook.sty).

sphinx-jupyterbook-latex sets ``numfig_secnum_depth = 2`` for a book with parts, so that
LaTeX numbers equations and figures within chapters. Sphinx then numbers theorem boxes
within *sections* too: Theorem 4.2 of the website became Theorem 4.5.1 in the PDF (in the
box and in every reference to it). :func:`website_numbers` gives the theorem-like boxes
the website's numbers again (chapter, then the box's rank in the chapter), after Sphinx
has numbered them and before anything is written; equations and figures, numbered by
LaTeX itself, are left alone.

The page ``genindex`` only puts the generated index into the website's table of
contents; it has no text. In the PDF it would be an empty chapter "Index" (followed by
the bibliography, which LaTeX sets after the last chapter) before the real index that
LaTeX prints at the end. It is left out of the PDF; kmbook.sty puts its label on the
real index, so a link to it still leads there.
"""

from __future__ import annotations

from docutils import nodes
from sphinx import addnodes
from sphinx.locale import get_translation
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx_exercise.nodes import (
    depart_exercise_enumerable_node,
    exercise_enumerable_node,
    visit_exercise_enumerable_node,
)
from sphinx_proof.nodes import NODE_TYPES, proof_node, unenumerable_node

_ = get_translation("proof")

_START = "\n\\begin{sphinxadmonition}{note}"
_END = "\\end{sphinxadmonition}\n"


def _last_index(body: list[str], item: str) -> int:
    return len(body) - 1 - body[::-1].index(item)


def _visit(self, node) -> None:
    # \phantomsection\label{\detokenize{<page>:<label>}}: the target of {prf:ref}
    self.body.append("\n" + self.hypertarget(node["label"], withdoc=True, anchor=True))
    self.body.append(_START)


def _number(self, node, kind: str | None = None) -> str:
    page = self.curfilestack[-1]
    numbers = self.builder.env.toc_fignumbers.get(page, {})
    kind = node.get("type", "") if kind is None else kind
    return ".".join(map(str, numbers.get(kind, {}).get(node["ids"][0], ())))


def _depart_enumerable(self, node) -> None:
    title = _(node.get("type", "").title())
    # the box title follows the opening brace that comes right after _START
    self.body.insert(_last_index(self.body, _START) + 2, f"{title} {_number(self, node)}")
    self.body.append(_END)


def _depart_unenumerable(self, node) -> None:
    title = _(node.get("type", "").title())
    self.body.insert(_last_index(self.body, _START) + 2, title)
    self.body.append(_END)


def _visit_proof(self, node) -> None:
    # sphinx-proof wraps a proof in an untitled admonition, which LaTeX sets as a box
    # with an empty title bar; a proof reads as text ("Proof. ...") closed by a square
    self.body.append("\n\\begin{kmproof}\n")
    for child in node.children[0].children:
        child.walkabout(self)
    self.body.append("\\end{kmproof}\n")
    raise nodes.SkipNode


def _visit_exercise(self, node) -> None:
    # in a group: \ref to this label gives the exercise number, nothing else changes
    number = _number(self, node, "exercise")
    self.body.append("{\\phantomsection\\expandafter\\def\\csname @currentlabel\\endcsname"
                     f"{{{number}}}" + self.hypertarget(node["label"], anchor=False) + "}")
    visit_exercise_enumerable_node(self, node)


def website_numbers(toc_fignumbers: dict, kinds: set[str]) -> None:
    """Renumber the boxes of ``kinds`` in place as the website does: (chapter, rank).

    With depth 2 a box is numbered (chapter, section, n), or (chapter, n) before the first
    section; the rank follows that order. Pages without a chapter number keep theirs.
    """
    def order(number: tuple) -> tuple:
        return tuple(number) if len(number) > 2 else (number[0], 0, *number[1:])

    for ids_by_kind in toc_fignumbers.values():
        for kind, ids in ids_by_kind.items():
            if kind not in kinds or any(len(n) < 2 for n in ids.values()):
                continue
            ranked = sorted(ids.items(), key=lambda item: order(item[1]))
            for rank, (node_id, number) in enumerate(ranked, start=1):
                ids[node_id] = (number[0], rank)


def _website_numbers(app, env) -> list[str]:
    # after Sphinx's own numbering (TocTreeCollector, env-get-updated at priority 500)
    if app.builder.format == "latex" and app.config.numfig_secnum_depth > 1:
        website_numbers(env.toc_fignumbers, set(NODE_TYPES))
    return []


class DropIndexPage(SphinxPostTransform):
    """Leave the text-free page ``genindex`` out of the PDF (LaTeX prints the index)."""

    default_priority = 900
    formats = ("latex",)

    def run(self, **kwargs) -> None:
        """Remove the page from the doctree that the LaTeX writer assembles."""
        for page in list(self.document.findall(addnodes.start_of_file)):
            if page.get("docname") == "genindex":
                page.parent.remove(page)


def setup(app):
    """Register the LaTeX visitors and the transform (after sphinx-proof and sphinx-exercise)."""
    app.setup_extension("sphinx_proof")  # register after them, so these visitors win
    app.setup_extension("sphinx_exercise")
    app.add_node(exercise_enumerable_node, override=True,
                 latex=(_visit_exercise, depart_exercise_enumerable_node))
    app.add_post_transform(DropIndexPage)
    app.connect("env-get-updated", _website_numbers, priority=900)
    app.add_node(proof_node, override=True, latex=(_visit_proof, None))
    for node in set(NODE_TYPES.values()):  # theorem, lemma, definition, ...
        app.add_node(node, override=True, latex=(_visit, _depart_enumerable))
    app.add_node(unenumerable_node, override=True, latex=(_visit, _depart_unenumerable))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
