"""ps1 reference: variance shares, the lift to R^6, and recovering a circle from its points."""

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from kpca_ref.circle import circle_normal, components_needed, lift, recover_circle, variance_shares

R = sp.Rational

# Exact points of the lecture's circle: centre (1, 2), radius 3 (the last one uses 3-4-5).
LECTURE_CIRCLE = [[4, 2], [-2, 2], [1, 5], [1, -1], [1 + R(9, 5), 2 + R(12, 5)]]


def ring(a, b, r, n=7, phase=0.3):
    t = phase + np.linspace(0.0, 2 * np.pi, n, endpoint=False)
    return np.column_stack([a + r * np.cos(t), b + r * np.sin(t)])


# ---------------------------------------------------------------- lecture 000, Test-yourself Q1
def test_q1_normal_vector_exact():
    u = circle_normal(sp.Integer(1), sp.Integer(2), sp.Integer(3))
    assert isinstance(u, sp.MatrixBase) and u.shape == (6, 1)
    assert u == sp.Matrix([-4, 1, 1, 0, -2, -4])


def test_q1_normal_vector_numeric():
    u = circle_normal(1, 2, 3)
    assert u.shape == (6,) and u.dtype == np.float64
    assert np.array_equal(u, [-4.0, 1.0, 1.0, 0.0, -2.0, -4.0])


def test_q1_lifted_point_is_orthogonal_exactly():
    phi = lift(sp.Matrix([4, 2]))
    assert phi == sp.Matrix([1, 16, 4, 8, 4, 2])
    assert phi.dot(circle_normal(sp.Integer(1), 2, 3)) == 0
    assert lift([4.0, 2.0]) @ circle_normal(1, 2, 3) == 0.0


def test_q1_recover_lecture_circle_exact():
    a, b, r = recover_circle(sp.Matrix(LECTURE_CIRCLE))
    assert (a, b, r) == (1, 2, 3)
    assert all(isinstance(v, sp.Integer) for v in (a, b, r))


def test_q1_recover_lecture_circle_numeric():
    X = np.array(LECTURE_CIRCLE, dtype=float)
    assert np.allclose(recover_circle(X), (1.0, 2.0, 3.0), rtol=0, atol=1e-12)


def test_recover_exact_radical_radius():
    # centre (0, 0), r = sqrt(2): points (±1, ±1) and (sqrt(2), 0) -> exact sqrt(2)
    pts = sp.Matrix([[1, 1], [1, -1], [-1, 1], [-1, -1], [0, sp.sqrt(2)]])
    assert recover_circle(pts) == (0, 0, sp.sqrt(2))


# ---------------------------------------------------------------- lift
def test_lift_column_order_and_shapes():
    X = np.array([[2.0, 3.0], [-1.0, 0.5]])
    assert np.array_equal(lift(X), [[1, 4, 9, 6, 2, 3], [1, 1, 0.25, -0.5, -1, 0.5]])
    assert lift([2.0, 3.0]).shape == (6,)
    assert lift(sp.Matrix([[2, 3], [1, 1]])).shape == (2, 6)


@settings(max_examples=60, deadline=None)
@given(a=st.floats(-50, 50), b=st.floats(-50, 50), r=st.floats(0.1, 20),
       t=st.lists(st.floats(0, 2 * np.pi), min_size=1, max_size=8))
def test_points_on_circle_lift_orthogonal_to_normal(a, b, r, t):
    t = np.array(t)
    X = np.column_stack([a + r * np.cos(t), b + r * np.sin(t)])
    u = circle_normal(a, b, r)
    scale = np.abs(lift(X)).max() * np.abs(u).max()
    assert np.all(np.abs(lift(X) @ u) <= 1e-12 * scale)


# ---------------------------------------------------------------- recover_circle
def test_recover_far_from_origin_is_accurate():
    # the raw lifted columns span 1 .. 1e6 here; normalising first keeps full accuracy
    a, b, r = recover_circle(ring(1000.0, -500.0, 3.0))
    assert abs(a - 1000.0) < 1e-9 and abs(b + 500.0) < 1e-9 and abs(r - 3.0) < 1e-9


def test_recover_tiny_circle():
    a, b, r = recover_circle(ring(1e-3, 2e-3, 1e-6, n=9))
    assert np.allclose((a, b, r), (1e-3, 2e-3, 1e-6), rtol=1e-8, atol=0)


@settings(max_examples=60, deadline=None)
@given(a=st.floats(-1e3, 1e3), b=st.floats(-1e3, 1e3), r=st.floats(0.01, 100),
       n=st.integers(5, 20), seed=st.integers(0, 2**32 - 1))
def test_recover_random_circles_with_tiny_noise(a, b, r, n, seed):
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, 2 * np.pi) + (np.arange(n) + rng.uniform(-0.3, 0.3, n)) * 2 * np.pi / n
    X = np.column_stack([a + r * np.cos(t), b + r * np.sin(t)]) + 1e-9 * r * rng.normal(size=(n, 2))
    got = recover_circle(X)
    assert np.allclose(got, (a, b, r), rtol=0, atol=1e-6 * r)


@pytest.mark.parametrize("X, message", [
    (ring(0, 0, 1, n=4), "at least 5 distinct points to fix one circle, got 4"),
    (np.vstack([ring(0, 0, 1, n=4)] * 3), "at least 5 distinct points to fix one circle, got 4"),
    (np.column_stack([np.arange(6.0), 2 * np.arange(6.0) + 1]), "collinear"),
    (ring(0, 0, 1, n=8) * [2.0, 1.0], "f1\\^2 and f2\\^2 coefficients"),
    (ring(0, 0, 1, n=8) @ np.array([[2.0, 0.0], [0.0, 1.0]]) @ np.array([[1, 1], [-1, 1]]) / 2,
     "an f1\\*f2 coefficient -1.2"),
    (ring(0, 0, 1, n=8) + 0.05 * np.random.default_rng(1).normal(size=(8, 2)),
     "not lie on"),
    ([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [0.0, 1.0]], "several conics"),
])
def test_recover_refuses_bad_point_sets(X, message):
    with pytest.raises(ValueError, match=message):
        recover_circle(X)


def test_recover_exact_refuses_ellipse_and_line():
    ellipse = sp.Matrix([[2, 0], [-2, 0], [0, 1], [0, -1], [sp.sqrt(2), sp.sqrt(2) / 2]])
    with pytest.raises(ValueError, match="coefficients 0.25 and 1"):
        recover_circle(ellipse)
    with pytest.raises(ValueError, match="several conics"):
        recover_circle(sp.Matrix([[0, 0], [1, 1], [2, 2], [3, 3], [4, 4]]))


def test_recover_shape_errors():
    with pytest.raises(ValueError, match=r"X must have 2 coordinates per point, got shape \(6, 3"):
        recover_circle(np.zeros((6, 3)))
    with pytest.raises(TypeError, match="numeric route"):
        recover_circle([[sp.Integer(1), 0.5]] * 5)


def test_circle_normal_validates_radius():
    with pytest.raises(ValueError, match="r must be > 0, got 0"):
        circle_normal(1, 2, 0)
    with pytest.raises(ValueError, match="r must be > 0, got -3"):
        circle_normal(sp.Integer(1), 2, -3)
    with pytest.raises(TypeError, match="numeric route"):
        circle_normal(sp.Integer(1), 2.5, 3)


# ---------------------------------------------------------------- variance shares (Q2)
def test_even_circle_splits_variance_in_half_and_needs_both():
    shares = variance_shares(ring(3.5, 3.0, 2.5, n=30))
    assert np.allclose(shares, [0.5, 0.5])
    assert components_needed(shares) == 2


def test_shares_exact_hand_example():
    # triangle (0,0),(1,0),(0,1): scatter [[2/3, -1/3], [-1/3, 2/3]], eigenvalues 1 and 1/3
    shares = variance_shares(sp.Matrix([[0, 0], [1, 0], [0, 1]]))
    assert shares == sp.Matrix([R(3, 4), R(1, 4)])
    assert np.allclose(variance_shares([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), [0.75, 0.25])


def test_shares_of_a_line_are_one_and_zero():
    shares = variance_shares([[0.0, 1.0], [1.0, 3.0], [2.0, 5.0]])
    assert np.allclose(shares, [1.0, 0.0], atol=1e-15)
    assert components_needed(shares) == 1


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 30), angle=st.floats(0, 2 * np.pi),
       scale=st.floats(1e-3, 1e3), shift=st.floats(-1e3, 1e3))
def test_shares_match_covariance_and_are_invariant(seed, n, angle, scale, shift):
    X = np.random.default_rng(seed).normal(size=(n, 2)) * [3.0, 1.0]
    shares = variance_shares(X)
    eig = np.sort(np.linalg.eigvalsh(np.cov(X.T)))[::-1]
    assert np.allclose(shares, eig / eig.sum(), atol=1e-12)
    assert shares[0] >= shares[1] >= 0 and abs(shares.sum() - 1) < 1e-12
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    assert np.allclose(variance_shares(scale * X @ rot.T + shift), shares, atol=1e-7)


@pytest.mark.parametrize("X, exc, message", [
    ([[1.0, 2.0]], ValueError, "X needs at least 2 points to have a variance, got 1"),
    ([[0.1, 0.7]] * 3, ValueError, "zero total variance"),
    ([1.0, 2.0, 3.0], ValueError, r"X must have 2 coordinates per point, got shape \(3,\)"),
    ([[1.0, np.nan], [0.0, 1.0]], ValueError, "X contains NaN"),
    ([[sp.Integer(1), 2], [3, 4.0]], TypeError, "numeric route"),
])
def test_variance_shares_bad_input(X, exc, message):
    with pytest.raises(exc, match=message):
        variance_shares(X)


def test_variance_shares_exact_identical_points():
    with pytest.raises(ValueError, match="zero total variance"):
        variance_shares(sp.Matrix([[1, 2], [1, 2]]))


# ---------------------------------------------------------------- components_needed
@pytest.mark.parametrize("shares, threshold, k", [
    ([0.95, 0.05], 0.95, 1),
    ([0.6, 0.35, 0.05], 0.95, 2),
    ([0.52, 0.48], 0.95, 2),
    ([0.5, 0.3, 0.2], 1.0, 3),
    ([0.5, 0.3, 0.2], 0.5, 1),
    ([0.5, 0.3, 0.2], 0.8000001, 3),
    ([1.0], 0.95, 1),
])
def test_components_needed(shares, threshold, k):
    assert components_needed(shares, threshold) == k
    assert isinstance(components_needed(shares, threshold), int)


def test_components_needed_exact_shares():
    assert components_needed(sp.Matrix([R(3, 4), R(1, 4)]), 0.75) == 1


@pytest.mark.parametrize("shares, threshold, message", [
    ([0.5, 0.5], 0.0, "threshold must satisfy 0 < threshold <= 1, got 0.0"),
    ([0.5, 0.5], 1.5, "threshold must satisfy 0 < threshold <= 1, got 1.5"),
    ([0.7, 0.7], 0.95, "shares must sum to 1, got a sum of 1.4"),
    ([1.2, -0.2], 0.95, "shares must be non-negative, got -0.2"),
    ([[0.5, 0.5]], 0.95, r"shares must be 1-D, got shape \(1, 2\)"),
    ([], 0.95, "shares must be 1-D|at least one share"),
])
def test_components_needed_bad_input(shares, threshold, message):
    with pytest.raises(ValueError, match=message):
        components_needed(shares, threshold)
