"""The copying evidence of a course: gathered once, written as ``reports/copying.csv`` and as
the class report's section (:func:`section`).

Student ids, cell ids and item names reach the page through :func:`html.escape` after
:func:`kit.inert.inert`, and the CSV through :func:`kit.gradebook.export.as_text` (no
spreadsheet formula, no control character); every list is bounded (:data:`MAX_ROWS`
rows, :data:`MAX_NAMES` names in one cell), with the number left out said.
"""

from __future__ import annotations

import csv
import html
from dataclasses import dataclass, field
from pathlib import Path

from kit.copying.code import CodeGroup, same_code
from kit.copying.keys import DISTINCTIVE, KeyMatch, class_answers, copied_keys
from kit.course import ASSIGNMENTS, Course
from kit.gradebook.export import as_text
from kit.inert import inert

#: most rows of each kind written or shown, and most student names in one cell
MAX_ROWS, MAX_NAMES = 2000, 20
COLUMNS = ["signal", "problem_set", "item_or_cells", "student", "other_students", "detail"]


@dataclass
class Evidence:
    """Both signals for the problem sets looked at, and the hand-ins the judge's record of
    answers is missing from (graded before the judge kept them: grade them again to include)."""

    keys: list[KeyMatch] = field(default_factory=list)
    code: list[CodeGroup] = field(default_factory=list)
    unrecorded: list[tuple[str, str]] = field(default_factory=list)  # (problem set, student)


def gather(course: Course, assignments=ASSIGNMENTS, students=None) -> Evidence:
    """The :class:`Evidence` of ``assignments`` over ``students`` (default: every student
    with a folder in ``submitted/``)."""
    from kit.engines.job import students_of

    students = sorted(students if students is not None else students_of(course))
    found = Evidence()
    for ps in assignments:
        handed_in, unrecorded = class_answers(course, ps, students)
        found.unrecorded += [(ps, s) for s in unrecorded]
        if handed_in:
            found.keys += copied_keys(ps, handed_in, students)
        found.code += same_code(course, ps, students)
    return found


def _names(names) -> str:
    names = list(names)
    more = f" and {len(names) - MAX_NAMES} more" if len(names) > MAX_NAMES else ""
    return ", ".join(inert(n, limit=100) for n in names[:MAX_NAMES]) + more


def rows(evidence: Evidence) -> list[dict]:
    """The CSV's rows: one per copied key, one per student of a group of identical cells."""
    found = [{"signal": "another student's key", "problem_set": m.problem_set, "item_or_cells": m.item,
              "student": m.student, "other_students": _names(m.others),
              "detail": f"key of {100 * m.share:.1f}% of variants"} for m in evidence.keys[:MAX_ROWS]]
    for i, g in enumerate(evidence.code[:MAX_ROWS]):
        for student in g.students[:MAX_NAMES]:
            found.append({"signal": "identical code (weaker)", "problem_set": g.problem_set,
                          "item_or_cells": _names(g.cells), "student": student,
                          "other_students": _names(s for s in g.students if s != student),
                          "detail": f"group {i + 1}: {len(g.students)} students, {g.tokens} tokens"})
    return found


def write_csv(evidence: Evidence, path: Path) -> Path:
    """Write ``copying.csv`` (every student-chosen cell made safe for a spreadsheet)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=COLUMNS)
        writer.writeheader()
        for row in rows(evidence):
            writer.writerow({k: as_text(v) for k, v in row.items()})
    return path


def _e(text) -> str:
    return html.escape(inert(str(text), limit=300))


def section(evidence: Evidence) -> str:
    """The class report's section on copying (its HTML; every student text escaped)."""
    keys = "".join(
        f"<tr><td>{_e(m.problem_set)}</td><td><code>{_e(m.item)}</code></td><td>{_e(m.student)}</td>"
        f"<td>{html.escape(_names(m.others))}</td><td class=num>{100 * m.share:.1f}%</td></tr>"
        for m in evidence.keys[:MAX_ROWS]) or "<tr><td colspan=5>none</td></tr>"
    code = "".join(
        f"<tr><td>{_e(g.problem_set)}</td><td>{html.escape(_names(g.cells))}</td>"
        f"<td>{html.escape(_names(g.students))}</td><td class=num>{g.tokens}</td></tr>"
        for g in evidence.code[:MAX_ROWS]) or "<tr><td colspan=4>none</td></tr>"
    cut = [f"{len(x) - MAX_ROWS} more {what} not listed"
           for x, what in ((evidence.keys, "answers"), (evidence.code, "groups")) if len(x) > MAX_ROWS]
    missing = (f"<p class=muted>{len(evidence.unrecorded)} graded notebook(s) hold no record of "
               "their exact answers (graded before the judge kept them): "
               "<code>python -m kit.autograde &lt;ps&gt; --force</code> grades them again.</p>"
               if evidence.unrecorded else "")
    return f"""<section id=copying><h2>Copying evidence (changes no grade)</h2>
<p>An exact answer that is wrong for its student's own numbers but is exactly the key of
another student's numbers, and the variants' share with that key (a key of
{100 * DISTINCTIVE:g}% of variants or more, such as a verdict or a small count, is never
listed). Then, weaker: code cells identical across students once names, comments and spacing
are normalised (the instructor's solution, the release's code and short cells left out).
Neither proves copying: see the README's "For instructors". Also in
<code>reports/copying.csv</code>.</p>{missing}
<h3>Answers that are another student's key</h3>
<table class=copied-keys><tr><th>problem set</th><th>item</th><th>student</th>
<th>whose key it is</th><th>variants with that key</th></tr>{keys}</table>
<h3>Identical code cells (a weaker signal)</h3>
<table class=same-code><tr><th>problem set</th><th>cells</th><th>students</th><th>tokens</th></tr>
{code}</table>{"".join(f"<p class=muted>{c}</p>" for c in cut)}</section>"""
