"""The term's calendar (``python -m kit.term``): what it stores where, and what it refuses.

Due dates land in the gradebook as nbgrader keeps them (``Assignment.duedate``, naive UTC;
``SubmittedAssignment.extension``), the rest in ``term.json``; every refusal is exit status
2 with one line naming the problem, and leaves the calendar as it was.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil

import pytest
from nbgrader.api import Gradebook

from kit.course import Course
from kit.term import CalendarError, due_for, load
from kit.term.__main__ import main
from kit.term.times import parse_policy, parse_time

PS = "ps1_circle_lift"
UTC = dt.timezone.utc
DUE = "2026-12-10 17:00 Europe/Berlin"  # 16:00 UTC


@pytest.fixture(scope="module")
def empty_gradebook(tmp_path_factory):
    """A gradebook knowing one student, made once (making one costs seconds)."""
    path = tmp_path_factory.mktemp("gradebook") / "gradebook.db"
    with Gradebook(f"sqlite:///{path}") as gb:
        gb.add_student("cleo")
    return path


@pytest.fixture
def course(tmp_path, empty_gradebook):
    (tmp_path / "submitted" / "ada").mkdir(parents=True)  # a hand-in makes a known student
    shutil.copy(empty_gradebook, tmp_path / "gradebook.db")
    return Course(tmp_path)


def term(course, *args) -> int:
    return main(["--course", str(course.root), *args])


def duedate(course, ps=PS):
    with Gradebook(course.db_url) as gb:
        return gb.find_assignment(ps).duedate


def test_set_stores_due_in_gradebook_as_naive_utc_and_the_rest_in_term_json(course):
    assert term(course, "set", PS, "--opens", "2026-12-03 09:00 Europe/Berlin", "--due", DUE,
                "--late", "grace 15m; 10% per day; cap 50%") == 0
    assert duedate(course) == dt.datetime(2026, 12, 10, 16, 0)  # winter: UTC+1
    data = json.loads((course.root / "term.json").read_text())
    assert data["problem_sets"][PS]["zone"] == "Europe/Berlin"
    assert data["problem_sets"][PS]["opens"] == "2026-12-03T08:00:00+00:00"
    entry = load(course).entry(PS)
    assert (entry.late.grace, entry.late.rate, entry.late.cap) == (900, 0.1, 0.5)
    assert due_for(course, "ada", PS) == dt.datetime(2026, 12, 10, 16, tzinfo=UTC)
    # a summer date keeps its own offset (UTC+2)
    assert term(course, "set", "ps2_feature_maps", "--due", "2026-06-10 17:00 Europe/Berlin") == 0
    assert duedate(course, "ps2_feature_maps") == dt.datetime(2026, 6, 10, 15, 0)


def test_extensions_days_until_and_exemption_give_each_student_their_own_due(course):
    assert term(course, "set", PS, "--due", DUE) == 0
    assert term(course, "extend", "ada", PS, "--days", "3", "--reason", "ill") == 0
    assert due_for(course, "ada", PS) == dt.datetime(2026, 12, 13, 16, tzinfo=UTC)
    assert term(course, "extend", "cleo", PS, "--until", "2026-12-12 09:30 UTC",
                "--reason", "travel") == 0
    assert due_for(course, "cleo", PS) == dt.datetime(2026, 12, 12, 9, 30, tzinfo=UTC)
    assert due_for(course, "dora", PS) == dt.datetime(2026, 12, 10, 16, tzinfo=UTC)
    assert term(course, "exempt", "cleo", PS, "--reason", "joined late") == 0
    assert due_for(course, "cleo", PS) is None
    # a later due date moves a --days extension with it, never a --until one
    assert term(course, "set", PS, "--due", "2026-12-11 17:00 Europe/Berlin") == 0
    assert due_for(course, "ada", PS) == dt.datetime(2026, 12, 14, 16, tzinfo=UTC)


def test_show_prints_a_known_student_s_own_due_date(course, capsys):
    assert term(course, "set", PS, "--due", DUE) == 0
    assert term(course, "extend", "ada", PS, "--days", "3", "--reason", "ill") == 0
    capsys.readouterr()
    assert term(course, "show", "--student", "ada") == 0  # known by a hand-in
    assert "due 2026-12-13 17:00 Europe/Berlin (extension: ill)" in capsys.readouterr().out
    assert term(course, "show", "--student", "cleo") == 0  # known by the gradebook
    assert "due 2026-12-10 17:00 Europe/Berlin" in capsys.readouterr().out


def test_the_course_may_be_named_before_or_after_the_command(course, capsys):
    assert main(["set", PS, "--due", DUE, "--course", str(course.root)]) == 0
    assert main(["--course", str(course.root), "show"]) == 0
    assert "due 2026-12-10 17:00 Europe/Berlin" in capsys.readouterr().out


def test_no_calendar_means_no_due_date(course):
    assert due_for(course, "ada", PS) is None
    assert not (course.root / "term.json").exists()


@pytest.mark.parametrize("args, words", [
    (["set", PS, "--opens", "2026-12-11 09:00 UTC", "--due", "2026-12-10 17:00 UTC"], "not after its opening"),
    (["set", PS, "--due", "2026-12-10 17:00"], "no time zone"),
    (["set", PS, "--due", "2026-12-10T17:00"], "no time zone"),
    (["set", PS, "--due", "2026-12-10 17:00 Europe/Atlantis"], "unknown time zone"),
    (["set", PS, "--due", "2026-12-10 17:00 ../../etc/passwd"], "unknown time zone"),
    (["set", PS, "--due", "2026-03-29 02:30 Europe/Berlin"], "does not exist"),
    (["set", PS, "--due", "2026-10-25 02:30 Europe/Berlin"], "happens twice"),
    (["set", PS, "--due", "2026-02-30 17:00 UTC"], "not a date"),
    (["set", "ps9_nothing", "--due", "2026-12-10 17:00 UTC"], "unknown problem set"),
    (["set", PS, "--due", DUE, "--late", "10% a day"], "cannot read"),
    (["set", PS, "--due", DUE, "--late", "150% per day"], "more than 100%"),
    (["extend", "mallory", PS, "--days", "2", "--reason", "x"], "unknown student"),
    (["show", "--student", "mallory"], "unknown student"),
    (["extend", "ada", "ps9_nothing", "--days", "2", "--reason", "x"], "unknown problem set"),
    (["extend", "ada", PS, "--days", "-2", "--reason", "x"], "positive number of days"),
    (["extend", "ada", PS, "--days", "0", "--reason", "x"], "positive number of days"),
    (["extend", "ada", PS, "--days", "inf", "--reason", "x"], "positive number of days"),
    (["extend", "ada", PS, "--days", "nan", "--reason", "x"], "positive number of days"),
    (["set", PS, "--due", "9999-12-31 23:59 UTC"], "not a date of a term"),
    (["extend", "ada", PS, "--until", "2026-12-09 17:00 UTC", "--reason", "x"], "cannot shorten"),
    (["extend", "ada", PS, "--until", "2026-12-19 17:00", "--reason", "x"], "no time zone"),
    (["extend", "ada", PS, "--days", "2", "--reason", "  "], "reason is empty"),
])
def test_refusals_name_the_problem_and_change_nothing(course, capsys, args, words):
    assert term(course, "set", PS, "--due", DUE) == 0
    before = (course.root / "term.json").read_text()
    capsys.readouterr()
    assert term(course, *args) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and len(err.splitlines()) == 1, err
    assert (course.root / "term.json").read_text() == before
    assert duedate(course) == dt.datetime(2026, 12, 10, 16, 0)


def test_extension_of_a_graded_hand_in_needs_regrade(course, capsys):
    assert term(course, "set", PS, "--due", DUE) == 0
    with Gradebook(course.db_url) as gb:
        gb.add_submission(PS, "cleo", timestamp=dt.datetime(2026, 12, 11, 16, 0))
    assert term(course, "extend", "cleo", PS, "--days", "2", "--reason", "x") == 2
    assert "already graded" in capsys.readouterr().err
    assert term(course, "exempt", "cleo", PS, "--reason", "x") == 2
    assert term(course, "set", PS, "--due", "2026-12-12 17:00 UTC") == 2
    assert due_for(course, "cleo", PS) == dt.datetime(2026, 12, 10, 16, tzinfo=UTC)
    assert term(course, "extend", "cleo", PS, "--days", "2", "--reason", "x", "--regrade") == 0
    with Gradebook(course.db_url) as gb:  # the submission carries it, as nbgrader keeps it
        sub = gb.find_submission(PS, "cleo")
        assert sub.extension == dt.timedelta(days=2)
        assert sub.duedate == dt.datetime(2026, 12, 12, 16, 0) and sub.total_seconds_late == 0


def test_an_extension_granted_before_the_hand_in_reaches_its_submission_at_grading(course):
    from kit.term.gradebook import sync

    assert term(course, "set", PS, "--due", DUE) == 0
    assert term(course, "extend", "cleo", PS, "--days", "1.5", "--reason", "x") == 0
    with Gradebook(course.db_url) as gb:
        gb.add_submission(PS, "cleo", timestamp=dt.datetime(2026, 12, 11, 16, 0))
        sync(gb, load(course), PS)
        assert gb.find_submission(PS, "cleo").extension == dt.timedelta(days=1.5)


@pytest.mark.parametrize("text", [
    "not json", json.dumps({"version": 2}),
    json.dumps({"version": 1, "problem_sets": {"ps9": {"due": "2026-12-10T16:00:00+00:00"}}}),
    json.dumps({"version": 1, "problem_sets": {PS: {"due": "2026-12-10T16:00:00"}}}),
    json.dumps({"version": 1, "problem_sets": {PS: {"opens": "2026-12-11T16:00:00+00:00",
                                                     "due": "2026-12-10T16:00:00+00:00"}}}),
    json.dumps({"version": 1, "problem_sets": {PS: {"zone": "Nowhere/Land"}}}),
    json.dumps({"version": 1, "extensions": {PS: {"ada": {"days": -3, "reason": "x"}}}}),
    json.dumps({"version": 1, "extensions": {PS: {"ada": {"days": 3}}}}),
    json.dumps({"version": 1, "extensions": {PS: {"ada": {"days": float("inf"), "reason": "x"}}}}),
    json.dumps({"version": 1, "extensions": {PS: {"ada": {"days": True, "reason": "x"}}}}),
])
def test_a_damaged_calendar_file_is_refused_on_read(course, text):
    (course.root / "term.json").write_text(text)
    with pytest.raises(CalendarError, match="term.json"):
        load(course)
    assert term(course, "show") == 2


def test_times_and_policies_read_strictly():
    assert parse_time("2026-12-10 17:00 +05:30")[0] == dt.datetime(2026, 12, 10, 11, 30, tzinfo=UTC)
    assert parse_time("2026-12-10 17:00 UTC")[0] == dt.datetime(2026, 12, 10, 17, tzinfo=UTC)
    zero = parse_policy("none")
    assert zero.zero and zero.penalty(3600, 8.0)[0] == 8.0
    step = parse_policy("grace 10 min; 5% per 6h")
    assert step.penalty(600, 8.0)[0] == 0.0  # inside the grace
    assert step.penalty(601, 8.0)[0] == pytest.approx(0.4)  # one step begun, from the due date
    assert step.penalty(6 * 3600 + 1, 8.0)[0] == pytest.approx(0.8)
    assert parse_policy("10% per day; cap 30%").penalty(9 * 86400, 10.0)[0] == pytest.approx(3.0)
    assert parse_policy("off").penalty(9 * 86400, 10.0)[0] == 0.0
    with pytest.raises(ValueError, match="contradict"):
        parse_policy("none; 10% per day")


def test_checks_close_at_each_students_own_due_date(course, monkeypatch):
    from kit.term import NOW_VAR, checks_closed, now

    assert checks_closed(course, "ada", PS) == ""  # no calendar: never closed by it
    assert term(course, "set", PS, "--due", DUE) == 0
    assert term(course, "extend", "ada", PS, "--days", "2", "--reason", "ill") == 0
    assert term(course, "exempt", "cleo", PS, "--reason", "x") == 0
    monkeypatch.setenv(NOW_VAR, "2026-12-10 16:59 UTC")  # 59 min after the due date (16:00 UTC)
    assert now() == dt.datetime(2026, 12, 10, 16, 59, tzinfo=UTC)
    assert checks_closed(course, "dora", PS) == (
        "checks of ps1_circle_lift closed at your due date, 2026-12-10 17:00 Europe/Berlin")
    assert checks_closed(course, "ada", PS) == ""  # her extension keeps them open
    assert checks_closed(course, "cleo", PS) == ""
    assert checks_closed(course, "dora", PS, dt.datetime(2026, 12, 10, 15, 59, tzinfo=UTC)) == ""
    assert checks_closed(course, "ada", PS, dt.datetime(2026, 12, 12, 16, 1, tzinfo=UTC))
    monkeypatch.setenv(NOW_VAR, "2026-12-10 16:59")
    with pytest.raises(ValueError, match="no time zone"):
        now()
    (course.root / "term.json").write_text("{")  # damaged: closed, and it says why
    assert "cannot be read" in checks_closed(course, "ada", PS, dt.datetime(2026, 1, 1, tzinfo=UTC))


def test_an_extension_after_the_whole_solution_went_out_is_flagged(course, capsys):
    """The code solution is the same for everyone and cannot be called back: a TA who
    extends or exempts a student after some classmate was handed the whole solution is told
    (the extension still stands: an illness is an illness)."""
    assert term(course, "set", PS, "--due", DUE) == 0
    assert term(course, "extend", "ada", PS, "--days", "1", "--reason", "ill") == 0
    assert "worked solution" not in capsys.readouterr().err
    for student, form in (("cleo", "answers"), ("dora", "full"), ("eve", "full")):
        folder = course.root / "solutions" / student / PS
        folder.mkdir(parents=True)
        (folder / "released.json").write_text(json.dumps({"form": form}))
    assert term(course, "extend", "ada", PS, "--days", "3", "--reason", "still ill") == 0
    err = capsys.readouterr().err
    assert f"the whole worked solution of {PS} already went out to 2 students: ada can" in err
    assert due_for(course, "ada", PS) == dt.datetime(2026, 12, 13, 16, tzinfo=UTC)
    assert term(course, "exempt", "cleo", PS, "--reason", "joined late") == 0
    assert "already went out to 2 students: cleo" in capsys.readouterr().err
