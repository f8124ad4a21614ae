"""nbgrader's intake steps, refusing links, FIFOs and devices (see :mod:`kit.intake.safefiles`).

Named in ``nbgrader_config.py``, so plain nbgrader commands in the course directory use them:

* :class:`SafeCollect` (``c.ExchangeFactory.collect``): ``nbgrader collect`` (and
  formgrader's *Collect*) copies each hand-in from the exchange's ``inbound/`` with
  :func:`kit.intake.safefiles.copy_tree`; a hand-in holding a link, a FIFO or a device is not
  collected, with one line naming the student and the file; the others are. Of a student's
  hand-ins, the one taken is the latest received by their due date (and grace), else the
  latest (:mod:`kit.intake.choose`; the due date from :class:`kit.term.intake.TermCollect`,
  none here), by the time the exchange received each
  (:func:`kit.intake.received.exchange_time`, never the time in the folder's name, which
  the student writes); that time, and the hand-ins not taken, are recorded outside the
  hand-in (:mod:`kit.intake.received`).
* :class:`SafeFileNameCollector` (``c.ZipCollectApp.collector_plugin``): ``nbgrader
  zip_collect`` files a notebook only when it is a plain file, and skips, with one line, a
  student with two files for one notebook (nbgrader would stop the whole import).
* :class:`CheckSubmittedFiles` (first of ``c.Autograde.sanitize_preprocessors``): before a
  notebook is graded, the student's ``submitted/<student>/<ps>/`` folder is checked again
  (files laid there by hand); if it holds anything but plain files, that submission is not
  graded (no kernel starts, no score is saved) and the others are.
"""

from __future__ import annotations

import datetime as dt
import glob
import os
import re
import shutil
from pathlib import Path

from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.plugins import FileNameCollectorPlugin
from nbgrader.preprocessors import NbGraderPreprocessor
from nbgrader.utils import check_mode, ignore_patterns

from kit.inert import inert
from kit.intake import choose, safefiles
from kit.intake import received as received_times

__all__ = ["CheckSubmittedFiles", "SafeCollect", "SafeFileNameCollector"]


class SafeCollect(ExchangeCollect):
    """``nbgrader collect`` that copies only plain files and folders from ``inbound/``, orders
    a student's hand-ins by the time the exchange received them, and records that time."""

    def _path_to_record(self, path):
        """A hand-in's record, its time the exchange's (``<student>+<ps>+<time>[+<random>]``:
        the name's time is the student's to write, and is not read)."""
        filename = os.path.split(path)[1]
        parts = filename.rsplit("+", 3)
        if len(parts) < 3:
            self.fail(f"Invalid filename: {filename}")
        try:
            when = received_times.exchange_time(path, self._collect_time)
        except OSError:  # gone since the listing: the oldest, never chosen over another
            when = dt.datetime.min.replace(tzinfo=dt.timezone.utc)
        return {"username": parts[0], "filename": filename, "timestamp": when.replace(tzinfo=None)}

    def due(self, student: str) -> tuple[dt.datetime, float] | None:
        """``student``'s own due date (aware) and the grace after it in seconds, or None: the
        intake knows no calendar (:class:`kit.term.intake.TermCollect` does)."""
        return None

    def init_src(self):
        """Each student's hand-in by the rule of :mod:`kit.intake.choose` (the latest received
        by their due date and grace, else the latest), from the exchange's times."""
        self._collect_time = dt.datetime.now(dt.timezone.utc)
        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        self.course_path = os.path.join(self.root, self.coursedir.course_id)
        self.inbound_path = os.path.join(self.course_path, "inbound")
        if not os.path.isdir(self.inbound_path):
            self.fail(f"Course not found: {self.inbound_path}")
        if not check_mode(self.inbound_path, read=True, execute=True):
            self.fail(f"You don't have read permissions for the directory: {self.inbound_path}")
        student = self.coursedir.student_id or "*"  # nbgrader's --student is a glob
        pattern = os.path.join(glob.escape(self.inbound_path),
                               f"{student}+{glob.escape(self.coursedir.assignment_id)}+*")
        by_student: dict = {}
        for path in glob.glob(pattern):
            record = self._path_to_record(path)
            by_student.setdefault(record["username"], []).append(record)
        self._drop_forged(by_student)
        self.src_records, self._passed = [], {}
        for username, records in sorted(by_student.items()):
            due = self.due(username)
            candidates = {id(r): choose.Candidate(r["filename"], r["timestamp"].replace(
                tzinfo=dt.timezone.utc)) for r in records}
            choice = choose.choose(candidates.values(), *(due or (None, 0.0)))
            for line in choose.describe(username, choice):
                (self.log.info if choice.taken else self.log.warning)(line)
            if choice.taken is not None:
                self.src_records.append(next(r for r in records if candidates[id(r)] is choice.taken))
                self._passed[username] = (choice.taken.time, choose.record_of(choice))

    def _drop_forged(self, by_student: dict) -> None:
        """Leave out each hand-in whose folder another student owns (one who handed in under
        her own name, or the gradebook knows): ``inbound/`` is writable by every student, and
        a folder named ``bob+<ps>+...`` made by ada, later than bob's own, would be taken for
        bob. Where students share one OS account (or ``check_owner`` is off) owners name no
        student and nothing is left out."""
        if not self.check_owner:
            return
        students = {os.path.basename(p).split("+", 1)[0]
                    for p in glob.glob(os.path.join(glob.escape(self.inbound_path), "*+*"))}
        try:  # and the gradebook's: a student who never handed in under her own name
            from nbgrader.api import Gradebook

            with Gradebook(self.coursedir.db_url) as gb:
                students |= {s.id for s in gb.students}
        except Exception:  # noqa: BLE001 - no gradebook yet: the exchange's names alone
            self.log.debug("collect: no gradebook to name the students from")
        for username, records in list(by_student.items()):
            kept = []
            for record in records:
                owner = _owner(os.path.join(self.inbound_path, record["filename"]))
                if owner is not None and owner != username and owner in students:
                    self.log.error(f"not taken: {inert(record['filename'], limit=120)} is named "
                                   f"for {inert(username)} but belongs to another student, "
                                   f"{inert(owner)}")
                else:
                    kept.append(record)
            by_student[username] = kept
            if not kept:
                del by_student[username]

    def _recorded_time(self, dest_path):
        """The time recorded for what ``submitted/<student>/<ps>`` holds (None: no record for
        these files): what stock collect compares a newer hand-in with."""
        student = Path(dest_path).parent.name
        found = received_times.recorded(self.coursedir.root, student, Path(dest_path).name)
        if found is None:
            return None
        taken = self._passed.get(student, (None,))[0]
        if taken is not None and found.time != taken:  # not what the rule takes: --update
            return dt.datetime.min  # replaces it (stock collect copies only a newer time)
        return found.time.replace(tzinfo=None)

    def copy_files(self):
        kept = []
        for record in self.src_records:
            found = safefiles.problems(os.path.join(self.inbound_path, record["filename"]))
            if found:
                self.log.error(safefiles.refusal_line(record["username"], found))
            else:
                kept.append(record)
        self.src_records = kept
        self._times = {os.path.join(self.inbound_path, r["filename"]): r["timestamp"] for r in kept}
        # stock collect compares a new hand-in with the time in submitted/'s timestamp.txt
        # (and stops on a garbled one): compare with the recorded time instead
        self.coursedir.get_existing_timestamp = self._recorded_time
        try:
            super().copy_files()
        finally:
            del self.coursedir.get_existing_timestamp

    def do_copy(self, src, dest, log=None):
        size = self.get_size(src)
        if size > 1000 * self.coursedir.max_dir_size:
            self.log.error("Directory size is too big")
            raise RuntimeError(f"Directory size is too big. Size is {size}, maximum size is "
                               f"{1000 * self.coursedir.max_dir_size}")
        ignore = ignore_patterns(exclude=self.coursedir.ignore, include=self.coursedir.include,
                                 max_file_size=self.coursedir.max_file_size, log=self.log)
        try:
            safefiles.copy_tree(src, dest, ignore=ignore)
        except safefiles.UnsafeFiles as exc:  # changed since the check: keep nothing of it
            shutil.rmtree(dest, ignore_errors=True)
            self.log.error(safefiles.refusal_line(Path(src).name.split("+")[0], exc.found))
            return
        # the student owns her folder in inbound/ and may write into it between the listing
        # and this copy (she can watch it being read): the time is also the latest change
        # seen after the copy, so nothing copied is older in the record than it was in fact
        listed = self._times.get(src)
        after = received_times.exchange_time(src, max(dt.datetime.now(dt.timezone.utc),
                                                       self._collect_time))
        when = after if listed is None else max(listed.replace(tzinfo=dt.timezone.utc), after)
        student = Path(dest).parent.name
        received_times.record_received(
            self.coursedir.root, student, Path(dest).name, when,
            "exchange collect: the latest inode change (ctime) of the hand-in in inbound/",
            self._passed.get(student, (None, None))[1])
        if self.coursedir.groupshared:  # as nbgrader's own do_copy
            for dirpath, _, filenames in os.walk(dest):
                _add_mode(dirpath, 0o2770, 0o2777, self.log)
                for name in filenames:
                    _add_mode(os.path.join(dirpath, name), 0o660, 0o777, self.log)


def _owner(path: str) -> str | None:
    """The name of the OS user owning ``path`` (None: no such user, or no such file)."""
    try:
        import pwd

        return pwd.getpwuid(os.lstat(path).st_uid).pw_name
    except (ImportError, KeyError, OSError):
        return None


def _add_mode(path: str, bits: int, mask: int, log) -> None:
    mode = os.stat(path).st_mode
    if mode & bits != bits:
        try:
            os.chmod(path, (mode | bits) & mask)
        except PermissionError:
            log.warning("Could not update permissions of %s to make it groupshared", path)


class SafeFileNameCollector(FileNameCollectorPlugin):
    """nbgrader's file-name collector that skips links and students with two files."""

    def _counts(self, submitted_file: str) -> dict:
        folder = self._extracted_root(submitted_file)
        if getattr(self, "_counted", (None,))[0] != folder:
            counts: dict = {}
            for dirpath, _, filenames in os.walk(folder):
                for name in filenames:
                    path = os.path.join(dirpath, name)
                    match = re.match(self.named_regexp, path) if self.named_regexp else None
                    if match and os.path.splitext(name)[1] in self.valid_ext:
                        key = (match["student_id"], _notebook(match["file_id"]))
                        counts.setdefault(key, []).append(name)
            self._counted = (folder, counts)
        return self._counted[1]

    def _extracted_root(self, submitted_file: str) -> str:
        app = self.parent
        try:
            return app._format_collect_path(app.extracted_directory)
        except AttributeError:
            return os.path.dirname(submitted_file)

    def collect(self, submitted_file):
        info = super().collect(submitted_file)
        if not info:
            return info
        name = os.path.basename(submitted_file)
        what = safefiles.describe(os.lstat(submitted_file))
        if what:
            self.log.error(safefiles.refusal_line(info["student_id"], [f"{name} {what}"],
                                                  action="not imported"))
            return None
        files = self._counts(submitted_file).get((info["student_id"], _notebook(info["file_id"])), [])
        if len(files) > 1:
            self.log.error(f"not imported: {inert(info['student_id'])}: {len(files)} files for "
                           f"one notebook ({', '.join(inert(f) for f in sorted(files))}); keep "
                           "one and import again")
            return None
        return info


def _notebook(file_id: str) -> str:
    return re.sub(r"\.ipynb$", "", file_id)


class CheckSubmittedFiles(NbGraderPreprocessor):
    """Refuse to grade a submission whose folder holds links, FIFOs or devices.

    It runs on the submitted notebook (the first sanitizing step of autograde), whose
    folder is ``submitted/<student>/<ps>/``.
    """

    def preprocess(self, nb, resources):
        folder = (resources.get("metadata") or {}).get("path")
        student = (resources.get("nbgrader") or {}).get("student", "?")
        found = safefiles.submission_problems(folder) if folder else []
        if found:
            line = safefiles.refusal_line(student, found, action="not graded")
            self.log.error(line)
            raise safefiles.UnsafeFiles([line])
        return nb, resources
