"""A fast kernel PCA estimator with scikit-learn's interface.

The contract functions (:func:`~kpca_ref.centring.centre_kernel`,
:func:`~kpca_ref.kpca.kpca_fit`, :func:`~kpca_ref.kpca.kpca_scores`,
:func:`~kpca_ref.kpca.kpca_transform`) follow the lecture step by step and form every
matrix explicitly. :class:`KernelPCA` gives the same answers (centring with the TRAINING
means, the same sign rule, the same zero and negative eigenvalue rules) on larger
problems: it builds the kernel matrix once, in float32 when that is safe, never forms the
centred matrix, and computes only the top ``n_components`` eigenpairs
(:mod:`kpca_ref._blocks`, :mod:`kpca_ref._solvers`).

Runtime dependencies: SciPy (LAPACK ``eigh`` on an index range, ARPACK ``eigsh``);
threadpoolctl is used when present (it comes with scikit-learn).
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from scipy.sparse.linalg import ArpackNoConvergence

from kpca_ref import _blocks, _solvers
from kpca_ref._validation import as_float_matrix, as_square_float, check_int, check_positive
from kpca_ref.signs import canonical_signs
from kpca_ref.tolerances import FLOAT32_TRUST, ITER_RTOL, REFINED_RTOL, SWITCH_RTOL

__all__ = ["KernelPCA"]

_KERNELS = ("rbf", "poly", "linear", "precomputed")
_SOLVERS = ("auto", "dense", "lanczos", "randomized")
#: ``eigen_solver="auto"`` uses the dense solver up to this many points.
DENSE_MAX_N = 400


def _choice(value, name, allowed):
    if not isinstance(value, str) or value not in allowed:
        options = ", ".join(repr(a) for a in allowed)
        raise ValueError(f"{name} must be one of {options}, got {value!r}")
    return value


class KernelPCA:
    """Kernel PCA: the top eigenpairs of the centred kernel matrix, and scores.

    Parameters
    ----------
    n_components : int
        Number of components l >= 1; the centred kernel matrix needs at least l
        positive eigenvalues (|mu| <= ZERO_EIGENVALUE_RTOL x the largest counts as zero).
    kernel : {"rbf", "poly", "linear", "precomputed"}, default "rbf"
        ``rbf``: exp(-gamma ||x - y||^2); ``poly``: (gamma x.y + coef0)^degree;
        ``linear``: x.y; ``precomputed``: ``fit`` takes the (n, n) kernel matrix and
        ``transform`` the (m, n) kernel values between new and training points.
    gamma : float > 0, optional
        Kernel coefficient of ``rbf`` and ``poly``; default 1 / (number of features).
    degree : int >= 1, default 3
        Degree of ``poly``.
    coef0 : float >= 0, default 1.0
        Constant of ``poly``.
    eigen_solver : {"auto", "dense", "lanczos", "randomized"}, default "auto"
        ``dense``: LAPACK on the explicit float64 centred matrix (top l only);
        ``lanczos``: ARPACK ``eigsh``, one matrix-vector product at a time;
        ``randomized``: random start block, block Krylov steps, Rayleigh-Ritz and a
        residual check. ``auto`` takes ``dense`` for n <= 400 or when the Krylov search
        space would not fit (l large compared with n), else ``randomized``.
    tol : float > 0, optional
        Residual tolerance ||Kc v - mu v|| / mu_1 of the iterative solvers (default 1e-9).
    max_iter : int >= 1, optional
        Most block products (``randomized``) or ARPACK restarts (``lanczos``).
    random_state : int or numpy.random.Generator, default 0
        Seed of the random start (fixed by default: repeated fits give identical results).

    Attributes
    ----------
    eigenvalues_ : ndarray (l,)
        Top eigenvalues mu of the centred kernel matrix, descending.
    eigenvectors_ : ndarray (n, l)
        Unit eigenvectors a_j, signs by :func:`kpca_ref.signs.canonical_signs`.
    alpha_ : ndarray (n, l)
        ``eigenvectors_ / sqrt(eigenvalues_)``: the coefficients of ``kpca_fit``.
    row_means_, grand_mean_, gamma_ : training kernel row means, their mean, gamma used.
    solver_, kernel_dtype_ : solver used and the dtype K was stored in.
    n_iter_, residuals_ : block products used and final ||Kc v - mu v|| / mu_1.

    Notes
    -----
    For ``rbf``, ``poly`` and ``linear`` the iterative solvers store K in float32 and end
    with float64-accurate Rayleigh-Ritz steps (:mod:`kpca_ref._solvers`); scores then
    differ from a float64 computation by the float32 rounding of K (about 3e-8 relative
    on an RBF problem). The fit is redone with a float64 K when the final residuals
    exceed 1e-7 mu_1 or when mu_l is too small next to that rounding for about 1e-6.
    For a precomputed K the iterative solvers seek a clearly negative eigenvalue with a
    few Krylov steps: one found is certain, a tiny one may go unseen. Eigenvectors whose
    eigenvalues nearly coincide are ill-determined for every solver.

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

    def __init__(self, n_components, kernel="rbf", gamma=None, degree=3, coef0=1.0,
                 eigen_solver="auto", tol=None, max_iter=None, random_state=0):
        self.n_components = check_int(n_components, "n_components", minimum=1)
        self.kernel = _choice(kernel, "kernel", _KERNELS)
        self.gamma = None if gamma is None else check_positive(gamma, "gamma")
        self.degree = check_int(degree, "degree", minimum=1)
        if isinstance(coef0, (bool, np.bool_)) or not isinstance(coef0, numbers.Real):
            raise TypeError(f"coef0 must be a number, got {type(coef0).__name__} {coef0!r}")
        if not np.isfinite(coef0) or coef0 < 0:
            raise ValueError(f"coef0 must be >= 0 and finite, got {coef0}")
        self.coef0 = float(coef0)
        self.eigen_solver = _choice(eigen_solver, "eigen_solver", _SOLVERS)
        self.tol = None if tol is None else check_positive(tol, "tol")
        self.max_iter = None if max_iter is None else check_int(max_iter, "max_iter", minimum=1)
        if not (random_state is None or isinstance(random_state, np.random.Generator)):
            check_int(random_state, "random_state", minimum=0)
        self.random_state = random_state

    def _block(self, n):  # columns per block product
        return max(12, self.n_components + 2)

    def _choose_solver(self, n):
        l = self.n_components
        fits = 4 * self._block(n) <= n - 1
        if self.eigen_solver == "auto":
            return "randomized" if n > DENSE_MAX_N and fits else "dense"
        if self.eigen_solver == "lanczos" and l < n - 1:
            return "lanczos"
        if self.eigen_solver == "randomized" and fits:
            return "randomized"
        return "dense"  # forced iterative solver on a problem too small for it

    def _kernel(self, X, dtype):  # (K, row means)
        return _blocks.kernel_matrix(X, self.kernel, self.gamma_, self.degree, self.coef0, dtype)

    def fit(self, X):
        """Fit on points ``X`` (n, d), or on a kernel matrix (n, n) for ``precomputed``.

        Returns
        -------
        self
        """
        l = self.n_components
        if self.kernel == "precomputed":
            K = _solvers.check_symmetric(as_square_float(X, "K"))
            self.X_fit_, self.gamma_, self.n_features_in_, n = None, None, None, K.shape[0]
        else:
            X = as_float_matrix(X, "X")
            # RBF depends on differences only: shifting to the mean keeps the one-product
            # distance formula accurate for data far from the origin
            self.offset_ = X.mean(axis=0) if self.kernel == "rbf" else np.zeros(X.shape[1])
            K = X = X - self.offset_
            self.X_fit_, (n, self.n_features_in_) = X, X.shape
            self.gamma_ = (1.0 / X.shape[1] if self.gamma is None else self.gamma) \
                if self.kernel in ("rbf", "poly") else None
        if l > n:
            raise ValueError(f"n_components must be <= the number of training points "
                             f"n = {n}, got {l}")
        self.solver_, self.n_iter_, self.residuals_ = self._choose_solver(n), 0, None
        fit = self._fit_dense if self.solver_ == "dense" else self._fit_iterative
        theta, V, smallest, self.row_means_ = fit(K)
        self.grand_mean_ = float(self.row_means_.mean())
        _solvers.check_spectrum(theta[:l], smallest)
        self.eigenvalues_ = theta[:l].copy()
        self.eigenvectors_ = canonical_signs(V[:, :l])
        self.alpha_ = self.eigenvectors_ / np.sqrt(self.eigenvalues_)
        return self

    def _fit_dense(self, K):
        """Explicit float64 centred matrix, LAPACK on the top l (K: our own copy or X)."""
        if self.kernel == "precomputed":
            r = K.mean(axis=0)
        else:
            K, r = self._kernel(K, np.float64)
        K -= r[:, None]  # centre in place
        K -= r[None, :]
        K += r.mean()
        self.kernel_dtype_ = np.dtype(np.float64)
        with _blocks.one_blas_thread():  # a threaded BLAS stalls on a busy machine
            smallest = _solvers.smallest_eigenvalue(None, dense=K) \
                if self.kernel == "precomputed" else None
            return (*_solvers.dense_top(K, self.n_components), smallest, r)

    def _fit_iterative(self, K):
        """Centring inside the products; float32 K first for kernels computed from X."""
        rng = np.random.default_rng(self.random_state)
        if self.kernel == "precomputed":
            op = _solvers.CentredKernel(K, K.mean(axis=0))
        else:
            op = _solvers.CentredKernel(*self._kernel(K, np.float32))
            if np.isfinite(op.r).all():
                theta, V = self._iterate(op, rng)
            if not np.isfinite(op.r).all() or not self._trusted(op, theta):
                op.K = None  # free the float32 matrix before building the float64 one
                op = _solvers.CentredKernel(*self._kernel(K, np.float64))
        if not np.isfinite(op.r).all():
            raise ValueError("the kernel matrix has entries too large for float64; "
                             "scale X, gamma or coef0 down")
        if not op.low:
            theta, V = self._iterate(op, rng)
        smallest = _solvers.smallest_eigenvalue(op, rng=rng) \
            if self.kernel == "precomputed" else None
        self.kernel_dtype_ = op.K.dtype
        return theta, V, smallest, op.r

    def _iterate(self, op, rng):
        """Run the iterative solver; float32 storage is finished with accurate products."""
        with _blocks.one_blas_thread():  # our own threads split the large products
            return self._iterate_one_blas(op, rng)

    def _iterate_one_blas(self, op, rng):
        l, low = self.n_components, op.low
        tol = ITER_RTOL if self.tol is None else self.tol
        first_tol = max(tol, SWITCH_RTOL) if low else tol
        max_iter = 100 if self.max_iter is None else self.max_iter
        passes, residuals = 0, None
        if self.solver_ == "lanczos":
            try:
                theta, V = _solvers.lanczos_top(op, l, tol=first_tol, max_iter=self.max_iter,
                                                rng=rng)
            except ArpackNoConvergence:
                if not low:
                    raise
                V = None  # float32 rounding kept ARPACK from converging: go on below
        if self.solver_ != "lanczos" or (low and V is None):
            block = self._block(op.n)
            theta, V, _, residuals, passes = _solvers.block_krylov_top(
                op, l, block=block, tol=first_tol, max_iter=max_iter, rng=rng,
                guess=op.guess(block, rng))
        if low:
            V = np.linalg.qr(V - V.mean(axis=0))[0]
            theta, V, _, residuals, more = _solvers.block_krylov_top(
                op, l, block=V.shape[1], tol=tol, max_iter=max_iter, rng=rng,
                start=(V, op.matmat_exact(V)))
            passes += more + 1
        self.n_iter_ = passes
        self.residuals_ = None if residuals is None else residuals[:l] / abs(theta[0])
        if not low and residuals is not None and self.residuals_.max() > tol:
            warnings.warn(f"KernelPCA: {self.solver_} stopped after {passes} block products "
                          f"with relative residual {self.residuals_.max():.1e} > tol = {tol:g}",
                          RuntimeWarning, stacklevel=4)
        return theta, V

    def _trusted(self, op, theta):
        """Is the float32-storage answer good to about 1e-6? (else fit again in float64)"""
        l = self.n_components
        return (self.residuals_.max() <= REFINED_RTOL
                and theta[l - 1] >= FLOAT32_TRUST * op.noise())

    def transform(self, X):
        """Scores of new points, their kernel values centred with the TRAINING means.

        Parameters
        ----------
        X : array_like of shape (m, d), or (m, n) kernel values for ``precomputed``

        Returns
        -------
        ndarray of shape (m, l)
        """
        if not hasattr(self, "eigenvalues_"):
            raise AttributeError("this KernelPCA is not fitted yet: call fit(X) first")
        n = len(self.row_means_)
        if self.kernel == "precomputed":
            K_new = as_float_matrix(X, "K_new", cols=n)
            return self._scores(K_new)
        X = as_float_matrix(X, "X", cols=self.n_features_in_)
        out = np.empty((X.shape[0], self.n_components))
        _, right_t = _blocks.kernel_factors(self.X_fit_, self.kernel, self.gamma_)
        left = _blocks.kernel_factors(X - self.offset_, self.kernel, self.gamma_)[0]

        def work(chunk, scratch):
            a, b = chunk
            block = _blocks.kernel_block(left[a:b], right_t, self.kernel, self.degree,
                                         self.coef0, work=scratch)
            out[a:b] = self._scores(block)

        ranges = _blocks.chunks(X.shape[0], n)
        _blocks.parallel(work, ranges, scratch=(max(b - a for a, b in ranges), n))
        return out

    def _scores(self, K_new):
        """(K_new - 1 r^T - k_bar 1^T + g) alpha without forming the centred block."""
        alpha = self.alpha_
        k_bar = K_new.mean(axis=1)
        ones_alpha = alpha.sum(axis=0)
        return (K_new @ alpha - (self.row_means_ @ alpha)[None, :]
                - np.outer(k_bar, ones_alpha) + self.grand_mean_ * ones_alpha[None, :])

    def fit_transform(self, X):
        """Fit, then return the training scores ``eigenvectors_ * sqrt(eigenvalues_)`` (n, l)."""
        return self.fit(X).eigenvectors_ * np.sqrt(self.eigenvalues_)
