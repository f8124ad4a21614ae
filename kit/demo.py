"""The main job (``make demo``): release, lay the demo class, grade it, and report.

1. regenerate ``release/`` from ``source/``;
2. lay the demo class (``tests/demo_class.py``) into ``submitted/``;
   with the first three weeks of a term on a simulated clock (:mod:`kit.demo_term`): due
   dates, a late policy, an extension and the time each hand-in arrived;
3. autograde every problem set on all cores (the late policy applied);
4. write a feedback page per graded submission into ``feedback/`` (same workers);
5. export ``reports/grades.csv``, write ``reports/class_report.html``;
6. hand out one problem set's worked solutions where the clock allows, write one student's
   overview page;
7. print what could not be graded, then the grade table and the paths of what it wrote.

Running it twice gives the same grades.
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

from kit.autograde import grade_class
from kit.course import ASSIGNMENTS, REPO_ROOT, Course
from kit.demo_term import after_grading, hand_in_times, set_calendar
from kit.gradebook.export import rows, write_csv
from kit.gradebook.parts import write_by_part
from kit.intake.submitted import lay_class
from kit.release import release
from kit.report.page import write_report


def grade_table(course: Course, outcomes) -> str:
    """Students by problem set: score/max, '-' when not submitted, '!' when it failed."""
    table = {}
    maxima = {}
    for row in rows(course, outcomes):
        table.setdefault(row["student"], {})[row["assignment"]] = row
        maxima[row["assignment"]] = row["max_score"]
    names = [a for a in ASSIGNMENTS if a in maxima]
    width = max(len(s) for s in table) if table else 7
    head = "student".ljust(width) + "".join(f"{a[:3]:>9}" for a in names) + "    total"
    lines = [head, " " * width + "".join(f"{'/' + format(maxima[a], 'g'):>9}" for a in names)]
    for student, cells in sorted(table.items()):
        marks = []
        for a in names:
            row = cells.get(a)
            status = row["status"] if row else "not submitted"
            marks.append("-" if status == "not submitted" else
                         f"{_after_late(row):g}" + ("!" if status.startswith("failed") else "")
                         + ("L" if _after_late(row) != row["score"] else ""))
        total = sum(_after_late(cells[a]) for a in names if a in cells)
        lines.append(student.ljust(width) + "".join(f"{m:>9}" for m in marks) + f"{total:>9g}")
    lines.append("('-' not submitted, '!' could not be fully graded, 'L' after a late penalty; "
                 "written answers are graded by hand)")
    return "\n".join(lines)


def _after_late(row: dict) -> float:
    """A row's score after its late penalty (the score itself when nothing was taken)."""
    after = row.get("score_after_late")
    return row["score"] if after in (None, "") else float(after)


def written(paths: dict[str, Path]) -> str:
    """One line per thing written, ``label: path`` (relative to the working directory if inside it)."""
    here = Path.cwd()
    width = max(len(label) for label in paths) + 1
    lines = []
    for label, path in paths.items():
        path = Path(path).resolve()
        shown = path.relative_to(here) if path.is_relative_to(here) else path
        lines.append(f"{label + ':':<{width}} {shown}{'/' if path.is_dir() else ''}")
    return "\n".join(lines)


def closing(course: Course, outcomes, paths: dict[str, Path], seconds: float) -> str:
    """What ``make demo`` prints last: what could not be graded, the grade table, the paths."""
    failed = [o for o in outcomes if o.status == "failed"]
    lines = [(f"{sum(o.status == 'graded' for o in outcomes)} notebooks graded, {len(failed)} could "
              f"not be graded, in {seconds:.0f} s")]
    lines += [f"  ! {o.student} / {o.assignment}: {o.message}" for o in failed]
    return "\n".join([*lines, "", grade_table(course, outcomes), "", written(paths)])


def run(course: Course, workers=None, fresh=True) -> list:
    """Run the whole pipeline on the demo class; print a summary ending with the grade table
    and the paths of what it wrote; return the outcomes."""
    start = time.perf_counter()
    if fresh:
        _forget_demo_gradebook(course)
    if release(course):
        raise SystemExit("release failed: see the messages above")
    if fresh:
        for step in ("submitted", "received", "autograded", "feedback", "solutions"):
            shutil.rmtree(course.root / step, ignore_errors=True)
    lay_class(course)
    # after the class is laid: an extension names a student the course knows
    print("the term's calendar (python -m kit.term show):", *set_calendar(course), sep="\n  ")
    hand_in_times(course)
    outcomes = grade_class(course, workers=workers, feedback=True)
    csv_path = write_csv(course, outcomes)
    write_by_part(course, outcomes)
    report = write_report(course, outcomes)
    print()
    print("\n".join(after_grading(course, workers)))
    print()
    print(closing(course, outcomes, {"feedback": course.root / "feedback", "grades": csv_path,
                                     "report": report,
                                     "copying": course.root / "reports" / "copying.csv",
                                     "solutions": course.root / "solutions",
                                     "overview": course.root / "reports" / "overview"},
                  time.perf_counter() - start))
    return outcomes


def _forget_demo_gradebook(course: Course) -> None:
    """Remove the course's sqlite gradebook when it holds the demo class alone: a run of an
    earlier version graded cells the release may have changed since, and nbgrader refuses to
    release a problem set whose graded cells changed under graded hand-ins. A gradebook with
    any other student (or on a server) is a real course's, and is left alone."""
    import sqlite3
    from contextlib import closing

    from tests.demo_class import ROSTER

    path = course.root / "gradebook.db"
    if not path.is_file() or course.db_url != f"sqlite:///{path}":
        return
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            students = {row[0] for row in db.execute("SELECT id FROM student")}
    except sqlite3.Error:
        return  # not a gradebook the demo understands: nbgrader will say what is wrong
    if students <= set(ROSTER):
        path.unlink()


def main() -> int:
    run(Course(REPO_ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
