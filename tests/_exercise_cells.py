"""Running an exercise notebook in-process, shared by the tests of the exercise checkers.

An exercise page (MyST Markdown) has code cells tagged ``solution`` (the model
answers) and ``check`` (calls of ``kmlib.book.exercises.chNN.check_*``).  The tests
run it twice: as written, where every check must pass, and with every name a
solution cell assigns replaced by ``None`` (the student's stub), where every
check cell must raise ``AssertionError``.  In each run every check cell runs with the
shipped self-checks and then with the grader's full checks (``run_checked``), so the
sheet's code executes twice in all, not once per set of checks.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from _notebooks import read
from make_exercises import assigned_names  # the generator's own rule for the stubs


def code_cells(path: Path) -> list[tuple[list[str], str]]:
    """The code cells of the MyST notebook at ``path`` as (tags, source) pairs."""
    nb = read(path)
    return [(c.metadata.get("tags", []), c.source) for c in nb.cells if c.cell_type == "code"]


def check_sources(cells: list[tuple[list[str], str]]) -> list[str]:
    """The sources of the cells tagged ``check``."""
    return [src for tags, src in cells if "check" in tags]


def run_with_solutions(cells: list[tuple[list[str], str]]) -> None:
    """Execute every cell in order in one namespace (the solution notebook)."""
    ns: dict = {}
    for _, src in cells:
        exec(compile(src, "cell", "exec"), ns)


def assert_checks_fail_with_none_stubs(cells: list[tuple[list[str], str]]) -> None:
    """Execute the notebook with solution cells replaced by ``None`` stubs; every check must fail.

    A solution cell is not run: each name it would assign is bound to None
    instead.  Every check cell must then raise ``AssertionError``; other cells
    run normally.
    """
    ns: dict = {}
    for tags, src in cells:
        if "solution" in tags:
            for name in assigned_names(src):
                ns[name] = None
        elif "check" in tags:
            with pytest.raises(AssertionError):
                exec(compile(src, "cell", "exec"), ns)
        else:
            exec(compile(src, "cell", "exec"), ns)


SELF, FULL = "Self-check passed:", "Correct:"


def self_and_full(shipped, reference):
    """The two assertions of every checker test, for one chapter's shipped self-checks
    (``kmlib.book.exercises.chNN``) and the grader's full checks (``_grading.reference.chNN``).

    ``both(capsys, call)``: ``call(module)`` passes the self-check and the full check, each
    with its own line. ``rejected(call, full, self_check)``: the full check rejects with a
    message matching ``full``; the self-check with ``self_check``, or passes when
    ``self_check`` is None (its properties cannot tell that mistake); returns the messages.
    """
    def both(capsys, call) -> None:
        call(shipped)
        assert capsys.readouterr().out.startswith(SELF)
        call(reference)
        assert capsys.readouterr().out.startswith(FULL)

    def rejected(call, full: str, self_check: str | None) -> list[str]:
        with pytest.raises(AssertionError, match=full) as e:
            call(reference)
        messages = [str(e.value)]
        if self_check is None:
            call(shipped)
        else:
            with pytest.raises(AssertionError, match=self_check) as e:
                call(shipped)
            messages.append(str(e.value))
        return messages

    return both, rejected


def run_checked(cells: list[tuple[list[str], str]], shipped, reference, *,
                stubs: bool, capsys) -> tuple[str, str]:
    """Execute the sheet once, running every check cell twice in place: with the shipped
    self-checks, then with the grader's full checks put in their place (as when grading).

    With ``stubs`` every name a solution cell assigns is bound to None instead of running
    it, and each check cell must raise ``AssertionError`` both times. Returns the printed
    output of the two runs of the check cells (``self``, ``full``), each preceded by what
    the other cells printed, so one execution serves both sets of checks.
    """
    names = [n for n in vars(shipped) if n.startswith("check_")]
    missing = [n for n in names if not hasattr(reference, n)]
    assert not missing, f"the grader has no full check for {missing}"
    ns: dict = {}
    out = {"self": [], "full": []}
    for tags, src in cells:
        code = compile(src, "cell", "exec")
        if stubs and "solution" in tags:
            for name in assigned_names(src):
                ns[name] = None
            continue
        if "check" not in tags:
            exec(code, ns)
            printed = capsys.readouterr().out
            out["self"].append(printed)
            out["full"].append(printed)
            continue
        originals = {n: getattr(shipped, n) for n in names}
        for which in ("self", "full"):
            try:
                if which == "full":
                    for n in names:
                        setattr(shipped, n, getattr(reference, n))
                if stubs:
                    with pytest.raises(AssertionError):
                        exec(code, ns)
                else:
                    exec(code, ns)
            finally:
                for n, f in originals.items():
                    setattr(shipped, n, f)
            out[which].append(capsys.readouterr().out)
    return "".join(out["self"]), "".join(out["full"])


def assert_sheet_passes_self_then_full(path: Path, shipped, reference, n_calls: int,
                                       capsys, monkeypatch, hidden: int = 0) -> None:
    """The sheet at ``path`` with its solutions: its ``n_calls`` check calls each print one
    self-check line and, with the full checks put in their place as when grading, one
    ``Correct:`` line each; ``hidden`` lecturer-only check cells print ``Correct:`` in both
    runs. With the student stubs (None) every check fails, both ways.

    Two executions of the sheet's code (solutions, stubs), each check cell run with both
    sets of checks (``run_checked``); ``monkeypatch`` is kept for the callers' signature.
    """
    cells = code_cells(path)
    calls = sum(len(re.findall(r"\bcheck_\w+\s*\(", src)) for src in check_sources(cells))
    assert calls == n_calls
    self_out, full_out = run_checked(cells, shipped, reference, stubs=False, capsys=capsys)
    assert self_out.count(SELF) == n_calls and self_out.count(FULL) == hidden
    assert full_out.count(FULL) == n_calls + hidden and SELF not in full_out
    run_checked(cells, shipped, reference, stubs=True, capsys=capsys)
