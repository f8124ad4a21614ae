"""Kernel matrices built in row blocks on a few threads, for :class:`kpca_ref.KernelPCA`.

An n x n kernel matrix is the largest object of a kernel PCA fit, so it is built in
place (:func:`empty_matrix`): row blocks of about 1 MiB, each thread reusing one scratch
array (a fresh large array costs page faults), only the lower triangle evaluated, then
mirrored tile by tile. The RBF
exponent -gamma ||x - y||^2 comes out of one matrix product whose factors carry the
squared norms as two extra columns (:func:`kernel_factors`).

While our threads share the cores, BLAS is kept on one thread (with threadpoolctl, which
comes with scikit-learn): a multi-threaded BLAS on small blocks is very slow on a busy
machine. Without threadpoolctl the results are the same, only slower there.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import queue
from concurrent.futures import ThreadPoolExecutor

import numpy as np

CHUNK_BYTES = 1 << 20
_CONTROLLER = []


def threads() -> int:
    """Worker threads: ``KPCA_REF_NUM_THREADS`` if set, else the usable CPUs (at most 8)."""
    if os.environ.get("KPCA_REF_NUM_THREADS", "").isdigit():
        return max(1, int(os.environ["KPCA_REF_NUM_THREADS"]))
    try:
        count = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        count = os.cpu_count() or 1
    return max(1, min(count, 8))


def chunks(rows: int, cols: int, itemsize: int = 8, parts: int | None = None):
    """Row ranges of about CHUNK_BYTES each (or ``parts`` equal ones).

    >>> chunks(10, 4, parts=3)
    [(0, 4), (4, 8), (8, 10)]
    """
    step = -(-rows // parts) if parts else max(1, CHUNK_BYTES // max(1, cols * itemsize))
    return [(a, min(a + step, rows)) for a in range(0, rows, step)]


def one_blas_thread():
    """Context keeping BLAS to one thread (a no-op without threadpoolctl)."""
    if not _CONTROLLER:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:  # pragma: no cover - optional speed-up
            _CONTROLLER.append(None)
        else:
            _CONTROLLER.append(ThreadpoolController())
    if _CONTROLLER[0] is None:  # pragma: no cover
        return contextlib.nullcontext()
    return _CONTROLLER[0].limit(limits=1, user_api="blas")


def parallel(func, ranges, scratch=None):
    """``[func(r) for r in ranges]`` on a few threads, BLAS on one thread meanwhile.

    With ``scratch=(rows, cols)`` every call also gets a float64 work array of that shape,
    one per thread, reused from call to call.

    >>> parallel(lambda r: r[1] - r[0], chunks(10, 4, parts=3))
    [4, 4, 2]
    """
    count = min(threads(), len(ranges))
    if scratch is not None:
        spare = queue.SimpleQueue()
        for _ in range(count):
            spare.put(np.empty(scratch))
        inner = func

        def func(chunk):
            work = spare.get()
            try:
                return inner(chunk, work)
            finally:
                spare.put(work)

    with one_blas_thread():
        if count <= 1:
            return [func(r) for r in ranges]
        with ThreadPoolExecutor(count) as pool:
            return list(pool.map(func, ranges))


def empty_matrix(n, dtype):
    """An uninitialised (n, n) array in its own anonymous memory map.

    numpy asks the kernel for transparent huge pages for large arrays; on the 2-core VM
    of the benchmark the first touch of such memory cost about three times as much as
    with ordinary pages (0.35 s against 0.12 s for 256 MiB), a tenth of a whole fit.

    >>> empty_matrix(2, np.float32).shape
    (2, 2)
    """
    count = n * n
    buffer = mmap.mmap(-1, max(1, count * np.dtype(dtype).itemsize))
    return np.frombuffer(buffer, dtype=dtype, count=count).reshape(n, n)


def kernel_factors(X, kernel, gamma):
    """(left, right_t) with ``left[a] @ right_t[:, b]`` the inner part of k(x_a, x_b).

    ``rbf``: the exponent -gamma ||x_a - x_b||^2; ``poly``: gamma x_a.x_b; ``linear``: x_a.x_b.

    >>> left, right_t = kernel_factors(np.array([[1.0, 0.0], [0.0, 2.0]]), "rbf", 0.5)
    >>> left @ right_t
    array([[ 0. , -2.5],
           [-2.5,  0. ]])
    """
    ones = np.ones((X.shape[0], 1))
    if kernel == "rbf":
        sq = gamma * np.einsum("ij,ij->i", X, X)[:, None]
        return np.hstack([2.0 * gamma * X, -sq, ones]), np.ascontiguousarray(
            np.hstack([X, ones, -sq]).T)
    scale = gamma if kernel == "poly" else 1.0
    return scale * X, np.ascontiguousarray(X.T)


def kernel_block(left, right_t, kernel, degree, coef0, out=None, work=None):
    """Kernel values from :func:`kernel_factors` pieces, in float64 arithmetic.

    The values go to ``out`` (float32 or float64) if given, else into ``work`` (a float64
    scratch array at least as large) or a new array, which is returned. For ``rbf`` into
    float32 the exponential is taken in float32: faster, and its error is below the
    float32 rounding of the values.

    >>> left, right_t = kernel_factors(np.array([[0.0, 0.0], [1.0, 1.0]]), "rbf", 0.5)
    >>> kernel_block(left, right_t, "rbf", 3, 1.0)
    array([[1.        , 0.36787944],
           [0.36787944, 1.        ]])
    """
    shape = (left.shape[0], right_t.shape[1])
    G = None if work is None else work.ravel()[: shape[0] * shape[1]].reshape(shape)
    G = np.matmul(left, right_t, out=G)
    if kernel == "rbf":
        if out is not None and out.dtype == np.float32:
            out[...] = G  # a round-off positive exponent (~1e-15) still gives 1.0 here
            return np.exp(out, out=out)
        np.minimum(G, 0.0, out=G)  # squared distances are never negative
        return np.exp(G, out=G if out is None else out)
    if kernel == "poly":
        G += coef0
        G **= degree
    if out is None:
        return G
    out[...] = G
    return out


def kernel_matrix(X, kernel, gamma, degree, coef0, dtype, tile=512):
    """Symmetric kernel matrix of the rows of ``X`` (stored as ``dtype``) and its row means.

    The lower triangle is evaluated in row blocks, then mirrored tile by tile (cache
    friendly) while the row sums are collected; sums are float64 and added in a fixed
    order, so repeated fits give identical results whatever the threads do. RBF
    diagonals are exactly 1.

    >>> K, r = kernel_matrix(np.array([[0.0], [1.0]]), "linear", 1.0, 1, 0.0, np.float64)
    >>> K, r
    (array([[0., 0.],
           [0., 1.]]), array([0. , 0.5]))
    """
    n = X.shape[0]
    K = empty_matrix(n, dtype)
    left, right_t = kernel_factors(X, kernel, gamma)
    ranges = chunks(n, n)

    def lower(chunk, scratch):  # rows a:b, columns 0:b
        a, b = chunk
        block = K[a:b, :b]
        kernel_block(left[a:b], right_t[:, :b], kernel, degree, coef0, out=block, work=scratch)
        if kernel == "rbf":
            block[np.arange(b - a), np.arange(a, b)] = 1.0

    def mirror(strip):  # columns i0:i1 above the diagonal, and row sums
        i0, i1 = strip
        square = K[i0:i1, i0:i1]
        square[...] = np.tril(square) + np.tril(square, -1).T
        upper = np.zeros(i0)  # sums of the mirrored entries, for rows 0:i0
        for j0 in range(0, i0, tile):
            block = K[i0:i1, j0:min(j0 + tile, i0)]
            K[j0:j0 + block.shape[1], i0:i1] = block.T
            upper[j0:j0 + block.shape[1]] = block.sum(axis=0, dtype=np.float64)
        return K[i0:i1, :i1].sum(axis=1, dtype=np.float64), upper

    parallel(lower, ranges, scratch=(max(b - a for a, b in ranges), n))
    sums = np.zeros(n)
    strips = [(i0, min(i0 + tile, n)) for i0 in range(0, n, tile)]
    for (i0, i1), (own, upper) in zip(strips, parallel(mirror, strips)):
        sums[i0:i1] += own
        sums[:i0] += upper
    return K, sums / n
