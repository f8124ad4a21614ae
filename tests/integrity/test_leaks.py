"""Hidden test material never reaches feedback, and what a student can see is theirs alone.

Attacks on ps1_circle_lift, graded through the real pipeline (``kit.autograde``, and
plain ``nbgrader autograde`` for one student): a student's code

* prints the kernel's input history (``In``, ``_ih``) and every frame's source it can find,
  hoping for the hidden tests' code;
* stashes the hidden inputs its functions are called with, and prints them later from an
  answer cell, raises them inside a visible check's message, and writes them to file
  descriptor 1 while a test cell runs;
* prints the grader's case file.

What must hold: no line of any hidden test appears anywhere in the graded notebook; test
cells show only the visible checks' own messages and the judge's lines; the inputs two
students see are different (they are drawn per student from the grader's secret), so
anything printed is worthless to a classmate.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from kit.autograde import cell_scores, grade_class
from kit.course import copy_course
from kit.intake.submitted import build_submission, lay
from kit.release import release
from tests.support.nbgrading import (
    auto_points,
    hidden_test_lines,
    nb_meta,
    read_source,
    solution_of,
)

PS = "ps1_circle_lift"
MARK = "STASHED-INPUTS:"

STASHING_LIFT = '''
_seen = []


def lift(X):
    X = np.asarray(X, dtype=float)
    _seen.append(np.round(X, 6).tolist())
    import os as _os
    _os.write(1, (f"{MARK}{_seen[-1]}\\n").encode())
    f1, f2 = X[:, 0], X[:, 1]
    return np.column_stack([np.ones_like(f1), f1**2, f2**2, f1 * f2, f1, f2])
'''.replace("{MARK}", MARK)

PRINT_EVERYTHING = '''
import inspect, os, sys
print("EXECUTION:", os.environ.get("NBGRADER_EXECUTION"))
print("TESTCELLS:", [h[-300:] for h in In if "kpca_probe" in h or "grading" in h])
for _x in _seen:
    print("{MARK}", _x)
try:
    print("CASEFILE:", open(".kpca_probe_cases.pickle", "rb").read()[:2000])
except OSError as exc:
    print("CASEFILE:", exc)
for frame in inspect.stack():
    print("FRAME:", frame.code_context)
print("HISTORY:", "\\n".join(In))
print("IH:", "\\n".join(_ih))
'''.replace("{MARK}", MARK)

RAISING_RECOVER = '''
def recover_circle(X):
    raise AssertionError("{MARK}" + repr(_seen[:2]))
'''.replace("{MARK}", MARK)


def _solution(cell_id: str) -> str:
    return solution_of(PS, cell_id)


def leaking_cells() -> dict[str, str]:
    return {
        "lift_answer": STASHING_LIFT,
        "circle_normal_answer": _solution("circle_normal_answer") + "\n" + PRINT_EVERYTHING,
        "recover_circle_answer": RAISING_RECOVER,
    }


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    course = copy_course(tmp_path_factory.mktemp("leaks"), [PS])
    assert not release(course, [PS])
    for student in ("leak_a", "leak_b"):
        lay(course, PS, student, build_submission(course, PS, leaking_cells()))
    outcomes = grade_class(course, [PS], students=["leak_a", "leak_b"], workers=2,
                           progress=False)
    assert all(o.status == "graded" for o in outcomes), [o.message for o in outcomes]
    return course


def _outputs_text(nb) -> str:
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            parts += [str(out.get("text", "")), str(out.get("evalue", "")),
                      "".join(out.get("traceback", [])), str(out.get("data", ""))]
    return "\n".join(parts)


def graded_nb(course, student):
    return nbformat.read(course.notebook("autograded", PS, student), as_version=4)


def test_no_hidden_test_line_reaches_the_graded_notebook(course):
    text = _outputs_text(graded_nb(course, "leak_a"))
    assert "HISTORY:" in text and "FRAME:" in text, "the attack did not run"
    assert "run_hidden" in text, "the attack did not see the test cells' history"
    leaked = [line for line in hidden_test_lines(PS) if line in text]
    assert not leaked, leaked
    assert "_grading.grade(" not in text and "grade_exact(" not in text


def test_test_cells_show_only_visible_messages_and_the_judge(course):
    nb = graded_nb(course, "leak_a")
    for cell in nb.cells:
        if nb_meta(cell).get("grade") and cell.cell_type == "code":
            text = _outputs_text(nbformat.from_dict({"cells": [cell]}))
            assert MARK not in text, (nb_meta(cell)["grade_id"], text[:300])
    recover = next(c for c in nb.cells if nb_meta(c).get("grade_id") == "recover_circle_test")
    errors = [o for o in recover.outputs if o.output_type == "error"]
    assert errors and "message is not shown" in errors[0].evalue


def test_the_inputs_a_student_sees_are_their_own(course):
    printed = {}
    for student in ("leak_a", "leak_b"):
        text = _outputs_text(graded_nb(course, student))
        printed[student] = set(re.findall(re.escape(MARK) + r" \[\[.*", text))
        assert printed[student], student
    # the visible checks' inputs are the same for both; the hidden ones are not
    assert printed["leak_a"] - printed["leak_b"] and printed["leak_b"] - printed["leak_a"]


def test_the_stashing_student_still_gets_the_true_score(course):
    points = auto_points(read_source(PS))
    got = {g: v for g, v in cell_scores(course, PS, "leak_a").items() if g in points}
    assert got["lift_test"] == points["lift_test"]  # lift itself is right
    assert got["recover_circle_test"] == 0.0


def test_plain_nbgrader_autograde_keeps_hidden_code_out_of_the_kernel(tmp_path):
    course = copy_course(tmp_path, [PS])
    assert not release(course, [PS])
    lay(course, PS, "leak_c", build_submission(course, PS, leaking_cells()))
    env = {**os.environ, "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]}
    run = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", PS], check=False,
                         cwd=course.root, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    text = _outputs_text(graded_nb(course, "leak_c"))
    assert "HISTORY:" in text
    assert not [line for line in hidden_test_lines(PS) if line in text]
    assert (course.root / ".grading_secret").exists()


def test_the_graded_kernel_sees_what_nbgrader_documents(course):
    """nbgrader sets NBGRADER_EXECUTION=autograde for a graded notebook; the sandbox keeps it."""
    assert "EXECUTION: autograde" in _outputs_text(graded_nb(course, "leak_a"))
