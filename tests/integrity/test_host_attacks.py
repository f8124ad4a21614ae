"""Attacks on the grader's own side (outside the sandbox), graded through the real pipeline.

One course run grades four ps0 hand-ins with ``kit.autograde``:

- three work a classmate's numbers without typing the id as a plain literal (``"ali" +
  "ce"``, an annotated f-string, ``os.environ["KPCA_STUDENT_ID"]`` set from a cell): each
  loses the exact items, gets the ``wrong_student_id`` line, and the class report lists it;
- one forges the judge's words and loads the host: a hidden-case error whose message is a
  fake "✓ all hidden tests passed [diagnosis: forbidden_import]", a visible check's
  ``AssertionError`` built to match the cell's f-string message with the same fake lines, a
  markdown cell of 40,000 backticks, a markdown output of 30,000, and a code cell of 5,000
  ``x = !y`` lines. It earns what its code earns, and no forged line or diagnosis reaches
  the feedback or the report.
"""

from __future__ import annotations

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell

from kit.autograde import grade_class
from kit.course import copy_course
from kit.judge.cells import JUDGE_KEY
from kit.release import release
from kit.report.data import summarise
from kit.report.page import write_report
from tests.integrity.attacks_new_sets import other_id
from tests.support.nbgrading import (
    auto_points,
    exact_points,
    judge_lines,
    lay_submission,
    nb_meta,
    read_source,
    solution_of,
)

PS = "ps0_high_dimensions"
FAKE = "no\n✓ all hidden tests passed [diagnosis: forbidden_import]"


def _identity(source: str):
    def edit(nb):
        cell = next(c for c in nb.cells if c.cell_type == "code" and 'STUDENT_ID = ""' in c.source)
        cell.source = cell.source.replace('STUDENT_ID = ""', source)
    return edit


FORGER_BALL = solution_of(PS, "ball_cube_ratio_answer") + f'''

_ball = ball_cube_ratio


def ball_cube_ratio(m):
    if not isinstance(m, sp.Basic) and m > 40:  # the hidden large-m group only
        raise ValueError({FAKE!r})
    return _ball(m)
'''
FORGER_SHELL = solution_of(PS, "shell_fraction_answer") + f'''

_shell = shell_fraction


def shell_fraction(m, eps):
    if eps < 0:  # the visible check's f-string message, with fake lines in its field
        raise AssertionError("shell_fraction" + {FAKE!r} + " should raise ValueError")
    return _shell(m, eps)
'''


def _forger_extras(nb):
    nb.cells.append(new_markdown_cell("`" * 40000 + "a"))  # over the markdown limit
    nb.cells.append(new_code_cell("from IPython.display import Markdown, display\n"
                                  "display(Markdown('`' * 30000 + 'a'))"))
    nb.cells.append(new_code_cell("raise RuntimeError('stop')\n" + "x = !y\n" * 5000))


#: ``{student: answer cells}``; :func:`_edit` makes the rest of each hand-in
ATTACKS = {
    "id_halves": {},
    "id_annotated_fstring": {},
    "id_environ": {},
    "forger": {"ball_cube_ratio_answer": FORGER_BALL, "shell_fraction_answer": FORGER_SHELL},
}
LOST = {"forger": {"test_ball_cube_ratio": 0.8, "test_shell_fraction": 3.0}}


def _edit(student: str):
    other = other_id(PS, student)
    if student == "id_halves":
        return _identity(f'STUDENT_ID = "{other[:4]}" + "{other[4:]}"')
    if student == "id_annotated_fstring":
        return _identity(f'_who = "{other[:3]}"\nSTUDENT_ID: str = f"{{_who}}{other[3:]}  ".strip()')
    if student == "id_environ":
        return _identity(f'import os\nos.environ["KPCA_STUDENT_ID"] = "{other}"\nSTUDENT_ID = ""')
    return _forger_extras


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    course = copy_course(tmp_path_factory.mktemp("host-attacks"), [PS])
    assert not release(course, [PS])
    for student, cells in ATTACKS.items():
        lay_submission(course, PS, student, cells, _edit(student))
    outcomes = grade_class(course, [PS], students=sorted(ATTACKS), workers=2, progress=False,
                           feedback=True)
    return course, {o.student: o for o in outcomes}


@pytest.mark.parametrize("student", sorted(ATTACKS))
def test_each_route_earns_nothing_more(graded, student):
    _, outcomes = graded
    outcome = outcomes[student]
    assert outcome.status == "graded", outcome.message
    points = auto_points(read_source(PS))
    lost = LOST.get(student) or exact_points(PS)
    want = {gid: round(p - lost.get(gid, 0.0), 2) for gid, p in points.items()}
    assert {gid: round(outcome.scores.get(gid, 0.0), 2) for gid in points} == want


def test_another_id_however_set_is_named_and_reported(graded, tmp_path):
    course, outcomes = graded
    for student in ("id_halves", "id_annotated_fstring", "id_environ"):
        lines = judge_lines(course, PS, student)
        for gid in exact_points(PS):
            assert "[diagnosis: wrong_student_id]" in lines[gid], (student, gid)
            assert other_id(PS, student) in lines[gid], (student, gid)
    page = write_report(course, list(outcomes.values()), tmp_path).read_text(encoding="utf-8")
    listed = page.split("another student's id</h2>")[1]
    for student in ("id_halves", "id_annotated_fstring", "id_environ"):
        assert f"{student} / {PS}" in listed and other_id(PS, student) in listed
    assert "forger" not in listed


def test_no_forged_line_or_diagnosis(graded):
    course, outcomes = graded
    lines = judge_lines(course, PS, "forger")
    assert "raised ValueError: no (mark) all hidden tests passed (diagnosis:" in lines[
        "test_ball_cube_ratio"]
    nb = nbformat.read(course.notebook("autograded", PS, "forger"), as_version=4)
    for cell in nb.cells:
        if not (nb_meta(cell).get("grade") and cell.cell_type == "code"):
            continue
        for out in cell.outputs:
            text = out.get("text", "") + out.get("evalue", "") + "".join(out.get("traceback", []))
            assert not any(line.startswith("✓ all hidden") for line in text.splitlines())
            assert "[diagnosis: forbidden_import]" not in text
            if out.output_type == "execute_result":
                assert "forbidden_import" not in out.metadata[JUDGE_KEY]["diagnoses"]
    shell = next(c for c in nb.cells if nb_meta(c).get("grade_id") == "test_shell_fraction")
    assert [o.evalue for o in shell.outputs if o.output_type == "error"] == [
        "(a visible check failed; its message is not shown)"]
    (ps,) = summarise(course, list(outcomes.values()))
    assert "forbidden_import" not in dict(ps.mistakes)
    assert dict(ps.mistakes).get("wrong_student_id") == 3


def test_the_heavy_markup_is_shown_as_text(graded):
    """The markdown over the limit is a code block in the graded notebook and its feedback
    page was written (the time each step takes is bounded in test_host_inputs.py)."""
    course, _ = graded
    nb = nbformat.read(course.notebook("autograded", PS, "forger"), as_version=4)
    markdown = [c for c in nb.cells if c.cell_type == "markdown" and "`" * 100 in c.source]
    assert markdown and all(c.source.startswith("\n    ") for c in markdown)
    page = course.root / "feedback" / "forger" / PS / f"{PS}.html"
    assert page.is_file() and "`" * 1000 in page.read_text(encoding="utf-8")
