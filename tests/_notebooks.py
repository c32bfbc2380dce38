"""Helpers shared by the notebook-level tests."""
from __future__ import annotations

import html
import io
import json
import re
import zipfile
from pathlib import Path

import jupytext

ROOT = Path(__file__).resolve().parents[1]


def myst_notebooks(*dirs: str) -> list[Path]:
    """The MyST Markdown notebooks (jupytext front matter) in the given folders."""
    found = []
    for d in dirs:
        for path in sorted((ROOT / d).glob("*.md")):
            head = path.read_text(encoding="utf-8")[:600]
            if head.startswith("---") and "format_name: myst" in head:
                found.append(path)
    return found


def read(path: Path):
    return jupytext.read(path, fmt="md:myst")


def notebook_text(raw: str) -> str:
    """Every text an .ipynb file (given as its JSON text) holds: cell sources and outputs."""
    nb = json.loads(raw)
    parts = []
    for cell in nb.get("cells", []):
        parts.append("".join(cell.get("source", "")))
        for out in cell.get("outputs", []):
            parts.append("".join(out.get("text", "")))
            for value in out.get("data", {}).values():
                parts.append(value if isinstance(value, str) else "".join(value)
                             if isinstance(value, list) else json.dumps(value))
    return "\n".join(parts)


def squash(text: str) -> str:
    """``text`` with every run of white space made one space."""
    return " ".join(text.split())


def html_text(raw: str) -> str:
    """The text of an HTML page: scripts and styles dropped, tags removed, entities decoded."""
    raw = re.sub(r"<(script|style)\b.*?</\1>", " ", raw, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", raw))


def file_texts(name: str, data: bytes, *, archives: tuple[str, ...] = (".zip",),
               skip: frozenset[str] = frozenset()):
    """Yield (name, squashed text, Python sources) for a file of a built site: an HTML page
    its text, a notebook its sources and outputs (and its code cells as the sources), any
    other UTF-8 file its text (a ``.py`` file also as a source). An archive whose name ends
    with one of ``archives`` is opened member by member (``name!member``); a file whose
    suffix (lower case) is in ``skip``, or that is not UTF-8, yields nothing."""
    if name.endswith(archives):
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            for member in zf.namelist():
                yield from file_texts(f"{name}!{member}", zf.read(member),
                                      archives=archives, skip=skip)
        return
    if Path(name).suffix.lower() in skip:
        return
    try:
        raw = data.decode("utf-8")
    except UnicodeDecodeError:
        return
    if name.endswith(".html"):
        yield name, squash(html_text(raw)), []
    elif name.endswith(".ipynb"):
        code = ["".join(c.get("source", "")) for c in json.loads(raw).get("cells", [])
                if c.get("cell_type") == "code"]
        yield name, squash(notebook_text(raw)), code
    else:
        yield name, squash(raw), [raw] if name.endswith(".py") else []


GLUE_ROLE = re.compile(r"\{glue(?::[a-z]+)?\}`([A-Za-z_][A-Za-z0-9_]*)")
GLUE_DIRECTIVE = re.compile(r"^[`:]{3,}\{glue(?::[a-z]+)?\}\s+([A-Za-z_][A-Za-z0-9_]*)", re.M)
STATED_CALL = re.compile(r"\bstated\(\s*(?P<q>['\"])(?P<key>[^'\"]+)(?P=q)")
RAW_GLUE_CALL = re.compile(r"(?<![\w.])glue\(|myst_nb\.glue\(")
