"""Practice on fresh numbers: drawn by the service alone, never a key anyone works on, never graded.

The check service (against the fake hub of ``tests/checks/conftest.py``) in a course whose
calendar makes ps1 due at 2026-12-10 16:00 UTC with 2 practice checks per item and draw and
3 draws, bob having two more days (a classmate still working after ada's due date), and
ps2 open to practice early. The clock is the simulated term's (``KPCA_NOW``).
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3

import pytest

from kit.checks.practice import PREFIX, _classes_of, draw_numbers, numbers_id
from kit.checks.practice_keys import classes, compute
from kit.checks.store import wrong_checks
from kit.term import NOW_VAR, save
from kit.term.calendar import Calendar, Entry, Extension
from kit.term.practice import Practice, parse_practice
from kit.term.times import Policy
from kpca_probe.wire import encode
from kpca_ref import variants
from kpca_ref.grading.answers import mistaken_values
from tests.checks.conftest import start_service

PS, ITEM = "ps1_circle_lift", "ps1_circle_u"
DUE = dt.datetime(2026, 12, 10, 16, 0, tzinfo=dt.timezone.utc)
AFTER, BEFORE = "2026-12-11 09:00 UTC", "2026-12-10 15:00 UTC"  # bob: due 2026-12-12 16:00
SECRET = b"a-test-secret-of-the-course-0123456789"


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    course = tmp_path_factory.mktemp("course")
    cal = Calendar.empty()
    cal.entries[PS] = Entry(None, DUE, "Europe/Berlin", Policy(), Practice("after", 2, 3))
    cal.entries["ps2_feature_maps"] = Entry(None, DUE, "UTC", Policy(), parse_practice("early"))
    cal.extensions[PS] = {"bob": Extension("ill", days=2)}
    save(course, cal)
    (course / ".grading_secret").write_text(SECRET.decode() + "\n")
    service, stop = start_service(course, {"per_minute": 60, "judge_seconds": 30.0})
    yield service
    stop()


def table(service, name: str, student: str) -> list[tuple]:
    with sqlite3.connect(service.db) as db:
        if not db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", [name]).fetchall():
            return []
        return db.execute(f"SELECT * FROM {name} WHERE student = ? ORDER BY id",
                          [student]).fetchall()


def practise(service, body, token: str | None, raw: bytes | None = None) -> tuple[int, dict]:
    """``(status, reply)`` of one request to ``<prefix>practice``."""
    status, reply = service.exchange(raw if raw is not None else json.dumps(body).encode(),
                                     token, path="practice")
    return status, json.loads(reply)


def drawn(service, token: str | None, draw=1, ps=PS) -> tuple[int, dict]:
    return practise(service, {"problem_set": ps, "draw": draw}, token)


class _Policy:  # what draw_numbers reads of the service's policy: the course and its database
    def __init__(self, root):
        self.root, self.db_url = root, f"sqlite:///{root / 'checks.db'}"


def checkable(ps: str) -> list[str]:
    from kit.checks.guessing import yes_no

    return [i for i in variants.module(ps).ITEMS if not yes_no(i)]


def test_practice_numbers_never_hold_a_graded_key_over_many_ids(tmp_path):
    """120 students x 10 draws of every problem set: never their own key class, so never
    their own numbers; a sample judged exactly: never their own key."""
    cal = Calendar.empty()
    when = dt.datetime(2027, 1, 1, tzinfo=dt.timezone.utc)
    for ps in variants.PROBLEM_SETS:
        items = checkable(ps)
        for s in range(120):
            student = f"student{s}"
            own = _classes_of(ps, student, items)
            for k in range(1, 11):
                sid, shared = draw_numbers(_Policy(tmp_path), cal, SECRET, ps, student, k, items, when)
                assert sid.startswith(PREFIX) and shared == []
                mine = _classes_of(ps, sid, items)
                assert all(mine[i] != own[i] for i in items), (ps, student, k)
    for student in ("ada", "bob", "cy"):  # the classes are what the answers say
        for k in (1,):
            sid, _ = draw_numbers(_Policy(tmp_path), cal, SECRET, PS, student, k, checkable(PS), when)
            assert vars(variants.numbers(PS, sid)) != vars(variants.numbers(PS, student))
            for item in checkable(PS):
                assert variants.answer(item, sid)[0] != variants.answer(item, student)[0]


def test_the_draw_is_the_services_secret_not_the_students_id():
    ids = {numbers_id(SECRET, PS, "ada", k, 0) for k in range(1, 50)}
    assert len(ids) == 49 and numbers_id(SECRET, PS, "ada", 1, 0) == numbers_id(SECRET, PS, "ada", 1, 0)
    assert numbers_id(b"another-secret-" * 3, PS, "ada", 1, 0) != numbers_id(SECRET, PS, "ada", 1, 0)


def test_the_stored_key_classes_are_current_and_what_answering_gives():
    from kit.checks.guessing import fingerprint
    from kit.checks.practice_keys import _stored

    for ps in variants.PROBLEM_SETS:
        assert _stored()[ps]["fingerprint"] == fingerprint(ps), f"run python -m kit.checks.practice_keys --write {ps}"
    assert classes("ps0_high_dimensions") == compute("ps0_high_dimensions")
    lift = classes(PS)["ps1_lift_point"]  # circles that share their point Q share the key
    assert len(set(lift)) < len(lift)


def test_a_draw_keeps_clear_of_classmates_still_working(tmp_path):
    cal = Calendar.empty()
    cal.entries[PS] = Entry(None, DUE, "UTC", Policy())
    working = [f"late{i}" for i in range(40)]
    cal.extensions[PS] = {name: Extension("ill", days=3) for name in working}
    items, when = checkable(PS), DUE + dt.timedelta(days=1)
    for k in range(1, 30):
        sid, shared = draw_numbers(_Policy(tmp_path), cal, SECRET, PS, "ada", k, items, when)
        mine = _classes_of(PS, sid, items)
        taken = {i: {_classes_of(PS, w, [i])[i] for w in working} for i in items}
        assert shared == [i for i in items if mine[i] in taken[i]]
        assert len(shared) <= 1, shared  # 40 of 77 or more classes each: one item at most


def test_a_classmate_who_can_still_hand_in_late_for_points_is_still_working(tmp_path, monkeypatch):
    """Past their due date, classmates without a hand-in taken in time can still hand in
    late for points (10% a day here: for nine days); a practice draw holding one of their
    keys would let anyone practising check it for them. Such an item is not checkable on
    it; once the intake took their hand-in received in time, or the late policy gives
    nothing more, it is."""
    import json as _json

    from kit.checks import practice
    from kit.checks.practice import screened
    from kit.term.times import parse_policy

    monkeypatch.setattr(practice, "CLASSMATES_SECONDS", 0.0)
    ps = "ps0_high_dimensions"  # 20 to 35 key classes an item: classmates share them
    late = [f"late{i}" for i in range(30)]
    for name in late:
        (tmp_path / "submitted" / name).mkdir(parents=True)  # the course knows them
    cal = Calendar.empty()
    cal.entries[ps] = Entry(None, DUE, "UTC", parse_policy("10% per day"))
    items, when = checkable(ps), DUE + dt.timedelta(days=1)
    own = _classes_of(ps, "ada", items)
    theirs = {i: {_classes_of(ps, n, [i])[i] for n in late} for i in items}

    def expected(sid, working):
        mine = _classes_of(ps, sid, items)
        return [i for i in items if mine[i] == own[i] or (working and mine[i] in theirs[i])]

    sids = [numbers_id(SECRET, ps, "ada", k, 0) for k in range(1, 6)]
    policy = _Policy(tmp_path)
    got = [screened(policy, cal, ps, "ada", sid, items, when) for sid in sids]
    assert got == [expected(sid, True) for sid in sids]
    assert got != [expected(sid, False) for sid in sids]  # their keys are held back
    # ten days on, a late hand-in earns nothing: their keys are free
    later = DUE + dt.timedelta(days=10)
    assert [screened(policy, cal, ps, "ada", sid, items, later) for sid in sids] == [
        expected(sid, False) for sid in sids]
    # the intake took a hand-in of each received in time: a later one never displaces it
    for name in late:
        (tmp_path / "received" / name).mkdir(parents=True)
        (tmp_path / "received" / name / f"{ps}.json").write_text(_json.dumps(
            {"time": (DUE - dt.timedelta(hours=1)).isoformat()}))
    assert [screened(policy, cal, ps, "ada", sid, items, when) for sid in sids] == [
        expected(sid, False) for sid in sids]


def test_early_practice_keeps_clear_of_classmates_who_never_checked(tmp_path, monkeypatch):
    """Early practice opens with the problem set, when most of the class has not checked or
    handed in anything: the course's records name none of them, the hub's students' group
    names them all. A draw's items holding one of their keys are not checkable on it."""
    from kit.checks import practice
    from kit.checks.policy import Policy as CheckPolicy
    from kit.checks.practice import screened
    from tests.checks.conftest import GROUPS, SERVICE_TOKEN, fake_hub

    monkeypatch.setattr(practice, "CLASSMATES_SECONDS", 0.0)
    (tmp_path / "nbgrader_config.py").write_text(
        "c = get_config()\nc.CourseDirectory.course_id = 'kernel_pca'\n")
    ps = "ps0_high_dimensions"
    quiet = [f"quiet{i}" for i in range(30)]
    monkeypatch.setitem(GROUPS, "nbgrader-kernel_pca", ["ada", *quiet])
    cal = Calendar.empty()
    cal.entries[ps] = Entry(DUE - dt.timedelta(days=7), DUE, "UTC", Policy(), parse_practice("early"))
    items, when = checkable(ps), DUE - dt.timedelta(days=3)
    own = _classes_of(ps, "ada", items)
    theirs = {i: {_classes_of(ps, n, [i])[i] for n in quiet} for i in items}
    sids = [numbers_id(SECRET, ps, "ada", k, 0) for k in range(1, 6)]

    def expected(sid, known):
        mine = _classes_of(ps, sid, items)
        return [i for i in items if mine[i] == own[i] or (known and mine[i] in theirs[i])]

    policy = CheckPolicy(tmp_path)
    with fake_hub() as api_url:
        monkeypatch.setenv("JUPYTERHUB_API_URL", api_url)
        monkeypatch.setenv("JUPYTERHUB_API_TOKEN", SERVICE_TOKEN)
        got = [screened(policy, cal, ps, "ada", sid, items, when) for sid in sids]
        assert got == [expected(sid, True) for sid in sids]
        assert got != [expected(sid, False) for sid in sids]
        monkeypatch.setenv("JUPYTERHUB_API_TOKEN", "tok-ada")  # a token the hub refuses
        assert [screened(policy, cal, ps, "ada", sid, items, when) for sid in sids] == [
            expected(sid, False) for sid in sids]  # the course's own records, as before


def test_practice_after_the_due_date_stays_closed_to_an_exempt_student():
    """An exempt student's hand-in counts, without a penalty, whenever it comes: practice
    'after' her due date, which never comes, is never open (it opened at once: practice
    draws, checks and hints before she handed in). 'early' is the instructor's to give."""
    from kit.term.practice import practice_closed

    cal = Calendar.empty()
    cal.entries[PS] = Entry(None, DUE, "UTC", Policy(), Practice("after", 2, 3))
    cal.exemptions[PS] = {"cy": "joined late"}
    for when in (DUE - dt.timedelta(days=3), DUE + dt.timedelta(days=300)):
        assert "you are exempt from it" in practice_closed(cal, "cy", PS, when)
    assert practice_closed(cal, "ada", PS, DUE + dt.timedelta(days=1)) == ""
    cal.entries[PS] = Entry(None, DUE, "UTC", Policy(), parse_practice("early"))
    assert practice_closed(cal, "cy", PS, DUE - dt.timedelta(days=3)) == ""


def test_practice_opens_at_the_due_date_and_stays_open(service, monkeypatch):
    monkeypatch.setenv(NOW_VAR, BEFORE)
    status, reply = drawn(service, "tok-ada")
    assert (status, reply["verdict"]) == (403, "refused")
    assert "opens at your due date, 2026-12-10 17:00 Europe/Berlin" in reply["message"]
    assert table(service, "kpca_practice_draws", "ada") == []
    status, reply = drawn(service, "tok-ada", 1, "ps2_feature_maps")  # early practice
    assert (status, reply["verdict"]) == (200, "practice"), reply
    monkeypatch.setenv(NOW_VAR, AFTER)
    status, first = drawn(service, "tok-ada", 2)
    assert (status, first["verdict"], first["draw"], first["checks"]) == (200, "practice", 2, 2)
    assert first["numbers_id"].startswith(PREFIX)
    monkeypatch.setenv(NOW_VAR, "2027-03-01 09:00 UTC")  # months later: the same numbers
    assert drawn(service, "tok-ada", 2)[1]["numbers_id"] == first["numbers_id"]
    graded = service.post({"item": ITEM, "answer": encode(variants.answer(ITEM, "ada")[0])},
                          token="tok-ada")
    assert graded[0] == 403 and "closed at your due date" in graded[1]["message"]


def test_practice_checks_judge_with_hints_and_never_count(service, monkeypatch):
    monkeypatch.setenv(NOW_VAR, AFTER)
    sid = drawn(service, "tok-cy", 1)[1]["numbers_id"]
    item = "ps1_three_point_variances"
    _, message, wrong = mistaken_values(item, sid)[0]
    status, reply = practise(service, {"item": item, "answer": encode(wrong), "draw": 1}, "tok-cy")
    assert (status, reply["verdict"], reply["counted"]) == (200, "mistake", True), reply
    assert message in reply["message"] and "practice 1" in reply["message"]
    right = variants.answer(item, sid)[0]
    status, reply = practise(service, {"item": item, "answer": encode(right), "draw": 1}, "tok-cy")
    assert (reply["verdict"], reply["attempts_left"]) == ("right", 0)
    assert "practice 1's numbers" in reply["message"]
    status, reply = practise(service, {"item": item, "answer": encode(right), "draw": 1}, "tok-cy")
    assert status == 429 and "practice 2" in reply["message"]  # 2 checks per item and draw
    assert [r[7] for r in table(service, "kpca_practice_attempts", "cy")] == ["mistake", "right"]
    assert table(service, "kpca_check_attempts", "cy") == []  # nothing where grading reads
    assert wrong_checks(f"sqlite:///{service.db}", "cy", PS) == {}


def test_the_graded_key_cannot_be_had_through_practice(service, monkeypatch):
    monkeypatch.setenv(NOW_VAR, AFTER)
    for k in (1, 2, 3):  # every draw the calendar allows
        sid = drawn(service, "tok-dee", k)[1]["numbers_id"]
        assert vars(variants.numbers(PS, sid)) != vars(variants.numbers(PS, "dee"))
        graded = variants.answer(ITEM, "dee")[0]
        assert variants.answer(ITEM, sid)[0] != graded
        forged = {"item": ITEM, "answer": encode(graded), "draw": k, "numbers_id": "dee",
                  "student": "bob", "student_id": "dee"}
        status, reply = practise(service, forged, "tok-dee")
        assert (status, reply["verdict"]) == (200, "wrong"), reply
    status, reply = drawn(service, "tok-dee", 4)
    assert status == 400 and "numbered 1 to 3" in reply["message"]


@pytest.mark.parametrize("draw", [0, -1, 10**30, "1", 1.0, True, None, [1], {"k": 1},
                                  "<script>alert(1)</script>", "\x1b[31m1", "1e3"])
def test_a_forged_draw_is_refused_by_name_and_records_nothing(service, monkeypatch, draw):
    monkeypatch.setenv(NOW_VAR, AFTER)
    for body in ({"problem_set": PS, "draw": draw}, {"item": ITEM, "answer": {"Z": "1"}, "draw": draw}):
        status, raw = service.exchange(json.dumps(body).encode(), "tok-eve", path="practice")
        reply = json.loads(raw)
        assert (status, reply["verdict"]) == (400, "refused")
        assert "practice draws are numbered 1 to 3" in reply["message"]
        assert b"<" not in raw and b"\x1b" not in raw and "\x1b" not in reply["message"]
    assert table(service, "kpca_practice_draws", "eve") == []
    assert table(service, "kpca_practice_attempts", "eve") == []


def test_garbled_foreign_and_huge_practice_requests_are_refused(service, monkeypatch):
    monkeypatch.setenv(NOW_VAR, AFTER)
    assert drawn(service, None)[0] == 401
    assert drawn(service, "tok-forged")[0] == 403
    assert drawn(service, "tok-tom")[0] == 403  # staff
    for raw in (b"[1, 2]", b"{not json", b'{"item": 7, "answer": 1, "draw": 1}',
                b'{"item": "ps1_circle_u", "draw": 1}'):
        assert practise(service, None, "tok-fay", raw)[0] == 400
    assert drawn(service, "tok-fay", 1, "ps9_nothing")[0] == 404
    status, _ = practise(service, None, "tok-fay", b'{"problem_set": "' + b"p" * 40_000 + b'"}')
    assert status == 413
    status, reply = practise(service, {"item": "ps6_predict_new", "answer": {"Z": "1"},
                                       "draw": 1}, "tok-fay")
    assert status == 403 and "closed" in reply["message"]  # ps6's checks are closed (an exam): so is its practice
    assert table(service, "kpca_practice_attempts", "fay") == []


def test_an_item_a_classmate_still_works_on_is_not_checked_on_practice(service, monkeypatch):
    """gus's draw 1 was kept when it was free; bob (extension) works on its circle, and
    after his due date while a late hand-in of his still counts (this calendar takes
    nothing for lateness) and none of his was taken in time."""
    bobs = _classes_of(PS, "bob", [ITEM])[ITEM]
    sid = next(s for s in (f"{PREFIX}{i:024x}" for i in range(10_000))
               if _classes_of(PS, s, [ITEM])[ITEM] == bobs != _classes_of(PS, "gus", [ITEM])[ITEM])
    from kit.checks.practice import PracticeStore

    PracticeStore(f"sqlite:///{service.db}").record("gus", PS, 1, sid)
    monkeypatch.setenv(NOW_VAR, AFTER)  # bob's extension runs to 2026-12-12 16:00
    status, reply = drawn(service, "tok-gus", 1)
    assert status == 200 and ITEM in reply["unavailable"]
    answer = {"item": ITEM, "answer": encode(variants.answer(ITEM, sid)[0]), "draw": 1}
    status, reply = practise(service, answer, "tok-gus")
    assert status == 403 and "a classmate still works on" in reply["message"]
    assert "bob" not in reply["message"]
    monkeypatch.setenv(NOW_VAR, "2026-12-13 09:00 UTC")  # bob's due date has passed, but
    status, reply = practise(service, answer, "tok-gus")  # a late hand-in of his still counts
    assert status == 403 and "a classmate still works on" in reply["message"]
    from kit.checks import practice

    monkeypatch.setattr(practice, "CLASSMATES_SECONDS", 0.0)
    monkeypatch.setattr(practice, "_CLASSMATES", {})
    monkeypatch.setattr(practice, "_RECEIVED", {})
    record = service.course / "received" / "bob" / f"{PS}.json"
    record.parent.mkdir(parents=True)  # the intake took his hand-in, received in time
    record.write_text(json.dumps({"time": "2026-12-12T15:00:00+00:00"}))
    try:
        status, reply = practise(service, answer, "tok-gus")
    finally:
        record.unlink()
    assert (status, reply["verdict"]) == (200, "right"), reply


def test_a_flood_of_practice_requests_meets_the_rate_limit_shared_with_checks(service, monkeypatch):
    monkeypatch.setenv(NOW_VAR, AFTER)
    statuses = [drawn(service, "tok-hal", -1)[0] for _ in range(70)]
    assert statuses.count(429) >= 10 and set(statuses) == {400, 429}
    status, reply = service.post({"item": ITEM, "answer": {"Z": "1"}}, token="tok-hal")
    assert status == 429 and "too many" in reply["message"]


def test_the_notebook_draws_practice_numbers_and_checks_on_them(service, monkeypatch, capsys):
    from tests.checks.test_service import run_numbers_cell

    monkeypatch.setenv(NOW_VAR, AFTER)
    scope = run_numbers_cell(monkeypatch, {"JUPYTERHUB_USER": "ivy", "JUPYTERHUB_API_TOKEN":
                                           "tok-ivy", "KPCA_CHECK_URL": service.url})
    own = scope["N"]
    capsys.readouterr()
    practice = scope["practice"](1)
    sid = drawn(service, "tok-ivy", 1)[1]["numbers_id"]
    assert vars(practice) == vars(variants.numbers(PS, sid)) != vars(own)
    assert "Practice numbers 1" in capsys.readouterr().out
    scope["check"](ITEM, variants.answer(ITEM, sid)[0])
    (line,) = capsys.readouterr().out.strip().splitlines()
    assert line.startswith(f"check {ITEM} (practice 1): practice 1, right"), line
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")  # graded: always the own numbers
    assert vars(scope["practice"](2)) == vars(own) and capsys.readouterr().out == ""
    assert table(service, "kpca_practice_draws", "ivy")[-1][3] == 1  # no draw 2 was asked for


def test_the_calendar_reads_and_refuses_practice_policies():
    assert parse_practice("Early; 7 checks; 3 draws") == Practice("early", 7, 3)
    assert parse_practice("") == Practice() and Practice().text == "after; 5 checks; 20 draws"
    for bad, words in (("sometimes", "cannot read"), ("0 checks", "between 1 and 100"),
                       ("5000 draws", "between 1 and 1000"), ("early; off", "given twice"),
                       (7, "is text")):
        with pytest.raises(ValueError, match=words):
            parse_practice(bad)
    data = Calendar.empty()
    data.entries[PS] = Entry(None, DUE, "UTC", Policy(), Practice("off"))
    assert Calendar.from_json(data.to_json()).entry(PS).practice == Practice("off")
    assert "practice" not in Calendar.from_json(json.loads(json.dumps(
        {"version": 1, "problem_sets": {PS: {"due": DUE.isoformat()}}}))).to_json()["problem_sets"][PS]


def test_the_instructor_sets_practice_with_the_calendars_command(tmp_path, capsys):
    from kit.term import load
    from kit.term.__main__ import main

    (tmp_path / "submitted" / "ada").mkdir(parents=True)
    args = ["--course", str(tmp_path), "set", PS, "--due", "2026-12-10 17:00 UTC"]
    assert main([*args, "--practice", "early; 3 checks; 4 draws"]) == 0
    assert load(tmp_path).entry(PS).practice == Practice("early", 3, 4)
    assert "practice: from the opening, 4 draws of 3 checks per item" in capsys.readouterr().out
    assert main([*args, "--practice", "<b>3 checks</b>"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kit.term: error: practice: cannot read") and len(err.splitlines()) == 1
    assert load(tmp_path).entry(PS).practice == Practice("early", 3, 4)  # unchanged


def test_a_ta_or_the_demo_draws_a_students_practice_as_the_service_does(tmp_path):
    from kit.checks.practice import practice_numbers

    cal = Calendar.empty()
    cal.entries[PS] = Entry(None, DUE, "UTC", Policy())
    save(tmp_path, cal)
    (tmp_path / ".grading_secret").write_text(SECRET.decode() + "\n")
    after = DUE + dt.timedelta(hours=1)
    sid, numbers = practice_numbers(tmp_path, "ada", PS, 1, after)
    assert sid.startswith(PREFIX) and vars(numbers) != vars(variants.numbers(PS, "ada"))
    assert practice_numbers(tmp_path, "ada", PS, 1, after + dt.timedelta(days=30))[0] == sid
    with pytest.raises(ValueError, match="opens at your due date"):
        practice_numbers(tmp_path, "ada", PS, 1, DUE)
    with pytest.raises(ValueError, match="numbered 1 to 20"):
        practice_numbers(tmp_path, "ada", PS, 21, after)


def test_twenty_concurrent_practice_checks_keep_the_limit_of_a_draw(service, monkeypatch):
    import concurrent.futures as cf

    monkeypatch.setenv(NOW_VAR, AFTER)
    sid = drawn(service, "tok-jo", 1)[1]["numbers_id"]
    wrong = variants.answer(ITEM, sid)[0] + variants.answer(ITEM, sid)[0]
    body = {"item": ITEM, "answer": encode(wrong), "draw": 1}
    with cf.ThreadPoolExecutor(20) as pool:
        replies = list(pool.map(lambda _: practise(service, body, "tok-jo"), range(20)))
    assert sum(1 for _, r in replies if r["counted"]) == 2  # the calendar's 2 checks
    assert all(status in (200, 429) for status, _ in replies)
    assert len([r for r in table(service, "kpca_practice_attempts", "jo") if r[5]]) == 2
