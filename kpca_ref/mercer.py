"""ps3: Mercer's theorem, which functions are kernels.

``k`` is a valid kernel exactly when it is symmetric and every Gram matrix it
produces is positive semidefinite (PSD). One asymmetric pair, or one point set
whose Gram matrix has a negative eigenvalue, is enough to rule ``k`` out.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from kpca_ref._validation import (
    as_exact_matrix,
    as_exact_scalar,
    as_float_array,
    as_square_float,
    check_exact_finite,
    check_int,
    is_exact,
)
from kpca_ref.tolerances import NEGATIVE_EIGENVALUE_RTOL

__all__ = ["find_counterexample", "gram", "is_psd", "is_psd_exact", "is_symmetric"]

#: find_counterexample: point-cloud scales and random draws per (n, scale)
_SCALES = (0.1, 1.0, 10.0, 0.3, 3.0)
_TRIALS = 4


def _check_callable(k):
    if not callable(k):
        raise TypeError(f"k must be callable, got {type(k).__name__}")


def _check_tol(tol) -> float:
    value = float(as_float_array(tol, "tol", ndim=0))
    if value < 0:
        raise ValueError(f"tol must be >= 0, got {tol}")
    return value


def _number(value) -> float:
    if isinstance(value, (bool, np.bool_)) or np.ndim(value) != 0:
        raise TypeError(f"k must return a single number, got {type(value).__name__} {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError(f"k must return a real number, got {type(value).__name__} "
                        f"{value!r}") from None


def gram(k, X):
    """Gram (kernel) matrix ``K[i, j] = k(X[i], X[j])`` of a Python function ``k``.

    Every ordered pair is evaluated, so an asymmetric ``k`` gives an asymmetric ``K``.

    Parameters
    ----------
    k : callable
        ``k(x, y)`` returning a number; ``x`` and ``y`` are 1-D arrays of length d
        (float64, or object arrays of sympy numbers when ``X`` is exact).
    X : array_like, shape (n, d)
        Points as rows.

    Returns
    -------
    ndarray of shape (n, n); an exact sympy Matrix when ``X`` is sympy.

    Examples
    --------
    >>> gram(lambda x, y: (x @ y + 1) ** 2, [[1.0, 2.0], [3.0, -1.0]])
    array([[ 36.,   4.],
           [  4., 121.]])
    """
    _check_callable(k)
    if is_exact(X):
        mat = check_exact_finite(as_exact_matrix(X, "X"), "X")
        rows = [np.array(mat.row(i), dtype=object).ravel() for i in range(mat.rows)]
        return sp.Matrix(len(rows), len(rows),
                         lambda i, j: as_exact_scalar(k(rows[i], rows[j]), "k(x, y)"))
    pts = as_float_array(X, "X", ndim=2)
    n = pts.shape[0]
    return np.array([[_number(k(pts[i], pts[j])) for j in range(n)] for i in range(n)])


def is_symmetric(K, tol=1e-10):
    """True when ``max |K - K^T| <= tol * max(1, max |K|)``.

    Parameters
    ----------
    K : array_like, shape (n, n)
    tol : float, default 1e-10
        Tolerance in units of ``max(1, max |K|)``: relative to the largest entry when that
        is above 1, absolute below (an exact sympy ``K`` is compared exactly).

    Returns
    -------
    bool

    Examples
    --------
    >>> is_symmetric([[1.0, 2.0], [2.0 + 1e-12, 1.0]]), is_symmetric([[1.0, 2.0], [3.0, 1.0]])
    (True, False)
    """
    tol = _check_tol(tol)
    if is_exact(K):
        mat = as_exact_matrix(K, "K", square=True)
        return bool((mat - mat.T).applyfunc(sp.simplify).is_zero_matrix)
    A = as_square_float(K, "K")
    scale = max(1.0, float(np.abs(A).max(initial=0.0)))
    return bool(np.abs(A - A.T).max(initial=0.0) <= tol * scale)


def is_psd(K, tol=1e-10):
    """True when ``K`` is symmetric and its least eigenvalue is ``>= -tol * max(1, max |eig|)``.

    Parameters
    ----------
    K : array_like, shape (n, n)
    tol : float, default 1e-10
        Tolerance of both checks, in units of ``max(1, scale)`` (the largest entry for
        symmetry, the largest absolute eigenvalue for the sign): relative above scale 1,
        absolute below. An exact sympy ``K`` goes to :func:`is_psd_exact` instead.

    Returns
    -------
    bool

    Examples
    --------
    >>> is_psd([[1.0, 1.0], [1.0, 1.0]]), is_psd([[0.0, 1.0], [1.0, 0.0]])
    (True, False)
    """
    tol = _check_tol(tol)
    if is_exact(K):
        return is_psd_exact(K)
    A = as_square_float(K, "K")
    if not is_symmetric(A, tol):
        return False
    eig = np.linalg.eigvalsh((A + A.T) / 2)
    return bool(eig.min() >= -tol * max(1.0, float(np.abs(eig).max())))


def _sign(value) -> int:
    if value.is_Rational:
        return int(bool(value > 0)) - int(bool(value < 0))
    value = sp.simplify(value)
    if value.is_zero:
        return 0
    if value.is_positive or value.is_negative:
        return 1 if value.is_positive else -1
    raise ValueError(f"is_psd_exact cannot decide the sign of {value} exactly")


def is_psd_exact(K):
    """Exact PSD test of a sympy matrix with rational entries: no floats anywhere.

    Symmetric elimination with diagonal pivots: a negative diagonal entry means
    not PSD; a zero diagonal entry needs its whole row to be zero (then the row
    and column are dropped); a positive pivot is eliminated through its Schur
    complement. Unlike leading minors, this is right for singular PSD matrices.

    Parameters
    ----------
    K : sympy Matrix (or nested list of ints / Rationals), shape (n, n)

    Returns
    -------
    bool
        False for a non-symmetric ``K``.

    Examples
    --------
    >>> import sympy as sp
    >>> is_psd_exact(sp.Matrix([[0, 0], [0, -1]])), is_psd_exact(sp.Matrix([[1, 1], [1, 1]]))
    (False, True)
    """
    mat = check_exact_finite(as_exact_matrix(K, "K", square=True), "K")
    for entry in mat:
        if not entry.is_real:
            raise TypeError(f"K must hold real numbers, got {entry}")
    if not is_symmetric(mat):
        return False
    A = [list(mat.row(i)) for i in range(mat.rows)]
    while A:
        signs = [_sign(A[i][i]) for i in range(len(A))]
        if min(signs) < 0:
            return False
        zero = [i for i, s in enumerate(signs) if s == 0]
        if any(_sign(A[i][j]) != 0 for i in zero for j in range(len(A))):
            return False
        keep = [i for i, s in enumerate(signs) if s > 0]
        if not keep:
            return True
        pivot, rest = keep[0], keep[1:]
        p = A[pivot][pivot]
        A = [[A[i][j] - A[i][pivot] * A[pivot][j] / p for j in rest] for i in rest]
    return True


def _clearly_not_kernel(K: np.ndarray) -> bool:
    top = float(np.abs(K).max(initial=0.0))
    if top == 0.0:
        return False
    if np.abs(K - K.T).max() > NEGATIVE_EIGENVALUE_RTOL * top and not is_symmetric(K):
        return True
    eig = np.linalg.eigvalsh((K + K.T) / 2)
    return bool(eig.min() < -NEGATIVE_EIGENVALUE_RTOL * np.abs(eig).max() and not is_psd(K))


def find_counterexample(k, d, max_points=6, seed=0):
    """Search for points whose Gram matrix shows that ``k`` is not a kernel.

    Deterministic random search (``numpy.random.default_rng(seed)``): for
    n = 2..max_points and several scales (0.1 to 10), a few Gaussian point clouds
    in R^d. A Gram matrix that is clearly asymmetric, or whose least eigenvalue is
    below ``-NEGATIVE_EIGENVALUE_RTOL`` times its largest |eigenvalue| (and that
    :func:`is_psd` also rejects), is a counterexample. Gram matrices with
    non-finite entries are skipped.

    Parameters
    ----------
    k : callable
        ``k(x, y)`` on 1-D float arrays of length ``d``.
    d : int
        Input dimension, ``>= 1``.
    max_points : int, default 6
        Largest point set tried, ``>= 2``.
    seed : int, default 0

    Returns
    -------
    ndarray of shape (n, d), or None when the search budget finds no counterexample.

    Examples
    --------
    >>> X = find_counterexample(lambda x, y: float(np.sum((x - y) ** 2)), d=2)
    >>> X.shape, is_psd(gram(lambda x, y: float(np.sum((x - y) ** 2)), X))
    ((2, 2), False)
    >>> find_counterexample(lambda x, y: (x @ y + 1.0) ** 2, d=2) is None
    True
    """
    _check_callable(k)
    d = check_int(d, "d", minimum=1)
    max_points = check_int(max_points, "max_points", minimum=2)
    seed = check_int(seed, "seed", minimum=0)
    rng = np.random.default_rng(seed)
    for n in range(2, max_points + 1):
        for scale in _SCALES:
            for _ in range(_TRIALS):
                X = scale * rng.standard_normal((n, d))
                K = gram(k, X)
                if np.all(np.isfinite(K)) and _clearly_not_kernel(K):
                    return X
    return None
