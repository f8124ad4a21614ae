"""ps4 reference: centring a kernel matrix, centring new points, the feature-space mean."""

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.preprocessing import KernelCenterer

from kpca_ref.centring import (
    centre_kernel,
    centre_new,
    centring_matrix,
    distances_to_mean,
    feature_mean_sq_norm,
)

M = sp.Matrix
R = sp.Rational


def features(X):
    """An explicit feature map for checks: phi(x) = (x, x^2 coordinate-wise, 1)."""
    X = np.atleast_2d(X)
    return np.hstack([X, X**2, np.ones((X.shape[0], 1))])


def rbf(X, Y, gamma=0.7):
    d2 = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1)
    return np.exp(-gamma * d2)


# ------------------------------------------------------------------ centring_matrix
def test_centring_matrix_numeric_properties():
    H = centring_matrix(5)
    assert H.dtype == np.float64 and H.shape == (5, 5)
    assert np.allclose(H @ H, H) and np.allclose(H, H.T)
    assert np.allclose(H @ np.ones(5), 0)


def test_centring_matrix_exact_with_sympy_integer():
    H = centring_matrix(sp.Integer(4))
    assert isinstance(H, sp.MatrixBase)
    assert H[0, 0] == R(3, 4) and H[0, 1] == R(-1, 4)
    assert H * H == H


@pytest.mark.parametrize(
    "n, exc, pattern",
    [(1, ValueError, "n must be >= 2, got 1"), (2.0, TypeError, "n must be an integer"),
     (True, TypeError, "n must be an integer"), (sp.Integer(1), ValueError, "n must be >= 2")],
)
def test_centring_matrix_bad_n(n, exc, pattern):
    with pytest.raises(exc, match=pattern):
        centring_matrix(n)


# ------------------------------------------------------------------ centre_kernel
def test_centre_kernel_equals_explicit_centred_features():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(7, 2))
    F = features(X)
    Fc = F - F.mean(axis=0)
    assert np.allclose(centre_kernel(F @ F.T), Fc @ Fc.T)


@pytest.mark.parametrize("seed", range(3))
def test_centre_kernel_matches_hkh_and_sklearn(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(6, 3))
    K = rbf(X, X)
    H = centring_matrix(6)
    assert np.allclose(centre_kernel(K), H @ K @ H)
    assert np.allclose(centre_kernel(K), KernelCenterer().fit_transform(K))


def test_centre_kernel_does_not_need_symmetry():
    K = np.arange(16.0).reshape(4, 4) ** 1.5
    H = centring_matrix(4)
    assert np.allclose(centre_kernel(K), H @ K @ H)
    Ke = M(4, 4, lambda i, j: (i + 1) * (j + 2) + i - j)
    assert centre_kernel(Ke) == centring_matrix(sp.Integer(4)) * Ke * centring_matrix(sp.Integer(4))


def test_centre_kernel_exact_keeps_rationals():
    Kc = centre_kernel(M([[1, R(1, 3)], [R(1, 3), 2]]))
    assert all(isinstance(e, sp.Rational) for e in Kc)
    assert Kc == M([[R(7, 12), R(-7, 12)], [R(-7, 12), R(7, 12)]])


# ------------------------------------------------------------------ centre_new
@pytest.mark.parametrize("seed", range(3))
def test_centre_new_matches_sklearn_and_explicit_features(seed):
    rng = np.random.default_rng(seed)
    X, Xn = rng.normal(size=(5, 2)), rng.normal(size=(3, 2))
    K, K_new = rbf(X, X), rbf(Xn, X)
    centerer = KernelCenterer().fit(K)
    assert np.allclose(centre_new(K_new, K), centerer.transform(K_new))
    F, Fn = features(X), features(Xn)
    mean = F.mean(axis=0)
    assert np.allclose(centre_new(Fn @ F.T, F @ F.T), (Fn - mean) @ (F - mean).T)


def test_centre_new_of_training_rows_is_centre_kernel():
    K = np.arange(9.0).reshape(3, 3) + np.eye(3)
    assert np.allclose(centre_new(K, K), centre_kernel(K))


def test_centre_new_one_point_1d_in_1d_out():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(4, 2))
    K, k = rbf(X, X), rbf(X[:1] + 0.3, X)
    out = centre_new(k[0], K)
    assert out.shape == (4,)
    assert np.allclose(out, centre_new(k, K)[0])


def test_centre_new_uses_training_means_not_new_ones():
    K = np.array([[2.0, 0, 0], [0, 0, 0], [0, 0, 2]])
    k = np.array([2.0, 0, 6])
    own_only = k - k.mean()
    assert not np.allclose(centre_new(k, K), own_only)


def test_centre_new_exact_orientation():
    K = M([[2, 0, 0], [0, 0, 0], [0, 0, 2]])
    column = centre_new(M([2, 0, 6]), K)
    assert column.shape == (3, 1)
    row = centre_new(M([[2, 0, 6]]), K)
    assert row.shape == (1, 3) and row.T == column
    assert centre_new([sp.Integer(2), 0, 6], K) == row


# ------------------------------------------------------------------ the feature-space mean
def test_mean_norm_and_distances_match_explicit_features():
    rng = np.random.default_rng(1)
    F = features(rng.normal(size=(6, 2)))
    K = F @ F.T
    mean = F.mean(axis=0)
    assert np.isclose(feature_mean_sq_norm(K), mean @ mean)
    assert np.allclose(distances_to_mean(K), np.linalg.norm(F - mean, axis=1))
    assert isinstance(feature_mean_sq_norm(K), float)


def test_distances_round_off_is_clipped_not_negative():
    # three copies of one point: the distances are 0, but the four-term formula rounds
    # to -2.8e-17 in float64 for this K; the result must be 0, not NaN
    K = np.full((3, 3), 0.1)
    raw = np.diag(K) - K.mean(axis=1) - K.mean(axis=0) + K.mean()
    assert raw.min() < 0
    assert np.array_equal(distances_to_mean(K), np.zeros(3))


def test_distances_refuse_a_non_kernel():
    K = np.array([[0.0, 5.0], [5.0, 0.0]])  # ||x - x'||^2 is not a kernel
    with pytest.raises(ValueError, match="K is not a valid kernel matrix: point 0"):
        distances_to_mean(K)
    with pytest.raises(ValueError, match="squared feature-space distance -5/2"):
        distances_to_mean(M([[0, 5], [5, 0]]))


# ------------------------------------------------------------------ properties
finite = st.floats(-10, 10, allow_nan=False, width=64)


@st.composite
def kernel_matrices(draw):
    n = draw(st.integers(2, 7))
    d = draw(st.integers(1, 3))
    X = draw(arrays(np.float64, (n, d), elements=finite))
    if draw(st.booleans()):
        return rbf(X, X, gamma=draw(st.floats(0.01, 2.0)))
    return (X @ X.T + 1.0) ** 2


@settings(max_examples=40, deadline=None)
@given(kernel_matrices())
def test_property_centred_rows_and_columns_sum_to_zero(K):
    Kc = centre_kernel(K)
    scale = max(np.abs(K).max(), 1e-300)
    assert np.allclose(Kc.sum(axis=1) / scale, 0, atol=1e-12)
    assert np.allclose(Kc.sum(axis=0) / scale, 0, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(kernel_matrices())
def test_property_centring_keeps_psd(K):
    Kc = centre_kernel(K)
    top = max(np.abs(np.linalg.eigvalsh(K)).max(), 1e-300)
    assert np.linalg.eigvalsh((Kc + Kc.T) / 2).min() >= -1e-10 * top
    # and distances to the mean exist (squared distances are not clearly negative)
    assert np.all(np.isfinite(distances_to_mean(K)))


@settings(max_examples=30, deadline=None)
@given(kernel_matrices(), st.sampled_from([1e-6, 1e6]))
def test_property_scaling_k_scales_the_results(K, c):
    floor = 1e-12 * c * np.abs(K).max()  # round-off of the four-term sums
    assert np.allclose(centre_kernel(c * K), c * centre_kernel(K), rtol=1e-9, atol=floor)
    assert np.allclose(
        centre_new(c * K[:2], c * K), c * centre_new(K[:2], K), rtol=1e-9,
        atol=1e-12 * c * np.abs(K).max(),
    )
    assert np.isclose(feature_mean_sq_norm(c * K), c * feature_mean_sq_norm(K), rtol=1e-12)
    assert np.allclose(
        distances_to_mean(c * K), np.sqrt(c) * distances_to_mean(K), rtol=1e-6,
        atol=1e-6 * np.sqrt(c * np.abs(K).max()),
    )


# ------------------------------------------------------------------ bad input messages
@pytest.mark.parametrize(
    "K, exc, pattern",
    [
        (np.zeros((3, 4)), ValueError, r"K must be square, got shape \(3, 4\)"),
        (np.zeros(3), ValueError, r"K must be 2-D, got shape \(3,\)"),
        (np.ones((1, 1)), ValueError, r"K needs n >= 2, got shape \(1, 1\)"),
        ([[1.0, np.nan], [np.nan, 1.0]], ValueError, "K contains NaN"),
        ([[1.0, np.inf], [np.inf, 1.0]], ValueError, "K contains inf"),
        (M([[1, sp.Float(0.5)], [0, 1]]), TypeError, "numeric route"),
        (M([[1, sp.oo], [0, 1]]), ValueError, "K contains oo"),
        (M([[1]]), ValueError, r"K needs n >= 2, got shape \(1, 1\)"),
        ("abc", TypeError, "K must be an array of numbers"),
    ],
)
def test_centre_kernel_bad_input(K, exc, pattern):
    with pytest.raises(exc, match=pattern):
        centre_kernel(K)


@pytest.mark.parametrize(
    "K_new, K_train, exc, pattern",
    [
        (np.ones((2, 4)), np.eye(3), ValueError,
         r"K_new must have n = 3 columns .*K_train.*got shape \(2, 4\)"),
        (np.ones(4), np.eye(3), ValueError, r"K_new must have n = 3 length.*got shape \(4,\)"),
        (np.ones((2, 2, 3)), np.eye(3), ValueError, "K_new must be 1-D .* or 2-D"),
        (np.ones((2, 3)), np.ones((3, 2)), ValueError, r"K_train must be square"),
        (np.ones((2, 3)), np.eye(1), ValueError, r"K_train needs n >= 2"),
        ([[1.0, np.nan, 0.0]], np.eye(3), ValueError, "K_new contains NaN"),
        (np.ones((1, 3)), M(sp.eye(3)), TypeError, "K_new contains the float .*numeric route"),
        (M([[1, 2]]), M(sp.eye(3)), ValueError, r"K_new must have n = 3 columns"),
    ],
)
def test_centre_new_bad_input(K_new, K_train, exc, pattern):
    with pytest.raises(exc, match=pattern):
        centre_new(K_new, K_train)


@pytest.mark.parametrize("fn", [feature_mean_sq_norm, distances_to_mean])
def test_mean_helpers_bad_input(fn):
    with pytest.raises(ValueError, match=r"K must be square, got shape \(2, 3\)"):
        fn(np.ones((2, 3)))
    with pytest.raises(ValueError, match="K contains NaN"):
        fn([[np.nan]])
