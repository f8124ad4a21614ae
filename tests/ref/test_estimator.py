"""The fast KernelPCA estimator: agrees with scikit-learn, with the contract functions,
across its own solvers, and refuses bad input with clear messages."""

import numpy as np
import pytest
from sklearn.decomposition import KernelPCA as SkKernelPCA
from sklearn.metrics.pairwise import pairwise_kernels

from kpca_ref import KernelPCA, centre_kernel, kpca_fit, kpca_scores, kpca_transform, rbf_kernel

SOLVERS = ["dense", "lanczos", "randomized"]


def _points(n, d=4, seed=0):
    """Anisotropic Gaussian points: the leading eigenvalues are well separated."""
    scales = np.array([3.0, 2.0, 1.2, 0.7, 0.4, 0.3, 0.2, 0.1][:d])
    return np.random.default_rng(seed).standard_normal((n, d)) * scales


def _eig_atol(model):
    """Eigenvalue tolerance: float32 storage of K moves eigenvalues by ~1e-8 relative."""
    return (1e-7 if model.kernel_dtype_ == np.float32 else 1e-10) * model.eigenvalues_[0]


def _assert_scores_close(scores, reference, rtol):
    """Equal up to the sign of each column, relative to each column's largest entry."""
    assert scores.shape == reference.shape
    signs = np.sign(np.sum(scores * reference, axis=0))
    worst = np.abs(scores * signs - reference).max(axis=0) / np.abs(reference).max(axis=0)
    assert worst.max() <= rtol, f"largest relative score difference {worst.max():.2e}"


# ------------------------------------------------------------------ against scikit-learn
KERNELS = [
    ("rbf", {"gamma": 0.15}),
    ("poly", {"gamma": 0.3, "degree": 3, "coef0": 1.0}),
    ("linear", {}),
    ("precomputed", {}),
]


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("kernel, params", KERNELS, ids=[k for k, _ in KERNELS])
def test_agrees_with_sklearn(kernel, params, solver):
    X, X_new, l = _points(300), _points(7, seed=1), 3
    fit_on, new_on = X, X_new
    if kernel == "precomputed":
        fit_on = pairwise_kernels(X, metric="rbf", gamma=0.2)
        new_on = pairwise_kernels(X_new, X, metric="rbf", gamma=0.2)
    ours = KernelPCA(l, kernel=kernel, eigen_solver=solver, **params)
    theirs = SkKernelPCA(l, kernel=kernel, eigen_solver="dense", **params)
    scores, reference = ours.fit_transform(fit_on), theirs.fit_transform(fit_on)
    assert ours.solver_ == solver
    np.testing.assert_allclose(ours.eigenvalues_, theirs.eigenvalues_, rtol=0, atol=_eig_atol(ours))
    _assert_scores_close(scores, reference, 1e-6)
    _assert_scores_close(ours.transform(new_on), theirs.transform(new_on), 1e-6)


def test_default_gamma_is_one_over_features_like_sklearn():
    X = _points(120, d=5)
    ours, theirs = KernelPCA(2).fit(X), SkKernelPCA(2, kernel="rbf", eigen_solver="dense").fit(X)
    assert ours.gamma_ == pytest.approx(0.2)
    np.testing.assert_allclose(ours.eigenvalues_, theirs.eigenvalues_, rtol=1e-10)


# -------------------------------------------------------------- against the contract steps
@pytest.mark.parametrize("solver", SOLVERS)
def test_agrees_with_contract_functions(solver):
    X, X_new, gamma, l = _points(250), _points(5, seed=2), 0.2, 4
    K = rbf_kernel(X, X, gamma)
    mu, alpha = kpca_fit(centre_kernel(K), l)
    model = KernelPCA(l, kernel="rbf", gamma=gamma, eigen_solver=solver).fit(X)
    np.testing.assert_allclose(model.eigenvalues_, mu, rtol=0, atol=_eig_atol(model))
    # same centring, same sign rule: the coefficients match column by column, signs included
    np.testing.assert_allclose(model.alpha_, alpha, rtol=0, atol=1e-7 * np.abs(alpha).max())
    np.testing.assert_allclose(model.eigenvectors_, alpha * np.sqrt(mu), rtol=0, atol=1e-7)
    np.testing.assert_allclose(model.fit_transform(X), kpca_scores(centre_kernel(K), alpha),
                               rtol=0, atol=1e-7 * np.sqrt(mu[0]))
    np.testing.assert_allclose(model.transform(X_new),
                               kpca_transform(rbf_kernel(X_new, X, gamma), K, alpha),
                               rtol=0, atol=1e-7 * np.sqrt(mu[0]))


def test_precomputed_three_point_example():
    K = np.array([[5.0, -3, -2], [-3, 5, -2], [-2, -2, 4]])  # already centred
    model = KernelPCA(2, kernel="precomputed").fit(K)
    mu, alpha = kpca_fit(K, 2)
    np.testing.assert_allclose(model.eigenvalues_, mu)
    np.testing.assert_allclose(mu, [8.0, 6.0])
    np.testing.assert_allclose(model.alpha_, alpha, atol=1e-12)
    np.testing.assert_allclose(model.fit_transform(K), [[2, -1], [-2, -1], [0, 2]], atol=1e-12)


def test_rbf_accurate_far_from_the_origin():
    """Distances come from one matrix product: the data are shifted to their mean first."""
    X, X_new = _points(500), _points(4, seed=5)
    far = KernelPCA(3, gamma=0.2).fit(X + 1e6)
    near = SkKernelPCA(3, kernel="rbf", gamma=0.2, eigen_solver="dense").fit(X)
    np.testing.assert_allclose(far.eigenvalues_, near.eigenvalues_, rtol=1e-7)
    _assert_scores_close(far.transform(X_new + 1e6), near.transform(X_new), 1e-6)


def test_new_points_use_training_means():
    """transform of the training points equals the training scores (four-term centring)."""
    X = _points(200)
    model = KernelPCA(3, gamma=0.3).fit(X)
    np.testing.assert_allclose(model.transform(X), model.fit_transform(X), rtol=0,
                               atol=1e-9 * np.sqrt(model.eigenvalues_[0]))


# ------------------------------------------------------------------ the solvers agree
@pytest.mark.parametrize("kernel, params", KERNELS[:3], ids=[k for k, _ in KERNELS[:3]])
def test_solvers_agree_on_clear_gap(kernel, params):
    X = _points(500, d=3)
    fits = {s: KernelPCA(3, kernel=kernel, eigen_solver=s, **params).fit(X)
            for s in SOLVERS + ["auto"]}
    ref = fits["dense"]
    for solver, model in fits.items():
        np.testing.assert_allclose(model.eigenvalues_, ref.eigenvalues_, rtol=0,
                                   atol=_eig_atol(model), err_msg=solver)
        # canonical signs: no sign freedom left between solvers
        np.testing.assert_allclose(model.eigenvectors_, ref.eigenvectors_, rtol=0, atol=1e-7,
                                   err_msg=solver)
    assert fits["auto"].solver_ == "randomized"
    assert KernelPCA(3).fit(X[:200]).solver_ == "dense"  # small n: auto takes LAPACK


def test_repeated_fits_are_identical():
    X = _points(600)
    a = KernelPCA(4, eigen_solver="randomized").fit(X)
    b = KernelPCA(4, eigen_solver="randomized").fit(X)
    assert np.array_equal(a.eigenvectors_, b.eigenvectors_)


# --------------------------------------------------------- float32 storage and its guard
def test_float32_path_accuracy_n1500():
    X = np.random.default_rng(3).standard_normal((1500, 10))
    model = KernelPCA(6, kernel="rbf", gamma=0.1, eigen_solver="randomized")
    scores = model.fit_transform(X)
    assert model.kernel_dtype_ == np.float32  # half the memory of a float64 matrix
    reference = SkKernelPCA(6, kernel="rbf", gamma=0.1, eigen_solver="arpack", tol=0,
                            random_state=0)
    expected = reference.fit_transform(X)
    np.testing.assert_allclose(model.eigenvalues_, reference.eigenvalues_, rtol=1e-8)
    _assert_scores_close(scores, expected, 2e-7)
    assert model.residuals_.max() <= 1e-9


def test_float32_falls_back_to_float64_when_rounding_matters():
    # gamma tiny: K is nearly all ones and the centred eigenvalues are far below the
    # float32 rounding of K, so the fit is redone with a float64 K
    X = _points(400, d=3)
    model = KernelPCA(4, gamma=1e-3, eigen_solver="randomized").fit(X)
    assert model.kernel_dtype_ == np.float64
    theirs = SkKernelPCA(4, kernel="rbf", gamma=1e-3, eigen_solver="dense").fit(X)
    np.testing.assert_allclose(model.eigenvalues_, theirs.eigenvalues_, rtol=1e-7)


@pytest.mark.parametrize("solver", SOLVERS)
def test_fewer_positive_eigenvalues_than_components(solver):
    X = _points(300, d=2)  # linear kernel: rank 2 after centring
    with pytest.raises(ValueError, match="n_components = 3 requested but the centred kernel "
                                         "matrix has only 2 positive eigenvalues"):
        KernelPCA(3, kernel="linear", eigen_solver=solver).fit(X)


@pytest.mark.parametrize("solver", SOLVERS)
def test_clearly_negative_eigenvalue_is_refused(solver):
    A = np.random.default_rng(4).standard_normal((300, 300))
    K = A @ A.T / 300 - 0.5 * np.eye(300)  # symmetric, smallest eigenvalues below zero
    with pytest.raises(ValueError, match="not positive semidefinite: it has the eigenvalue -"):
        KernelPCA(2, kernel="precomputed", eigen_solver=solver).fit(K)


# ------------------------------------------------------------------ parameter checks
@pytest.mark.parametrize("kwargs, error, message", [
    ({"n_components": 0}, ValueError, r"n_components must be >= 1, got 0"),
    ({"n_components": 2.0}, TypeError, r"n_components must be an integer, got float 2.0"),
    ({"n_components": 2, "kernel": "sigmoid"}, ValueError,
     r"kernel must be one of 'rbf', 'poly', 'linear', 'precomputed', got 'sigmoid'"),
    ({"n_components": 2, "gamma": -1}, ValueError, r"gamma must be > 0, got -1"),
    ({"n_components": 2, "gamma": 0}, ValueError, r"gamma must be > 0, got 0"),
    ({"n_components": 2, "degree": 0}, ValueError, r"degree must be >= 1, got 0"),
    ({"n_components": 2, "degree": 2.5}, TypeError, r"degree must be an integer, got float 2.5"),
    ({"n_components": 2, "coef0": -0.5}, ValueError, r"coef0 must be >= 0 and finite, got -0.5"),
    ({"n_components": 2, "coef0": "1"}, TypeError, r"coef0 must be a number, got str '1'"),
    ({"n_components": 2, "eigen_solver": "svd"}, ValueError,
     r"eigen_solver must be one of 'auto', 'dense', 'lanczos', 'randomized', got 'svd'"),
    ({"n_components": 2, "tol": 0}, ValueError, r"tol must be > 0, got 0"),
    ({"n_components": 2, "max_iter": 0}, ValueError, r"max_iter must be >= 1, got 0"),
])
def test_bad_parameters(kwargs, error, message):
    with pytest.raises(error, match=message):
        KernelPCA(**kwargs)


def test_bad_data():
    with pytest.raises(ValueError, match=r"n_components must be <= the number of training "
                                         r"points n = 5, got 6"):
        KernelPCA(6).fit(_points(5))
    with pytest.raises(ValueError, match="X contains NaN"):
        KernelPCA(1).fit([[0.0, 1.0], [np.nan, 2.0], [1.0, 1.0]])
    with pytest.raises(ValueError, match=r"X must be 2-D, got shape \(3,\)"):
        KernelPCA(1).fit([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"K must be square, got shape \(3, 4\)"):
        KernelPCA(1, kernel="precomputed").fit(np.ones((3, 4)))
    with pytest.raises(ValueError, match=r"K must be symmetric: max \|K - K.T\| = 1"):
        KernelPCA(1, kernel="precomputed").fit([[2.0, 1.0], [0.0, 2.0]])
    with pytest.raises(AttributeError, match="not fitted yet"):
        KernelPCA(1).transform(_points(3))
    model = KernelPCA(2).fit(_points(20))
    with pytest.raises(ValueError, match=r"X must have 4 columns, got shape \(2, 3\)"):
        model.transform(np.zeros((2, 3)))
    model = KernelPCA(1, kernel="precomputed").fit(np.eye(3) + 1.0)
    with pytest.raises(ValueError, match=r"K_new must have 3 columns, got shape \(1, 2\)"):
        model.transform(np.ones((1, 2)))
