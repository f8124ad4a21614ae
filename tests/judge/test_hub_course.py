"""Grading a hub course: numbers bound to the login, and instant checks that may cost points.

* ``c.WriteCases.numbers_from_login``: on the course's JupyterHub the numbers cell ignores a
  typed ``STUDENT_ID`` (with a warning), so a student who typed someone else's id worked on
  their own numbers all week. Grading must do the same, or their code-computed exact answers
  would be drawn for the typed id and lose every exact point. An id forced in by code
  (``os.environ``) still draws other numbers, and is caught as before.
* ``c.KpcaCheck.wrong_check_cost``: a right exact answer loses that share of its points per
  wrong check made before it was checked right and before hand-in, and its feedback line
  says so; by default (0) checks cost nothing. "Before hand-in" is before the course received
  the hand-in (:mod:`kit.intake.received`): a ``timestamp.txt`` the student wrote (2020, 2099,
  garbage, terminal escapes, megabytes) changes nothing.

One course is graded once for both (three hand-ins); the rules' parts are tested alone too.
"""

from __future__ import annotations

import datetime as dt

from kit.autograde import grade_class
from kit.checks.policy import Policy
from kit.checks.store import ATTEMPTS, Store, wrong_checks
from kit.course import copy_course
from kit.intake.received import record_received
from kit.judge.identity import Identity
from kit.judge.preprocessors import _check_costs
from kit.release import release
from tests.support.forged_times import FORGED
from tests.support.nbgrading import (
    auto_points,
    exact_points,
    judge_lines,
    lay_submission,
    pin_secret,
    read_source,
    type_student_id,
)

PS, ITEM, CELL = "ps1_circle_lift", "ps1_circle_u", "circle_u_test"
HANDED_IN = dt.datetime(2026, 12, 1, 12, 0)
FORCED = 'import os\nos.environ["KPCA_STUDENT_ID"] = "ada"\nSTUDENT_ID = ""'


def _check(store: Store, student: str, item: str, verdict: str, at: dt.datetime) -> None:
    row, _ = store.reserve(student, item, PS, 10)
    store.finish(row, verdict, "sign" if verdict == "mistake" else None)
    with store.engine.begin() as conn:
        conn.execute(ATTEMPTS.update().where(ATTEMPTS.c.id == row).values(at=at))


def _force_ada(nb) -> None:
    cell = next(c for c in nb.cells if c.cell_type == "code" and 'STUDENT_ID = ""' in c.source)
    cell.source = FORCED


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
    assert Identity("bob", set(), {ITEM: 2}, 0.25).check_penalty(ITEM, 2.0)[0] == 1.0
    assert Identity("bob", set(), {ITEM: 9}, 0.25).check_penalty(ITEM, 2.0)[0] == 2.0  # at most all
    assert Identity("bob", set(), {ITEM: 2}).check_penalty(ITEM, 2.0) == (0.0, "")


def test_by_default_checks_cost_nothing(tmp_path):
    from traitlets.config import Config

    course = copy_course(tmp_path / "course", [PS])
    store = Store(Policy(course.root).db_url)
    _check(store, "bob", ITEM, "wrong", HANDED_IN)
    folder = course.root / "autograded" / "bob" / PS
    folder.mkdir(parents=True)
    resources = {"metadata": {"path": str(folder)},
                 "nbgrader": {"student": "bob", "assignment": PS}}
    config = Config()
    assert _check_costs(config, resources, "bob") == ({}, 0.0)
    config.KpcaCheck.wrong_check_cost = 0.5
    assert _check_costs(config, resources, "bob") == ({ITEM: 1}, 0.5)


def test_only_checks_before_the_course_received_the_hand_in_count_whatever_it_says(tmp_path):
    """Measured: with a cost of 0.25, two wrong checks cost half an item, unless the hand-in's
    own timestamp.txt said 2020 (then nothing). The time is the course's record of the
    hand-in; the student's file, whatever it holds, changes nothing."""
    from traitlets.config import Config

    course = copy_course(tmp_path / "course", [PS])
    store = Store(Policy(course.root).db_url)
    config = Config()
    config.KpcaCheck.wrong_check_cost = 0.25
    for n, (name, text) in enumerate(sorted(FORGED.items())):
        student = f"s{n}_{name}"
        _check(store, student, ITEM, "wrong", HANDED_IN - dt.timedelta(hours=2))
        _check(store, student, ITEM, "mistake", HANDED_IN - dt.timedelta(minutes=1))
        _check(store, student, "ps1_lift_point", "wrong", HANDED_IN + dt.timedelta(minutes=1))
        for step in ("submitted", "autograded"):
            folder = course.root / step / student / PS
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{PS}.ipynb").write_text("{}")
            (folder / "timestamp.txt").write_text(text)
        record_received(course, student, PS, HANDED_IN, "exchange collect (test)")
        resources = {"metadata": {"path": str(course.root / "autograded" / student / PS)},
                     "nbgrader": {"student": student, "assignment": PS}}
        assert _check_costs(config, resources, student) == ({ITEM: 2}, 0.25), name


def test_a_hub_course_grades_on_the_login_and_charges_wrong_checks(tmp_path):
    course = copy_course(tmp_path / "course", [PS])
    with open(course.root / "nbgrader_config.py", "a") as config:
        config.write("\nc.WriteCases.numbers_from_login = True\n"
                     "c.KpcaCheck.wrong_check_cost = 0.25\n")
    pin_secret(course)
    assert not release(course, [PS])
    store = Store(Policy(course.root).db_url)
    for verdict in ("wrong", "mistake", "right"):
        _check(store, "dan", ITEM, verdict, HANDED_IN - dt.timedelta(hours=1))
    for student in ("eve", "fay"):  # the measured scenario: the same checks, no right one
        for verdict in ("wrong", "mistake"):
            _check(store, student, ITEM, verdict, HANDED_IN - dt.timedelta(hours=1))
    lay_submission(course, PS, "bob", {}, edit=lambda nb: type_student_id(nb, "ada"))
    lay_submission(course, PS, "cy", {}, edit=_force_ada)
    for student, stamp in (("dan", f"{HANDED_IN:%Y-%m-%d %H:%M:%S}.000000 UTC"),
                           ("eve", FORGED["past"]), ("fay", FORGED["escapes"])):
        lay_submission(course, PS, student, {})  # received now, after every check
        (course.root / "submitted" / student / PS / "timestamp.txt").write_text(stamp)
    scores = {o.student: o.scores for o in grade_class(course, [PS], progress=False)}
    points, exact = auto_points(read_source(PS)), exact_points(PS)

    # bob typed 'ada': ignored, as the hub ignored it while he worked
    assert {g: round(scores["bob"][g], 2) for g in points} == points
    assert not any("wrong_student_id" in line for line in judge_lines(course, PS, "bob").values())
    # cy forced 'ada' in by code: her exact items drew ada's numbers, and earn nothing
    assert exact and {g for g in points if round(scores["cy"][g], 2) < points[g]} == set(exact)
    lines = judge_lines(course, PS, "cy")
    assert any("[diagnosis: wrong_student_id]" in line and "'ada'" in line
               for line in lines.values()), lines
    # dan checked u twice wrong before right: half its points (0.25 each)
    lost = {g: points[g] - round(scores["dan"][g], 2) for g in points
            if scores["dan"][g] < points[g]}
    assert lost == {CELL: points[CELL] * 0.5}, lost
    line = judge_lines(course, PS, "dan")[CELL]
    assert "2 wrong checks before hand-in cost" in line and "0.25 of an item's points" in line
    # eve's hand-in says 2020, fay's is garbage and terminal escapes: neither changes the
    # cost (nbgrader's autograde used to stop on fay's), and the gradebook's hand-in time
    # is the course's, not theirs
    assert scores["eve"] == scores["fay"] == scores["dan"], (scores["eve"], scores["fay"])
    from nbgrader.api import Gradebook

    with Gradebook(course.db_url) as gb:
        stamps = {s: gb.find_submission(PS, s).timestamp for s in ("dan", "eve", "fay")}
    assert all(t > HANDED_IN for t in stamps.values()), stamps
    graded = (course.root / "autograded" / "fay" / PS / "timestamp.txt").read_text()
    assert graded == f"{stamps['fay']:%Y-%m-%d %H:%M:%S.%f} UTC"  # no escape reaches a log
