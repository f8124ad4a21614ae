"""scikit-learn's estimator checks (``check_estimator``) on ``kpca_ref.KernelPCA``.

Three set-ups: scikit-learn's defaults (linear kernel, ``auto``), the kit's ``krylov``
solver on an RBF kernel (the checks' data are small, so it hands over to ``dense`` where
the problem is too small for block Krylov steps, as documented) and a precomputed kernel.
"""

from sklearn.utils.estimator_checks import parametrize_with_checks

from kpca_ref import KernelPCA

ESTIMATORS = [
    KernelPCA(),
    KernelPCA(n_components=2, kernel="rbf", eigen_solver="krylov", random_state=0),
    KernelPCA(n_components=3, kernel="precomputed"),
]


@parametrize_with_checks(ESTIMATORS)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
