"""ps2 reference: counting coordinates and explicit feature maps."""

import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from kpca_ref.feature_maps import (
    count_distinct_products,
    count_monomials,
    poly_feature_map,
    quadratic_map,
    rbf_features_1d,
)

R, S2 = sp.Rational, sp.sqrt(2)

# Lecture 000, table "size of feature spaces": d, p, sum C(d, i), C(d+p, p), d^p
SIZE_TABLE = [
    (2, 2, 4, 6, 4),
    (4, 3, 15, 35, 64),
    (10, 3, 176, 286, 1000),
    (100, 3, 166_751, 176_851, 10**6),
    (100, 5, 79_375_496, 96_560_646, 10**10),
    (1000, 3, 166_667_501, 167_668_501, 10**9),
    (10, 15, 1_024, 3_268_760, 10**15),
    (2, 20, 4, 231, 1_048_576),
]


# ---------------------------------------------------------------- counts
@pytest.mark.parametrize("d, p, distinct, monomials, ordered", SIZE_TABLE)
def test_lecture_size_table(d, p, distinct, monomials, ordered):
    assert count_distinct_products(d, p) == distinct
    assert count_monomials(d, p) == monomials
    assert d**p == ordered  # the third column is the plain power the other two are compared with


def test_q4_counts_for_three_features_power_two():
    assert (count_distinct_products(3, 2), count_monomials(3, 2)) == (7, 10)


def test_cubic_tally_for_four_features():
    # the lecture's 1 + 4 + 6 + 4 = 15 for height, weight, age, gender up to power 3
    assert count_distinct_products(4, 3) == 1 + 4 + 6 + 4


def test_two_features_powers_one_to_four():
    assert [count_monomials(2, p) for p in (1, 2, 3, 4)] == [3, 6, 10, 15]


@pytest.mark.parametrize("fn", [count_distinct_products, count_monomials])
@pytest.mark.parametrize("d, p, exc, message", [
    (2.0, 2, TypeError, "d must be an integer, got float 2.0"),
    (2, 2.0, TypeError, "p must be an integer, got float 2.0"),
    (True, 2, TypeError, "d must be an integer, got bool"),
    (0, 2, ValueError, "d must be >= 1, got 0"),
    (3, -1, ValueError, "p must be >= 0, got -1"),
])
def test_counts_validate_integers(fn, d, p, exc, message):
    with pytest.raises(exc, match=message):
        fn(d, p)


def test_counts_accept_numpy_and_sympy_integers():
    assert count_monomials(np.int64(3), sp.Integer(2)) == 10
    assert isinstance(count_distinct_products(np.int64(3), 2), int)


# ---------------------------------------------------------------- quadratic map (Q3)
def test_q3_lecture_phi_vectors_exact():
    phi_x, phi_y = quadratic_map(sp.Matrix([1, 2])), quadratic_map(sp.Matrix([3, -1]))
    assert phi_x == sp.Matrix([1, 4, 1, 2 * S2, S2, 2 * S2])
    assert phi_y == sp.Matrix([9, 1, 1, -3 * S2, 3 * S2, -S2])
    products = [phi_x[i] * phi_y[i] for i in range(6)]
    assert products == [9, 4, 1, -12, 6, -4]
    assert phi_x.dot(phi_y) == 4 and isinstance(phi_x.dot(phi_y), sp.Integer)


def test_q3_numeric_route():
    phi_x, phi_y = quadratic_map([1.0, 2.0]), quadratic_map(np.array([3.0, -1.0]))
    assert phi_x.shape == (6,) and phi_x.dtype == np.float64
    assert np.allclose(phi_x, [1, 4, 1, 2 * np.sqrt(2), np.sqrt(2), 2 * np.sqrt(2)])
    assert np.isclose(phi_x @ phi_y, 4.0)


def test_quadratic_map_rows():
    X = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.0]])
    out = quadratic_map(X)
    assert out.shape == (3, 6)
    assert np.allclose(out @ out.T, (X @ X.T + 1) ** 2)
    assert quadratic_map(sp.Matrix([[1, 2], [3, -1]])).shape == (2, 6)


@pytest.mark.parametrize("x, exc, message", [
    ([1.0, 2.0, 3.0], ValueError, r"x must have 2 coordinates per point, got shape \(3,\)"),
    (np.zeros((2, 2, 2)), ValueError, r"x must be 1-D \(one point\) or 2-D"),
    ([1.0, np.inf], ValueError, "x contains inf"),
    ([sp.Integer(1), 0.5], TypeError, "numeric route"),
])
def test_quadratic_map_bad_input(x, exc, message):
    with pytest.raises(exc, match=message):
        quadratic_map(x)


# ---------------------------------------------------------------- polynomial feature map
def test_poly_map_degree_two_is_the_quadratic_map_reordered():
    x = sp.Matrix([1, 2])
    assert sorted(poly_feature_map(x, 2), key=sp.default_sort_key) == sorted(
        quadratic_map(x), key=sp.default_sort_key)
    assert poly_feature_map(x, 2).dot(poly_feature_map(sp.Matrix([3, -1]), 2)) == 4


def test_poly_map_exact_with_rational_constant():
    x, y, c = sp.Matrix([R(1, 2), -1, 3]), sp.Matrix([2, R(1, 3), 0]), R(5, 2)
    phi_x, phi_y = poly_feature_map(x, 3, c), poly_feature_map(y, 3, c)
    assert phi_x.shape == (count_monomials(3, 3), 1)
    assert sp.simplify(phi_x.dot(phi_y) - (x.dot(y) + c) ** 3) == 0


def test_poly_map_zero_constant_keeps_length_with_zeros():
    phi = poly_feature_map([1.0, 2.0, 3.0], p=2, c=0.0)
    assert phi.shape == (10,)
    assert np.count_nonzero(phi == 0) == 4  # the constant and the three linear coordinates
    assert np.isclose(phi @ poly_feature_map([0.5, -1.0, 2.0], 2, 0.0), (0.5 - 2 + 6) ** 2)


def test_poly_map_degree_zero_and_rows():
    assert np.array_equal(poly_feature_map([3.0, 4.0], 0), [1.0])
    X = np.arange(6.0).reshape(3, 2) / 4
    assert np.allclose(poly_feature_map(X, 3) @ poly_feature_map(X, 3).T, (X @ X.T + 1) ** 3)


@settings(max_examples=80, deadline=None)
@given(d=st.integers(1, 4), p=st.integers(0, 4), c=st.floats(0, 3),
       seed=st.integers(0, 2**32 - 1))
def test_poly_map_dot_product_is_the_kernel(d, p, c, seed):
    x, y = np.random.default_rng(seed).normal(size=(2, d))
    phi_x, phi_y = poly_feature_map(x, p, c), poly_feature_map(y, p, c)
    assert phi_x.shape == (math.comb(d + p, p),)
    expected = (x @ y + c) ** p
    scale = (np.linalg.norm(x) * np.linalg.norm(y) + c) ** p
    assert abs(phi_x @ phi_y - expected) <= 1e-12 * max(1.0, scale)


@pytest.mark.parametrize("args, exc, message", [
    (([1.0, 2.0], 2, -1.0), ValueError, "c must be >= 0 for a real feature map, got -1.0"),
    ((sp.Matrix([1, 2]), 2, R(-1, 2)), ValueError,
     "c must be >= 0 for a real feature map, got -1/2"),
    (([1.0, 2.0], 2.0), TypeError, "p must be an integer, got float 2.0"),
    (([1.0, 2.0], -2), ValueError, "p must be >= 0, got -2"),
    ((sp.Matrix([1, 2]), 2, 0.5), TypeError, "numeric route"),
    ((np.zeros(40), 8), ValueError, "would have C\\(40\\+8, 8\\) = 377348994 coordinates"),
])
def test_poly_map_bad_input(args, exc, message):
    with pytest.raises(exc, match=message):
        poly_feature_map(*args)


# ---------------------------------------------------------------- RBF features in 1-D
def test_rbf_features_exact_first_terms():
    phi = rbf_features_1d(sp.Integer(1), 4)  # gamma = 1/2: exp(-1/2) * [1, 1, 1/sqrt2!, 1/sqrt3!]
    e = sp.exp(R(-1, 2))
    assert phi == sp.Matrix([e, e, e / S2, e / sp.sqrt(6)])


def test_rbf_features_exact_sum_converges_to_kernel():
    x, y, g = R(1, 2), R(-1, 3), R(1, 4)
    phi_x, phi_y = rbf_features_1d(x, 25, g), rbf_features_1d(y, 25, g)
    assert abs(float(phi_x.dot(phi_y)) - float(sp.exp(-g * (x - y) ** 2))) < 1e-15


def test_rbf_features_shapes():
    assert rbf_features_1d(0.3, 5).shape == (5,)
    assert rbf_features_1d([0.3, 0.1, -2.0], 5, gamma=2.0).shape == (3, 5)
    assert rbf_features_1d([sp.Integer(1), R(1, 2)], 3).shape == (2, 3)
    assert rbf_features_1d(np.array(0.5), 1)[0] == np.exp(-0.5 * 0.25)


@settings(max_examples=80, deadline=None)
@given(x=st.floats(-2, 2), y=st.floats(-2, 2), gamma=st.floats(0.05, 2.0))
def test_rbf_features_many_terms_give_the_rbf_kernel(x, y, gamma):
    phi = rbf_features_1d([x, y], 60, gamma)
    assert abs(phi[0] @ phi[1] - np.exp(-gamma * (x - y) ** 2)) < 1e-12


def test_rbf_features_few_terms_undershoot():
    # all terms are non-negative for x, y > 0, so a truncated sum falls short
    phi = rbf_features_1d([1.0, 1.5], 3)
    assert phi[0] @ phi[1] < np.exp(-0.5 * 0.25) - 1e-3


@pytest.mark.parametrize("args, exc, message", [
    (([[1.0, 2.0]], 3), ValueError, r"x must be a scalar or 1-D, got shape \(1, 2\)"),
    ((1.0, 0), ValueError, "terms must be >= 1, got 0"),
    ((1.0, 3.0), TypeError, "terms must be an integer, got float 3.0"),
    ((1.0, 3, -1), ValueError, "gamma must be > 0, got -1"),
    ((sp.Integer(1), 3, 0.25), TypeError, "numeric route"),
    ((sp.Matrix([[1, 2], [3, 4]]), 3), ValueError,
     r"x must be a scalar or 1-D, got shape \(2, 2\)"),
])
def test_rbf_features_bad_input(args, exc, message):
    with pytest.raises(exc, match=message):
        rbf_features_1d(*args)
