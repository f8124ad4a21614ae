"""ps6: where gradient descent on kernel regression goes, and how fast it may step.

The batch update ``beta <- beta + alpha * (y - K beta)`` of
:mod:`kpca_ref.kernel_regression` converges when ``0 < alpha < 2 / lambda_max(K)``
(:func:`max_step_size`). On a positive definite ``K`` its fixed point ``K^-1 y``
interpolates the data, and stopping early regularises much as kernel ridge regression
``(K + lambda I)^-1 y`` (:func:`kernel_ridge`, ``lambda = 0`` being the fixed point) does.

Numpy in, float64 numpy out; sympy in (where documented), exact sympy out.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from kpca_ref._regression_inputs import as_matrix, as_vector, check_square, shape_of
from kpca_ref._validation import is_exact
from kpca_ref.tolerances import NEGATIVE_EIGENVALUE_RTOL, SYMMETRY_RTOL

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
        Regularisation, ``>= 0`` (``0`` gives the interpolating ``K^-1 y``).

    Returns
    -------
    numpy.ndarray of shape (n,), or a sympy column Matrix on the exact route

    Raises
    ------
    ValueError
        If ``K`` is not square, ``y`` does not fit, ``lam < 0`` or ``K + lam I`` is singular.

    Examples
    --------
    >>> kernel_ridge(np.array([[1.0, 0.0], [0.0, 3.0]]), np.array([2.0, 2.0]), 1.0)
    array([1. , 0.5])
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
            raise ValueError("K + lam I is singular: use lam > 0")
        return A.LUsolve(y)
    A = K + float(lam) * np.eye(n)
    try:
        return np.linalg.solve(A, y)
    except np.linalg.LinAlgError as exc:
        raise ValueError("K + lam I is singular: use lam > 0") from exc
