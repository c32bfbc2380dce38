"""Sphinx helper for the API reference page (api.md).

numpydoc type fields such as ``ndarray of shape (n, n_output_features_)`` name fitted
attributes, whose trailing underscore reStructuredText would read as a hyperlink reference.
Before napoleon converts a docstring, escape such names outside inline literals.
"""
from __future__ import annotations

import re

_NAME = re.compile(r"(?<![\\\w`*])([A-Za-z]\w*?[A-Za-z0-9])_(?=[\s,.;:)\]]|$)")
_LITERAL = re.compile(r"(``.*?``|`[^`]*`)")


def _escape(line: str) -> str:
    if ">>>" in line or line.lstrip().startswith(".."):
        return line
    parts = _LITERAL.split(line)
    return "".join(p if i % 2 else _NAME.sub(r"\1\\_", p) for i, p in enumerate(parts))


def _end_bullet_lists(lines: list[str]) -> list[str]:
    """Insert the blank line reStructuredText needs after a bullet list."""
    out: list[str] = []
    bullet_indent = None
    for line in lines:
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if stripped.startswith(("* ", "- ")):
            bullet_indent = indent
        elif stripped and bullet_indent is not None and indent <= bullet_indent:
            if out and out[-1].strip():
                out.append("")
            bullet_indent = None
        elif not stripped:
            bullet_indent = None
        out.append(line)
    return out


def _process(app, what, name, obj, options, lines):
    lines[:] = _end_bullet_lists([_escape(line) for line in lines])


def setup(app):
    """Register the docstring filter with Sphinx autodoc."""
    app.connect("autodoc-process-docstring", _process, priority=400)   # before napoleon (500)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
