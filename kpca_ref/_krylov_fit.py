"""The kit's fast kernel PCA fit: float32 kernel storage, centring inside block Krylov steps.

This is the ``eigen_solver="krylov"`` of :class:`kpca_ref.KernelPCA` (and its ``auto``
choice on larger problems). It builds the kernel matrix once (:mod:`kpca_ref._blocks`),
in float32 when that is safe, never forms the centred matrix, and computes only the top
``l`` eigenpairs (:func:`kpca_ref._solvers.block_krylov_top`), finished with
float64-accurate Rayleigh-Ritz steps. The fit is redone with a float64 kernel matrix when
the final residuals exceed ``REFINED_RTOL`` or when the l-th eigenvalue is too small next
to the float32 rounding of K (``FLOAT32_TRUST``).

NumPy and SciPy only: scikit-learn is not needed here.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from kpca_ref import _blocks, _solvers
from kpca_ref.tolerances import FLOAT32_TRUST, ITER_RTOL, REFINED_RTOL, SWITCH_RTOL

#: kernels the fast path computes itself from points (the others go through scikit-learn)
FAST_KERNELS = ("rbf", "poly", "linear")
#: ``eigen_solver="auto"`` takes the fast path above this many points.
KRYLOV_MIN_N = 400


def block_size(l: int) -> int:
    """Columns of each block product for ``l`` components."""
    return max(12, l + 2)


def krylov_fits(n: int, l: int) -> bool:
    """Does a block Krylov search space for ``l`` components fit in ``n`` points?

    >>> krylov_fits(1000, 10), krylov_fits(40, 10)
    (True, False)
    """
    return 4 * block_size(l) <= n - 1


@dataclass
class KrylovResult:
    """Top eigenpairs of the centred kernel matrix and how they were found."""

    eigenvalues: np.ndarray  # (l,), descending
    eigenvectors: np.ndarray  # (n, l), orthonormal
    row_means: np.ndarray  # (n,) row means of the (uncentred) training kernel matrix
    kernel_dtype: np.dtype
    n_iter: int
    residuals: np.ndarray | None  # final ||Kc v - mu v|| / |mu_1| of the top l


class KrylovFit:
    """One fit: kernel parameters, solver controls and the points (or a kernel matrix).

    Parameters
    ----------
    kernel : {"rbf", "poly", "linear", "precomputed"}
    gamma, degree, coef0 : float
        Kernel parameters (``rbf``: exp(-gamma ||x - y||^2); ``poly``:
        (gamma x.y + coef0)^degree).
    l : int
        Number of eigenpairs.
    tol : float or None
        Relative residual tolerance; None or 0 for ``ITER_RTOL``.
    max_iter : int or None
        Most block products (default 100).
    rng : numpy.random.Generator
        Random start.
    """

    def __init__(self, kernel, gamma, degree, coef0, l, *, tol, max_iter, rng):
        self.kernel, self.gamma, self.degree, self.coef0 = kernel, gamma, degree, coef0
        self.l, self.rng = l, rng
        self.tol = tol if tol else ITER_RTOL
        self.max_iter = 100 if max_iter is None else max_iter
        self.n_iter, self.residuals = 0, None

    def run(self, X) -> KrylovResult:
        """Fit on points ``X`` (already shifted, see :func:`rbf_offset`) or on a symmetric K."""
        if self.kernel == "precomputed":
            op = _solvers.CentredKernel(X, X.mean(axis=0))
        else:
            op = _solvers.CentredKernel(*self._kernel(X, np.float32))
            if np.isfinite(op.r).all():
                theta, V = self._iterate(op)
            if not np.isfinite(op.r).all() or not self._trusted(op, theta):
                op.K = None  # free the float32 matrix before building the float64 one
                op = _solvers.CentredKernel(*self._kernel(X, np.float64))
        if not np.isfinite(op.r).all():
            raise ValueError("the kernel matrix has entries too large for float64; "
                             "scale X, gamma or coef0 down")
        if not op.low:
            theta, V = self._iterate(op)
        return KrylovResult(theta[: self.l].copy(), V[:, : self.l].copy(), op.r,
                            op.K.dtype, self.n_iter, self.residuals)

    def _kernel(self, X, dtype):  # (K, row means)
        return _blocks.kernel_matrix(X, self.kernel, self.gamma, self.degree, self.coef0, dtype)

    def _iterate(self, op):
        """Block Krylov steps; float32 storage is finished with accurate products."""
        with _blocks.one_blas_thread():  # our own threads split the large products
            l, low, tol = self.l, op.low, self.tol
            first_tol = max(tol, SWITCH_RTOL) if low else tol
            block = block_size(l)
            theta, V, _, residuals, passes = _solvers.block_krylov_top(
                op, l, block=block, tol=first_tol, max_iter=self.max_iter, rng=self.rng,
                guess=op.guess(block, self.rng))
            if low:
                V = np.linalg.qr(V - V.mean(axis=0))[0]
                theta, V, _, residuals, more = _solvers.block_krylov_top(
                    op, l, block=V.shape[1], tol=tol, max_iter=self.max_iter, rng=self.rng,
                    start=(V, op.matmat_exact(V)))
                passes += more + 1
        self.n_iter = passes
        self.residuals = residuals[:l] / max(abs(theta[0]), np.finfo(float).tiny)
        if not low and self.residuals.max() > tol:
            warnings.warn(f"KernelPCA: krylov stopped after {passes} block products with "
                          f"relative residual {self.residuals.max():.1e} > tol = {tol:g}",
                          RuntimeWarning, stacklevel=5)
        return theta, V

    def _trusted(self, op, theta):
        """Is the float32-storage answer good to about 1e-6? (else fit again in float64)"""
        return (self.residuals.max() <= REFINED_RTOL
                and theta[self.l - 1] >= FLOAT32_TRUST * op.noise())


def rbf_offset(X, kernel):
    """The shift applied to points before the kernel: their mean for ``rbf``, else zero.

    RBF depends on differences only: shifting to the mean keeps the one-product distance
    formula accurate for data far from the origin.
    """
    return X.mean(axis=0) if kernel == "rbf" else np.zeros(X.shape[1])


def kernel_scores(X_new, X_fit, kernel, gamma, degree, coef0, score):
    """``score(K(X_new, X_fit)[a:b])`` for row blocks of about 1 MiB, on a few threads.

    ``X_new`` and ``X_fit`` must already be shifted by :func:`rbf_offset` of the training
    points; ``score`` maps a (rows, n) block of kernel values to (rows, l) scores.
    """
    n = X_fit.shape[0]
    _, right_t = _blocks.kernel_factors(X_fit, kernel, gamma)
    left = _blocks.kernel_factors(X_new, kernel, gamma)[0]
    ranges = _blocks.chunks(X_new.shape[0], n)
    parts = [None] * len(ranges)

    def work(index_chunk, scratch):
        index, (a, b) = index_chunk
        block = _blocks.kernel_block(left[a:b], right_t, kernel, degree, coef0, work=scratch)
        parts[index] = score(block)

    if ranges:
        _blocks.parallel(work, list(enumerate(ranges)),
                         scratch=(max(b - a for a, b in ranges), n))
    return parts
