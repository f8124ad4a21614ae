"""Step 3 of the pipeline for an LMS course: import the LMS's zip of submissions.

``python -m kit.collect --zip path/to/export.zip ps1_circle_lift`` puts the zip where
``nbgrader zip_collect`` reads it (``downloaded/<ps>/archive/``), runs it, and reports
what landed in ``submitted/<student>/<ps>/<ps>.ipynb`` and what was left out. Each file
is filed by its name, Canvas style (``c.FileNameCollectorPlugin.named_regexp`` in
``nbgrader_config.py``)::

    <student>[_late]_<lms user id>_<submission id>_<ps>[-<n>].ipynb
    ada_reference_4417_90210_ps1_circle_lift.ipynb        -> submitted/ada_reference/...

The checks come before nbgrader touches anything: a missing zip, an unknown problem set,
a zip with no notebook for it, or an earlier import that would be overwritten (``--force``
replaces it) stop with a message naming the problem. Each imported hand-in's time is its zip
entry's time, which the LMS wrote (:mod:`kit.intake.received`). A student with several
files for the problem set gets the latest received by their own due date (and grace), else
the latest (:mod:`kit.intake.choose`), the others recorded as not taken; with no due date
for them (no calendar, exempt) or files of one time, they are skipped, with a line naming
the files; the others are imported. A file that is not a plain file is never imported
(``kit.intake.steps.SafeFileNameCollector``).

A JupyterHub course collects from the exchange with plain ``nbgrader collect <ps>``.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from kit.course import ASSIGNMENTS, REPO_ROOT, Course, prepare_environment
from kit.inert import inert
from kit.intake import choose
from kit.intake.received import record_received, zip_entry_time


class CollectError(RuntimeError):
    """The zip cannot be imported as it is; the message says why."""


@dataclass
class ZipPlan:
    """How the files of one LMS zip map to students.

    Attributes
    ----------
    students : dict
        ``{student: file name in the zip}`` of the notebooks to import.
    ignored : list
        Names that do not match the file-name pattern (nbgrader skips them).
    other_notebook : list
        Names that match the pattern but hold another notebook than ``<ps>.ipynb``.
    twice : dict
        ``{student: [file names]}`` of the students with more than one ``<ps>`` notebook
        that no rule chooses between: not imported (nobody can tell which one they meant).
    chosen : dict
        ``{student: kit.intake.choose.Choice}`` of the students with several notebooks of
        whom the rule took one (by the zip entries' times and their own due date).
    """

    students: dict[str, str] = field(default_factory=dict)
    ignored: list[str] = field(default_factory=list)
    other_notebook: list[str] = field(default_factory=list)
    twice: dict[str, list[str]] = field(default_factory=dict)
    chosen: dict = field(default_factory=dict)  # {student: kit.intake.choose.Choice}


#: a name in the zip longer than this, or whose last part is over 255 characters, is not a
#: notebook a file system can hold: it is listed as not imported, and the course's pattern
#: never reads it
NAME_LIMIT = 1024


def name_pattern(course: Course) -> str:
    """The course's file-name pattern (``FileNameCollectorPlugin.named_regexp``)."""
    pattern = str(course.config().FileNameCollectorPlugin.get("named_regexp", ""))
    if not pattern:
        config = course.root / "nbgrader_config.py"
        raise CollectError(f"no c.FileNameCollectorPlugin.named_regexp in {config}")
    return pattern


def plan(names, pattern: str, assignment: str, where: str = "") -> ZipPlan:
    """Sort the file names of a zip as ``nbgrader zip_collect --strict`` will file them.

    nbgrader matches the pattern against the path of each extracted file: ``where`` is the
    folder the zip is extracted into (the names alone are matched when it is empty). A
    student whose name is on two files goes to ``twice``, not to ``students``.
    """
    result = ZipPlan()
    seen: dict[str, list[str]] = {}
    for name in names:
        if name.endswith("/"):
            continue
        if len(name) > NAME_LIMIT or len(name.rsplit("/", 1)[-1]) > 255:  # no file system
            # holds such a name; the pattern (whose time grows fast with a name's length)
            # is not tried on it
            result.ignored.append(name)
            continue
        match = re.match(pattern, f"{where.rstrip('/')}/{name}" if where else name)
        if match is None:
            result.ignored.append(name)
        elif match["file_id"] != assignment:
            result.other_notebook.append(name)
        else:
            seen.setdefault(match["student_id"], []).append(name)
    result.twice = {s: files for s, files in sorted(seen.items()) if len(files) > 1}
    result.students = {s: files[0] for s, files in sorted(seen.items()) if len(files) == 1}
    return result


def _check(course: Course, assignment: str, zip_path: Path) -> None:
    if assignment not in ASSIGNMENTS:
        raise CollectError(f"unknown problem set {assignment!r}; known: {', '.join(ASSIGNMENTS)}")
    if not course.notebook("release", assignment).exists():
        raise CollectError(f"{assignment} has no release/ yet: run `make release` first")
    if not zip_path.is_file():
        raise CollectError(f"no such zip file: {zip_path}")
    if not zipfile.is_zipfile(zip_path):
        raise CollectError(f"{zip_path} is not a zip archive")


def settle(result: ZipPlan, archive: zipfile.ZipFile, due, now: datetime) -> None:
    """Take one notebook of each student in ``result.twice`` by the rule of
    :mod:`kit.intake.choose`, when ``due(student)`` gives their due date and grace (None:
    no rule, they stay in ``twice``) and every file has an LMS time; a tie stays too."""
    for student, names in list(result.twice.items()):
        own = due(student) if due else None
        times = [zip_entry_time(archive.getinfo(n), now) for n in names]
        if own is None or None in times:
            continue
        choice = choose.choose([choose.Candidate(n, t) for n, t in zip(names, times)], *own)
        if choice.taken is not None:
            del result.twice[student]
            result.students[student] = choice.taken.key
            result.chosen[student] = choice
    result.students = dict(sorted(result.students.items()))


def _copy_chosen(zip_path: Path, dest: Path, result: ZipPlan) -> None:
    """``zip_path`` as it is, less the notebooks the rule did not take (entries and their
    times kept), so nbgrader's import sees one notebook per student."""
    dropped = {c.key for choice in result.chosen.values() for c in choice.others}
    if not dropped:
        shutil.copyfile(zip_path, dest)
        return
    with zipfile.ZipFile(zip_path) as src, zipfile.ZipFile(dest, "w") as out:
        for info in src.infolist():
            if info.filename not in dropped:
                with src.open(info) as fin, out.open(info, "w") as fout:
                    shutil.copyfileobj(fin, fout)


def import_zip(course: Course, assignment: str, zip_path, force: bool = False,
               due=None) -> ZipPlan:
    """Import an LMS export of ``assignment`` into ``submitted/`` with ``nbgrader zip_collect``.

    Parameters
    ----------
    course : Course
        The course directory (its ``nbgrader_config.py`` holds the file-name pattern).
    assignment : str
        The problem set the zip holds, e.g. ``"ps1_circle_lift"``.
    zip_path : path
        The zip as the LMS exports it: one notebook per student, names in the pattern.
    force : bool
        Replace an earlier import of ``assignment`` (``downloaded/<ps>/``) and the
        ``submitted/`` folders of the students in this zip.
    due : callable, optional
        ``due(student)``: their own due date (aware) and grace in seconds, or None
        (:func:`kit.term.intake.due_of` gives the course calendar's): a student with several
        notebooks gets the latest received by then (:func:`settle`); without it, or for a
        student without a due date, several notebooks are not imported.

    Returns
    -------
    ZipPlan
        Who was imported, and the files left out.

    Raises
    ------
    CollectError
        Before anything is written when the zip or the course is not as expected; after
        ``zip_collect`` when it fails or a student's notebook did not arrive.
    """
    zip_path = Path(zip_path).resolve()
    _check(course, assignment, zip_path)
    downloaded = course.root / "downloaded" / assignment
    archive_dir = downloaded / "archive"
    imported_at = datetime.now(timezone.utc)
    with zipfile.ZipFile(zip_path) as archive:  # zip_collect extracts it to extracted/<zip name>/
        result = plan(archive.namelist(), name_pattern(course), assignment,
                      where=str(downloaded / "extracted" / zip_path.stem))
        settle(result, archive, due, imported_at)
    if not result.students and result.twice:
        raise CollectError(f"nothing to import from {zip_path.name}:\n"
                           + report(result, assignment))
    if not result.students:
        raise CollectError(
            f"no file in {zip_path.name} is a {assignment} notebook named like "
            f"<student>_<lms user id>_<submission id>_{assignment}.ipynb; it holds: "
            + _listed(result.ignored + result.other_notebook))
    if not force:
        earlier = [downloaded / step for step in ("archive", "extracted")]
        earlier += [course.root / "submitted" / s / assignment for s in result.students]
        earlier = [p for p in earlier if p.is_dir() and any(p.iterdir())]
        if earlier:
            listed = "".join(f"\n  {p.relative_to(course.root)}" for p in earlier)
            raise CollectError(
                f"an earlier import of {assignment} is there; --force replaces it:{listed}")
    shutil.rmtree(archive_dir, ignore_errors=True)
    archive_dir.mkdir(parents=True)
    _copy_chosen(zip_path, archive_dir / zip_path.name, result)
    _zip_collect(course, assignment, force)
    missing = [s for s in result.students
               if not course.notebook("submitted", assignment, s).exists()]
    if missing:
        raise CollectError("nbgrader zip_collect did not file the notebooks of "
                           + ", ".join(inert(s) for s in missing))
    _record_times(course, assignment, zip_path, result, imported_at)
    return result


def _record_times(course: Course, assignment: str, zip_path: Path, result: ZipPlan,
                  imported_at: datetime) -> None:
    """Each imported hand-in's time: its zip entry's, as the LMS wrote it (the import's time
    when the zip gives none); never a file inside the hand-in (:mod:`kit.intake.received`)."""
    with zipfile.ZipFile(zip_path) as archive:
        for student, name in result.students.items():
            when = zip_entry_time(archive.getinfo(name), imported_at)
            source = (f"LMS export {zip_path.name}: the zip entry's time" if when is not None
                      else f"LMS export {zip_path.name} (no time in the zip): the import's time")
            choice = result.chosen.get(student)
            record_received(course, student, assignment, when or imported_at, source,
                            choose.record_of(choice) if choice else None)


def _zip_collect(course: Course, assignment: str, force: bool) -> None:
    prepare_environment()
    command = [sys.executable, "-m", "nbgrader", "zip_collect", "--strict", assignment]
    if force:
        command.append("--force")
    done = subprocess.run(command, cwd=course.root, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        log = (done.stdout + done.stderr).splitlines()
        errors = [line for line in log if "CRITICAL" in line or "ERROR" in line] or log[-5:]
        raise CollectError("nbgrader zip_collect failed:\n  " + "\n  ".join(inert(e) for e in errors))


def _listed(names: list[str], most: int = 20) -> str:
    shown = ", ".join(inert(n, limit=200) for n in names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def report(result: ZipPlan, assignment: str) -> str:
    """The lines a TA reads after an import."""
    names = ", ".join(inert(s) for s in result.students)
    lines = [f"imported {len(result.students)} submissions of {assignment}: {names}"]
    lines += [f"  ! not imported, name not in the pattern: {inert(n, limit=200)}" for n in result.ignored]
    lines += [f"  ! not imported, not a {assignment} notebook: {inert(n, limit=200)}"
              for n in result.other_notebook]
    lines += [f"  ! not imported, {len(files)} {assignment} notebooks for {inert(s)} (keep one "
              f"and import again): {_listed(files)}"
              for s, files in result.twice.items()]
    lines += ["  " + line for s, choice in result.chosen.items()
              for line in choose.describe(s, choice)]
    return "\n".join(lines)


def main(argv=None, due_of=None) -> int:
    """The command; ``due_of(course, ps)`` gives :func:`import_zip`'s ``due`` (``python -m
    kit.collect`` passes the calendar's, :func:`kit.term.intake.due_of`)."""
    parser = argparse.ArgumentParser(prog="python -m kit.collect",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("assignment", help="the problem set the zip holds, e.g. ps1_circle_lift")
    parser.add_argument("--zip", required=True, type=Path, help="the LMS's zip of submissions")
    parser.add_argument("--force", action="store_true",
                        help="replace an earlier import and these students' submitted/ folders")
    args = parser.parse_args(argv)
    try:
        course = Course(REPO_ROOT)
        result = import_zip(course, args.assignment, args.zip, force=args.force,
                            due=due_of(course, args.assignment) if due_of else None)
    except (CollectError, ValueError) as exc:
        print(f"kit.intake.collect: {exc}", file=sys.stderr)
        return 2
    print(report(result, args.assignment))
    return 0


if __name__ == "__main__":
    sys.exit(main())
