"""Attacks from inside the student's kernel, graded through the real pipeline.

Every submission of :mod:`tests.integrity.attacks` is graded by ``kit.autograde`` (the
nbgrader API with the course's ``nbgrader_config.py``) in a throw-away course; a few are
graded again by plain ``nbgrader autograde`` run in the course root. Each must get exactly
the score its entry states, the run must finish, and students graded after the attacks
keep their true scores.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kit.autograde import cell_scores, grade_class
from kit.course import copy_course
from kit.handback.feedback import write_feedback
from kit.release import release
from tests.integrity.attacks import AFTER, ALL, ATTACKS, PS
from tests.support.nbgrading import auto_points, lay_submission, read_source

POINTS = auto_points(read_source(PS))


def expected_scores(entry) -> dict[str, float]:
    if entry["lost"] == ALL:
        return dict.fromkeys(POINTS, 0.0)
    return {gid: round(p - entry["lost"].get(gid, 0.0), 2) for gid, p in POINTS.items()}


def lay_entry(course, student, entry):
    lay_submission(course, PS, student, entry["cells"], entry.get("edit"))


#: the judge's time per test cell while the catalogue is graded (slow_to_judge hits it)
JUDGE_CELL_SECONDS = "10"


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    before = os.environ.get("KPCA_JUDGE_CELL_SECONDS")
    os.environ["KPCA_JUDGE_CELL_SECONDS"] = JUDGE_CELL_SECONDS  # inherited by the workers
    try:
        return _grade_catalogue(tmp_path_factory)
    finally:
        if before is None:
            del os.environ["KPCA_JUDGE_CELL_SECONDS"]
        else:
            os.environ["KPCA_JUDGE_CELL_SECONDS"] = before


def _grade_catalogue(tmp_path_factory):
    course = copy_course(tmp_path_factory.mktemp("integrity"), [PS])
    assert not release(course, [PS])
    for student, entry in ATTACKS.items():
        lay_entry(course, student, entry)
    first = grade_class(course, [PS], students=list(ATTACKS), workers=2, progress=False)
    for student, entry in AFTER.items():
        lay_entry(course, student, entry)
    after = grade_class(course, [PS], students=list(AFTER), workers=1, progress=False)
    return course, {o.student: o for o in first + after}


@pytest.mark.parametrize("student", list(ATTACKS) + list(AFTER))
def test_attack_gets_its_true_score(graded, student):
    _, outcomes = graded
    entry = {**ATTACKS, **AFTER}[student]
    outcome = outcomes[student]
    assert outcome.status == entry.get("status", "graded"), outcome.message
    got = {gid: round(outcome.scores.get(gid, 0.0), 2) for gid in POINTS}
    assert got == expected_scores(entry)


def test_feedback_of_attacks_hides_the_hidden_tests(graded):
    course, _ = graded
    for student in ("forge_display", "empty_later_cells", "import_reference", "zz_wrong"):
        assert write_feedback(course, PS, student) == ""
        page = (course.root / "feedback" / student / PS / f"{PS}.html").read_text()
        assert "HIDDEN TESTS" not in page and "_grading" not in page
        assert "kpca_probe" not in page


def test_no_probe_output_survives_grading(graded):
    import nbformat

    course, outcomes = graded
    for student, outcome in outcomes.items():
        if outcome.status != "graded":
            continue
        nb = nbformat.read(course.notebook("autograded", PS, student), as_version=4)
        for cell in nb.cells:
            for out in cell.get("outputs", []):
                assert "application/vnd.kpca-probe+json" not in out.get("data", {}), student


def test_forbidden_import_is_named_in_the_feedback(graded):
    course, _ = graded
    text = course.notebook("autograded", PS, "import_reference").read_text()
    assert "[diagnosis: forbidden_import]" in text


def test_no_case_file_is_left_behind(graded):
    course, _ = graded
    assert not list((course.root / "autograded").rglob(".kpca_probe_cases.pickle"))


def test_plain_nbgrader_autograde_uses_the_judge(tmp_path):
    course = copy_course(tmp_path, [PS])
    assert not release(course, [PS])
    students = {name: ATTACKS[name] for name in (
        "empty_later_cells", "forge_display", "flood_display", "huge_power")}
    students["zz_correct"] = AFTER["zz_correct"]
    for student, entry in students.items():
        lay_entry(course, student, entry)
    env = {**os.environ, "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]}
    run = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", PS], check=False, cwd=course.root,
                         env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    for student, entry in students.items():
        got = {gid: round(v, 2) for gid, v in cell_scores(course, PS, student).items()
               if gid in POINTS}
        assert got == expected_scores(entry), student


def test_without_the_judge_the_attack_would_earn_full_marks(tmp_path):
    """The catalogue has teeth: stock nbgrader gives an emptied notebook every point."""
    course = copy_course(tmp_path, [PS])
    config = course.root / "nbgrader_config.py"
    text = config.read_text()
    config.write_text(text[: text.index("c.Autograde.autograde_preprocessors")])
    assert not release(course, [PS])
    lay_entry(course, "empty_later_cells", ATTACKS["empty_later_cells"])
    env = {**os.environ, "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]}
    run = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", PS], check=False,
                         cwd=course.root, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    got = {gid: v for gid, v in cell_scores(course, PS, "empty_later_cells").items()
           if gid in POINTS}
    assert got == POINTS


FLOODS = ("flood_lines", "flood_one_line", "flood_display", "flood_forged_probe", "huge_error",
          "flood_before_probe")


@pytest.mark.parametrize("student", FLOODS)
def test_floods_are_cut_as_they_arrive_with_a_note(graded, student):
    from kit.sandbox.output_limits import NOTEBOOK_BYTES

    course, _ = graded
    path = course.notebook("autograded", PS, student)
    assert path.stat().st_size < NOTEBOOK_BYTES + (1 << 20)
    text = path.read_text()
    if student != "flood_forged_probe":  # forged probe results are dropped without a word
        assert "[output truncated by the grader" in text or "[output lost" in text


def test_the_judge_is_bounded_with_a_clear_line(graded):
    course, _ = graded
    slow = course.notebook("autograded", PS, "slow_to_judge").read_text()
    assert f"this test could not be judged: judging this answer took over {JUDGE_CELL_SECONDS} s" in slow
    huge = course.notebook("autograded", PS, "huge_power").read_text()
    assert "value too large to grade" in huge
