"""A fast kernel PCA estimator, a drop-in for scikit-learn's ``KernelPCA``.

:class:`KernelPCA` takes the constructor parameters of
``sklearn.decomposition.KernelPCA`` with the same meaning and defaults, has the same
fitted attributes and methods, and is built on scikit-learn's own base classes and
validation, so it works in ``Pipeline`` and ``GridSearchCV`` and passes scikit-learn's
own tests of ``KernelPCA`` (``tests/sklearn_dropin/``). What it adds is the kit's fast
solver, ``eigen_solver="krylov"`` (:mod:`kpca_ref._krylov_fit`), which ``"auto"`` takes
for the ``rbf``, ``poly`` and ``linear`` kernels on dense points when n > 400. This module
fits; :mod:`kpca_ref.estimator_transform` holds what uses a fit (``transform``,
``inverse_transform``).

scikit-learn (>= 1.6) is needed by this module only: ``pip install 'kernel-pca-course-kit[sklearn]'``.
``import kpca_ref`` and the contract functions never import it.
"""

from __future__ import annotations

import numbers
from typing import ClassVar

import numpy as np

from kpca_ref import _krylov_fit, _solvers
from kpca_ref import sklearn_compat as _sk
from kpca_ref._krylov_fit import FAST_KERNELS, KRYLOV_MIN_N, KrylovFit, krylov_fits
from kpca_ref.estimator_transform import TransformMethods

__all__ = ["KernelPCA"]


class KernelPCA(_sk.ClassNamePrefixFeaturesOutMixin, TransformMethods, _sk.BaseEstimator):
    """Kernel PCA with scikit-learn's interface and the kit's fast solver.

    Parameters are those of ``sklearn.decomposition.KernelPCA``, same meaning and
    defaults; only ``eigen_solver`` has one more value.

    Parameters
    ----------
    n_components : int, default=None
        Number of components; None keeps every non-zero one.
    kernel : {"linear", "poly", "rbf", "sigmoid", "cosine", "precomputed"} or callable
        Kernel, default ``"linear"``.
    gamma : float, default=None
        Coefficient of ``rbf``, ``poly`` and ``sigmoid``; None means 1 / n_features.
    degree : float, default=3
        Degree of ``poly``.
    coef0 : float, default=1
        Constant of ``poly`` and ``sigmoid``.
    kernel_params : dict, default=None
        Keyword arguments of a callable kernel.
    alpha : float, default=1.0
        Ridge of the inverse transform.
    fit_inverse_transform : bool, default=False
        Learn a pre-image map (``inverse_transform``).
    eigen_solver : {"auto", "dense", "arpack", "randomized", "krylov"}, default="auto"
        ``dense``, ``arpack``, ``randomized``: scikit-learn's solvers on the explicit
        centred matrix. ``krylov``: the kit's block Krylov solver (float32 kernel matrix
        when safe, centring inside the products, float64-accurate finish); on a problem
        too small for it (4 max(12, l + 2) > n - 1) ``dense`` runs. ``auto``: ``krylov``
        for ``rbf``/``poly``/``linear`` (gamma > 0) on dense points with n > 400 where it
        fits, else scikit-learn's rule (``arpack`` for n > 200 and fewer than 10
        components, else ``dense``). ``solver_`` says which ran.
    tol : float, default=0
        ``arpack``: its tolerance (0: machine precision). ``krylov``: relative residual
        ||Kc v - mu v|| / mu_1 to reach (0: 1e-9).
    max_iter : int, default=None
        ``arpack``: most iterations. ``krylov``: most block products (None: 100).
    iterated_power : int >= 0 or "auto", default="auto"
        Power iterations of ``randomized``.
    remove_zero_eig : bool, default=False
        Drop components with zero eigenvalue (always done when ``n_components`` is None).
    random_state : int, RandomState instance or None, default=None
        Start of ``arpack``, ``randomized`` and ``krylov``.
    copy_X : bool, default=True
        Store a copy of the training data in ``X_fit_``.
    n_jobs : int, default=None
        Jobs of scikit-learn's kernel computation; the ``krylov`` path and the fast
        ``transform`` use their own threads (``KPCA_REF_NUM_THREADS``).

    Attributes
    ----------
    eigenvalues_, eigenvectors_ : ndarray of shape (n_components,), (n_samples, n_components)
        Eigenpairs of the centred kernel matrix, descending; each eigenvector's
        largest-magnitude entry positive (scikit-learn's ``svd_flip``).
    dual_coef_, X_transformed_fit_ : ndarray
        Inverse transform (only with ``fit_inverse_transform=True``).
    X_fit_ : ndarray or sparse matrix
        The training data (the kernel matrix for ``precomputed``).
    gamma_ : float
        Kernel coefficient used.
    n_features_in_, feature_names_in_ : int, ndarray
        Seen at ``fit``.
    solver_ : str
        Solver that ran. ``kernel_dtype_``: dtype the kernel matrix was stored in.
    n_iter_, residuals_ : int, ndarray or None
        ``krylov`` only: block products used and final relative residuals.

    Examples
    --------
    The lecture's three-point example (the matrix is already centred):

    >>> K = np.array([[5.0, -3, -2], [-3, 5, -2], [-2, -2, 4]])
    >>> kpca = KernelPCA(2, kernel="precomputed").fit(K)
    >>> kpca.eigenvalues_
    array([8., 6.])
    >>> kpca.fit_transform(K).round(12) + 0.0
    array([[ 2., -1.],
           [-2., -1.],
           [ 0.,  2.]])
    """

    _parameter_constraints: ClassVar[dict] = _sk.PARAMETER_CONSTRAINTS

    def __init__(self, n_components=None, *, kernel="linear", gamma=None, degree=3, coef0=1,
                 kernel_params=None, alpha=1.0, fit_inverse_transform=False,
                 eigen_solver="auto", tol=0, max_iter=None, iterated_power="auto",
                 remove_zero_eig=False, random_state=None, copy_X=True, n_jobs=None):
        self.n_components = n_components
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.alpha = alpha
        self.fit_inverse_transform = fit_inverse_transform
        self.eigen_solver = eigen_solver
        self.tol = tol
        self.max_iter = max_iter
        self.iterated_power = iterated_power
        self.remove_zero_eig = remove_zero_eig
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.copy_X = copy_X

    # ------------------------------------------------------------------ kernels
    def _get_kernel(self, X, Y=None):
        if callable(self.kernel):
            params = self.kernel_params or {}
        else:
            params = {"gamma": self.gamma_, "degree": self.degree, "coef0": self.coef0}
        return _sk.pairwise_kernels(X, Y, metric=self.kernel, filter_params=True,
                                n_jobs=self.n_jobs, **params)

    def _fast_kernel(self, X) -> bool:
        """Can the kit compute this kernel itself from the points ``X``?"""
        return (isinstance(self.kernel, str) and self.kernel in FAST_KERNELS
                and not _sk.issparse(X) and (self.kernel == "linear" or self.gamma_ > 0))

    def _pick_solver(self, X, l):
        n, fits = X.shape[0], krylov_fits(X.shape[0], l)
        if self.eigen_solver == "krylov":
            return "krylov" if fits else "dense"
        if self.eigen_solver == "auto":
            if fits and n > KRYLOV_MIN_N and self._fast_kernel(X):
                return "krylov"
            return "arpack" if n > 200 and l < 10 else "dense"
        return self.eigen_solver

    # ------------------------------------------------------------------ fitting
    @_sk.fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Fit the model from the points ``X`` (or a kernel matrix for ``precomputed``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training points; (n_samples, n_samples) kernel matrix for ``precomputed``.
        y : None
            Ignored.

        Returns
        -------
        self : KernelPCA
        """
        if self.fit_inverse_transform and self.kernel == "precomputed":
            raise ValueError("Cannot fit_inverse_transform with a precomputed kernel.")
        X = _sk.validate_data(self, X, accept_sparse="csr", copy=self.copy_X)
        self.gamma_ = 1 / X.shape[1] if self.gamma is None else self.gamma
        n = X.shape[0]
        l = n if self.n_components is None else min(n, self.n_components)
        self.solver_ = self._pick_solver(X, l)
        self.n_iter_, self.residuals_, self._offset = None, None, None
        if self.solver_ == "krylov":
            self._fit_krylov(X, l)
        else:
            self.eigenvalues_, self.eigenvectors_, self._row_means, self._grand_mean = \
                _sk.explicit_eigenpairs(self._get_kernel(X), l, self.solver_, tol=self.tol,
                                    max_iter=self.max_iter, iterated_power=self.iterated_power,
                                    random_state=self.random_state)
            self.kernel_dtype_ = self.eigenvectors_.dtype
        self.eigenvalues_, self.eigenvectors_ = _sk.finish_eigenpairs(
            self.eigenvalues_, self.eigenvectors_, self.remove_zero_eig or self.n_components is None)
        if self.fit_inverse_transform:
            self._fit_inverse_transform(self.eigenvectors_ * np.sqrt(self.eigenvalues_), X)
        self.X_fit_ = X
        return self

    def _fit_krylov(self, X, l):
        """The kit's solver: kernel matrix once (float32 when safe), centring in the products."""
        rs = self.random_state
        seed = rs if isinstance(rs, numbers.Integral) else \
            _sk.check_random_state(rs).randint(np.iinfo(np.int32).max)
        if self._fast_kernel(X):
            kernel, params = self.kernel, (self.gamma_, self.degree, self.coef0)
            self._offset = _krylov_fit.rbf_offset(X, kernel)
            data = np.asarray(X, dtype=np.float64) - self._offset
        else:  # precomputed, or a kernel scikit-learn computes: symmetric K in float64
            kernel, params = "precomputed", (None, None, None)
            K = X if self.kernel == "precomputed" else self._get_kernel(X)
            data = _solvers.check_symmetric(np.asarray(K, dtype=np.float64))
        fitter = KrylovFit(kernel, *params, l, tol=self.tol, max_iter=self.max_iter,
                           rng=np.random.default_rng(seed))
        result = fitter.run(data)
        dtype = X.dtype if X.dtype in (np.float32, np.float64) else np.float64
        self.eigenvalues_ = result.eigenvalues.astype(dtype)
        self.eigenvectors_ = result.eigenvectors.astype(dtype)
        self._row_means, self._grand_mean = result.row_means, float(result.row_means.mean())
        self.kernel_dtype_, self.n_iter_ = result.kernel_dtype, result.n_iter
        self.residuals_ = result.residuals

    def _fit_inverse_transform(self, X_transformed, X):
        self.dual_coef_ = _sk.inverse_map(self._get_kernel, X_transformed, X, self.alpha)
        self.X_transformed_fit_ = X_transformed

    def fit_transform(self, X, y=None, **params):
        """Fit, then return the training scores ``eigenvectors_ * sqrt(eigenvalues_)``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            As for :meth:`fit`.
        y : None
            Ignored.
        **params : dict
            Passed to :meth:`fit`.

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        self.fit(X, **params)
        return self.eigenvectors_ * np.sqrt(self.eigenvalues_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # scikit-learn's KernelCenterer refuses a sparse precomputed kernel matrix
        tags.input_tags.sparse = self.kernel != "precomputed"
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    @property
    def _n_features_out(self):
        """Number of output features (for ``get_feature_names_out``)."""
        return self.eigenvalues_.shape[0]
