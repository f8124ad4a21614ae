"""Eigen-solvers for the top of a centred kernel matrix, behind ``KernelPCA(eigen_solver="krylov")``.

The centred matrix Kc = H K H is never formed by the iterative solvers: with row means r
and grand mean g of K, a block of vectors V is mapped by the four-term formula

    Kc V = K V - 1 (r^T V) - r (1^T V) + g 1 (1^T V),

so the only n x n array in memory is K itself (:class:`CentredKernel`), in float32 for
kernels computed from points (half the memory of a float64 matrix, faster products).

float32 products carry rounding of about 1e-7 relative, which stops a Krylov method near
that residual. The estimator therefore works in two phases: float32 products down to
``SWITCH_RTOL``; then one product of the current Ritz vectors accumulated in float64
(:meth:`CentredKernel.matmat_exact`), after which new blocks use float32 products again
but every coupling between them and the accurate vectors is taken from the accurate side
(:func:`block_krylov_top`). The float32 rounding then only enters multiplied by the small
corrections and the residual falls to ``ITER_RTOL``. What remains is the float32 rounding
of K itself: about 3e-8 relative on the scores of the benchmark problem.

The solver, :func:`block_krylov_top` (start block from a random subsample, block Krylov
steps, Rayleigh-Ritz, thick restarts, residual check; eigenvalues descending, orthonormal
eigenvectors), is driven by :mod:`kpca_ref._krylov_fit`. NumPy only.
"""

from __future__ import annotations

import numpy as np

from kpca_ref._blocks import chunks, parallel, threads
from kpca_ref.tolerances import SYMMETRY_RTOL

_EPS32 = float(np.finfo(np.float32).eps)


def check_symmetric(K):
    """``K`` itself if symmetric to SYMMETRY_RTOL x max(1, max |K|), else ValueError."""
    scale = max(1.0, float(np.abs(K).max()))
    gap = max(float(np.abs(K[a:b] - K[:, a:b].T).max()) for a, b in chunks(len(K), len(K)))
    if gap > SYMMETRY_RTOL * scale:
        raise ValueError(f"K must be symmetric: max |K - K.T| = {gap:.3g}, "
                         f"{gap / scale:.3g} times max(1, max |K|)")
    return K


class CentredKernel:
    """Kc = H K H as an operator on blocks of vectors, K stored once (float32 or float64).

    >>> op = CentredKernel(np.array([[2.0, 1.0], [1.0, 2.0]]))
    >>> op.matmat(np.eye(2))
    array([[ 0.5, -0.5],
           [-0.5,  0.5]])
    """

    def __init__(self, K, row_means=None):
        self.K = K
        self.n = K.shape[0]
        self.r = K.mean(axis=1, dtype=np.float64) if row_means is None else row_means
        self.g = float(self.r.mean())
        self.low = K.dtype == np.float32

    def _centre(self, KV, V):
        """KV - 1 (r^T V) - r (1^T V) + g 1 (1^T V), in place."""
        ones_v = V.sum(axis=0)
        KV += (self.g * ones_v - self.r @ V)[None, :]
        for j, total in enumerate(ones_v):  # column by column: no n x k temporary
            KV[:, j] -= total * self.r
        return KV

    def matmat(self, V):
        """Kc V in the storage precision (float32 products for float32 storage)."""
        V = np.asarray(V, dtype=np.float64)
        right = V.astype(self.K.dtype, copy=False)
        KV = np.empty((self.n, V.shape[1]), dtype=self.K.dtype)

        def work(chunk):
            a, b = chunk
            np.matmul(self.K[a:b], right, out=KV[a:b])

        parallel(work, chunks(self.n, self.n, parts=4 * threads()))
        return self._centre(KV.astype(np.float64, copy=False), V)

    def matmat_exact(self, V):
        """Kc V with every sum accumulated in float64 (K upcast one row block at a time)."""
        V = np.asarray(V, dtype=np.float64)
        if not self.low:
            return self.matmat(V)
        KV = np.empty((self.n, V.shape[1]))
        ranges = chunks(self.n, self.n)

        def work(chunk, scratch):
            a, b = chunk
            rows = scratch[: b - a]
            rows[...] = self.K[a:b]
            np.matmul(rows, V, out=KV[a:b])

        parallel(work, ranges, scratch=(max(b - a for a, b in ranges), self.n))
        return self._centre(KV, V)

    def guess(self, block, rng, size=256):
        """A start block (Nystrom): top eigenvectors of Kc on a random subsample of points,
        extended to all points by their kernel columns. It saves the first Krylov steps."""
        idx = np.sort(rng.choice(self.n, min(self.n, max(size, 2 * block)), replace=False))
        rows = self.K[idx]  # K[idx, :] is K[:, idx] transposed
        sub = rows[:, idx].astype(np.float64)
        sub += self.g - self.r[idx][:, None] - self.r[idx][None, :]
        U = np.linalg.eigh(sub)[1][:, ::-1][:, :block]
        V = (rows.T @ U.astype(self.K.dtype)).astype(np.float64)  # K[:, idx] U
        ones_u = U.sum(axis=0)
        V += (self.g * ones_u - self.r[idx] @ U)[None, :]
        return V - np.outer(self.r, ones_u)  # the four-term centring of K[:, idx] U

    def noise(self) -> float:
        """Estimated ||K32 - K||_2 of float32 storage (0 for float64).

        The rounding of each entry is at most eps32 |K_ij| (one more eps32 for the float32
        exponential), nearly independent from entry to entry, so ||K32 - K||_2 is about
        2 sqrt(n) x 2 eps32 rms(K); rms(K) is taken from every (n // 256)-th row.
        """
        if not self.low:
            return 0.0
        rows = self.K[:: max(1, self.n // 256)]
        rms = np.sqrt(np.einsum("ij,ij->", rows, rows, dtype=np.float64) / rows.size)
        return 4.0 * np.sqrt(self.n) * _EPS32 * float(rms)


def _orth(Z, S, rng):
    """Orthonormal basis of Z made orthogonal to S and to the constant vector."""
    for _ in range(2):
        if S.shape[1]:
            Z -= S @ (S.T @ Z)
        Z -= Z.mean(axis=0)
    Q, R = np.linalg.qr(Z)
    size = np.abs(np.diag(R))
    if size.min(initial=np.inf) > 1e-8 * max(size.max(initial=0.0), 1e-300):
        return Q
    # the Krylov space is exhausted in some directions: keep the rest, add fresh ones
    U, s, _ = np.linalg.svd(Z, full_matrices=False)
    kept = U[:, s > 1e-8 * max(s[0], 1e-300)]
    fresh = rng.standard_normal((Z.shape[0], Z.shape[1] - kept.shape[1]))
    basis = np.hstack([S, kept])
    for _ in range(2):
        fresh -= basis @ (basis.T @ fresh)
        fresh -= fresh.mean(axis=0)
    return np.hstack([kept, np.linalg.qr(fresh)[0]])


def block_krylov_top(op, l, *, block, tol, max_iter, rng, start=None, guess=None,
                     max_dim=None):
    """Top eigenpairs of Kc by block Krylov steps with Rayleigh-Ritz and thick restarts.

    The search space starts from ``start`` -- a pair (V, Kc V) whose products are exact --
    or from the block ``guess`` (e.g. :meth:`CentredKernel.guess`) or a random block; it
    grows by the residuals of the current top ``block`` Ritz vectors and is shrunk back to
    those Ritz vectors when it reaches ``max_dim`` columns. With float32 storage the new blocks get float32
    products; the Rayleigh-Ritz matrix then takes every coupling between an exact and a
    float32 column from the exact side (Kc is symmetric), so once the start is accurate
    the float32 rounding only enters multiplied by the small corrections. Stops when the
    top ``l`` residuals are below ``tol * |theta_1|``, after ``max_iter`` block products,
    or (float32 products only) when the residuals stop falling. Returns
    (theta, V, Kc V, residuals, passes) for ``block`` Ritz pairs.
    """
    n = op.n
    max_dim = min(max_dim or max(4 * block, 40), n - 1)
    S, AS = np.empty((n, max_dim)), np.empty((n, max_dim))
    exact = np.zeros(max_dim, dtype=bool)
    m, passes, history, Q = 0, 0, [], None
    if start is None:
        Q = _orth(rng.standard_normal((n, block)) if guess is None else guess.copy(), S[:, :0], rng)
    else:
        m = start[0].shape[1]
        S[:, :m], AS[:, :m], exact[:m] = start[0], start[1], True
    while True:
        if Q is not None:
            k = Q.shape[1]
            S[:, m:m + k], AS[:, m:m + k], exact[m:m + k] = Q, op.matmat(Q), not op.low
            m += k
            passes += 1
        T = S[:, :m].T @ AS[:, :m]
        e = exact[:m]
        if e.any() and not e.all():
            T[np.ix_(e, ~e)] = T[np.ix_(~e, e)].T
        theta, W = np.linalg.eigh((T + T.T) / 2)
        keep = min(block, m)
        theta, W = theta[::-1][:keep], W[:, ::-1][:, :keep]
        V, AV = S[:, :m] @ W, AS[:, :m] @ W
        R = AV - V * theta
        residuals = np.linalg.norm(R, axis=0)
        worst = residuals[:l].max() / max(abs(theta[0]), np.finfo(float).tiny)
        history.append(worst)
        # float32 products alone stop improving near their rounding: stop there
        stalled = op.low and not e.any() and len(history) > 3 and worst > 0.5 * history[-3]
        if worst <= tol or passes >= max_iter or stalled:
            return theta, V, AV, residuals, passes
        if m + block > max_dim:
            rough = np.linalg.norm(W[~e], axis=0) if e.any() else np.ones(keep)
            S[:, :keep], AS[:, :keep], exact[:keep], m = V, AV, rough <= 1e-3, keep
            exact[keep:] = False
        Q = _orth(R[:, :min(block, max_dim - m)], S[:, :m], rng)
