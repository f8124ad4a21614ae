"""Grading on a Dask cluster into a PostgreSQL gradebook, and moving a gradebook there.

A throwaway PostgreSQL 15 server (tests/support/postgres.py) and LocalClusters on
127.0.0.1. A small class (ps1, three students) is graded once locally into sqlite and once
through ``--scheduler local:2`` into PostgreSQL: the same scores, comments and feedback.
Then the faults: a worker killed mid-job, a notebook that kills its kernel, an unreachable
gradebook, Ctrl-C.
"""

from __future__ import annotations

import os
import re
import signal
import sys
import threading
import time
from pathlib import Path

import nbformat
import pytest
from sqlalchemy import create_engine

from kit.autograde import grade_class, main, read_ledger
from kit.course import Course
from kit.gradebook import move as gradebook_move
from kit.intake.submitted import build_submission, lay
from tests.sandbox.test_shutdown import finish, sandbox_processes, start
from tests.support import postgres

PS = "ps1_circle_lift"
SLOW = "import time\ntime.sleep(6)\n"  # prepended to an answer: the job is surely mid-run
CLASS = {"ada": {}, "ben": {"lift_answer": "def lift(X):\n    raise NotImplementedError()\n"},
         "cleo": {"lift_dot_u_answer": "lift_dot_u = 0\n"}}
WORKER_DIRS = Path(os.environ.get("TMPDIR", "/tmp")) / "kpca-worker-"


@pytest.fixture(scope="session")
def pg():
    if why := postgres.available():
        pytest.fail(why)
    with postgres.server() as srv:
        yield srv


def _class(released_ps1, dest: Path, database: str = "", students=CLASS) -> Course:
    course = released_ps1(dest)
    if database:  # the released course's gradebook moved to PostgreSQL, as a TA would
        gradebook_move.move(course.db_url, database)
    course = Course(course.root, database=database)
    for student, cells in students.items():
        lay(course, PS, student, build_submission(course, PS, cells))
    return course


def gradebook_rows(url: str, assignment: str = PS) -> dict:
    """``{(student, cell): (auto score, manual score, needs manual grade, auto comment)}``."""
    from nbgrader.api import Gradebook

    rows = {}
    with Gradebook(url) as gb:
        for sub in gb.assignment_submissions(assignment):
            for nb in sub.notebooks:
                for g in nb.grades:
                    key = (sub.student_id, g.name)
                    assert key not in rows, f"two grades for {key}"
                    rows[key] = (g.auto_score, g.manual_score, g.needs_manual_grade)
                for c in nb.comments:
                    rows[(sub.student_id, "comment:" + c.name)] = c.auto_comment
    return rows


@pytest.fixture(scope="module")
def shared():
    """A LocalCluster of two workers that several tests reach as ``tcp://`` (a TA's cluster)."""
    from distributed import LocalCluster

    from kit.engines.dask_client import dask_settings

    dask_settings()
    with LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def both(released_ps1, pg, tmp_path_factory):
    """The class graded locally into sqlite and through local:2 into PostgreSQL."""
    here = _class(released_ps1, tmp_path_factory.mktemp("local") / "course")
    local = grade_class(here, [PS], workers=2, progress=False, feedback=True)
    there = _class(released_ps1, tmp_path_factory.mktemp("dask") / "course",
                   pg.createdb("graded_on_dask"))
    start_time = time.perf_counter()
    remote = grade_class(there, [PS], progress=False, feedback=True, scheduler="local:2")
    print(f"local:2 graded {len(remote)} notebooks in {time.perf_counter() - start_time:.1f} s")
    return here, local, there, remote


def test_dask_and_postgresql_give_the_local_scores_and_feedback(both):
    here, local, there, remote = both
    assert [o.status for o in remote] == ["graded"] * len(CLASS), remote
    assert {(o.student, o.total) for o in remote} == {(o.student, o.total) for o in local}
    assert [o.scores for o in remote] == [o.scores for o in local]
    assert len({o.total for o in remote}) == 3  # the three hand-ins differ: a real comparison
    assert gradebook_rows(there.db_url) == gradebook_rows(here.db_url)
    assert there.db_url.startswith("postgresql://")
    for student in CLASS:
        graded = [c.root / "autograded" / student / PS / f"{PS}.ipynb" for c in (here, there)]
        assert untimed(graded[1]) == untimed(graded[0]), student
        assert graded[1].stat().st_mode == graded[0].stat().st_mode
        pages = [c.root / "feedback" / student / PS / f"{PS}.html" for c in (here, there)]
        assert page_text(pages[1]) == page_text(pages[0]), student


def page_text(path: Path) -> str:
    """A feedback page's text, without tags and spaces (how printed text was cut differs)."""
    return re.sub(r"\s+", "", re.sub(r"<[^>]+>", "", path.read_text(encoding="utf-8")))


def untimed(path: Path):
    """A graded notebook without what two runs never share: the times its cells ran at, and
    where the kernel's printed text was cut into messages (stream outputs joined)."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        joined = []
        for out in cell.get("outputs", []):
            if (joined and out.output_type == "stream" == joined[-1].output_type
                    and out.name == joined[-1].name):
                joined[-1].text += out.text
            else:
                joined.append(out)
        if "outputs" in cell:
            cell.outputs = joined
    return nb


def test_a_second_run_grades_nothing_unless_forced(both, shared):
    _, _, there, _ = both
    address = shared.scheduler_address
    again = grade_class(there, [PS], progress=False, skip_graded=True, scheduler=address)
    assert {o.status for o in again} == {"already graded"}
    (there.root / "submitted" / "ben" / PS / f"{PS}.ipynb").touch()  # a new hand-in
    again = grade_class(there, [PS], progress=False, skip_graded=True, scheduler=address)
    assert sorted((o.student, o.status) for o in again) == [
        ("ada", "already graded"), ("ben", "graded"), ("cleo", "already graded")]


def test_moving_the_sqlite_gradebook_keeps_every_row(both, pg):
    here, _, _, _ = both
    from nbgrader.api import Gradebook

    with Gradebook(here.db_url) as gb:  # a TA's manual grade and comment must travel too
        sub = gb.find_submission_notebook(PS, PS, "ada")
        grade, comment = sub.grades[0], sub.comments[0]
        grade.manual_score, comment.manual_comment = 0.5, "see me about this one"
        gb.db.commit()
    target = pg.createdb("moved")
    assert gradebook_move.main(["--course", str(here.root), "--to", target]) == 0
    source = f"sqlite:///{here.root / 'gradebook.db'}"
    assert gradebook_rows(target) == gradebook_rows(source)

    def every_row(url):
        engine = create_engine(url)
        with engine.connect() as conn:
            out = {t.name: sorted(map(tuple, conn.execute(t.select())), key=repr)
                   for t in gradebook_move._tables()}
        engine.dispose()
        return out

    assert every_row(target) == every_row(source)
    assert any(r for r in every_row(target)["comment"] if "see me about this one" in r)
    assert gradebook_move.main(["--course", str(here.root), "--to", target]) == 1  # not twice


def test_killed_worker_reruns_its_job_and_kernel_death_is_not_retried(released_ps1, pg, tmp_path,
                                                                      both, shared):
    """A worker killed mid-job: the job runs again elsewhere, one grade per cell, clean scores."""
    from distributed import Client

    _, local, _, _ = both
    course = _class(released_ps1, tmp_path / "course", pg.createdb("killed"),
                    {"ada": {}, "dora": {"lift_dot_u_answer": "import os\nos._exit(3)\n"}})
    with Client(shared.scheduler_address) as client:
        killed = []

        def kill_ada_worker():
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and not killed:
                for worker, keys in client.processing().items():
                    if any(str(k).startswith(f"grade-{PS}-ada-") for k in keys):
                        time.sleep(3)  # its kernel runs the notebook
                        pid = client.run(os.getpid, workers=[worker])[worker]
                        os.kill(pid, signal.SIGKILL)
                        killed.append(pid)
                        return
                time.sleep(0.2)

        killer = threading.Thread(target=kill_ada_worker)
        killer.start()
        outcomes = grade_class(course, [PS], progress=False, scheduler=shared.scheduler_address)
        killer.join()
    assert killed, "no worker was grading ada's notebook"
    by = {o.student: o for o in outcomes}
    assert by["ada"].status == "graded" and by["ada"].scores == next(
        o.scores for o in local if o.student == "ada")
    assert by["dora"].status == "failed" and "kernel died" in by["dora"].message, by["dora"]
    rows = gradebook_rows(course.db_url)  # raises on a second grade of one cell
    assert {k[1] for k in rows if k[0] == "ada"} == set(by["ada"].scores) | {
        k[1] for k in rows if k[0] == "ada" and k[1].startswith("comment:")}


def test_workers_with_another_kit_are_refused(released_ps1, tmp_path, shared, monkeypatch, capsys):
    """The client's kit differs from the workers' (their code hashes to another value)."""
    from kit.engines import dask_worker as remote

    course = _class(released_ps1, tmp_path / "course", students={"ada": {}})
    monkeypatch.setattr(remote, "_FINGERPRINT", ["0.1.0+edited000000"])
    status = main([PS, "--course", str(course.root), "--scheduler", shared.scheduler_address])
    err = capsys.readouterr().err
    assert status == 1, err
    assert "workers refused:" in err and "this client kit 0.1.0+edited000000" in err, err
    assert "install the same kit on every worker" in err, err
    assert not (course.root / "autograded" / "ada").exists()


def test_an_unreachable_gradebook_fails_with_one_line(released_ps1, tmp_path, capsys):
    course = _class(released_ps1, tmp_path / "course", students={"ada": {}})
    nowhere = f"postgresql://postgres@127.0.0.1:{postgres._free_port()}/none?connect_timeout=3"
    os.environ["KPCA_DB_URL"] = nowhere
    try:
        began = time.monotonic()
        status = main([PS, "--course", str(course.root), "--scheduler", "local:1"])
    finally:
        del os.environ["KPCA_DB_URL"]
    err = capsys.readouterr().err
    assert status == 1 and time.monotonic() - began < 30
    assert "cannot reach the gradebook database postgresql://postgres@127.0.0.1" in err, err
    assert "Traceback" not in err


def test_a_gradebook_lost_mid_run_stops_with_one_line(released_ps1, tmp_path, shared, capsys):
    """The database goes away after the first submission is recorded: no hang, one line."""
    slow = {"lift_dot_u_answer": SLOW + "lift_dot_u = None\n"}
    with postgres.server() as lost:
        course = _class(released_ps1, tmp_path / "course", lost.createdb("lost"),
                        {"ada": {}, "bob_slow": slow})

        def stop_when_ada_is_graded():  # her grades recorded: the run notes her in its ledger
            deadline = time.monotonic() + 240
            while f"{PS}/ada" not in read_ledger(course) and time.monotonic() < deadline:
                time.sleep(0.1)
            lost.stop()

        stopper = threading.Thread(target=stop_when_ada_is_graded)
        stopper.start()
        os.environ["KPCA_DB_URL"] = course.db_url
        try:
            status = main([PS, "--course", str(course.root), "--scheduler", shared.scheduler_address])
        finally:
            del os.environ["KPCA_DB_URL"]
            stopper.join()
    err = capsys.readouterr().err
    assert status == 1, err
    assert "grading stopped: lost the gradebook database postgresql://" in err, err
    assert "while recording bob_slow / ps1_circle_lift" in err, err
    assert f"1 submissions graded and recorded: {PS}: ada" in err, err


def test_ctrl_c_cancels_every_job_and_says_what_was_graded(released_ps1, pg, tmp_path, shared):
    """The client is interrupted: the jobs it sent are stopped on a cluster it does not own."""
    course = _class(released_ps1, tmp_path / "course", pg.createdb("interrupted"),
                    {f"s{i}": {"lift_dot_u_answer": SLOW + "lift_dot_u = None\n"} for i in range(3)})
    before = set(sandbox_processes(WORKER_DIRS))
    os.environ["KPCA_DB_URL"] = course.db_url  # the grader reads it from its environment
    try:
        proc = start(["kit.autograde", PS, "--course", str(course.root), "--scheduler",
                      shared.scheduler_address],
                     course.root)
    finally:
        del os.environ["KPCA_DB_URL"]
    deadline = time.monotonic() + 90
    while not set(sandbox_processes(WORKER_DIRS)) - before:
        assert proc.poll() is None and time.monotonic() < deadline, proc.stdout.read()
        time.sleep(0.2)
    time.sleep(1)
    os.killpg(proc.pid, signal.SIGINT)
    out = finish(proc, timeout=60)
    assert proc.returncode == 130, out
    assert "interrupted: 0 submissions graded in this run, 3 not graded" in out, out
    assert f"not graded: {PS}: s0, s1, s2" in out, out
    time.sleep(2)
    assert not set(sandbox_processes(WORKER_DIRS)) - before


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-x", "-q"]))
