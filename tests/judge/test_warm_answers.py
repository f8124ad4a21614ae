"""The grader works out a student's exact answers before forking the judge's child.

``WriteCases`` (in the grading process) computes the answers of the problem sets whose exact
items the notebook grades, for the submission's nbgrader student; the judge's child, forked
afterwards, finds them cached instead of computing them for every notebook anew.
"""

from __future__ import annotations

from kit.judge.preprocessors import _warm_exact_items
from kpca_ref import variants


def test_the_students_answers_are_cached_before_the_child_is_forked():
    student = "warm_answers_ada"
    _warm_exact_items(["ps5_3pt_alpha", "ps5_poly_eigenvalues", "ps2_gamma_exact"], student)
    before = variants.variant.cache_info()
    variants.answer("ps5_new_point_scores", student)  # as the judge asks for it
    variants.answer("ps2_count_tally", student)
    after = variants.variant.cache_info()
    assert (after.hits - before.hits, after.misses - before.misses) == (2, 0)


def test_nothing_is_computed_without_a_student_and_unknown_names_are_left_to_the_judge():
    before = variants.variant.cache_info()
    _warm_exact_items(["ps5_3pt_alpha"], None)
    _warm_exact_items(["no_such_item", "psx_unknown", 7], "warm_answers_bob")  # no exception
    assert variants.variant.cache_info().misses == before.misses
