"""The fast KernelPCA estimator: agrees with scikit-learn, with the contract functions,
across its solvers, follows scikit-learn's rules and refuses bad input with clear messages.
scikit-learn's own tests of KernelPCA run on it in tests/sklearn_dropin/."""

import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse
from sklearn.decomposition import KernelPCA as SkKernelPCA
from sklearn.exceptions import NotFittedError
from sklearn.metrics.pairwise import pairwise_kernels

from kpca_ref import KernelPCA, centre_kernel, kpca_fit, kpca_scores, kpca_transform, rbf_kernel

SOLVERS = ["dense", "arpack", "randomized", "krylov"]


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
    ours = KernelPCA(l, kernel=kernel, eigen_solver=solver, random_state=0, **params)
    theirs = SkKernelPCA(l, kernel=kernel, eigen_solver="dense", **params)
    scores, reference = ours.fit_transform(fit_on), theirs.fit_transform(fit_on)
    assert ours.solver_ == solver
    np.testing.assert_allclose(ours.eigenvalues_, theirs.eigenvalues_, rtol=0, atol=_eig_atol(ours))
    _assert_scores_close(scores, reference, 1e-6)
    _assert_scores_close(ours.transform(new_on), theirs.transform(new_on), 1e-6)


@pytest.mark.parametrize("kernel, params", [
    ("sigmoid", {"gamma": 0.05, "coef0": 0.5}),
    ("cosine", {}),
    (lambda x, y: np.minimum(x, y).sum(), {}),  # a callable (histogram) kernel
], ids=["sigmoid", "cosine", "callable"])
def test_krylov_on_kernels_sklearn_computes(kernel, params):
    """Kernels the kit does not compute itself: scikit-learn builds K, krylov solves."""
    X, X_new = np.abs(_points(200)), np.abs(_points(5, seed=3))
    ours = KernelPCA(3, kernel=kernel, eigen_solver="krylov", random_state=0, **params)
    theirs = SkKernelPCA(3, kernel=kernel, eigen_solver="dense", **params)
    _assert_scores_close(ours.fit_transform(X), theirs.fit_transform(X), 1e-6)
    assert ours.solver_ == "krylov" and ours.kernel_dtype_ == np.float64
    _assert_scores_close(ours.transform(X_new), theirs.transform(X_new), 1e-6)


def test_krylov_on_sparse_points():
    X = _points(200)
    dense = KernelPCA(3, kernel="rbf", gamma=0.2, eigen_solver="dense").fit(X)
    sparse = KernelPCA(3, kernel="rbf", gamma=0.2, eigen_solver="krylov", random_state=0)
    scores = sparse.fit_transform(scipy.sparse.csr_matrix(X))
    _assert_scores_close(scores, dense.fit_transform(X), 1e-6)
    _assert_scores_close(sparse.transform(scipy.sparse.csr_matrix(X[:4])), dense.transform(X[:4]),
                         1e-6)


def test_defaults_are_sklearns():
    X = _points(120, d=5)
    ours, theirs = KernelPCA(), SkKernelPCA()
    assert ours.get_params() == {**theirs.get_params(), "eigen_solver": "auto"}
    ours.fit(X)
    assert ours.kernel == "linear" and ours.gamma_ == pytest.approx(0.2)
    # n_components=None keeps the non-zero components only: rank 5 after centring
    np.testing.assert_allclose(ours.eigenvalues_, theirs.fit(X).eigenvalues_, rtol=1e-10)
    assert ours.eigenvalues_.shape == (5,)


@pytest.mark.parametrize("n, kernel, l, solver", [
    (500, "rbf", 3, "krylov"),  # large enough: the kit's solver
    (500, "poly", 10, "krylov"),
    (500, "sigmoid", 3, "arpack"),  # a kernel scikit-learn computes: its rule
    (300, "rbf", 3, "arpack"),  # scikit-learn's rule below 400 points
    (150, "rbf", 3, "dense"),
    (500, "rbf", 150, "dense"),  # no room for the Krylov search space
])
def test_auto_choice(n, kernel, l, solver):
    assert KernelPCA(l, kernel=kernel, random_state=0).fit(_points(n)).solver_ == solver


# -------------------------------------------------------------- against the contract steps
@pytest.mark.parametrize("solver", SOLVERS)
def test_agrees_with_contract_functions(solver):
    X, X_new, gamma, l = _points(250), _points(5, seed=2), 0.2, 4
    K = rbf_kernel(X, X, gamma)
    mu, alpha = kpca_fit(centre_kernel(K), l)
    model = KernelPCA(l, kernel="rbf", gamma=gamma, eigen_solver=solver, random_state=0).fit(X)
    np.testing.assert_allclose(model.eigenvalues_, mu, rtol=0, atol=_eig_atol(model))
    # same centring, same sign rule: the coefficients match column by column, signs included
    ours = model.eigenvectors_ / np.sqrt(model.eigenvalues_)
    np.testing.assert_allclose(ours, alpha, rtol=0, atol=1e-6 * np.abs(alpha).max())
    np.testing.assert_allclose(model.fit_transform(X), kpca_scores(centre_kernel(K), alpha),
                               rtol=0, atol=1e-6 * np.sqrt(mu[0]))
    np.testing.assert_allclose(model.transform(X_new),
                               kpca_transform(rbf_kernel(X_new, X, gamma), K, alpha),
                               rtol=0, atol=1e-6 * np.sqrt(mu[0]))


def test_precomputed_three_point_example():
    K = np.array([[5.0, -3, -2], [-3, 5, -2], [-2, -2, 4]])  # already centred
    model = KernelPCA(2, kernel="precomputed").fit(K)
    mu, alpha = kpca_fit(K, 2)
    np.testing.assert_allclose(model.eigenvalues_, mu)
    np.testing.assert_allclose(mu, [8.0, 6.0])
    np.testing.assert_allclose(model.eigenvectors_ / np.sqrt(mu), alpha, atol=1e-12)
    np.testing.assert_allclose(model.fit_transform(K), [[2, -1], [-2, -1], [0, 2]], atol=1e-12)


def test_rbf_accurate_far_from_the_origin():
    """Distances come from one matrix product: the data are shifted to their mean first."""
    X, X_new = _points(500), _points(4, seed=5)
    far = KernelPCA(3, kernel="rbf", gamma=0.2, eigen_solver="krylov").fit(X + 1e6)
    near = SkKernelPCA(3, kernel="rbf", gamma=0.2, eigen_solver="dense").fit(X)
    np.testing.assert_allclose(far.eigenvalues_, near.eigenvalues_, rtol=1e-7)
    _assert_scores_close(far.transform(X_new + 1e6), near.transform(X_new), 1e-6)
    np.testing.assert_array_equal(far.X_fit_, X + 1e6)  # scikit-learn's attribute: the data


def test_new_points_use_training_means():
    """transform of the training points equals the training scores (four-term centring)."""
    X = _points(600)
    model = KernelPCA(3, kernel="rbf", gamma=0.3).fit(X)
    assert model.solver_ == "krylov"
    np.testing.assert_allclose(model.transform(X), model.fit_transform(X), rtol=0,
                               atol=1e-8 * np.sqrt(model.eigenvalues_[0]))


# ------------------------------------------------------------------ the solvers agree
@pytest.mark.parametrize("kernel, params", KERNELS[:3], ids=[k for k, _ in KERNELS[:3]])
def test_solvers_agree_on_clear_gap(kernel, params):
    X = _points(500, d=3)
    fits = {s: KernelPCA(3, kernel=kernel, eigen_solver=s, random_state=0, **params).fit(X)
            for s in SOLVERS + ["auto"]}
    ref = fits["dense"]
    for solver, model in fits.items():
        np.testing.assert_allclose(model.eigenvalues_, ref.eigenvalues_, rtol=0,
                                   atol=_eig_atol(model), err_msg=solver)
        # one sign rule: no sign freedom left between solvers
        np.testing.assert_allclose(model.eigenvectors_, ref.eigenvectors_, rtol=0, atol=1e-7,
                                   err_msg=solver)
    assert fits["auto"].solver_ == "krylov"


def test_repeated_fits_are_identical():
    X = _points(600)
    a = KernelPCA(4, kernel="rbf", eigen_solver="krylov", random_state=7).fit(X)
    b = KernelPCA(4, kernel="rbf", eigen_solver="krylov", random_state=7).fit(X)
    assert np.array_equal(a.eigenvectors_, b.eigenvectors_)


# --------------------------------------------------------- float32 storage and its guard
def test_float32_path_accuracy_n1500():
    X = np.random.default_rng(3).standard_normal((1500, 10))
    model = KernelPCA(6, kernel="rbf", gamma=0.1)
    scores = model.fit_transform(X)
    assert model.solver_ == "krylov" and model.kernel_dtype_ == np.float32  # half the memory
    reference = SkKernelPCA(6, kernel="rbf", gamma=0.1, eigen_solver="arpack", tol=0,
                            random_state=0)
    expected = reference.fit_transform(X)
    np.testing.assert_allclose(model.eigenvalues_, reference.eigenvalues_, rtol=1e-8)
    _assert_scores_close(scores, expected, 2e-7)
    assert model.residuals_.max() <= 1e-9


def test_float32_falls_back_to_float64_when_rounding_matters():
    # gamma tiny: K is nearly all ones and the centred eigenvalues are far below the
    # float32 rounding of K, so the fit is redone with a float64 K
    X = _points(450, d=3)
    model = KernelPCA(4, kernel="rbf", gamma=1e-3, eigen_solver="krylov").fit(X)
    assert model.kernel_dtype_ == np.float64
    theirs = SkKernelPCA(4, kernel="rbf", gamma=1e-3, eigen_solver="dense").fit(X)
    np.testing.assert_allclose(model.eigenvalues_, theirs.eigenvalues_, rtol=1e-7)


def test_float32_input_gives_float32_output_like_sklearn():
    X = _points(500).astype(np.float32)
    model = KernelPCA(3, kernel="rbf", gamma=0.2)
    scores = model.fit_transform(X)
    assert model.solver_ == "krylov"
    assert scores.dtype == model.transform(X[:3]).dtype == np.float32


# ------------------------------------------ scikit-learn's zero and negative eigenvalue rules
@pytest.mark.parametrize("solver", SOLVERS)
def test_zero_eigenvalues_are_kept_as_zero_or_removed(solver):
    X = _points(300, d=2)  # linear kernel: rank 2 after centring
    model = KernelPCA(3, kernel="linear", eigen_solver=solver, random_state=0).fit(X)
    assert model.eigenvalues_[2] == 0.0 and model.eigenvalues_[1] > 0
    assert np.all(model.transform(X[:5])[:, 2] == 0.0)
    removed = KernelPCA(3, kernel="linear", eigen_solver=solver, remove_zero_eig=True,
                        random_state=0).fit(X)
    assert removed.eigenvalues_.shape == (2,)


@pytest.mark.parametrize("solver", SOLVERS)
def test_negative_eigenvalues_refused_when_among_the_components(solver):
    rng, n = np.random.default_rng(1), 120
    Q = np.linalg.qr(np.column_stack([np.ones(n), rng.standard_normal((n, n - 1))]))[0][:, 1:]
    K = (Q * np.r_[5.0, 4.0, 3.0, -2.0 * np.ones(n - 4)]) @ Q.T  # centred: 5, 4, 3, 0, -2...
    model = KernelPCA(3, kernel="precomputed", eigen_solver=solver, random_state=0).fit(K)
    np.testing.assert_allclose(model.eigenvalues_, [5.0, 4.0, 3.0], rtol=1e-4)
    with pytest.raises(ValueError, match="There are significant negative eigenvalues"):
        KernelPCA(5, kernel="precomputed", eigen_solver=solver, random_state=0).fit(K)


# ------------------------------------------------------------------ parameter checks
@pytest.mark.parametrize("kwargs, message", [
    ({"n_components": 0},
     r"'n_components' parameter of KernelPCA must be an int in the range \[1, inf\) or None"),
    ({"kernel": "bogus"}, r"'kernel' parameter of KernelPCA must be a str among"),
    ({"eigen_solver": "lanczos"},
     r"'eigen_solver' parameter of KernelPCA must be a str among \{.*'krylov'.*\}. Got 'lanczos'"),
    ({"gamma": -1}, r"'gamma' parameter of KernelPCA must be a float in the range \[0.0, inf\)"),
    ({"tol": -1e-3}, r"'tol' parameter of KernelPCA must be a float in the range"),
])
def test_bad_parameters_refused_at_fit(kwargs, message):
    model = KernelPCA(**kwargs)  # scikit-learn's rule: __init__ stores, fit validates
    with pytest.raises(ValueError, match=message):
        model.fit(_points(10))


def test_bad_data():
    with pytest.raises(ValueError, match="Cannot fit_inverse_transform with a precomputed"):
        KernelPCA(1, kernel="precomputed", fit_inverse_transform=True).fit(np.eye(3))
    with pytest.raises(ValueError, match="Input X contains NaN"):
        KernelPCA(1).fit([[0.0, 1.0], [np.nan, 2.0], [1.0, 1.0]])
    with pytest.raises(NotFittedError):
        KernelPCA(1).transform(_points(3))
    model = KernelPCA(2).fit(_points(20))
    with pytest.raises(ValueError, match="X has 3 features, but KernelPCA is expecting 4"):
        model.transform(np.zeros((2, 3)))
    asymmetric = np.eye(60) + np.triu(np.ones((60, 60)), 1)
    with pytest.raises(ValueError, match=r"K must be symmetric: max \|K - K.T\| = 1"):
        KernelPCA(1, kernel="precomputed", eigen_solver="krylov").fit(asymmetric)


# ------------------------------------------------------------------ scikit-learn stays optional
_IMPORT_EVERYTHING_BUT_THE_ESTIMATOR = """
import importlib, pkgutil, sys
import kpca_ref
names = [m.name for m in pkgutil.walk_packages(kpca_ref.__path__, "kpca_ref.")
         if m.name not in ("kpca_ref.estimator", "kpca_ref.estimator_transform",
                           "kpca_ref.sklearn_compat")]
for name in names:
    importlib.import_module(name)
for name in kpca_ref.__all__:
    if name != "KernelPCA":
        getattr(kpca_ref, name)
assert len(names) > 10, names
print(sorted(m for m in sys.modules if m == "sklearn" or m.startswith("sklearn.")))
"""


def test_contract_and_grading_modules_never_import_sklearn():
    out = subprocess.run([sys.executable, "-c", _IMPORT_EVERYTHING_BUT_THE_ESTIMATOR],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out


def test_missing_sklearn_names_the_extra():
    code = ("import sys; sys.modules['sklearn'] = None\n"
            "from kpca_ref import kpca_fit\n"
            "try:\n    from kpca_ref import KernelPCA\n"
            "except ImportError as exc:\n    print(exc)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert "kpca_ref.KernelPCA needs scikit-learn >= 1.6" in out
    assert "pip install 'kernel-pca-course-kit[sklearn]'" in out
