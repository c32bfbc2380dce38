"""Write ``grades.csv``, ``summary.csv`` and one HTML feedback page per student."""
from __future__ import annotations

import collections
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


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def cell(text) -> str:
    """A CSV cell a spreadsheet shows as text: a leading ``= + - @``, tab or CR gets ``'``.

    The OWASP rule against formula (CSV) injection; applied to every text cell, so a student
    named ``=2+3`` (a file ``=2+3.ipynb``) reads ``'=2+3``.
    """
    text = str(text)
    return "'" + text if text.startswith(FORMULA_START) else text


def write_grades(path: Path, results: list[StudentResult]) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(GRADES_COLUMNS)
        for result in results:
            for r in result.rows:
                writer.writerow([cell(r.student), cell(r.sheet), cell(r.exercise),
                                 cell(r.check), _num(r.points), _num(r.max_points),
                                 "yes" if r.passed else "no", cell(" ".join(r.message.split()))])


def write_summary(path: Path, results: list[StudentResult], sheet_max: float,
                  exercises: list[str]) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(["student", "sheet", "total", "max", *(cell(ex) for ex in exercises)])
        for result in results:
            per = {ex: sum(r.points for r in result.rows if r.exercise == ex) for ex in exercises}
            writer.writerow([cell(result.student), cell(result.sheet), _num(result.total),
                             _num(sheet_max),
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


def _histogram_png(totals: list[float], sheet_max: float) -> bytes:
    """A histogram of the totals as a PNG (matplotlib, no display needed)."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3), dpi=100)
    edges = [x - 0.5 for x in range(int(sheet_max) + 2)] if sheet_max <= 40 else 20
    ax.hist(totals, bins=edges, color="#4477aa", edgecolor="white")
    ax.set_xlabel(f"total points (of {_num(sheet_max)})")
    ax.set_ylabel("students")
    ax.yaxis.get_major_locator().set_params(integer=True)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()


def class_statistics(results: list[StudentResult], sheet) -> dict:
    """Per exercise and check: mean points, share passed, most common failure message."""
    graded = [r for r in results if r.sheet == sheet.name
              and not (len(r.rows) == 1 and r.rows[0].check == "submission")]
    n = len(graded)
    checks = []
    for i, check in enumerate(sheet.checks):
        rows = [r.rows[i] for r in graded]
        failures = collections.Counter(r.message for r in rows if not r.passed)
        common = failures.most_common(1)
        checks.append({"exercise": check.exercise, "check": check.name, "hidden": check.hidden,
                       "max": check.points,
                       "mean": sum(r.points for r in rows) / n if n else 0.0,
                       "passed": sum(r.passed for r in rows) / n if n else 0.0,
                       "failure": common[0][0] if common else "",
                       "failure_count": common[0][1] if common else 0})
    exercises = []
    for ex in sheet.exercises:
        full = sum(c.points for c in sheet.checks if c.exercise == ex)
        per = [sum(row.points for row in r.rows if row.exercise == ex) for r in graded]
        exercises.append({"exercise": ex, "max": full, "mean": sum(per) / n if n else 0.0,
                          "full": sum(p == full for p in per) / n if n else 0.0})
    return {"graded": n, "submissions": len(results), "checks": checks,
            "exercises": exercises, "totals": [r.total for r in results]}


def write_class_report(path: Path, results: list[StudentResult], sheet) -> None:
    """``report.html``: what the class got right and wrong, for the lecturer."""
    import base64

    e = html.escape
    stats = class_statistics(results, sheet)
    totals = stats["totals"]
    n, mean = len(totals), (sum(totals) / len(totals) if totals else 0.0)
    png = base64.b64encode(_histogram_png(totals, sheet.max_points)).decode()
    counts = collections.Counter(totals)
    alt = (f"Histogram of the totals of {n} submissions (of {_num(sheet.max_points)} points): "
           + ", ".join(f"{counts[t]} scored {_num(t)}" for t in sorted(counts)))
    pct = lambda x: f"{100 * x:.0f} %"  # noqa: E731
    ex_rows = "\n".join(
        f"<tr><td>{e(x['exercise'])}</td><td>{x['mean']:.2f} / {_num(x['max'])}</td>"
        f"<td>{pct(x['full'])}</td></tr>" for x in stats["exercises"])
    def failure(c: dict) -> str:
        return f"{e(c['failure'])} ({c['failure_count']}×)" if c["failure"] else ""

    check_rows = "\n".join(
        f"<tr><td>{e(c['exercise'])}</td><td>{e(c['check'])}{' (hidden)' if c['hidden'] else ''}"
        f"</td><td>{c['mean']:.2f} / {_num(c['max'])}</td><td>{pct(c['passed'])}</td>"
        f"<td>{failure(c)}</td></tr>" for c in stats["checks"])
    rejected = stats["submissions"] - stats["graded"]
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Class report: {e(sheet.name)}</title>
<style>body{{font-family:sans-serif;max-width:70em;margin:2em auto}}
table{{border-collapse:collapse;margin-bottom:1.5em}}
td,th{{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}}</style>
</head><body><h1>Class report: <code>{e(sheet.name)}</code></h1>
<p>{n} submissions, {stats['graded']} graded as notebooks of this sheet
({rejected} not: other sheets or not notebooks, counted with 0 points).
Mean total <strong>{mean:.2f} / {_num(sheet.max_points)}</strong>.</p>
<figure><img src="data:image/png;base64,{png}" alt="{e(alt)}">
<figcaption>Totals of the class.</figcaption></figure>
<h2>Per exercise</h2>
<p>Means and shares over the {stats['graded']} graded notebooks.</p>
<table><tr><th>Exercise</th><th>Class mean</th><th>Full marks</th></tr>
{ex_rows}
</table>
<h2>Per check</h2>
<table><tr><th>Exercise</th><th>Check</th><th>Class mean</th><th>Passed</th>
<th>Most common failure message</th></tr>
{check_rows}
</table></body></html>
"""
    path.write_text(page, encoding="utf-8")
