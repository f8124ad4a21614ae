"""scikit-learn's own tests of ``KernelPCA``, run on ``kpca_ref.KernelPCA``.

The installed ``sklearn/decomposition/tests/test_kernel_pca.py`` is imported and its test
functions are re-exposed here unchanged; while each runs, the name ``KernelPCA`` in that
module's globals is ``kpca_ref.KernelPCA``. Skips are scikit-learn's own (pandas missing).
"""

import pytest
import sklearn.decomposition
from sklearn.decomposition.tests import test_kernel_pca as sklearn_tests

from kpca_ref import KernelPCA

SKLEARN_TEST_NAMES = sorted(name for name in vars(sklearn_tests) if name.startswith("test_"))

for _name in SKLEARN_TEST_NAMES:  # collected by pytest under their own names
    globals()[_name] = getattr(sklearn_tests, _name)


@pytest.fixture(autouse=True)
def swap_in_kpca_ref(monkeypatch):
    """Every test of this module sees ``kpca_ref.KernelPCA`` as ``KernelPCA``."""
    monkeypatch.setattr(sklearn_tests, "KernelPCA", KernelPCA)


def test_swap_reaches_the_sklearn_tests():
    """The module's tests build kpca_ref's estimator, not scikit-learn's."""
    assert sklearn_tests.KernelPCA is KernelPCA
    assert KernelPCA is not sklearn.decomposition.KernelPCA
    assert len(SKLEARN_TEST_NAMES) >= 20, SKLEARN_TEST_NAMES
    collected = {name for name in globals() if name.startswith("test_")}
    assert set(SKLEARN_TEST_NAMES) <= collected
