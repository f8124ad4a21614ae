"""The main job end to end on a temporary copy of the course, and its failure cases."""

from __future__ import annotations

import csv

from kit import demo
from kit.autograde import grade_class
from kit.course import ASSIGNMENTS, copy_course
from kit.handback.feedback import feedback_page
from kit.intake.submitted import build_submission, lay, lay_class
from kit.release import release
from tests.demo_class import (
    EXPECTED,
    ROSTER,
    pastes_classmate,
    pastes_lecture,
    types_classmate_id,
)
from tests.support.nbgrading import (
    auto_points,
    exact_points,
    hidden_test_lines,
    read_source,
    variants,
)


def _auto_total(course, outcome):
    ids = auto_points(read_source(outcome.assignment))
    return round(sum(v for k, v in outcome.scores.items() if k in ids), 2)


def test_expected_scores_follow_from_the_submissions():
    """EXPECTED is consistent with what tests/submissions says each variant loses."""
    for student, work in ROSTER.items():
        for assignment in ASSIGNMENTS:
            what = work.get(assignment)
            full = sum(auto_points(read_source(assignment)).values())
            if isinstance(what, str) and what not in ("solution", "blank"):
                lost = sum(variants(assignment)[what]["lost"].values())
                assert EXPECTED[student][assignment] == full - lost, (student, assignment)
            elif what == "solution":
                assert EXPECTED[student][assignment] == full, (student, assignment)
            elif what in (pastes_lecture, pastes_classmate, types_classmate_id):
                exact = sum(exact_points(assignment).values())
                assert exact > 0 and EXPECTED[student][assignment] == full - exact, (
                    student, assignment)


def test_pasting_students_lose_exactly_the_exact_items(demo_run):
    """Lecture values, a classmate's values or a classmate's id: only the exact cells lose."""
    _, outcomes = demo_run
    for o in outcomes:
        if o.student in ("qin_pastes_lecture", "ray_pastes_classmate", "sam_typed_classmate_id") \
                and o.status == "graded":
            exact = exact_points(o.assignment)
            points = auto_points(read_source(o.assignment))
            zero = {g for g in points if o.scores[g] == 0}
            assert zero == set(exact), (o.student, o.assignment, zero ^ set(exact))


def test_class_report_lists_a_typed_classmate_id(demo_run):
    course, _ = demo_run
    page = (course.root / "reports" / "class_report.html").read_text(encoding="utf-8")
    listed = page.split("another student's id</h2>")[1]
    assert "sam_typed_classmate_id / ps1_circle_lift" in listed
    assert "ada_reference" in listed
    assert "qin_pastes_lecture" not in listed


def test_copying_evidence_names_the_classmate_keys_and_no_one_else(demo_run):
    """ray pasted ada_reference's keys, sam worked on her numbers (ps1): both are listed with
    her; the lecture's values, named mistakes and floats are nobody's key, and the
    instructor's solution that many typed in is no shared code."""
    course, _ = demo_run
    with open(course.root / "reports" / "copying.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    keys = [r for r in rows if r["signal"] == "another student's key"]
    ray = {r["problem_set"] for r in keys if r["student"] == "ray_pastes_classmate"
           and "ada_reference" in r["other_students"].split(", ")}
    assert len(ray) >= 5, ray
    assert any(r["student"] == "sam_typed_classmate_id" and r["problem_set"] == "ps1_circle_lift"
               and "ada_reference" in r["other_students"].split(", ") for r in keys)
    assert {r["student"] for r in keys} == {"ray_pastes_classmate", "sam_typed_classmate_id"}
    shared = [r for r in rows if r["signal"].startswith("identical")]
    assert not any("ada_reference" in (r["student"], *r["other_students"].split(", ")) for r in shared)
    page = (course.root / "reports" / "class_report.html").read_text(encoding="utf-8")
    section = page.split("<section id=copying>")[1]
    assert "ray_pastes_classmate" in section and "ada_reference" in section


def test_every_demo_student_gets_the_reasoned_score(demo_run):
    course, outcomes = demo_run
    got = {}
    for o in outcomes:
        got.setdefault(o.student, {})[o.assignment] = (
            None if o.status == "not submitted" else _auto_total(course, o))
    assert got == EXPECTED


def test_odd_files_get_a_clear_line_and_zero(demo_run):
    _, outcomes = demo_run
    failed = {(o.student, o.assignment): o.message for o in outcomes if o.status == "failed"}
    assert set(failed) == {("pat_odd_files", "ps3_mercer"), ("pat_odd_files", "ps4_centering")}
    assert "not a readable notebook" in failed["pat_odd_files", "ps3_mercer"]
    assert "wrong problem set" in failed["pat_odd_files", "ps4_centering"]


def test_feedback_pages_exist_and_hide_the_hidden_tests(demo_run):
    course, outcomes = demo_run
    hidden_lines = set().union(*(hidden_test_lines(a) for a in ASSIGNMENTS))
    assert hidden_lines
    graded = [o for o in outcomes if o.status == "graded"]
    assert graded
    for o in graded:
        page = feedback_page(course, o.assignment, o.student).read_text(encoding="utf-8")
        assert "HIDDEN TESTS" not in page and "_grading" not in page
        assert "Test cell</a>" not in page and "Part 1" in page, "the summary names the parts"
        leaked = [line for line in hidden_lines if line in page]
        assert not leaked, f"{o.student}/{o.assignment} feedback shows {leaked[:2]}"


def test_grades_csv_has_one_row_per_student_and_problem_set(demo_run):
    course, _ = demo_run
    with (course.root / "reports" / "grades.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == len(ROSTER) * len(ASSIGNMENTS)
    assert {(r["student"], r["assignment"]) for r in rows} == {
        (s, a) for s in ROSTER for a in ASSIGNMENTS}
    for r in rows:
        expected = EXPECTED[r["student"]][r["assignment"]]
        assert float(r["auto_score"]) == (expected or 0), r
        assert float(r["score"]) == float(r["auto_score"]) + float(r["manual_score"])


def test_class_report_names_diagnosed_mistakes(demo_run):
    course, _ = demo_run
    html = (course.root / "reports" / "class_report.html").read_text()
    assert html.count('<img src="data:image/png;base64,') == len(ASSIGNMENTS)
    for code in ("new_point_own_mean", "alpha_not_scaled", "ascending_order", "variance_divisor"):
        assert f"<code>{code}</code>" in html


def test_grading_twice_gives_the_same_grades(demo_run):
    course, outcomes = demo_run
    again = grade_class(course, ["ps5_kernel_pca"], students=["fay_divisor", "ada_reference"],
                        progress=False)
    before = {(o.student, o.assignment): o.scores for o in outcomes}
    for o in again:
        assert o.scores == before[o.student, o.assignment]


def test_grade_table_lists_every_student(demo_run):
    course, outcomes = demo_run
    table = demo.grade_table(course, outcomes)
    for student in ROSTER:
        assert student in table


def test_failures_do_not_stop_the_others(tmp_path):
    """A kernel that dies, a missing notebook: a line each, zero, and the rest graded."""
    ps = "ps1_circle_lift"
    course = copy_course(tmp_path, [ps])
    assert not release(course, [ps])
    first_answer = next(c.metadata["nbgrader"]["grade_id"] for c in read_source(ps).cells
                        if c.metadata.get("nbgrader", {}).get("solution"))
    lay(course, ps, "dies", build_submission(course, ps, {first_answer: "import os\nos._exit(3)"}))
    lay(course, ps, "good", build_submission(course, ps))
    (course.root / "submitted" / "misnamed" / ps).mkdir(parents=True)
    lay(course, ps, "misnamed", build_submission(course, ps)).rename(
        course.root / "submitted" / "misnamed" / ps / "my_work.ipynb")
    outcomes = {o.student: o for o in grade_class(course, [ps], workers=2, progress=False)}
    assert outcomes["good"].status == "graded"
    assert outcomes["good"].total == sum(auto_points(read_source(ps)).values())
    assert outcomes["dies"].status == "failed" and "kernel died" in outcomes["dies"].message
    assert outcomes["misnamed"].status == "failed"
    assert "no ps1_circle_lift.ipynb" in outcomes["misnamed"].message
    assert "my_work.ipynb" in outcomes["misnamed"].message


def test_lay_class_writes_each_roster_entry(tmp_path):
    ps = "ps1_circle_lift"
    course = copy_course(tmp_path, [ps])
    assert not release(course, [ps])
    lay_class(course, {"a": {ps: "solution"}, "b": {ps: "blank"}})
    assert course.notebook("submitted", ps, "a").exists()
    assert course.notebook("submitted", ps, "b").read_bytes() == course.notebook("release", ps).read_bytes()


def test_release_that_nbgrader_refuses_keeps_the_old_release_and_says_why(tmp_path, capsys):
    """Changing graded cells under graded submissions: nbgrader refuses (and deletes the
    release folder); kit.release puts the old release back and names the reason."""
    import nbformat
    from nbgrader.api import Gradebook

    ps = "ps1_circle_lift"
    course = copy_course(tmp_path, [ps])
    assert not release(course, [ps])
    before = course.notebook("release", ps).read_bytes()
    with Gradebook(course.db_url) as gb:
        gb.add_student("someone")
        gb.add_submission(ps, "someone")
    nb = nbformat.read(course.notebook("source", ps), as_version=4)
    nb.cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") != "variances_three_test"]
    nbformat.write(nb, course.notebook("source", ps))
    assert release(course, [ps]) == [ps]
    out = capsys.readouterr().out
    assert "Cannot add or remove cells" in out and "fresh gradebook" in out
    assert course.notebook("release", ps).read_bytes() == before
