"""nbgrader's own tests pass with what the kit changes in nbgrader's gradebook.

A grading process installs the gradebook reuse (:mod:`kit.engines.gradebook_reuse`) and reads
nbgrader's alembic head in process (:func:`kit.course.read_alembic_head_in_process`). Both
patch nbgrader's module globals, so nbgrader's own tests of its gradebook API and of
``nbgrader autograde`` (which runs in process in those tests) run here with both installed
(the plugin :mod:`tests.support.kit_classes`), in a pytest of their own. They found that
the reuse shared one in-memory SQLite database between two gradebooks; it no longer does.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbgrader

ROOT = Path(__file__).resolve().parents[2]
NBGRADER = Path(nbgrader.__file__).parent
OWN_TESTS = ["tests/api", "tests/apps/test_nbgrader_autograde.py"]


def test_nbgraders_gradebook_and_autograde_tests_pass_with_the_kits_changes(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
         "tests.support.kit_classes", f"--rootdir={NBGRADER}", f"--basetemp={tmp_path / 'own'}",
         "-W", "ignore", *[str(NBGRADER / t) for t in OWN_TESTS]],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900, check=False)
    tail = run.stdout[-3000:] + run.stderr[-2000:]
    assert ("kit changes in place to the end: gradebook reuse True, alembic head in process "
            "True") in run.stdout, tail
    assert run.returncode == 0, tail
    summary = run.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary and "error" not in summary, tail
