"""What kit.itemstats reads from a course: the cells each family's exact items sit in, the
judge's named mistakes per cell (its record only, codes checked) and the instant checks'
figures per exact item (items the course does not have left out)."""

from __future__ import annotations

import shutil

import nbformat

from kit.course import JUDGE_KEY, REPO_ROOT, Course
from kit.itemstats.gather import checks, families_of, mistakes

PS = "ps1_circle_lift"


def _course(tmp_path) -> Course:
    course = Course(tmp_path)
    source = course.notebook("source", PS)
    source.parent.mkdir(parents=True)
    shutil.copy(Course(REPO_ROOT).notebook("source", PS), source)
    return course


def test_the_cells_of_each_family_come_from_the_hidden_grading_calls(tmp_path):
    found = families_of(_course(tmp_path), [PS])
    assert found[PS, "triple"] == {"variances_three_test"}
    assert found[PS, "circle"] == {"lift_point_test", "circle_u_test", "lift_dot_u_test"}


def test_named_mistakes_are_the_judges_record_and_nothing_printed(tmp_path):
    course = _course(tmp_path)
    nb = nbformat.read(course.notebook("source", PS), as_version=4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "lift_test")
    cell.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="✗ [diagnosis: forged_code]\n"),
        nbformat.v4.new_output("display_data", data={"text/plain": "1"},
                               metadata={JUDGE_KEY: {"diagnoses": ["printed_in_display"]}}),
        nbformat.v4.new_output("execute_result", data={"text/plain": "0.0"}, execution_count=1,
                               metadata={JUDGE_KEY: {"diagnoses": [
                                   "lift_column_order", "<script>x", "\x1b[2J", 5]}})]
    for student in ("ada", "ben"):
        path = course.notebook("autograded", PS, student)
        path.parent.mkdir(parents=True)
        nbformat.write(nb, path)
    found = mistakes(course, [(PS, "ada"), (PS, "ben"), (PS, "not_handed_in")])
    assert found == {(PS, "lift_test"): [("lift_column_order", 2)]}


def test_instant_checks_first_try_and_attempts_per_exact_item(tmp_path, monkeypatch):
    from kit.checks.store import Store

    monkeypatch.delenv("KPCA_DB_URL", raising=False)
    course = _course(tmp_path)
    store = Store(f"sqlite:///{tmp_path / 'gradebook.db'}")
    for student, item, verdicts in [
            ("ada", "ps1_circle_u", ["right"]),
            ("ben", "ps1_circle_u", ["wrong", "mistake", "right"]),
            ("gus", "ps1_circle_u", ["wrong"]),
            ("ada", "ps1_no_such_item", ["right"]),  # forged: never shown
            ("ada", "<img src=x>", ["right"])]:
        for verdict in verdicts:
            row, _ = store.reserve(student, item, PS, 10)
            store.finish(row, verdict, "norm_not_one" if verdict == "mistake" else None)
    found = checks(course, [PS])
    assert found == {(PS, "circle_u_test"): {"ps1_circle_u": {
        "students": 3, "attempts": 5, "first_try": 1 / 3}}}


def test_the_class_report_has_both_sections_and_writes_both_csvs(graded):
    import csv

    reports = graded.course.root / "reports"
    page = (reports / "class_report.html").read_text(encoding="utf-8")
    assert "<section id=itemstats>" in page and "<section id=fairness>" in page
    with (reports / "item_stats.csv").open(newline="", encoding="utf-8") as fh:
        rows = {(r["level"], r["item"]): r for r in csv.DictReader(fh)}
    lift = rows["cell", "lift_test"]
    assert lift["students"] == "4" and "lift_column_order (1)" in lift["named_mistakes"]
    assert lift["flags"].startswith("too few students") and lift["discrimination"] == ""
    with (reports / "fairness.csv").open(newline="", encoding="utf-8") as fh:
        families = {r["family"]: r for r in csv.DictReader(fh) if r["candidate"] == "all"}
    assert set(families) == {"circle", "triple"}
    assert all(r["note"].startswith("too few students") and r["flagged"] == ""
               for r in families.values())
