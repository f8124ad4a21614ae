"""The demo class's term (``make demo``): three weeks on a simulated clock.

The demo grades every problem set the class hands in; this module gives the first three a
calendar, as an instructor would with ``python -m kit.term``:

- ps0, ps1 and ps2 open on Mondays three weeks running and are due the next Monday at 17:00
  (Berlin time), with :data:`LATE` as their late policy;
- ``kim_rewrites`` has an extension of ps2 (:data:`EXTENSION`) and hands it in after the
  class's due date but inside her own;
- ``jun_loops`` hands ps1 in a day and a few hours late (:data:`LATE_HAND_IN`) and loses what
  the policy takes;
- everyone else hands in the day before the due date.

After grading, at :data:`NOW` (the simulated clock), ps2's worked solutions go to
``ada_reference``, whose due date has passed, and are refused to ``kim_rewrites``, whose
extension has not; ``jun_loops``'s overview page is written for him. The hand-ins' times are
recorded as the intake records them (``received/``), so grading applies the policy exactly as
it would to a real class; nothing here is read from a hand-in.
"""

from __future__ import annotations

import datetime as dt

from kit.course import Course
from kit.intake.received import record_received
from kit.term import __main__ as term_command
from kit.term.times import parse_time

ZONE = "Europe/Berlin"
#: problem set -> (opens, due), local time in :data:`ZONE`
WEEKS = {
    "ps0_high_dimensions": ("2026-11-02 09:00", "2026-11-09 17:00"),
    "ps1_circle_lift": ("2026-11-09 09:00", "2026-11-16 17:00"),
    "ps2_feature_maps": ("2026-11-16 09:00", "2026-11-23 17:00"),
}
#: 20 % of the score a day after 15 minutes' grace: nothing counts five days after the due
#: date, so the worked solutions may follow then
LATE = "grace 15m; 20% per day"
#: (student, problem set, days, reason)
EXTENSION = ("kim_rewrites", "ps2_feature_maps", 3, "a conference talk, agreed before the term")
#: (student, problem set, how long after the due date the hand-in arrives)
LATE_HAND_IN = ("jun_loops", "ps1_circle_lift", dt.timedelta(days=1, hours=4))
#: the simulated clock when the demo hands out solutions and writes the overview: the Monday
#: after ps2's late hand-ins stopped counting, before kim's did
NOW = "2026-11-30 09:00 " + ZONE
SOLUTIONS = ("ps2_feature_maps", ["ada_reference", "kim_rewrites"])
OVERVIEW_FOR = "jun_loops"


def _when(text: str) -> dt.datetime:
    return parse_time(f"{text} {ZONE}")[0]


def set_calendar(course: Course) -> list[str]:
    """Write the demo's calendar (``term.json`` and the gradebook's due dates) through the
    instructor's own command, skipping what a previous run already set (its hand-ins are
    graded: changing their calendar would need ``--regrade``); returns the calendar's lines."""
    import contextlib
    import io

    from kit.term import load

    def term(*argv: str) -> None:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            code = term_command.main(["--course", str(course.root), *argv])
        if code != 0:
            raise SystemExit(f"the demo's calendar was refused: kit.term {' '.join(argv)}: "
                             f"{out.getvalue().strip()}")

    for ps, (opens, due) in WEEKS.items():
        entry = load(course).entry(ps)
        if entry is None or (entry.opens, entry.due, entry.late.text) != (
                _when(opens), _when(due), LATE):
            term("set", ps, "--opens", f"{opens} {ZONE}", "--due", f"{due} {ZONE}", "--late", LATE)
    student, ps, days, reason = EXTENSION
    ext = load(course).extension(student, ps)
    if ext is None or (ext.days, ext.reason) != (days, reason):
        term("extend", student, ps, "--days", str(days), "--reason", reason)
    return term_command.show(load(course))


def hand_in_times(course: Course) -> dict[tuple[str, str], dt.datetime]:
    """Record when each hand-in of a calendar's problem set arrived (as collect would):
    the day before the due date, but for the late one and the extended one; returns them."""
    times = {}
    late_student, late_ps, late_by = LATE_HAND_IN
    ext_student, ext_ps, ext_days, _ = EXTENSION
    for ps, (_, due) in WEEKS.items():
        due = _when(due)
        for folder in sorted((course.root / "submitted").glob(f"*/{ps}")):
            student = folder.parent.name
            when = due - dt.timedelta(days=1)
            if (student, ps) == (late_student, late_ps):
                when = due + late_by
            elif (student, ps) == (ext_student, ext_ps):
                when = due + dt.timedelta(days=ext_days - 1)  # late for the class, on time for her
            record_received(course, student, ps, when,
                            "laid in submitted/ by the demo at its term's simulated time")
            times[student, ps] = when
    return times


def after_grading(course: Course, workers=None) -> list[str]:
    """Hand out the solutions and write the overview at :data:`NOW`; the lines to print."""
    from kit.checks.overview_page import write_overview
    from kit.solutions.build import release_solutions

    now = parse_time(NOW)[0]
    ps, students = SOLUTIONS
    lines = [f"the term, as of {NOW} (the demo's simulated clock):"]
    for outcome in release_solutions(course, ps, students, now=now, workers=min(2, workers or 2)):
        lines.append(f"  solutions of {ps} for {outcome.student}: {outcome.form}"
                     + (f" ({outcome.message})" if outcome.message else ""))
    page = write_overview(course, OVERVIEW_FOR, course.root / "reports" / "overview"
                          / f"{OVERVIEW_FOR}.html", when=now)
    lines.append(f"  {OVERVIEW_FOR}'s overview: {page.relative_to(course.root)}")
    return lines
