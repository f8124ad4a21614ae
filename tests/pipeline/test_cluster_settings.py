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

from kit import cluster

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
from kit.cluster import record

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
        "from kit.cluster import record",
        "import kit.course\nkit.course.quiet_gradebook = lambda: None\n"
        "from kit.cluster import record")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "PYTHONWARNINGS": "default"}
    env.pop("KPCA_DB_URL", None)
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path)], check=False, cwd=ROOT,
                          env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1.5"]
    assert ("SAWarning" in done.stderr) is not quiet, done.stderr
