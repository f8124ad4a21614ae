"""Recording graded notebooks in the gradebook: nbgrader's ORM against the kit's batches.

A released course's gradebook (one problem set, its real cells) records the same synthetic
results, in the same run of this script, (a) one notebook at a time through nbgrader's ORM
(:func:`kit.engines.recording._record_grades`, what the cluster client did before: about 37
statements and a commit per notebook) and (b) in batches through
:func:`kit.engines.gradebook_bulk.record_many`, into sqlite and into a throwaway PostgreSQL 15 server
(tests/support/postgres.py) or ``--db URL`` of an empty database. Both count new students
(a first grading) and a second pass over the same students (re-grading). Printed: notebooks
per second of each, and (b) / (a).

Usage: ``.venv/bin/python benchmarks/bench_recording.py [--notebooks 600] [--batch 100]``
"""

from __future__ import annotations

import argparse
import contextlib
import random
import shutil
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kit.course import Course, copy_course, quiet_gradebook
from kit.engines.gradebook_bulk import record_many
from kit.engines.recording import _record_grades
from kit.gradebook import move as gradebook_move
from kit.release import release

#: When the course received every synthetic hand-in (the submissions' timestamp).
RECEIVED = datetime(2026, 11, 20, 12, 0, 0)


def synthetic(course: Course, assignment: str, students: list[str], seed: int) -> list:
    from nbgrader.api import Gradebook

    with Gradebook(course.db_url) as gb:
        nb = gb.find_notebook(assignment, assignment)
        grades = [c.name for c in nb.grade_cells]
        solutions = [c.name for c in nb.solution_cells]
    rng = random.Random(seed)
    return [(assignment, s, {"files": {"timestamp.txt": b"2026-11-20 12:00:00.000000 UTC"},
                             "grades": {g: round(rng.random() * 3, 2) for g in grades},
                             "comments": dict.fromkeys(solutions)}) for s in students]


def orm(url: str, items: list) -> float:
    from nbgrader.api import Gradebook

    with Gradebook(url) as gb:
        start = time.perf_counter()
        for assignment, student, result in items:
            _record_grades(gb, assignment, student, result, RECEIVED)
        return time.perf_counter() - start


def bulk(url: str, items: list, size: int) -> float:
    from nbgrader.api import Gradebook

    with Gradebook(url) as gb:
        start = time.perf_counter()
        for i in range(0, len(items), size):
            batch = items[i:i + size]
            record_many(gb, batch, {(a, s): RECEIVED for a, s, _ in batch})
        return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notebooks", type=int, default=600)
    parser.add_argument("--orm-notebooks", type=int, default=150,
                        help="notebooks for the ORM baseline (it is slow)")
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--ps", default="ps1_circle_lift")
    parser.add_argument("--db", default=None, help="an empty PostgreSQL database")
    args = parser.parse_args()
    quiet_gradebook()
    root = Path(tempfile.mkdtemp(prefix="bench_recording_"))
    template = copy_course(root / "template", [args.ps])
    if release(template, [args.ps]):
        return 1
    rows = []
    with contextlib.ExitStack() as stack:
        pg = None if args.db else stack.enter_context(_server())
        for kind in ("sqlite", "postgresql"):
            rates = {}
            for way, count in (("orm", args.orm_notebooks), ("bulk", args.notebooks)):
                folder = root / f"{kind}-{way}"
                shutil.copytree(template.root, folder)
                course = Course(folder)
                if kind == "postgresql":
                    url = args.db if args.db else pg.createdb(f"bench_{way}")
                    gradebook_move.move(course.db_url, url)
                    course = Course(folder, database=url)
                students = [f"s{i:05d}" for i in range(count)]
                seconds = 0.0
                for seed in (1, 2):  # a first grading (new students), then re-grading
                    items = synthetic(course, args.ps, students, seed)
                    seconds += (orm(course.db_url, items) if way == "orm"
                                else bulk(course.db_url, items, args.batch))
                rates[way] = 2 * count / seconds
            rows.append((kind, rates["orm"], rates["bulk"]))
    shutil.rmtree(root, ignore_errors=True)
    print(f"recording {args.ps} notebooks (first grading + re-grading), batches of {args.batch}")
    print(f"{'gradebook':<12}{'(a) ORM nb/s':>14}{'(b) batches nb/s':>18}{'(b) / (a)':>11}")
    for kind, a, b in rows:
        print(f"{kind:<12}{a:>14.1f}{b:>18.1f}{b / a:>11.1f}")
    print("goal: (b) at least 200 notebooks/s into each")
    return 0


@contextlib.contextmanager
def _server():
    from tests.support import postgres

    with postgres.server() as srv:
        yield srv


if __name__ == "__main__":
    sys.exit(main())
