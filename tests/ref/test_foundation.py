"""Input validation and the eigenvector sign rule shared by every module."""

import numpy as np
import pytest
import sympy as sp

from kpca_ref import _validation as v
from kpca_ref.signs import canonical_sign_exact, canonical_signs


def test_square_message_names_argument_and_shape():
    with pytest.raises(ValueError, match=r"K must be square, got shape \(3, 4\)"):
        v.as_square_float(np.zeros((3, 4)), "K")


@pytest.mark.parametrize("bad, word", [(np.nan, "NaN"), (np.inf, "inf")])
def test_non_finite_entries_are_refused(bad, word):
    with pytest.raises(ValueError, match=f"K contains {word}"):
        v.as_square_float([[1.0, bad], [bad, 1.0]], "K")


def test_float_in_exact_route_names_numeric_route():
    with pytest.raises(TypeError, match="numeric route"):
        v.as_exact_matrix(sp.Matrix([[1, sp.Float(0.5)]]), "K")


def test_exact_matrix_keeps_rationals():
    m = v.as_exact_matrix([[1, sp.Rational(1, 3)]], "X")
    assert m[0, 1] == sp.Rational(1, 3) and isinstance(m[0, 1], sp.Rational)


@pytest.mark.parametrize("value", [2.0, True, "2"])
def test_degree_must_be_integer(value):
    with pytest.raises(TypeError, match="p must be an integer"):
        v.check_int(value, "p")


def test_negative_gamma_refused():
    with pytest.raises(ValueError, match=r"gamma must be > 0, got -1"):
        v.check_positive(-1, "gamma")


def test_sign_rule_numeric_matches_exact():
    vectors = [[-1, 0, 1], [1, 1, -2], [0, -3, 3], [2, -2, 0]]
    for vec in vectors:
        exact = canonical_sign_exact(sp.Matrix(vec))
        numeric = canonical_signs(np.array(vec, dtype=float) / np.linalg.norm(vec))
        assert np.allclose(np.array(exact, dtype=float).ravel() / np.linalg.norm(vec), numeric)


def test_sign_rule_survives_rounding_ties():
    col = np.array([-1 / np.sqrt(2), 0.0, 1 / np.sqrt(2) + 1e-15])
    assert canonical_signs(col)[0] > 0
