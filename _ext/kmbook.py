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


def _hide_solutions(app, config) -> None:
    mode = os.environ.get("KMBOOK_SOLUTIONS", "show").strip().lower()
    if mode not in {"show", "hide"}:
        raise ValueError(f"KMBOOK_SOLUTIONS must be 'show' or 'hide'; got {mode!r}")
    config.hide_solutions = mode == "hide"


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
    app.connect("config-inited", _hide_solutions)
    # The theme builds its download menu at priority 501; run just before it.
    app.connect("html-page-context", _offer_ipynb, priority=500)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "0.1"}
