"""ps6: linear regression with the kernel trick, fitted by gradient descent.

The personal notes on the kernel trick (``shared/seeds/003``) fit ``theta`` by batch
gradient descent on the squared error with a feature map ``phi``. Writing
``theta = sum_i beta_i phi(x_i)`` turns every step into an update of the ``n``
coefficients ``beta`` that needs only the kernel matrix ``K_ij = k(x_i, x_j)``::

    beta <- beta + alpha * (y - K beta)          (all i at once)
    prediction at x: sum_i beta_i k(x_i, x)

The notes' kernel is ``k(x, z) = 1 + <x, z> + <x, z>^2 + <x, z>^3``, the dot product of
the map ``phi(x) = [1, x, x (x) x, x (x) x (x) x]`` (all ordered products, ``1 + d + d^2 +
d^3`` coordinates). The iteration converges when ``0 < alpha < 2 / lambda_max(K)``; on a
positive definite ``K`` its fixed point ``K^-1 y`` interpolates the data, and stopping
early regularises much as kernel ridge regression ``(K + lambda I)^-1 y`` does.

Numpy in, float64 numpy out; sympy in (where documented), exact sympy out.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from kpca_ref._validation import is_exact
from kpca_ref.tolerances import NEGATIVE_EIGENVALUE_RTOL, SYMMETRY_RTOL

__all__ = ["cubic_features", "cubic_kernel", "gd_dual_fit", "gd_primal_fit", "kernel_predict",
           "kernel_ridge", "max_step_size"]


def _shape(value) -> tuple:
    return tuple(value.shape) if hasattr(value, "shape") else np.shape(value)


def _matrix(value, name: str, exact: bool):
    """A 2-D float array, or a sympy Matrix on the exact route."""
    if exact:
        if not isinstance(value, sp.MatrixBase):
            value = sp.Matrix(value)
        if any(entry.has(sp.Float) for entry in value):
            raise TypeError(f"{name} contains a float: the exact route needs sympy numbers")
        return sp.Matrix(value)
    arr = np.asarray(value, dtype=float)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf")
    return arr


def _vector(value, name: str, exact: bool):
    """A 1-D float array, or a sympy column Matrix on the exact route."""
    if exact:
        vec = sp.Matrix(list(value) if not isinstance(value, sp.MatrixBase) else value)
        if 1 not in vec.shape:
            raise ValueError(f"{name} must be a vector, got shape {vec.shape}")
        if any(entry.has(sp.Float) for entry in vec):
            raise TypeError(f"{name} contains a float: the exact route needs sympy numbers")
        return vec.reshape(len(vec), 1)
    arr = np.asarray(value, dtype=float)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf")
    return arr


def _square(K, name: str = "K"):
    if _shape(K)[0] != _shape(K)[1]:
        raise ValueError(f"{name} must be square, got shape {_shape(K)}")
    return K


def _steps(steps) -> int:
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)):
        raise TypeError(f"steps must be an integer, got {type(steps).__name__}")
    if steps < 0:
        raise ValueError(f"steps must be >= 0, got {steps}")
    return int(steps)


def _rate(alpha, exact: bool):
    if exact:
        alpha = sp.sympify(alpha)
        if alpha.has(sp.Float):
            raise TypeError("alpha is a float: the exact route needs a sympy number")
    if not alpha > 0:
        raise ValueError(f"the step size alpha must be positive, got {alpha}")
    return alpha if exact else float(alpha)


def cubic_kernel(X, Z):
    """The notes' kernel ``k(x, z) = 1 + <x, z> + <x, z>^2 + <x, z>^3`` for all pairs.

    Parameters
    ----------
    X : array_like of shape (n, d)
    Z : array_like of shape (m, d)
        Points as rows (sympy matrices give an exact result).

    Returns
    -------
    numpy.ndarray or sympy.Matrix of shape (n, m)

    Raises
    ------
    ValueError
        If ``X`` and ``Z`` are not 2-D or their numbers of columns differ.

    Examples
    --------
    >>> cubic_kernel(np.array([[1.0, 2.0]]), np.array([[3.0, -1.0]]))
    array([[4.]])
    """
    exact = is_exact(X, Z)
    X, Z = _matrix(X, "X", exact), _matrix(Z, "Z", exact)
    if _shape(X)[1] != _shape(Z)[1]:
        raise ValueError(f"X and Z must have the same number of columns, got {_shape(X)} "
                         f"and {_shape(Z)}")
    S = X * Z.T if exact else X @ Z.T
    if exact:
        return S.applyfunc(lambda s: 1 + s + s**2 + s**3)
    return 1.0 + S + S**2 + S**3


def cubic_features(X):
    """The explicit feature map of :func:`cubic_kernel`, one row per point.

    Row ``i`` is ``[1, x, vec(x x^T), vec(x (x) x (x) x)]`` for ``x = X[i]``: every ordered
    product of up to three coordinates, so ``cubic_features(X) @ cubic_features(Z).T ==
    cubic_kernel(X, Z)``.

    Parameters
    ----------
    X : array_like of shape (n, d)

    Returns
    -------
    numpy.ndarray of shape (n, 1 + d + d**2 + d**3)

    Examples
    --------
    >>> cubic_features(np.array([[2.0]]))
    array([[1., 2., 4., 8.]])
    """
    X = _matrix(X, "X", False)
    n, d = X.shape
    two = np.einsum("ni,nj->nij", X, X).reshape(n, d * d)
    three = np.einsum("ni,nj,nk->nijk", X, X, X).reshape(n, d**3)
    return np.hstack([np.ones((n, 1)), X, two, three])


def gd_dual_fit(K, y, alpha, steps):
    """Coefficients ``beta`` after ``steps`` batch updates ``beta += alpha (y - K beta)``.

    Starts from ``beta = 0``; all ``n`` coefficients are updated at once from the same
    old ``beta`` (the gradient step on ``(1/2) ||y - Phi theta||^2``).

    Parameters
    ----------
    K : array_like of shape (n, n)
        Kernel matrix of the training points (sympy: exact route).
    y : array_like of shape (n,)
        Targets.
    alpha : float
        Step size (learning rate), positive.
    steps : int
        Number of updates, ``>= 0``.

    Returns
    -------
    numpy.ndarray of shape (n,), or a sympy column Matrix on the exact route

    Raises
    ------
    ValueError
        If ``K`` is not square, ``y`` does not fit, ``alpha <= 0`` or ``steps < 0``.

    Examples
    --------
    >>> gd_dual_fit(np.array([[2.0, 0.0], [0.0, 1.0]]), np.array([1.0, 1.0]), 0.5, 2)
    array([0.5 , 0.75])
    """
    exact = is_exact(K, y, alpha)
    K, y = _square(_matrix(K, "K", exact)), _vector(y, "y", exact)
    if len(y) != _shape(K)[0]:
        raise ValueError(f"y must have {_shape(K)[0]} entries (one per row of K), got {len(y)}")
    alpha, steps = _rate(alpha, exact), _steps(steps)
    beta = sp.zeros(len(y), 1) if exact else np.zeros(len(y))
    for _ in range(steps):
        beta = beta + alpha * (y - (K * beta if exact else K @ beta))
    return beta


def gd_primal_fit(Phi, y, alpha, steps):
    """``theta`` after ``steps`` batch updates ``theta += alpha Phi^T (y - Phi theta)``.

    The same gradient descent as :func:`gd_dual_fit`, written in feature space
    (starting from ``theta = 0``); ``Phi @ theta`` equals ``K @ beta`` at every step.

    Parameters
    ----------
    Phi : array_like of shape (n, p)
        Feature vectors of the training points as rows.
    y : array_like of shape (n,)
    alpha : float
        Positive step size.
    steps : int
        Number of updates, ``>= 0``.

    Returns
    -------
    numpy.ndarray of shape (p,)

    Raises
    ------
    ValueError
        If the shapes do not fit, ``alpha <= 0`` or ``steps < 0``.
    """
    Phi, y = _matrix(Phi, "Phi", False), _vector(y, "y", False)
    if len(y) != Phi.shape[0]:
        raise ValueError(f"y must have {Phi.shape[0]} entries (one per row of Phi), got {len(y)}")
    alpha, steps = _rate(alpha, False), _steps(steps)
    theta = np.zeros(Phi.shape[1])
    for _ in range(steps):
        theta = theta + alpha * (Phi.T @ (y - Phi @ theta))
    return theta


def kernel_predict(K_new, beta):
    """Predictions ``sum_i beta_i k(x_i, x)`` for new points.

    Parameters
    ----------
    K_new : array_like of shape (m, n)
        Kernel values between ``m`` new points (rows) and the ``n`` training points.
    beta : array_like of shape (n,)
        Fitted coefficients.

    Returns
    -------
    numpy.ndarray of shape (m,), or a sympy column Matrix on the exact route

    Raises
    ------
    ValueError
        If ``K_new`` has not one column per coefficient.
    """
    exact = is_exact(K_new, beta)
    K_new, beta = _matrix(K_new, "K_new", exact), _vector(beta, "beta", exact)
    if _shape(K_new)[1] != len(beta):
        raise ValueError(f"K_new must have {len(beta)} columns (one per coefficient), got "
                         f"shape {_shape(K_new)}")
    return K_new * beta if exact else K_new @ beta


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
    K = _square(_matrix(K, "K", False))
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
    K, y = _square(_matrix(K, "K", exact)), _vector(y, "y", exact)
    n = _shape(K)[0]
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
