"""Generate student and solution notebooks from the exercise pages.

For every ``exercises/*.md`` (a MyST Markdown notebook) this writes

* ``<out>/solutions/<name>.ipynb`` — the notebook as written: statements,
  solutions and check cells;
* ``<out>/student/<name>.ipynb`` — the same notebook with every solution removed:
  the prose between ``{solution-start}`` and ``{solution-end}`` is dropped, and each
  code cell tagged ``solution`` becomes a stub headed by the exercise's number as the
  student sees it (``Exercise 3.1``) that sets to ``None`` the names the solution assigns
  *and a check cell reads* (the answers graded; the solution's helper variables stay
  unnamed) and raises ``NotImplementedError`` naming the exercise.
  Check cells (tag ``check``) are kept, so a student runs them against their own
  answers; each starts with a comment giving its points (cell metadata ``points``,
  1 when absent). *Hidden checks* (tags ``check`` and ``hidden-check``) are
  lecturer-only: they are dropped from the student version and run only when
  grading (``scripts/grade.py``).

Both carry the metadata ``{"kmbook": {"sheet": "<name>", "version": ...}}``, by which
``scripts/grade.py`` recognises the sheet of a submission whatever its cells.

Usage: ``python scripts/make_exercises.py --out _build/exercises``.

The handouts: ``python scripts/make_exercises.py --from-site _build --out
_build/exercises`` (``make exercises``, after ``make book``) writes instead the *plain*
notebooks of the built site, the ones its pages and zip offer for download (MyST
rewritten as ordinary Markdown with the site's numbers, see ``_ext/plain_notebook.py``),
so they open in JupyterLab, Notebook, VS Code or Colab without extensions: the
student versions are copied from ``<build>/html/_sources/exercises/`` and the solution
versions from ``<build>/exercises-solutions/`` (written by ``_ext/kmbook.py``).
"""
from __future__ import annotations

import argparse
import ast
import copy
import re
import sys
from pathlib import Path

import jupytext
import nbformat

ROOT = Path(__file__).resolve().parents[1]
FENCE_OPEN = re.compile(
    r"^(?P<fence>`{3,}|:{3,})\{(?P<name>solution-start|solution-end)\}\s*(?P<arg>\S*)")
SOLUTION_TAG = "solution"
CHECK_TAG = "check"
HIDDEN_CHECK_TAG = "hidden-check"
METADATA_KEY = "kmbook"
POINTS_KEY = "points"
EXERCISE_LABEL = re.compile(
    r"^[`:]{3,}\{exercise(?:-start)?\}.*\n(?:\s*:[^\n]*\n)*?\s*:label:\s*(\S+)", re.M)


def check_points(cell) -> float:
    """The points of a check cell: its metadata ``points`` (a number >= 0), 1 when absent."""
    points = cell.metadata.get(POINTS_KEY, 1)
    if isinstance(points, bool) or not isinstance(points, (int, float)) or points < 0:
        raise ValueError(f"check cell metadata `points` must be a number >= 0, got {points!r}")
    return points


def is_hidden_check(cell) -> bool:
    """Whether ``cell`` is a lecturer-only check (never shown to students)."""
    return cell.cell_type == "code" and HIDDEN_CHECK_TAG in cell.metadata.get("tags", [])


def points_comment(points: float) -> str:
    """The first line of a check cell in the student version, e.g. ``# Check: 2 points``."""
    shown = f"{points:g}"
    return f"# Check: {shown} point{'' if shown == '1' else 's'}"


def assigned_names(source: str) -> list[str]:
    """Top-level names a solution cell binds (assignments, function and class definitions).

    Each public name once, in order of first binding; names starting with ``_`` are left out.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    names: list[str] = []

    def add_target(t: ast.AST) -> None:
        if isinstance(t, ast.Name):
            names.append(t.id)
        elif isinstance(t, (ast.Tuple, ast.List)):
            for elt in t.elts:
                add_target(elt)
        elif isinstance(t, ast.Starred):
            add_target(t.value)

    for node in tree.body:
        if isinstance(node, ast.Assign):
            for t in node.targets:
                add_target(t)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            add_target(node.target)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
    seen: list[str] = []
    for name in names:
        if name not in seen and not name.startswith("_"):
            seen.append(name)
    return seen


def read_names(source: str) -> set[str]:
    """Every name ``source`` reads (loads), whether or not it also binds it."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Load)}


def exercise_numbers(labels: list[str], sheet: str | None) -> dict[str, str]:
    """What students see for each exercise label: ``3.1``, ``3.2``, ... on ``03_name``.

    The site numbers each sheet's exercises by the sheet's number and their order; without
    a sheet name with a number, ``1``, ``2``, ...
    """
    match = re.match(r"^(\d+)_", sheet or "")
    prefix = f"{int(match.group(1))}." if match else ""
    return {label: f"{prefix}{k}" for k, label in enumerate(labels, start=1)}


def is_points_comment(line: str) -> bool:
    """Whether ``line`` is the points comment that heads a check cell of a student version."""
    return re.fullmatch(r"# Check: [0-9.e+-]+ points?", line.strip()) is not None


def stub_source(label: str, names: list[str]) -> str:
    """The student stub that replaces a solution code cell (``label``: ``3.1``)."""
    lines = [f"# Exercise {label}: write your solution here."]
    if names:
        lines.append(f"# Your code should define: {', '.join(names)}")
        lines += [f"{name} = None" for name in names]
    lines.append(
        f'raise NotImplementedError("Exercise {label}: replace this cell with your solution")'
    )
    return "\n".join(lines)


def _strip_solution_prose(source: str, inside: bool) -> tuple[str, bool, str | None]:
    """Remove solution blocks from a markdown cell; return (text, still_inside, label)."""
    kept: list[str] = []
    label = None
    lines = source.splitlines()
    i = 0
    while i < len(lines):
        m = FENCE_OPEN.match(lines[i])
        if m:
            fence = m.group("fence")
            # skip the directive through its closing fence
            j = i + 1
            while j < len(lines) and lines[j].strip() != fence:
                j += 1
            if m.group("name") == "solution-start":
                inside, label = True, m.group("arg") or label
            else:
                inside = False
            i = j + 1
            continue
        if not inside:
            kept.append(lines[i])
        i += 1
    return "\n".join(kept).strip("\n"), inside, label


def exercise_labels(nb) -> list[str]:
    """Labels of the ``{exercise}`` directives in a notebook, in order."""
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    return EXERCISE_LABEL.findall(text)


def _stamped(nb) -> str | None:
    meta = nb.metadata.get(METADATA_KEY)
    return meta.get("sheet") if isinstance(meta, dict) else None


def stamp(nb, sheet: str, version: str):
    """Write the sheet's name and the version into the notebook's metadata; return ``nb``."""
    nb.metadata[METADATA_KEY] = {"sheet": sheet, "version": version}
    return nb


def student_version(nb, sheet: str | None = None):
    """Return a copy of ``nb`` with every solution removed (see module docstring).

    With ``sheet`` (the page's name, e.g. ``06_representer``) the copy is stamped with it.
    """
    out = copy.deepcopy(nb)
    if sheet is not None:
        stamp(out, sheet, "student")
    numbers = exercise_numbers(exercise_labels(out), sheet or _stamped(out))
    graded: set[str] = set()  # the names some check of the sheet reads
    for cell in out.cells:
        if cell.cell_type == "code" and CHECK_TAG in cell.metadata.get("tags", []):
            graded |= read_names(cell.source)
    cells = []
    inside = False
    label = "?"
    stub = None          # the stub of the exercise being answered, while only solution follows
    stub_names: list[str] = []
    for cell in out.cells:
        tags = list(cell.metadata.get("tags", []))
        if is_hidden_check(cell):
            continue
        if cell.cell_type == "markdown":
            text, inside, new_label = _strip_solution_prose(cell.source, inside)
            label = new_label or label
            if text.strip():
                cell.source = text
                cells.append(cell)
                stub = None
            continue
        if cell.cell_type == "code" and (SOLUTION_TAG in tags or inside):
            if "hide-input" in tags:
                continue  # pins behind the solution's prose: nothing for the student to write
            names = [n for n in assigned_names(cell.source) if n in graded]
            shown = numbers.get(label, label)
            if stub is not None:  # one stub per exercise, naming every answer its cells define
                stub_names += [n for n in names if n not in stub_names]
                stub.source = stub_source(shown, stub_names)
                continue
            stub_names = names
            cell.source = stub_source(shown, stub_names)
            cell.metadata["tags"] = [t for t in tags if t != SOLUTION_TAG] + ["student-answer"]
            cell.outputs = []
            cell.execution_count = None
            stub = cell
        else:
            stub = None
            if (cell.cell_type == "code" and CHECK_TAG in tags
                    and not is_points_comment(cell.source.split("\n", 1)[0])):
                cell.source = points_comment(check_points(cell)) + "\n" + cell.source
        cells.append(cell)
    out.cells = cells
    return out


def _as_ipynb(nb):
    nb = copy.deepcopy(nb)
    nb.metadata.pop("jupytext", None)
    nb.nbformat, nb.nbformat_minor = 4, 5
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i:03d}"
    nbformat.validate(nb)
    return nb


def generate(out_dir: Path, sources: list[Path] | None = None) -> list[tuple[Path, Path]]:
    """Write the student and solution notebooks; return their paths."""
    sources = sources or sorted((ROOT / "exercises").glob("*.md"))
    written = []
    for src in sources:
        nb = jupytext.read(src, fmt="md:myst")
        paths = []
        solutions = stamp(copy.deepcopy(nb), src.stem, "solutions")
        for kind, version in (("solutions", solutions), ("student", student_version(nb, src.stem))):
            target = out_dir / kind / f"{src.stem}.ipynb"
            target.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(_as_ipynb(version), target)
            paths.append(target)
        written.append((paths[0], paths[1]))
    return written


def from_site(build: Path, out_dir: Path) -> list[tuple[Path, Path]]:
    """Copy the built site's plain notebooks of every sheet; return their paths."""
    import shutil

    student_dir = build / "html" / "_sources" / "exercises"
    solution_dir = build / "exercises-solutions"
    names = [p.stem for p in sorted((ROOT / "exercises").glob("*.md"))]
    missing = [n for n in names if not (student_dir / f"{n}.ipynb").is_file()
               or not (solution_dir / f"{n}.ipynb").is_file()]
    if missing:
        raise SystemExit(f"the built site has no plain notebooks of {', '.join(missing)} "
                         f"in {student_dir} and {solution_dir}: run make book first")
    written = []
    for name in names:
        paths = []
        for kind, folder in (("solutions", solution_dir), ("student", student_dir)):
            target = out_dir / kind / f"{name}.ipynb"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(folder / f"{name}.ipynb", target)
            paths.append(target)
        written.append((paths[0], paths[1]))
    return written


def main(argv: list[str] | None = None) -> int:
    """Write the student and solution notebooks, listing each; return 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "_build" / "exercises"))
    parser.add_argument("--from-site", type=Path, default=None,
                        help="the build folder (_build): copy its plain notebooks")
    args = parser.parse_args(argv)
    made = from_site(args.from_site, Path(args.out)) if args.from_site else generate(Path(args.out))
    for paths in made:
        for path in paths:
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
