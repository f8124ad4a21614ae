"""A hand-in's time is the time the kit received it, never a file or a name the student writes.

* exchange collect: forged folder names (past, future, garbage) and forged ``mtime`` change
  neither which hand-in is collected (the one the exchange received last, by ``st_ctime``)
  nor its recorded time;
* LMS zip: the zip entry's time, as the LMS wrote it;
* the record holds only for the files it was taken for; a hand-in without one gets the time
  it was first graded, kept for regrades;
* nbgrader's autograde gets the recorded time, and a garbled ``timestamp.txt`` no longer
  stops it.
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

from kit.intake.collect import import_zip
from kit.intake.received import (
    FALLBACK,
    ReceivedTimeDirectory,
    received,
    received_time,
    record_received,
    recorded,
    zip_entry_time,
)
from kit.intake.submitted import build_submission
from tests.support.forged_times import FORGED

PS = "ps1_circle_lift"
UTC = dt.timezone.utc


def _submitted(course, student: str, text: str = "", stamp: str | None = None):
    folder = course.root / "submitted" / student / PS
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{PS}.ipynb").write_text(text or f"hand-in of {student}")
    if stamp is not None:
        (folder / "timestamp.txt").write_text(stamp)
    return folder


def test_a_record_holds_for_its_files_and_a_hand_in_without_one_keeps_its_first_grading(tmp_path):
    course = type("C", (), {"root": tmp_path})()
    when = dt.datetime(2026, 12, 1, 12, tzinfo=UTC)
    _submitted(course, "ada", stamp=FORGED["past"])
    record_received(course, "ada", PS, when, "test intake")
    assert received(course, "ada", PS).time == when
    assert received_time(course, "ada", PS) == when.replace(tzinfo=None)
    # the TA copies another file over it by hand: the record was for other files
    _submitted(course, "ada", "copied by hand", stamp=FORGED["past"])
    first = received(course, "ada", PS, now=dt.datetime(2026, 12, 5, tzinfo=UTC))
    assert first.source == FALLBACK and first.time == dt.datetime(2026, 12, 5, tzinfo=UTC)
    assert received(course, "ada", PS) == first  # a regrade: the same time
    for bad in ("", ".", "..", "a/b", "x\0y"):
        with pytest.raises(ValueError, match="cannot name a folder"):
            received(course, bad, PS)


@pytest.mark.parametrize("forged", sorted(FORGED))
def test_nbgrader_autograde_gets_the_received_time_whatever_timestamp_txt_says(tmp_path, forged):
    from traitlets.config import Config

    config = Config()
    config.CourseDirectory.root = str(tmp_path)
    course = type("C", (), {"root": tmp_path})()
    folder = _submitted(course, "ada", stamp=FORGED[forged])
    when = dt.datetime(2026, 12, 1, 12, tzinfo=UTC)
    record_received(course, "ada", PS, when, "test intake")
    coursedir = ReceivedTimeDirectory(config=config)
    assert coursedir.get_existing_timestamp(str(folder)) == when.replace(tzinfo=None)
    assert coursedir.get_existing_timestamp(str(tmp_path / "autograded" / "ada" / PS)) is None


def test_a_zip_entry_time_is_the_lms_time():
    info = zipfile.ZipInfo("x.ipynb", date_time=(2026, 11, 30, 23, 59, 58))
    assert zip_entry_time(info) == dt.datetime(2026, 11, 30, 23, 59, 58, tzinfo=UTC)
    assert zip_entry_time(zipfile.ZipInfo("x.ipynb", date_time=(1980, 1, 1, 0, 0, 0))) is None
    now = dt.datetime(2026, 12, 1, tzinfo=UTC)
    future = zipfile.ZipInfo("x.ipynb", date_time=(2099, 1, 1, 0, 0, 0))
    assert zip_entry_time(future, now) == now
    utc = zipfile.ZipInfo("x.ipynb", date_time=(2026, 1, 1, 0, 0, 0))  # local time, and UT
    utc.extra = b"UT\x05\x00\x01" + int(now.timestamp() - 60).to_bytes(4, "little")
    assert zip_entry_time(utc, now) == now - dt.timedelta(minutes=1)


def test_an_lms_import_records_each_entry_time(tmp_path, released_ps1):
    course = released_ps1(tmp_path / "course")
    export = tmp_path / "export.zip"
    nb = nbformat.writes(build_submission(course, PS))
    times = {"ada": (2026, 11, 30, 17, 2, 4), "bob": (2026, 12, 1, 9, 0, 0)}
    with zipfile.ZipFile(export, "w") as archive:
        for i, (student, when) in enumerate(times.items()):
            archive.writestr(zipfile.ZipInfo(f"{student}_{i}_{i}_{PS}.ipynb", date_time=when), nb)
    import_zip(course, PS, export)
    for student, when in times.items():
        got = received(course, student, PS)
        assert got.time == dt.datetime(*when, tzinfo=UTC) and "LMS export" in got.source


def _inbound(exchange, name: str, text: str, stamp: str, mtime: float | None = None):
    folder = exchange / "kernel_pca" / "inbound" / name
    folder.mkdir(parents=True)
    (folder / f"{PS}.ipynb").write_text(text)
    (folder / "timestamp.txt").write_text(stamp)
    if mtime is not None:
        for path in (folder / f"{PS}.ipynb", folder / "timestamp.txt", folder):
            os.utime(path, (mtime, mtime))
    return folder


def test_collect_takes_the_hand_in_received_last_and_its_exchange_time(tmp_path, released_ps1):
    course = released_ps1(tmp_path / "course")
    exchange = tmp_path / "exchange"
    nb = nbformat.writes(build_submission(course, PS))
    # mal hands in twice; the first claims (name, mtime, timestamp.txt) to be from 2099
    _inbound(exchange, f"mal+{PS}+2099-12-31 23:59:59.000000 UTC+aaaa", nb + " ", FORGED["future"],
             mtime=4102444799)
    time.sleep(1.1)
    start = dt.datetime.now(UTC)
    _inbound(exchange, f"mal+{PS}+2020-01-01 00:00:00.000000 UTC+bbbb", nb, FORGED["past"],
             mtime=1577836800)
    _inbound(exchange, f"gar+{PS}+{FORGED['escapes']}+cccc", nb, FORGED["garbage"])
    _inbound(exchange, f"hon+{PS}+{dt.datetime.now(UTC):%Y-%m-%d %H:%M:%S.%f} UTC+dddd", nb,
             f"{dt.datetime.now(UTC):%Y-%m-%d %H:%M:%S.%f} UTC")
    env = {**os.environ, "KPCA_EXCHANGE": str(exchange)}
    done = subprocess.run([sys.executable, "-m", "nbgrader", "collect", PS], cwd=course.root,
                          env=env, capture_output=True, text=True, check=False)
    end = dt.datetime.now(UTC)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (course.root / "submitted" / "mal" / PS / f"{PS}.ipynb").read_text() == nb
    for student in ("mal", "gar", "hon"):
        got = received(course, student, PS)
        assert "exchange collect" in got.source, (student, got)
        assert start - dt.timedelta(seconds=1) <= got.time <= end, (student, got, start, end)


def test_plain_nbgrader_autograde_records_the_received_time_before_late_penalties(
        tmp_path, released_ps1):
    """``nbgrader autograde`` (and formgrader) first record ``timestamp.txt``; the course's
    autograde step, before ``AssignLatePenalties``, replaces it with the received time."""
    from nbgrader.api import Gradebook

    from kit.intake.received import StampReceivedTime

    course = released_ps1(tmp_path / "course")
    steps = course.config().Autograde.autograde_preprocessors
    assert steps.index("kit.intake.received.StampReceivedTime") < steps.index(
        "nbgrader.preprocessors.AssignLatePenalties")
    folder = _submitted(course, "mal", stamp=FORGED["past"])
    when = dt.datetime(2026, 12, 1, 12, tzinfo=UTC)
    record_received(course, "mal", PS, when, "test intake")
    with Gradebook(course.db_url) as gb:
        gb.update_or_create_student("mal")
        gb.update_or_create_submission(PS, "mal", timestamp=dt.datetime(2020, 1, 1))
    resources = {"metadata": {"path": str(course.root / "autograded" / "mal" / PS)},
                 "nbgrader": {"student": "mal", "assignment": PS, "db_url": course.db_url}}
    graded = course.root / "autograded" / "mal" / PS
    graded.mkdir(parents=True)
    (graded / "timestamp.txt").write_text(FORGED["escapes"])  # nbgrader copied the student's
    assert folder.exists()
    StampReceivedTime().preprocess({}, resources)
    with Gradebook(course.db_url) as gb:
        assert gb.find_submission(PS, "mal").timestamp == when.replace(tzinfo=None)
    assert (graded / "timestamp.txt").read_text() == "2026-12-01 12:00:00.000000 UTC"
    assert (folder / "timestamp.txt").read_text() == "2026-12-01 12:00:00.000000 UTC"
    assert recorded(course, "mal", PS).source == "test intake"  # the rewrite keeps the record


@pytest.mark.parametrize("laid", ["by the intake", "by hand"])
def test_formgrader_sees_a_hand_in_graded_by_nbgrader_as_autograded(tmp_path, released_ps1, laid):
    """Formgrader calls a hand-in autograded only when the gradebook's time equals the time
    nbgrader reads from ``submitted/``: the course writes the received time there too, so the
    TA's table shows the score whatever the student's ``timestamp.txt`` said (it stayed empty
    when only the gradebook held the received time)."""
    from nbgrader.api import Gradebook

    from kit.intake.submitted import lay

    course = released_ps1(tmp_path / "course")
    dest = lay(course, PS, "ada", build_submission(course, PS))
    (dest.parent / "timestamp.txt").write_text(FORGED["past"])  # the student's own clock
    if laid == "by hand":
        (course.root / "received").rename(tmp_path / "no-record")
    api = course.api()  # plain nbgrader's course directory, as formgrader's
    assert api.autograde(PS, "ada", force=True, create=True)["success"]
    got = api.get_submission(PS, "ada")
    assert got["autograded"] and got["score"] > 0, got
    with Gradebook(course.db_url) as gb:
        assert gb.find_submission(PS, "ada").timestamp == received_time(course, "ada", PS)
    assert "2020" not in (dest.parent / "timestamp.txt").read_text()
