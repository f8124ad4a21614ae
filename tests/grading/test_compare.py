"""Coercion of students' values and the comparison helpers of kpca_ref.grading."""

from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from kpca_ref import grading
from kpca_ref.grading.compare import mismatch_report


class LyingArray(np.ndarray):
    """An ndarray whose comparisons and ufuncs always claim agreement."""

    def __eq__(self, other):
        return True

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return np.zeros(np.shape(inputs[0]))


class LyingObject:
    """Wrong data behind __array__, and ufuncs that report every difference as zero."""

    def __init__(self, data):
        self.data = np.asarray(data, dtype=float)

    def __array__(self, dtype=None, copy=None):
        return self.data if dtype is None else self.data.astype(dtype)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return np.zeros(self.data.shape)

    def __eq__(self, other):
        return True


class LyingRational(sp.Rational):
    def __eq__(self, other):
        return True

    __hash__ = sp.Rational.__hash__


# ---- as_float_array -------------------------------------------------------------------------

def test_as_float_array_gives_plain_float64():
    arr = grading.as_float_array([[1, 2], [3, 4]], (2, 2))
    assert type(arr) is np.ndarray and arr.dtype == np.float64


def test_shape_message_names_both_shapes():
    with pytest.raises(AssertionError, match=r"result has shape \(3, 2\), expected \(3, 3\)"):
        grading.as_float_array(np.zeros((3, 2)), (3, 3))
    with pytest.raises(AssertionError, match=r"alpha has shape \(4,\), expected \(4, 1\)"):
        grading.as_float_array(np.zeros(4), (4, 1), name="alpha")


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_values_are_refused(bad):
    with pytest.raises(AssertionError, match="NaN or inf"):
        grading.as_float_array([1.0, bad])


@pytest.mark.parametrize("value, text", [(None, "None"), ([[1, 2], [3]], "could not be read"),
                                         ("abc", "could not be read")])
def test_unreadable_values(value, text):
    with pytest.raises(AssertionError, match=text):
        grading.as_float_array(value)


def test_scalar_shape_accepts_one_element():
    assert grading.as_float_array(np.array([2.5]), ()).shape == ()
    assert grading.as_float_array(np.float64(2.5), ()) == 2.5


def test_complex_with_zero_imaginary_part_is_real():
    arr = grading.as_float_array(np.array([1 + 0j, 2 + 0j]), (2,))
    assert arr.tolist() == [1.0, 2.0]
    with pytest.raises(AssertionError, match="complex"):
        grading.as_float_array(np.array([1 + 1j, 2]))


def test_subclass_with_lying_eq_loses_its_class():
    liar = np.array([5.0, 6.0]).view(LyingArray)
    arr = grading.as_float_array(liar, (2,))
    assert type(arr) is np.ndarray
    assert not grading.allclose(liar, [1.0, 2.0])
    assert grading.allclose(liar, [5.0, 6.0])


def test_object_with_lying_array_ufunc_is_judged_on_its_data():
    liar = LyingObject([[9.0, 9.0], [9.0, 9.0]])
    assert not grading.allclose(liar, np.eye(2))
    assert not grading.allclose_up_to_sign(liar, np.eye(2))
    assert not grading.same_subspace(LyingObject([[1.0], [0.0]]), [[0.0], [1.0]])


def test_sympy_matrix_is_read_as_floats():
    arr = grading.as_float_array(sp.Matrix([[1, sp.Rational(1, 2)]]), (1, 2))
    assert arr.tolist() == [[1.0, 0.5]]


# ---- as_int, as_bool ------------------------------------------------------------------------

def test_as_int_accepts_integral_numbers_only():
    assert grading.as_int(np.int64(7)) == 7 and grading.as_int(7.0) == 7
    assert grading.as_int(sp.Integer(3)) == 3
    for bad in (7.5, True, "7", None):
        with pytest.raises(AssertionError):
            grading.as_int(bad)


def test_as_bool():
    assert grading.as_bool(np.bool_(False)) is False and grading.as_bool(sp.true) is True
    for bad in (1, None, "True"):
        with pytest.raises(AssertionError, match="True or False"):
            grading.as_bool(bad)


# ---- allclose and friends -------------------------------------------------------------------

def test_allclose_is_relative_to_scale():
    K = np.array([[2.0, 1.0], [1.0, 2.0]])
    for scale in (1e-6, 1.0, 1e6):
        assert grading.allclose(scale * K * (1 + 1e-9), scale * K)
        assert not grading.allclose(scale * K * (1 + 1e-4), scale * K)


def test_allclose_shape_and_nan():
    assert not grading.allclose(np.zeros((2, 3)), np.zeros((3, 2)))
    assert not grading.allclose([np.nan], [1.0])
    assert grading.allclose([0.0, 1e-12], [0.0, 0.0])


def test_allclose_per_column_scale():
    expected = np.array([[1e6, 1.0], [2e6, 2.0]])
    off = expected + np.array([[0.0, 0.01], [0.0, 0.0]])
    assert grading.allclose(off, expected)  # the small column hides under the global scale
    assert not grading.allclose(off, expected, per_column=True)


def test_allclose_up_to_sign_per_column():
    expected = np.array([[1.0, 2.0], [3.0, -4.0], [0.5, 0.0]])
    flipped = expected * np.array([-1.0, 1.0])
    assert grading.allclose_up_to_sign(flipped, expected)
    assert grading.allclose_up_to_sign(-expected[:, 0], expected[:, 0])
    mixed = expected.copy()
    mixed[0, 0] *= -1  # one entry flipped is not a sign flip
    assert not grading.allclose_up_to_sign(mixed, expected)


def test_same_subspace():
    rng = np.random.default_rng(3)
    basis = np.linalg.qr(rng.standard_normal((6, 2)))[0]
    rotation = np.array([[0.6, -0.8], [0.8, 0.6]])
    assert grading.same_subspace(basis @ rotation * 3.0, basis)
    assert not grading.same_subspace(rng.standard_normal((6, 2)), basis)
    assert not grading.same_subspace(np.column_stack([basis[:, 0], basis[:, 0]]), basis)
    assert not grading.same_subspace(basis[:, :1], basis)


def test_mismatch_report_reveals_no_value():
    text = mismatch_report([[1.0, 2.0], [3.0, 7.25]], [[1.0, 2.0], [3.0, 4.5]])
    assert text == "1 of 4 entries differ from the expected values (the first at index (1, 1))"
    assert "4.5" not in text and "7.25" not in text


# ---- exact values ---------------------------------------------------------------------------

def test_as_exact_conversions():
    assert grading.as_exact(Fraction(4, 7)) == sp.Rational(4, 7)
    assert grading.as_exact(np.array([[1, 2], [3, 4]])) == sp.ImmutableMatrix([[1, 2], [3, 4]])
    assert grading.as_exact((True, False)) == [True, False]
    assert grading.as_exact({"a": 3}) == {"a": sp.Integer(3)}


@pytest.mark.parametrize("value", [0.5714, np.float64(0.5), np.array([0.5, 1.0]),
                                   sp.Float(0.5), sp.Matrix([[1, sp.Float(0.25)]]),
                                   [sp.Rational(1, 2), 0.5], sp.sqrt(2) * sp.Float(1.0)])
def test_floats_are_not_exact(value):
    with pytest.raises(grading.FloatNotExact, match="exact value expected, got a float"):
        grading.as_exact(value)


def test_exact_refuses_foreign_classes():
    with pytest.raises(AssertionError, match="not a sympy value"):
        grading.as_exact(LyingRational(1, 3))
    with pytest.raises(AssertionError, match="must be a sympy value"):
        grading.as_exact("4/7")


def test_exact_equal():
    assert grading.exact_equal(sp.sqrt(2) / 2, 1 / sp.sqrt(2))
    assert grading.exact_equal(sp.Rational(4, 7), Fraction(4, 7))
    assert not grading.exact_equal(sp.Rational(4, 7), sp.Rational(57, 100))
    assert not grading.exact_equal(0.5, sp.Rational(1, 2))
    assert grading.exact_equal(sp.Matrix([1, 2]), [1, 2])
    assert not grading.exact_equal(sp.Matrix([[1, 2]]), sp.Matrix([[1], [2], [3]]))
    assert not grading.exact_equal(sp.Matrix([[1, 0], [0, 1]]), sp.Matrix([[1, 0, 0]]))
    assert grading.exact_equal((True, False), [True, False])
    assert not grading.exact_equal(1, True)
    assert not grading.exact_equal(LyingRational(1, 3), sp.Rational(1, 2))
