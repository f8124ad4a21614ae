"""ps2 reference: polynomial and RBF kernels, feature-space distance, choosing gamma."""

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.metrics import pairwise

from kpca_ref.feature_maps import poly_feature_map, quadratic_map
from kpca_ref.kernels import feature_distance, gamma_for_similarity, poly_kernel, rbf_kernel

R = sp.Rational
LOG2 = sp.log(2)


# ---------------------------------------------------------------- Q3: (x.x' + 1)^2 = 4
def test_q3_poly_kernel_exact():
    K = poly_kernel(sp.Matrix([[1, 2]]), sp.Matrix([[3, -1]]), 2)
    assert K == sp.Matrix([[4]]) and isinstance(K[0, 0], sp.Integer)


def test_q3_poly_kernel_numeric_and_as_dot_product():
    K = poly_kernel([[1.0, 2.0]], [[3.0, -1.0]], 2)
    assert K.shape == (1, 1) and K.dtype == np.float64 and K[0, 0] == 4.0
    phi_x, phi_y = quadratic_map([1.0, 2.0]), quadratic_map([3.0, -1.0])
    assert poly_kernel([[1.0, 2.0]], [[3.0, -1.0]], 2)[0, 0] == pytest.approx(phi_x @ phi_y)


def test_poly_kernel_exact_rational_constant():
    X = sp.Matrix([[R(1, 2), 1], [0, -1]])
    K = poly_kernel(X, X, 3, R(1, 3))
    assert K[0, 1] == (R(-1) + R(1, 3)) ** 3 == R(-8, 27)


# ---------------------------------------------------------------- against scikit-learn
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 6), m=st.integers(1, 6),
       d=st.integers(1, 5), p=st.integers(1, 5), c=st.floats(0, 3))
def test_poly_kernel_matches_sklearn(seed, n, m, d, p, c):
    rng = np.random.default_rng(seed)
    X, Y = rng.normal(size=(n, d)), rng.normal(size=(m, d))
    expected = pairwise.polynomial_kernel(X, Y, degree=p, gamma=1.0, coef0=c)
    assert np.allclose(poly_kernel(X, Y, p, c), expected, rtol=1e-12, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 6), m=st.integers(1, 6),
       d=st.integers(1, 5), gamma=st.floats(1e-3, 10))
def test_rbf_kernel_matches_sklearn(seed, n, m, d, gamma):
    rng = np.random.default_rng(seed)
    X, Y = rng.normal(size=(n, d)), rng.normal(size=(m, d))
    assert np.allclose(rbf_kernel(X, Y, gamma), pairwise.rbf_kernel(X, Y, gamma=gamma),
                       rtol=1e-12, atol=1e-14)


def test_poly_kernel_is_the_feature_map_gram():
    X = np.random.default_rng(3).normal(size=(5, 3))
    phi = poly_feature_map(X, 4, 0.5)
    assert np.allclose(poly_kernel(X, X, 4, 0.5), phi @ phi.T)


# ---------------------------------------------------------------- RBF numerics
def test_rbf_diagonal_exactly_one_and_duplicates_too():
    X = np.random.default_rng(0).normal(size=(7, 4)) * 1e3 + 1e6
    X[5] = X[1]
    K = rbf_kernel(X, X, 0.7)
    assert np.all(np.diag(K) == 1.0) and K[1, 5] == 1.0 and K[5, 1] == 1.0
    assert np.all(np.diag(rbf_kernel(X, X.copy(), 0.7)) == 1.0)


def test_rbf_close_points_far_from_origin_keep_their_distance():
    # ||x||^2 + ||y||^2 - 2 x.y loses every digit here; the direct difference does not
    X = np.array([[1e8, 1e8]])
    Y = np.array([[1e8 + 1e-4, 1e8]])
    gap = Y[0, 0] - X[0, 0]  # the stored difference (about 1e-4), exact by Sterbenz's lemma
    assert rbf_kernel(X, Y, 1e6)[0, 0] == pytest.approx(np.exp(-1e6 * gap**2), rel=1e-12)
    assert rbf_kernel(X, Y, 1e6)[0, 0] < 0.9901


@settings(max_examples=60, deadline=None)
@given(X=arrays(np.float64, st.tuples(st.integers(1, 6), st.just(3)),
                elements=st.floats(-1e4, 1e4)),
       gamma=st.floats(1e-6, 1e2))
def test_rbf_entries_in_unit_interval_and_never_from_negative_distance(X, gamma):
    Y = np.vstack([X, X[::-1] + 1e-9])
    K = rbf_kernel(X, Y, gamma)
    assert np.all(K <= 1.0) and np.all(K >= 0.0)
    assert np.all(np.diag(K[:, : len(X)]) == 1.0)


# ---------------------------------------------------------------- 001: gamma = ln2 / 4 table
def test_gamma_for_half_similarity_at_distance_two_exact():
    gamma = gamma_for_similarity(2, R(1, 2))
    assert gamma == LOG2 / 4
    assert round(gamma_for_similarity(2.0, 0.5), 3) == 0.173


@pytest.mark.parametrize("d, k_printed, dphi_printed", [
    (1, 0.841, 0.564), (2, 0.500, 1.000), (4, 0.0625, 1.369), (8, 0.0, 1.414)])
def test_rbf_table_exact_and_to_printed_decimals(d, k_printed, dphi_printed):
    gamma = gamma_for_similarity(2, R(1, 2))
    K = rbf_kernel(sp.Matrix([[0]]), sp.Matrix([[d]]), gamma)[0, 0]
    assert sp.simplify(K - sp.Integer(2) ** (-R(d * d, 4))) == 0
    k_exact = lambda x, y: rbf_kernel(sp.Matrix([x]), sp.Matrix([y]), gamma)[0, 0]
    dphi = feature_distance(k_exact, [sp.Integer(0)], [sp.Integer(d)])
    assert sp.simplify(dphi - sp.sqrt(2 - 2 * sp.Integer(2) ** (-R(d * d, 4)))) == 0
    decimals = 4 if d == 4 else 3
    assert round(float(K), decimals) == k_printed
    assert round(float(dphi), 3) == dphi_printed
    # the numeric route gives the same numbers
    g = gamma_for_similarity(2.0, 0.5)
    k_num = lambda x, y: rbf_kernel(np.atleast_2d(x), np.atleast_2d(y), g)[0, 0]
    assert feature_distance(k_num, [0.0], [float(d)]) == pytest.approx(float(dphi), rel=1e-12)


def test_far_points_approach_sqrt_two():
    k = lambda x, y: rbf_kernel(np.atleast_2d(x), np.atleast_2d(y), 0.5)[0, 0]
    assert feature_distance(k, [0.0], [40.0]) == np.sqrt(2.0)


# ---------------------------------------------------------------- feature_distance
def test_feature_distance_equals_explicit_map_distance():
    x, y = np.array([1.0, -0.5, 2.0]), np.array([0.3, 0.3, -1.0])
    k = lambda a, b: (a @ b + 1.0) ** 3
    explicit = np.linalg.norm(poly_feature_map(x, 3) - poly_feature_map(y, 3))
    assert feature_distance(k, x, y) == pytest.approx(explicit, rel=1e-12)


def test_feature_distance_exact_quadratic():
    k = lambda a, b: (a @ b + 1) ** 2
    got = feature_distance(k, [sp.Integer(1), 2], [sp.Integer(3), -1])
    assert got == sp.sqrt(36 + 121 - 2 * 4)  # k(x,x) = 6^2, k(y,y) = 11^2, k(x,y) = 4


def test_feature_distance_same_point_is_zero_not_nan():
    k = lambda a, b: float(np.exp(-0.3 * np.sum((a - b) ** 2)))
    assert feature_distance(k, [0.1, 0.2], [0.1, 0.2]) == 0.0
    k_round = lambda a, b: 1.0 + 1e-17 * (a @ b)
    assert feature_distance(k_round, [1.0], [1.0]) == 0.0


@pytest.mark.parametrize("x, y, exact", [([1.0, 0.0], [0.0, 1.0], False),
                                         ([sp.Integer(1), 0], [sp.Integer(0), 1], True)])
def test_feature_distance_refuses_a_non_kernel(x, y, exact):
    k = lambda a, b: np.sum((a - b) ** 2)
    with pytest.raises(ValueError, match="= -4.* < 0: k is not a valid kernel"):
        feature_distance(k, x, y)


@pytest.mark.parametrize("args, exc, message", [
    ((3, [1.0], [2.0]), TypeError, "k must be callable, got int"),
    ((lambda a, b: a @ b, [1.0, 2.0], [1.0]), ValueError, "x and y must have the same shape"),
    ((lambda a, b: a @ b, [[1.0]], [[2.0]]), ValueError, "x must be a scalar or 1-D"),
    ((lambda a, b: np.outer(a, b), [1.0, 2.0], [1.0, 2.0]), TypeError, "single number"),
    ((lambda a, b: a @ b, [sp.Integer(1)], [0.5]), TypeError, "numeric route"),
])
def test_feature_distance_bad_input(args, exc, message):
    with pytest.raises(exc, match=message):
        feature_distance(*args)


# ---------------------------------------------------------------- gamma_for_similarity
@pytest.mark.parametrize("distance, similarity", [(1.0, 0.9), (3.0, 0.01), (0.5, 0.5)])
def test_gamma_round_trip(distance, similarity):
    gamma = gamma_for_similarity(distance, similarity)
    assert rbf_kernel([[0.0]], [[distance]], gamma)[0, 0] == pytest.approx(similarity, rel=1e-12)


def test_gamma_exact_other_values():
    assert gamma_for_similarity(R(1, 2), R(1, 4)) == 8 * LOG2
    assert gamma_for_similarity(sp.sqrt(2), R(1, 3)) == sp.log(3) / 2
    assert sp.simplify(gamma_for_similarity(3, R(3, 10)) - sp.log(R(10, 3)) / 9) == 0


@pytest.mark.parametrize("distance, similarity, exc, message", [
    (2.0, 1.0, ValueError, "similarity must be strictly between 0 and 1, got 1.0"),
    (2.0, 0.0, ValueError, "similarity must be strictly between 0 and 1, got 0.0"),
    (2.0, 1.5, ValueError, "similarity must be strictly between 0 and 1, got 1.5"),
    (0.0, 0.5, ValueError, "distance must be > 0, got 0.0"),
    (-1, 0.5, ValueError, "distance must be > 0, got -1"),
    (2, "half", TypeError, "similarity must be a number"),
    (2, sp.Float(0.5), TypeError, "numeric route"),
])
def test_gamma_bad_input(distance, similarity, exc, message):
    with pytest.raises(exc, match=message):
        gamma_for_similarity(distance, similarity)


# ---------------------------------------------------------------- kernel input checks
@pytest.mark.parametrize("call, exc, message", [
    (lambda: rbf_kernel([1.0, 2.0, 3.0], [[1.0]], 1.0), ValueError,
     r"X must be 2-D, got shape \(3,\)"),
    (lambda: poly_kernel([[1.0]], [2.0], 2), ValueError, r"Y must be 2-D, got shape \(1,\)"),
    (lambda: rbf_kernel(np.ones((2, 2)), np.ones((3, 3)), 1.0), ValueError,
     (r"X and Y must have the same number of columns, "
      r"got X with shape \(2, 2\) and Y with shape \(3, 3\)")),
    (lambda: poly_kernel(sp.Matrix([[1, 2]]), sp.Matrix([[1]]), 2), ValueError,
     "X and Y must have the same number of columns"),
    (lambda: rbf_kernel([[1.0]], [[2.0]], -1), ValueError, "gamma must be > 0, got -1"),
    (lambda: rbf_kernel([[1.0]], [[2.0]], 0), ValueError, "gamma must be > 0, got 0"),
    (lambda: rbf_kernel(sp.Matrix([[1]]), sp.Matrix([[2]]), 0.25), TypeError, "numeric route"),
    (lambda: poly_kernel([[1.0]], [[2.0]], 2.0), TypeError, "p must be an integer, got float 2.0"),
    (lambda: poly_kernel([[1.0]], [[2.0]], -1), ValueError, "p must be >= 0, got -1"),
    (lambda: poly_kernel([[1.0]], [[2.0]], 2, c=np.nan), ValueError, "c must be finite, got nan"),
    (lambda: poly_kernel([[sp.Integer(1), 0.5]], [[1, 2]], 2), TypeError, "numeric route"),
    (lambda: poly_kernel(sp.Matrix([[1]]), sp.Matrix([[1]]), 2, c=0.5), TypeError, "numeric route"),
    (lambda: rbf_kernel([[np.nan]], [[1.0]], 1.0), ValueError, "X contains NaN"),
    (lambda: rbf_kernel(sp.Matrix([[1]]), sp.Matrix([[sp.oo]]), 1), ValueError, "Y contains oo"),
])
def test_kernel_bad_input(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


def test_default_constant_is_read_exactly_on_the_exact_route():
    K = poly_kernel(sp.Matrix([[R(1, 2)]]), sp.Matrix([[2]]), 2)  # c = 1.0 default -> 1
    assert K == sp.Matrix([[4]]) and isinstance(K[0, 0], sp.Integer)
