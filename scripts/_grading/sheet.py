"""The lecturer's view of an exercise sheet: its checks, their points and how to recognise it.

A sheet is an ``exercises/*.md`` page. Every code cell tagged ``check`` is one check,
worth its metadata ``points`` (1 when absent); cells also tagged ``hidden-check`` are
lecturer-only. A check belongs to the last ``{exercise}`` stated before it.
"""
from __future__ import annotations

import ast
import builtins
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import jupytext

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import make_exercises  # noqa: E402

CHECK_CALL = re.compile(r"\b(check_\w+)\s*\(")
SHIPPED_MODULE = re.compile(r"^kmlib\.book\.exercises\.(ch\d+)$")
EXERCISE_TITLE = re.compile(
    r"^[`:]{3,}\{exercise(?:-start)?\}[ \t]*(?P<title>[^\n]*)\n(?:\s*:[^\n]*\n)*?"
    r"\s*:label:\s*(?P<label>\S+)", re.M)


@dataclass
class Check:
    """One check cell of a sheet."""

    name: str
    exercise: str
    points: float
    hidden: bool
    source: str
    names: list[str]  # names the check reads from the student's namespace


@dataclass
class Sheet:
    """A lecturer's sheet, as the grader needs it."""

    name: str
    path: Path
    checks: list[Check]
    imports: str  # every import statement of the sheet, run before each check
    fingerprints: set[str] = field(default_factory=set)
    titles: dict[str, str] = field(default_factory=dict)  # exercise label -> title, in order

    @property
    def exercises(self) -> list[str]:
        seen: list[str] = []
        for check in self.checks:
            if check.exercise not in seen:
                seen.append(check.exercise)
        return seen

    @property
    def max_points(self) -> float:
        return sum(c.points for c in self.checks)



def normalise(source: str) -> str:
    """A code cell without comments, blank lines or trailing spaces (to compare cells)."""
    lines = [line.rstrip() for line in source.splitlines()]
    return "\n".join(line for line in lines if line.strip() and not line.lstrip().startswith("#"))


def _imports(sources: list[str]) -> str:
    statements: list[str] = []
    for source in sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                text = ast.unparse(node)
                if text not in statements:
                    statements.append(text)
    return "\n".join(statements)


def free_names(source: str, bound: set[str]) -> list[str]:
    """Names ``source`` reads without binding them, other than builtins and ``bound``."""
    tree = ast.parse(source)
    stored = {n.id for n in ast.walk(tree)
              if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    stored |= {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
    names: list[str] = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
                and node.id not in stored | bound | set(names)
                and not hasattr(builtins, node.id)):
            names.append(node.id)
    return names


def _check_name(source: str, index: int, taken: set[str], hidden: int = 0) -> str:
    """A check's name: the self-checks it calls, or ``check N``.

    The N-th hidden check is ``hidden check N``: its code and comments say what it tests,
    which students must not see.
    """
    if hidden:
        return f"hidden check {hidden}"
    calls = list(dict.fromkeys(CHECK_CALL.findall(source)))
    if calls:
        name = " + ".join(calls)
    else:
        name = f"check {index}"
    base, k = name, 2
    while name in taken:
        name, k = f"{base} ({k})", k + 1
    return name


def load_sheet(path: Path) -> Sheet:
    """Read the lecturer's sheet at ``path``."""
    nb = jupytext.read(path, fmt="md:myst")
    code = [c for c in nb.cells if c.cell_type == "code"]
    imports = _imports([c.source for c in code])
    bound = {alias.asname or alias.name.split(".")[0]
             for node in ast.parse(imports).body for alias in node.names}
    checks: list[Check] = []
    exercise = "(before the first exercise)"
    fingerprints: set[str] = set()
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            labels = make_exercises.EXERCISE_LABEL.findall(cell.source)
            exercise = labels[-1] if labels else exercise
            continue
        tags = cell.metadata.get("tags", [])
        hidden = make_exercises.is_hidden_check(cell)
        if not hidden and make_exercises.SOLUTION_TAG not in tags and normalise(cell.source):
            fingerprints.add(normalise(cell.source))
        if make_exercises.CHECK_TAG not in tags and not hidden:
            continue
        name = _check_name(cell.source, len(checks) + 1, {c.name for c in checks},
                           hidden=sum(c.hidden for c in checks) + 1 if hidden else 0)
        checks.append(Check(name=name, exercise=exercise, points=make_exercises.check_points(cell),
                            hidden=hidden, source=cell.source,
                            names=free_names(cell.source, bound)))
    if not checks:
        raise ValueError(f"{path}: no check cells (tag `check`) to grade")
    titles = {m.group("label"): m.group("title").strip()
              for c in nb.cells if c.cell_type == "markdown"
              for m in EXERCISE_TITLE.finditer(c.source)}
    return Sheet(name=path.stem, path=path, checks=checks, imports=imports,
                 fingerprints=fingerprints, titles=titles)


def exercise_modules(imports: str) -> list[str]:
    """The chapter modules (``ch06``, ...) of ``kmlib.book.exercises`` that ``imports`` loads."""
    found: list[str] = []
    for node in ast.parse(imports).body:
        names = []
        if isinstance(node, ast.ImportFrom) and node.module == "kmlib.book.exercises":
            names = [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            m = SHIPPED_MODULE.match(name)
            if m and m.group(1) not in found:
                found.append(m.group(1))
    return found


def reference_problems(sheet: Sheet) -> list[str]:
    """Why the lecturer's full checks cannot grade ``sheet`` (empty when they can).

    Every ``check_*`` of a module ``kmlib.book.exercises.chNN`` that the sheet's check cells
    call must exist in ``_grading.reference.chNN`` (``scripts/_grading/reference/``): the
    grader runs those in place of the self-checks that ship to students.
    """
    import importlib

    called = {name for check in sheet.checks for name in CHECK_CALL.findall(check.source)}
    problems = []
    for chapter in exercise_modules(sheet.imports):
        shipped = importlib.import_module(f"kmlib.book.exercises.{chapter}")
        try:
            reference = importlib.import_module(f"_grading.reference.{chapter}")
        except ImportError as exc:
            problems.append(f"scripts/_grading/reference/{chapter}.py cannot be imported "
                            f"({type(exc).__name__}: {exc})")
            continue
        for name in sorted(called):
            if hasattr(shipped, name) and not callable(getattr(reference, name, None)):
                problems.append(f"scripts/_grading/reference/{chapter}.py has no {name}")
    return problems


def match(sheet: Sheet, code_sources: list[str]) -> float:
    """The fraction of the sheet's given code cells (setup, checks) found in a notebook."""
    found = {normalise(s) for s in code_sources}
    return len(sheet.fingerprints & found) / max(len(sheet.fingerprints), 1)
