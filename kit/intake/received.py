"""When the kit received a hand-in: the one time every rule reads (check costs, the gradebook).

A hand-in's ``timestamp.txt`` is a file the student writes (``nbgrader submit`` writes it on
the student's side; anyone can write it into the exchange or an LMS upload), so no rule
reads it. The time comes from what the student cannot set, taken at intake and recorded
outside the hand-in, in ``received/<student>/<ps>.json`` beside ``submitted/``:

* exchange collect (:class:`kit.intake.steps.SafeCollect`): the latest inode change time
  (``st_ctime``) of the hand-in's folder and files in ``inbound/`` (a user can set a file's
  ``mtime`` and name anything, never a ``ctime`` in the past), at most the collect's time;
* LMS zip (``python -m kit.collect``): the zip entry's own time, written by the LMS at export
  (its UTC extended time when present, else its date and time read as UTC), at most the
  import's time;
* the demo class (:func:`kit.intake.submitted.lay`): the time it laid the hand-in.

A hand-in with no record (copied into ``submitted/`` by hand), or whose files changed since
its record, gets the time it was first graded in that form, recorded then (so a regrade
keeps it): the only moment the kit itself saw it. Every wrong check made before grading
then counts; import through the intake to give the student their hand-in's time.

:func:`received` is the one function that answers; :func:`received_time` is its time as
nbgrader's gradebook holds times (naive UTC); :class:`ReceivedTimeDirectory` makes nbgrader's
autograde (as ``kit.autograde`` runs it) write it as the submission's timestamp and never read
``timestamp.txt``; :class:`StampReceivedTime`, an autograde step, writes it there too when
plain ``nbgrader autograde`` or formgrader grades.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import struct
import tempfile
from dataclasses import dataclass
from pathlib import Path

from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import NbGraderPreprocessor

__all__ = ["FALLBACK", "RECEIVED_DIR", "Received", "ReceivedTimeDirectory", "StampReceivedTime",
           "exchange_time", "mirror_timestamp",
           "received", "received_time", "record_received", "recorded", "zip_entry_time"]

#: the folder, beside ``submitted/``, holding one record per hand-in
RECEIVED_DIR = "received"
#: the source named by a record made at grading, for a hand-in the intake never saw
FALLBACK = "no intake record: the time it was first graded"
UTC = dt.timezone.utc
#: the hand-in's file nbgrader reads a time from
TIMESTAMP = "timestamp.txt"


@dataclass(frozen=True)
class Received:
    """When a hand-in was received (aware UTC) and how the kit knows it."""

    time: dt.datetime
    source: str


def _root(course) -> Path:
    """The course folder of a :class:`kit.course.Course` or a path (a path's ``.root`` is '/')."""
    return Path(course) if isinstance(course, (str, os.PathLike)) else Path(course.root)


def _component(name: str, what: str) -> str:
    if not isinstance(name, str) or name in ("", ".", "..") or "/" in name or "\0" in name:
        raise ValueError(f"{what} {name!r} cannot name a folder of the course")
    return name


def _ledger(root: Path, student: str, ps: str) -> Path:
    return root / RECEIVED_DIR / _component(student, "student id") / f"{_component(ps, 'problem set')}.json"


def hand_in_digest(folder: Path) -> str:
    """SHA-256 of the hand-in's plain files (names and bytes): a record holds only for them.

    The hand-in's own ``timestamp.txt`` is left out: no rule reads it, and the course writes
    the received time into it (:func:`mirror_timestamp`).
    """
    digest = hashlib.sha256()
    folder = Path(folder)
    if folder.is_dir():
        for dirpath, dirnames, filenames in os.walk(folder):
            dirnames.sort()
            for name in sorted(filenames):
                path = Path(dirpath) / name
                if path.is_symlink() or not path.is_file() or (
                        name == TIMESTAMP and Path(dirpath) == folder):
                    continue
                digest.update(str(path.relative_to(folder)).encode("utf-8", "surrogateescape") + b"\0")
                with open(path, "rb") as fh:
                    for block in iter(lambda: fh.read(1 << 20), b""):
                        digest.update(block)
                digest.update(b"\0")
    return digest.hexdigest()


def _utc(when: dt.datetime) -> dt.datetime:
    if not isinstance(when, dt.datetime):
        raise TypeError(f"a hand-in's time must be a datetime, not {type(when).__name__}")
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def record_received(course, student: str, ps: str, when: dt.datetime, source: str,
                    passed_over: list | None = None) -> Received:
    """Record that ``student``'s hand-in of ``ps`` (as it is now in ``submitted/``) arrived at
    ``when`` (naive: UTC), known from ``source``; replaces an earlier record. ``passed_over``:
    the student's other hand-ins, not taken (:func:`kit.intake.choose.record_of`)."""
    root = _root(course)
    path = _ledger(root, student, ps)
    record = Received(_utc(when), str(source))
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"time": record.time.isoformat(), "source": record.source,
            "digest": hand_in_digest(root / "submitted" / student / ps)}
    if passed_over:
        data["passed_over"] = list(passed_over)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".received-")
    try:
        with os.fdopen(fd, "w") as fh:
            json.dump(data, fh)
        os.replace(tmp, path)  # readers see the old record or the new one, never half
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    mirror_timestamp(root / "submitted" / student / ps, record.time)
    return record


def mirror_timestamp(folder: Path, when: dt.datetime) -> None:
    """Write the received time ``when`` as the ``timestamp.txt`` of the graded copy in
    ``folder`` (``submitted/``, ``autograded/``), in nbgrader's format, replacing the
    student's: nbgrader's own readers (formgrader's "autograded" test compares it with the
    gradebook's time; ``release_feedback`` prints it) then agree with the course's record,
    and the student's text, escapes and all, reaches no terminal. Never through a link."""
    folder = Path(folder)
    if not folder.is_dir() or folder.is_symlink():
        return
    text = f"{_utc(when).replace(tzinfo=None):%Y-%m-%d %H:%M:%S.%f} UTC"
    path = folder / TIMESTAMP
    try:
        if not path.is_symlink() and path.is_file() and path.read_text(errors="replace") == text:
            return
        path.unlink(missing_ok=True)
        path.write_text(text)
    except OSError:
        pass  # a folder the course cannot write: the record still answers every rule


def _read(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text())
        return data if isinstance(data, dict) else None
    except (OSError, ValueError):
        return None


def recorded(course, student: str, ps: str) -> Received | None:
    """The record of ``student``'s hand-in of ``ps`` when it holds for the hand-in's files as
    they are in ``submitted/`` (None: no record, or for other files)."""
    root = _root(course)
    data = _read(_ledger(root, student, ps))
    if data is None or data.get("digest") != hand_in_digest(root / "submitted" / student / ps):
        return None
    try:
        return Received(_utc(dt.datetime.fromisoformat(data["time"])), str(data["source"]))
    except (KeyError, TypeError, ValueError):
        return None


def received(course, student: str, ps: str, now: dt.datetime | None = None) -> Received:
    """When the kit received ``student``'s hand-in of ``ps``: the one answer every rule uses.

    The intake's record when it holds for the hand-in's files as they are (:func:`recorded`);
    otherwise ``now`` (default: the current time), recorded as :data:`FALLBACK`. Never reads
    a file of the hand-in for a time.
    """
    return (recorded(course, student, ps)
            or record_received(course, student, ps, now or dt.datetime.now(UTC), FALLBACK))


def received_time(course, student: str, ps: str) -> dt.datetime:
    """:func:`received`'s time as the gradebook and the checks' store hold times: naive UTC."""
    return received(course, student, ps).time.replace(tzinfo=None)


def exchange_time(folder, now: dt.datetime | None = None) -> dt.datetime:
    """A hand-in's time in the exchange's ``inbound/``: the latest ``st_ctime`` of its folder
    and everything in it (a user cannot set one in the past), at most ``now``."""
    now = _utc(now or dt.datetime.now(UTC))
    latest = os.lstat(folder).st_ctime
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            latest = max(latest, os.lstat(os.path.join(dirpath, name)).st_ctime)
    return min(dt.datetime.fromtimestamp(latest, UTC), now)


def zip_entry_time(info, now: dt.datetime | None = None) -> dt.datetime | None:
    """A zip entry's time as the LMS wrote it (None: the zip gives none), at most ``now``.

    The extended timestamp field (``UT``, UTC seconds) when present, else the entry's date
    and time read as UTC; the zip format's zero (1980-01-01 00:00) means no time.
    """
    now = _utc(now or dt.datetime.now(UTC))
    extra, when = info.extra, None
    while len(extra) >= 4 and when is None:
        kind, size = struct.unpack("<HH", extra[:4])
        body, extra = extra[4:4 + size], extra[4 + size:]
        if kind == 0x5455 and len(body) >= 5 and body[0] & 1:
            when = dt.datetime.fromtimestamp(struct.unpack("<i", body[1:5])[0], UTC)
    if when is None and tuple(info.date_time) > (1980, 1, 1, 0, 0, 0):
        when = dt.datetime(*info.date_time, tzinfo=UTC)
    return None if when is None else min(when, now)


class ReceivedTimeDirectory(CourseDirectory):
    """nbgrader's course directory, whose hand-in time is :func:`received_time`.

    nbgrader's autograde records ``get_existing_timestamp(submitted/<student>/<ps>)`` as the
    submission's timestamp (and stops on an unreadable ``timestamp.txt``); here it is the
    time the kit received the hand-in, and ``timestamp.txt`` is never read. Other folders
    have no time.
    """

    def get_existing_timestamp(self, dest_path: str):
        path = Path(os.path.abspath(dest_path))
        submitted = Path(os.path.abspath(self.format_path(self.submitted_directory, ".", ".")))
        if path.parent.parent == submitted.resolve() or path.parent.parent == submitted:
            return received_time(Path(os.path.abspath(self.root)), path.parent.name, path.name)
        return None


class StampReceivedTime(NbGraderPreprocessor):
    """An autograde step (before ``AssignLatePenalties``): the submission's timestamp in the
    gradebook becomes :func:`received_time`, whoever started the grading (plain ``nbgrader
    autograde`` and formgrader's button write the hand-in's ``timestamp.txt`` there first).
    The graded copy's ``timestamp.txt`` (``autograded/``, then ``feedback/``, whose line
    ``nbgrader release_feedback`` prints) becomes that time too: the student's text, escapes
    and all, reaches no terminal from there.
    """

    def preprocess(self, nb, resources):
        from nbgrader.api import Gradebook

        meta = resources.get("nbgrader") or {}
        folder = (resources.get("metadata") or {}).get("path")
        if not (folder and meta.get("db_url") and meta.get("student") and meta.get("assignment")):
            return nb, resources
        root = Path(folder).resolve().parents[2]  # <root>/<step>/<student>/<ps>
        when = received_time(root, meta["student"], meta["assignment"])
        with Gradebook(meta["db_url"]) as gb:
            submission = gb.find_submission(meta["assignment"], meta["student"])
            if submission.timestamp != when:
                submission.timestamp = when
                gb.db.commit()
        for step in ("submitted", "autograded"):
            mirror_timestamp(root / step / meta["student"] / meta["assignment"], when)
        return nb, resources
