"""Helpers shared by the notebook-level tests."""
from __future__ import annotations

import json
import re
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


GLUE_ROLE = re.compile(r"\{glue(?::[a-z]+)?\}`([A-Za-z_][A-Za-z0-9_]*)")
GLUE_DIRECTIVE = re.compile(r"^[`:]{3,}\{glue(?::[a-z]+)?\}\s+([A-Za-z_][A-Za-z0-9_]*)", re.M)
STATED_CALL = re.compile(r"\bstated\(\s*(?P<q>['\"])(?P<key>[^'\"]+)(?P=q)")
RAW_GLUE_CALL = re.compile(r"(?<![\w.])glue\(|myst_nb\.glue\(")
