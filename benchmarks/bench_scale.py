"""Grading at scale: local processes + sqlite against a Dask LocalCluster + PostgreSQL.

A synthetic class (students drawn in turn from the demo class's hand-ins, renamed) is graded
in the same run of this script:

- (a) ``kit.autograde.grade_class`` with local grading processes and the sqlite gradebook;
- (b) the same class through ``--scheduler local:N`` into a throwaway PostgreSQL 15 server
  (tests/support/postgres.py), or ``--db URL`` of an empty database;

printing notebooks per second per core for each, the gradebook statements per recorded
notebook, and how many notebooks per second the PostgreSQL server records with ``--writers``
concurrent writers (each a process recording a graded notebook's cells over and over).

Usage: ``.venv/bin/python benchmarks/bench_scale.py [--students 10] [--ps ps1_circle_lift ...]``
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import multiprocessing as mp
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kit.autograde import grade_class
from kit.course import Course, copy_course
from kit.engines import dask_client as cluster
from kit.engines import recording
from kit.intake.submitted import lay_class
from kit.release import release
from tests.demo_class import ROSTER

STATEMENTS = [0]


def _count(*_args, **_kwargs):
    STATEMENTS[0] += 1


def synthetic_roster(students: int, assignments) -> dict:
    """``students`` students, each handing in what a demo-class student hands in."""
    names = [(n, w) for n, w in ROSTER.items() if any(a in w for a in assignments)]
    return {f"s{i:05d}_{name}": {a: w[a] for a in assignments if a in w}
            for i, (name, w) in zip(range(students), itertools.cycle(names))}


def _writer(args) -> int:
    url, assignment, result, prefix, count = args
    from nbgrader.api import Gradebook

    with Gradebook(url) as gb:  # one per writer, as the client keeps one over a run
        for i in range(count):
            recording._record_grades(gb, assignment, f"{prefix}_{i}", result)
    return count


def db_throughput(url: str, assignment: str, result: dict, writers: int, each: int) -> float:
    """Notebooks per second recorded by ``writers`` processes writing at once."""
    jobs = [(url, assignment, result, f"w{k}", each) for k in range(writers)]
    with mp.get_context("fork").Pool(writers) as pool:
        start = time.perf_counter()
        done = sum(pool.map(_writer, jobs))
        return done / (time.perf_counter() - start)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=10)
    parser.add_argument("--ps", nargs="+", default=["ps1_circle_lift", "ps4_centering"])
    parser.add_argument("--processes", type=int, default=(os.cpu_count() or 1) + 1,
                        help="grading processes of (a) and Dask workers of (b)")
    parser.add_argument("--db", default=None, help="an empty PostgreSQL database for (b)")
    parser.add_argument("--writers", type=int, default=16)
    parser.add_argument("--each", type=int, default=20, help="notebooks each writer records")
    args = parser.parse_args()
    cores = os.cpu_count() or 1

    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    root = Path(tempfile.mkdtemp(prefix="bench_scale_"))
    a = copy_course(root / "a", args.ps)
    if release(a, args.ps):
        return 1
    roster = synthetic_roster(args.students, args.ps)
    lay_class(a, roster)
    notebooks = sum(len(w) for w in roster.values())

    start = time.perf_counter()
    local = grade_class(a, args.ps, workers=args.processes, progress=False)
    wall_a = time.perf_counter() - start

    with contextlib.ExitStack() as stack:
        url = args.db
        if url is None:
            from tests.support import postgres

            url = stack.enter_context(postgres.server()).createdb("bench")
        b = copy_course(root / "b", args.ps)
        b = Course(b.root, database=url)
        if release(b, args.ps):
            return 1
        lay_class(b, roster)
        captured = []
        real_record = cluster.record_batch

        def record_batch(course, batch, gb):
            before, began = STATEMENTS[0], time.perf_counter()
            real_record(course, batch, gb)
            if batch:  # the statements and seconds of a batch, shared by its notebooks
                share = (STATEMENTS[0] - before) / len(batch), (time.perf_counter() - began) / len(batch)
                captured.extend((a, r, *share) for a, _, r in batch)

        cluster.record_batch = record_batch
        event.listen(Engine, "before_cursor_execute", _count)
        start = time.perf_counter()
        remote = grade_class(b, args.ps, progress=False, scheduler=f"local:{args.processes}")
        wall_b = time.perf_counter() - start
        event.remove(Engine, "before_cursor_execute", _count)
        cluster.record_batch = real_record
        per_nb = sum(c[2] for c in captured) / max(1, len(captured))
        client_rate = len(captured) / max(1e-9, sum(c[3] for c in captured))
        assignment, result, _, _ = captured[0]
        rate = db_throughput(url, assignment, result, args.writers, args.each)

    shutil.rmtree(root, ignore_errors=True)
    same = [(o.student, o.assignment, o.status, o.scores) for o in local] == [
        (o.student, o.assignment, o.status, o.scores) for o in remote]
    failed = [o for o in local if o.status != "graded"]
    print(f"{args.students} students, {notebooks} notebooks ({', '.join(args.ps)}), {cores} cores, "
          f"{args.processes} processes / workers, load average {os.getloadavg()[0]:.2f} at the end")
    print(f"{'run':<36}{'wall s':>8}{'nb/s':>8}{'nb/s/core':>11}")
    for name, wall in (("(a) local processes + sqlite", wall_a),
                       ("(b) LocalCluster + PostgreSQL", wall_b)):
        print(f"{name:<36}{wall:>8.1f}{notebooks / wall:>8.2f}{notebooks / wall / cores:>11.3f}")
    print(f"(b) / (a) per core: {wall_a / wall_b:.2f} (goal >= 0.9); same scores: {same}")
    print(f"gradebook statements per recorded notebook: {per_nb:.0f}; the client (one writer) "
          f"records {client_rate:.1f} notebooks/s (files and gradebook)")
    print(f"PostgreSQL, {args.writers} concurrent writers: {rate:.1f} notebooks recorded per second")
    if failed:  # the demo class's odd hand-ins (a corrupt file, the wrong problem set)
        print(f"{len(failed)} hand-ins not graded in both runs, as in the demo class")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
