"""ps6: where gradient descent on kernel regression goes, and how fast it may step.

The batch update ``beta <- beta + alpha * (y - K beta)`` of
:mod:`kpca_ref.kernel_regression` converges when ``0 < alpha < 2 / lambda_max(K)``
(:func:`max_step_size`). On a positive definite ``K`` its fixed point ``K^-1 y``
interpolates the data; on a singular ``K`` (fewer independent features than points, e.g.
the notes' cubic kernel on more than 4 points of the line) the predictions ``K beta``
converge to the least-squares fit and ``theta = Phi^T beta`` to the minimum-norm
least-squares ``theta``. Stopping early regularises much as kernel ridge regression
``(K + lambda I)^-1 y`` (:func:`kernel_ridge`) does; ``lambda = 0`` is the fixed point
where ``K`` is invertible and a ``ValueError`` where it is singular to working precision
(:data:`kpca_ref.tolerances.RIDGE_SINGULAR_RTOL`).

Numpy in, float64 numpy out; sympy in (where documented), exact sympy out.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from kpca_ref._regression_inputs import as_matrix, as_vector, check_square, shape_of
from kpca_ref._validation import is_exact
from kpca_ref.tolerances import NEGATIVE_EIGENVALUE_RTOL, RIDGE_SINGULAR_RTOL, SYMMETRY_RTOL

__all__ = ["kernel_ridge", "max_step_size"]


def max_step_size(K):
    """The bound ``2 / lambda_max(K)``: gradient descent converges for smaller steps.

    Parameters
    ----------
    K : array_like of shape (n, n)
        Symmetric positive semidefinite kernel matrix, not zero.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``K`` is not square, not symmetric, has a clearly negative eigenvalue or is zero.

    Examples
    --------
    >>> max_step_size(np.array([[3.0, 1.0], [1.0, 3.0]]))
    0.5
    """
    K = check_square(as_matrix(K, "K", False))
    scale = max(1.0, float(np.abs(K).max()))
    if np.abs(K - K.T).max() > SYMMETRY_RTOL * scale:
        raise ValueError("K must be symmetric")
    values = np.linalg.eigvalsh((K + K.T) / 2)
    top = float(values[-1])
    if top <= 0:
        raise ValueError("K has no positive eigenvalue: every step size diverges or stalls")
    if values[0] < -NEGATIVE_EIGENVALUE_RTOL * top:
        raise ValueError(f"K is not positive semidefinite: eigenvalue {values[0]:.3g}")
    return 2.0 / top


def kernel_ridge(K, y, lam):
    """Kernel ridge regression coefficients ``(K + lam I)^-1 y``.

    Parameters
    ----------
    K : array_like of shape (n, n)
        Kernel matrix (sympy: exact route).
    y : array_like of shape (n,)
    lam : float
        Regularisation, ``>= 0`` (``0`` gives the interpolating ``K^-1 y`` of an
        invertible ``K``).

    Returns
    -------
    numpy.ndarray of shape (n,), or a sympy column Matrix on the exact route

    Raises
    ------
    ValueError
        If ``K`` is not square, ``y`` does not fit, ``lam < 0`` or ``K + lam I`` is singular:
        exactly (sympy: determinant 0) or to working precision (floats: smallest singular
        value at most ``RIDGE_SINGULAR_RTOL`` times the largest), where a solve would
        return round-off of any size (``lam = 0`` on a rank-deficient ``K``).

    Examples
    --------
    >>> kernel_ridge(np.array([[1.0, 0.0], [0.0, 3.0]]), np.array([2.0, 2.0]), 1.0)
    array([1. , 0.5])
    >>> kernel_ridge(np.ones((2, 2)), np.array([1.0, 2.0]), 0.0)
    Traceback (most recent call last):
    ...
    ValueError: K + lam I is singular (rank 1 of 2): K beta = y has no unique solution (K is rank-deficient); use lam > 0
    """
    exact = is_exact(K, y, lam)
    K, y = check_square(as_matrix(K, "K", exact)), as_vector(y, "y", exact)
    n = shape_of(K)[0]
    if len(y) != n:
        raise ValueError(f"y must have {n} entries (one per row of K), got {len(y)}")
    if exact:
        lam = sp.sympify(lam)
    if not lam >= 0:
        raise ValueError(f"lam must be >= 0, got {lam}")
    if exact:
        A = K + lam * sp.eye(n)
        if A.det() == 0:
            raise ValueError(f"K + lam I is singular (rank {A.rank()} of {n}): {_advice(lam)}")
        return A.LUsolve(y)
    A = K + float(lam) * np.eye(n)
    values = np.linalg.svd(A, compute_uv=False)
    if values[-1] <= RIDGE_SINGULAR_RTOL * values[0]:
        rank = int((values > RIDGE_SINGULAR_RTOL * values[0]).sum())
        raise ValueError(f"K + lam I is singular (rank {rank} of {n}): {_advice(lam)}")
    return np.linalg.solve(A, y)


def _advice(lam) -> str:
    if lam == 0:
        return "K beta = y has no unique solution (K is rank-deficient); use lam > 0"
    return f"lam = {lam} cancels an eigenvalue of K; choose another lam"
