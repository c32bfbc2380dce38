"""Share of kmlib's executable lines that only check arguments (an AST count).

Usage: ``python benchmarks/check_share.py [--files]`` from the repository root.

The rule, applied to every ``.py`` file of ``kmlib/`` outside ``kmlib/book/``:

* **Executable lines**: the source lines spanned by statements, except docstrings,
  ``import`` statements and ``pass``; of a compound statement (``def``, ``class``,
  ``if``, ``for``, ``while``, ``with``, ``try``) only its header lines (decorators
  included) count, its body being counted statement by statement.  Blank and
  comment-only lines are never counted.
* **Check lines**, a subset of those:

  - a ``raise`` of an argument error (``ValueError``, ``TypeError``,
    ``NotFittedError``), with all its lines;
  - the header of an ``if``/``elif``/``else`` branch or an ``except`` handler whose body
    holds nothing but such raises (and assignments preparing their message): the
    condition is part of the check;
  - a statement (expression, assignment or return) whose value is a call to a
    validation function: a name starting with ``check_``, ``_check``, ``validate``,
    ``_validate``, ``warn_``, or one of ``_finite``, ``check_array``,
    ``check_non_negative``, ``validate_data``;
  - a decorator ``@finite_result``.

A line counts once, whatever matches it.  The share is check lines / executable lines.

Declarations are data, not checks, and are not counted as check lines (as scikit-learn's
``_parameter_constraints`` would not be): an estimator's ``_parameter_constraints`` /
``_parameter_hints`` and a function's ``@validate_args({...})`` decorator.  Their lines
are printed separately so that the reader sees what moved there.  Finiteness checks of
results (``@finite_result``, ``check_finite_result``) are counted as checks.
"""
from __future__ import annotations

import ast
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1] / "kmlib"
ARG_ERRORS = {"ValueError", "TypeError", "NotFittedError"}
CHECK_PREFIXES = ("check_", "_check", "validate", "_validate", "warn_")
CHECK_NAMES = {"_finite", "check_array", "check_non_negative", "validate_data"}
COMPOUND = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For,
            ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try)


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _is_arg_raise(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Raise) and stmt.exc is not None and _name(stmt.exc) in ARG_ERRORS


def _is_check_call(stmt: ast.stmt) -> bool:
    value = getattr(stmt, "value", None)
    if not isinstance(stmt, (ast.Expr, ast.Assign, ast.AnnAssign, ast.Return)) or \
            not isinstance(value, ast.Call):
        return False
    name = _name(value)
    return name.startswith(CHECK_PREFIXES) or name in CHECK_NAMES


def _only_raises(body: list[ast.stmt]) -> bool:
    return bool(body) and _is_arg_raise(body[-1]) and all(
        _is_arg_raise(s) or isinstance(s, ast.Assign) for s in body)


def _is_docstring(stmt: ast.stmt) -> bool:
    return (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, str))


def count(path: pathlib.Path) -> tuple[int, int, int]:
    """(check lines, executable lines, declaration lines) of one file."""
    src = path.read_text()
    lines = src.splitlines()
    code = {i + 1 for i, t in enumerate(lines) if t.strip() and not t.strip().startswith("#")}
    execu: set[int] = set()
    check: set[int] = set()
    declared: set[int] = set()

    def span(a: int, b: int) -> set[int]:
        return {i for i in range(a, b + 1) if i in code}

    def header(node: ast.stmt) -> set[int]:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        body = node.body if not isinstance(node, ast.If) else node.body
        return span(first, body[0].lineno - 1) if body else span(first, node.end_lineno)

    def visit(body: list[ast.stmt]) -> None:
        for stmt in body:
            if _is_docstring(stmt) or isinstance(stmt, (ast.Import, ast.ImportFrom, ast.Pass)):
                continue
            if isinstance(stmt, COMPOUND):
                h = header(stmt)
                execu.update(h)
                for d in getattr(stmt, "decorator_list", []):
                    if _name(d) == "finite_result":
                        check.update(span(d.lineno, d.end_lineno))
                    if _name(d) == "validate_args":
                        declared.update(span(d.lineno, d.end_lineno))
                if isinstance(stmt, ast.If) and _only_raises(stmt.body):
                    check.update(h)
                visit(stmt.body)
                if isinstance(stmt, ast.If) and stmt.orelse:
                    if not isinstance(stmt.orelse[0], ast.If):   # a plain else:
                        else_line = stmt.orelse[0].lineno - 1
                        if else_line in code:
                            execu.add(else_line)
                            if _only_raises(stmt.orelse):
                                check.add(else_line)
                    visit(stmt.orelse)
                elif isinstance(stmt, ast.Try):
                    for h2 in stmt.handlers:
                        hh = span(h2.lineno, h2.body[0].lineno - 1)
                        execu.update(hh)
                        if _only_raises(h2.body):
                            check.update(hh)
                        visit(h2.body)
                    visit(stmt.orelse)
                    visit(stmt.finalbody)
                else:
                    visit(getattr(stmt, "orelse", []))
                continue
            s = span(stmt.lineno, stmt.end_lineno)
            execu.update(s)
            if isinstance(stmt, ast.Assign) and any(
                    getattr(t, "id", "") in ("_parameter_constraints", "_parameter_hints")
                    for t in stmt.targets):
                declared.update(s)
            if _is_arg_raise(stmt) or _is_check_call(stmt):
                check.update(s)

    visit(ast.parse(src).body)
    return len(check), len(execu), len(declared)


def main() -> None:
    files = sorted(p for p in ROOT.rglob("*.py") if "book" not in p.relative_to(ROOT).parts)
    tot_c = tot_e = tot_d = 0
    rows = []
    for p in files:
        c, e, d = count(p)
        tot_c += c
        tot_e += e
        tot_d += d
        rows.append((p.relative_to(ROOT.parent), c, e))
    if "--files" in sys.argv:
        for name, c, e in sorted(rows, key=lambda r: -r[1]):
            print(f"{str(name):45s} {c:5d} / {e:5d}  {100 * c / max(e, 1):5.1f} %")
    print(f"kmlib outside kmlib/book: {tot_c} check lines of {tot_e} executable lines "
          f"= {100 * tot_c / tot_e:.1f} %  ({len(files)} files); declarations of constraints "
          f"(not counted as checks): {tot_d} lines")


if __name__ == "__main__":
    main()
