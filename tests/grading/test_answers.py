"""The exact-answer registry and grade_exact."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from kpca_ref import grading
from kpca_ref.grading import answers


@pytest.fixture
def registered():
    """Register three test answers; remove them afterwards."""
    names = ["test_ratio", "test_vectors", "test_vector_signed", "test_ratio_column"]

    @grading.register_answer("test_ratio")
    def ratio():
        return sp.Rational(4, 7)

    @grading.register_answer("test_vectors")
    def vectors():
        return sp.Matrix([[1, 1], [-1, 1], [0, -2]]) / sp.sqrt(2)

    @grading.register_answer("test_vector_signed", up_to_sign=True)
    def signed():
        return sp.Matrix([[1, 1], [-1, 1], [0, -2]]) / 4

    @grading.register_answer("test_ratio_column")
    def column():
        return vectors()[:, 0]

    yield
    for name in names:
        answers.ANSWERS.pop(name, None)
        answers.UP_TO_SIGN.discard(name)


@pytest.mark.usefixtures("registered")
def test_exact_value_earns_the_points(capsys):
    assert grading.grade_exact("test_ratio", sp.Rational(4, 7), 2) == 2.0
    assert grading.grade_exact("test_ratio", Fraction(8, 14), 2) == 2.0
    assert grading.grade_exact("test_ratio", 4 / sp.Integer(7), 2) == 2.0
    assert capsys.readouterr().out == "✓ test_ratio\n" * 3


@pytest.mark.usefixtures("registered")
@pytest.mark.parametrize("value", [0.5714, 4 / 7, np.float64(4 / 7), sp.Float(4 / 7)])
def test_float_earns_nothing(value, capsys):
    assert grading.grade_exact("test_ratio", value, 2) == 0.0
    assert capsys.readouterr().out == (
        "✗ test_ratio: exact value expected, got a float [diagnosis: float_not_exact]\n")


@pytest.mark.usefixtures("registered")
def test_wrong_value_earns_nothing(capsys):
    assert grading.grade_exact("test_ratio", sp.Rational(3, 7), 2) == 0.0
    assert capsys.readouterr().out == "✗ test_ratio: not equal to the expected exact value\n"


@pytest.mark.usefixtures("registered")
def test_matrix_answers(capsys):
    good = sp.Matrix([[1, 1], [-1, 1], [0, -2]]) * sp.sqrt(2) / 2
    assert grading.grade_exact("test_vectors", good, 1) == 1.0
    assert grading.grade_exact("test_vectors", good.T, 1) == 0.0
    assert "answer has shape (2, 3), expected (3, 2)" in capsys.readouterr().out
    flipped = good * sp.diag(-1, 1)
    assert grading.grade_exact("test_vectors", flipped, 1) == 0.0  # not registered up_to_sign
    assert grading.grade_exact("test_vectors", sp.N(good), 1) == 0.0


@pytest.mark.usefixtures("registered")
def test_vector_answers_in_any_layout(capsys):
    column = answers.ANSWERS["test_vectors"]()[:, 0]
    for value in (column, column.T, list(column), tuple(column)):
        assert grading.grade_exact("test_ratio_column", value, 1) == 1.0
    assert grading.grade_exact("test_ratio_column", list(column)[:2], 1) == 0.0


@pytest.mark.usefixtures("registered")
def test_up_to_sign_per_column():
    base = sp.Matrix([[1, 1], [-1, 1], [0, -2]]) / 4
    for signs in ((1, 1), (-1, 1), (1, -1), (-1, -1)):
        assert grading.grade_exact("test_vector_signed", base * sp.diag(*signs), 1) == 1.0
    half_flipped = base.copy()
    half_flipped[0, 0] *= -1
    assert grading.grade_exact("test_vector_signed", half_flipped, 1) == 0.0


def test_unknown_answer_lists_known_names():
    with pytest.raises(KeyError, match="known answers: .*"):
        grading.grade_exact("no_such_answer", 1, 1)


def test_registering_a_name_twice_is_refused(registered):
    with pytest.raises(ValueError, match="already registered"):
        grading.register_answer("test_ratio")(lambda: 1)


def test_every_registered_answer_is_exact_and_grades_itself(capsys):
    for name, fn in sorted(answers.ANSWERS.items()):
        value = fn()
        grading.as_exact(value, name=name)  # raises on any float
        assert grading.grade_exact(name, value, 1) == 1.0, name
