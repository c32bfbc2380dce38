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

sys.path.insert(0, str(Path(__file__).resolve().parent))
import plain_notebook  # noqa: E402

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


def _student(app, nb, sheet: str):
    scripts = _project_root(Path(app.srcdir)) / "scripts"
    sys.path.insert(0, str(scripts))
    import make_exercises

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


def _accessible_body(app, pagename, templatename, context, doctree) -> None:
    """Fix three accessibility faults of the page body that come from the book's packages.

    * myst-nb labels the "Show code cell source" toggles ``aria-label="Toggle hidden
      content"``, a name that does not contain their visible text (axe
      label-content-name-mismatch): the label goes, the visible text names them;
    * docutils marks bibliography entries ``role="doc-biblioentry"``, deprecated in
      DPUB-ARIA 1.1 (aria-deprecated-role), inside a ``role="list"``: they become
      ``role="listitem"``;
    * sphinx-proof gives every unlabelled proof ``id="proof"``, so a chapter repeats
      one id: each gets its own (``proof-1``, ``proof-2``, ...).
    """
    import re

    body = context.get("body")
    if not body:
        return
    body = body.replace('<summary aria-label="Toggle hidden content">', "<summary>")
    body = body.replace('role="doc-biblioentry"', 'role="listitem"')
    count = iter(range(1, 1_000_000))
    body = re.sub(r'(<div class="proof[^"]*") id="proof"',
                  lambda m: f'{m.group(1)} id="proof-{next(count)}"', body)
    context["body"] = body


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
    text = re.sub(r"\\([A-Za-z]+|[|,;! ])",
                  lambda m: TEX_WORDS.get(m.group(1), m.group(1)), text)
    text = re.sub(r"\\(.)", r"\1", text)           # \{ \} \_ and the like
    text = text.replace("{", "").replace("}", "").replace("&", "")
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
                               nodes.substitution_definition, nodes.target)):
            return
        else:
            block = isinstance(node, (nodes.Structural, nodes.Body, nodes.title))
            if block:
                parts.append(" ")
            for child in node.children:
                walk(child)
            if block:
                parts.append(" ")

    walk(doctree)
    return " ".join("".join(parts).split())


def _write_search_text(app) -> None:
    """``_static/kmbook-search-text.js``: every page's text for the search excerpts."""
    import json

    texts = {}
    for doc in sorted(app.env.found_docs):
        try:
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


def setup(app):
    """Connect the book's page-context hooks and build steps to Sphinx."""
    # The theme builds its download menu at priority 501; offer the notebook just before.
    app.connect("html-page-context", _offer_ipynb, priority=500)
    app.connect("html-page-context", _drop_print_button, priority=502)
    app.connect("html-page-context", _drop_thebe, priority=502)
    app.connect("html-page-context", _accessible_body, priority=502)
    app.connect("build-finished", _write_downloads)
    # after Sphinx's own numbering (TocTreeCollector, priority 500)
    app.connect("env-get-updated", _exercise_numbers_per_sheet, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "0.2"}
