"""The scikit-learn side of :class:`kpca_ref.KernelPCA`: its imports, parameter rules and
the steps it shares with ``sklearn.decomposition.KernelPCA``.

Everything here follows scikit-learn's own ``KernelPCA`` (version 1.9) step by step, with
scikit-learn's utilities: the explicit centred matrix and its ``dense``/``arpack``/
``randomized`` solvers, the eigenvalue rules (``_check_psd_eigenvalues``: clearly negative
eigenvalues among the components are an error, tiny ones become zero), the sign rule
(``svd_flip``: each eigenvector's largest-magnitude entry positive), the removal of zero
components and the pre-image (inverse transform) ridge regression.

Importing this module needs scikit-learn >= 1.6 (``pip install 'kernel-pca-course-kit[sklearn]'``); no
other module of ``kpca_ref`` imports it.
"""

from __future__ import annotations

import numbers

try:
    from scipy import linalg
    from scipy.sparse import issparse
    from scipy.sparse.linalg import eigsh
    from sklearn.base import (
        BaseEstimator,
        ClassNamePrefixFeaturesOutMixin,
        TransformerMixin,
        _fit_context,
    )
    from sklearn.exceptions import NotFittedError
    from sklearn.metrics.pairwise import pairwise_kernels
    from sklearn.preprocessing import KernelCenterer
    from sklearn.utils import check_random_state
    from sklearn.utils._arpack import _init_arpack_v0
    from sklearn.utils._param_validation import Interval, StrOptions
    from sklearn.utils.extmath import _randomized_eigsh, svd_flip
    from sklearn.utils.validation import _check_psd_eigenvalues, check_is_fitted, validate_data
except ImportError as exc:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError(
        "kpca_ref.KernelPCA needs scikit-learn >= 1.6, which is not installed (or too old): "
        "install the estimator's extra with  pip install 'kernel-pca-course-kit[sklearn]'  "
        f"(the contract functions of kpca_ref do not need it). Cause: {exc}") from exc

__all__ = [
    "PARAMETER_CONSTRAINTS", "BaseEstimator", "ClassNamePrefixFeaturesOutMixin",
    "NotFittedError", "TransformerMixin", "check_is_fitted", "check_random_state",
    "explicit_eigenpairs", "finish_eigenpairs", "fit_context", "inverse_map", "issparse",
    "pairwise_kernels", "validate_data",
]

fit_context = _fit_context

#: scikit-learn's constraints on KernelPCA's parameters, plus the solver ``krylov``
PARAMETER_CONSTRAINTS = {
    "n_components": [Interval(numbers.Integral, 1, None, closed="left"), None],
    "kernel": [StrOptions({"linear", "poly", "rbf", "sigmoid", "cosine", "precomputed"}),
               callable],
    "gamma": [Interval(numbers.Real, 0, None, closed="left"), None],
    "degree": [Interval(numbers.Real, 0, None, closed="left")],
    "coef0": [Interval(numbers.Real, None, None, closed="neither")],
    "kernel_params": [dict, None],
    "alpha": [Interval(numbers.Real, 0, None, closed="left")],
    "fit_inverse_transform": ["boolean"],
    "eigen_solver": [StrOptions({"auto", "dense", "arpack", "randomized", "krylov"})],
    "tol": [Interval(numbers.Real, 0, None, closed="left")],
    "max_iter": [Interval(numbers.Integral, 1, None, closed="left"), None],
    "iterated_power": [Interval(numbers.Integral, 0, None, closed="left"),
                       StrOptions({"auto"})],
    "remove_zero_eig": ["boolean"],
    "random_state": ["random_state"],
    "copy_X": ["boolean"],
    "n_jobs": [None, numbers.Integral],
}


def explicit_eigenpairs(K, l, solver, *, tol, max_iter, iterated_power, random_state):
    """Centre ``K`` in place and take its top ``l`` eigenpairs with scikit-learn's ``solver``.

    Returns
    -------
    eigenvalues, eigenvectors : ndarray
        Unsorted, unchecked (see :func:`finish_eigenpairs`).
    column_means, grand_mean : ndarray, float
        The training kernel matrix's column means and mean (to centre new kernel rows).
    """
    centerer = KernelCenterer().set_output(transform="default").fit(K)
    K = centerer.transform(K, copy=False)
    if solver == "dense":
        values, vectors = linalg.eigh(K, subset_by_index=(K.shape[0] - l, K.shape[0] - 1))
    elif solver == "arpack":
        v0 = _init_arpack_v0(K.shape[0], random_state)
        values, vectors = eigsh(K, l, which="LA", tol=tol, maxiter=max_iter, v0=v0)
    else:
        values, vectors = _randomized_eigsh(K, n_components=l, n_iter=iterated_power,
                                            random_state=random_state, selection="module")
    return values, vectors, centerer.K_fit_rows_, centerer.K_fit_all_


def finish_eigenpairs(values, vectors, remove_zero):
    """scikit-learn's rules: PSD check, sign flip, descending order, zero removal.

    >>> import numpy as np
    >>> finish_eigenpairs(np.array([1e-20, 2.0]), np.array([[0.6, -0.8], [0.8, 0.6]]), False)
    (array([2., 0.]), array([[ 0.8,  0.6],
           [-0.6,  0.8]]))
    """
    values = _check_psd_eigenvalues(values, enable_warnings=False)
    vectors, _ = svd_flip(u=vectors, v=None)
    order = values.argsort()[::-1]
    values, vectors = values[order], vectors[:, order]
    if remove_zero:
        vectors, values = vectors[:, values > 0], values[values > 0]
    return values, vectors


def inverse_map(kernel_of, X_transformed, X, alpha):
    """Dual coefficients of the kernel ridge map from scores back to points (pre-images)."""
    if issparse(X):
        raise NotImplementedError("Inverse transform not implemented for sparse matrices!")
    n = X_transformed.shape[0]
    K = kernel_of(X_transformed)
    K.flat[:: n + 1] += alpha
    return linalg.solve(K, X, assume_a="pos", overwrite_a=True)
