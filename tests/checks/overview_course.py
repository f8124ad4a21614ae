"""A small term for the overview's tests: the released ps1 course, five students, a calendar.

:func:`make_term` copies ``released_ps1`` (tests/conftest.py) and gives it, at :data:`NOW`
(2026-12-14 12:00 Berlin; ps1 due 2026-12-10 17:00 Berlin, 10% per day; ps2 opens
2026-12-17), through the kit's own writers (the calendar's, the intake's received records,
nbgrader's gradebook, :func:`kit.term.late.apply` for the penalty):

* ``ada``: extended three days (a reason full of markup and a terminal escape), handed in
  on 12-12, graded 6 of 12 on time, her feedback page and her solutions written;
* ``bob``: handed in 17 h late, graded with the calendar's 10%, solutions written;
* ``cy``: handed in 1 day 2 h late, not graded yet;
* ``dee``: two checks of ps1 used, extended until 12-20, solutions written (not yet his);
* ``eve``: nothing.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from kit.term.times import parse_time

PS = "ps1_circle_lift"
NOW = parse_time("2026-12-14 12:00 Europe/Berlin")[0]
REASON = 'ill <b onmouseover="alert(1)">note</b> seen\x1b]0;owned\x07 & "quoted"'
STUDENTS = ("ada", "bob", "cy", "dee", "eve")


def _at(text: str) -> dt.datetime:
    return parse_time(text)[0]


def make_term(released_ps1, dest: Path):
    """The course of the module docstring; returns it (a :class:`kit.course.Course`)."""
    from nbgrader.api import Gradebook
    from sqlalchemy import create_engine

    from kit.checks.store import ATTEMPTS, Store
    from kit.intake.received import record_received
    from kit.term.calendar import Calendar, Entry, Extension, save
    from kit.term.late import apply
    from kit.term.times import parse_policy

    course = released_ps1(dest)
    root = course.root
    (root / "nbgrader_config.py").open("a").write(
        "\nc.CourseDirectory.course_id = 'kernel_pca'\n"
        f"c.KpcaCheck.db_url = 'sqlite:///{root / 'checks.db'}'\n")
    cal = Calendar.empty()
    cal.entries[PS] = Entry(_at("2026-12-03 09:00 Europe/Berlin"),
                            _at("2026-12-10 17:00 Europe/Berlin"), "Europe/Berlin",
                            parse_policy("10% per day"))
    cal.entries["ps2_feature_maps"] = Entry(_at("2026-12-17 09:00 Europe/Berlin"),
                                            _at("2026-12-24 17:00 Europe/Berlin"),
                                            "Europe/Berlin", parse_policy("off"))
    cal.extensions[PS] = {"ada": Extension(REASON, days=3),
                          "dee": Extension("travel", until=_at("2026-12-20 12:00 UTC"))}
    save(course, cal)
    hand_ins = {"ada": "2026-12-12 10:00 Europe/Berlin", "bob": "2026-12-11 10:00 Europe/Berlin",
                "cy": "2026-12-11 19:00 Europe/Berlin"}
    for student, when in hand_ins.items():
        record_received(course, student, PS, _at(when), "test: the exchange's time")
    with Gradebook(course.db_url) as gb:
        for student in STUDENTS:
            gb.update_or_create_student(student)
        for student in ("ada", "bob"):
            sub = gb.add_submission(PS, student, timestamp=_at(hand_ins[student]).replace(tzinfo=None))
            for nb in sub.notebooks:
                for grade in nb.grades:
                    grade.auto_score = grade.max_score / 2
            gb.db.commit()
        apply(gb, course, [(PS, "ada"), (PS, "bob")])
    Store(f"sqlite:///{root / 'checks.db'}")  # the attempts table
    engine = create_engine(f"sqlite:///{root / 'checks.db'}")
    with engine.begin() as conn:
        for slot in (1, 2):
            conn.execute(ATTEMPTS.insert().values(student="dee", item="ps1_lift_point",
                                                  problem_set=PS, slot=slot,
                                                  at=dt.datetime(2026, 12, 5), verdict="wrong"))
    engine.dispose()
    for kind, student in (("feedback", "ada"), ("solutions", "ada"), ("solutions", "bob"),
                          ("solutions", "dee")):
        page = root / kind / student / PS / (f"{PS}.html" if kind == "feedback" else f"{PS}_solution.html")
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(f"<!DOCTYPE html><html lang=en><head><title>{kind} of {student}</title>"
                        f"</head><body><main><h1>{kind} {student} {PS}</h1></main></body></html>")
    return course


def record_json(course, student: str) -> dict:
    return json.loads((course.root / "received" / student / f"{PS}.json").read_text())
