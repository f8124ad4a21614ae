"""Per-part grades (``grades_by_part.csv``): what each graded cell earned, from the kit's
export and from ``nbgrader export``, hand grades included, adding up to each hand-in's score."""

from __future__ import annotations

import csv
from collections import defaultdict

import pytest

from kit.gradebook.parts import COLUMNS, LATE_PART, part_titles, submission_rows
from tests.support.graded_class import HAND_GRADES, PS
from tests.support.nbgrading import auto_points, read_source


def _read(path):
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        assert tuple(reader.fieldnames) == COLUMNS
        return list(reader)


@pytest.fixture
def kit_rows(graded):
    return _read(graded.course.root / "reports" / "grades_by_part.csv")


def test_each_hand_in_s_parts_add_up_to_its_score_in_grades_csv(graded, kit_rows):
    sums = defaultdict(float)
    for r in kit_rows:
        if r["points"] != "":
            sums[r["student"]] += float(r["points"])
    scores = {r["student"]: float(r["score_after_late"] or r["score"])
              for r in _read_plain(graded.course.root / "reports" / "grades.csv")
              if r["status"] == "graded"}
    assert scores and {s: round(v, 2) for s, v in sums.items()} == scores


def _read_plain(path):
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_every_auto_graded_cell_and_written_answer_has_its_row_under_its_part(kit_rows):
    ada = {r["grade_id"]: r for r in kit_rows if r["student"] == "ada"}
    auto = auto_points(read_source(PS))
    assert {g for g, r in ada.items() if r["kind"] == "auto"} == set(auto)
    for gid, points in auto.items():  # ada handed in the solution: every point
        assert float(ada[gid]["points"]) == float(ada[gid]["max_points"]) == points
    for cell, (points, _) in HAND_GRADES["ada"].items():
        assert ada[cell]["kind"] == "manual" and float(ada[cell]["points"]) == points
    assert all(r["part"].startswith("Part ") for r in ada.values()), sorted(
        {r["part"] for r in ada.values()})


def test_a_written_answer_not_yet_graded_has_no_points(kit_rows):
    gus = {r["grade_id"]: r for r in kit_rows if r["student"] == "gus"}
    graded_cells = set(HAND_GRADES["gus"])
    manual = {g: r for g, r in gus.items() if r["kind"] == "manual"}
    assert graded_cells < set(manual)
    for gid, r in manual.items():
        assert (r["graded"], r["points"] != "") == (("yes", True) if gid in graded_cells else ("no", False))


def test_nbgrader_export_writes_the_same_parts_beside_its_file(graded, kit_rows):
    plugin = _read(graded.export_csv.with_name(f"{graded.export_csv.stem}_by_part.csv"))
    assert sorted(map(tuple, (r.values() for r in plugin))) == sorted(
        map(tuple, (r.values() for r in kit_rows)))


def test_a_late_penalty_is_its_own_negative_row_and_hostile_ids_stay_text():
    """A hand-in whose lateness took points gets a ``late penalty`` row; a student id shaped
    like a formula or holding escapes reaches the spreadsheet as inert text."""
    class Obj:
        def __init__(self, **kw):
            self.__dict__.update(kw)

    cell = Obj(name="test_a")
    nb = Obj(grade_cells=[cell], solution_cells=[])
    grade = Obj(name="test_a", score=3.0, max_score=4.0, manual_score=None)
    sub = Obj(student=Obj(id="=HYPERLINK(\"x\")\x1b[31m"), assignment=Obj(name=PS),
              notebooks=[Obj(notebook=nb, grades=[grade], late_submission_penalty=1.2)])
    rows = submission_rows(sub, {"test_a": "=Part 1"})
    assert [r["kind"] for r in rows] == ["auto", "late"]
    assert rows[1]["part"] == LATE_PART and rows[1]["points"] == -1.2
    assert rows[0]["student"].startswith("'") and "\x1b" not in rows[0]["student"]
    assert rows[0]["part"] == "'=Part 1"


def test_part_titles_name_each_graded_cell_by_the_heading_above_it():
    titles = part_titles(_source_path())
    assert set(auto_points(read_source(PS))) <= set(titles)
    assert not any("points)" in t for t in titles.values())


def _source_path():
    from kit.course import REPO_ROOT

    return REPO_ROOT / "source" / PS / f"{PS}.ipynb"
