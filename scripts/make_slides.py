"""One reveal.js slide deck per chapter, made from the chapter's page on the built website.

The website (``make book``) already holds everything a deck shows: the theorem-like boxes
with their numbers, the figures with their captions, the formulas as MathML, the cells the
chapter marks with the ``slide`` tag (code and output), the key points. This script reads
``_build/html/chapters/NN_name.html`` and writes ``NN_name.html``: a single offline file with
reveal.js (from ``.ci/slides/node_modules``, installed by ``npm ci``), the images and the
styles inlined. Nothing is executed and no formula is typeset again, so a number on a slide
is the website's number.

A deck holds, in the order of the chapter:

* a title slide (chapter number and title) and the learning goals;
* every definition, theorem, proposition, lemma and corollary, with its number, title and
  statement (a long statement continues on the next slide); the proof is left out and the
  slide links it on the website;
* every figure with its number and caption;
* every cell tagged ``slide``: its code and its text output;
* the key points, last.

Speaker notes (reveal.js: press ``s``) hold the chapter's question, the figures' alt text and
where each proof is. ``?print-pdf`` after the deck's address prints one slide per page.

Usage: ``python scripts/make_slides.py [--html _build/html] [--out _build/slides]
[--site-prefix ../html/]`` (the prefix leads from the deck's folder to the website, for the
links to proofs).
"""
from __future__ import annotations

import argparse
import base64
import copy
import html
import math
import mimetypes
import os
import posixpath
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import bs4

ROOT = Path(__file__).resolve().parents[1]
# reveal.js from npm (.ci/slides/package-lock.json); found above a copy of the book as well
# (the solution-free site is built from one under _build/)
_REVEAL_DIRS = [folder / ".ci" / "slides" / "node_modules" / "reveal.js" / "dist"
                for folder in (ROOT, *ROOT.parents)]
REVEAL = next((d for d in _REVEAL_DIRS if (d / "reveal.js").is_file()), _REVEAL_DIRS[0])
KINDS = ("definition", "theorem", "proposition", "lemma", "corollary")
MAX_LINES = 12          # lines of statement on one slide
CHARS_PER_LINE = 80     # at the deck's statement font size, on a 1280 px wide slide

__all__ = ["Deck", "parse_chapter", "render", "build", "main"]


@dataclass
class Slide:
    """One slide: what it shows and its speaker notes."""

    kind: str                      # title, goals, box, figure, code, keypoints
    heading: str                   # shown at the top (HTML)
    body: str                      # HTML
    notes: str = ""                # HTML of the speaker notes
    section: str = ""              # the chapter's section, shown small above the heading
    label: str = ""                # the website's anchor (box or figure), for the tests


@dataclass
class Deck:
    """The slides of one chapter."""

    name: str                      # NN_name
    number: str                    # "4"
    title: str
    slides: list[Slide] = field(default_factory=list)


# ----------------------------------------------------------------------------- parsing
def _text(node) -> str:
    return " ".join(node.get_text(" ").split())


def _clean(node, page: str, prefix: str, images: Path):
    """A copy of ``node`` for a slide: no ids or anchors, links to the website, images inlined."""
    node = copy.copy(node)
    for el in node.select("a.headerlink, span.target, .sd-hide-link-text"):
        el.decompose()
    for el in [node, *node.find_all(True)]:
        el.attrs.pop("id", None)
        if el.name == "a" and el.get("href"):
            href = el["href"]
            if href.startswith("#"):
                el["href"] = f"{prefix}chapters/{page}{href}"
            elif not re.match(r"^[a-z]+:|^//", href):
                el["href"] = prefix + _resolve(f"chapters/{href}")
        if el.name == "img" and el.get("src"):
            el["src"] = _data_uri(images, el["src"])
            el.attrs.pop("loading", None)
    return node


def _resolve(path: str) -> str:
    """``path`` with ``.`` and ``..`` resolved, never above the book's root."""
    path = posixpath.normpath(path)
    return "" if path == "." else re.sub(r"^(\.\./)+|^\.\.$", "", path)


def _data_uri(images: Path, src: str) -> str:
    if src.startswith("data:"):
        return src
    path = images / Path(src).name
    mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return f"data:{mime};base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def _lines(block) -> int:
    """Estimated lines of ``block`` on a slide (display formulas count by their rows)."""
    if isinstance(block, bs4.NavigableString):
        return math.ceil(len(block.strip()) / CHARS_PER_LINE)
    classes = block.get("class") or []
    if block.name == "div" and "math" in classes:
        rows = len(block.find_all("mtr")) or 1
        return max(2, round(1.6 * rows))
    if block.name in {"ol", "ul"}:
        return sum(_lines(li) for li in block.find_all("li", recursive=False)) or 1
    length = 0
    for piece in block.descendants:
        if isinstance(piece, bs4.NavigableString) and piece.parent.name not in {
                "mi", "mo", "mn", "mtext", "ms", "math", "mrow", "msub", "msup", "mfrac"}:
            length += len(piece)
    for span in block.select("span.math[data-tex]"):
        length += 0.6 * len(span["data-tex"])
    tall = len(block.select("mfrac, munderover, msubsup")) // 2
    return max(1, math.ceil(length / CHARS_PER_LINE)) + tall


def _greedy(blocks: list, sizes: list[int], limit: float) -> list[list]:
    groups: list[list] = [[]]
    used = 0
    for block, n in zip(blocks, sizes, strict=True):
        if groups[-1] and used + n > limit:
            groups.append([])
            used = 0
        groups[-1].append(block)
        used += n
    return [g for g in groups if g]


def _chunks(blocks: list, limit: int = MAX_LINES) -> list[list]:
    """The blocks of a statement in slide-sized groups (≤ ``limit`` estimated lines each).

    As few groups as the greedy split needs, filled evenly: no slide with one last line.
    """
    sizes = [_lines(b) for b in blocks]
    groups = _greedy(blocks, sizes, limit)
    if len(groups) > 1:
        even = _greedy(blocks, sizes, min(limit, math.ceil(sum(sizes) / len(groups))))
        if len(even) == len(groups):
            return even
    return groups


def _box_blocks(content, force: bool = False) -> list:
    blocks = []
    for child in content.children:
        if isinstance(child, bs4.NavigableString):
            if child.strip():
                blocks.append(child)
            continue
        # a long list is split between its items: each item becomes its own list
        if child.name in {"ol", "ul"} and (force or _lines(child) > MAX_LINES):
            start = int(child.get("start", 1))
            for k, li in enumerate(child.find_all("li", recursive=False)):
                piece = copy.copy(child)
                piece.clear()
                piece.append(copy.copy(li))
                if child.name == "ol":
                    piece["start"] = str(start + k)
                blocks.append(piece)
            continue
        blocks.append(child)
    return blocks


def parse_chapter(path: Path, prefix: str = "../html/") -> Deck:
    """The deck of the chapter page ``path`` (``.../chapters/NN_name.html`` of the website)."""
    soup = bs4.BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
    article = soup.find("article") or soup.body
    images = path.parent.parent / "_images"
    page = path.name
    h1 = article.find("h1")
    number_span = h1.find("span", class_="section-number")
    number = number_span.get_text().strip().rstrip(".") if number_span else ""
    if number_span:
        number_span.extract()
    title = _text(_clean(h1, page, prefix, images))
    deck = Deck(path.stem, number, title)
    site = f"{prefix}chapters/{page}"
    link = f'<a href="{html.escape(site)}">the chapter on the website</a>'

    # title slide and learning goals: what stands between the title and the first section,
    # the goals being the first list (and the sentence that leads into it); the paragraphs
    # after it say what the chapter asks: on the title slide when it is one marked
    # paragraph ("The question."), in the speaker notes otherwise
    intro, motivation, question = [], [], ""
    for el in h1.find_next_siblings():
        if el.name == "section":
            break
        if el.name not in {"p", "ul", "ol"}:
            continue
        clean = _clean(el, page, prefix, images)
        if el.name == "p" and el.find("strong") and "question" in _text(el.find("strong")).lower():
            question = str(clean)
        elif any(b.name in {"ul", "ol"} for b in intro):
            motivation.append(str(clean))
        else:
            intro.append(clean)
    ask = f'<div class="km-question">{question}</div>' if question else ""
    notes = "".join(motivation)
    deck.slides.append(Slide(
        "title", f"Chapter {number}" if number else "", f"<h1>{html.escape(title)}</h1>{ask}",
        notes=notes + f"<p>Everything on these slides is in {link}; the proofs are there.</p>"))
    if intro:
        deck.slides += _text_slides("goals", "Learning goals", intro,
                                    notes=(question or notes) or f"<p>See {link}.</p>")

    wanted = []
    for el in article.find_all(["div", "figure", "h2"]):
        classes = el.get("class") or []
        if el.name == "h2":
            wanted.append(("section", el))
        elif el.name == "div" and "proof" in classes and any(k in classes for k in KINDS):
            wanted.append(("box", el))
        elif el.name == "figure" and el.find("img"):
            wanted.append(("figure", el))
        elif el.name == "div" and "cell" in classes and "tag_slide" in classes:
            wanted.append(("code", el))
        elif (el.name == "div" and "admonition" in classes
              and el.find("p", class_="admonition-title")
              and _text(el.find("p", class_="admonition-title")).lower() == "key points"):
            wanted.append(("keypoints", el))

    section, keypoints = "", None
    for kind, el in wanted:
        if kind == "section":
            h2 = _clean(el, page, prefix, images)
            for span in h2.select("span.section-number"):
                span.string = span.get_text().strip() + " "
            section = _text(h2)
        elif kind == "box":
            deck.slides += _box_slides(el, section, page, prefix, images)
        elif kind == "figure":
            deck.slides.append(_figure_slide(el, section, page, prefix, images))
        elif kind == "code":
            deck.slides.append(_code_slide(el, section, page, prefix, images))
        elif kind == "keypoints":
            keypoints = el
    if keypoints is not None:
        body = [_clean(c, page, prefix, images) for c in keypoints.find_all(recursive=False)
                if "admonition-title" not in (c.get("class") or [])]
        exercises = f"{prefix}exercises/{page}"
        deck.slides += _text_slides(
            "keypoints", "Key points", body,
            notes=f'<p>Exercises: <a href="{html.escape(exercises)}">the chapter\'s sheet</a>.</p>')
    return deck


def _text_slides(kind: str, heading: str, blocks: list, notes: str = "") -> list[Slide]:
    """Slides of paragraphs and lists (goals, key points), a long list split between items."""
    holder = bs4.BeautifulSoup("<div></div>", "html.parser").div
    for block in blocks:
        holder.append(copy.copy(block))
    groups = _chunks(_box_blocks(holder, force=True))
    slides = []
    for k, group in enumerate(groups):
        more = f' <span class="km-part">({k + 1}/{len(groups)})</span>' if len(groups) > 1 else ""
        slides.append(Slide(kind, heading + more, "\n".join(str(b) for b in group), notes=notes))
    return slides


def _box_slides(el, section: str, page: str, prefix: str, images: Path) -> list[Slide]:
    label = el.get("id", "")
    title_p = _clean(el.find("p", class_="admonition-title"), page, prefix, images)
    heading = "".join(str(c) for c in title_p.contents).strip()
    name = _text(title_p)
    kind = next(k for k in KINDS if k in el.get("class"))
    content = el.find("section", class_=re.compile(r"-content$")) or el
    groups = _chunks(_box_blocks(_clean(content, page, prefix, images)))
    site = f"{prefix}chapters/{page}#{label}"
    if kind == "definition":
        pointer = (f'<p class="km-pointer"><a href="{html.escape(site)}">{html.escape(name)}'
                   ' on the website</a></p>')
        notes = (f"<p>{html.escape(name)}: the context and the examples around it are on the "
                 "website.</p>")
    else:
        pointer = (f'<p class="km-pointer">Proof: <a href="{html.escape(site)}">'
                   f'{html.escape(name.split("(")[0].strip())} on the website</a></p>')
        notes = (f"<p>The proof of {html.escape(name)} is on the website, right after the "
                 "statement; the computation that follows it there checks what it promises.</p>")
    slides = []
    for k, group in enumerate(groups):
        body = "\n".join(str(b) for b in group)
        more = len(groups) > 1
        head = heading + (f' <span class="km-part">({k + 1}/{len(groups)})</span>' if more else "")
        last = k == len(groups) - 1
        slides.append(Slide("box", head, f'<div class="km-box km-{kind}">{body}</div>'
                            + (pointer if last else ""), notes=notes, section=section,
                            label=label if k == 0 else ""))
    return slides


def _figure_slide(el, section: str, page: str, prefix: str, images: Path) -> Slide:
    fig = _clean(el, page, prefix, images)
    img = fig.find("img")
    cap = fig.find("figcaption")
    number = cap.find("span", class_="caption-number") if cap else None
    heading = _text(number).rstrip() if number else "Figure"
    if number:
        number.decompose()
    caption = "".join(str(c) for c in cap.find("p").contents) if cap and cap.find("p") else ""
    img["class"] = "km-figure"
    body = f'<figure>{img}<figcaption>{caption}</figcaption></figure>'
    return Slide("figure", heading, body, notes=f"<p>{html.escape(img.get('alt', ''))}</p>",
                 section=section, label=el.get("id", ""))


def _code_slide(el, section: str, page: str, prefix: str, images: Path) -> Slide:
    cell = _clean(el, page, prefix, images)
    code = cell.find("div", class_="cell_input")
    out = cell.find("div", class_="cell_output")
    parts = [str(code.find("div", class_="highlight"))] if code else []
    n_lines = len(code.get_text().splitlines()) if code else 0
    if out is not None:
        for fig in out.find_all("figure"):
            fig.decompose()      # the figure has its own slide, next
        for img in out.find_all("img"):
            img.decompose()
        if _text(out):
            parts.append(f'<div class="km-output">{out.decode_contents()}</div>')
            n_lines += len(out.get_text().strip().splitlines())
    size = "km-small" if n_lines > 14 else ""
    # the notes: the chapter's sentence that introduces the computation
    before = el.find_previous_sibling()
    intro = str(_clean(before, page, prefix, images)) if before is not None and \
        before.name == "p" else ""
    return Slide("code", "In class: run it", f'<div class="km-code {size}">{"".join(parts)}</div>',
                 notes=intro + "<p>This cell is tagged <code>slide</code> in the chapter; in the "
                       "chapter's notebook (RISE) it starts a slide and runs live.</p>",
                 section=section)


# --------------------------------------------------------------------------- rendering
STYLE = """
:root { --km-ink: #1f2328; --km-accent: #0a58ca; --km-box: #f3f6fb; --km-muted: #57606a; }
html, body { background: #fff; }
.reveal { font-family: -apple-system, "Segoe UI", "Helvetica Neue", Arial, "Noto Sans",
  "Liberation Sans", sans-serif; font-size: 30px; color: var(--km-ink); }
.reveal .slides { text-align: left; }
.reveal .slides section { height: 100%; line-height: 1.35; }
.reveal h1, .reveal h2 { color: var(--km-ink); font-weight: 600; line-height: 1.2;
  margin: 0 0 .45em; }
.reveal h1 { font-size: 1.9em; }
.reveal h2 { font-size: 1.15em; border-bottom: 3px solid var(--km-accent); padding-bottom: .2em; }
.reveal .km-section { font-size: .55em; color: var(--km-muted); margin: 0 0 .2em;
  text-transform: none; letter-spacing: .02em; }
.reveal .km-part { color: var(--km-muted); font-weight: 400; font-size: .8em; }
.reveal p { margin: .35em 0; }
.reveal ul, .reveal ol { margin: .2em 0 .2em 1.2em; }
.reveal li { margin: .2em 0; }
.reveal a { color: var(--km-accent); }
.reveal math { font-family: "STIX Two Math", "Latin Modern Math", "Cambria Math",
  "Noto Sans Math", math; font-size: 1.08em; }
.reveal div.math { display: flex; align-items: center; justify-content: center;
  gap: 1em; margin: .45em 0; overflow: visible; }
.reveal div.math math { font-size: 1.12em; order: 1; }
.reveal div.math .eqno { order: 2; color: var(--km-muted); font-size: .8em; margin-left: auto; }
.reveal div.math math + .eqno, .reveal div.math .eqno { position: static; }
.reveal .km-box { background: var(--km-box); border-left: 6px solid var(--km-accent);
  padding: .35em .8em; border-radius: 4px; }
.reveal .km-theorem, .reveal .km-corollary { border-left-color: #6f42c1; }
.reveal .km-lemma, .reveal .km-proposition { border-left-color: #1a7f37; }
.reveal .km-pointer { font-size: .6em; color: var(--km-muted); text-align: right;
  margin-top: .6em; }
.reveal figure { margin: 0; text-align: center; }
.reveal section[data-km-kind="figure"] h2 { font-size: .85em; margin-bottom: .3em; }
.reveal img.km-figure { display: block; width: 100%; height: auto; max-height: 520px;
  object-fit: contain; margin: 0 auto; }
.reveal figcaption { font-size: .62em; color: var(--km-ink); text-align: left; margin-top: .4em;
  line-height: 1.3; }
.reveal .km-title { display: flex; flex-direction: column; justify-content: center;
  min-height: 600px; }
.reveal .km-question { font-size: .72em; color: var(--km-muted); margin: .6em 0 1.2em; }
.reveal strong, .reveal b { font-weight: 700; }
.reveal em, .reveal i { font-style: italic; }
.reveal code { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: .9em; }
.reveal .km-title .km-kicker { color: var(--km-accent); font-size: .9em; font-weight: 600; }
.reveal .km-code .highlight { background: #f6f8fa; border-radius: 4px; padding: .3em .5em; }
.reveal .km-code pre { font-size: .62em; line-height: 1.3; margin: 0; white-space: pre;
  box-shadow: none; width: 100%; font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; }
.reveal .km-code.km-small pre { font-size: .5em; }
.reveal .km-output { margin-top: .4em; border-left: 4px solid #d0d7de; padding-left: .5em; }
.reveal .km-output pre { background: #fff; }
.reveal table { font-size: .6em; border-collapse: collapse; }
.reveal table td, .reveal table th { border-bottom: 1px solid #d0d7de; padding: .15em .5em; }
.reveal .slide-number { background: transparent; color: var(--km-muted); font-size: 14px; }
.reveal .controls { color: var(--km-accent); }
.reveal .progress { color: var(--km-accent); }
"""

# after reveal.js has laid out a slide: content taller than the slide is scaled down to fit
FIT = """
function kmFit(slide) {
  var inner = slide.querySelector('.km-inner');
  if (!inner) return;
  inner.style.transform = '';
  var room = Reveal.getConfig().height - 40;
  var need = inner.scrollHeight;
  if (need > room) {
    var s = room / need;
    inner.style.transform = 'scale(' + s + ')';
    inner.style.transformOrigin = 'top left';
    inner.style.width = (100 / s) + '%';
  }
}
"""


def _asset(name: str) -> str:
    path = REVEAL / name
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: run `cd .ci/slides && npm ci`")
    return path.read_text(encoding="utf-8")


def _pygments(html_dir: Path) -> str:
    path = html_dir / "_static" / "pygments.css"
    if not path.is_file():
        return ""
    rules = [ln for ln in path.read_text(encoding="utf-8").splitlines()
             if ln.startswith('html[data-theme="light"]')]
    return "\n".join(rules)


def render(deck: Deck, html_dir: Path) -> str:
    """The deck as one HTML file, with reveal.js, its notes plugin and the styles inlined."""
    sections = []
    for s in deck.slides:
        head = f'<p class="km-section">{html.escape(s.section)}</p>' if s.section else ""
        attrs = f' data-km-kind="{s.kind}"'
        if s.label:
            attrs += f' data-km-label="{html.escape(s.label)}"'
        if s.kind == "title":
            inner = (f'<div class="km-title"><p class="km-kicker">{s.heading}</p>{s.body}'
                     '<p class="km-section">Kernel Methods — executable course notes</p></div>')
        else:
            inner = f"{head}<h2>{s.heading}</h2>{s.body}"
        notes = f'<aside class="notes">{s.notes}</aside>' if s.notes else ""
        sections.append(f'<section{attrs}><div class="km-inner">{inner}</div>{notes}</section>')
    title = f"Chapter {deck.number}: {deck.title}" if deck.number else deck.title
    css = _asset("reset.css") + "\n" + _asset("reveal.css")
    return f"""<!DOCTYPE html>
<html lang="en" data-theme="light">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="scripts/make_slides.py (reveal.js {_reveal_version()})">
<title>{html.escape(title)} — slides</title>
<link rel="icon" href="data:,">
<style>{css}</style>
<style>{_pygments(html_dir)}</style>
<style>{STYLE}</style>
</head>
<body>
<div class="reveal"><div class="slides">
{chr(10).join(sections)}
</div></div>
<script>{_asset("reveal.js")}</script>
<script>{_asset("plugin/notes.js")}</script>
<script>
{FIT}
Reveal.initialize({{
  width: 1280, height: 720, margin: 0.04, center: false, hash: true, slideNumber: 'c/t',
  transition: 'none', controls: true, progress: true, pdfMaxPagesPerSlide: 1,
  pdfSeparateFragments: false, plugins: [RevealNotes]
}});
Reveal.on('ready', function (e) {{
  kmFit(e.currentSlide);
  document.documentElement.dataset.kmReady = '1';
}});
Reveal.on('slidechanged', function (e) {{ kmFit(e.currentSlide); }});
Reveal.on('pdf-ready', function () {{
  document.querySelectorAll('.reveal .slides section').forEach(kmFit);
  document.documentElement.dataset.kmPdf = '1';
}});
</script>
</body>
</html>
"""


def _reveal_version() -> str:
    import json

    meta = REVEAL.parent / "package.json"
    return json.loads(meta.read_text())["version"] if meta.is_file() else "?"


def _write_deck(page: Path, html_dir: Path, out: Path, prefix: str) -> Path:
    target = out / page.name
    target.write_text(render(parse_chapter(page, prefix), html_dir), encoding="utf-8")
    return target


def build(html_dir: Path, out: Path, prefix: str, only: list[str] | None = None,
          jobs: int = 1) -> list[Path]:
    """Write one deck per chapter page of ``html_dir`` into ``out``; return their paths.

    ``jobs`` > 1 parses that many chapter pages at once (one process each).
    """
    pages = sorted((html_dir / "chapters").glob("*.html"))
    if only:
        pages = [p for p in pages if p.stem in only]
    if not pages:
        raise FileNotFoundError(f"no chapter pages in {html_dir / 'chapters'} (run `make book`)")
    out.mkdir(parents=True, exist_ok=True)
    if jobs <= 1 or len(pages) == 1:
        return [_write_deck(page, html_dir, out, prefix) for page in pages]
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(_write_deck, pages, [html_dir] * len(pages), [out] * len(pages),
                             [prefix] * len(pages)))


def main(argv: list[str] | None = None) -> int:
    """Command line: write the decks, print each one's slide count and size."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--html", type=Path, default=ROOT / "_build" / "html")
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "slides")
    parser.add_argument("--site-prefix", default="../html/",
                        help="path from the decks' folder to the website (links to proofs)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="chapter pages parsed at once (default: one per CPU)")
    parser.add_argument("chapters", nargs="*", help="only these chapters (NN_name)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    written = build(args.html, args.out, args.site_prefix, args.chapters, jobs=args.jobs)
    for path in written:
        n = path.read_text(encoding="utf-8").count("<section")
        print(f"{path}: {n} slides, {path.stat().st_size / 1e6:.1f} MB")
    print(f"== {len(written)} decks in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
