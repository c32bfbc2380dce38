"""Self-checks must not be oracles: the rule of ``book_helpers.md``, tested on every sheet.

A self-check ships to students, who can call it as often as they like. It gives an answer
away when it (a) recognises a hidden number by a digest while that number has few plausible
candidates (an integer, a count, a rank, a p-value ``k / (B + 1)``, a simple fraction, a
value rounded to fewer than six significant digits): enumerating the candidates and calling
the check finds it; or (b) says in which direction an answer is wrong ("too small" / "too
large"): bisection finds it.

(a) is tested by running each sheet's solution cells and check cells with
``hashlib.pbkdf2_hmac`` intercepted (every digest of :mod:`kmlib.book.exercises._answers`
goes through it): each value a self-check digests while checking the right answers is a
right answer (or a summary of one), and none may be low-entropy. (b) is tested on the
source of each chapter module: no conditional expression choosing between two messages of
opposite direction. Sheets that break the rule today are marked ``xfail(strict=True)``
with the sheet named, so that the mark must go when the sheet is fixed.
"""
from __future__ import annotations

import ast
import hashlib
import re
from pathlib import Path

import pytest
from _exercise_cells import code_cells
from _notebooks import ROOT

SHEETS = sorted((ROOT / "exercises").glob("*.md"))
MODULES = sorted((ROOT / "kmlib" / "book" / "exercises").glob("ch*.py"))
ROUNDED = re.compile(r"^-?(?P<mantissa>\d(?:\.\d+)?)e[+-]\d+$|^0$")

# sheets whose self-checks digest a low-entropy value today (found by this test)
DIGEST_VIOLATIONS: dict[str, str] = {}
# chapter modules whose messages say in which direction an answer is wrong today
DIRECTION_VIOLATIONS: dict[str, str] = {}


def low_entropy(text: str) -> str | None:
    """Why the rounded number ``text`` (as digested) has few plausible candidates, or None.

    Zero; fewer than six significant digits kept; an integer below 10^5; or a value whose
    six digits end in zeros, leaving at most three that count (0.24, a p-value 0.06): each
    has fewer than a million candidates to try.
    """
    m = ROUNDED.match(text)
    if m is None:
        return None
    if text == "0":
        return "zero"
    mantissa = m.group("mantissa").replace(".", "")
    if len(mantissa) < 6:
        return f"rounded to {len(mantissa)} significant digits"
    value = float(text)
    if abs(value) < 1e5 and value == round(value):
        return "an integer"
    if len(mantissa.rstrip("0")) <= 3:
        return f"only {len(mantissa.rstrip('0'))} significant digits"
    return None


def digested_values(sheet: Path, monkeypatch) -> list[tuple[str, str]]:
    """(value as digested, first line of the check cell) for every digest made while the
    sheet's solutions are checked."""
    seen: list[tuple[str, str]] = []
    where = [""]
    original = hashlib.pbkdf2_hmac

    def spy(name, password, salt, *args, **kwargs):
        seen.append((bytes(password).decode(errors="replace"), where[0]))
        return original(name, password, salt, *args, **kwargs)

    monkeypatch.setattr(hashlib, "pbkdf2_hmac", spy)
    namespace: dict = {}
    for _, source in code_cells(sheet):
        where[0] = next((ln for ln in source.splitlines() if "check_" in ln), "")
        exec(compile(source, "cell", "exec"), namespace)
    return seen


def _sheet_param(path: Path):
    why = DIGEST_VIOLATIONS.get(path.stem)
    marks = [pytest.mark.xfail(strict=True, reason=f"breaks the rule today: {why}")] if why else []
    return pytest.param(path, id=path.stem, marks=marks)


@pytest.mark.parametrize("sheet", [_sheet_param(p) for p in SHEETS])
def test_no_self_check_digests_a_low_entropy_answer(sheet, monkeypatch, capsys):
    values = digested_values(sheet, monkeypatch)
    capsys.readouterr()
    bad = sorted({(text, why, cell) for text, cell in values
                  if (why := low_entropy(text)) is not None})
    assert not bad, f"{sheet.name}: digests of low-entropy values (oracles): {bad[:8]}"


def directional_messages(source: str) -> list[int]:
    """Lines where a conditional chooses between two messages of opposite direction."""
    pairs = [("small", "large"), ("low", "high"), ("below", "above"), ("under", "over"),
             ("smaller", "larger"), ("less", "more")]
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.IfExp):
            texts = [n.value.lower() for n in (node.body, node.orelse)
                     if isinstance(n, ast.Constant) and isinstance(n.value, str)]
            if len(texts) == 2 and any((a in texts[0] and b in texts[1])
                                       or (b in texts[0] and a in texts[1]) for a, b in pairs):
                lines.append(node.lineno)
    return lines


def _module_param(path: Path):
    why = DIRECTION_VIOLATIONS.get(path.stem)
    marks = [pytest.mark.xfail(strict=True, reason=f"breaks the rule today: {why}")] if why else []
    return pytest.param(path, id=path.stem, marks=marks)


@pytest.mark.parametrize("module", [_module_param(p) for p in MODULES])
def test_no_self_check_says_in_which_direction_an_answer_is_wrong(module):
    lines = directional_messages(module.read_text(encoding="utf-8"))
    assert not lines, f"{module.name}: 'too small' / 'too large' style messages at lines {lines}"


def test_the_detectors_catch_what_they_should():
    """Known cases: an integer, a p-value 0.06, 0.24, four digits, zero; a generic six-digit
    float passes; a conditional 'too small' / 'too large' message is found."""
    assert low_entropy("2.30000e+01") == "an integer"
    assert low_entropy("6.00000e-02") == "only 1 significant digits"
    assert low_entropy("2.40000e-01") == "only 2 significant digits"
    assert low_entropy("3.783e+00") == "rounded to 4 significant digits"
    assert low_entropy("0") == "zero"
    assert low_entropy("3.78311e+00") is None and low_entropy("1.78148e+03") is None
    assert directional_messages('m = "too small" if x < y else "too large"\n') == [1]
    assert directional_messages('m = "n times too large"\n') == []
