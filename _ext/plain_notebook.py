"""Turn an executed MyST notebook of the book into a plain Jupyter notebook.

The notebook a page offers for download must open in JupyterLab, classic
Notebook, VS Code or Colab without any extension and read well there. The
Markdown cells of the book use MyST (directives for theorems and exercises,
roles for glued numbers, cross-references and citations), which those tools
show as raw text. This module rewrites them into ordinary Markdown:

* ``{glue:text}`key:fmt``` becomes the number the build computed;
* ``{prf:theorem}`` and friends become a bold numbered heading and a block
  quote; ``{prf:proof}`` becomes *Proof.* ... ∎; admonitions become a bold title
  and a block quote; ``{index}``, labels and comments disappear;
* ``{prf:ref}``, ``{numref}``, ``{eq}``, ``{ref}`` and ``{doc}`` become the text
  the website shows ("Theorem 3.2", "(3.4)", the chapter title), linked to the
  website when ``html_baseurl`` is set; ``{cite}`` becomes "(Author, year)" and
  a "References" cell lists the works cited;
* labelled display equations get ``\\tag{...}`` with the website's number;
* the glue outputs are dropped, pin cells (``hide-input``) are collapsed, and a
  figure's caption follows its cell as Markdown;
* every cell gets RISE / ``jupyterlab-rise`` metadata (``slideshow.slide_type``) that
  follows the chapter's slide deck (``scripts/make_slides.py``): a new slide at the title,
  each section, each cell with a theorem-like box, each figure, each cell tagged ``slide``
  and the key points; pins (folded cells without a figure) are skipped; the rest continues
  the slide before it.

:func:`convert` is pure (it takes the lookups as arguments) so it can be used
and tested outside Sphinx; :func:`lookups_from_env` builds them from a Sphinx
environment.
"""
from __future__ import annotations

import copy
import posixpath
import re
from dataclasses import dataclass, field
from typing import Callable

__all__ = ["Lookups", "convert", "convert_markdown", "lookups_from_env", "slide_type"]

PROOF_TITLES = {
    "definition": "Definition", "theorem": "Theorem", "proposition": "Proposition",
    "lemma": "Lemma", "corollary": "Corollary", "remark": "Remark", "example": "Example",
    "algorithm": "Algorithm", "conjecture": "Conjecture", "criterion": "Criterion",
    "axiom": "Axiom", "observation": "Observation", "property": "Property",
    "assumption": "Assumption", "notation": "Notation",
}
ADMONITIONS = {"note", "tip", "warning", "important", "hint", "caution", "attention",
               "danger", "error", "seealso", "admonition", "dropdown", "margin", "sidebar",
               "topic", "epigraph"}
DROPPED = {"index", "bibliography", "toctree", "tableofcontents", "glossary"}
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|:{3,})\{(?P<name>[\w:-]+)\}\s*(?P<arg>.*)$")
ROLE = re.compile(r"\{(?P<name>[\w:-]+)\}`(?P<body>[^`]*)`")
LABEL_LINE = re.compile(r"^\s*\(([\w:.-]+)\)=\s*$")
DOLLAR_LABEL = re.compile(r"^(?P<pre>.*)\$\$\s*\((?P<label>[\w:.-]+)\)\s*$")


@dataclass
class Lookups:
    """What the converter needs to know about the built book."""

    glue: dict[str, str] = field(default_factory=dict)          # key -> text/plain
    numbers: dict[str, tuple[str, str]] = field(default_factory=dict)  # label -> (kind, "3.2")
    titles: dict[str, str] = field(default_factory=dict)        # label -> section/figure title
    docs: dict[str, str] = field(default_factory=dict)          # docname -> title
    targets: dict[str, str] = field(default_factory=dict)       # label -> "docname#anchor"
    cite: Callable[[str, bool], str] | None = None               # key, textual -> "(A, 2009)"
    baseurl: str = ""
    docname: str = ""
    cited: list[str] = field(default_factory=list)


def _format_glue(text: str, fmt: str) -> str:
    try:
        from myst_nb.core.variables import format_plain_text

        return format_plain_text(text, fmt)
    except ImportError:  # pragma: no cover - the book always has myst-nb
        return format(float(text), fmt) if fmt != "s" else text


def _resolve_doc(target: str, current: str) -> str:
    """The document ``target`` names from the page ``current`` (never above the root)."""
    if target.startswith("/"):
        return target.lstrip("/")
    path = posixpath.normpath(posixpath.join(posixpath.dirname(current), target))
    return "" if path == "." else re.sub(r"^(\.\./)+|^\.\.$", "", path)


def _link(text: str, target: str | None, look: Lookups) -> str:
    if target and look.baseurl:
        doc, _, anchor = target.partition("#")
        url = f"{look.baseurl.rstrip('/')}/{doc}.html" + (f"#{anchor}" if anchor else "")
        return f"[{text}]({url})"
    return text


def _split_explicit(body: str) -> tuple[str | None, str]:
    m = re.match(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>$", body, re.S)
    if m:
        return m.group("text"), m.group("target")
    return None, body


def _role(name: str, body: str, look: Lookups) -> str:
    if name in {"glue:text", "glue", "glue:md"}:
        key, _, fmt = body.partition(":")
        if key not in look.glue:
            raise KeyError(f"{look.docname}: no glued value {key!r}")
        return _format_glue(look.glue[key], fmt or "s")
    text, target = _split_explicit(body)
    if name in {"prf:ref", "numref", "ref", "eq"}:
        label = target.strip()
        kind, number = look.numbers.get(label, ("", ""))
        where = look.targets.get(label)
        if name == "eq":
            return _link(f"({number})" if number else f"({label})", where, look)
        if text:
            shown = text.replace("%s", number).replace("{number}", number)
        elif kind and number:
            shown = f"{kind} {number}"
        else:
            shown = look.titles.get(label, label)
        return _link(shown, where, look)
    if name == "doc":
        doc = _resolve_doc(target.strip(), look.docname)
        shown = text or look.docs.get(doc, doc)
        return _link(f"*{shown}*" if not text else shown, doc, look)
    if name.startswith("cite"):
        keys = [k.strip() for k in target.split(",") if k.strip()]
        for key in keys:
            if key not in look.cited:
                look.cited.append(key)
        textual = name in {"cite:t", "cite:ts", "cite:alt"}
        if look.cite is None:
            return ", ".join(keys)
        if textual:
            return ", ".join(look.cite(k, True) for k in keys)
        return "(" + "; ".join(look.cite(k, False) for k in keys) + ")"
    if name == "math":
        return f"${body}$"
    if name in {"index", "term", "abbr", "sub", "sup", "kbd", "download", "guilabel",
                "menuselection", "code", "samp", "file"}:
        return text if text is not None else body
    return text if text is not None else body


def _roles(line: str, look: Lookups) -> str:
    return ROLE.sub(lambda m: _role(m.group("name"), m.group("body"), look), line)


MATH_ENV = re.compile(r"^\s*\\begin\{(?P<env>[\w*]+)\}")


def _quote(lines: list[str]) -> list[str]:
    """Quote ``lines`` as a Markdown block quote, leaving display math outside it.

    JupyterLab, the classic Notebook and VS Code take the math out of a Markdown
    cell before they parse the Markdown, so a ``>`` in front of a line of a
    display equation ends up inside the equation (stray ``>`` in the formula).
    The quote is therefore closed before each display equation (``$$`` ... ``$$``
    or an amsmath environment) and opened again after it.
    """
    out: list[str] = []
    closing: str | None = None  # what ends the display math being copied
    for ln in lines:
        stripped = ln.strip()
        if closing is None:
            env = MATH_ENV.match(ln)
            if stripped.startswith("$$"):
                closing = "" if stripped.endswith("$$") and len(stripped) > 2 else "$$"
            elif env:
                end = f"\\end{{{env.group('env')}}}"
                closing = "" if stripped.endswith(end) else end
            if closing is not None:
                if out and out[-1] != "":
                    out.append("")
                out.append(ln)
                if closing == "":
                    closing = None
                    out.append("")
                continue
            out.append(("> " + ln) if stripped else ">")
            continue
        out.append(ln)
        if stripped.endswith(closing):
            closing = None
            out.append("")
    # a quote marker alone next to the math would open an empty quote line
    cleaned: list[str] = []
    for k, ln in enumerate(out):
        if ln == ">" and (k == 0 or k + 1 == len(out) or out[k - 1] == "" or out[k + 1] == ""):
            ln = ""
        if ln == ">" and cleaned and cleaned[-1] == ">":
            continue
        cleaned.append(ln)
    return cleaned


def _directive(name: str, arg: str, options: dict[str, str], body: list[str],
               look: Lookups) -> list[str]:
    title = _roles(arg.strip(), look)
    label = options.get("label") or options.get("name")
    if name in DROPPED:
        return []
    if name.startswith("prf:") and name[4:] in PROOF_TITLES:
        kind = PROOF_TITLES[name[4:]]
        number = look.numbers.get(label, ("", ""))[1] if label else ""
        head = (f"**{kind}{(' ' + number) if number else ''}**"
                + (f" ({title})" if title else "") + ".")
        return _quote([head, ""] + body)
    if name == "prf:proof":
        out = ["*Proof.*" + (f" ({title})" if title else "")] + body
        out[-1] = out[-1] + " $\\square$" if out[-1].strip() else "$\\square$"
        return out
    if name in {"exercise", "exercise-start"}:
        number = look.numbers.get(label, ("", ""))[1] if label else ""
        head = (f"**Exercise{(' ' + number) if number else ''}**"
                + (f" ({title})" if title else "") + ".")
        return _quote([head, ""] + body)
    if name in {"solution", "solution-start"}:
        return ["**Solution.**", ""] + body
    if name in {"solution-end", "exercise-end"}:
        return []
    if name == "math":
        number = look.numbers.get(label, ("", ""))[1] if label else ""
        tag = [f"\\tag{{{number}}}"] if number else []
        return ["$$"] + [_math_line(ln) for ln in body] + tag + ["$$"]
    if name in {"code", "code-block", "sourcecode"}:
        return [f"```{arg.strip()}"] + body + ["```"]
    if name in {"figure", "image"}:
        return [f"*Figure: {title or arg}*"] + body
    if name in ADMONITIONS or True:
        shown = title or name.capitalize()
        if name in {"admonition", "dropdown", "margin", "sidebar", "topic"} and not title:
            shown = "Note"
        return _quote([f"**{shown}**", ""] + body)


def convert_markdown(source: str, look: Lookups) -> str:
    """Rewrite one MyST Markdown cell as plain Markdown (see the module docstring)."""
    # a role whose text wraps onto the next line is joined onto one line first
    source = re.sub(r"\{[\w:-]+\}`[^`]*`", lambda m: m.group(0).replace("\n", " "), source)
    lines = source.splitlines()
    out, _ = _convert_lines(lines, 0, None, look)
    text = "\n".join(out)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip("\n")


def _convert_lines(lines: list[str], i: int, closing: str | None,
                   look: Lookups) -> tuple[list[str], int]:
    out: list[str] = []
    in_math = False
    while i < len(lines):
        line = lines[i]
        if closing is not None and line.strip() == closing and not in_math:
            return out, i + 1
        m = FENCE.match(line) if not in_math else None
        if m:
            fence, name = m.group("fence"), m.group("name")
            i += 1
            options: dict[str, str] = {}
            while i < len(lines) and re.match(r"^\s*:[\w-]+:", lines[i]):
                key, _, val = lines[i].strip()[1:].partition(":")
                options[key.strip()] = val.strip()
                i += 1
            if name in {"code-cell", "math", "code", "code-block"}:
                body = []
                while i < len(lines) and lines[i].strip() != fence:
                    body.append(lines[i])
                    i += 1
                i += 1
            else:
                body, i = _convert_lines(lines, i, fence, look)
            while body and not body[0].strip():
                body.pop(0)
            while body and not body[-1].strip():
                body.pop()
            out += [""] + _directive(name, m.group("arg"), options, body, look) + [""]
            continue
        if LABEL_LINE.match(line) or line.lstrip().startswith("% ") or line.strip() == "%":
            i += 1
            continue
        stripped = line.strip()
        if stripped.startswith("$$"):
            dl = DOLLAR_LABEL.match(line)
            if in_math and (stripped == "$$" or dl):
                if dl:
                    number = look.numbers.get(dl.group("label"), ("", ""))[1]
                    if dl.group("pre").strip():
                        out.append(dl.group("pre"))
                    if number:
                        out.append(f"\\tag{{{number}}}")
                    out.append("$$")
                else:
                    out.append(line)
                in_math = False
                i += 1
                continue
            if not in_math and stripped == "$$":
                in_math = True
                out.append(line)
                i += 1
                continue
            if not in_math and dl:  # one-line $$ x $$ (label)
                number = look.numbers.get(dl.group("label"), ("", ""))[1]
                body = dl.group("pre").strip()
                body = body[2:] if body.startswith("$$") else body
                out.append("$$" + body + (f" \\tag{{{number}}}" if number else "") + "$$")
                i += 1
                continue
        out.append(_math_line(line) if in_math else _roles(line, look))
        i += 1
    return out, i


def _math_line(line: str) -> str:
    """A line of display math; one that starts with ``>`` (greater than) gets a ``{}`` first.

    Otherwise a Markdown renderer that parses the cell before the math would read the
    ``>`` as a block quote.
    """
    return re.sub(r"^(\s*)>", r"\1{}>", line)


def _is_glue_output(output) -> bool:
    return "scrapbook" in output.get("metadata", {})


SLIDE_TAG = "slide"
# a Markdown cell that starts a slide: a heading, or a theorem-like box / the key points as
# convert_markdown writes them ("> **Theorem 4.2** (...).", "> **Key points**")
NEW_SLIDE = re.compile(r"^(#{1,2} |(> )?\*\*(Definition|Theorem|Proposition|Lemma|Corollary)"
                       r"( [\d.]+)?\*\*|(> )?\*\*Key points\*\*)", re.M)


def slide_type(cell, *, figure: bool = False, collapse_tags=("hide-input",)) -> str:
    """RISE's ``slideshow.slide_type`` of a cell of the plain notebook (see the docstring)."""
    if cell.cell_type == "markdown":
        return "slide" if NEW_SLIDE.search(cell.source) else "-"
    tags = cell.metadata.get("tags", [])
    if figure or SLIDE_TAG in tags:
        return "slide"       # a figure starts a slide even when its code is folded away
    return "skip" if any(t in tags for t in collapse_tags) else "-"


def convert(nb, look: Lookups, *, collapse_tags=("hide-input",)):
    """A plain-Markdown copy of the executed notebook ``nb`` (see the module docstring)."""
    import nbformat

    nb = copy.deepcopy(nb)
    look.cited = []
    cells = []
    types = []   # slideshow.slide_type of each cell of ``cells``
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            text = convert_markdown(cell.source, look)
            if text.strip():
                cell.source = text
                cell.metadata = {}
                cells.append(cell)
                types.append(slide_type(cell))
            continue
        if cell.cell_type != "code":
            cells.append(cell)
            types.append("-")
            continue
        tags = list(cell.metadata.get("tags", []))
        if "remove-cell" in tags:
            continue
        cell.outputs = [o for o in cell.get("outputs", []) if not _is_glue_output(o)]
        mystnb = cell.metadata.pop("mystnb", {}) or {}
        if any(t in tags for t in collapse_tags):
            cell.metadata.setdefault("jupyter", {})["source_hidden"] = True
        caption = (mystnb.get("figure") or {}).get("caption")
        cells.append(cell)
        types.append(slide_type(cell, figure=bool(caption), collapse_tags=collapse_tags))
        if caption:
            name = (mystnb.get("figure") or {}).get("name", "")
            number = look.numbers.get(name, ("", ""))[1]
            head = f"**Figure {number}.**" if number else "**Figure.**"
            cells.append(nbformat.v4.new_markdown_cell(
                f"{head} {convert_markdown(' '.join(caption.split()), look)}"))
            types.append("-")
    if look.cited and look.cite is not None:
        refs = "\n".join(f"- {look.cite(k, None)}" for k in look.cited)
        cells.append(nbformat.v4.new_markdown_cell(f"## References\n\n{refs}"))
        types.append("slide")
    for cell, kind in zip(cells, types, strict=True):
        cell.metadata["slideshow"] = {"slide_type": kind}
    nb.cells = cells
    nb.metadata.pop("jupytext", None)
    nb.metadata.pop("mystnb", None)
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python",
                                 "name": "python3"}
    # RISE / jupyterlab-rise: a slide taller than the screen scrolls
    nb.metadata["rise"] = {"scroll": True}
    nb.nbformat, nb.nbformat_minor = 4, 5
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i:03d}"
        if cell.cell_type == "markdown":
            cell.pop("outputs", None)
            cell.pop("execution_count", None)
    nbformat.validate(nb)
    return nb


# --------------------------------------------------------------------------- sphinx side
def bibtex_text(text: str) -> str:
    """Plain Unicode for a BibTeX field: ``Sch{\\"o}lkopf`` -> ``Schölkopf``, ``--`` -> ``–``.

    The accents and special letters are decoded by latexcodec (which pybtex
    depends on); the braces that protect capitals are dropped.
    """
    import codecs

    import latexcodec  # noqa: F401 - registers the "ulatex" codec

    decoded = codecs.decode(text, "ulatex")
    return re.sub(r"[{}]", "", decoded).replace("\\", "")


def _citation_formatter(bibfiles: list[str]):
    """``cite(key, textual)``: "Hastie et al. (2009)" / "Hastie et al., 2009" / full entry."""
    from pybtex.database import parse_file

    entries = {}
    for path in bibfiles:
        entries.update(parse_file(path).entries)

    def names(entry) -> list[str]:
        people = entry.persons.get("author") or entry.persons.get("editor") or []
        return [" ".join(p.last_names) for p in people]

    def latex_free(text: str) -> str:
        return bibtex_text(text)

    def cite(key: str, textual: bool | None) -> str:
        entry = entries.get(key)
        if entry is None:
            return key
        last = [latex_free(n) for n in names(entry)]
        who = last[0] if len(last) == 1 else (
            f"{last[0]} and {last[1]}" if len(last) == 2 else f"{last[0]} et al.")
        year = entry.fields.get("year", "n.d.")
        if textual is None:
            people = ", ".join(latex_free(str(p)) for p in (entry.persons.get("author") or []))
            title = latex_free(entry.fields.get("title", ""))
            venue = latex_free(entry.fields.get("journal") or entry.fields.get("booktitle")
                               or entry.fields.get("publisher") or "")
            return f"{people} ({year}). *{title}*." + (f" {venue}." if venue else "")
        return f"{who} ({year})" if textual else f"{who}, {year}"

    return cite


def lookups_from_env(app, docname: str, glue: dict[str, str]) -> Lookups:
    """The lookups for page ``docname`` from the Sphinx environment of ``app``."""
    env = app.env
    numbers: dict[str, tuple[str, str]] = {}
    targets: dict[str, str] = {}
    kinds = {**PROOF_TITLES, "figure": "Figure", "table": "Table", "code-block": "Listing",
             "exercise": "Exercise", "displaymath": ""}
    for doc, by_type in env.toc_fignumbers.items():
        for figtype, ids in by_type.items():
            for node_id, number in ids.items():
                text = ".".join(map(str, number))
                label = node_id[len("equation-"):] if figtype == "displaymath" and \
                    node_id.startswith("equation-") else node_id
                numbers[label] = (kinds.get(figtype, figtype.capitalize()), text)
                targets[label] = f"{doc}#{node_id}"
    titles: dict[str, str] = {}
    for label, (doc, anchor, title) in env.domaindata.get("std", {}).get("labels", {}).items():
        titles[label] = title
        targets.setdefault(label, f"{doc}#{anchor}")
        if label not in numbers:
            for key in (anchor, label):
                if key in numbers:
                    numbers[label] = numbers[key]
    docs = {doc: title.astext() for doc, title in env.titles.items()}
    bibfiles = [str(app.srcdir / b) if not str(b).startswith("/") else str(b)
                for b in getattr(app.config, "bibtex_bibfiles", [])]
    cite = _citation_formatter(bibfiles) if bibfiles else None
    return Lookups(glue=glue, numbers=numbers, titles=titles, docs=docs, targets=targets,
                   cite=cite, baseurl=app.config.html_baseurl or "", docname=docname)


def glue_values(nb) -> dict[str, str]:
    """Glued keys of an executed notebook and their ``text/plain`` values."""
    found: dict[str, str] = {}
    for cell in nb.cells:
        for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
            meta = output.get("metadata", {}).get("scrapbook")
            if not meta:
                continue
            key = meta.get("mime_prefix", "") + "text/plain"
            data = output.get("data", {})
            if key in data:
                found[meta["name"]] = data[key]
            elif "text/plain" in data:
                found[meta["name"]] = data["text/plain"]
    return found
