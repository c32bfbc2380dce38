"""Each chapter's slide deck on the website, and the "Slides" link in the page header.

The decks are made by ``scripts/make_slides.py`` from the chapter pages the build has just
written (no notebook runs again), into ``_static/slides/NN_name.html`` of the site: a file
the site serves as it is, outside the book's pages (so the page checks, the search and
the navigation leave it alone). ``_templates/kmbook-launch.html`` shows the link from the
context value ``kmbook_slides_url``, set on a chapter page only when the deck will be
written: reveal.js is installed (``cd .ci/slides && npm ci``; ``make slides`` does it) and
the builder is found. Without reveal.js the site has no "Slides" link and no deck.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

SLIDES_DIR = "_static/slides"


def _builder(srcdir: Path):
    """``scripts/make_slides.py`` of the book (above ``srcdir``), loaded once; None if absent."""
    if "make_slides" in sys.modules:
        return sys.modules["make_slides"]
    for folder in (srcdir, *srcdir.parents):
        script = folder / "scripts" / "make_slides.py"
        if script.is_file():
            spec = importlib.util.spec_from_file_location("make_slides", script)
            module = importlib.util.module_from_spec(spec)
            sys.modules["make_slides"] = module
            spec.loader.exec_module(module)
            return module
    return None


def _available(app) -> bool:
    if app.builder.format != "html":
        return False
    if not hasattr(app, "_kmslides_module"):
        module = _builder(Path(app.srcdir))
        ok = module is not None and (module.REVEAL / "reveal.js").is_file()
        app._kmslides_module = module if ok else None
    return app._kmslides_module is not None


def _slides_link(app, pagename, templatename, context, doctree) -> None:
    context["kmbook_slides_url"] = ""
    if doctree is None or not pagename.startswith("chapters/") or not _available(app):
        return
    name = pagename.split("/", 1)[1]
    context["kmbook_slides_url"] = context["pathto"](f"{SLIDES_DIR}/{name}.html", 1)


def _write_decks(app, exception) -> None:
    if exception is not None or not _available(app):
        return
    module = app._kmslides_module
    html = Path(app.outdir)
    out = html / SLIDES_DIR
    script = Path(module.__file__).stat().st_mtime
    stale = []
    for page in sorted((html / "chapters").glob("*.html")):
        deck = out / page.name
        if not deck.is_file() or deck.stat().st_mtime < max(page.stat().st_mtime, script):
            stale.append(page.stem)
    if stale:
        # from _static/slides/ back to the site's root: links to proofs open the chapter page
        module.build(html, out, "../../", stale)


def setup(app):
    """Connect the "Slides" link and the decks to the HTML build."""
    app.connect("html-page-context", _slides_link)
    app.connect("build-finished", _write_decks)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "0.1"}
