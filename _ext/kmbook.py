"""Local Sphinx extension for the book.

* Every executed page offers a *plain* Jupyter notebook for download (the
  ``.ipynb`` entry of the theme's download menu): MyST directives and roles are
  rewritten as ordinary Markdown with the built numbers (see
  :mod:`plain_notebook`), so it reads well in JupyterLab, Notebook, VS Code or
  Colab without extensions. Exercise pages offer the student version (solutions
  removed, see ``scripts/make_exercises.py``); the plain solution version of each
  sheet is written next to the output folder, into ``exercises-solutions/`` (not
  published), for ``make exercises``.
* When the build finishes, ``downloads/`` in the output folder holds the kmlib
  wheel, a ``requirements.txt`` and ``kmbook-notebooks.zip`` (every plain
  notebook, the wheel and the requirements), which the page "Run the notebooks
  on your computer" links to.
* The download menu's ".pdf" entry (the browser's print dialog) is removed.
* Every page's footer (``_templates/kmbook-footer.html``, a theme footer component)
  shows the book's version and build date, the book's PDF with its size when
  ``make pdf`` has built it (copied into ``downloads/``), and, when ``_config.yml``
  names the book's repository (``repository: url:``), a link to it for questions and
  corrections; the article header (``_templates/kmbook-launch.html``) then offers
  Colab and Binder launch links to the page's plain notebook on the published site,
  whose first cell installs kmlib from the site's wheel.

The site without solutions is not made here: ``scripts/hidden_site.py`` builds it
from a copy of the book whose exercise pages are the student versions, so no
solution reaches any file of that site.
"""
from __future__ import annotations

import copy
import hashlib
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import plain_notebook  # _ext/ is on sys.path: a local extension folder (and the tests' pythonpath)

NOTEBOOKS_ZIP = "kmbook-notebooks.zip"


def _project_root(srcdir: Path) -> Path:
    """The folder with kmlib's ``pyproject.toml`` (the book's root, or above a copy of it)."""
    for folder in (srcdir, *srcdir.parents):
        if (folder / "pyproject.toml").is_file() and (folder / "kmlib").is_dir():
            return folder
    raise FileNotFoundError(f"no pyproject.toml with kmlib above {srcdir}")


def _with_cached_outputs(app, path: Path):
    """The executed notebook of a page, with every output (glue outputs included).

    myst-nb writes ``jupyter_execute/<page>.ipynb`` without the glue outputs (it
    moves them into the page) and, on a cache hit, without any output; the
    execution cache holds the complete outputs, so take them from there.
    """
    import nbformat

    nb = nbformat.read(path, as_version=4)
    if not any(c.cell_type == "code" for c in nb.cells):
        return nb
    cache_dir = (app.config.nb_execution_cache_path
                 or str(Path(app.outdir).parent / ".jupyter_cache"))
    try:
        from jupyter_cache import get_cache

        _, nb = get_cache(cache_dir).merge_match_into_notebook(nb)
    except KeyError:
        pass  # a page that is not executed (exercise pages of the solution-free site)
    except Exception as exc:  # noqa: BLE001 - report and keep the copy without glue
        from sphinx.util import logging

        logging.getLogger(__name__).warning(f"no cached outputs for {path.name}: {exc}")
    return nb


def _make_exercises(scripts: Path):
    """Return the student-version generator, loaded once from its file.

    ``scripts/make_exercises.py`` is loaded without putting ``scripts/`` on ``sys.path``.
    """
    import importlib.util

    if "make_exercises" in sys.modules:
        return sys.modules["make_exercises"]
    spec = importlib.util.spec_from_file_location("make_exercises", scripts / "make_exercises.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_exercises"] = module
    spec.loader.exec_module(module)
    return module


def _student(app, nb, sheet: str):
    make_exercises = _make_exercises(_project_root(Path(app.srcdir)) / "scripts")
    out = make_exercises.student_version(nb, sheet)
    for cell in out.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return out


def _offer_ipynb(app, pagename, templatename, context, doctree) -> None:
    if doctree is None or app.builder.format != "html":
        return
    executed = Path(app.outdir).parent / "jupyter_execute" / f"{pagename}.ipynb"
    if not executed.is_file():
        return
    import nbformat

    nb = _with_cached_outputs(app, executed)
    glue = plain_notebook.glue_values(nb)
    if pagename.startswith("exercises/"):
        sheet = Path(pagename).name
        solutions = copy.deepcopy(nb)
        solutions.metadata["kmbook"] = {"sheet": sheet, "version": "solutions"}
        plain = plain_notebook.convert(solutions,
                                       plain_notebook.lookups_from_env(app, pagename, glue))
        target = Path(app.outdir).parent / "exercises-solutions" / f"{sheet}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(plain, target)
        nb = _student(app, nb, sheet)
    plain = plain_notebook.convert(nb, plain_notebook.lookups_from_env(app, pagename, glue))
    if app.config.kmbook_site_url:
        plain.cells.insert(0, install_cell(app.config.kmbook_site_url, app.config.kmbook_version))
    target = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(plain, target)
    context["ipynb_source"] = f"{pagename}.ipynb"


def _drop_print_button(app, pagename, templatename, context, doctree) -> None:
    """Remove the ".pdf" entry (it only opens the browser's print dialog)."""
    for group in context.get("header_buttons", []) or []:
        if group.get("label") == "download-buttons":
            group["buttons"] = [b for b in group["buttons"]
                                if b.get("label") != "download-pdf-button"]


# Two accessibility faults of the page body come from the HTML visitors of the book's
# packages, which write them as fixed text (no node attribute or option controls them).
# The book registers its own visitor for those two nodes (Sphinx's app.add_node with
# override=True): each is the package's visitor with the one fix, and
# tests/test_site.py::test_theme_hooks_still_hold fails when a package upgrade changes the
# package's visitor. Both fixes belong upstream, in myst-nb and in docutils.
MYST_NB_SUMMARY = '<summary aria-label="Toggle hidden content">'
DOCUTILS_BIBLIOENTRY = 'role="doc-biblioentry"'


def _visit_hide_input(self, node) -> None:
    """myst-nb's "Show code cell source" toggle, without its ``aria-label``.

    myst-nb (``sphinx_.py``, visit_HideCellInput) labels the toggle "Toggle hidden
    content", a name that does not contain its visible text (axe
    label-content-name-mismatch); the visible text names it.
    """
    from html import escape

    classes = " ".join(node["classes"])
    self.body.append(f'<details class="admonition hide {classes}">\n')
    self.body.append("<summary>\n")
    self.body.append(f'<p class="collapsed admonition-title">{escape(node["prompt_show"])}</p>\n')
    self.body.append(f'<p class="expanded admonition-title">{escape(node["prompt_hide"])}</p>\n')
    self.body.append("</summary>\n")


def _visit_citation(self, node) -> None:
    """A bibliography entry as a list item of its list.

    docutils (``_html_base.py``, visit_citation) marks it ``role="doc-biblioentry"``,
    deprecated in DPUB-ARIA 1.1 (axe aria-deprecated-role), inside a ``role="list"``.
    """
    if not isinstance(node.previous_sibling(), type(node)):
        self.body.append('<div role="list" class="citation-list">\n')
    self.body.append(self.starttag(node, "div", classes=[node.tagname], role="listitem"))


def _accessible_visitors(app) -> None:
    from docutils import nodes
    from myst_nb.sphinx_ import HideCodeCellNode, depart_HideCellInput
    from sphinx.writers.html5 import HTML5Translator

    app.add_node(HideCodeCellNode, override=True, html=(_visit_hide_input, depart_HideCellInput))
    app.add_node(nodes.citation, override=True,
                 html=(_visit_citation, HTML5Translator.depart_citation))


def _unique_proof_ids(app, doctree) -> None:
    """Give each unlabelled proof its own id (``proof-1``, ``proof-2``, ...).

    sphinx-proof gives every one the id ``proof``, so a chapter repeats one id (axe
    duplicate-id).
    """
    from docutils import nodes

    count = 0
    for node in doctree.findall(nodes.admonition):
        if "proof" in node["classes"] and node["ids"] == ["proof"]:
            count += 1
            node["ids"] = [f"proof-{count}"]


def _exercise_numbers_per_sheet(app, env) -> list[str]:
    """Number exercises per sheet: Exercise 4.1 ... 4.6 on sheet ``exercises/04_*``.

    sphinx-exercise numbers exercises through the whole book (sheet 4 would hold
    Exercises 19-24), because the exercise sheets are not a numbered part of the table
    of contents. Once Sphinx has assigned the numbers, each sheet's exercises get its
    sheet number and their order on the sheet. The website, the references to them, the
    plain notebooks and the PDF all read the numbers from here.
    """
    import re

    final: dict[str, dict[str, tuple[int, int]]] = {}
    for doc, by_type in env.toc_fignumbers.items():
        sheet = re.match(r"^exercises/(\d+)_", doc)
        exercises = by_type.get("exercise") if sheet else None
        if not exercises:
            continue
        order = sorted(exercises, key=lambda node_id: exercises[node_id])
        for k, node_id in enumerate(order, start=1):
            exercises[node_id] = (int(sheet.group(1)), k)
        final[doc] = dict(exercises)
    # Sphinx numbers the exercises afresh on every build, so it sees the sheets' numbers
    # change and writes them again; when the numbers themselves changed, every page is
    # written again (chapters refer to exercises by number)
    if getattr(env, "kmbook_exercise_numbers", None) != final:
        env.kmbook_exercise_numbers = final
        return sorted(env.found_docs)
    return []


def _drop_thebe(app, pagename, templatename, context, doctree) -> None:
    """The book launches no live kernels: drop sphinx-thebe's scripts.

    Jupyter Book always loads sphinx-thebe, whose inline configuration script is
    added twice and makes the browser report "Identifier 'THEBE_JS_URL' has
    already been declared" on every page.
    """
    scripts = context.get("script_files")
    if not scripts:
        return

    def is_thebe(script) -> bool:
        body = (getattr(script, "attributes", None) or {}).get("body", "") or ""
        name = str(getattr(script, "filename", script) or "")
        return "THEBE_JS_URL" in body or "sphinx-thebe" in name

    context["script_files"] = [s for s in scripts if not is_thebe(s)]


# Scripts that must run where they stand: the inline page script after them reads
# DOCUMENTATION_OPTIONS, and the search page's index script calls Search at once.
_SYNC_SCRIPTS = ("documentation_options.js", "searchtools.js", "language_data.js")


def _defer_scripts(app, pagename, templatename, context, doctree) -> None:
    """Load the theme's and extensions' scripts with ``defer`` (Sphinx's script attributes).

    Sphinx writes them into <head> without ``defer``, so the browser stops reading the
    page until each has arrived: on a phone's connection that delays the first paint by
    several round trips. Each of them sets itself up when the document is ready (deferred
    scripts still run in order, before DOMContentLoaded) and the inline settings before
    them stay where they are.
    """
    from sphinx.builders.html._assets import _JavaScript

    scripts = context.get("script_files")
    # the search page's searchtools.js runs at once and needs doctools.js before it
    if not scripts or pagename == "search":
        return
    out = []
    for script in scripts:
        name = str(getattr(script, "filename", script) or "")
        attributes = dict(getattr(script, "attributes", None) or {})
        if (name and not name.endswith(_SYNC_SCRIPTS) and "://" not in name
                and "defer" not in attributes and "async" not in attributes
                and not attributes.get("body")):
            attributes["defer"] = "defer"
            script = _JavaScript(name, priority=getattr(script, "priority", 500), **attributes)
        out.append(script)
    context["script_files"] = out


def _lazy_images(app, doctree, docname) -> None:
    """Images load when they come near the screen (docutils' ``loading`` attribute).

    A chapter has five to ten figures; loaded at once they share a phone's bandwidth
    with the text's stylesheets and delay its first paint.
    """
    from docutils import nodes

    for image in doctree.findall(nodes.image):
        image.setdefault("loading", "lazy")


def _kmlib_digest(root: Path) -> str:
    h = hashlib.sha256()
    for path in sorted((root / "kmlib").rglob("*.py")) + [root / "pyproject.toml"]:
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _wheel(root: Path, cache: Path) -> Path:
    """Return kmlib's wheel, rebuilt only when kmlib or pyproject.toml changed."""
    folder = cache / _kmlib_digest(root)
    wheels = sorted(folder.glob("kmlib-*.whl"))
    if not wheels:
        if cache.exists():
            shutil.rmtree(cache)
        folder.mkdir(parents=True)
        had_build = (root / "build").exists()
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
                        "--disable-pip-version-check", "-w", str(folder), str(root)],
                       check=True, stdout=subprocess.DEVNULL)
        if not had_build:  # setuptools' scratch folder, not one of the project's own
            shutil.rmtree(root / "build", ignore_errors=True)
        wheels = sorted(folder.glob("kmlib-*.whl"))
    return wheels[-1]


def _requirement_name(spec: str) -> str:
    import re

    return re.split(r"[\s\[<>=!~;@]", spec.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _requirements(root: Path, wheel: Path) -> str:
    """``requirements.txt`` of the downloads: kmlib from the wheel next to it, then its packages.

    pip reads a ``--find-links`` folder of a requirements file relative to that file, so
    ``pip install -r some/where/requirements.txt`` works from any folder (a path to the
    wheel itself would be read relative to the current folder). The packages kmlib and its
    ``notebooks`` extra need are listed once each, for the reader; pip takes the same
    ones from the wheel's metadata.
    """
    try:
        import tomllib
    except ImportError:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    version = wheel.name.split("-")[1]
    lines = ["# Everything the notebooks need: kmlib from the wheel in this folder (pip looks",
             "# for it in the folder of this file, whatever the current folder is) and the",
             "# packages of its 'notebooks' extra.",
             "--find-links .",
             f"kmlib[notebooks]=={version}"]
    seen = {"kmlib"}
    for spec in project.get("dependencies", []) + project["optional-dependencies"]["notebooks"]:
        name = _requirement_name(spec)
        if name not in seen:
            seen.add(name)
            lines.append(spec)
    return "\n".join(lines) + "\n"


TEX_WORDS = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ",
    "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ",
    "tau": "τ", "upsilon": "υ", "phi": "φ", "varphi": "φ", "chi": "χ", "psi": "ψ",
    "omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ",
    "Pi": "Π", "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
    "sum": "∑", "prod": "∏", "int": "∫", "infty": "∞", "partial": "∂", "nabla": "∇",
    "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "ne": "≠", "neq": "≠", "approx": "≈",
    "sim": "∼", "simeq": "≃", "equiv": "≡", "propto": "∝", "ll": "≪", "gg": "≫",
    "in": "∈", "notin": "∉", "subset": "⊂", "subseteq": "⊆", "cup": "∪", "cap": "∩",
    "emptyset": "∅", "forall": "∀", "exists": "∃", "to": "→", "mapsto": "↦",
    "rightarrow": "→", "Rightarrow": "⇒", "iff": "⇔", "leftarrow": "←", "times": "×",
    "cdot": "·", "cdots": "⋯", "ldots": "…", "dots": "…", "pm": "±", "circ": "∘",
    "otimes": "⊗", "oplus": "⊕", "langle": "⟨", "rangle": "⟩", "|": "‖", "Vert": "‖",
    "lVert": "‖", "rVert": "‖", "vert": "|", "lvert": "|", "rvert": "|", "succ": "≻",
    "succeq": "⪰", "preceq": "⪯", "top": "ᵀ", "prime": "′", "ell": "ℓ", "star": "⋆",
    "sqrt": "√", "min": "min", "max": "max", "sup": "sup", "inf": "inf", "log": "log",
    "exp": "exp", "det": "det", "tr": "tr", "operatorname": "", "mathrm": "", "text": "",
    "textrm": "", "mathbf": "", "boldsymbol": "", "mathcal": "", "mathbb": "", "hat": "",
    "tilde": "", "bar": "", "widehat": "", "widetilde": "", "overline": "", "frac": "",
    "tfrac": "", "dfrac": "", "left": "", "right": "", "big": "", "Big": "", "bigg": "",
    "Bigg": "", "quad": " ", "qquad": " ", ",": " ", ";": " ", "!": "", " ": " ",
}
DOUBLE_STRUCK = {"R": "ℝ", "N": "ℕ", "Z": "ℤ", "Q": "ℚ", "C": "ℂ", "E": "𝔼", "P": "ℙ"}


def tex_to_text(tex: str) -> str:
    """A formula as readable text for search excerpts: ``\\lambda\\|f\\|`` -> ``λ‖f‖``."""
    import re

    text = re.sub(r"\\mathbb\s*\{?\s*([A-Z])\}?",
                  lambda m: DOUBLE_STRUCK.get(m.group(1), m.group(1)), tex)
    # matrices and aligned equations: ( a b ; c d ), lines joined by "; "
    text = re.sub(r"\\begin\{[pbvBV]?matrix\}", "(", text)
    text = re.sub(r"\\end\{[pbvBV]?matrix\}", ")", text)
    text = re.sub(r"\\(begin|end)\{[A-Za-z*]+\}(\{[^{}]*\})?", " ", text)
    text = text.replace("\\\\", "; ")
    text = re.sub(r"\^\s*\{?\\top\}?", "ᵀ", text)
    text = re.sub(r"\\([A-Za-z]+|[|,;! ])",
                  lambda m: TEX_WORDS.get(m.group(1), m.group(1)), text)
    text = re.sub(r"\\(.)", r"\1", text)           # \{ \} \_ and the like
    text = text.replace("{", "").replace("}", "").replace("&", " ")
    text = re.sub(r"([_^])\s+", r"\1", text)       # x_ H -> x_H
    return " ".join(text.split())


def _page_text(doctree) -> str:
    from docutils import nodes

    parts: list[str] = []

    def walk(node) -> None:
        if isinstance(node, (nodes.math, nodes.math_block)):
            parts.append(" " + tex_to_text(node.astext()) + " ")
        elif isinstance(node, nodes.Text):
            parts.append(str(node))
        elif isinstance(node, (nodes.comment, nodes.raw, nodes.system_message,
                               nodes.substitution_definition, nodes.target,
                               nodes.literal_block)):
            return  # code is not an excerpt: the text around it is
        else:
            block = not isinstance(node, nodes.Inline)
            if block:
                parts.append(" ")
            for child in node.children:
                walk(child)
            if block:
                parts.append(" ")

    walk(doctree)
    return " ".join("".join(parts).split())


def _search_text_folder(app) -> Path:
    return Path(app.outdir).parent / ".kmbook-search-text"


def _collect_search_text(app, doctree, docname) -> None:
    """A written page's text, its cross-references resolved ("Figure 4.2", not a label).

    Kept next to the output folder, one file per page, so that a later build that writes
    only some pages still has every page's text.
    """
    if app.builder.format != "html":
        return
    folder = _search_text_folder(app)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / (docname.replace("/", "__") + ".txt")).write_text(_page_text(doctree),
                                                                encoding="utf-8")


def _write_search_text(app) -> None:
    """``_static/kmbook-search-text.js``: every page's text for the search excerpts."""
    import json

    texts = {}
    folder = _search_text_folder(app)
    for doc in sorted(app.env.found_docs):
        saved = folder / (doc.replace("/", "__") + ".txt")
        if saved.is_file():
            texts[doc] = saved.read_text(encoding="utf-8")
            continue
        try:  # a page written before the text was kept: its unresolved text
            texts[doc] = _page_text(app.env.get_doctree(doc))
        except FileNotFoundError:  # a page Sphinx did not write
            continue
    target = Path(app.outdir) / "_static" / "kmbook-search-text.js"
    target.write_text("window.KMBOOK_SEARCH_TEXT = " + json.dumps(texts, ensure_ascii=False)
                      + ";\n", encoding="utf-8")


def _write_downloads(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    _write_search_text(app)
    # browsers ask for /favicon.ico on pages without an icon link (the index redirect)
    icon = Path(app.srcdir) / "_static" / "favicon.ico"
    if icon.is_file():
        shutil.copy2(icon, Path(app.outdir) / "favicon.ico")
    root = _project_root(Path(app.srcdir))
    out = Path(app.outdir) / "downloads"
    out.mkdir(parents=True, exist_ok=True)
    wheel = _wheel(root, Path(app.outdir).parent / "wheel-cache")
    shutil.copy2(wheel, out / wheel.name)
    requirements = _requirements(root, wheel)
    (out / "requirements.txt").write_text(requirements, encoding="utf-8")
    sources = Path(app.outdir) / "_sources"
    notebooks = sorted(sources.glob("chapters/*.ipynb")) + sorted(sources.glob("exercises/*.ipynb"))
    with zipfile.ZipFile(out / NOTEBOOKS_ZIP, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in notebooks:
            zf.write(path, f"kmbook-notebooks/{path.relative_to(sources)}")
        zf.write(wheel, f"kmbook-notebooks/{wheel.name}")
        zf.writestr("kmbook-notebooks/requirements.txt", requirements)
        zf.writestr("kmbook-notebooks/README.txt", NOTEBOOKS_README)
    pdf = _pdf_source(app)
    if pdf.is_file() and app.config.kmbook_pdf_size:
        shutil.copy2(pdf, out / PDF_NAME)


# ------------------------------------------------------------------ search
def _fold(word: str) -> str:
    """A word without accents: "Nyström" -> "Nystrom"."""
    import unicodedata

    return "".join(c for c in unicodedata.normalize("NFKD", word)
                   if not unicodedata.combining(c))


def _search_language():
    """English search with accents folded, in the index and in the query alike.

    Registered with ``app.add_search_language`` for "en": the index stores "nystrom"
    for "Nyström", and the page's stemmer (``js_stemmer_code``, Sphinx's Porter stemmer
    wrapped) folds the reader's query the same way, so "Nystrom" finds what "Nyström"
    finds.
    """
    from sphinx.search.en import SearchEnglish

    class SearchEnglishFolded(SearchEnglish):
        js_stemmer_code = SearchEnglish.js_stemmer_code + """
const KmbookPorterStemmer = Stemmer;
Stemmer = function() {
  const porter = new KmbookPorterStemmer();
  this.stemWord = (word) => porter.stemWord(
    word.normalize("NFKD").replace(/[\\u0300-\\u036f]/g, ""));
};
"""

        def stem(self, word: str) -> str:
            return super().stem(_fold(word))

    return SearchEnglishFolded


# ------------------------------------------------------------------ formulas
# The book's formulas are rendered when the site is built, as MathML, which every current
# browser lays out itself: a page carries no math JavaScript and no math web font, a
# formula is never a keyboard stop, and screen readers read it as mathematics. A Sphinx
# math renderer (app.add_html_math_renderer, config html_math_renderer) does it.
_PRIMES = None
_RELATIONS = {"=", "<", ">", "\u2264", "\u2265", "\u2248", "\u2260", "\u2208", "\u2192",
              "\u21a6", "\u227c", "\u227d", "\u2aaf", "\u2ab0", "\u2261", "\u221d",
              "\u2272", "\u2273", "\u226a", "\u226b", "\u2286", "\u2282", "\u21d2", "\u27f9",
              "\u2254", "\u223c", "\u2243", "\u2245", "\u225c"}


_BREAK_AFTER = {"+", "\u2212", "-", ",", "\u00b1"}


def tex_to_mathml(tex: str, display: bool) -> str:
    """MathML of a TeX formula (latex2mathml), with two TeX idioms it does not read."""
    import re

    from latex2mathml.converter import convert

    global _PRIMES
    if _PRIMES is None:
        _PRIMES = re.compile(r"('+)\^(\{[^{}]*\}|\\[A-Za-z]+|[^\s{}\\])")
    # f''^2: primes and a power on one base (a double superscript to latex2mathml)
    tex = _PRIMES.sub(lambda m: "^{" + "\\prime" * len(m.group(1)) + " "
                      + m.group(2).strip("{}") + "}", tex)
    # \mathbb E: an unbraced argument; \mathrm{d}: upright letters
    tex = re.sub(r"\\(mathbb|mathcal|mathbf|mathfrak|mathsf|boldsymbol)\s*([A-Za-z0-9])",
                 r"\\\1{\2}", tex)
    tex = re.sub(r"\\(?:mathrm|rm)\s*\{([A-Za-z]+)\}", r"\\text{\1}", tex)
    # aligned: an array of right- and left-aligned columns (latex2mathml reads array)
    tex = re.sub(r"\\begin\{aligned\}(.*?)\\end\{aligned\}", _aligned_as_array, tex,
                 flags=re.S)
    # \arg: a function name latex2mathml does not know
    tex = re.sub(r"\\arg(?![A-Za-z])", r"\\operatorname{arg}", tex)
    mathml = convert(tex, display="block" if display else "inline")
    # a sized delimiter (\big\langle) keeps its command name as text
    mathml = mathml.replace(">\\langle<", ">&#x027E8;<").replace(">\\rangle<", ">&#x027E9;<")
    left = re.search(r">(\\[A-Za-z]+)<", mathml)
    if left:  # a command still shown as its name: the strict build fails on the warning
        raise ValueError(f"TeX command {left.group(1)} left as text")
    # browsers draw mathvariant="normal" only: other variants become the Unicode
    # mathematical letters
    return re.sub(r'<mi mathvariant="([a-z-]+)">([^<]*)</mi>',
                  lambda m: _styled(m.group(2), m.group(1)), mathml)


def _aligned_as_array(match) -> str:
    rows = match.group(1).split("\\\\")
    columns = max(row.count("&") for row in rows) + 1
    spec = ("rl" * columns)[:columns]
    body = "\\\\".join(row.replace("&", "&{}") for row in rows)
    return "\\begin{array}{" + spec + "}" + body + "\\end{array}"


_STYLE_BASES = {  # variant: (A, a, Alpha, alpha) code points of the Unicode math letters
    "bold": (0x1D400, 0x1D41A, 0x1D6A8, 0x1D6C2),
    "italic": (0x1D434, 0x1D44E, 0x1D6E2, 0x1D6FC),
    "bold-italic": (0x1D468, 0x1D482, 0x1D71C, 0x1D736),
    "double-struck": (0x1D538, 0x1D552, None, None),
    "script": (0x1D49C, 0x1D4B6, None, None),
    "fraktur": (0x1D504, 0x1D51E, None, None),
    "sans-serif": (0x1D5A0, 0x1D5BA, None, None),
}
_STYLE_HOLES = {  # letters that Unicode keeps in its older blocks
    ("double-struck", "C"): "ℂ", ("double-struck", "H"): "ℍ", ("double-struck", "N"): "ℕ",
    ("double-struck", "P"): "ℙ", ("double-struck", "Q"): "ℚ", ("double-struck", "R"): "ℝ",
    ("double-struck", "Z"): "ℤ", ("script", "B"): "ℬ", ("script", "E"): "ℰ",
    ("script", "F"): "ℱ", ("script", "H"): "ℋ", ("script", "I"): "ℐ", ("script", "L"): "ℒ",
    ("script", "M"): "ℳ", ("script", "R"): "ℛ", ("script", "e"): "ℯ", ("script", "g"): "ℊ",
    ("script", "o"): "ℴ", ("fraktur", "C"): "ℭ", ("fraktur", "H"): "ℌ", ("fraktur", "I"): "ℑ",
    ("fraktur", "R"): "ℜ", ("fraktur", "Z"): "ℨ", ("italic", "h"): "ℎ",
}


def _styled(text: str, variant: str) -> str:
    """``<mi>`` of ``text`` in a mathvariant, written with Unicode mathematical letters."""
    import html

    bases = _STYLE_BASES.get(variant)
    if variant == "normal" or bases is None:
        return f'<mi mathvariant="{variant}">{text}</mi>' if variant == "normal" else \
            f"<mi>{text}</mi>"
    out = []
    for ch in html.unescape(text):
        if (variant, ch) in _STYLE_HOLES:
            out.append(_STYLE_HOLES[(variant, ch)])
        elif "A" <= ch <= "Z":
            out.append(chr(bases[0] + ord(ch) - ord("A")))
        elif "a" <= ch <= "z":
            out.append(chr(bases[1] + ord(ch) - ord("a")))
        elif bases[2] and "Α" <= ch <= "Ω":
            out.append(chr(bases[2] + ord(ch) - ord("Α")))
        elif bases[3] and "α" <= ch <= "ω":
            out.append(chr(bases[3] + ord(ch) - ord("α")))
        else:
            out.append(ch)
    return f"<mi>{html.escape(''.join(out))}</mi>"


def _inline_parts(mathml: str) -> list[str]:
    """An inline formula cut after its top-level relations (=, <=, ...).

    The parts are formulas a browser can wrap between, like words; one part when the
    formula has no top-level relation or is short.
    """
    import xml.etree.ElementTree as ET

    ns = "http://www.w3.org/1998/Math/MathML"
    ET.register_namespace("", ns)
    try:
        root = ET.fromstring(mathml)
    except ET.ParseError:
        return [mathml]
    row = root[0] if len(root) == 1 and root[0].tag == f"{{{ns}}}mrow" else root
    children = list(row)
    groups, current = [], []
    mo = f"{{{ns}}}mo"
    for k, child in enumerate(children):
        current.append(child)
        text = (child.text or "").strip() if child.tag == mo else ""
        # after a relation, or after a binary + - , (not a sign: something that is not
        # an operator or an opening bracket comes before it, and something after it)
        before = children[k - 1] if k else None
        binary = (text in _BREAK_AFTER and before is not None and k + 1 < len(children)
                  and not (before.tag == mo and (before.text or "").strip() not in ")]|‖}"))
        if text in _RELATIONS or binary:
            groups.append(current)
            current = []
    if current:
        groups.append(current)
    if len(groups) < 2 or len(children) < 4:
        return [mathml]
    parts = []
    for group in groups:
        math = ET.Element(f"{{{ns}}}math", root.attrib)
        mrow = ET.SubElement(math, f"{{{ns}}}mrow")
        mrow.extend(group)
        parts.append(ET.tostring(math, encoding="unicode"))
    return parts


_MATHML_NS = "http://www.w3.org/1998/Math/MathML"
# an embellished operator (an operator, or a script, fraction or accent on one): the
# browser spaces it by its place among its siblings, so a group around one is kept
_SCRIPTED = {"msub", "msup", "msubsup", "munder", "mover", "munderover", "mfrac"}


def _embellished(element) -> bool:
    tag = element.tag.rpartition("}")[2]
    if tag == "mo":
        return True
    return tag in _SCRIPTED and len(element) > 0 and _embellished(element[0])


def slim_mathml(mathml: str) -> str:
    """The same formula in fewer elements and attributes, for the page.

    A chapter holds about a thousand formulas, which a phone styles and lays out element
    by element before the first paint; latex2mathml wraps each formula in one more
    ``<mrow>``, wraps single items in their own ``<mrow>`` and writes the MathML
    namespace and the default ``display="inline"`` on each formula. In an HTML page the
    namespace is implied, and in MathML Core an ``<mrow>`` with one child lays out as
    that child, and ``<math>`` as an ``<mrow>`` of its children. A group around an
    embellished operator (``<mrow><mo>-</mo></mrow>``) and an empty group (``{}``, which
    makes the operator after it binary) are kept as written.
    """
    import xml.etree.ElementTree as ET

    ET.register_namespace("", _MATHML_NS)
    try:
        root = ET.fromstring(mathml)
    except ET.ParseError:
        return mathml
    mrow = f"{{{_MATHML_NS}}}mrow"

    def unwrap(parent) -> None:
        for k, child in enumerate(list(parent)):
            unwrap(child)
            if child.tag == mrow and not child.attrib and len(child) == 1 \
                    and not (child.text or "").strip() and not (child[0].tail or "").strip() \
                    and not _embellished(child[0]):
                inner = child[0]
                inner.tail = child.tail
                parent[k] = inner

    unwrap(root)
    if len(root) == 1 and root[0].tag == mrow and not root[0].attrib \
            and not (root[0].text or "").strip():
        row = root[0]
        root.remove(row)
        root.extend(list(row))
    if root.get("display") == "inline":
        del root.attrib["display"]
    out = ET.tostring(root, encoding="unicode", short_empty_elements=True)
    return out.replace(f' xmlns="{_MATHML_NS}"', "", 1)


def _visit_math(self, node) -> None:
    from html import escape

    from docutils import nodes

    tex = node.astext()
    try:
        parts = [slim_mathml(part)
                 for part in _inline_parts(tex_to_mathml(tex, display=False))]
    except Exception as exc:  # noqa: BLE001 - an unreadable formula fails the strict build
        from sphinx.util import logging

        logging.getLogger(__name__).warning(f"formula not converted: {tex!r} ({exc})",
                                            location=node)
        parts = [escape(tex)]
    self.body.append(self.starttag(node, "span", "", CLASS="math notranslate nohighlight",
                                   **{"data-tex": tex}))
    self.body.append("<wbr>".join(parts) + "</span>")
    raise nodes.SkipNode


def _visit_displaymath(self, node) -> None:
    from docutils import nodes
    from sphinx.locale import _
    from sphinx.util.math import get_node_equation_number

    tex = node.astext()
    self.body.append(self.starttag(node, "div", CLASS="math notranslate nohighlight"))
    if node.get("number"):
        number = get_node_equation_number(self, node)
        self.body.append(f'<span class="eqno">({number})')
        self.add_permalink_ref(node, _("Link to this equation"))
        self.body.append("</span>")
    parts = [part for part in tex.split("\n\n") if part.strip()]
    if not node.get("nowrap") and len(parts) == 1 and "\\\\" in tex \
            and "\\begin" not in tex:
        tex = "\\begin{aligned}" + tex + "\\end{aligned}"
    try:
        self.body.append(slim_mathml(tex_to_mathml(tex, display=True)))
    except Exception as exc:  # noqa: BLE001
        from sphinx.util import logging

        logging.getLogger(__name__).warning(f"formula not converted: {tex[:80]!r} ({exc})",
                                            location=node)
        self.body.append(self.encode(tex))
    self.body.append("</div>\n")
    raise nodes.SkipNode


# ------------------------------------------------------------------ one stylesheet
# A page of the theme asks for thirteen stylesheets (the theme's, Sphinx's, each
# extension's), one of them behind an @import, and for the Font Awesome web font
# (156 KB of which the book draws about twenty icons). A phone's browser paints nothing
# before every stylesheet has arrived, one round trip after another. The book's pages ask
# for one stylesheet instead: the same files in the same order, joined and minified when
# the site is built, with Font Awesome's icon rules and its fonts cut down to the icons
# the theme's templates, the book's templates and the site's scripts name (the build
# fails when a page shows an icon outside that set, see _check_icons). The page's
# css_files (Sphinx's page context) become that one file; _templates/layout.html
# writes the theme's head without its separate stylesheets and script preloads.

# Stylesheets that the theme's head writes before Sphinx's (pydata-sphinx-theme's
# webpack-macros.html, head_pre_assets; theme.css only @imports ../basic.css)
THEME_PRE_CSS = ("styles/theme.css", "styles/pydata-sphinx-theme.css")
# sphinx-thebe's stylesheet styles live-kernel buttons the book does not show (_drop_thebe)
_UNUSED_CSS = ("sphinx-thebe.css",)
_PUA = (0xE000, 0xF8FF)  # Font Awesome's icons are private-use characters
_bundles: dict[tuple, str] = {}


def _minify_css(css: str) -> str:
    """Comments and layout whitespace out; strings and url()s are left as written."""
    import re

    out = []
    # read from the left: a comment, a string or a url(...) is taken whole, whichever
    # starts first (so a quote inside a comment starts no string)
    token = re.compile(r'(/\*.*?\*/)|("(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|url\([^)]*\))',
                       re.S)
    pos = 0

    def squeeze(part: str) -> str:
        part = re.sub(r"\s+", " ", part)
        return re.sub(r"\s*([{};,>])\s*", r"\1", part)

    for match in token.finditer(css):
        out.append(squeeze(css[pos:match.start()]))
        if match.group(2):
            out.append(match.group(2))
        pos = match.end()
    out.append(squeeze(css[pos:]))
    return "".join(out).replace(";}", "}").strip()


def _inline_css(static: Path, rel: str, seen: set) -> str:
    """A stylesheet of ``_static``, its @imports inlined, its url()s relative to ``_static``.

    The joined file is written into ``_static``.
    """
    import posixpath
    import re

    rel = rel.split("?", 1)[0]
    if rel in seen:
        return ""
    seen.add(rel)
    text = (static / rel).read_text(encoding="utf-8")
    folder = posixpath.dirname(rel)

    def rebase(url: str) -> str:
        url = url.strip().strip("'\"")
        if re.match(r"^([a-z]+:|/|#)", url):
            return url
        return posixpath.normpath(posixpath.join(folder, url)) if folder else url

    def imported(match) -> str:
        return _inline_css(static, rebase(match.group(1) or match.group(2)), seen)

    text = re.sub(r'@import\s+(?:url\(\s*["\']?([^"\')]+)["\']?\s*\)|["\']([^"\']+)["\'])\s*;',
                  imported, text)
    text = re.sub(r"url\(\s*([^)]*?)\s*\)",
                  lambda m: m.group(0) if m.group(1).strip("'\"").startswith("data:")
                  else f'url("{rebase(m.group(1))}")', text)
    return text + "\n"


def _icon_names(app) -> set[str]:
    """Every Font Awesome icon the site can show.

    Those named in the theme's and the book's templates, the themes' Python code (their
    buttons), the theme options and the site's scripts.
    """
    import importlib.util
    import re

    pattern = re.compile(r"\bfa-[a-z0-9]+(?:-[a-z0-9]+)*")
    names: set[str] = set()
    folders = [Path(app.srcdir) / "_templates"]
    for package in ("pydata_sphinx_theme", "sphinx_book_theme"):
        folders.append(Path(importlib.util.find_spec(package).origin).parent)
    for folder in folders:
        for path in folder.rglob("*"):
            if path.suffix in {".html", ".py", ".js"} and "vendor" not in path.parts \
                    and not path.name.endswith(".min.js"):
                names |= set(pattern.findall(path.read_text(encoding="utf-8", errors="ignore")))
    for path in (Path(app.outdir) / "_static").glob("*.js"):
        names |= set(pattern.findall(path.read_text(encoding="utf-8", errors="ignore")))
    names |= set(pattern.findall(repr(app.config.html_theme_options)))
    return names


def _prune_icons(css: str, keep: set[str]) -> str:
    """Font Awesome's ``.fa-NAME:before{content:...}`` rules of the kept icons only."""
    import re

    def rule(match) -> str:
        names = re.findall(r"\.(fa-[a-z0-9-]+)::?before", match.group(1))
        return match.group(0) if keep.intersection(names) else ""

    return re.sub(r"((?:\.fa-[a-z0-9-]+::?before,?)+)\{content:[^}]*\}", rule, css)


def _icon_fonts(css: str, static: Path, out: Path, written: list[str]) -> str:
    """Font Awesome's fonts cut down to the icons the stylesheet still draws.

    Written as WOFF (zlib: no Brotli needed), with ``font-display: swap``; a font none
    of the icons is in is dropped.
    """
    import hashlib
    import re

    from fontTools import subset
    from fontTools.ttLib import TTFont

    def chars(text: str) -> set[int]:
        found = {ord(c) for c in text if _PUA[0] <= ord(c) <= _PUA[1]}
        found |= {int(h, 16) for h in re.findall(r"\\([0-9a-fA-F]{4,5})", text)
                  if _PUA[0] <= int(h, 16) <= _PUA[1]}
        return found

    wanted = chars(re.sub(r"@font-face\{[^}]*\}", "", css))

    def face(match) -> str:
        block = match.group(0)
        ttf = re.search(r'url\("([^"]+\.ttf)"\)', block)
        if not ttf or not (static / ttf.group(1)).is_file():
            return block
        font = TTFont(static / ttf.group(1))
        codes = sorted(wanted & set(font.getBestCmap()))
        if not codes:
            return ""
        options = subset.Options()
        options.flavor = "woff"
        options.layout_features = []
        options.name_IDs = []
        options.notdef_outline = True
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=codes)
        subsetter.subset(font)
        target = out / "_static" / (Path(ttf.group(1)).stem + ".kmbook.woff")
        font.flavor = "woff"
        font.save(target)
        digest = hashlib.sha256(target.read_bytes()).hexdigest()[:8]
        written.append(f"{target.name}?v={digest}")
        block = re.sub(r"src:[^;}]*", f'src:url("{target.name}?v={digest}") format("woff")', block)
        return re.sub(r"font-display:\s*\w+", "font-display:swap", block)

    return re.sub(r"@font-face\{[^}]*\}", face, css)


# The joined stylesheet carries the whole of Bootstrap and of each extension's stylesheet
# (about 6,000 selectors), of which the book's pages can match about a quarter; a phone
# checks the others against the page's elements all the same (a chapter has 10,000 to
# 15,000). A selector is dropped when it names a class or an id that no page of the site
# has and no script of the site can add: the pages' class and id attributes are read
# from the written pages, and a script's names from its words and from the patterns of
# its template strings (Bootstrap's `bs-${name}-auto`). What a selector names inside
# :not(), :is(), :where(), :has() or an attribute selector is not read (it stays).


def _css_blocks(css: str, start: int = 0):
    """Top-level items of minified CSS from ``start``: ``(prelude, body, end)``.

    ``body`` is the declarations (a string) of a style rule or of an at-rule that holds
    no rules (@font-face), a list of items for @media, @supports, @container and
    @layer blocks, and None for a statement (@import, @charset). Strings and url()s are
    skipped whole. Stops at the ``}`` closing the enclosing block.
    """
    items, i, n = [], start, len(css)
    prelude_start = i

    def skip_string(j: int) -> int:
        quote = css[j]
        j += 1
        while j < n and css[j] != quote:
            j += 2 if css[j] == "\\" else 1
        return j + 1

    def skip_url(j: int) -> int:
        j += 4
        if j < n and css[j] in "\"'":
            j = skip_string(j)
        return css.index(")", j) + 1

    while i < n:
        c = css[i]
        if c in "\"'":
            i = skip_string(i)
        elif css.startswith("url(", i):
            i = skip_url(i)
        elif c == "{":
            prelude = css[prelude_start:i].strip()
            if prelude.startswith(("@media", "@supports", "@container", "@layer")):
                inner, i = _css_blocks(css, i + 1)
                items.append((prelude, inner))
            else:
                depth, j = 1, i + 1
                while depth:
                    ch = css[j]
                    if ch in "\"'":
                        j = skip_string(j)
                        continue
                    if css.startswith("url(", j):
                        j = skip_url(j)
                        continue
                    depth += {"{": 1, "}": -1}.get(ch, 0)
                    j += 1
                items.append((prelude, css[i + 1:j - 1]))
                i = j
            prelude_start = i
        elif c == "}":
            return items, i + 1
        elif c == ";":
            statement = css[prelude_start:i].strip()
            if statement:
                items.append((statement, None))
            i += 1
            prelude_start = i
        else:
            i += 1
    return items, i


def _split_selectors(prelude: str) -> list[str]:
    out, depth, current = [], 0, []
    for ch in prelude:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(current))
            current = []
        else:
            current.append(ch)
    out.append("".join(current))
    return out


def _required_names(selector: str) -> tuple[list[str], list[str]] | None:
    """The classes and ids a selector needs (outside brackets); None: not read (kept)."""
    import re

    if "\\" in selector:
        return None
    plain, depth = [], 0
    for ch in selector:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif depth == 0:
            plain.append(ch)
    text = re.sub(r"::?[A-Za-z-]+", " ", "".join(plain))
    return (re.findall(r"\.(-?[A-Za-z_][A-Za-z0-9_-]*)", text),
            re.findall(r"#(-?[A-Za-z_][A-Za-z0-9_-]*)", text))


def _prune_css(css: str, known) -> str:
    """The style rules of ``css`` whose selectors ``known`` can match (see above).

    ``known(name)`` is true for a class or id that a page has or a script can add.
    A rule keeps the selectors that can match; a rule or @media block left empty goes.
    """
    def usable(selector: str) -> bool:
        names = _required_names(selector)
        return names is None or all(known(name) for name in names[0] + names[1])

    def write(items) -> str:
        out = []
        for prelude, body in items:
            if body is None:
                out.append(prelude + ";")
            elif isinstance(body, list):
                inner = write(body)
                if inner:
                    out.append(prelude + "{" + inner + "}")
            elif prelude.startswith("@"):
                out.append(prelude + "{" + body + "}")
            else:
                kept = [s for s in _split_selectors(prelude) if usable(s)]
                if kept:
                    out.append(",".join(kept) + "{" + body + "}")
        return "".join(out)

    items, _ = _css_blocks(css)
    return write(items)


def _site_names(outdir: Path):
    """``known(name)``: whether ``name`` is a class or id of the site's pages.

    True for a class or id that a written page has, or that a script of the site (a
    file under ``_static``, a page's inline script) can add.
    """
    import re

    word = re.compile(r"-?[A-Za-z_][A-Za-z0-9_-]*")
    names: set[str] = set()
    scripts: list[str] = []
    for page in outdir.rglob("*.html"):
        if "_static" in page.parts or "_sources" in page.parts:
            continue
        text = page.read_text(encoding="utf-8", errors="ignore")
        for value in re.findall(r'\s(?:class|id)="([^"]*)"', text):
            names.update(value.split())
        scripts += re.findall(r"<script[^>]*>(.*?)</script>", text, flags=re.S)
    for path in (outdir / "_static").rglob("*.js"):
        if path.name != "kmbook-search-text.js":  # the pages' text, no script
            scripts.append(path.read_text(encoding="utf-8", errors="ignore"))
    patterns: set[str] = set()
    for script in scripts:
        names.update(word.findall(script))
        # `bs-${name}-auto` and "bs-" + name: a name built from a template or a join
        for template in re.findall(r"`([^`]*?\$\{[^`]*)`", script):
            marked = re.sub(r"\$\{[^}]*\}", "\0", template)
            for piece in re.split(r"[^A-Za-z0-9_\0-]+", marked):
                if "\0" in piece and piece.strip("\0"):  # a name with a written part
                    patterns.add(r"[A-Za-z0-9_-]*".join(re.escape(p) for p in piece.split("\0")))
        for literal in re.findall(r"[\"']([A-Za-z0-9_-]+-)[\"']\s*\+", script):
            patterns.add(re.escape(literal) + r"[A-Za-z0-9_-]*")
    built = re.compile("|".join(f"(?:{p})" for p in sorted(patterns)) or r"(?!)")

    def known(name: str) -> bool:
        return name in names or built.fullmatch(name) is not None

    return known


def _write_stylesheet(app, key: tuple) -> None:
    """Join, minify and cut down the stylesheets ``key`` names, into ``_bundles[key]``."""
    static = Path(app.outdir) / "_static"
    css = _minify_css("".join(_inline_css(static, rel, set()) for rel in key))
    names = _icon_names(app)
    css = _prune_icons(css, names)
    css = _prune_css(css, _site_names(Path(app.outdir)))
    css = _icon_fonts(css, static, Path(app.outdir), [])
    (static / _bundles[key]).write_text(css, encoding="utf-8")
    app.env.kmbook_icon_names = names


def _rewrite_stylesheets(app, exception) -> None:
    """Join the stylesheets again once the build is over.

    pydata-sphinx-theme writes the final ``pygments.css`` (light and dark code colours)
    when the build finishes (its own build-finished handler, which runs before this one).
    """
    if exception is None and app.builder.format == "html":
        for key in _bundles:
            _write_stylesheet(app, key)


def _one_stylesheet(app, pagename, templatename, context, doctree) -> None:
    """The page's stylesheets as one file (see the section's comment above)."""
    import hashlib

    from sphinx.builders.html._assets import _CascadingStyleSheet

    if app.builder.format != "html" or "css_files" not in context:
        return
    joined, rest = list(THEME_PRE_CSS), []
    for css in context["css_files"]:
        name = str(getattr(css, "filename", css) or "")
        attributes = getattr(css, "attributes", {}) or {}
        if name.startswith("_static/") and "://" not in name \
                and attributes.get("rel", "stylesheet") == "stylesheet" \
                and attributes.get("media", "all") in {"all", "screen, print"}:
            rel = name[len("_static/"):].split("?", 1)[0]
            if rel not in _UNUSED_CSS:
                joined.append(rel)
        else:
            rest.append(css)
    key = tuple(joined)
    if key not in _bundles:
        # named after the files it joins (a page that is not written again keeps its link);
        # the link's ?v= checksum (Sphinx's) changes with its content
        _bundles[key] = f"kmbook-site-{hashlib.sha256(repr(key).encode()).hexdigest()[:8]}.css"
        try:
            _write_stylesheet(app, key)
        except FileNotFoundError:
            # a first build: Sphinx copies the static files, and myst-nb writes its
            # stylesheet, only when the pages are written; _rewrite_stylesheets joins them
            # at build-finished (the link then has no ?v= checksum until the next build)
            pass
    context["css_files"] = [_CascadingStyleSheet(f"_static/{_bundles[key]}",
                                                 rel="stylesheet", type="text/css")] + rest


def _inline_documentation_options(app, pagename, templatename, context, doctree) -> None:
    """Sphinx's ``documentation_options.js`` (a dozen settings) written into the page.

    It is the one script the page must run before the inline ``pagename`` line after it
    (so it cannot be deferred); fetched as a file it costs a phone a round trip before
    the first paint.
    """
    from sphinx.builders.html._assets import _JavaScript

    scripts = context.get("script_files")
    path = Path(app.outdir) / "_static" / "documentation_options.js"
    if not scripts or not path.is_file():
        return
    body = path.read_text(encoding="utf-8").strip()
    context["script_files"] = [
        _JavaScript(None, priority=getattr(s, "priority", 500), body=body)
        if str(getattr(s, "filename", s) or "").startswith("_static/documentation_options.js")
        else s for s in scripts]


# docutils' HTML5 writer adds this to every page's meta tags; Sphinx's basic layout
# writes its own viewport line before them
DOCUTILS_VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1" />\n'


def _one_viewport(app, pagename, templatename, context, doctree) -> None:
    """One ``<meta name="viewport">`` per page: docutils' copy leaves ``metatags``.

    (The theme's copy is left out by _templates/layout.html.)
    """
    if context.get("metatags"):
        context["metatags"] = context["metatags"].replace(DOCUTILS_VIEWPORT, "")


def _check_icons(app, exception) -> None:
    """Fail the (strict) build when a page shows an icon the joined stylesheet left out."""
    import re

    if exception is not None or app.builder.format != "html" or not _bundles:
        return
    from sphinx.util import logging

    known = getattr(app.env, "kmbook_icon_names", set())
    shown: dict[str, str] = {}
    for page in Path(app.outdir).rglob("*.html"):
        if "_static" in page.parts or "_sources" in page.parts:
            continue
        for classes in re.findall(r'class="([^"]*\bfa-[^"]*)"', page.read_text(encoding="utf-8")):
            for name in re.findall(r"\bfa-[a-z0-9-]+", classes):
                shown.setdefault(name, str(page.relative_to(app.outdir)))
    for name, page in sorted(shown.items()):
        if name not in known:
            logging.getLogger(__name__).warning(
                f"icon {name} (on {page}) is not in the site's icon font: name it in a "
                "template under _templates/ or extend _icon_names in _ext/kmbook.py")


# ------------------------------------------------------------------ code highlighting
# Pygments wraps every token of a code cell in a <span>: a chapter's code is 5,000 to
# 8,000 of them, a third of the page's elements, which a phone styles and lays out before
# it paints. Names, punctuation and whitespace are drawn in the code's plain colour by the
# theme's light and dark styles alike, so their tokens are written as plain text (a
# Pygments filter on the book's Python lexers, registered with Sphinx's app.add_lexer);
# tokens of the same kind that follow each other share one span, as Pygments writes them.
PLAIN_LEXERS = ("python", "ipython3", "ipython")
_plain_tokens: set = set()


def _plain_token_types(app) -> None:
    """The token types both code colour styles of the theme draw like plain text."""
    from pygments.styles import get_style_by_name
    from pygments.token import STANDARD_TYPES, Token

    try:
        options = app.builder.theme.get_options(app.config.html_theme_options)
    except Exception:  # noqa: BLE001 - a builder without a theme (LaTeX): nothing to do
        return
    names = [options.get("pygments_light_style"), options.get("pygments_dark_style")]
    if not all(names):
        return
    styles = [get_style_by_name(name) for name in names]
    keys = ("color", "bold", "italic", "underline", "bgcolor", "border")

    def look(style, ttype):
        found = style.style_for_token(ttype)
        return tuple(found[k] for k in keys)

    _plain_tokens.clear()
    for ttype in STANDARD_TYPES:
        if ttype is not Token and all(look(st, ttype) == look(st, Token.Text) for st in styles):
            _plain_tokens.add(ttype)


def _plain_lexer(alias: str):
    """The Pygments lexer of ``alias`` with plain-looking tokens written as plain text."""
    from pygments.filter import Filter
    from pygments.lexers import get_lexer_by_name
    from pygments.token import Token

    class PlainLooking(Filter):
        def filter(self, lexer, stream):
            for ttype, value in stream:
                yield (Token.Text if ttype in _plain_tokens else ttype), value

    base = type(get_lexer_by_name(alias))

    class Lexer(base):
        def __init__(self, **options):
            options.setdefault("stripnl", False)  # as Sphinx's own Python lexer
            super().__init__(**options)
            self.add_filter(PlainLooking())

    Lexer.__name__ = f"Plain{base.__name__}"
    return Lexer


# ------------------------------------------------------------------ site facts
PDF_NAME = "kernel-methods-book.pdf"


def _pdf_source(app) -> Path:
    """Where ``make pdf`` writes the book's PDF for this build folder."""
    return Path(app.outdir).parent / "latex" / "book.pdf"


def _human_size(n_bytes: int) -> str:
    return f"{n_bytes / 2**20:.1f} MB" if n_bytes >= 2**20 else f"{n_bytes / 2**10:.0f} KB"


def _github_parts(url: str) -> tuple[str, str] | None:
    import re

    m = re.match(r"^https://github\.com/([^/\s]+)/([^/\s]+?)(?:\.git)?/?$", url.strip())
    return (m.group(1), m.group(2)) if m else None


def _site_facts(app, config) -> None:
    """Settle, once per build, what every page's footer and launch links show.

    Stored as config values with ``rebuild="html"``: when one changes (a new PDF, a new
    day, a repository URL), Sphinx writes every page again.
    """
    import datetime
    import os
    import re

    # the one version number: kmlib.__version__ (pyproject.toml reads it from there too)
    root = _project_root(Path(app.srcdir))
    init = (root / "kmlib" / "__init__.py").read_text(encoding="utf-8")
    config.kmbook_version = re.search(r'^__version__ = "([^"]+)"', init, flags=re.M).group(1)
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    when = (datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc) if epoch
            else datetime.datetime.now(datetime.timezone.utc))
    config.kmbook_build_date = when.date().isoformat()
    pdf = _pdf_source(app)
    config.kmbook_pdf_size = _human_size(pdf.stat().st_size) if pdf.is_file() else ""
    options = config.html_theme_options
    repo = (options.get("repository_url") or "").strip()
    config.kmbook_repository_url = repo
    # the repository buttons of the theme exist only when a repository is named
    for button in ("use_repository_button", "use_issues_button"):
        options[button] = bool(repo)
    site = (config.html_baseurl or "").strip()
    parts = _github_parts(repo) if repo else None
    if not site and parts:
        site = f"https://{parts[0]}.github.io/{parts[1]}/"
    config.kmbook_site_url = site.rstrip("/") + "/" if site else ""
    # Jupyter Book adds every .js file under _static/ to every page, as a blocking
    # script: the book's own scripts are listed once, deferred, in _config.yml; the search
    # page's script is added to that page only (_search_page_script), and the scorer is
    # read by Sphinx into the search page's language_data.js (html_search_scorer)
    own = {"kmbook.js", "kmbook-search.js", "kmbook-scorer.js"}
    config.html_js_files = [
        entry for entry in config.html_js_files
        if not (isinstance(entry, str) and entry in own)
        and not (isinstance(entry, (tuple, list)) and entry[0] == "kmbook-search.js")]


def _search_page_script(app, pagename, templatename, context, doctree) -> None:
    """``kmbook-search.js`` on the search page only (Sphinx's per-page add_js_file)."""
    if pagename == "search":
        app.add_js_file("kmbook-search.js", defer="defer")


def _site_context(app, pagename, templatename, context, doctree) -> None:
    """The values ``_templates/kmbook-footer.html`` and ``kmbook-launch.html`` show."""
    config = app.config
    context["kmbook_version"] = config.kmbook_version
    context["kmbook_build_date"] = config.kmbook_build_date
    context["kmbook_pdf_size"] = config.kmbook_pdf_size
    context["kmbook_pdf_name"] = PDF_NAME
    context["kmbook_repository_url"] = config.kmbook_repository_url
    context["kmbook_colab_url"] = context["kmbook_binder_url"] = ""
    parts = _github_parts(config.kmbook_repository_url)
    notebook = context.get("ipynb_source")
    if parts and notebook and config.kmbook_site_url:
        org, repo = parts
        branch = config.kmbook_site_branch
        path = f"_sources/{notebook}"
        context["kmbook_colab_url"] = (
            f"https://colab.research.google.com/github/{org}/{repo}/blob/{branch}/{path}")
        context["kmbook_binder_url"] = (
            f"https://mybinder.org/v2/gh/{org}/{repo}/{branch}?urlpath=lab/tree/{path}")


def install_cell(site_url: str, version: str):
    """The first cell of a downloaded notebook: kmlib from the book's website, if missing.

    Colab, Binder and any Jupyter without kmlib install it (with the packages of its
    ``notebooks`` extra) from the wheel the published site offers; where kmlib is
    installed (the book's own environment, the run-locally set-up) the cell does nothing.
    """
    import nbformat

    wheel = f"{site_url}downloads/kmlib-{version}-py3-none-any.whl"
    source = ("# kmlib, the book's library: installed from the book's website when missing\n"
              "# (Colab, Binder); does nothing where kmlib is already installed\n"
              "import importlib.util\n"
              "if importlib.util.find_spec(\"kmlib\") is None:\n"
              f"    %pip install -q \"kmlib[notebooks] @ {wheel}\"")
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["tags"] = ["kmbook-install"]
    cell.metadata["slideshow"] = {"slide_type": "skip"}  # not a slide when presented live
    cell.pop("id", None)
    return cell


NOTEBOOKS_README = """\
Kernel Methods - executable course notes: the notebooks
=======================================================

chapters/    one notebook per chapter, executed (outputs included)
exercises/   one notebook per exercise sheet, student version (no solutions)
kmlib-*.whl  the book's library, kmlib
requirements.txt   everything the notebooks need

To run them on your computer (Python 3.10 or newer):

    python -m venv kmbook-env
    source kmbook-env/bin/activate        # on Windows: kmbook-env\\Scripts\\activate
    python -m pip install -r requirements.txt
    python -m jupyter lab

then open a notebook in chapters/ or exercises/. The book's website, page "Run the
notebooks on your computer", explains each step.
"""


def setup(app):
    """Connect the book's page-context hooks and build steps to Sphinx."""
    for name in ("kmbook_version", "kmbook_build_date", "kmbook_pdf_size",
                 "kmbook_repository_url", "kmbook_site_url"):
        app.add_config_value(name, "", "html")
    # the branch the published site is served from (GitHub Pages): launch links open the
    # page's plain notebook there
    app.add_config_value("kmbook_site_branch", "gh-pages", "html")
    app.connect("config-inited", _site_facts)
    # after myst-nb has registered its node (its setup runs before local extensions')
    app.connect("builder-inited", _accessible_visitors)
    app.connect("builder-inited", _plain_token_types)
    for alias in PLAIN_LEXERS:
        app.add_lexer(alias, _plain_lexer(alias))
    app.add_search_language(_search_language())
    app.add_html_math_renderer("kmbook_mathml", (_visit_math, None), (_visit_displaymath, None))
    app.connect("html-page-context", _site_context, priority=503)
    app.connect("html-page-context", _search_page_script)
    # The theme builds its download menu at priority 501; offer the notebook just before.
    app.connect("html-page-context", _offer_ipynb, priority=500)
    app.connect("html-page-context", _drop_print_button, priority=502)
    app.connect("html-page-context", _drop_thebe, priority=502)
    app.connect("html-page-context", _defer_scripts, priority=504)
    app.connect("doctree-resolved", _lazy_images)
    app.connect("doctree-resolved", _collect_search_text)
    # after every extension has added its stylesheets and scripts
    app.connect("html-page-context", _one_stylesheet, priority=900)
    app.connect("html-page-context", _inline_documentation_options, priority=900)
    app.connect("html-page-context", _one_viewport)
    app.connect("build-finished", _rewrite_stylesheets, priority=900)
    app.connect("build-finished", _check_icons, priority=901)
    app.connect("doctree-read", _unique_proof_ids)
    app.connect("build-finished", _write_downloads)
    # after Sphinx's own numbering (TocTreeCollector, priority 500)
    app.connect("env-get-updated", _exercise_numbers_per_sheet, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "0.2"}
