"""Checks of the built website in ``_build/html`` (skipped when there is no build).

* every HTML page parses and carries no build-error markers;
* every internal link, image, script and stylesheet resolves (and anchors exist);
* no script or stylesheet is loaded from the network;
* each chapter page offers its executed notebook (``.ipynb``) for download;
* in headless Chromium (when installed), served from localhost with every other host
  unresolvable, every formula on every page is MathML (written at build time) and no
  page logs a console error;
* the footer (version, build date, PDF), the repository and launch links, the notebook
  zip's README, and the theme hooks the site's overrides rely on.
"""
from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import threading
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat
import pytest

bs4 = pytest.importorskip("bs4")

ROOT = Path(__file__).resolve().parents[1]
# KMBOOK_SITE points the checks at another build folder (default: _build/html).
HTML = Path(os.environ.get("KMBOOK_SITE", ROOT / "_build" / "html"))

pytestmark = pytest.mark.skipif(
    not (HTML / "index.html").is_file(),
    reason="no website build in _build/html (run `make book` first)",
)


def _pages() -> list[Path]:
    if not HTML.is_dir():
        return []
    skip = {"genindex.html", "search.html", "prf-prf.html"}
    return sorted(p for p in HTML.rglob("*.html")
                  if "_static" not in p.parts and "_sources" not in p.parts and p.name not in skip)


@functools.lru_cache(maxsize=None)
def _soup(path: Path):
    return bs4.BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def _rel(page: Path) -> str:
    return str(page.relative_to(HTML))


PAGES = _pages()


def test_expected_pages_were_built():
    names = {_rel(p) for p in PAGES}
    for page in ("index.html", "notation.html", "bibliography.html",
                 "chapters/01_ridge.html", "chapters/02_cross_validation.html",
                 "exercises/01_ridge.html", "exercises/02_cross_validation.html"):
        assert page in names, f"{page} missing from the build"


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_page_parses_without_error_markers(page):
    soup = _soup(page)
    refresh = soup.find("meta", attrs={"http-equiv": "Refresh"})
    if refresh is not None and soup.find("body") is None:  # Jupyter Book's index redirect
        target = refresh["content"].split("url=", 1)[1]
        assert (page.parent / target).is_file(), f"redirect to a missing page {target}"
        return
    assert soup.find("html") and soup.find("body") and soup.title, "not a complete HTML page"
    assert not soup.select(".problematic, .system-message"), (
        "unresolved reference or docutils error")
    for out in soup.select("div.output.traceback, div.cell_output .traceback"):
        pytest.fail(f"notebook error output on the page: {out.get_text()[:200]}")


def _local_targets(page: Path):
    soup = _soup(page)
    for tag, attr in (("a", "href"), ("img", "src"), ("script", "src"), ("link", "href")):
        for el in soup.find_all(tag):
            url = el.get(attr)
            if not url:
                continue
            parts = urlsplit(url)
            if parts.scheme or url.startswith("//") or url.startswith("mailto:"):
                yield tag, url, None
                continue
            target = page if not parts.path else (page.parent / unquote(parts.path)).resolve()
            yield tag, url, (target, parts.fragment)


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_internal_links_and_images_resolve(page):
    broken = []
    for _tag, url, local in _local_targets(page):
        if local is None:
            continue
        target, fragment = local
        if target.is_dir():
            target = target / "index.html"
        if not target.exists():
            broken.append(url)
        elif fragment and target.suffix == ".html":
            soup = _soup(target)
            if not soup.find(id=fragment) and not soup.find(attrs={"name": fragment}):
                broken.append(url)
    assert not broken, f"{_rel(page)}: broken internal links: {broken}"


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_no_script_or_stylesheet_from_the_network(page):
    remote = []
    for tag, url, local in _local_targets(page):
        if local is None and tag in {"script", "img", "link"}:
            remote.append(url)
    assert not remote, f"{_rel(page)}: loads from the network: {remote}"


NOTEBOOK_PAGES = sorted(str(p.relative_to(HTML).with_suffix("")) for p in PAGES
                        if p.parent.name in {"chapters", "exercises"})
MYST_ONLY = ("{prf:", "{glue", "{doc}", "{eq}", "{cite", "{numref}", "{ref}", "{index}",
             "```{", ":::{", "{solution", "{exercise")


@pytest.mark.parametrize("name", NOTEBOOK_PAGES)
def test_page_offers_a_plain_notebook(name):
    """The .ipynb a page offers is plain Jupyter: no MyST syntax left, outputs kept."""
    soup = _soup(HTML / f"{name}.html")
    links = [a.get("href", "") for a in soup.find_all("a")]
    assert any(h.endswith(f"_sources/{name}.ipynb") for h in links), "no .ipynb download"
    nb = nbformat.read(HTML / "_sources" / f"{name}.ipynb", as_version=4)
    nbformat.validate(nb)
    left = [(m, c.source[:80]) for c in nb.cells if c.cell_type == "markdown"
            for m in MYST_ONLY if m in c.source]
    assert not left, f"MyST-only syntax in the plain notebook: {left[:5]}"
    code = [c for c in nb.cells if c.cell_type == "code"]
    if name.startswith("chapters/"):
        assert any(c.get("outputs") for c in code), "the chapter notebook offered is not executed"
    else:
        assert not any("solution" in c.metadata.get("tags", []) for c in code), "solutions offered"


def test_downloads_for_running_locally():
    """The run-locally page links the kmlib wheel and a zip of every plain notebook."""
    import zipfile

    soup = _soup(HTML / "running.html")
    links = {a.get("href", "") for a in soup.find_all("a")}
    wheels = sorted((HTML / "downloads").glob("kmlib-*.whl"))
    assert wheels and f"downloads/{wheels[-1].name}" in links, (
        "the page must link the current wheel")
    assert "downloads/kmbook-notebooks.zip" in links
    with zipfile.ZipFile(HTML / "downloads" / "kmbook-notebooks.zip") as zf:
        names = set(zf.namelist())
    for name in NOTEBOOK_PAGES:
        assert f"kmbook-notebooks/{name}.ipynb" in names
    assert "kmbook-notebooks/requirements.txt" in names
    assert f"kmbook-notebooks/{wheels[-1].name}" in names


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_figures_have_alt_text(page):
    missing = [img.get("src") for img in _soup(page).select("main img, article img")
               if not (img.get("alt") or "").strip() and "logo" not in (img.get("class") or [])]
    assert not missing, f"{_rel(page)}: images without alt text: {missing}"


# --------------------------------------------------------------------- browser


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.fixture(scope="module")
def served_site():
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def send_error(self, code, *args, **kwargs):
            MISSING.append(f"{code} {self.path}")
            super().send_error(code, *args, **kwargs)

    handler = functools.partial(Quiet, directory=str(HTML))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join()


MISSING: list[str] = []   # requests the local server could not answer (e.g. a favicon 404)
MATH_PAGES = [p for p in PAGES if _soup(p).select(".math")]


@pytest.mark.parametrize("page", MATH_PAGES, ids=_rel)
def test_every_formula_is_mathml_offline_without_console_errors(page, served_site, tmp_path):
    MISSING.clear()
    browser = _chromium()
    if browser is None:
        pytest.skip("headless Chromium is not installed (apt-get install chromium); "
                    "the static offline checks above still ran")
    n_math = len(_soup(page).select(".math"))
    url = f"{served_site}/{_rel(page)}"
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", f"--user-data-dir={tmp_path}",
           # every host but this machine is unresolvable: nothing can come from the network
           "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
           "--enable-logging=stderr", "--log-level=0",
           "--virtual-time-budget=20000", "--dump-dom", url]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    dom = bs4.BeautifulSoup(result.stdout, "html.parser")
    assert dom.find("body"), f"Chromium returned no page: {result.stderr[-500:]}"
    math = dom.select(".math")
    assert len(math) == n_math
    unrendered = [m.get_text()[:60] for m in math if not m.find("math")]
    assert not unrendered, f"{len(unrendered)} formula(s) not MathML, e.g. {unrendered[:3]}"
    errors = dom.select("merror")
    assert not errors, f"MathML errors: {[e.get_text() for e in errors][:3]}"
    console = _console_errors(result.stderr)
    assert not console, f"JavaScript console errors: {console[:3]}"
    assert not MISSING, f"requests that failed: {MISSING[:5]}"


def _console_errors(stderr: str) -> list[str]:
    """Console errors and failed loads that Chromium logged (``--enable-logging=stderr``)."""
    found = []
    for line in stderr.splitlines():
        if ":CONSOLE" in line and ("Uncaught" in line or "Error" in line
                                   or "Failed to load" in line):
            found.append(line.split("] ", 1)[-1][:200])
        elif "Failed to load resource" in line:
            found.append(line[:200])
    return found


@pytest.mark.parametrize("page", [p for p in PAGES if p not in MATH_PAGES], ids=_rel)
def test_pages_without_math_have_no_console_errors(page, served_site, tmp_path):
    MISSING.clear()
    browser = _chromium()
    if browser is None:
        pytest.skip("headless Chromium is not installed (apt-get install chromium)")
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           f"--user-data-dir={tmp_path}",
           "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
           "--enable-logging=stderr", "--log-level=0", "--virtual-time-budget=10000",
           "--dump-dom", f"{served_site}/{_rel(page)}"]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert "<body" in result.stdout, f"Chromium returned no page: {result.stderr[-500:]}"
    console = _console_errors(result.stderr)
    assert not console, f"JavaScript console errors: {console[:3]}"
    assert not MISSING, f"requests that failed: {MISSING[:5]}"


# ------------------------------------------------------------ hidden solutions

HIDDEN = Path(os.environ.get("KMBOOK_HIDDEN_SITE", ROOT / "_build" / "hidden" / "_build" / "html"))


@pytest.mark.skipif(not (HIDDEN / "index.html").is_file(),
                    reason="no build without solutions (run `make book-hidden`)")
@pytest.mark.parametrize("name", ["exercises/01_ridge", "exercises/02_cross_validation"])
def test_site_built_without_solutions_keeps_exercises_and_checks_only(name):
    """`make book-hidden`: statements and check cells stay; solutions and the check
    outputs (computed from the solutions) are gone."""
    shown, hidden = _soup(HTML / f"{name}.html"), _soup(HIDDEN / f"{name}.html")
    assert shown.select(".solution"), "the normal build should show solutions"
    assert not hidden.select(".solution, .tag_solution")
    assert len(hidden.select(".exercise")) == len(shown.select(".exercise")) >= 4
    checks = hidden.select(".tag_check")
    assert checks and len(checks) == len(shown.select(".tag_check"))
    assert not any(c.select(".cell_output") for c in checks), "check outputs give answers away"


@pytest.mark.parametrize("page", [p for p in PAGES if p.parent.name in {"chapters", "exercises"}],
                         ids=_rel)
def test_no_visible_pin_and_no_echoed_value(page):
    """Pins are folded (hide-input) and print nothing; no cell shows a bare float echo."""
    visible, echoes = [], []
    for cell in _soup(page).select("div.cell"):
        source = cell.select_one(".cell_input")
        if source is None or "stated(" not in source.get_text():
            continue
        if "tag_hide-input" not in cell.get("class", []):
            visible.append(source.get_text()[:60])
        if cell.select(".cell_output .output"):
            echoes.append(source.get_text()[:60])
    assert not visible, f"{_rel(page)}: stated(...) visible: {visible[:3]}"
    assert not echoes, f"{_rel(page)}: a pin cell prints output: {echoes[:3]}"


SHEETS = sorted((HTML / "exercises").glob("*.html")) if (HTML / "exercises").is_dir() else []


@pytest.mark.parametrize("sheet", SHEETS, ids=lambda p: p.stem)
def test_exercises_are_numbered_per_sheet(sheet):
    """Sheet 4 holds Exercises 4.1, 4.2, ... (not a count running through the book)."""
    import re

    number = int(sheet.stem.split("_")[0])
    text = _soup(sheet).get_text(" ")
    shown = re.findall(r"Exercise (\d+(?:\.\d+)?)", text)
    boxes = [s.get_text(" ", strip=True) for s in _soup(sheet).select("span.caption-number")
             if s.get_text(strip=True).startswith("Exercise")]
    assert boxes, "no numbered exercise on the sheet"
    assert boxes == [f"Exercise {number}.{k}" for k in range(1, len(boxes) + 1)], boxes
    own = [s for s in shown if s.startswith(f"{number}.")]
    assert len(own) >= len(boxes) and all("." in s for s in shown), shown


# ------------------------------------------------------------ reader's extras


@pytest.mark.parametrize("page", [p for p in PAGES if _soup(p).find("body") is not None], ids=_rel)
def test_footer_shows_version_build_date_and_pdf(page):
    """Every page names the book's version and build date, and links the PDF (with its
    size) when `make pdf` had built it before the site."""
    import re

    import kmlib

    version = kmlib.__version__
    footer = _soup(page).select_one(".kmbook-footer")
    assert footer is not None, "no footer"
    text = footer.get_text(" ", strip=True)
    assert f"Version {version}" in text
    assert re.search(r"built \d{4}-\d{2}-\d{2}", text), text
    pdfs = sorted((HTML / "downloads").glob("*.pdf"))
    links = [a for a in footer.find_all("a") if a.get("href", "").endswith(".pdf")]
    if pdfs:
        assert links, "the PDF exists but the page does not link it"
        size = pdfs[0].stat().st_size / 2**20
        assert re.search(r"\((\d+(\.\d)?) (MB|KB)\)", links[0].get_text()), links[0].get_text()
        assert f"{size:.1f} MB" in links[0].get_text() or size < 1
        assert (page.parent / links[0]["href"]).resolve() == pdfs[0].resolve()
    else:
        assert not links, "a PDF link without a PDF"


def test_repository_link_and_launch_links_follow_the_repository_setting():
    """_config.yml's repository URL drives the repository link and the Colab/Binder
    links: all present when it is set, all absent when it is empty."""
    import yaml

    url = (yaml.safe_load((ROOT / "_config.yml").read_text()).get("repository") or {}).get("url")
    soup = _soup(HTML / "chapters" / "01_ridge.html")
    launch = soup.select("a.kmbook-launch-link")
    repo = soup.select("a.kmbook-repository")
    if url:
        assert repo and repo[0]["href"] == url
        hrefs = [a["href"] for a in launch]
        assert any(h.startswith("https://colab.research.google.com/github/") for h in hrefs)
        assert any(h.startswith("https://mybinder.org/v2/gh/") for h in hrefs)
        nb = nbformat.read(HTML / "_sources" / "chapters" / "01_ridge.ipynb", as_version=4)
        assert "kmbook-install" in nb.cells[0].metadata.get("tags", [])
    else:
        assert not launch and not repo
        assert not soup.select(".dropdown-launch-buttons, a[href*='colab.research']")


def test_notebook_install_cell_installs_the_site_wheel_only_when_kmlib_is_missing():

    import kmbook

    cell = kmbook.install_cell("https://owner.github.io/book/", "1.2.3")
    assert 'find_spec("kmlib") is None' in cell.source
    assert ("%pip install -q \"kmlib[notebooks] @ "
            "https://owner.github.io/book/downloads/kmlib-1.2.3-py3-none-any.whl\"") in cell.source
    wheels = sorted((HTML / "downloads").glob("kmlib-*.whl"))
    assert wheels and wheels[-1].name.endswith("-py3-none-any.whl"), (
        "the wheel's name is what the install cell assumes")


def test_notebook_zip_has_a_readme():
    import zipfile

    with zipfile.ZipFile(HTML / "downloads" / "kmbook-notebooks.zip") as zf:
        readme = zf.read("kmbook-notebooks/README.txt").decode()
    assert "requirements.txt" in readme and "jupyter lab" in readme


@pytest.mark.parametrize("page", [p for p in PAGES if _soup(p).find("body") is not None], ids=_rel)
def test_page_loads_no_icon_script_and_no_math_script(page):
    """Icons come from a subset of the theme's icon font (fontawesome.js, 1.49 MB, is left
    out by _templates/layout.html); formulas are MathML written at build time."""
    scripts = [s.get("src", "") for s in _soup(page).find_all("script")]
    assert not [s for s in scripts if "fontawesome" in s or "mathjax" in s.lower()], scripts
    assert not _soup(page).select("span.math:not(:has(math)), div.math:not(:has(math))"), (
        "a formula left as TeX")
    html = page.read_text(encoding="utf-8")
    assert "<mi>&</mi>" not in html and 'linebreak="newline"' not in html, (
        "an alignment or line break that the browser does not draw")


@pytest.mark.parametrize("page", [p for p in PAGES if _soup(p).find("body") is not None], ids=_rel)
def test_head_holds_one_stylesheet_one_viewport_and_no_blocking_script(page):
    """What a phone waits for before the first paint: one stylesheet (the joined one),
    no script file without defer or async (the search page's own scripts excepted), and
    the viewport declared once."""
    head = _soup(page).head
    sheets = [link["href"] for link in head.find_all("link", rel="stylesheet")]
    assert len(sheets) == 1 and "/kmbook-site-" in "/" + sheets[0], sheets
    assert len(head.find_all("meta", attrs={"name": "viewport"})) == 1
    blocking = [s["src"] for s in head.find_all("script", src=True)
                if not s.has_attr("defer") and not s.has_attr("async")]
    assert not blocking, f"render-blocking scripts: {blocking}"
    css = (page.parent / sheets[0].split("?")[0]).read_text(encoding="utf-8")
    assert "@import" not in css and "/*" not in css and "\n" not in css.strip()


@pytest.mark.parametrize("page", [p for p in PAGES if _soup(p).find("body") is not None], ids=_rel)
def test_scroll_tracking_follows_the_in_page_contents_only(page):
    """Bootstrap's ScrollSpy tracks the in-page contents' links (not every link of the
    text, which it measures one by one when the page loads); no contents, no tracking."""
    soup = _soup(page)
    body = soup.find("body")
    if body.get("data-bs-spy"):
        assert body.get("data-bs-target") == "#pst-page-toc-nav"
        assert soup.select_one("#pst-page-toc-nav") is not None
    else:
        assert soup.select_one("#pst-page-toc-nav") is None


def test_icon_font_subset_draws_every_icon_a_page_shows():
    """Every Font Awesome icon a page shows has its glyph in the site's cut-down icon font
    and its rule in the joined stylesheet (the full fonts are not used)."""
    import re

    from fontTools.ttLib import TTFont

    css = next((HTML / "_static").glob("kmbook-site-*.css")).read_text(encoding="utf-8")
    assert "fa-solid-900.woff2" not in css and "fa-solid-900.kmbook.woff" in css
    glyphs = set(TTFont(HTML / "_static" / "fa-solid-900.kmbook.woff").getBestCmap())
    brands = HTML / "_static" / "fa-brands-400.kmbook.woff"
    if brands.is_file():
        glyphs |= set(TTFont(brands).getBestCmap())
    shown = set()
    for page in PAGES:
        for el in _soup(page).select("[class*='fa-']"):
            shown |= {c for c in el["class"] if c.startswith("fa-")}
    icons = {name for name in shown if name not in {"fa-solid", "fa-brands", "fa-regular",
                                                     "fa-lg", "fa-fw", "fa-xs", "fa-sm"}}
    assert icons, "no icon found on any page"
    for name in sorted(icons):
        rule = r"\." + re.escape(name) + r":+before[^{]*\{content:\"\\([0-9a-f]+)\""
        match = re.search(rule, css)
        assert match, f"{name}: no rule in the joined stylesheet"
        assert int(match.group(1), 16) in glyphs, f"{name}: no glyph in the icon font"
    assert len(glyphs) < 80, f"{len(glyphs)} glyphs: the icon font is not cut down"


def test_tex_to_mathml_reads_the_books_idioms():
    """aligned, unbraced \\mathbb E, f'' with a power, bold Greek and upright d."""
    from html import unescape

    import kmbook

    aligned = kmbook.tex_to_mathml(r"\begin{aligned}a&=b\\&=c\end{aligned}", True)
    assert aligned.count("<mtr>") == 2 and "&</mi>" not in aligned
    assert "\U0001D53C" in unescape(kmbook.tex_to_mathml(r"\mathbb E z", False))  # double-struck
    assert "\U0001D736" in unescape(kmbook.tex_to_mathml(r"\boldsymbol{\alpha}", False))
    assert "<mtext>d</mtext>" in kmbook.tex_to_mathml(r"\mathrm{d}x", False)
    assert "<msup>" in kmbook.tex_to_mathml("\\int f''^2", False)
    parts = kmbook._inline_parts(kmbook.tex_to_mathml(r"a+b=c\le d+e+f", False))
    assert len(parts) == 6 and all(p.startswith("<math") for p in parts)  # after = <= and +
    assert len(kmbook._inline_parts(kmbook.tex_to_mathml("-n+1-m", False))) == 3  # - n is a sign


def test_slim_mathml_drops_only_wrappers_that_change_nothing():
    """The page's MathML without the namespace, the default display, the formula's outer
    <mrow> and one-child <mrow>s; groups of several items, empty groups (``{}`` before an
    operator) and groups around an operator stay. (That the browser draws the slimmed
    formulas pixel for pixel as before was checked on every formula of the site with
    .ci/a11y/samepixels.mjs.)"""
    import kmbook

    slim = kmbook.slim_mathml
    # written out by hand: x^{2}+1 is a superscript, a plus and a number
    assert slim(kmbook.tex_to_mathml("x^{2}+1", False)) == \
        "<math><msup><mi>x</mi><mn>2</mn></msup><mo>+</mo><mn>1</mn></math>"
    assert slim(kmbook.tex_to_mathml("x_{i}", False)) == \
        "<math><msub><mi>x</mi><mi>i</mi></msub></math>"
    power = slim(kmbook.tex_to_mathml("X^{-1}", False))
    assert "<mrow><mo>−</mo><mn>1</mn></mrow>" in power  # two items: the group stays
    assert "<mrow><mo>−</mo></mrow>" in slim(kmbook.tex_to_mathml("a^{-}", False))
    aligned = slim(kmbook.tex_to_mathml(r"\begin{aligned}a&=b\\&=c\end{aligned}", True))
    assert aligned.startswith('<math display="block"><mtable>') and aligned.count("<mrow />") == 2
    assert "xmlns" not in aligned
    assert 'display="inline"' not in slim(kmbook.tex_to_mathml("a", False))
    assert slim("<math><mi>a</mi") == "<math><mi>a</mi"  # not XML: left as it is


def test_stylesheet_pruning_keeps_every_selector_a_page_or_script_can_match(tmp_path):
    """A selector goes only when it names a class or id that no page has and no script
    adds; what it names inside :not(), attribute selectors and the like is not read."""
    import kmbook

    css = (".a{x:1}.b,.a .c{y:2}@media (min-width:1px){.d{z:3}.a:not(.e){w:4}}#f{v:5}"
           "[data-x]{u:6}.bs-tooltip-auto .g{t:7}@font-face{font-family:k}.p\\:q{s:8}")
    names = {"a", "c"}
    assert kmbook._prune_css(css, names.__contains__) == (
        ".a{x:1}.a .c{y:2}@media (min-width:1px){.a:not(.e){w:4}}[data-x]{u:6}"
        "@font-face{font-family:k}.p\\:q{s:8}")
    assert kmbook._prune_css(css, lambda name: True) == css
    (tmp_path / "_static").mkdir()
    (tmp_path / "page.html").write_text(
        '<p class="a b" id="f">x</p><script>document.body.classList.add("inline-added")</script>')
    (tmp_path / "_static" / "s.js").write_text(
        'const n = "tooltip"; el.classList.add(`bs-${n}-auto`); el.className = "pre-" + k;')
    known = kmbook._site_names(tmp_path)
    assert all(known(n) for n in ("a", "b", "f", "inline-added", "bs-tooltip-auto",
                                  "bs-popover-auto", "pre-x", "tooltip"))
    assert not any(known(n) for n in ("c", "g", "carousel", "bs-tooltip"))


def _theme_file(package: str, *parts: str) -> Path:
    import importlib.util

    return Path(importlib.util.find_spec(package).origin).parent.joinpath(*parts)


def test_theme_hooks_still_hold():
    """What the site's small overrides rely on, so a theme, Sphinx or package upgrade
    fails here instead of silently changing the pages:
    * _templates/layout.html writes pydata-sphinx-theme's head blocks "css" and
      "extrahead" without the separate stylesheets, fontawesome.js, the script preloads
      and the second viewport line: the theme's blocks hold exactly those, and its two
      stylesheets are the ones _ext/kmbook.py joins into the page's one stylesheet;
    * the icons are Font Awesome's, drawn from the theme's fonts (cut to a subset);
    * the two copied components differ from the theme's only in the accessibility fix;
    * the two package visitors the book overrides (myst-nb's hide-input toggle, docutils'
      bibliography entry) are still written as the book's copies assume;
    * docutils adds the viewport line kmbook._one_viewport removes;
    * Sphinx's search page skips its excerpts when html_show_search_summary is off, lists
      results as <li> in #search-results, and highlights with _highlightText (what
      kmbook-search.js builds on)."""
    import inspect
    import re

    import kmbook

    def squeeze(text: str) -> str:
        return " ".join(text.split())

    pst = _theme_file("pydata_sphinx_theme", "theme", "pydata_sphinx_theme")
    layout = (pst / "layout.html").read_text()
    css_block = re.search(r"\{%- block css %\}(.*?)\{%- endblock css %\}", layout, re.S).group(1)
    css_block = re.sub(r"\{#.*?#\}|<!--.*?-->", "", css_block, flags=re.S)
    ours = (ROOT / "_templates" / "layout.html").read_text()
    ours_css = re.search(r"\{%- block css %\}(.*?)\{%- endblock css %\}", ours, re.S).group(1)
    # the theme's block: the colour-mode script and no-script rule (ours has them as
    # written there), its stylesheets, Sphinx's css(), fontawesome.js and preloads
    theme_lines = [ln.strip() for ln in css_block.splitlines() if ln.strip()]
    assert [ln for ln in theme_lines if "{{" in ln and "dataset" not in ln] == [
        "{{ _webpack.head_pre_assets() }}", "{{- css() }}", "{{ _webpack.head_js_preload() }}"]
    for line in theme_lines:
        if "{{" not in line or "dataset" in line:
            assert line in ours_css, f"the theme's css block changed: {line}"
    macros = (pst / "static" / "webpack-macros.html").read_text()
    pre = re.search(r"macro head_pre_assets\(\)(.*?)endmacro", macros, re.S).group(1)
    assert re.findall(r"_static/(styles/[\w.-]+\.css)", pre) == list(kmbook.THEME_PRE_CSS)
    preload = re.search(r"macro head_js_preload\(\)(.*?)endmacro", macros, re.S).group(1)
    assert re.findall(r"_static/([\w/.-]+\.js)", preload) == [
        "scripts/fontawesome.js", "scripts/bootstrap.js", "scripts/pydata-sphinx-theme.js"]
    assert "scripts/bootstrap.js" in re.search(r"macro body_post\(\)(.*?)endmacro", macros,
                                               re.S).group(1)
    theme_css = (pst / "static" / "styles" / "theme.css").read_text()
    assert '@import "../basic.css";' in theme_css
    extrahead = re.search(r"block extrahead %\}(.*?)\{%- endblock extrahead", layout, re.S).group(1)
    ours_extra = re.search(r"block extrahead %\}(.*?)\{%- endblock extrahead", ours, re.S).group(1)
    assert squeeze(extrahead.replace(
        '<meta name="viewport" content="width=device-width, initial-scale=1"/>', "")) == \
        squeeze(ours_extra), "the theme's extrahead block changed: bring layout.html up to date"
    # the body tag: the theme's, its scroll tracking pointed at the book theme's in-page
    # contents (a <nav id="pst-page-toc-nav">), and none on a page without them
    block = r"\{% block body_tag %\}(.*?)\{%- endblock %\}"
    body_tag = re.search(block, layout, re.S).group(1)
    ours_body = re.search(block, ours, re.S).group(1)
    body_tag = re.sub(r"\{#.*?#\}", "", body_tag)
    theme_body = [ln.strip() for ln in body_tag.splitlines() if ln.strip()]
    spy = '<body data-bs-spy="scroll" data-bs-target=".bd-toc-nav" '
    assert theme_body[0].startswith(spy), "the theme's body tag changed: update layout.html"
    assert theme_body[0].replace(".bd-toc-nav", "#pst-page-toc-nav") in ours_body
    assert theme_body[0].replace(spy.replace("<body ", ""), "").replace(
        'data-offset="180" data-bs-root-margin="0px 0px -60%" ', "") in ours_body
    assert all(line in ours_body for line in theme_body[1:])
    page_toc = _theme_file("sphinx_book_theme", "theme", "sphinx_book_theme", "components",
                           "page-toc.html").read_text()
    assert '<nav id="pst-page-toc-nav"' in page_toc and "bd-toc-nav" not in page_toc
    basic = _theme_file("sphinx", "themes", "basic", "layout.html").read_text()
    assert '<meta name="viewport"' in basic  # the one viewport line that stays
    assert kmbook.DOCUTILS_VIEWPORT.strip() in _theme_file(
        "docutils", "writers", "html5_polyglot", "__init__.py").read_text().replace(
        "'\n                         '", "").replace("\\n", "")
    css = (pst / "static" / "styles" / "pydata-sphinx-theme.css").read_text()
    assert "fa-solid-900.ttf" in css and ".fa-magnifying-glass:before" in css

    def lines(text: str) -> list[str]:
        text = re.sub(r"\{#.*?#\}", "", text, flags=re.S)
        return [" ".join(ln.split()) for ln in text.splitlines() if ln.strip()]

    for name in ("search-button-field.html", "theme-switcher.html"):
        upstream = (pst / "components" / name).read_text()
        # the fix: no aria-label beside the visible text, icons hidden, not titled
        upstream = upstream.replace(" aria-label=\"{{ _('Search') }}\"", "")
        upstream = re.sub(r'(<i [^>]*?) title="[^"]*"></i>', r"\1></i>", upstream)
        upstream = re.sub(r"(<i [^>]*)></i>", r'\1 aria-hidden="true"></i>', upstream)
        ours = (ROOT / "_templates" / name).read_text()
        assert lines(ours) == lines(upstream), (
            f"the theme's components/{name} changed: bring _templates/{name} up to date")

    # the package visitors that the book's visitors copy, with the one fix each
    from docutils.writers._html_base import HTMLTranslator
    from myst_nb import sphinx_ as myst_nb_sphinx

    def body(function) -> list[str]:
        source = inspect.getsource(function)
        source = re.sub(r'""".*?"""', "", source, flags=re.S)
        return [squeeze(ln) for ln in source.splitlines()[1:]
                if ln.strip() and not ln.strip().startswith(("#", "from ", "import "))]

    def code(function) -> str:  # without blank space, one kind of quote
        return re.sub(r"\s+", "", "".join(body(function))).replace('"', "'")

    fixed = code(myst_nb_sphinx.visit_HideCellInput).replace(
        re.sub(r"\s+", "", kmbook.MYST_NB_SUMMARY).replace('"', "'"), "<summary>")
    assert fixed == code(kmbook._visit_hide_input), (
        "myst-nb's visit_HideCellInput changed: bring kmbook._visit_hide_input up to date")
    fixed = code(HTMLTranslator.visit_citation).replace(
        "role='doc-biblioentry'", "role='listitem'")
    assert fixed == code(kmbook._visit_citation), (
        "docutils' visit_citation changed: bring kmbook._visit_citation up to date")

    tools = _theme_file("sphinx", "themes", "basic", "static", "searchtools.js").read_text()
    assert "else if (showSearchSummary)" in tools
    assert "Search.output.appendChild(listItem);" in tools
    assert "const _highlightText = " in _theme_file(
        "sphinx", "themes", "basic", "static", "sphinx_highlight.js").read_text()
    assert 'id="search-results"' in _theme_file("sphinx", "themes", "basic",
                                                "search.html").read_text()


def test_search_is_accent_insensitive_in_the_index():
    """The index stores folded words, and the page's stemmer folds the query."""
    import json
    import re

    raw = (HTML / "searchindex.js").read_text(encoding="utf-8")
    index = json.loads(re.search(r"Search\.setIndex\((.*)\)\s*$", raw, re.S).group(1))
    # Sphinx stores each word as written and its stem; the stem is folded, and the page's
    # query is stemmed the same way, so "Nystrom" and "Nyström" both look up "nystrom"
    def pages(word):
        found = index["terms"].get(word, [])
        return {found} if isinstance(found, int) else set(found)

    assert pages("nystrom") and pages("nystrom") >= pages("nyström")
    language = (HTML / "_static" / "language_data.js").read_text(encoding="utf-8")
    assert 'normalize("NFKD")' in language and "var Scorer" in language
