"""A renamed exact item or graded cell (``kpca_ref.variants.RENAMED``) still reads from what
holds its old name: a gradebook of last term, the check service's records, a notebook
released before the rename. ps4's centred 3 x 3 matrix was ``ps4_centre_2x2``."""

from __future__ import annotations

import datetime as dt

import pytest
import sympy as sp

from kit.checks.store import Store, summary, wrong_checks
from kit.course import copy_course
from kit.engines.job import cell_scores
from kit.report.data import parts_of
from kit.report.page import outcomes_on_disk
from kpca_ref import variants
from kpca_ref.grading import harness

PS = "ps4_centering"
OLD_ITEM, NEW_ITEM = "ps4_centre_2x2", "ps4_centre_3x3"
OLD_CELL, NEW_CELL = "test_exact_centre_2x2", "test_exact_centre_3x3"


def test_the_rename_map_names_items_and_cells_of_the_current_notebooks():
    assert variants.RENAMED[OLD_ITEM] == NEW_ITEM and variants.RENAMED[OLD_CELL] == NEW_CELL
    for new in variants.RENAMED.values():
        assert new not in variants.RENAMED  # one step: no chain, no circle
    assert NEW_ITEM in variants.module(PS).ITEMS and OLD_ITEM not in variants.module(PS).ITEMS
    assert variants.current_name("ps4_poly_K") == "ps4_poly_K"
    assert variants.current_name(None) is None


@pytest.fixture
def old_gradebook(tmp_path):
    """A course whose gradebook graded ps4 before the rename: ada earned the cell's 2 points."""
    from nbgrader.api import Gradebook

    course = copy_course(tmp_path / "course", [PS])
    with Gradebook(course.db_url) as gb:
        gb.add_assignment(PS)
        gb.update_or_create_notebook(PS, PS)
        gb.update_or_create_grade_cell(OLD_CELL, PS, PS, max_score=2, cell_type="code")
        gb.update_or_create_grade_cell("test_exact_poly", PS, PS, max_score=2, cell_type="code")
        gb.add_student("ada")
        gb.add_submission(PS, "ada")
        gb.find_grade(OLD_CELL, PS, PS, "ada").auto_score = 2.0
        gb.find_grade("test_exact_poly", PS, PS, "ada").auto_score = 1.0
        gb.db.commit()
    for stage in ("submitted", "autograded"):
        folder = course.root / stage / "ada" / PS
        folder.mkdir(parents=True)
        (folder / f"{PS}.ipynb").write_text("{}")
    return course


def test_an_old_gradebook_gives_its_renamed_cell_under_the_current_grade_id(old_gradebook):
    scores = cell_scores(old_gradebook, PS, "ada")
    assert scores == {NEW_CELL: 2.0, "test_exact_poly": 1.0}
    assert NEW_CELL in {p.grade_id for p in parts_of(old_gradebook, PS)}  # the report's parts
    [outcome] = outcomes_on_disk(old_gradebook, [PS])
    assert outcome.status == "graded" and outcome.scores[NEW_CELL] == 2.0


def test_checks_recorded_under_the_old_name_count_as_the_items(tmp_path):
    url = f"sqlite:///{tmp_path / 'checks.db'}"
    store = Store(url)
    for verdict in ("wrong", "wrong"):
        row, _ = store.reserve("ada", OLD_ITEM, PS, 3)
        store.finish(row, verdict)
    assert store.used("ada", NEW_ITEM) == 2
    row, used = store.reserve("ada", NEW_ITEM, PS, 3)  # the third and last
    assert used == 3
    store.finish(row, "right")
    assert store.reserve("ada", NEW_ITEM, PS, 3) == (None, 3)
    assert wrong_checks(url, "ada", PS, dt.datetime(2100, 1, 1)) == {NEW_ITEM: 2}
    found = summary(url)
    assert OLD_ITEM not in found and found[NEW_ITEM]["students"] == 1
    assert found[NEW_ITEM]["attempts_before_right"] == 2


def test_a_hidden_test_of_an_old_gradebook_is_judged_as_the_item():
    right, _ = variants.answer(NEW_ITEM, "ada")
    assert variants.answer(OLD_ITEM, "ada")[0] == right
    assert harness.judge_exact(OLD_ITEM, right, "ada").ok
    not_centred = sp.Matrix(variants.numbers(PS, "ada").K)
    verdict = harness.judge_exact(OLD_ITEM, not_centred, "ada")
    assert not verdict.ok and verdict.code == "not_centred"
