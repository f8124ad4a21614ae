"""Grading kernels see only what students may use (kit/sandbox/kernelenv.py, kit/sandbox/offered.py).

The kpca-sandbox kernel runs the kernel environment's Python: scikit-learn, ``kpca_ref``,
the grader and the test tools cannot be imported there however the import is spelled, an
import of anything not offered fails with a message naming what is offered (and the
feedback page shows it), and grading refuses to start on an environment that reaches a
forbidden package.
"""

from __future__ import annotations

import html
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from kit.autograde import grade_class
from kit.course import copy_course
from kit.intake.submitted import build_submission, lay
from kit.release import release
from kit.sandbox import kernelenv, offered
from kit.sandbox import wrapper as sandbox
from kit.sandbox.kernelenv import probe_dir

PS = "ps1_circle_lift"
FULL = 23.0  # auto-graded points of ps1
LIFT = 1.0  # points of the lift_dot_u test

pytestmark = pytest.mark.skipif(sandbox.unavailable() != "", reason="bubblewrap unavailable")

#: Imports a graded notebook must not manage, spelled past any scan of the source.
HIDDEN_IMPORTS = {
    "sklearn": "import importlib\nimportlib.import_module('skl' + 'earn.preprocessing')",
    "kpca_ref": "__import__('kpca' + '_ref')",
    "nbgrader": "import nbgrader.api",
    "pytest": "import pytest",
    "kit": "from kit import judge",
}


def _run(cells: list[str], tmp_path: Path) -> list[dict]:
    """Run ``cells`` in a kpca-sandbox kernel; the outputs of each cell."""
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in cells]
    NotebookClient(nb, kernel_name=sandbox.KERNEL_NAME, timeout=120, allow_errors=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    return [cell.outputs for cell in nb.cells]


def test_forbidden_packages_cannot_be_imported_and_the_message_names_what_is_offered(tmp_path):
    outputs = _run(list(HIDDEN_IMPORTS.values()), tmp_path)
    for (name, _), outs in zip(HIDDEN_IMPORTS.items(), outputs):
        errors = [o for o in outs if o.output_type == "error"]
        assert errors and errors[0].ename == "ModuleNotFoundError", (name, outs)
        assert errors[0].evalue == offered.message(name.split(".")[0]), errors[0].evalue
        assert all(package in errors[0].evalue for package in offered.OFFERED)


def test_offered_packages_and_the_probe_work(tmp_path):
    cells = [
        "import numpy as np, scipy.linalg\nprint(scipy.linalg.eigh(np.diag([3.0, 1.0]))[0])",
        "import sympy\nprint(sympy.Rational(3, 4) + sympy.Rational(1, 4))",
        "import matplotlib.pyplot as plt\nplt.plot([0, 1])\nprint('plotted')",
        "import kpca_probe, kpca_probe.functions\nprint(kpca_probe.MIME)",
        "import importlib.util\nprint(importlib.util.find_spec('sklearn'))",  # probes get None
    ]
    outputs = _run(cells, tmp_path)
    assert not [o for outs in outputs for o in outs if o.output_type == "error"], outputs
    text = ["".join(o.get("text", "") for o in outs) for outs in outputs]
    assert text == ["[1. 3.]\n", "1\n", "plotted\n", "application/vnd.kpca-probe+json\n",
                    "None\n"]


def test_the_machines_other_python_packages_are_out_of_reach(tmp_path):
    """/usr and the base Python are bound in for the standard library; their package folders
    (here pytest and hypothesis live in the base Python's) must be empty in the sandbox."""
    hidden = kernelenv.other_site_dirs()
    assert hidden
    cell = (f"import os, sys\nsys.path[:0] = {hidden!r}\n"
            f"print(sorted(n for d in {hidden!r} for n in os.listdir(d)))\n"
            "import pytest")
    (outs,) = _run([cell], tmp_path)
    assert [o.get("text") for o in outs if o.output_type == "stream"] == ["[]\n"]
    assert [o.ename for o in outs if o.output_type == "error"] == ["ModuleNotFoundError"]


def test_the_check_finds_forbidden_packages_in_an_environment():
    assert kernelenv.check(kernelenv.env_dir(), probe_dir(None)) == ""
    # the grader's own venv holds everything a kernel must not reach
    why = kernelenv.check(Path(sys.prefix), probe_dir(None))
    assert "can be imported" in why
    for name in ("sklearn", "kpca_ref", "nbgrader", "pytest"):
        assert name in why.split(" can be imported")[0]
    assert "no kernel environment" in kernelenv.check(Path("/nonexistent/env"), None)


def _course(tmp: Path, students: dict[str, str]):
    course = copy_course(tmp, [PS])
    assert not release(course, [PS])
    for student, code in students.items():
        lay(course, PS, student, build_submission(course, PS, {"lift_dot_u_answer": code}))
    return course


def _env(**extra) -> dict[str, str]:
    return dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}", **extra)


def test_a_hidden_import_earns_nothing_and_the_feedback_says_what_is_offered(tmp_path):
    """Through plain `nbgrader autograde` and `generate_feedback`: the import the judge's scan
    cannot see fails in the kernel; the part is lost; the feedback page names the offered
    packages. The honest student next to it keeps full marks."""
    sneaky = HIDDEN_IMPORTS["sklearn"] + "\nlift_dot_u = phi_Q.dot(u_circle)\n"
    course = _course(tmp_path, {"sneaky": sneaky, "honest": "lift_dot_u = phi_Q.dot(u_circle)\n"})
    for command in (["autograde", PS], ["generate_feedback", PS]):
        run = subprocess.run([sys.executable, "-m", "nbgrader", *command], cwd=course.root,
                             env=_env(), capture_output=True, text=True, timeout=900, check=False)
        assert run.returncode == 0, run.stderr[-3000:]
    from tests.sandbox.test_sandbox import _auto_scores

    assert _auto_scores(course.root) == {"sneaky": FULL - LIFT, "honest": FULL}
    page = (course.root / "feedback" / "sneaky" / PS / f"{PS}.html").read_text(encoding="utf-8")
    assert "ModuleNotFoundError" in page
    assert offered.message("sklearn") in html.unescape(page)


def test_grading_refuses_an_environment_that_reaches_forbidden_packages(tmp_path, monkeypatch):
    marker = Path(f"/tmp/kpca_kernel_env_{os.getpid()}")
    code = f"open({str(marker)!r}, 'w').write('ran')\nlift_dot_u = phi_Q.dot(u_circle)\n"
    course = _course(tmp_path, {"student": code})
    bad = str(Path(sys.prefix))  # the grader's venv: scikit-learn, kpca_ref, nbgrader, pytest
    run = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", PS], cwd=course.root,
                         env=_env(KPCA_KERNEL_ENV=bad), capture_output=True, text=True,
                         timeout=600, check=False)
    assert run.returncode != 0
    assert "grading refused" in run.stderr and "sklearn" in run.stderr
    assert not (course.root / "autograded" / "student" / PS).exists()
    monkeypatch.setenv("KPCA_KERNEL_ENV", bad)
    (outcome,) = grade_class(course, [PS], workers=1, progress=False)
    assert outcome.status == "failed" and outcome.message.startswith("grading refused")
    assert "kpca_ref" in outcome.message
    assert not marker.exists()
