"""Write the source tree of the solution-free site (``make book-hidden``).

A lecturer publishes this site while a course runs. Rather than removing
solutions from the rendered pages (which leaves them in ``_sources/``, the
downloadable notebooks and the search index), the site is built from a copy of
the book in which every exercise page is replaced by its *student version*
(``make_exercises.student_version``): solution prose, solution cells and their
outputs never enter the build, so nothing derived from them can be published.

The copy lives in ``<out>/src`` and is built into ``<out>/_build/html``, a folder
that the normal build never writes to. Exercise pages are not executed there
(their stubs raise ``NotImplementedError``); chapters reuse the execution cache
of the normal build when it exists, since their code is identical.

Usage: ``python scripts/hidden_site.py --out _build/hidden`` (called by ``make book-hidden``).
"""
from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

import jupytext
import make_exercises
import yaml

ROOT = Path(__file__).resolve().parents[1]
COPIED = ["_toc.yml", "_ext", "_latex", "_static", "_templates", "references.bib", "scripts"]


def _toc_files(toc: dict) -> list[str]:
    """Every document named in a jb-book ``_toc.yml`` (root, parts, chapters, sections)."""
    files = [toc["root"]]

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                files.append(entry["file"])
            walk(entry.get("sections"))
            walk(entry.get("chapters"))

    for part in toc.get("parts", []):
        walk(part.get("chapters"))
    walk(toc.get("chapters"))
    return files


def _source_of(doc: str) -> Path:
    for suffix in (".md", ".ipynb", ".rst"):
        path = ROOT / f"{doc}{suffix}"
        if path.is_file():
            return path
    raise FileNotFoundError(f"_toc.yml names {doc!r}, but no source file exists for it")


def _language_info() -> dict:
    """What the Python kernel reports as ``language_info`` when it executes a notebook."""
    from ipykernel.ipkernel import IPythonKernel

    return dict(IPythonKernel.language_info)


def write_tree(out: Path) -> Path:
    """Write the solution-free source tree into ``out/src`` and return that folder."""
    src = out / "src"
    if src.exists():
        shutil.rmtree(src)
    src.mkdir(parents=True)
    for name in COPIED:
        path = ROOT / name
        if path.is_dir():
            # the grader's full checks (scripts/_grading/reference) stay out of the copy
            shutil.copytree(path, src / name,
                            ignore=shutil.ignore_patterns("__pycache__", "reference"))
        elif path.is_file():
            shutil.copy2(path, src / name)
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    for doc in _toc_files(toc):
        path = _source_of(doc)
        target = src / path.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.parent.name == "exercises" and path.suffix == ".md":
            student = make_exercises.student_version(jupytext.read(path, fmt="md:myst"),
                                                     path.stem)
            # not executed here: the notebook keeps the language_info that executing it
            # gives on the normal site, so its download is the same file as the handout
            student.metadata["language_info"] = _language_info()
            student.metadata.setdefault("jupytext", {})["notebook_metadata_filter"] = \
                "language_info,kmbook"
            jupytext.write(student, target, fmt="md:myst")
        else:
            shutil.copy2(path, target)

    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    execute = config.setdefault("execute", {})
    execute["exclude_patterns"] = list(execute.get("exclude_patterns") or []) + ["exercises/*"]
    execute["cache"] = str(ROOT / "_build" / ".jupyter_cache")
    config["title"] = config.get("title", "") + " (exercises without solutions)"
    (src / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True),
                                     encoding="utf-8")
    return src


def main(argv: list[str] | None = None) -> int:
    """Write the hidden site's source tree and print where; return 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "_build" / "hidden"))
    args = parser.parse_args(argv)
    print(write_tree(Path(args.out).resolve()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
