"""Write ``grades.csv``, ``summary.csv`` and one HTML feedback page per student."""
from __future__ import annotations

import csv
import html
from dataclasses import dataclass, field
from pathlib import Path

GRADES_COLUMNS = ["student", "sheet", "exercise", "check", "points", "max_points", "passed",
                  "message"]


@dataclass
class Row:
    student: str
    sheet: str
    exercise: str
    check: str
    points: float
    max_points: float
    passed: bool
    message: str
    hidden: bool = False


@dataclass
class StudentResult:
    student: str
    sheet: str
    rows: list[Row]
    notes: list[str] = field(default_factory=list)

    @property
    def total(self) -> float:
        return sum(r.points for r in self.rows)


def _num(x: float) -> str:
    return f"{x:g}"


def write_grades(path: Path, results: list[StudentResult]) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(GRADES_COLUMNS)
        for result in results:
            for r in result.rows:
                writer.writerow([r.student, r.sheet, r.exercise, r.check, _num(r.points),
                                 _num(r.max_points), "yes" if r.passed else "no",
                                 " ".join(r.message.split())])


def write_summary(path: Path, results: list[StudentResult], sheet_max: float,
                  exercises: list[str]) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(["student", "sheet", "total", "max", *exercises])
        for result in results:
            per = {ex: sum(r.points for r in result.rows if r.exercise == ex) for ex in exercises}
            writer.writerow([result.student, result.sheet, _num(result.total), _num(sheet_max),
                             *(_num(per[ex]) for ex in exercises)])


def write_feedback(path: Path, result: StudentResult, sheet_max: float) -> None:
    """A page for the student: each check with its points and message (hidden: pass/fail only)."""
    e = html.escape
    rows = []
    for r in result.rows:
        verdict = "passed" if r.passed else "failed"
        message = "(hidden check: run only when grading)" if r.hidden else r.message
        rows.append(f"<tr class='{verdict}'><td>{e(r.exercise)}</td><td>{e(r.check)}</td>"
                    f"<td>{_num(r.points)} / {_num(r.max_points)}</td><td>{verdict}</td>"
                    f"<td>{e(message)}</td></tr>")
    notes = "".join(f"<li>{e(n)}</li>" for n in result.notes)
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Feedback: {e(result.student)}</title>
<style>body{{font-family:sans-serif;max-width:60em;margin:2em auto}}
table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:.3em .6em;text-align:left}}
tr.passed td:nth-child(4){{color:#1b7837}}tr.failed td:nth-child(4){{color:#b2182b}}</style></head>
<body><h1>Feedback for {e(result.student)}</h1>
<p>Sheet <code>{e(result.sheet or "unknown")}</code>:
<strong>{_num(result.total)} / {_num(sheet_max)}</strong> points.</p>
{f"<h2>About your notebook</h2><ul>{notes}</ul>" if notes else ""}
<table><tr><th>Exercise</th><th>Check</th><th>Points</th><th>Result</th><th>Message</th></tr>
{chr(10).join(rows)}
</table></body></html>
"""
    path.write_text(page, encoding="utf-8")
