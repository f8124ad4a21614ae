"""ps6: linear regression with the kernel trick, fitted by gradient descent.

The personal notes on the kernel trick (``shared/seeds/003``) fit ``theta`` by batch
gradient descent on the squared error with a feature map ``phi``. Writing
``theta = sum_i beta_i phi(x_i)`` turns every step into an update of the ``n``
coefficients ``beta`` that needs only the kernel matrix ``K_ij = k(x_i, x_j)``::

    beta <- beta + alpha * (y - K beta)          (all i at once)
    prediction at x: sum_i beta_i k(x_i, x)

The notes' kernel is ``k(x, z) = 1 + <x, z> + <x, z>^2 + <x, z>^3``, the dot product of
the map ``phi(x) = [1, x, x (x) x, x (x) x (x) x]`` (all ordered products, ``1 + d + d^2 +
d^3`` coordinates). Where the iteration goes (the step-size bound, the fixed point and
kernel ridge regression) is :mod:`kpca_ref.gd_convergence`.

Numpy in, float64 numpy out; sympy in (where documented), exact sympy out.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from kpca_ref._regression_inputs import (
    as_matrix,
    as_vector,
    check_rate,
    check_square,
    check_steps,
    shape_of,
)
from kpca_ref._validation import is_exact

__all__ = ["cubic_features", "cubic_kernel", "gd_dual_fit", "gd_primal_fit", "kernel_predict"]


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
    X, Z = as_matrix(X, "X", exact), as_matrix(Z, "Z", exact)
    if shape_of(X)[1] != shape_of(Z)[1]:
        raise ValueError(f"X and Z must have the same number of columns, got {shape_of(X)} "
                         f"and {shape_of(Z)}")
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
    X = as_matrix(X, "X", False)
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
    K, y = check_square(as_matrix(K, "K", exact)), as_vector(y, "y", exact)
    if len(y) != shape_of(K)[0]:
        raise ValueError(f"y must have {shape_of(K)[0]} entries (one per row of K), got {len(y)}")
    alpha, steps = check_rate(alpha, exact), check_steps(steps)
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
    Phi, y = as_matrix(Phi, "Phi", False), as_vector(y, "y", False)
    if len(y) != Phi.shape[0]:
        raise ValueError(f"y must have {Phi.shape[0]} entries (one per row of Phi), got {len(y)}")
    alpha, steps = check_rate(alpha, False), check_steps(steps)
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
    K_new, beta = as_matrix(K_new, "K_new", exact), as_vector(beta, "beta", exact)
    if shape_of(K_new)[1] != len(beta):
        raise ValueError(f"K_new must have {len(beta)} columns (one per coefficient), got "
                         f"shape {shape_of(K_new)}")
    return K_new * beta if exact else K_new @ beta
