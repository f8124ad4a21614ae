"""Collect and the LMS import take each student's latest hand-in received by their own due
date (and grace), else the latest, by a time the student cannot write; the others are
recorded as not taken, with how late they came. An extension moves the line.

Through ``nbgrader collect`` (the course's :class:`kit.term.intake.TermCollect`) on a real
exchange, whose times are the inode change times of ``inbound/``, and through
:func:`kit.intake.collect.import_zip` with the calendar's :func:`kit.term.intake.due_of`,
whose times are the zip entries'.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import time
import zipfile

import nbformat
import pytest

from kit.intake.choose import Candidate, choose, describe, passed_over, record_of
from kit.intake.collect import import_zip, report
from kit.intake.received import received
from kit.intake.submitted import build_submission
from kit.term import load
from kit.term.__main__ import main as term
from kit.term.intake import due_of
from kit.term.late import assess
from tests.support.forged_times import FORGED

PS = "ps1_circle_lift"
UTC = dt.timezone.utc
DUE = dt.datetime(2025, 11, 20, 16, 0, tzinfo=UTC)  # past: an LMS time is at most now


def _at(hours: float) -> dt.datetime:
    return DUE + dt.timedelta(hours=hours)


def test_the_rule_takes_the_latest_on_time_else_the_latest_and_a_tie_is_none():
    early, just, late, later = (Candidate(k, _at(h)) for k, h in
                                (("a", -30), ("b", -0.1), ("c", 2), ("d", 30)))
    got = choose([late, early, just, later], DUE)
    assert got.taken is just and got.on_time and got.others == (early, late, later)
    assert [got.late_seconds(c) for c in got.others] == [0, 7200, 108000]
    got = choose([late, later], DUE)  # none on time: the latest, late
    assert got.taken is later and not got.on_time
    assert choose([late, early], DUE, grace=3 * 3600).taken is late  # within the grace
    assert choose([late, early]).taken is late  # no due date: the latest
    twin = Candidate("e", just.time)
    tie = choose([early, just, twin, late], DUE)
    assert tie.taken is None and set(tie.tied) == {just, twin}
    assert "not taken" in describe("ada", tie)[0] and "keep one" in describe("ada", tie)[0]
    with pytest.raises(ValueError, match="no hand-in to choose from"):
        choose([], DUE)


def test_the_ta_s_lines_name_the_hand_ins_made_inert():
    got = choose([Candidate(f"x+{PS}+{FORGED['escapes']}", _at(-1)), Candidate("y", _at(5))], DUE)
    lines = describe("ada\x1b[2J", got)
    assert "on time" in lines[0] and "5.0 h after the due date" in lines[1]
    assert not any("\x1b" in line or "\x07" in line for line in lines)


def test_ten_thousand_hand_ins_flood_neither_the_record_nor_the_ta_s_screen():
    many = [Candidate(f"x+{PS}+{i}" + "\x1b[2J" * 100, _at(-i / 60)) for i in range(10_000)]
    started = time.perf_counter()
    got = choose(many, DUE)
    assert got.taken is many[0] and len(got.others) == 9_999
    lines, record = describe("ada", got), record_of(got)
    assert time.perf_counter() - started < 2
    assert len(lines) <= 12 and "9989 earlier hand-ins not taken" in lines[-1]
    assert len(record) == 50 and record[-1]["time"] == many[1].time.isoformat()
    assert max(len(line) for line in lines) < 400 and not any("\x1b" in line for line in lines)


def _inbound(exchange, name: str, nb: str, stamp: str) -> None:
    folder = exchange / "kernel_pca" / "inbound" / name
    folder.mkdir(parents=True)
    (folder / f"{PS}.ipynb").write_text(nb)
    (folder / "timestamp.txt").write_text(stamp)


def _collect(course, exchange, *extra) -> str:
    env = {**os.environ, "KPCA_EXCHANGE": str(exchange)}
    done = subprocess.run([sys.executable, "-m", "nbgrader", "collect", *extra, PS],
                          cwd=course.root, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def _set_due(course, due: dt.datetime, late: str) -> None:
    assert term(["--course", str(course.root), "set", PS, "--due",
                 f"{due:%Y-%m-%d %H:%M:%S} UTC", "--late", late]) == 0


def test_collect_takes_the_on_time_hand_in_a_forged_late_one_stays_late_an_extension_moves_it(
        tmp_path, released_ps1):
    course = released_ps1(tmp_path / "course")
    exchange = tmp_path / "exchange"
    nb = nbformat.writes(build_submission(course, PS))
    _inbound(exchange, f"mal+{PS}+2026-12-01 00:00:00.000000 UTC+aaaa", nb, FORGED["past"])
    time.sleep(1.2)
    due = dt.datetime.now(UTC).replace(microsecond=0)
    time.sleep(1.2)
    # after the due date: mal's second hand-in, and lat's only one, both claiming (folder
    # name and timestamp.txt) to have come long before it
    _inbound(exchange, f"mal+{PS}+2020-01-01 00:00:00.000000 UTC+bbbb", nb + " ", FORGED["past"])
    _inbound(exchange, f"lat+{PS}+2020-01-01 00:00:00.000000 UTC+cccc", nb, FORGED["past"])
    _set_due(course, due, "10% per day")
    log = _collect(course, exchange)
    taken = course.notebook("submitted", PS, "mal").read_text()
    assert taken == nb  # the one on time, not the later one
    assert "mal: took the hand-in received" in log and "(on time)" in log
    (other,) = passed_over(course, "mal", PS)
    assert other["name"].endswith("+bbbb") and other["late_seconds"] > 0
    assert received(course, "mal", PS).time <= due

    late = received(course, "lat", PS)
    assert late.time > due and "exchange collect" in late.source
    verdict = assess(load(course), "lat", PS, late.time, 10.0)
    assert verdict.late and verdict.penalty == 1.0  # one day begun: 10%
    assert "lat: took the hand-in received" in log and "none came on time" in log

    # "no late hand-ins": the late one is still taken, and counts 0
    _set_due(course, due, "none")
    assert assess(load(course), "lat", PS, late.time, 10.0).penalty == 10.0

    # an extension moves mal's line past the second hand-in: collect --update takes it
    assert term(["--course", str(course.root), "extend", "mal", PS, "--days", "1",
                 "--reason", "ill"]) == 0
    _collect(course, exchange, "--update")
    assert course.notebook("submitted", PS, "mal").read_text() == nb + " "
    (other,) = passed_over(course, "mal", PS)
    assert other["name"].endswith("+aaaa") and other["late_seconds"] == 0
    assert received(course, "mal", PS).time > due


def _zip(path, files: dict) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        for name, (when, text) in files.items():
            archive.writestr(zipfile.ZipInfo(name, date_time=when), text)


def test_the_lms_import_takes_the_on_time_file_and_an_extension_moves_the_line(tmp_path, released_ps1):
    course = released_ps1(tmp_path / "course")
    one = nbformat.writes(build_submission(course, PS))
    two = one + " "
    ontime, late = f"ada_1_2_{PS}.ipynb", f"ada_late_1_3_{PS}-1.ipynb"
    tie_a, tie_b = f"bob_4_5_{PS}.ipynb", f"bob_4_6_{PS}-1.ipynb"
    export = tmp_path / "export.zip"
    _zip(export, {ontime: ((2025, 11, 20, 15, 0, 0), one), late: ((2025, 11, 21, 9, 0, 0), two),
                  tie_a: ((2025, 11, 20, 12, 0, 0), one), tie_b: ((2025, 11, 20, 12, 0, 0), two),
                  f"cy_7_8_{PS}.ipynb": ((2025, 11, 22, 9, 0, 0), one)})
    _set_due(course, DUE, "grace 15m; 10% per day")
    result = import_zip(course, PS, export, due=due_of(course, PS))
    assert course.notebook("submitted", PS, "ada").read_text() == one
    assert received(course, "ada", PS).time == dt.datetime(2025, 11, 20, 15, tzinfo=UTC)
    (other,) = passed_over(course, "ada", PS)
    assert other["name"] == late and other["late_seconds"] == 17 * 3600
    assert result.twice == {"bob": [tie_a, tie_b]}  # one time: nobody can tell them apart
    assert not course.notebook("submitted", PS, "bob").exists()
    lines = report(result, PS)
    assert "ada: took the hand-in received 2025-11-20 15:00:00 UTC (on time)" in lines
    assert f"not taken: the hand-in received 2025-11-21 09:00:00 UTC (17.0 h after the due date): {late}" in lines
    assert received(course, "cy", PS).time > DUE  # a single late file is imported, late

    assert term(["--course", str(course.root), "extend", "ada", PS, "--until",
                 "2025-11-21 12:00 UTC", "--reason", "ill"]) == 0
    import_zip(course, PS, export, force=True, due=due_of(course, PS))
    assert course.notebook("submitted", PS, "ada").read_text() == two
    assert passed_over(course, "ada", PS)[0]["name"] == ontime


def test_without_a_due_date_several_lms_files_are_not_imported(tmp_path, released_ps1):
    course = released_ps1(tmp_path / "course")
    nb = nbformat.writes(build_submission(course, PS))
    export = tmp_path / "export.zip"
    names = [f"ada_1_2_{PS}.ipynb", f"ada_1_3_{PS}-1.ipynb", f"bob_4_5_{PS}.ipynb"]
    _zip(export, {names[0]: ((2025, 11, 20, 15, 0, 0), nb), names[1]: ((2025, 11, 21, 9, 0, 0), nb),
                  names[2]: ((2025, 11, 21, 9, 0, 0), nb)})
    _set_due(course, DUE, "off")
    assert term(["--course", str(course.root), "exempt", "ada", PS, "--reason", "excused",
                 "--roster", str(_roster(tmp_path))]) == 0
    result = import_zip(course, PS, export, due=due_of(course, PS))
    assert result.twice == {"ada": names[:2]} and list(result.students) == ["bob"]


def _roster(tmp_path):
    path = tmp_path / "roster.csv"
    path.write_text("student_id\nada\nbob\n")
    return path


def test_a_calendar_that_cannot_be_read_stops_collect_and_the_import(tmp_path, released_ps1):
    from kit.term import CalendarError

    course = released_ps1(tmp_path / "course")
    exchange = tmp_path / "exchange"
    _inbound(exchange, f"mal+{PS}+2026-12-01 00:00:00.000000 UTC+aaaa", "{}", FORGED["past"])
    (course.root / "term.json").write_text('{"version": 1, "problem_sets": [')
    env = {**os.environ, "KPCA_EXCHANGE": str(exchange)}
    done = subprocess.run([sys.executable, "-m", "nbgrader", "collect", PS], cwd=course.root,
                          env=env, capture_output=True, text=True, check=False)
    assert done.returncode != 0 and "collect stopped: " in done.stderr and "term.json" in done.stderr
    assert not (course.root / "submitted").exists()
    with pytest.raises(CalendarError, match="term.json: not JSON"):
        due_of(course, PS)


def test_a_hand_in_rewritten_while_collect_runs_is_recorded_as_late(tmp_path, released_ps1,
                                                                    monkeypatch):
    """The student owns her folder in ``inbound/``: she hands in before the due date, watches
    the folder (inotify sees collect read it) and, once collect has listed the hand-ins and
    read their times, rewrites her notebook in place after the due date, before it is copied.
    The new content is what collect copies, so its time is the rewrite's: late, not the
    listing's time of an on-time hand-in."""
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory

    from kit.intake import safefiles
    from kit.term.intake import TermCollect

    course = released_ps1(tmp_path / "course")
    exchange = tmp_path / "exchange"
    nb = nbformat.writes(build_submission(course, PS))
    _inbound(exchange, f"sly+{PS}+2026-12-01 00:00:00.000000 UTC+aaaa", nb, FORGED["past"])
    folder = exchange / "kernel_pca" / "inbound" / f"sly+{PS}+2026-12-01 00:00:00.000000 UTC+aaaa"
    time.sleep(1.2)
    due = dt.datetime.now(UTC).replace(microsecond=0)
    _set_due(course, due, "10% per day")
    time.sleep(1.2)
    real_copy, rewritten = safefiles.copy_tree, []

    def student_writes_first(src, dest, **kw):  # her write lands between listing and copy
        with open(os.path.join(src, f"{PS}.ipynb"), "r+", encoding="utf-8") as fh:
            fh.seek(0, os.SEEK_END)
            fh.write(" ")
        rewritten.append(dt.datetime.now(UTC))
        return real_copy(src, dest, **kw)

    monkeypatch.setattr(safefiles, "copy_tree", student_writes_first)
    monkeypatch.setenv("KPCA_EXCHANGE", str(exchange))
    config = course.config()
    config.CourseDirectory.assignment_id = PS
    coursedir = CourseDirectory(config=config)
    TermCollect(coursedir=coursedir, authenticator=Authenticator(config=config),
                config=config).start()
    assert rewritten and course.notebook("submitted", PS, "sly").read_text() == nb + " "
    assert folder.is_dir()
    when = received(course, "sly", PS).time
    assert when > due, (when, due)  # the listing's time said on time; the content is late
    assert assess(load(course), "sly", PS, when, 10.0).late


def _collect_in_process(course, exchange, monkeypatch) -> None:
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory

    from kit.term.intake import TermCollect

    monkeypatch.setenv("KPCA_EXCHANGE", str(exchange))
    config = course.config()
    config.CourseDirectory.assignment_id = PS
    TermCollect(coursedir=CourseDirectory(config=config), authenticator=Authenticator(config=config),
                config=config).start()


def test_a_hand_in_another_student_made_in_her_name_is_not_taken(tmp_path, released_ps1,
                                                                 monkeypatch, caplog):
    """Every student may write into ``inbound/``: ada makes a folder named for bob, after
    bob's own hand-in and before the due date, to have her notebook graded as bob's. Where
    each student is an OS user, the folder is ada's: it is not taken, and the TA is told.
    Where students share one OS account, owners name nobody and nothing is left out."""
    import logging

    from kit.intake import steps

    course = released_ps1(tmp_path / "course")
    exchange = tmp_path / "exchange"
    nb = nbformat.writes(build_submission(course, PS))
    owners = {"bob+": "bob", "ada+": "ada", "bob+zz": "ada"}
    _inbound(exchange, f"bob+{PS}+2026-12-01 00:00:00.000000 UTC+aaaa", nb, FORGED["past"])
    time.sleep(1.1)
    _inbound(exchange, f"ada+{PS}+2026-12-01 00:00:00.000000 UTC+bbbb", nb + "  ", FORGED["past"])
    _inbound(exchange, f"bob+{PS}+2026-12-02 00:00:00.000000 UTC+zzzz", nb + " ", FORGED["past"])
    _set_due(course, dt.datetime.now(UTC) + dt.timedelta(hours=1), "10% per day")

    def owner(path):
        name = os.path.basename(path)
        return owners["bob+zz" if name.endswith("zzzz") else name[:4]]

    monkeypatch.setattr(steps, "_owner", owner)
    _collect_in_process(course, exchange, monkeypatch)
    assert course.notebook("submitted", PS, "bob").read_text() == nb  # his own, not ada's
    assert course.notebook("submitted", PS, "ada").read_text() == nb + "  "
    assert "is named for bob but belongs to another student, ada" in caplog.text

    class Stub:  # one OS account for the whole class: nothing is left out
        check_owner, inbound_path = True, str(exchange / "kernel_pca" / "inbound")
        log = logging.getLogger(__name__)
        coursedir = type("C", (), {"db_url": course.db_url})()

    monkeypatch.setattr(steps, "_owner", lambda path: "jovyan")
    found = {"bob": [{"filename": f"bob+{PS}+x+zzzz"}, {"filename": f"bob+{PS}+x+aaaa"}]}
    steps.SafeCollect._drop_forged(Stub(), found)
    assert len(found["bob"]) == 2
