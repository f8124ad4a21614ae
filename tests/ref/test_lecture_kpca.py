"""Every worked number of the lecture notes on centring and kernel PCA, checked exactly.

Sources: lecture notes 000 (Test yourself Q6, Q8), the exam cards 001 (3-point example,
feature-space mean) and the textbook section 002 (worked examples 1-3, checkpoints 1-3).
The library computes each value from the lecture's INPUTS; the numbers printed in the
notes appear only here, as expected values. Eigenvector signs are free: comparisons are
"up to sign" per component, and separately the canonical sign rule is checked.
"""

import pytest
import sympy as sp

from kpca_ref.centring import (
    centre_kernel,
    centre_new,
    centring_matrix,
    distances_to_mean,
    feature_mean_sq_norm,
)
from kpca_ref.exact import eigh_exact, eigvals_exact
from kpca_ref.kpca import explained_ratio, feature_variances, kpca_fit, reconstruction_error
from kpca_ref.kpca_projection import kpca_scores, kpca_transform

R = sp.Rational
M = sp.Matrix


def is_rational_matrix(mat):
    return all(isinstance(e, sp.Rational) for e in mat)


def same_up_to_sign(got, expected):
    """Column-wise equality up to a sign, exactly."""
    got, expected = M(got), M(expected)
    assert got.shape == expected.shape
    for j in range(got.cols):
        g, e = got[:, j], expected[:, j]
        assert g == e or g == -e, f"column {j}: {list(g)} is not +-{list(e)}"


# ------------------------------------------------------------------ 000: Q6 and Q8
def test_000_q6_alpha_is_beta_over_two_when_eigenvalue_is_4():
    Kc = M([[2, -2], [-2, 2]])  # centred, eigenvalue 4 with unit beta = (1, -1)/sqrt(2)
    values, vectors = eigh_exact(Kc)
    assert values[0] == 4
    beta = vectors[:, 0]
    mu, alpha = kpca_fit(Kc, 1)
    assert mu == M([4])
    assert alpha == beta / 2
    # ||w||^2 = alpha^T K alpha = (1/4) beta^T K beta = 1
    assert (alpha.T * Kc * alpha)[0] == 1


def test_000_q8_centring_two_by_two():
    K = M([[2, 1], [1, 2]])
    Kc = centre_kernel(K)
    assert Kc == M([[R(1, 2), R(-1, 2)], [R(-1, 2), R(1, 2)]])
    assert is_rational_matrix(Kc)
    # H K H agrees, and the centred points have squared length 1/2
    H = centring_matrix(sp.Integer(2))
    assert H * K * H == Kc
    assert distances_to_mean(K) == M([sp.sqrt(2) / 2, sp.sqrt(2) / 2])
    # row and column means are 3/2, and so is the grand mean
    assert feature_mean_sq_norm(K) == R(3, 2)


# ------------------------------------------------------------------ 001: the 3-point example
K_HAT = M([[5, -3, -2], [-3, 5, -2], [-2, -2, 4]])


def test_001_eigenvalues_8_6_0():
    assert eigvals_exact(K_HAT) == M([8, 6, 0])
    # K_hat (1,-1,0) = 8 (1,-1,0), K_hat (1,1,-2) = 6 (1,1,-2), K_hat 1 = 0
    _values, vectors = eigh_exact(K_HAT)
    same_up_to_sign(vectors, M([[1, 1, 1], [-1, 1, 1], [0, -2, 1]]) * sp.diag(
        1 / sp.sqrt(2), 1 / sp.sqrt(6), 1 / sp.sqrt(3)))


def test_001_coefficients_scores_variances_fractions():
    mu, c = kpca_fit(K_HAT, 2)
    assert mu == M([8, 6])
    same_up_to_sign(c, M([[R(1, 4), R(1, 6)], [R(-1, 4), R(1, 6)], [0, R(-2, 6)]]))
    a = kpca_scores(K_HAT, c)
    same_up_to_sign(a, M([[2, 1], [-2, 1], [0, -2]]))
    assert feature_variances(mu, 3) == M([R(8, 3), 2])
    assert explained_ratio(eigvals_exact(K_HAT)) == M([R(4, 7), R(3, 7), 0])
    assert explained_ratio(mu) == M([R(4, 7), R(3, 7)])
    # checks of the card: (1/n) ||a_i||^2 = lambda_i; sum over components of a_ij^2 = K_jj
    for j in range(2):
        assert (a[:, j].T * a[:, j])[0] / 3 == feature_variances(mu, 3)[j]
    assert [sum(a[i, j] ** 2 for j in range(2)) for i in range(3)] == [5, 5, 4]
    # eta_i / n add up to the mean of the diagonal
    assert sum(feature_variances(mu, 3)) == K_HAT.trace() / 3
    # two components keep everything
    assert reconstruction_error(K_HAT, 2) == 0
    assert reconstruction_error(K_HAT, 1) == 6


def test_001_canonical_signs_of_the_3_point_example():
    _mu, c = kpca_fit(K_HAT, 2)
    # largest-magnitude entry positive, first one on ties
    assert c == M([[R(1, 4), R(-1, 6)], [R(-1, 4), R(-1, 6)], [0, R(1, 3)]])


def test_001_feature_space_mean_facts():
    # rows of a centred matrix sum to zero, so the centred mean has length 0
    assert all(sum(K_HAT.row(i)) == 0 for i in range(3))
    assert feature_mean_sq_norm(K_HAT) == 0
    # K_hat is already centred: centring again changes nothing
    assert centre_kernel(K_HAT) == K_HAT
    # distance of each point to the (zero) mean: sqrt of the diagonal
    assert distances_to_mean(K_HAT) == M([sp.sqrt(5), sp.sqrt(5), 2])
    # ||mu_phi||^2 = (1/n^2) 1^T K 1 for a raw matrix: linear kernel on explicit points
    X = M([[1, 0], [0, 2], [3, 1]])
    K = X * X.T
    mean = sum((X.row(i) for i in range(3)), sp.zeros(1, 2)) / 3
    assert feature_mean_sq_norm(K) == (mean * mean.T)[0] == R(25, 9)  # mean (4/3, 1)
    expected = [sp.sqrt(((X.row(i) - mean) * (X.row(i) - mean).T)[0]) for i in range(3)]
    assert list(distances_to_mean(K)) == expected


# ------------------------------------------------------------------ 002: x = -1, 0, 1
def kernel_002(x, y):
    return x * y + (x * y) ** 2


TRAIN = [-1, 0, 1]
K_002 = M(3, 3, lambda i, j: kernel_002(TRAIN[i], TRAIN[j]))
F_TILDE = M([[-1, R(1, 3)], [0, R(-2, 3)], [1, R(1, 3)]])  # phi(x) = (x, x^2) minus its mean


def test_002_example1_kernel_and_centred_kernel():
    assert K_002 == M([[2, 0, 0], [0, 0, 0], [0, 0, 2]])
    Kc = centre_kernel(K_002)
    assert Kc == M([[10, -2, -8], [-2, 4, -2], [-8, -2, 10]]) / 9
    assert Kc == F_TILDE * F_TILDE.T  # direct multiplication of the centred features
    assert all(sum(Kc.row(i)) == 0 for i in range(3))
    # the feature mean is (0, 2/3): squared length 4/9 is the grand mean of K
    assert feature_mean_sq_norm(K_002) == R(4, 9)
    assert list(distances_to_mean(K_002)) == [sp.sqrt(10) / 3, R(2, 3), sp.sqrt(10) / 3]


def test_002_example2_eigenvalues_coefficients_scores():
    Kc = centre_kernel(K_002)
    assert eigvals_exact(Kc) == M([2, R(2, 3), 0])
    mu, alpha = kpca_fit(Kc, 2)
    assert mu == M([2, R(2, 3)])
    same_up_to_sign(alpha, M([[-1, 1], [0, -2], [1, 1]]) / 2)
    Z = kpca_scores(Kc, alpha)
    same_up_to_sign(Z, F_TILDE)
    # unit directions in the explicit feature space: F~^T alpha_j = +-e_j
    same_up_to_sign(F_TILDE.T * alpha, sp.eye(2))
    # sample variances (n - 1 = 2), explained fraction, discarded energy
    assert feature_variances(mu, 3, ddof=1) == M([1, R(1, 3)])
    assert [sum(Z[:, j].applyfunc(lambda z: z**2)) / 2 for j in range(2)] == [1, R(1, 3)]
    assert explained_ratio(mu)[0] == R(3, 4)
    assert reconstruction_error(Kc, 1) == R(2, 3)
    assert reconstruction_error(Kc, 2) == 0


def test_002_example3_new_point_two():
    k_star = M([kernel_002(x, 2) for x in TRAIN])
    assert k_star == M([2, 0, 6])
    assert [sum(K_002.row(i)) / 3 for i in range(3)] == [R(2, 3), 0, R(2, 3)]
    assert feature_mean_sq_norm(K_002) == R(4, 9)
    centred = centre_new(k_star, K_002)
    assert centred == M([R(-8, 9), R(-20, 9), R(28, 9)])
    _, alpha = kpca_fit(centre_kernel(K_002), 2)
    scores = kpca_transform(k_star, K_002, alpha)
    same_up_to_sign(scores.T, M([[2, R(10, 3)]]))
    # explicit check: phi(2) - phi_bar = (2, 4 - 2/3), with the signs of the training scores
    F_signs = kpca_scores(centre_kernel(K_002), alpha)
    s = [1 if F_signs[:, j] == F_TILDE[:, j] else -1 for j in range(2)]
    assert scores == M([2 * s[0], R(10, 3) * s[1]])
    # the zero-sum shortcut alpha^T (k* - m_row) gives the same scores
    m_row = M([R(2, 3), 0, R(2, 3)])
    assert alpha.T * (k_star - m_row) == scores


def test_002_example3_new_point_must_not_use_its_own_mean_only():
    # centring with only the new vector's own average misses the training means
    k_star = M([2, 0, 6])
    wrong = k_star - sp.ones(3, 1) * sum(k_star) / 3
    assert centre_new(k_star, K_002) != wrong


def test_002_checkpoint1_identity_gram():
    I3 = sp.eye(3)
    Kc = centre_kernel(I3)
    assert Kc == centring_matrix(sp.Integer(3)) == I3 - sp.ones(3, 3) / 3
    values, vectors = eigh_exact(Kc)
    assert values == M([1, 1, 0])
    assert explained_ratio(values[:2, :])[0] == R(1, 2)
    # the leading direction is not unique: an orthonormal basis of all zero-sum vectors
    assert vectors.T * vectors == sp.eye(3)
    assert sp.ones(1, 3) * vectors[:, :2] == sp.zeros(1, 2)


def test_002_checkpoint2_six_points_eigenvalues_9_and_4():
    a = M([1, -1, 0, 0, 0, 0]) / sp.sqrt(2)
    b = M([1, 1, -2, 0, 0, 0]) / sp.sqrt(6)
    Kc = 9 * a * a.T + 4 * b * b.T  # zero-sum unit eigenvectors: a centred 6 x 6 Gram matrix
    assert is_rational_matrix(Kc)
    mu, alpha = kpca_fit(Kc, 2)
    assert mu == M([9, 4])
    same_up_to_sign(alpha[:, 0], a / 3)
    same_up_to_sign(kpca_scores(Kc, alpha)[:, 0], 3 * a)
    assert feature_variances(mu, 6, ddof=1) == M([R(9, 5), R(4, 5)])
    assert explained_ratio(mu)[0] == R(9, 13)


def test_002_checkpoint3_new_point_minus_two():
    k_star = M([kernel_002(x, -2) for x in TRAIN])
    assert k_star == M([6, 0, 2])
    assert sum(k_star) / 3 == R(8, 3)
    assert centre_new(k_star, K_002) == M([R(28, 9), R(-20, 9), R(-8, 9)])
    _, alpha = kpca_fit(centre_kernel(K_002), 2)
    scores = kpca_transform(k_star, K_002, alpha)
    same_up_to_sign(scores.T, M([[-2, R(10, 3)]]))
    # the two new points x* = 2 and x* = -2 mirror each other on component 1 only
    other = kpca_transform(M([2, 0, 6]), K_002, alpha)
    assert scores[0] == -other[0] and scores[1] == other[1]


def test_002_both_new_points_at_once_as_rows():
    K_new = M([[2, 0, 6], [6, 0, 2]])
    _, alpha = kpca_fit(centre_kernel(K_002), 2)
    rows = kpca_transform(K_new, K_002, alpha)
    assert rows.shape == (2, 2)
    assert rows[0, :] == kpca_transform(M([2, 0, 6]), K_002, alpha).T


@pytest.mark.parametrize(
    "fn, args",
    [
        (centre_kernel, (K_002,)),
        (centre_new, (M([2, 0, 6]), K_002)),
        (kpca_fit, (centre_kernel(K_002), 2)),
        (feature_variances, (M([2, R(2, 3)]), 3, 1)),
        (explained_ratio, (M([2, R(2, 3)]),)),
    ],
)
def test_exact_results_never_contain_floats(fn, args):
    out = fn(*args)
    for part in out if isinstance(out, tuple) else (out,):
        assert not any(e.has(sp.Float) for e in part)
