"""Share of kmlib's executable lines that only check arguments (an AST count).

Usage: ``python benchmarks/check_share.py [--files] [--old] [--sklearn]`` from the repository root.

The rule, applied to every ``.py`` file of ``kmlib/`` outside ``kmlib/book/``:

* **Executable lines**: the source lines spanned by statements, except docstrings,
  ``import`` statements and ``pass``; of a compound statement (``def``, ``class``,
  ``if``, ``for``, ``while``, ``with``, ``try``) only its header lines (decorators
  included) count, its body being counted statement by statement.  Blank and
  comment-only lines are never counted.
* **Validation functions**: every function whose name starts with ``check_``,
  ``_check``, ``validate``, ``_validate`` or ``warn_``, scikit-learn's ``check_array``,
  ``check_non_negative`` and ``validate_data``, and the kmlib functions listed in
  ``VALIDATORS``: those that check their arguments and return them (converted) or
  nothing, whatever their name (``as_float_array``, ``_finite``, the Dask inputs'
  ``_rows`` and ``_response``, ``resolve_folds``, ...).  Not among them: functions that
  compute something new and check on the way (``gram``, ``prediction_gram``,
  ``NystroemKernelRidge._sizes``, ``_cholesky``: their own checks are counted where they
  are written), ``as_generator``, which converts a ``random_state`` that a declaration
  has checked and checks nothing itself, and the decorator ``preserve_float32``, which
  rounds a result to float32 (its one raise is counted).  Warnings
  (``warnings.warn``) reject nothing and are not counted, except through ``warn_*``.
* **Check lines**, a subset of the executable lines:

  - a ``raise`` with all its lines, unless it raises an error that is not about the
    arguments (``NON_ARG_ERRORS``: ``MemoryError``, ``RuntimeError``, ...); a bare
    ``raise`` and ``raise <function>(...)`` (an error built by a helper) count;
  - every line of a statement in which **any** call (at any depth: an argument of
    another call, a branch of a conditional expression, a lambda) is a call of a
    validation function; for a compound statement, its header lines when the
    header's own expressions hold such a call (``for v in check_vector(y)``);
  - the header of an ``if``/``elif`` branch, an ``else``, an ``except`` handler, a
    ``for``/``while``/``with`` block whose body holds nothing but check statements,
    or nothing but raises and assignments preparing their message: the condition is
    part of the check.  A statement is a check statement when all its lines are check
    lines (a compound one: its header and every line of its bodies);
  - a decorator ``@finite_result``;
  - a table of checks: the assignment of a name in ``CHECK_TABLES`` (the named
    constraints of the declarations, each a predicate and its message), and a named
    constraint written as a class of that list, every line of it (docstrings aside).

A line counts once, whatever matches it.  The share is check lines / executable lines.

Declarations are data, not checks, and are not counted as check lines (as scikit-learn's
``_parameter_constraints`` would not be): an estimator's ``_parameter_constraints`` /
``_parameter_hints`` and a function's ``@validate_args({...})`` decorator.  Their lines
are printed separately so that the reader sees what moved there.  Finiteness checks of
results (``@finite_result``, ``check_finite_result``) are counted as checks.

With ``--sklearn``, the same rule is applied to the installed scikit-learn's files that do
what kmlib's do (kernel ridge, kernel approximation, SVM, ridge, logistic regression, kernel
PCA, cross-validation splitters, pairwise kernels) and to its ``utils/validation.py``, for
comparison.  (scikit-learn's ``_parameter_constraints`` are annotated assignments, which the
rule counts as executable lines, not as checks.)

With ``--old``, the rule before the any-call extension is applied instead (only a
statement whose value *is* such a call, the names of the first bullet plus ``_finite``,
raises of ``ValueError``/``TypeError``/``NotFittedError`` only, headers only over
raises, no tables), so that both counts can be compared at one commit.
"""
from __future__ import annotations

import ast
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1] / "kmlib"
OLD = "--old" in sys.argv
ARG_ERRORS = {"ValueError", "TypeError", "NotFittedError"}
NON_ARG_ERRORS = {"MemoryError", "RuntimeError", "NotImplementedError", "StopIteration",
                  "AssertionError", "KeyboardInterrupt", "SystemExit"}
CHECK_PREFIXES = ("check_", "_check", "validate", "_validate", "warn_")
CHECK_NAMES = {"_finite", "check_array", "check_non_negative", "validate_data"}
#: kmlib functions that check their arguments and return them (converted) or nothing,
#: whose names do not start with a prefix above (file: function).
VALIDATORS = {
    "as_float_array",    # _validation/arrays.py: float64 array, or a clear error
    "check_given",       # _validation/arrays.py (also matches the prefix)
    "_rows",             # _dask.py: X as a Dask array chunked by rows, shape rules
    "_response",         # _dask.py: y as a Dask array with X's row chunks
    "resolve_folds",     # _folds.py: the folds argument as checked index pairs
    "fit_inputs",        # _estimator_inputs.py: a classifier's training data, checked
    "samples",           # unsupervised/_common.py: two samples X and Y, checked
    "_inputs",           # falkon.py: X checked (and a kmlib kernel's domain)
    "_resolve_params",   # features/fourier.py: the declared constraints and the rules
                         # that tie kernel, sigma and nu together
    "finite_result",     # _validation/results.py: the guard of a result, applied by a call
                         # (FiniteResults applies it to estimators' methods) as by a decorator
}
#: Tables of checks (assignments whose value is data read by a validator) and named
#: constraints written as a class (a predicate and its description), counted whole.
CHECK_TABLES = {"_NAMED", "_SpectralKernel"}
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


def _is_validator(name: str) -> bool:
    if OLD:
        return name.startswith(CHECK_PREFIXES) or name in CHECK_NAMES
    return name.startswith(CHECK_PREFIXES) or name in CHECK_NAMES or name in VALIDATORS


def _is_arg_raise(stmt: ast.stmt) -> bool:
    if not isinstance(stmt, ast.Raise):
        return False
    if OLD:
        return stmt.exc is not None and _name(stmt.exc) in ARG_ERRORS
    return stmt.exc is None or _name(stmt.exc) not in NON_ARG_ERRORS


def _has_check_call(nodes: list[ast.AST]) -> bool:
    return any(isinstance(n, ast.Call) and _is_validator(_name(n))
               for node in nodes for n in ast.walk(node))


def _is_check_call(stmt: ast.stmt) -> bool:
    if OLD:
        value = getattr(stmt, "value", None)
        return isinstance(stmt, (ast.Expr, ast.Assign, ast.AnnAssign, ast.Return)) and \
            isinstance(value, ast.Call) and _is_validator(_name(value))
    return _has_check_call([stmt])


def _header_exprs(stmt: ast.stmt) -> list[ast.AST]:
    """The expressions written in a compound statement's header (not its body)."""
    if isinstance(stmt, (ast.If, ast.While)):
        return [stmt.test]
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        return [stmt.target, stmt.iter]
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return list(stmt.items)  # type: ignore[arg-type]
    return []


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
        body = node.body
        return span(first, body[0].lineno - 1) if body else span(first, node.end_lineno)

    def check_body(body: list[ast.stmt], full: list[bool]) -> bool:
        """A body of nothing but check statements (and assignments preparing a message)."""
        if OLD:
            return bool(body) and _is_arg_raise(body[-1]) and all(
                _is_arg_raise(s) or isinstance(s, ast.Assign) for s in body)
        return bool(full) and (all(full) or (_is_arg_raise(body[-1]) and all(
            _is_arg_raise(s) or isinstance(s, ast.Assign) for s in body)))

    def visit(body: list[ast.stmt]) -> list[bool]:
        """Count the statements of ``body``; return, per statement, whether it is all check."""
        full: list[bool] = []
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
                if not OLD and _has_check_call(_header_exprs(stmt)):
                    check.update(h)
                sub = visit(stmt.body)
                if isinstance(stmt, ast.ClassDef) and stmt.name in CHECK_TABLES and not OLD:
                    check.update(execu & span(min(h), stmt.end_lineno))
                if isinstance(stmt, ast.If) and check_body(stmt.body, sub):
                    check.update(h)
                elif (not OLD and isinstance(stmt, (ast.For, ast.AsyncFor, ast.While, ast.With,
                                                    ast.AsyncWith)) and check_body(stmt.body, sub)):
                    check.update(h)
                parts = [sub]
                if isinstance(stmt, ast.If) and stmt.orelse:
                    if not isinstance(stmt.orelse[0], ast.If):   # a plain else:
                        else_line = stmt.orelse[0].lineno - 1
                        sub_else = visit(stmt.orelse)
                        if else_line in code:
                            execu.add(else_line)
                            if check_body(stmt.orelse, sub_else):
                                check.add(else_line)
                    else:
                        sub_else = visit(stmt.orelse)
                    parts.append(sub_else)
                elif isinstance(stmt, ast.Try):
                    for h2 in stmt.handlers:
                        hh = span(h2.lineno, h2.body[0].lineno - 1)
                        execu.update(hh)
                        sub_h = visit(h2.body)
                        if check_body(h2.body, sub_h):
                            check.update(hh)
                        parts.append(sub_h)
                    parts += [visit(stmt.orelse), visit(stmt.finalbody)]
                else:
                    parts.append(visit(getattr(stmt, "orelse", [])))
                full.append(not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                  ast.ClassDef))
                            and h <= check and all(all(p) for p in parts))
                continue
            s = span(stmt.lineno, stmt.end_lineno)
            execu.update(s)
            if isinstance(stmt, ast.Assign) and any(
                    getattr(t, "id", "") in ("_parameter_constraints", "_parameter_hints")
                    for t in stmt.targets):
                declared.update(s)
            elif not OLD and isinstance(stmt, (ast.Assign, ast.AnnAssign)) and any(
                    getattr(t, "id", "") in CHECK_TABLES
                    for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])):
                check.update(s)
            elif _is_arg_raise(stmt) or _is_check_call(stmt):
                check.update(s)
            full.append(bool(s) and s <= check)
        return full

    visit(ast.parse(src).body)
    return len(check), len(execu), len(declared)


SKLEARN_FILES = ["kernel_ridge.py", "kernel_approximation.py", "svm/_base.py", "svm/_classes.py",
                 "linear_model/_ridge.py", "linear_model/_logistic.py",
                 "decomposition/_kernel_pca.py", "model_selection/_split.py",
                 "metrics/pairwise.py", "utils/validation.py"]


def compare_sklearn() -> None:
    """Print the rule's count for scikit-learn's comparable files."""
    import sklearn

    root = pathlib.Path(sklearn.__file__).parent
    tot = {True: [0, 0], False: [0, 0]}
    for name in SKLEARN_FILES:
        c, e, _ = count(root / name)
        print(f"sklearn/{name:40s} {c:5d} / {e:5d}  {100 * c / e:5.1f} %")
        for with_validation in (True, False):
            if with_validation or name != "utils/validation.py":
                tot[with_validation][0] += c
                tot[with_validation][1] += e
    rule = "old rule" if OLD else "rule"
    print(f"scikit-learn {sklearn.__version__} ({rule}): these files without utils/validation.py "
          f"{tot[False][0]} / {tot[False][1]} = {100 * tot[False][0] / tot[False][1]:.1f} %, "
          f"with it {tot[True][0]} / {tot[True][1]} = {100 * tot[True][0] / tot[True][1]:.1f} %")


def main() -> None:
    if "--sklearn" in sys.argv:
        compare_sklearn()
        return
    files = sorted(p for p in ROOT.rglob("*.py") if "book" not in p.relative_to(ROOT).parts)
    tot_c = tot_e = tot_d = val_c = val_e = 0
    rows = []
    for p in files:
        c, e, d = count(p)
        tot_c += c
        tot_e += e
        tot_d += d
        if "_validation" in p.relative_to(ROOT).parts:
            val_c += c
            val_e += e
        rows.append((p.relative_to(ROOT.parent), c, e))
    if "--files" in sys.argv:
        for name, c, e in sorted(rows, key=lambda r: -r[1]):
            print(f"{str(name):45s} {c:5d} / {e:5d}  {100 * c / max(e, 1):5.1f} %")
    rule = "old rule" if OLD else "rule"
    print(f"kmlib outside kmlib/book ({rule}): {tot_c} check lines of {tot_e} executable lines "
          f"= {100 * tot_c / tot_e:.1f} %  ({len(files)} files); declarations of constraints "
          f"(not counted as checks): {tot_d} lines")
    print(f"  without the validators of kmlib/_validation/ (as scikit-learn's files without "
          f"utils/validation.py, --sklearn): {tot_c - val_c} / {tot_e - val_e} = "
          f"{100 * (tot_c - val_c) / (tot_e - val_e):.1f} %")


if __name__ == "__main__":
    main()
