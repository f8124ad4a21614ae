"""What the class report says of the calendar: late hand-ins, extensions and exemptions.

:func:`late_section` is one ``<section>`` of ``reports/class_report.html``
(:mod:`kit.report.page`): every graded hand-in that came in after its student's own due
date, with the points lateness took (as the gradebook holds them) and why, then every
extension and exemption with its reason. Every field is escaped and made inert.
"""

from __future__ import annotations

import html

from kit.course import ASSIGNMENTS
from kit.inert import inert
from kit.term.calendar import load
from kit.term.late import _has_calendar, recorded_lateness
from kit.term.times import show_time

__all__ = ["late_section"]

GRADED = ("graded", "already graded")


def _e(text) -> str:
    return html.escape(inert(str(text)))


def late_section(course, outcomes) -> str:
    """The report's section on lateness (a short note when the course has no calendar)."""
    head = '<section id=late><h2>Late hand-ins and extensions</h2>'
    if not _has_calendar(course):
        return (f"{head}<p class=muted>no due dates: the course has no calendar "
                "(<code>python -m kit.term set</code>)</p></section>")
    cal = load(course)
    pairs = [(o.assignment, o.student) for o in outcomes if o.status in GRADED]
    found = recorded_lateness(course, pairs)
    late = [(ps, s, taken, why) for (ps, s), (taken, why, was_late) in sorted(
        found.items(), key=lambda kv: (ASSIGNMENTS.index(kv[0][0]), kv[0][1])) if was_late]
    rows = "".join(f"<li>{_e(s)} / {_e(ps)}: {taken:g} points taken: {_e(why)}</li>"
                   for ps, s, taken, why in late) or "<li>none</li>"
    granted = []
    for ps in ASSIGNMENTS:
        entry = cal.entry(ps)
        for s, ext in sorted(cal.extensions.get(ps, {}).items()):
            until = show_time(ext.due(entry.due), entry.zone) if entry and entry.due else "?"
            granted.append(f"<li>{_e(s)} / {_e(ps)}: extension to {_e(until)} ({_e(ext.reason)})</li>")
        for s, reason in sorted(cal.exemptions.get(ps, {}).items()):
            granted.append(f"<li>{_e(s)} / {_e(ps)}: exempt ({_e(reason)})</li>")
    return (f"{head}<h3>Late hand-ins</h3><ul class=late>{rows}</ul>"
            f"<h3>Extensions and exemptions</h3><ul class=extensions>{''.join(granted) or '<li>none</li>'}"
            "</ul></section>")
