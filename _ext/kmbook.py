"""Local Sphinx extension for the book.

* Offers each executed notebook page as an ``.ipynb`` download: the executed
  notebook from ``_build/jupyter_execute`` is copied into ``_sources`` and the
  theme's download menu is told about it (sphinx-book-theme only does this
  itself when a launch button is configured, and this book launches nothing).
* ``KMBOOK_SOLUTIONS=hide`` (``make book SOLUTIONS=hide``) builds the site with
  every exercise solution removed, for publishing while a course runs.
"""
from __future__ import annotations

import os
from pathlib import Path

from docutils import nodes
from sphinx.transforms import SphinxTransform


def _solutions_mode(app, config) -> None:
    mode = os.environ.get("KMBOOK_SOLUTIONS", "show").strip().lower()
    if mode not in {"show", "hide"}:
        raise ValueError(f"KMBOOK_SOLUTIONS must be 'show' or 'hide'; got {mode!r}")
    # a config value (rebuild="env"): switching modes re-reads every page
    config.kmbook_solutions = mode


class RemoveSolutions(SphinxTransform):
    """Drop every exercise solution from the doctree when solutions are hidden.

    Runs after sphinx-exercise has checked the gated ``solution-start`` /
    ``solution-end`` structure and before it merges the pairs, and removes each
    pair with everything between them (prose and code cells), any plain
    ``{solution}`` directive, code cells tagged ``solution``, and the outputs of
    cells tagged ``check`` (they were computed from the solutions).
    (sphinx-exercise's own ``hide_solutions`` drops only the start of a gated
    pair and then fails on the orphaned end.)
    """

    default_priority = 5

    def apply(self) -> None:
        if self.config.kmbook_solutions != "hide":
            return
        from sphinx_exercise.nodes import solution_end_node, solution_node, solution_start_node

        for start in list(self.document.findall(solution_start_node)):
            parent = start.parent
            if parent is None:
                continue
            i = parent.index(start)
            j = i
            while j < len(parent.children) and not isinstance(parent[j], solution_end_node):
                j += 1
            del parent[i:j + 1]
        for node in list(self.document.findall(solution_node)):
            node.parent.remove(node)
        for node in list(self.document.findall(nodes.container)):
            classes = node.get("classes", [])
            if "tag_solution" in classes and node.parent is not None:
                node.parent.remove(node)
            elif "tag_check" in classes:
                # the check ran against the solution: its output would give the answer away
                for child in list(node.children):
                    if "cell_output" in child.get("classes", []):
                        node.remove(child)


def _with_cached_outputs(app, path: Path):
    """The notebook at ``path`` with its outputs.

    On a cache hit myst-nb writes ``jupyter_execute/<page>.ipynb`` without outputs
    (the outputs are merged into a copy), so fill them in from the execution cache.
    """
    import nbformat

    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    if not code or any(c.get("outputs") for c in code):
        return nb
    cache_dir = app.config.nb_execution_cache_path or str(Path(app.outdir).parent / ".jupyter_cache")
    try:
        from jupyter_cache import get_cache

        _, nb = get_cache(cache_dir).merge_match_into_notebook(nb)
    except Exception as exc:  # noqa: BLE001 - report and keep the unexecuted copy
        from sphinx.util import logging

        logging.getLogger(__name__).warning(f"no cached outputs for {path.name}: {exc}")
    return nb


def _offer_ipynb(app, pagename, templatename, context, doctree) -> None:
    if doctree is None or app.builder.format != "html":
        return
    executed = Path(app.outdir).parent / "jupyter_execute" / f"{pagename}.ipynb"
    if not executed.is_file():
        return
    import nbformat

    target = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(_with_cached_outputs(app, executed), target)
    context["ipynb_source"] = f"{pagename}.ipynb"


def setup(app):
    app.add_config_value("kmbook_solutions", "show", "env")
    app.connect("config-inited", _solutions_mode)
    app.add_transform(RemoveSolutions)
    # The theme builds its download menu at priority 501; run just before it.
    app.connect("html-page-context", _offer_ipynb, priority=500)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "0.1"}
