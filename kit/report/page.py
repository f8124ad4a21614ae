"""Step 7 of the pipeline: the class report for the instructor, ``reports/class_report.html``.

One self-contained page (its plots are embedded PNGs) with, for each problem set: the
distribution of the graded notebooks' scores beside the number of students who did not hand
it in and of hand-ins that could not be graded; auto-graded, hand-graded and total points
("not yet graded" until a TA grades the written answers in formgrader); the pass rate of each
auto-graded part, hardest first, titled by the notebook's heading (its TeX drawn as MathML,
:mod:`kit.html.maths`: the page needs no script or network); the mistakes the hidden
tests named most often (``[diagnosis: <code>]``). Then a table of every student linking each
feedback page, the late hand-ins, extensions and exemptions of the course calendar
(:mod:`kit.term.report`), the hand-ins that could not be graded, and those with another
student's id typed in, and the copying evidence (:mod:`kit.copying`, also
``reports/copying.csv``). The numbers are in :mod:`kit.report.data`, the plots in :mod:`kit.report.plot`.

``python -m kit.report`` makes the report and ``reports/grades.csv`` again from what is on
disk and in the gradebook (after hand grading, say); ``--feedback`` first writes every graded
submission's feedback page again, so the pages show the TA's grades and comments.
"""

from __future__ import annotations

import argparse
import base64
import html
import os
import sys
from pathlib import Path
from urllib.parse import quote

from kit.course import ASSIGNMENTS, REPO_ROOT, Course, prepare_environment
from kit.engines.job import Outcome, students_of
from kit.html.maths import maths_text
from kit.inert import inert
from kit.itemstats.report import report_sections
from kit.report.data import ProblemSet, describe, summarise, wrong_ids
from kit.report.plot import problem_set_png
from kit.term.report import late_section
from kpca_ref.variants import current_name

NOT_GRADED = "not yet graded"
STYLE = """body{font-family:sans-serif;max-width:1200px;margin:auto;padding:0 1em}
td,th{padding:2px 8px;text-align:left;vertical-align:top}table{border-collapse:collapse;margin:.5em 0}
tr:nth-child(even){background:#f3f3f3}.num{text-align:right}img{max-width:100%}
.muted{color:#777}section{border-top:1px solid #ccc;margin-top:1.5em}
math{font-family:"Latin Modern Math","STIX Two Math","Cambria Math",math}"""
#: the page needs no script and fetches nothing (its plots are inline, its maths MathML)
CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
       "form-action 'none'")

e = html.escape


def _pct(share: float) -> str:
    return f"{100 * share:.0f}%"


def _points_table(ps: ProblemSet) -> str:
    graded = list(ps.graded.values())
    hand = ps.hand_graded
    manual = describe([m.manual for m in hand]) if hand else NOT_GRADED
    total = describe([m.total for m in hand]) if hand else NOT_GRADED
    rows = [
        ("notebooks", (f"{len(graded)} graded, {len(ps.missing)} not submitted, "
                       f"{len(ps.failed)} could not be graded")),
        (f"auto-graded points (max {ps.auto_max:g})", describe([m.auto for m in graded])),
        (f"hand-graded points (max {ps.manual_max:g})",
         f"{manual} ({len(hand)} of {len(graded)} graded notebooks hand-graded)"),
        (f"total points (max {ps.auto_max + ps.manual_max:g})",
         f"{total} (hand-graded notebooks only)" if hand else NOT_GRADED),
    ]
    return "<table>" + "".join(f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in rows) + "</table>"


def _parts_table(ps: ProblemSet) -> str:
    rows = "".join(
        f"<tr><td>{maths_text(p.heading or p.title)} <span class=muted>({e(p.grade_id)})</span></td>"
        f"<td class=num>{p.points:g}</td><td class=num>{_pct(p.full)}</td><td class=num>{_pct(p.mean)}</td></tr>"
        for p in ps.parts)
    return ("<table class=parts><tr><th>part (hardest first)</th><th>points</th>"
            f"<th>full points</th><th>mean share of points</th></tr>{rows}</table>")


def _mistakes_table(ps: ProblemSet) -> str:
    n = len(ps.graded)
    rows = "".join(
        f"<tr><td><code>{e(code)}</code></td><td class=num>{count}</td>"
        f"<td class=num>{_pct(count / n) if n else '-'}</td></tr>"
        for code, count in ps.mistakes
    ) or "<tr><td colspan=3>no named mistake was diagnosed</td></tr>"
    return ("<table class=mistakes><tr><th>mistake</th><th>notebooks</th>"
            f"<th>share of the {n} graded notebooks</th></tr>{rows}</table>")


def _checks_table(ps: ProblemSet) -> str:
    if not ps.checks:
        return "<p class=muted>no instant checks recorded (kit/checks)</p>"
    rows = []
    for item, c in ps.checks.items():
        before = "-" if c["attempts_before_right"] is None else f"{c['attempts_before_right']:g}"
        named = ", ".join(f"<code>{e(code)}</code> ({n})" for code, n in c["mistakes"]) or "-"
        rows.append(f"<tr><td><code>{e(item)}</code></td><td class=num>{e(str(c['students']))}</td>"
                    f"<td class=num>{e(str(c['right']))}</td><td class=num>{before}</td>"
                    f"<td>{named}</td></tr>")
    return ("<table class=checks><tr><th>exact item</th><th>students who checked</th>"
            "<th>got it right</th><th>median wrong checks before right</th>"
            f"<th>most frequent named mistakes before hand-in</th></tr>{''.join(rows)}</table>")


def _section(ps: ProblemSet) -> str:
    image = base64.b64encode(problem_set_png(ps)).decode()
    return (f'<section id="{e(ps.name)}"><h2>{e(ps.name)}</h2>{_points_table(ps)}'
            f'<img src="data:image/png;base64,{image}" alt="{e(ps.name)}: score distribution '
            f'and part pass rates"><h3>Pass rate of each auto-graded part</h3>{_parts_table(ps)}'
            f"<h3>Most frequent named mistakes</h3>{_mistakes_table(ps)}"
            f"<h3>Instant checks on the hub</h3>{_checks_table(ps)}</section>")


def _cell(course: Course, folder: Path, ps: ProblemSet, student: str) -> str:
    if student in ps.failed:
        return "<td>could not be graded</td>"
    marks = ps.graded.get(student)
    if marks is None:
        return "<td class=muted>not submitted</td>"
    if marks.manual_cells and marks.manual_graded == marks.manual_cells:
        text = f"{marks.auto:g} + {marks.manual:g} = {marks.total:g}"
    else:
        text = f"{marks.auto:g} + {NOT_GRADED}"
    page = course.root / "feedback" / student / ps.name / f"{ps.name}.html"
    if page.exists():
        href = quote(Path(os.path.relpath(page, folder)).as_posix())
        text = f'<a href="{e(href)}">{e(text)}</a>'
    else:
        text = e(text) + " <span class=muted>(no feedback page)</span>"
    return f"<td>{text}</td>"


def _students_table(course: Course, folder: Path, sets: list[ProblemSet]) -> str:
    students = sorted({s for ps in sets for s in [*ps.graded, *ps.missing, *ps.failed]})
    head = "".join(f"<th>{e(ps.name)}</th>" for ps in sets)
    rows = "".join(
        f"<tr><td>{e(student)}</td>" + "".join(_cell(course, folder, ps, student) for ps in sets) + "</tr>"
        for student in students)
    return f"<table class=students><tr><th>student</th>{head}</tr>{rows}</table>"


def write_report(course: Course, outcomes: list[Outcome], folder: Path | None = None) -> Path:
    """Write ``class_report.html`` into ``folder`` (default ``reports/``); return its path."""
    folder = Path(folder or course.root / "reports")
    folder.mkdir(parents=True, exist_ok=True)
    sets = summarise(course, outcomes)
    failed = "".join(
        f"<li>{e(inert(student))} / {e(ps.name)}: {e(inert(why))}</li>" for ps in sets for student, why in ps.failed.items()
    ) or "<li>none</li>"
    mismatched = "".join(
        f"<li>{e(inert(student))} / {e(a)}: its numbers were drawn for "
        f"<code>{e(inert(typed))}</code></li>"
        for student, a, typed in wrong_ids(course, outcomes)
    ) or "<li>none</li>"
    students = {o.student for o in outcomes}
    graded = sum(len(ps.graded) for ps in sets)
    copying = _copying(course, outcomes, folder)
    page = f"""<!doctype html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CSP}"><title>Class report</title>
<style>{STYLE}</style></head><body>
<h1>Kernel PCA unit: class report</h1>
<p id=summary>{len(students)} students, {graded} graded notebooks. Distributions and shares
count graded notebooks only; students who did not hand a problem set in and hand-ins that
could not be graded are counted beside them. Hand-graded points are those a TA has entered in
formgrader so far ("{NOT_GRADED}" until then; <code>python -m kit.report</code> makes this
page again).</p>
<nav>{" · ".join(f'<a href="#{e(ps.name)}">{e(ps.name)}</a>' for ps in sets)} ·
<a href="#itemstats">item statistics</a> · <a href="#fairness">fairness</a> ·
<a href="#students">students</a></nav>
{"".join(_section(ps) for ps in sets)}
{report_sections(course, outcomes, folder)}
<section id=students><h2>Students</h2>
<p>Auto-graded + hand-graded points; each links the student's feedback page.</p>
{_students_table(course, folder, sets)}</section>
{late_section(course, outcomes)}
<section><h2>Submissions that could not be graded</h2><ul class=failed>{failed}</ul></section>
<section><h2>Submissions with another student's id</h2>
<p>Their exact answers were graded on the submitter's own numbers and earned nothing; check
the LMS, hub and nbgrader ids match (<code>python -m kit.variants &lt;ps&gt; --student ID</code>).</p>
<ul class=mismatched>{mismatched}</ul></section>
{copying}
</body></html>"""
    out = folder / "class_report.html"
    out.write_text(page, encoding="utf-8")
    return out


def _copying(course: Course, outcomes: list[Outcome], folder: Path) -> str:
    """Write ``copying.csv`` into ``folder``; return the report's section (:mod:`kit.copying`)."""
    from kit.copying.evidence import gather, section, write_csv

    evidence = gather(course, [a for a in ASSIGNMENTS if any(o.assignment == a for o in outcomes)],
                      sorted({o.student for o in outcomes}))
    write_csv(evidence, folder / "copying.csv")
    return section(evidence)


def outcomes_on_disk(course: Course, assignments=ASSIGNMENTS) -> list[Outcome]:
    """Outcomes as ``submitted/``, ``autograded/`` and the gradebook show them now.

    A submission with a graded notebook in ``autograded/`` and its scores in the gradebook
    (``kit.autograde`` or plain ``nbgrader autograde``) is ``"graded"``; one in ``submitted/``
    but not graded is ``"failed"`` (grading it again says why); no folder is ``"not submitted"``.
    """
    from nbgrader.api import Gradebook, MissingEntry

    found = []
    with Gradebook(course.db_url) as gb:
        for student in students_of(course):
            for assignment in assignments:
                if not (course.root / "submitted" / student / assignment).exists():
                    found.append(Outcome(student, assignment, "not submitted"))
                    continue
                try:
                    sub = gb.find_submission_notebook(assignment, assignment, student)
                    scores = {current_name(g.name): float(g.score) for g in sub.grades}
                except MissingEntry:
                    scores = None
                if scores is not None and course.notebook("autograded", assignment, student).exists():
                    found.append(Outcome(student, assignment, "graded", scores))
                else:
                    found.append(Outcome(student, assignment, "failed", message=(
                        "not graded (python -m kit.autograde grades it and says why)")))
    return found


def main(argv=None) -> int:
    from kit.gradebook.export import write_csv
    from kit.gradebook.parts import write_by_part

    parser = argparse.ArgumentParser(prog="python -m kit.report", description=__doc__.splitlines()[0])
    parser.add_argument("assignments", nargs="*", default=list(ASSIGNMENTS))
    parser.add_argument("--course", type=Path, default=REPO_ROOT, help="the course directory")
    parser.add_argument("--feedback", action="store_true",
                        help="first write every graded submission's feedback page again")
    args = parser.parse_args(argv)
    prepare_environment()  # nbgrader's gradebook runs `alembic`, from this interpreter's bin
    course = Course(args.course.resolve())
    outcomes = outcomes_on_disk(course, args.assignments)
    if args.feedback:
        from kit.handback.feedback import write_feedback

        api = course.api()
        for o in (o for o in outcomes if o.status == "graded"):
            if problem := write_feedback(course, o.assignment, o.student, api=api):
                print(f"  ! {inert(o.student)} / {o.assignment}: {inert(problem)}")
        print(f"feedback: {course.root / 'feedback'}")
    print(f"grades:   {write_csv(course, outcomes)}")
    print(f"by part:  {write_by_part(course, outcomes)}")
    print(f"report:   {write_report(course, outcomes)}")
    print(f"items:    {course.root / 'reports' / 'item_stats.csv'} and fairness.csv beside it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
