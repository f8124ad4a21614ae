"""The student's overview as a page: one table, no script, every field escaped.

:func:`render` turns the rows of :func:`kit.checks.overview.overview` into a self-contained
HTML page (inline style only, nothing fetched, no script): for each problem set her opening
and own due date (extension or exemption with its reason), status, score after the late
penalty and why, checks used, and links to her feedback and worked solutions when the
course has them. Every field passes :func:`kit.html.escape.text` (her id, problem-set names,
reasons, the late line) and every link is built from quoted path segments
(:func:`kit.html.escape.segment`).

The check service serves it to the logged-in student (:mod:`kit.checks.overview_web`);
:func:`write_overview` writes one student's page to a file (the demo, a TA's office hours),
its links pointing at the course's own feedback and solution pages.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable
from pathlib import Path

from kit.checks.overview import Row, course_page, overview, student_folder
from kit.html.escape import segment, text
from kit.term import now as term_now
from kit.term.times import show_time

__all__ = ["CSP", "render", "write_overview"]

#: the page's Content-Security-Policy when served: no script, nothing fetched, no framing
CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; base-uri 'none'; "
       "form-action 'none'; frame-ancestors 'none'")
STYLE = """body{font-family:sans-serif;max-width:1200px;margin:auto;padding:0 1em;color:#1a1a1a;
background:#fff}table{border-collapse:collapse;margin:1em 0}th,td{padding:4px 8px;text-align:left;
vertical-align:top;border-bottom:1px solid #bbb}thead th{background:#eee}.num{text-align:right}
.late{color:#8a1c00}.note{color:#333;font-size:.92em}a{color:#0645ad}"""


def _score(row: Row) -> str:
    if row.score is None:
        return "—"
    shown = f"{row.score:g} of {row.max_score:g}"
    if row.penalty:
        shown += (f'<br><span class="late">{row.penalty:g} points taken for lateness: '
                  f"{text(row.why, 600)}</span>")
    if row.hand_grading:
        shown += '<br><span class="note">written answers not yet graded by a TA</span>'
    return shown


def _cell(label: str, href: str | None) -> str:
    return f'<a href="{text(href)}">{label}</a>' if href else "not yet"


def _row(row: Row, link: Callable[[str, str], str | None]) -> str:
    due = text(row.shown(row.due)) or "no due date"
    if row.granted:
        due += f'<br><span class="note">{text(row.granted, 600)}</span>'
    status = text(row.status_text)
    if row.status == "submitted late" or (row.late_by > 0 and row.penalty):
        status = f'<span class="late">{status}</span>'
    feedback = _cell(f"feedback on {text(row.ps)}", link("feedback", row.ps) if row.feedback else None)
    solutions = _cell(f"solutions of {text(row.ps)}",
                      link("solutions", row.ps) if row.solutions else None)
    return (f'<tr><th scope="row">{text(row.ps)}</th><td>{text(row.shown(row.opens)) or "—"}</td>'
            f"<td>{due}</td><td>{status}</td><td>{_score(row)}</td>"
            f'<td class="num">{row.checks}</td><td>{feedback}</td><td>{solutions}</td></tr>')


def render(student: str, rows: list[Row], when: dt.datetime,
           link: Callable[[str, str], str | None]) -> str:
    """The page of ``student``'s ``rows`` at ``when``; ``link(kind, ps)`` is the address of
    her ``feedback`` or ``solutions`` page of ``ps`` (None: no link)."""
    zone = next((r.zone for r in rows if r.due or r.opens), "UTC")
    body = "".join(_row(r, link) for r in rows)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Your problem sets: {text(student)}</title><style>{STYLE}</style></head>
<body><main>
<h1>Your problem sets</h1>
<p>Signed in as <strong>{text(student)}</strong>. As of {text(show_time(when, zone))}.
Due dates are your own (an extension included). A score is after any late penalty.</p>
<table>
<caption>Each problem set: dates, status, score, checks used, feedback and solutions</caption>
<thead><tr><th scope="col">Problem set</th><th scope="col">Opens</th>
<th scope="col">Your due date</th><th scope="col">Status</th><th scope="col">Score</th>
<th scope="col">Checks used</th><th scope="col">Feedback</th><th scope="col">Solutions</th></tr>
</thead><tbody>{body}</tbody></table>
<p class="note">Feedback is the page your TA released for your hand-in; solutions are worked on
your own numbers and appear after your due date, once your instructor releases them.</p>
</main></body></html>
"""


def write_overview(course, student: str, dest, when: dt.datetime | None = None) -> Path:
    """Write ``student``'s overview to the file ``dest`` (its links point at the course's
    own feedback and solution pages, relative to ``dest``); return ``dest``.

    ``when``: the time it is as of (default :func:`kit.term.now`). ValueError for a student
    id that cannot name a folder; :class:`kit.term.CalendarError` for a calendar that
    cannot be read.
    """
    from kit.course import Course

    course = course if isinstance(course, Course) else Course(Path(course))
    student, dest, when = student_folder(student), Path(dest), when or term_now()
    rows = overview(course, student, when)

    def link(kind: str, ps: str) -> str | None:
        page = course_page(course.root, kind, student, ps)
        if page is None:
            return None
        rel = Path(os.path.relpath(page.resolve(), dest.resolve().parent))
        return "/".join(".." if p == ".." else segment(p) for p in rel.parts)

    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(render(student, rows, when, link), encoding="utf-8")
    return dest
