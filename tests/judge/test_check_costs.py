"""When the instructor makes instant checks cost points (``c.KpcaCheck.wrong_check_cost``),
grading takes that share of a right exact answer's points per wrong check made before it
was checked right and before hand-in, and says so in the feedback line; by default checks
cost nothing."""

from __future__ import annotations

import datetime as dt

from kit.autograde import grade_class
from kit.checks.policy import Policy
from kit.checks.store import Store, wrong_checks
from kit.course import copy_course
from kit.judge.identity import Identity
from kit.release import release
from tests.support.nbgrading import (
    auto_points,
    judge_lines,
    lay_submission,
    pin_secret,
    read_source,
)

PS, ITEM, CELL = "ps1_circle_lift", "ps1_circle_u", "circle_u_test"
HANDED_IN = dt.datetime(2026, 12, 1, 12, 0)


def _check(store: Store, student: str, item: str, verdict: str, at: dt.datetime) -> None:
    row, _ = store.reserve(student, item, PS, 10)
    store.finish(row, verdict, "sign" if verdict == "mistake" else None)
    with store.engine.begin() as conn:
        from kit.checks.store import ATTEMPTS

        conn.execute(ATTEMPTS.update().where(ATTEMPTS.c.id == row).values(at=at))


def test_only_wrong_checks_before_the_first_right_one_and_the_hand_in_count(tmp_path):
    url = f"sqlite:///{tmp_path / 'g.db'}"
    store, early = Store(url), HANDED_IN - dt.timedelta(hours=2)
    for verdict in ("wrong", "mistake", "right", "wrong"):  # the last after a right: free
        _check(store, "bob", ITEM, verdict, early)
    _check(store, "bob", "ps1_lift_point", "wrong", HANDED_IN + dt.timedelta(minutes=1))
    _check(store, "ada", ITEM, "wrong", early)
    assert wrong_checks(url, "bob", PS, HANDED_IN) == {ITEM: 2}
    assert wrong_checks(url, "bob", PS) == {ITEM: 2, "ps1_lift_point": 1}
    assert wrong_checks(f"sqlite:///{tmp_path / 'none.db'}", "bob", PS) == {}
    who = Identity("bob", set(), {ITEM: 2}, 0.25)
    assert who.check_penalty(ITEM, 2.0)[0] == 1.0
    assert Identity("bob", set(), {ITEM: 9}, 0.25).check_penalty(ITEM, 2.0)[0] == 2.0  # at most all
    assert Identity("bob", set(), {ITEM: 2}).check_penalty(ITEM, 2.0) == (0.0, "")


def test_grading_charges_wrong_checks_only_where_the_course_says_so(tmp_path):
    course = copy_course(tmp_path / "course", [PS])
    pin_secret(course)
    assert not release(course, [PS])
    store = Store(Policy(course.root).db_url)
    for verdict in ("wrong", "mistake", "right"):
        _check(store, "bob", ITEM, verdict, HANDED_IN - dt.timedelta(hours=1))
    for student in ("bob", "cy"):
        lay_submission(course, PS, student, {})
        (course.root / "submitted" / student / PS / "timestamp.txt").write_text(
            f"{HANDED_IN:%Y-%m-%d %H:%M:%S}.000000 UTC")
    points = auto_points(read_source(PS))

    scores = {o.student: o.scores for o in grade_class(course, [PS], progress=False)}
    assert {g: round(scores["bob"][g], 2) for g in points} == points  # free by default

    with open(course.root / "nbgrader_config.py", "a") as config:
        config.write("\nc.KpcaCheck.wrong_check_cost = 0.25\n")
    scores = {o.student: o.scores for o in grade_class(course, [PS], progress=False)}
    assert {g: round(scores["cy"][g], 2) for g in points} == points  # cy never checked
    lost = {g: points[g] - round(scores["bob"][g], 2) for g in points if scores["bob"][g] < points[g]}
    assert lost == {CELL: points[CELL] * 0.5}, lost
    line = judge_lines(course, PS, "bob")[CELL]
    assert "2 wrong checks before hand-in cost" in line and "0.25 of an item's points" in line
