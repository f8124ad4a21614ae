"""ps3 reference: Gram matrices, symmetry and PSD checks, exact PSD, counterexample search."""

import time

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from kpca_ref.mercer import find_counterexample, gram, is_psd, is_psd_exact, is_symmetric

R = sp.Rational


def sq_dist(x, y):
    return float(np.sum((x - y) ** 2))


NON_KERNELS = {
    "squared distance (Q5)": sq_dist,
    "minus dot product": lambda x, y: -float(x @ y),
    "(x.y - 1)^2": lambda x, y: float((x @ y - 1.0) ** 2),
    "distance": lambda x, y: float(np.linalg.norm(x - y)),
    "x.y - 1": lambda x, y: float(x @ y - 1.0),
    "asymmetric": lambda x, y: float(x @ y + x[0]),
}
KERNELS = {
    "linear": lambda x, y: float(x @ y),
    "poly p=3": lambda x, y: float((x @ y + 1.0) ** 3),
    "poly p=4 c=0": lambda x, y: float((x @ y) ** 4),
    "rbf": lambda x, y: float(np.exp(-0.5 * np.sum((x - y) ** 2))),
    "rbf narrow": lambda x, y: float(np.exp(-50.0 * np.sum((x - y) ** 2))),
}


# ---------------------------------------------------------------- Q5: ||x - x'||^2
def test_q5_squared_distance_gram_exact():
    X = sp.Matrix([[0, 0], [1, 2]])  # ||x1 - x2||^2 = c = 5
    K = gram(lambda x, y: sum((x - y) ** 2), X)
    c = sp.Integer(5)
    assert K == sp.Matrix([[0, c], [c, 0]])
    assert K.eigenvals() == {c: 1, -c: 1}
    assert is_psd_exact(K) is False
    assert is_symmetric(K) is True


@pytest.mark.parametrize("c", [R(1, 3), sp.Integer(7)])
def test_q5_any_distinct_pair_gives_plus_minus_c(c):
    K = sp.Matrix([[0, c], [c, 0]])
    assert sorted(K.eigenvals()) == [-c, c]
    assert is_psd_exact(K) is False
    assert is_psd(np.array(K, dtype=float)) is False


def test_q5_numeric_route():
    K = gram(sq_dist, np.array([[0.0, 0.0], [1.0, 2.0]]))
    assert np.array_equal(K, [[0.0, 5.0], [5.0, 0.0]])
    assert np.allclose(np.linalg.eigvalsh(K), [-5.0, 5.0])
    assert is_psd(K) is False


# ---------------------------------------------------------------- gram
def test_gram_exact_entries_stay_exact():
    X = sp.Matrix([[R(1, 2), 1], [2, R(-1, 3)]])
    K = gram(lambda x, y: (x @ y + 1) ** 2, X)
    assert K[0, 1] == (1 + R(-1, 3) + 1) ** 2 == R(25, 9)
    assert all(isinstance(e, sp.Rational) for e in K)


def test_gram_evaluates_both_orders():
    X = np.array([[1.0, 2.0], [3.0, 4.0]])
    K = gram(lambda x, y: float(x[0] * y[1]), X)
    assert np.array_equal(K, [[2.0, 4.0], [6.0, 12.0]])
    assert is_symmetric(K) is False


@pytest.mark.parametrize("k, X, exc, message", [
    ("k", [[1.0]], TypeError, "k must be callable, got str"),
    (lambda x, y: x @ y, [1.0, 2.0, 3.0], ValueError, r"X must be 2-D, got shape \(3,\)"),
    (lambda x, y: np.outer(x, y), [[1.0, 2.0]], TypeError, "k must return a single number"),
    (lambda x, y: "a", [[1.0]], TypeError, "k must return a real number"),
    (lambda x, y: 0.5, sp.Matrix([[1]]), TypeError, "numeric route"),
    (lambda x, y: x @ y, [[1.0, np.nan]], ValueError, "X contains NaN"),
])
def test_gram_bad_input(k, X, exc, message):
    with pytest.raises(exc, match=message):
        gram(k, X)


# ---------------------------------------------------------------- is_symmetric / is_psd
def test_symmetry_tolerance_is_relative_to_scale():
    K = np.array([[1e8, 3e7], [3e7 + 1e-4, 2e8]])
    assert is_symmetric(K) is True  # 1e-4 is 3e-13 of the largest entry
    assert is_symmetric(K / 1e8) is True
    assert is_symmetric(np.array([[1.0, 0.5], [0.5 + 1e-6, 1.0]])) is False
    assert is_symmetric(np.array([[1.0, 0.5], [0.5 + 1e-6, 1.0]]), tol=1e-5) is True


def test_psd_tolerance_is_relative_to_scale():
    B = np.random.default_rng(0).normal(size=(5, 2))
    K = B @ B.T  # rank 2: three zero eigenvalues up to round-off
    for scale in (1e-6, 1.0, 1e8):
        assert is_psd(scale * K) is True
    assert is_psd(np.diag([1e6, 1.0, -1e-3])) is False
    assert is_psd(np.diag([1.0, -1e-12])) is True


def test_psd_needs_symmetry():
    assert is_psd(np.array([[1.0, 0.0], [0.5, 1.0]])) is False


def test_exact_matrix_goes_to_exact_checks():
    assert is_psd(sp.Matrix([[1, 1], [1, 1]])) is True
    assert is_symmetric(sp.Matrix([[1, R(1, 2)], [R(1, 2), 1]])) is True
    assert is_symmetric(sp.Matrix([[1, R(1, 2)], [R(1, 3), 1]])) is False


@pytest.mark.parametrize("fn", [is_symmetric, is_psd])
@pytest.mark.parametrize("K, tol, exc, message", [
    ([[1.0, 2.0, 3.0]], 1e-10, ValueError, r"K must be square, got shape \(1, 3\)"),
    ([1.0, 2.0], 1e-10, ValueError, r"K must be 2-D, got shape \(2,\)"),
    ([[1.0]], -1.0, ValueError, "tol must be >= 0, got -1.0"),
    ([[np.inf]], 1e-10, ValueError, "K contains inf"),
])
def test_numeric_checks_bad_input(fn, K, tol, exc, message):
    with pytest.raises(exc, match=message):
        fn(K, tol)


# ---------------------------------------------------------------- is_psd_exact
@pytest.mark.parametrize("K, expected", [
    ([[1, 1], [1, 1]], True),  # singular PSD
    ([[0, 0], [0, -1]], False),  # leading minors 0, 0 but not PSD
    ([[0, 0, 0], [0, 1, 0], [0, 0, -1]], False),  # leading minors all zero
    ([[0, 1], [1, 0]], False),
    ([[0, 0], [0, 0]], True),
    ([[1, 2], [2, 4]], True),
    ([[1, 2], [2, 3]], False),
    ([[2, 1], [1, 2]], True),
    ([[1, 2], [0, 1]], False),  # not symmetric
    ([[5, -3, -2], [-3, 5, -2], [-2, -2, 4]], True),  # 001: eigenvalues 8, 6, 0
    ([[R(10, 9), R(-2, 9), R(-8, 9)], [R(-2, 9), R(4, 9), R(-2, 9)],
      [R(-8, 9), R(-2, 9), R(10, 9)]], True),  # 002: K~ with mu = 2, 2/3, 0
    ([[R(1, 2), R(-1, 2)], [R(-1, 2), R(1, 2)]], True),  # 000 Q8: centred [[2,1],[1,2]]
    ([[1, 0, 1], [0, 0, 0], [1, 0, 1]], True),
    ([[1, 0, 1], [0, 0, 1], [1, 1, 1]], False),  # zero pivot with a non-zero row
])
def test_is_psd_exact_cases(K, expected):
    got = is_psd_exact(sp.Matrix(K))
    assert got is expected
    assert is_psd_exact(K) is expected  # a nested list of ints / Rationals works too


def test_is_psd_exact_radicals():
    s2 = sp.sqrt(2)
    assert is_psd_exact(sp.Matrix([[2, s2], [s2, 1]])) is True  # rank 1: (sqrt2, 1)(sqrt2, 1)^T
    assert is_psd_exact(sp.Matrix([[1, s2], [s2, 1]])) is False


@pytest.mark.parametrize("K, exc, message", [
    (sp.Matrix([[1, sp.Float(0.5)], [sp.Float(0.5), 1]]), TypeError, "numeric route"),
    (np.eye(2), TypeError, "numeric route"),
    (sp.Matrix([[1, 2, 3]]), ValueError, r"K must be square, got shape \(1, 3\)"),
    (sp.Matrix([[1, sp.I], [-sp.I, 1]]), TypeError, "K must hold real numbers"),
    (sp.Matrix([[sp.oo, 0], [0, 1]]), ValueError, "K contains oo"),
    (sp.Matrix([[1, sp.Symbol("t")], [sp.Symbol("t"), 1]]), TypeError, "symbolic entry"),
])
def test_is_psd_exact_bad_input(K, exc, message):
    with pytest.raises(exc, match=message):
        is_psd_exact(K)


small_ints = st.integers(-3, 3)


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 4).flatmap(
    lambda n: st.lists(st.lists(small_ints, min_size=n, max_size=n), min_size=n, max_size=n)))
def test_is_psd_agrees_with_exact_on_symmetric_integer_matrices(rows):
    A = np.array(rows)
    K = np.triu(A) + np.triu(A, 1).T
    assert is_psd(K.astype(float)) is is_psd_exact(sp.Matrix(K.tolist()))


@settings(max_examples=80, deadline=None)
@given(n=st.integers(1, 5), rank=st.integers(0, 3), seed=st.integers(0, 2**32 - 1),
       shift=st.sampled_from([0, 0, -1]))
def test_is_psd_agrees_with_exact_on_rank_deficient_gram(n, rank, seed, shift):
    B = np.random.default_rng(seed).integers(-3, 4, size=(n, rank))
    K = B @ B.T + shift * np.eye(n, dtype=int) * (n > rank)
    exact = is_psd_exact(sp.Matrix(K.tolist()))
    assert exact is (shift == 0 or n <= rank)  # B B^T is PSD; minus I is not when it is singular
    assert is_psd(K.astype(float)) is exact


# ---------------------------------------------------------------- find_counterexample
@pytest.mark.parametrize("name", sorted(NON_KERNELS))
@pytest.mark.parametrize("d", [1, 2, 3])
def test_counterexample_found_for_non_kernels(name, d):
    k = NON_KERNELS[name]
    X = find_counterexample(k, d)
    assert X is not None and X.ndim == 2 and X.shape[1] == d and 2 <= X.shape[0] <= 6
    K = gram(k, X)
    assert not is_psd(K)


@pytest.mark.parametrize("name", sorted(KERNELS))
@pytest.mark.parametrize("d", [1, 3])
def test_no_counterexample_for_kernels_and_fast(name, d):
    start = time.process_time()
    assert find_counterexample(KERNELS[name], d) is None
    assert time.process_time() - start < 0.5


def test_counterexample_is_deterministic_and_respects_budget():
    k = NON_KERNELS["(x.y - 1)^2"]
    assert np.array_equal(find_counterexample(k, 2, seed=4), find_counterexample(k, 2, seed=4))
    X = find_counterexample(lambda x, y: float(x @ y - 1.0), 1, max_points=2)
    assert X.shape == (2, 1)


def test_counterexample_skips_non_finite_gram():
    assert find_counterexample(lambda x, y: float("nan"), 2) is None


@pytest.mark.parametrize("args, exc, message", [
    ((None, 2), TypeError, "k must be callable, got NoneType"),
    ((sq_dist, 0), ValueError, "d must be >= 1, got 0"),
    ((sq_dist, 2.0), TypeError, "d must be an integer, got float 2.0"),
    ((sq_dist, 2, 1), ValueError, "max_points must be >= 2, got 1"),
    ((sq_dist, 2, 6, -1), ValueError, "seed must be >= 0, got -1"),
])
def test_counterexample_bad_input(args, exc, message):
    with pytest.raises(exc, match=message):
        find_counterexample(*args)
