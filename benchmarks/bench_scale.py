"""Grading at scale: where the CPU goes, local grading against a Dask cluster, and how far it goes.

A synthetic class (students drawn in turn from the demo class's hand-ins, renamed) is graded
twice in the same run of this script:

- (a) local grading (``kit.autograde.grade_class``, ``--processes`` grading processes, sqlite),
  in a process of its own; then the first half of the class alone, in a course of its own,
  which splits local grading's CPU into a run's start and each notebook's share (the
  projection to a large class counts the start once);
- (b) on a Dask cluster of this machine started as ``dask scheduler`` and ``dask worker``
  would be (separate processes, ``--processes`` one-thread workers, each with its own
  temporary root), this process being the client, into a throwaway PostgreSQL 15 server
  (tests/support/postgres.py), or ``--db URL`` of an empty database.

CPU is counted per process kind (benchmarks/scale_cluster.py, kit/engines/cputime.py): the
workers with their sandboxed kernels, the client, the scheduler, the database, and local
grading's whole tree, per graded notebook (with ``--db``, the database's is not counted).
The machine's busy CPU over the two local runs is measured too (``/proc/stat``: run this on
an otherwise idle machine), a check on the trees (they missed every warm kernel, killed
unreaped, until its init reaped it), and the 1,000 x 7 projection's goal is judged on it.
Dask workers and the scheduler also cost CPU at rest, measured over idle windows before
grading; on this shared machine it adds up over a long wall time, so the goals are judged
as measured and on cores of their own (scale_projection.py). Goals: the workers' CPU per
notebook within 10% of local grading's, client + scheduler + database at most 5% of it. Then the gradebook's
recording rate in batches (``record_many``) into sqlite and PostgreSQL, and projections to
1,000 students x 7 problem sets on this machine and 30,000 x 7 on 50 and 200 worker cores,
computed from this run's rates (benchmarks/scale_projection.py).

Usage: ``.venv/bin/python benchmarks/bench_scale.py [--students 10] [--ps ps1_circle_lift ...]``
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_recording import bulk, synthetic
from scale_cluster import Cluster, grade_locally
from scale_projection import Measured, per_notebook, projections

from kit.autograde import grade_class
from kit.course import ASSIGNMENTS, Course, copy_course, quiet_gradebook
from kit.engines import cputime
from kit.engines import dask_client as cluster_engine
from kit.intake.submitted import lay_class
from kit.release import release
from tests.demo_class import ROSTER, other_problem_set

STATEMENTS = [0]
#: Seconds of each idle window before grading: the scheduler's and workers' cost at rest.
IDLE_SECONDS = 4.0


def _count(*_args, **_kwargs):
    STATEMENTS[0] += 1


def synthetic_roster(students: int, assignments) -> dict:
    """``students`` students, each handing in what a demo-class student hands in.

    A hand-in of the previous problem set (:func:`tests.demo_class.other_problem_set`) is
    left out unless that problem set is graded too: its release is not in the course.
    """
    def usable(a, what) -> bool:
        return what is not other_problem_set or ASSIGNMENTS[ASSIGNMENTS.index(a) - 1] in assignments

    work = {n: {a: w[a] for a in assignments if a in w and usable(a, w[a])}
            for n, w in ROSTER.items()}
    names = [(n, w) for n, w in work.items() if w]
    return {f"s{i:05d}_{name}": w for i, (name, w) in zip(range(students), itertools.cycle(names))}


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def record_rate(course: Course, assignment: str, count: int, batch: int) -> float:
    """Notebooks per second recorded by ``record_many`` (new students, then again)."""
    students = [f"r{i:05d}" for i in range(count)]
    seconds = sum(bulk(course.db_url, synthetic(course, assignment, students, seed), batch)
                  for seed in (1, 2))
    return 2 * count / seconds


def idle_cpu(cluster: Cluster, db_pids) -> dict[str, float]:
    """``{kind: CPU s}`` over :data:`IDLE_SECONDS` with nothing to do."""
    kinds = {**cluster.pids(), "database": db_pids}
    time.sleep(1.0)  # what was starting has settled
    before = cputime.snapshot(kinds)
    time.sleep(IDLE_SECONDS)
    return {k: v - before[k] for k, v in cputime.snapshot(kinds).items()}


def _prepare(bundle: dict, assignments: list) -> int:
    """On a worker: its course for ``bundle``, each problem set released, as a first job
    makes them (sent by value: this script is not on the workers)."""
    from kit.engines.dask_worker import _course

    for assignment in assignments:
        _course(bundle, assignment)
    return len(assignments)


def set_up_workers(cluster: Cluster, course: Course, assignments) -> None:
    """What a worker does once per course: imports, its own course, every problem set released."""
    from distributed import Client

    from kit.engines.dask_worker import course_bundle
    from kit.secret import course_secret

    course_secret(course.root)
    with Client(cluster.address) as client:
        client.run(_prepare, course_bundle(course, sorted(assignments)), sorted(assignments))


def grade_on_cluster(course: Course, assignments, processes: int, root: Path, db_pids) -> dict:
    """Grade on a cluster of this machine: outcomes, wall s and CPU s per process kind.

    ``cpu``: over kit.autograde's run; ``steady``: the client's, the scheduler's and the
    database's from the first result on (the run's set-up left out), for ``steady_nb``
    notebooks received after it; ``idle``: over an idle window before, the scheduler also
    without workers (``scheduler_alone``); ``set_up``: the workers' :func:`set_up_workers`;
    ``lives``: each kind's whole life; ``batches``: (notebooks, statements, s, client CPU s).
    """
    import distributed  # noqa: F401 - imported before the client's CPU is counted
    import nbgrader.api  # noqa: F401
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    run = {"batches": []}
    cluster = Cluster(root / "cluster")
    try:
        alone = idle_cpu(cluster, db_pids)  # the scheduler without workers
        cluster.add_workers(processes)
        run["idle"] = idle_cpu(cluster, db_pids)  # and with them, at rest
        run["idle"]["scheduler_alone"] = alone["scheduler"]
        kinds = {**cluster.pids(), "database": db_pids}
        quiet = {k: kinds[k] for k in ("scheduler", "database")}  # no kernels end meanwhile
        before = cputime.snapshot(kinds)
        set_up_workers(cluster, course, assignments)
        run["set_up"] = cputime.snapshot(kinds)["workers"] - before["workers"]
        real_record, first = cluster_engine.record_batch, {}

        def record_batch(course, batch, gb):
            if not first:
                first.update(cputime.snapshot(quiet), client=own_cpu(), wall=time.perf_counter(),
                             notebooks=len(batch))
            statements, began, cpu = STATEMENTS[0], time.perf_counter(), time.process_time()
            real_record(course, batch, gb)
            run["batches"].append((len(batch), STATEMENTS[0] - statements,
                                   time.perf_counter() - began, time.process_time() - cpu))

        cluster_engine.record_batch = record_batch
        event.listen(Engine, "before_cursor_execute", _count)
        before, client = cputime.snapshot(kinds), own_cpu()
        start = time.perf_counter()
        try:
            run["outcomes"] = grade_class(course, assignments, progress=False,
                                          scheduler=cluster.address)
        finally:
            event.remove(Engine, "before_cursor_execute", _count)
            cluster_engine.record_batch = real_record
        end, after = time.perf_counter(), cputime.snapshot(kinds)
        run["wall"] = end - start
        run["cpu"] = {k: v - before[k] for k, v in after.items()}
        run["cpu"]["client"] = own_cpu() - client
        run["steady"] = {k: after[k] - first[k] for k in quiet}
        run["steady"].update(client=own_cpu() - first["client"], wall=end - first["wall"])
        run["steady_nb"] = sum(b[0] for b in run["batches"]) - first["notebooks"]
    finally:
        run["lives"] = cluster.stop()
    return run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=10)
    parser.add_argument("--ps", nargs="+", default=["ps1_circle_lift", "ps4_centering"])
    parser.add_argument("--processes", type=int, default=(os.cpu_count() or 1) + 1,
                        help="grading processes of (a) and Dask workers of (b)")
    parser.add_argument("--db", default=None, help="an empty PostgreSQL database for (b)")
    parser.add_argument("--record", type=int, default=300,
                        help="notebooks recorded twice for the recording rates")
    parser.add_argument("--batch", type=int, default=100)
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    quiet_gradebook()

    root = Path(tempfile.mkdtemp(prefix="bench_scale_"))
    a = copy_course(root / "a", args.ps)
    if release(a, args.ps):
        return 1
    roster = synthetic_roster(args.students, args.ps)
    lay_class(a, roster)
    notebooks = sum(len(w) for w in roster.values())
    local_wall, local_cpu, local_machine, local = grade_locally(a.root, args.ps, args.processes,
                                                                root)
    # the first half of the class alone, in a course of its own: a run's start and each
    # notebook's share of local grading's CPU (the projection to a large class)
    half = copy_course(root / "half", args.ps)
    if release(half, args.ps):
        return 1
    lay_class(half, dict(list(roster.items())[: max(1, args.students // 2)]))
    (root / "half-run").mkdir()
    _, half_cpu, half_machine, half_outcomes = grade_locally(half.root, args.ps, args.processes,
                                                             root / "half-run")
    half_graded = sum(1 for o in half_outcomes if o[2] == "graded")

    with contextlib.ExitStack() as stack:
        url, db_pids = args.db, []
        if url is None:
            from tests.support import postgres

            server = stack.enter_context(postgres.server())
            url, db_pids = server.createdb("bench"), [server.proc.pid]
        b = Course(copy_course(root / "b", args.ps).root, database=url)
        if release(b, args.ps):
            return 1
        lay_class(b, roster)
        run = grade_on_cluster(b, args.ps, args.processes, root, db_pids)
        sqlite_rate = record_rate(a, args.ps[0], args.record, args.batch)
        pg_rate = record_rate(b, args.ps[0], args.record, args.batch)

    shutil.rmtree(root, ignore_errors=True)
    remote, cpu, captured, wall_b = run["outcomes"], run["cpu"], run["batches"], run["wall"]
    same = sorted((o.student, o.assignment, o.status, o.scores) for o in remote) == sorted(local)
    graded = sum(1 for o in remote if o.status == "graded")
    recorded = sum(c[0] for c in captured)
    steady = run["steady"]
    m = Measured(cores=cores, graded=graded, local_wall=local_wall, local_cpu=local_cpu,
                 cluster_wall=wall_b, workers=args.processes, worker_cpu=cpu["workers"],
                 worker_idle_cpu=run["idle"]["workers"],
                 client_cpu=cpu["client"], scheduler_cpu=cpu["scheduler"], db_cpu=cpu["database"],
                 steady_nb=run["steady_nb"], steady_wall=steady["wall"],
                 steady_client_cpu=steady["client"],
                 steady_record_cpu=sum(c[3] for c in captured),
                 steady_scheduler_cpu=steady["scheduler"], steady_db_cpu=steady["database"],
                 idle_seconds=IDLE_SECONDS, scheduler_idle_cpu=run["idle"]["scheduler"],
                 scheduler_alone_cpu=run["idle"]["scheduler_alone"],
                 sqlite_rate=sqlite_rate, pg_rate=pg_rate, batch=args.batch,
                 half_graded=half_graded, half_local_cpu=half_cpu,
                 local_machine_cpu=local_machine, half_machine_cpu=half_machine)
    print(f"{args.students} students, {notebooks} notebooks ({', '.join(args.ps)}), {graded} "
          f"graded; {cores} cores, {args.processes} grading processes / Dask workers; load "
          f"average {os.getloadavg()[0]:.2f} at the end")
    print(f"{'run':<44}{'wall s':>8}{'nb/s':>8}{'nb/s/core':>11}")
    for name, wall in (("(a) local grading + sqlite", local_wall),
                       ("(b) scheduler + workers + PostgreSQL", wall_b)):
        print(f"{name:<44}{wall:>8.1f}{graded / wall:>8.2f}{graded / wall / cores:>11.3f}")
    print(f"(b) / (a) per core: {local_wall / wall_b:.2f}; same scores: {same}")
    print("\n".join(per_notebook(m)))
    set_up, lives = run["set_up"], run["lives"]
    print(f"  the cluster's kinds counted over the grading (kit.autograde's run), its workers set "
          f"up before: {set_up:.1f} s CPU for {args.processes} workers x {len(args.ps)} problem "
          f"sets (imports, each worker's own course and release; once per course: "
          f"{(cpu['workers'] + set_up) / max(1, graded):.3f} s / notebook with it here); their "
          f"start and stop: {lives['workers'] - cpu['workers'] - set_up:.1f} s (workers), "
          f"{lives['scheduler'] - cpu['scheduler']:.1f} s (scheduler); each worker has its own "
          f"TMPDIR. Local grading is counted whole: its processes start and stop with each run")
    print(f"gradebook statements per recorded notebook: "
          f"{sum(c[1] for c in captured) / max(1, recorded):.1f}; the client spent "
          f"{sum(c[2] for c in captured):.2f} s recording {recorded} notebooks in "
          f"{len(captured)} batches")
    print("\n".join(projections(m)))
    if graded < 20:
        print(f"only {graded} notebooks graded: local grading's start (its processes, imports) "
              "weighs on its CPU per notebook; use --students 20 or more for the ratios")
    if graded < notebooks:  # the demo class's odd hand-ins (a corrupt file, the wrong problem set)
        print(f"{notebooks - graded} hand-ins not graded in both runs, as in the demo class")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
