"""The chapters' slide decks (``make slides``) and the slide metadata of the plain notebooks.

References the checks trust, independent of ``scripts/make_slides.py``:

* the chapter sources (``chapters/*.md``): the ``{prf:definition}`` ... ``{prf:corollary}``
  directives, the figures (code cells with ``mystnb.figure``) and the cells tagged ``slide``;
* the website's chapter pages: the number and title of every box and figure as the site
  shows them, and the image files under ``_images/``;
* headless Chromium (``.ci/slides/check.mjs`` with playwright-core from ``.ci/a11y``) with
  every request that is not ``file:``/``data:`` aborted and counted: console errors, every
  formula laid out as MathML (``display: block math`` / ``inline math``), no TeX source
  left, every image decoded, every slide's content inside the slide, and ``?print-pdf``
  printing one page per slide.

The deck checks are skipped, with the reason, when ``_build/slides`` is missing (``make
book`` then ``make slides``) or a tool is.
"""
from __future__ import annotations

import base64
import functools
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import bs4
import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
HTML = Path(os.environ.get("KMBOOK_SITE", ROOT / "_build" / "html"))
SLIDES = Path(os.environ.get("KMBOOK_SLIDES", ROOT / "_build" / "slides"))
CHECK = ROOT / ".ci" / "slides" / "check.mjs"
A11Y = ROOT / ".ci" / "a11y"
CHAPTERS = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.md"))
KINDS = ("definition", "theorem", "proposition", "lemma", "corollary")
BOX = re.compile(r"^\s*(`{3,}|:{3,})\{prf:(" + "|".join(KINDS) + r")\}", re.M)

sys.path.insert(0, str(ROOT / "_ext"))
import plain_notebook as pn  # noqa: E402

no_decks = pytest.mark.skipif(
    not SLIDES.is_dir() or not (HTML / "index.html").is_file(),
    reason="no slide decks in _build/slides (run `make book`, then `make slides`)")


def _source(chapter: Path):
    import jupytext

    return jupytext.read(chapter, fmt="md:myst")


def _source_figures(chapter: Path) -> int:
    return sum(1 for c in _source(chapter).cells if c.cell_type == "code"
               and ((c.metadata.get("mystnb") or {}).get("figure") or {}).get("caption"))


def _source_slide_cells(chapter: Path) -> list[str]:
    return [c.source for c in _source(chapter).cells
            if c.cell_type == "code" and "slide" in c.metadata.get("tags", [])]


@functools.lru_cache(maxsize=None)
def _soup(path: Path):
    return bs4.BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def _sections(deck: Path):
    return _soup(deck).select(".reveal .slides > section")


def _site_items(chapter: Path) -> dict[str, str]:
    """Label -> the number and title the website shows ("Theorem 4.2 (…)", "Fig. 4.1")."""
    page = _soup(HTML / "chapters" / f"{chapter.stem}.html")
    items = {}
    for box in page.select("div.proof"):
        if any(k in box["class"] for k in KINDS):
            items[box["id"]] = " ".join(box.find("p", class_="admonition-title").get_text().split())
    for fig in page.select("figure"):
        if fig.find("img"):
            items[fig["id"]] = fig.select_one("span.caption-number").get_text().strip()
    return items


# ------------------------------------------------------------------- the decks, as HTML
@no_decks
@pytest.mark.site
def test_every_chapter_has_a_deck():
    missing = [c.stem for c in CHAPTERS if not (SLIDES / f"{c.stem}.html").is_file()]
    assert not missing, f"no deck for {missing} in {SLIDES}"


@no_decks
@pytest.mark.site
@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_deck_has_every_box_and_figure_with_the_sites_number(chapter):
    """Slides ≥ boxes + figures of the source; each one under the number the site shows."""
    deck = SLIDES / f"{chapter.stem}.html"
    sections = _sections(deck)
    n_boxes = len(BOX.findall(chapter.read_text(encoding="utf-8")))
    n_figures = _source_figures(chapter)
    assert len(sections) >= n_boxes + n_figures + 2, (len(sections), n_boxes, n_figures)
    site = _site_items(chapter)
    assert len(site) == n_boxes + n_figures, "the site and the source disagree"
    shown = {}
    for s in sections:
        label = s.get("data-km-label")
        if label:
            shown[label] = " ".join(s.find("h2").get_text().split())
    assert set(shown) == set(site), set(site) ^ set(shown)
    for label, text in site.items():
        assert shown[label].startswith(text), (label, shown[label], text)
    kinds = [s["data-km-kind"] for s in sections]
    assert kinds[0] == "title" and kinds[1] == "goals" and kinds[-1] == "keypoints", kinds


@no_decks
@pytest.mark.site
@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_every_figure_is_the_sites_image_and_caption(chapter):
    deck = SLIDES / f"{chapter.stem}.html"
    page = _soup(HTML / "chapters" / f"{chapter.stem}.html")
    by_label = {s.get("data-km-label"): s for s in _sections(deck) if s.get("data-km-label")}
    for fig in page.select("figure"):
        img = fig.find("img")
        if img is None:
            continue
        slide = by_label[fig["id"]]
        src = slide.find("img")["src"]
        assert src.startswith("data:image/"), src[:40]
        data = base64.b64decode(src.split(",", 1)[1])
        assert data == (HTML / "chapters" / img["src"]).resolve().read_bytes(), fig["id"]
        assert slide.find("img").get("alt") == img.get("alt")
        caption = " ".join(fig.select_one("span.caption-text").get_text().split())
        assert " ".join(slide.find("figcaption").get_text().split()) == caption


@no_decks
@pytest.mark.site
@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_slide_cells_are_on_slides_with_their_code(chapter):
    cells = _source_slide_cells(chapter)
    assert cells, f"{chapter.name}: no cell tagged slide"
    code = [" ".join(s.select_one(".km-code pre").get_text().split())
            for s in _sections(SLIDES / f"{chapter.stem}.html") if s["data-km-kind"] == "code"]
    assert code == [" ".join(c.split()) for c in cells]


@no_decks
@pytest.mark.site
@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_deck_is_one_offline_file_with_speaker_notes(chapter):
    soup = _soup(SLIDES / f"{chapter.stem}.html")
    for tag, attr in (("script", "src"), ("link", "href"), ("img", "src")):
        for el in soup.find_all(tag):
            url = el.get(attr)
            assert not url or url.startswith("data:"), f"{tag} loads {url[:80]}"
    scripts = "".join(s.string or "" for s in soup.find_all("script"))
    assert "Reveal.initialize" in scripts and "RevealNotes" in scripts
    for s in _sections(SLIDES / f"{chapter.stem}.html"):
        if s["data-km-kind"] in {"box", "figure", "code", "title"}:
            assert s.find("aside", class_="notes"), s.find("h2")
        if s["data-km-kind"] == "box" and s.find("p", class_="km-pointer"):
            href = s.select_one("p.km-pointer a")["href"]
            target, _, anchor = href.partition("#")
            page = (SLIDES / target).resolve()
            assert page.is_file() and _soup(page).find(id=anchor), href


# ---------------------------------------------------------------- the decks, in Chromium
def _browser_missing() -> str | None:
    if shutil.which("node") is None:
        return "Node.js is not installed (apt-get install nodejs npm)"
    if not (A11Y / "node_modules" / "playwright-core").is_dir():
        return "playwright-core is not installed (cd .ci/a11y && npm ci)"
    if not os.environ.get("CHROMIUM") and not Path("/usr/bin/chromium").is_file():
        return "headless Chromium is not installed (apt-get install chromium)"
    return None


@functools.lru_cache(maxsize=1)
def _browser_report() -> dict[str, dict]:
    decks = [str(SLIDES / f"{c.stem}.html") for c in CHAPTERS]
    result = subprocess.run(["node", str(CHECK), "--pdf", *decks], capture_output=True,
                            text=True, timeout=900, cwd=CHECK.parent)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    out = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    return {d["deck"]: d for d in out}


@no_decks
@pytest.mark.site
@pytest.mark.skipif(_browser_missing() is not None, reason=_browser_missing() or "")
@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_deck_opens_offline_in_chromium_with_formulas_rendered(chapter):
    report = _browser_report()[f"{chapter.stem}.html"]
    assert report["errors"] == [], report["errors"]
    assert report["network"] == [], report["network"]
    slides = report["slides"]
    assert report["total"] == len(_sections(SLIDES / f"{chapter.stem}.html")) == len(slides)
    assert sum(s["math"] for s in slides) > 0
    for k, s in enumerate(slides):
        where = f"slide {k + 1} ({s['heading'][:50]})"
        assert s["mathLaidOut"] == s["math"], f"{where}: a formula is not laid out as MathML"
        assert not s["rawTex"], f"{where}: TeX source on the slide"
        assert not s["texInMath"], f"{where}: TeX left inside a formula: {s['texInMath']}"
        assert all(s["images"]), f"{where}: an image did not load"
        assert s["fits"], f"{where}: content outside the slide"
        # a statement or list that is too long is split, not shrunk below 90 %
        assert s["scale"] >= 0.9 or s["kind"] in {"code", "figure"}, (where, s["scale"])
    figures = [s for s in slides if s["kind"] == "figure"]
    assert len(figures) == _source_figures(chapter)
    assert report["pages"] == report["total"], "?print-pdf: not one page per slide"
    assert report["speakerNotes"] > 20, "the speaker view (key s) shows no notes"


# ------------------------------------------------------------ plain notebooks (RISE)
@pytest.mark.book
def test_slide_type_follows_the_deck():
    """Reference: the slide types written out by hand for a small notebook."""
    look = pn.Lookups(numbers={"thm-a": ("Theorem", "2.1"), "fig-a": ("Figure", "2.1")},
                      glue={})
    nb = nbformat.v4.new_notebook()
    fig = nbformat.v4.new_code_cell("plot()")
    fig.metadata["mystnb"] = {"figure": {"caption": "What to see.", "name": "fig-a"}}
    live = nbformat.v4.new_code_cell("K = k(X)")
    live.metadata["tags"] = ["slide"]
    pin = nbformat.v4.new_code_cell("stated('a', 1, 1);")
    pin.metadata["tags"] = ["hide-input"]
    folded_fig = nbformat.v4.new_code_cell("plot2()")
    folded_fig.metadata["tags"] = ["hide-input"]
    folded_fig.metadata["mystnb"] = {"figure": {"caption": "Two.", "name": "fig-b"}}
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Title\n\nGoals."),
        nbformat.v4.new_code_cell("import numpy as np"),
        nbformat.v4.new_markdown_cell("Some prose.\n\n```{prf:theorem} A\n:label: thm-a\n\n"
                                      "Statement.\n```\n\n```{prf:proof}\nProof.\n```"),
        pin, live, fig,
        nbformat.v4.new_markdown_cell("More prose."), folded_fig,
        nbformat.v4.new_markdown_cell("## Key points\n\n```{admonition} Key points\n"
                                      ":class: tip\n\n- one\n```"),
    ]
    out = pn.convert(nb, look)
    got = [(c.cell_type, c.metadata["slideshow"]["slide_type"]) for c in out.cells]
    assert got == [("markdown", "slide"), ("code", "-"), ("markdown", "slide"), ("code", "skip"),
                   ("code", "slide"), ("code", "slide"), ("markdown", "-"), ("markdown", "-"),
                   ("code", "slide"), ("markdown", "-"), ("markdown", "slide")]
    assert out.metadata["rise"] == {"scroll": True}
    nbformat.validate(out)


BUILT = HTML / "_sources" / "chapters"


@pytest.mark.site
@pytest.mark.skipif(not BUILT.is_dir(), reason="no website build (run `make book` first)")
@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_built_plain_notebooks_carry_slide_metadata_consistent_with_the_deck(chapter):
    nb = nbformat.read(BUILT / f"{chapter.stem}.ipynb", as_version=4)
    allowed = {"slide", "subslide", "fragment", "skip", "notes", "-"}
    cells = nb.cells
    if cells and cells[0].cell_type == "code" and "%pip install" in cells[0].source:
        cells = cells[1:]      # the install cell the site adds when it knows its own address
    types = [c.metadata.get("slideshow", {}).get("slide_type") for c in cells]
    assert all(t in allowed for t in types), [t for t in types if t not in allowed]
    assert types[0] == "slide" and cells[0].source.startswith("# ")
    tagged = [c for c in cells if c.cell_type == "code" and "slide" in c.metadata.get("tags", [])]
    assert [" ".join(c.source.split()) for c in tagged] == [
        " ".join(s.split()) for s in _source_slide_cells(chapter)]
    assert all(c.metadata["slideshow"]["slide_type"] == "slide" for c in tagged)
    for k, c in enumerate(cells):
        if c.cell_type == "code" and "hide-input" in c.metadata.get("tags", []) and not (
                k + 1 < len(cells) and cells[k + 1].source.startswith("**Figure ")):
            assert c.metadata["slideshow"]["slide_type"] == "skip", c.source[:80]
    # every box and figure of the website starts a slide in the notebook too
    text = {k: c.metadata["slideshow"]["slide_type"] for k, c in enumerate(cells)}
    n_boxes = n_figures = 0
    for k, c in enumerate(cells):
        if c.cell_type != "markdown":
            continue
        if re.search(r"^(> )?\*\*(Definition|Theorem|Proposition|Lemma|Corollary) \d",
                     c.source, re.M):
            n_boxes += len(re.findall(r"^(?:> )?\*\*(?:Definition|Theorem|Proposition|Lemma|"
                                      r"Corollary) \d", c.source, re.M))
            assert text[k] == "slide", c.source[:120]
        if c.source.startswith("**Figure "):
            n_figures += 1
            assert cells[k - 1].cell_type == "code" and text[k - 1] == "slide", c.source[:80]
    assert n_boxes == len(BOX.findall(chapter.read_text(encoding="utf-8")))
    assert n_figures == _source_figures(chapter)
    assert any("**Key points**" in c.source and text[k] == "slide" for k, c in enumerate(cells))
    assert nb.metadata["rise"] == {"scroll": True}


# ------------------------------------------------------------------- the site's link
@pytest.mark.site
@pytest.mark.skipif(not (HTML / "index.html").is_file(), reason="no website build")
@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_page_links_its_deck_when_the_site_has_it(chapter):
    page = _soup(HTML / "chapters" / f"{chapter.stem}.html")
    links = page.select("a.kmbook-slides-link")
    deck = HTML / "_static" / "slides" / f"{chapter.stem}.html"
    if not deck.is_file():
        assert not links, "a Slides link without its deck"
        pytest.skip("the site was built without reveal.js (cd .ci/slides && npm ci)")
    assert len(links) == 1
    assert (HTML / "chapters" / links[0]["href"]).resolve() == deck.resolve()
    site_deck = _sections(deck)
    assert len(site_deck) >= len(BOX.findall(chapter.read_text(encoding="utf-8")))
