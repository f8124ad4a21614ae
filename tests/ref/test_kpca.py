"""ps5 reference: kernel PCA fit, scores, new points, variance helpers (numeric route)."""

import numpy as np
import pytest
import sympy as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.decomposition import KernelPCA as SkKernelPCA

from kpca_ref.centring import centre_kernel, centre_new
from kpca_ref.kpca import explained_ratio, feature_variances, kpca_fit, reconstruction_error
from kpca_ref.kpca_projection import kpca_scores, kpca_transform
from kpca_ref.signs import canonical_signs

M = sp.Matrix
R = sp.Rational


def rbf(X, Y, gamma=0.5):
    return np.exp(-gamma * ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1))


def poly(X, Y, p=2, c=1.0):
    return (X @ Y.T + c) ** p


def same_up_to_column_sign(A, B, **tol):
    A, B = np.asarray(A), np.asarray(B)
    assert A.shape == B.shape
    for j in range(A.shape[-1]):
        a, b = A[..., j], B[..., j]
        assert np.allclose(a, b, **tol) or np.allclose(a, -b, **tol), f"column {j} differs"


# ------------------------------------------------------------------ against scikit-learn
@pytest.mark.parametrize("seed, kernel, l", [(0, rbf, 3), (1, poly, 2), (2, rbf, 5)])
def test_matches_sklearn_kernel_pca_precomputed(seed, kernel, l):
    rng = np.random.default_rng(seed)
    X, Xn = rng.normal(size=(12, 3)), rng.normal(size=(4, 3))
    K, K_new = kernel(X, X), kernel(Xn, X)
    sk = SkKernelPCA(n_components=l, kernel="precomputed", eigen_solver="dense").fit(K)
    mu, alpha = kpca_fit(centre_kernel(K), l)
    assert np.allclose(mu, sk.eigenvalues_)
    same_up_to_column_sign(kpca_scores(centre_kernel(K), alpha), sk.transform(K))
    same_up_to_column_sign(kpca_scores(centre_kernel(K), alpha), sk.fit_transform(K))
    same_up_to_column_sign(kpca_transform(K_new, K, alpha), sk.transform(K_new))


def test_linear_kernel_pca_equals_ordinary_pca():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(9, 4)) @ np.diag([3.0, 2.0, 1.0, 0.5]) + 5.0
    Xc = X - X.mean(axis=0)
    _U, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    mu, alpha = kpca_fit(centre_kernel(X @ X.T), 4)
    assert np.allclose(mu, s**2)  # Gram eigenvalues are squared singular values
    same_up_to_column_sign(kpca_scores(centre_kernel(X @ X.T), alpha), Xc @ Vt.T)
    Xn = rng.normal(size=(3, 4))
    same_up_to_column_sign(
        kpca_transform(Xn @ X.T, X @ X.T, alpha), (Xn - X.mean(axis=0)) @ Vt.T
    )
    # the feature variances with ddof=1 are the covariance eigenvalues
    assert np.allclose(feature_variances(mu, 9, ddof=1), np.linalg.eigvalsh(np.cov(X.T))[::-1])


# ------------------------------------------------------------------ details of kpca_fit
def test_fit_descending_canonical_signs_and_scaling():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(8, 2))
    Kc = centre_kernel(rbf(X, X))
    mu, alpha = kpca_fit(Kc, 4)
    assert mu.shape == (4,) and alpha.shape == (8, 4)
    assert np.all(np.diff(mu) <= 0)
    units = alpha * np.sqrt(mu)
    assert np.allclose(canonical_signs(units), units)  # sign fixed on the unit vectors
    assert np.allclose(Kc @ units, units * mu)
    assert np.allclose(units.T @ units, np.eye(4))


def test_fit_returns_float64_and_does_not_modify_input():
    Kc = centre_kernel(np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 1.0], [0.0, 1.0, 2.0]]))
    before = Kc.copy()
    mu, alpha = kpca_fit(Kc, 2)
    assert mu.dtype == alpha.dtype == np.float64
    assert np.array_equal(Kc, before)


def test_fit_accepts_round_off_asymmetry_and_round_off_negatives():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(5, 2))
    H = np.eye(5) - 1 / 5
    Kc = H @ (X @ X.T) @ H  # rank 2, three eigenvalues ~ +-1e-16
    Kc[0, 1] += 1e-15  # slightly asymmetric from round-off
    mu, _alpha = kpca_fit(Kc, 2)
    assert mu.shape == (2,)
    with pytest.raises(ValueError, match="l = 3 components requested but Kc has only 2 positive"):
        kpca_fit(Kc, 3)


def test_transform_1d_point_gives_1d_scores():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(6, 2))
    K = rbf(X, X)
    _, alpha = kpca_fit(centre_kernel(K), 2)
    k = rbf(np.array([[0.2, -0.1]]), X)
    out = kpca_transform(k[0], K, alpha)
    assert out.shape == (2,)
    assert np.allclose(out, kpca_transform(k, K, alpha)[0])


def test_new_point_scores_need_the_training_means():
    K = np.array([[2.0, 0, 0], [0, 0, 0], [0, 0, 2]])
    _, alpha = kpca_fit(centre_kernel(K), 2)
    k = np.array([2.0, 0.0, 6.0])
    right = kpca_transform(k, K, alpha)
    assert np.allclose(np.abs(right), [2.0, 10.0 / 3.0])
    assert not np.allclose(np.abs((k - k.mean()) @ alpha), np.abs(right))


def test_variance_helpers_numeric():
    mu = np.array([8.0, 6.0])
    assert np.allclose(explained_ratio(mu), [4 / 7, 3 / 7])
    assert np.allclose(feature_variances(mu, 3), [8 / 3, 2])
    assert np.allclose(feature_variances(mu, 3, ddof=1), [4, 3])
    assert np.allclose(feature_variances(mu, 3, ddof=2), [8, 6])
    assert np.allclose(explained_ratio([1.0, 0.0, 1e-20]), [1.0, 0.0, 1e-20])


def test_reconstruction_error_numeric():
    Kc = np.array([[5.0, -3, -2], [-3, 5, -2], [-2, -2, 4]])
    assert [round(reconstruction_error(Kc, l), 10) for l in range(4)] == [14.0, 6.0, 0.0, 0.0]
    rng = np.random.default_rng(8)
    X = rng.normal(size=(7, 3))
    Kc = centre_kernel(rbf(X, X))
    w = np.linalg.eigvalsh(Kc)[::-1]
    for l in range(8):
        assert np.isclose(reconstruction_error(Kc, l), np.trace(Kc) - w[:l].sum(), atol=1e-12)
        assert reconstruction_error(Kc, l) >= 0


# ------------------------------------------------------------------ properties
@st.composite
def centred_kernels(draw):
    n = draw(st.integers(3, 8))
    d = draw(st.integers(1, 3))
    X = draw(arrays(np.float64, (n, d), elements=st.floats(-3, 3, width=64)))
    if draw(st.booleans()):
        K = rbf(X, X, gamma=draw(st.floats(0.05, 2.0)))
    else:
        K = poly(X, X, p=draw(st.integers(1, 3)))
    return X, K


def non_degenerate(K, Kc):
    """Kc carries signal, not only the round-off of centring (e.g. all points equal)."""
    return np.abs(np.linalg.eigvalsh(Kc)).max() > 1e-8 * np.abs(K).max()


def usable_components(Kc, limit=4):
    """Components whose eigenvalue is well above the zero cut-off (stable directions)."""
    w = np.linalg.eigvalsh(Kc)[::-1]
    return int(min(limit, np.sum(w > 1e-6 * np.abs(w).max())))


@settings(max_examples=40, deadline=None)
@given(centred_kernels())
def test_property_unit_directions_and_score_variances(data):
    _, K = data
    Kc = centre_kernel(K)
    assume(non_degenerate(K, Kc))
    l = usable_components(Kc)
    mu, alpha = kpca_fit(Kc, l)
    n = K.shape[0]
    assert np.allclose(alpha.T @ Kc @ alpha, np.eye(l), atol=1e-6)  # alpha_j^T Kc alpha_j = 1
    Z = kpca_scores(Kc, alpha)
    assert np.allclose(Z.mean(axis=0), 0, atol=1e-7 * np.sqrt(mu[0]))
    assert np.allclose(Z.var(axis=0), feature_variances(mu, n), rtol=1e-6, atol=1e-9 * mu[0])
    # transforming the training points reproduces their scores
    assert np.allclose(kpca_transform(K, K, alpha), Z, atol=1e-7 * np.sqrt(mu[0]))


@settings(max_examples=30, deadline=None)
@given(centred_kernels(), st.sampled_from([1e-6, 1e6]))
def test_property_scale_invariance(data, c):
    _, K = data
    Kc = centre_kernel(K)
    w = np.linalg.eigvalsh(Kc)
    top = np.abs(w).max()
    assume(top > 0)
    # stay clear of the zero cut-off itself, where a verdict is a coin toss
    assume(not np.any((np.abs(w) > 1e-11 * top) & (np.abs(w) < 1e-9 * top)))
    positive = int(np.sum(w > 1e-10 * top))
    for l in (positive, positive + 1):
        outcomes = []
        for scale in (1.0, c):
            try:
                outcomes.append(kpca_fit(scale * Kc, l))
            except ValueError as exc:
                outcomes.append(str(exc).split(":")[0])
        plain, scaled = outcomes
        if isinstance(plain, str) or isinstance(scaled, str):
            assert plain == scaled  # the same verdict, in the same words
            assert l > positive or not non_degenerate(K, Kc)
            continue
        (mu, alpha), (mu_c, alpha_c) = plain, scaled
        assert np.allclose(mu_c, c * mu, rtol=1e-6, atol=1e-9 * c * top)
        # the kept unit eigenvectors span the same space (robust to repeated eigenvalues)
        units, units_c = alpha * np.sqrt(mu), alpha_c * np.sqrt(mu_c)
        assert np.allclose(units @ units.T, units_c @ units_c.T, atol=1e-6)
    errors = []
    for scale in (1.0, c):
        try:
            errors.append(reconstruction_error(scale * Kc, 1) / scale)
        except ValueError as exc:
            errors.append(str(exc).split(":")[0])
    if isinstance(errors[0], str) or isinstance(errors[1], str):
        assert errors[0] == errors[1]
    else:
        assert np.isclose(errors[0], errors[1], rtol=1e-6, atol=1e-9 * top)


def test_scale_invariance_of_the_not_psd_verdict():
    bad = np.array([[1.0, 0.0], [0.0, -1e-4]])
    for c in (1e-6, 1.0, 1e6):
        with pytest.raises(ValueError, match=r"not positive semidefinite.*-0.0001 times"):
            kpca_fit(c * bad, 1)
    tiny = np.array([[1.0, 0.0], [0.0, -1e-12]])  # round-off size: accepted
    for c in (1e-6, 1.0, 1e6):
        mu, _ = kpca_fit(c * tiny, 1)
        assert np.isclose(mu[0], c)


# ------------------------------------------------------------------ bad input messages
KC = np.array([[5.0, -3, -2], [-3, 5, -2], [-2, -2, 4]])


@pytest.mark.parametrize(
    "Kc, l, exc, pattern",
    [
        (KC, 3, ValueError, "l = 3 components requested but Kc has only 2 positive eigenvalues"),
        (np.zeros((3, 3)), 1, ValueError, "Kc has only 0 positive eigenvalues"),
        (KC, 0, ValueError, "l must be >= 1, got 0"),
        (KC, 1.0, TypeError, "l must be an integer, got float 1.0"),
        (KC, "2", TypeError, "l must be an integer"),
        (np.ones((2, 3)), 1, ValueError, r"Kc must be square, got shape \(2, 3\)"),
        (np.ones(3), 1, ValueError, r"Kc must be 2-D, got shape \(3,\)"),
        ([[1.0, 2.0], [0.0, 1.0]], 1, ValueError, r"Kc must be symmetric: max \|Kc - Kc.T\| = 2"),
        ([[0.0, 1.0], [1.0, 0.0]], 1, ValueError,
         r"Kc is not positive semidefinite: its smallest eigenvalue -1 is -1 times"),
        ([[1.0, np.nan], [np.nan, 1.0]], 1, ValueError, "Kc contains NaN"),
        (M([[1, sp.Float(0.5)], [sp.Float(0.5), 1]]), 1, TypeError, "numeric route"),
        (M([[0, 1], [1, 0]]), 1, ValueError, "Kc is not positive semidefinite: .* eigenvalue -1"),
        (M([[1, 2], [3, 4]]), 1, ValueError, r"Kc must be symmetric, got Kc\[0, 1\] = 2"),
        (M([[2, -2], [-2, 2]]), 2, ValueError, "only 1 positive eigenvalue "),
        (sp.eye(7), 1, ValueError, "Kc is 7 x 7.*numeric route"),
    ],
)
def test_kpca_fit_bad_input(Kc, l, exc, pattern):
    with pytest.raises(exc, match=pattern):
        kpca_fit(Kc, l)


def test_scores_and_transform_shape_mismatch():
    _, alpha = kpca_fit(KC, 2)
    with pytest.raises(ValueError, match="alpha must have n = 4 rows .*got 3 rows"):
        kpca_scores(np.eye(4), alpha)
    with pytest.raises(ValueError, match=r"alpha must be 1-D or 2-D"):
        kpca_scores(KC, np.ones((3, 2, 1)))
    with pytest.raises(ValueError, match=r"K_new must have n = 3 columns"):
        kpca_transform(np.ones((2, 4)), KC, alpha)
    with pytest.raises(ValueError, match="alpha must have n = 3 rows .*got 4 rows"):
        kpca_transform(np.ones((2, 3)), KC, np.ones((4, 2)))
    with pytest.raises(TypeError, match="alpha contains the float"):
        kpca_scores(M(KC.astype(int)), alpha)


@pytest.mark.parametrize(
    "call, exc, pattern",
    [
        (lambda: explained_ratio([1.0, -1.0]), ValueError,
         r"mu must hold non-negative eigenvalues, got mu\[1\] = -1"),
        (lambda: explained_ratio([0.0, 0.0]), ValueError, "mu must have a positive sum"),
        (lambda: explained_ratio([]), ValueError, r"mu must hold at least one eigenvalue"),
        (lambda: explained_ratio([[1.0, 2.0]]), ValueError, r"mu must be 1-D"),
        (lambda: explained_ratio([1.0, np.inf]), ValueError, "mu contains inf"),
        (lambda: explained_ratio(M([[1, 2], [3, 4]])), ValueError, r"mu must be 1-D \(a vector\)"),
        (lambda: explained_ratio([R(1, 2), sp.Float(0.5)]), TypeError, "numeric route"),
        (lambda: feature_variances([1.0, 2.0], 3, ddof=3), ValueError,
         "ddof must be < n .*got ddof = 3 with n = 3"),
        (lambda: feature_variances([1.0, 2.0], 3, ddof=-1), ValueError, "ddof must be >= 0"),
        (lambda: feature_variances([1.0, 2.0], 3, ddof=0.5), TypeError, "ddof must be an integer"),
        (lambda: feature_variances([1.0, 2.0], 3.0), TypeError, "n must be an integer"),
        (lambda: feature_variances([1.0, 2.0, 3.0], 2), ValueError,
         "mu has 3 eigenvalues but n = 2 points give at most 2"),
        (lambda: feature_variances([-1.0], 2), ValueError, "mu must hold non-negative"),
        (lambda: reconstruction_error(KC, 4), ValueError, r"l must be <= n = 3 .*got 4"),
        (lambda: reconstruction_error(KC, -1), ValueError, "l must be >= 0"),
        (lambda: reconstruction_error([[0.0, 1.0], [1.0, 0.0]], 1), ValueError,
         "Kc is not positive semidefinite"),
        (lambda: reconstruction_error(M([[0, 1], [1, 0]]), 1), ValueError,
         "Kc is not positive semidefinite"),
    ],
)
def test_variance_helpers_bad_input(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()


def test_exact_variance_helpers_return_sympy_columns():
    mu = [sp.Integer(2), R(2, 3)]
    assert explained_ratio(mu) == M([R(3, 4), R(1, 4)])
    assert feature_variances(mu, 3, ddof=1) == M([1, R(1, 3)])
    assert feature_variances(M([[2, R(2, 3)]]), sp.Integer(3)) == M([R(2, 3), R(2, 9)])
    assert reconstruction_error(M([[5, -3, -2], [-3, 5, -2], [-2, -2, 4]]), 0) == 14


def test_exact_scores_and_transform_match_numeric():
    K = M([[2, 0, 0], [0, 0, 0], [0, 0, 2]])
    mu_e, alpha_e = kpca_fit(centre_kernel(K), 2)
    Kf = np.array(K, dtype=float)
    mu_n, alpha_n = kpca_fit(centre_kernel(Kf), 2)
    assert np.allclose(np.array(mu_e, dtype=float).ravel(), mu_n)
    assert np.allclose(np.array(alpha_e, dtype=float), alpha_n)
    assert np.allclose(np.array(kpca_scores(centre_kernel(K), alpha_e), dtype=float),
                       kpca_scores(centre_kernel(Kf), alpha_n))
    K_new = M([[2, 0, 6], [6, 0, 2], [1, 1, 1]])
    assert np.allclose(np.array(kpca_transform(K_new, K, alpha_e), dtype=float),
                       kpca_transform(np.array(K_new, dtype=float), Kf, alpha_n))
    assert np.allclose(np.array(centre_new(K_new, K), dtype=float),
                       centre_new(np.array(K_new, dtype=float), Kf))
