"""Step 7 of the pipeline: the class report for the instructor, beside the CSV in ``reports/``.

``class_report.html`` (with ``class_report.png`` embedded) shows the grade distribution of each
problem set, the pass rate of every auto-graded part, and the classic mistakes the hidden tests
diagnosed most often (the ``[diagnosis: <code>]`` lines they print).
"""

from __future__ import annotations

import base64
import html
import re
from collections import Counter
from pathlib import Path

import nbformat

from kit.autograde import Outcome
from kit.course import ASSIGNMENTS, Course
from kit.export import max_points

DIAGNOSIS = re.compile(r"\[diagnosis: ([a-z_]+)\]")


def diagnoses(course: Course, outcomes: list[Outcome]) -> Counter:
    """How many submissions showed each diagnosed mistake (a submission counts once per code)."""
    counts: Counter = Counter()
    for o in outcomes:
        if o.status != "graded":
            continue
        path = course.notebook("autograded", o.assignment, o.student)
        if not path.exists():
            continue
        nb = nbformat.read(path, as_version=4)
        found = set()
        for cell in nb.cells:
            for out in cell.get("outputs", []):
                text = out.get("text", "") or str(out.get("data", {}).get("text/plain", "")) + out.get("evalue", "")
                found.update((o.assignment, code) for code in DIAGNOSIS.findall(text))
        counts.update(found)
    return counts


def wrong_ids(course: Course, outcomes: list[Outcome]) -> list[tuple[str, str, str]]:
    """``(student, problem set, typed ids)`` of graded notebooks whose ``STUDENT_ID`` names
    someone else: their exact items scored 0 (``kit.identity``); the TA should look."""
    from kit.identity import typed_ids

    found = []
    for o in outcomes:
        path = course.notebook("autograded", o.assignment, o.student)
        if o.status != "graded" or not path.exists():
            continue
        typed = typed_ids(nbformat.read(path, as_version=4)) - {o.student, ""}
        if typed:
            found.append((o.student, o.assignment, ", ".join(sorted(typed))))
    return found


def _auto_cells(course: Course, assignment: str) -> dict[str, float]:
    nb = nbformat.read(course.notebook("source", assignment), as_version=4)
    return {
        c.metadata["nbgrader"]["grade_id"]: float(c.metadata["nbgrader"]["points"])
        for c in nb.cells
        if c.get("metadata", {}).get("nbgrader", {}).get("grade")
        and not c.metadata["nbgrader"].get("solution")
    }


def part_pass_rates(course: Course, outcomes: list[Outcome]) -> dict[str, dict[str, float]]:
    """``{assignment: {test grade_id: share of submitted notebooks with full points}}``."""
    rates = {}
    for assignment in sorted({o.assignment for o in outcomes}, key=_order):
        cells = _auto_cells(course, assignment)
        subs = [o for o in outcomes if o.assignment == assignment and o.status != "not submitted"]
        rates[assignment] = {
            gid: (sum(o.scores.get(gid, 0.0) >= pts - 1e-9 for o in subs) / len(subs) if subs else 0.0)
            for gid, pts in cells.items()
        }
    return rates


def _order(assignment: str) -> int:
    return ASSIGNMENTS.index(assignment) if assignment in ASSIGNMENTS else len(ASSIGNMENTS)


def plot(course: Course, outcomes: list[Outcome], path: Path) -> Path:
    """Grade distributions (top row) and part pass rates (bottom row), one column per problem set."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rates = part_pass_rates(course, outcomes)
    names = list(rates)
    fig, axes = plt.subplots(2, len(names), figsize=(4 * len(names), 7), squeeze=False)
    for j, assignment in enumerate(names):
        auto_max = max_points(course, assignment)[0]
        totals = [o.total for o in outcomes if o.assignment == assignment]
        ax = axes[0][j]
        ax.hist(totals, bins=10, range=(0, max(auto_max, 1)), color="#4c72b0", edgecolor="white")
        ax.set_title(f"{assignment}\nauto-graded score (max {auto_max:g})", fontsize=9)
        ax.set_xlabel("points")
        ax.set_ylabel("students")
        ax = axes[1][j]
        parts = rates[assignment]
        ax.barh(list(parts), [100 * v for v in parts.values()], color="#55a868")
        ax.set_xlim(0, 100)
        ax.invert_yaxis()
        ax.tick_params(axis="y", labelsize=7)
        ax.set_xlabel("% with full points")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def write_report(course: Course, outcomes: list[Outcome], folder: Path | None = None) -> Path:
    """Write ``class_report.png`` and ``class_report.html``; return the HTML path."""
    folder = folder or course.root / "reports"
    png = plot(course, outcomes, folder / "class_report.png")
    mistakes = diagnoses(course, outcomes)
    rates = part_pass_rates(course, outcomes)
    rows = "".join(
        f"<tr><td>{html.escape(a)}</td><td><code>{html.escape(code)}</code></td><td>{n}</td></tr>"
        for (a, code), n in mistakes.most_common()
    ) or "<tr><td colspan=3>no classic mistake was diagnosed</td></tr>"
    part_rows = "".join(
        f"<tr><td>{html.escape(a)}</td><td>{html.escape(g)}</td><td>{100 * r:.0f}%</td></tr>"
        for a, parts in rates.items() for g, r in parts.items()
    )
    failed = "".join(
        f"<li>{html.escape(o.student)} / {html.escape(o.assignment)}: {html.escape(o.message)}</li>"
        for o in outcomes if o.status == "failed"
    ) or "<li>none</li>"
    mismatched = "".join(
        f"<li>{html.escape(student)} / {html.escape(a)}: the notebook says "
        f"<code>STUDENT_ID = {html.escape(typed)}</code></li>"
        for student, a, typed in wrong_ids(course, outcomes)
    ) or "<li>none</li>"
    image = base64.b64encode(png.read_bytes()).decode()
    page = f"""<!doctype html><html><head><meta charset="utf-8"><title>Class report</title>
<style>body{{font-family:sans-serif;max-width:1200px;margin:auto}}td,th{{padding:2px 8px}}
table{{border-collapse:collapse}}tr:nth-child(even){{background:#f3f3f3}}</style></head><body>
<h1>Kernel PCA unit: class report</h1>
<p>{len({o.student for o in outcomes})} students, {sum(o.status == 'graded' for o in outcomes)} graded notebooks.</p>
<img src="data:image/png;base64,{image}" alt="grade distributions and part pass rates" style="width:100%">
<h2>Most frequent diagnosed mistakes</h2>
<table><tr><th>problem set</th><th>mistake</th><th>submissions</th></tr>{rows}</table>
<h2>Pass rate of each auto-graded part</h2>
<table><tr><th>problem set</th><th>part</th><th>full points</th></tr>{part_rows}</table>
<h2>Submissions that could not be graded</h2><ul>{failed}</ul>
<h2>Submissions with another student's id typed in</h2>
<p>Their exact answers were graded on the submitter's own numbers and earned nothing; check
the LMS, hub and nbgrader ids match (<code>python -m kit.variants &lt;ps&gt; --student ID</code>).</p>
<ul>{mismatched}</ul>
</body></html>"""
    out = folder / "class_report.html"
    out.write_text(page, encoding="utf-8")
    return out
