"""What a cluster run sets up before grading: the scheduler's retry limit, a quiet terminal.

Cheap checks that need neither a kernel nor PostgreSQL; the grading itself is in
``test_cluster.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import dask
import pytest

from kit.engines import dask_client as cluster

ROOT = Path(__file__).resolve().parents[2]


def test_a_scheduler_started_by_the_operator_gets_the_kits_retry_limit():
    """``dask scheduler`` keeps Dask's default (3 failures allowed): the client sets 2 on it
    for the run and puts the operator's value back afterwards."""
    from distributed import Client, LocalCluster

    with dask.config.set({"distributed.scheduler.allowed-failures": 3}), \
            LocalCluster(n_workers=0, processes=False, dashboard_address=None) as operators, \
            Client(operators.scheduler_address) as client:
        def allowed(dask_scheduler=None):
            return dask_scheduler.allowed_failures

        assert client.run_on_scheduler(allowed) == 3
        previous = cluster.limit_retries(client)
        assert previous == 3
        assert client.run_on_scheduler(allowed) == cluster.ALLOWED_FAILURES == 2
        assert cluster.limit_retries(client, previous) == 2
        assert client.run_on_scheduler(allowed) == 3


RECORD = """
import sys
from pathlib import Path
from nbgrader.api import Gradebook
from kit.course import Course
from kit.engines.recording import record

course = Course(Path(sys.argv[1]))
with Gradebook(course.db_url) as gb:
    gb.add_assignment("ps")
    gb.add_notebook("ps", "ps")
    gb.add_grade_cell("test_one", "ps", "ps", max_score=2, cell_type="code")
record(course, "ps", "ada", {"files": {}, "grades": {"test_one": 1.5}, "comments": {}})
with Gradebook(course.db_url) as gb:
    print(gb.find_submission_notebook("ps", "ps", "ada").score)
"""


@pytest.mark.parametrize("quiet", [True, False], ids=["kit", "without-the-filter"])
def test_recording_a_new_student_prints_no_sqlalchemy_warning(tmp_path, quiet):
    """nbgrader's gradebook code makes SQLAlchemy warn for every new student; the cluster
    client records through it and must keep the TA's terminal clean. The second case shows
    the warning is real without the kit's filter."""
    script = RECORD if quiet else RECORD.replace(
        "from kit.engines.recording import record",
        "import kit.course\nkit.course.quiet_gradebook = lambda: None\n"
        "from kit.engines.recording import record")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "PYTHONWARNINGS": "default"}
    env.pop("KPCA_DB_URL", None)
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path)], check=False, cwd=ROOT,
                          env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1.5"]
    assert ("SAWarning" in done.stderr) is not quiet, done.stderr


def test_a_workers_course_copy_never_holds_the_grading_secret(released_ps1, tmp_path, monkeypatch):
    """A worker killed with ``kill -9`` cleans nothing up: the secret it was sent must never
    have been on its disk, while its judge still salts with it."""
    import tempfile

    from kit.engines import dask_worker as remote
    from kit.secret import course_secret, salt_words
    PS = "ps1_circle_lift"  # the released_ps1 fixture's problem set

    course = released_ps1(tmp_path / "course")
    secret = course_secret(course.root)
    bundle = remote.course_bundle(course, [PS])
    assert bundle[".grading_secret"] == secret
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "worker-tmp"))
    (tmp_path / "worker-tmp").mkdir()
    monkeypatch.setattr(remote, "_COURSES", {})
    worker_course, _ = remote._course(bundle, PS)
    assert worker_course.root.parent == tmp_path / "worker-tmp"
    files = [p for p in worker_course.root.rglob("*") if p.is_file()]
    assert files and worker_course.notebook("release", PS) in files
    assert not [p for p in files if secret in p.read_bytes()]
    judged = worker_course.root / "autograded" / "ada" / PS  # the judge's folder.parents[2]
    assert salt_words(course_secret(judged.parents[2]), PS, "ada") == \
        salt_words(secret, PS, "ada")  # the client's secret salts the worker's hidden inputs


def test_course_copies_of_dead_workers_are_removed(tmp_path, monkeypatch):
    """Left by a worker killed with ``kill -9`` (no atexit): the next worker removes them."""
    import tempfile

    from kit.engines import dask_worker as remote

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    dead = tmp_path / f"{remote.WORK_PREFIX}{gone.pid}-0123abcd-xyz"
    alive = tmp_path / f"{remote.WORK_PREFIX}{os.getpid()}-0123abcd-xyz"
    other = tmp_path / "kpca-worker-notapid-x"
    for folder in (dead, alive, other):
        (folder / "source").mkdir(parents=True)
        (folder / "source" / "ps.ipynb").write_text("{}")
    assert remote.remove_orphaned_courses() == [dead]
    assert not dead.exists() and alive.exists() and other.exists()
