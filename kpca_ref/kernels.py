"""ps2: the polynomial and RBF kernels, distances in feature space, choosing gamma.

A kernel returns the dot product of two mapped points without building the map.
Numeric inputs give float64 arrays; sympy inputs (Matrix, Integer, Rational, or
lists holding them) give exact sympy results, e.g. ``exp(-log(2)/4)`` stays exact.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from kpca_ref._validation import (
    _shape_text,
    as_exact_matrix,
    as_exact_param,
    as_exact_scalar,
    as_float_array,
    check_exact_finite,
    check_int,
    check_positive,
    is_exact,
)
from kpca_ref.tolerances import NEGATIVE_EIGENVALUE_RTOL

__all__ = ["feature_distance", "gamma_for_similarity", "poly_kernel", "rbf_kernel"]

#: squared distances below this fraction of ||x||^2 + ||y||^2 are recomputed as
#: sum((x - y)^2), which has no cancellation (identical points give exactly 0)
_REFINE_RTOL = 1e-6


def _exact_2d(value, name: str) -> sp.Matrix:
    if not isinstance(value, sp.MatrixBase):
        shape = np.array(value, dtype=object).shape
        if len(shape) != 2:
            raise ValueError(f"{name} must be 2-D, got shape {_shape_text(shape)}")
    return check_exact_finite(as_exact_matrix(value, name), name)


def _pair(X, Y):
    """Validate two point sets (rows); return (X, Y, exact)."""
    exact = is_exact(X, Y)
    if exact:
        X, Y = _exact_2d(X, "X"), _exact_2d(Y, "Y")
        sx, sy = (X.rows, X.cols), (Y.rows, Y.cols)
    else:
        X, Y = as_float_array(X, "X", ndim=2), as_float_array(Y, "Y", ndim=2)
        sx, sy = X.shape, Y.shape
    if sx[1] != sy[1]:
        raise ValueError("X and Y must have the same number of columns, got X with shape "
                         f"{_shape_text(sx)} and Y with shape {_shape_text(sy)}")
    return X, Y, exact


def _real(value, name: str) -> float:
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a number, got bool")
    if np.ndim(value) != 0:
        raise TypeError(f"{name} must be a single number, got shape {_shape_text(np.shape(value))}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number, got {type(value).__name__} {value!r}") from None
    if not np.isfinite(number):
        raise ValueError(f"{name} must be finite, got {value}")
    return number


def poly_kernel(X, Y, p, c=1.0):
    """Polynomial kernel matrix ``K[i, j] = (X[i] @ Y[j] + c) ** p``.

    Parameters
    ----------
    X : array_like, shape (n, d)
    Y : array_like, shape (m, d)
    p : int
        Degree, ``p >= 0``.
    c : float, default 1.0
        Constant added before the power (any real; ``c >= 0`` for a valid kernel).

    Returns
    -------
    ndarray of shape (n, m), or a sympy Matrix when an input is sympy.

    Examples
    --------
    >>> poly_kernel([[1.0, 2.0]], [[3.0, -1.0]], p=2)
    array([[4.]])
    """
    X, Y, exact = _pair(X, Y)
    p = check_int(p, "p", minimum=0)
    if exact:
        c = as_exact_param(c, "c", 1.0)
        return ((X * Y.T).applyfunc(lambda g: g + c)).applyfunc(lambda e: e**p)
    return (X @ Y.T + _real(c, "c")) ** p


def _sq_dists(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    nx, ny = np.sum(X**2, axis=1), np.sum(Y**2, axis=1)
    sq = nx[:, None] + ny[None, :] - 2.0 * (X @ Y.T)
    rows, cols = np.nonzero(sq <= _REFINE_RTOL * (nx[:, None] + ny[None, :]))
    if rows.size:
        sq[rows, cols] = np.sum((X[rows] - Y[cols]) ** 2, axis=1)
    return np.maximum(sq, 0.0)


def rbf_kernel(X, Y, gamma):
    """RBF (Gaussian) kernel matrix ``K[i, j] = exp(-gamma * ||X[i] - Y[j]||^2)``.

    Squared distances use ``||x||^2 + ||y||^2 - 2 x.y``; near-zero ones are
    recomputed directly, and none is ever negative, so every entry lies in
    (0, 1] and identical points give exactly 1.

    Parameters
    ----------
    X : array_like, shape (n, d)
    Y : array_like, shape (m, d)
    gamma : float
        Width parameter, ``gamma > 0`` (``gamma = 1 / (2 sigma^2)``).

    Returns
    -------
    ndarray of shape (n, m), or a sympy Matrix when an input is sympy.

    Examples
    --------
    >>> rbf_kernel([[0.0, 0.0], [1.0, 0.0]], [[0.0, 0.0]], gamma=np.log(2))
    array([[1. ],
           [0.5]])
    """
    X, Y, exact = _pair(X, Y)
    if exact:
        gamma = as_exact_scalar(gamma, "gamma")
        check_positive(gamma, "gamma")
        return sp.Matrix(X.rows, Y.rows, lambda i, j: sp.exp(
            -gamma * sum((X[i, t] - Y[j, t]) ** 2 for t in range(X.cols))))
    gamma = check_positive(gamma, "gamma")
    return np.exp(-gamma * _sq_dists(X, Y))


def _as_point(value, name: str, exact: bool):
    if exact:
        if isinstance(value, sp.Basic) and not isinstance(value, sp.MatrixBase):
            return as_exact_scalar(value, name)
        vec = as_exact_matrix(value, name)
        return np.array(list(vec), dtype=object)
    arr = as_float_array(value, name)
    if arr.ndim > 1:
        raise ValueError(f"{name} must be a scalar or 1-D, got shape {_shape_text(arr.shape)}")
    return arr


def feature_distance(k, x, y):
    """Distance between ``phi(x)`` and ``phi(y)`` from three kernel values.

    ``d_phi = sqrt(k(x, x) + k(y, y) - 2 k(x, y))``. Round-off below zero is
    clipped to 0; a clearly negative value means ``k`` is not a valid kernel and
    raises ``ValueError``. Exact points (sympy) are passed to ``k`` as 1-D object
    arrays (or sympy scalars) and give an exact ``sqrt``.

    Parameters
    ----------
    k : callable
        ``k(x, y)`` returning a number.
    x, y : scalar or array_like of shape (d,)

    Returns
    -------
    float, or a sympy expression when ``x`` or ``y`` is sympy.

    Examples
    --------
    >>> feature_distance(lambda a, b: float(np.exp(-np.sum((a - b) ** 2))), [0.0], [0.0])
    0.0
    >>> feature_distance(lambda a, b: a @ b, [3.0, 0.0], [0.0, 4.0])
    5.0
    """
    if not callable(k):
        raise TypeError(f"k must be callable, got {type(k).__name__}")
    exact = is_exact(x, y)
    x, y = _as_point(x, "x", exact), _as_point(y, "y", exact)
    if np.shape(x) != np.shape(y):
        raise ValueError(f"x and y must have the same shape, got {_shape_text(np.shape(x))} "
                         f"and {_shape_text(np.shape(y))}")
    values = [k(x, x), k(y, y), k(x, y)]
    if exact:
        kxx, kyy, kxy = (as_exact_scalar(v, "k(x, y)") for v in values)
        sq = sp.simplify(kxx + kyy - 2 * kxy)
        if sq.is_negative:
            raise ValueError(f"k(x, x) + k(y, y) - 2 k(x, y) = {sq} < 0: k is not a valid kernel")
        return sp.sqrt(sq)
    kxx, kyy, kxy = (_real(v, "k(x, y)") for v in values)
    sq = kxx + kyy - 2.0 * kxy
    scale = max(abs(kxx), abs(kyy), abs(kxy))
    if sq < -NEGATIVE_EIGENVALUE_RTOL * scale:
        raise ValueError(f"k(x, x) + k(y, y) - 2 k(x, y) = {sq:.6g} < 0: k is not a valid kernel")
    return float(np.sqrt(max(sq, 0.0)))


def gamma_for_similarity(distance, similarity):
    """The RBF width with ``exp(-gamma * distance^2) == similarity``.

    ``gamma = -ln(similarity) / distance^2``.

    Parameters
    ----------
    distance : float
        Input-space distance, ``> 0``.
    similarity : float
        Wanted kernel value at that distance, ``0 < similarity < 1``.

    Returns
    -------
    float, or an exact sympy expression when an argument is sympy.

    Examples
    --------
    >>> round(gamma_for_similarity(2.0, 0.5), 6)
    0.173287
    >>> import sympy as sp
    >>> gamma_for_similarity(2, sp.Rational(1, 2))
    log(2)/4
    """
    exact = is_exact(distance, similarity)
    if exact:
        distance = as_exact_scalar(distance, "distance")
        similarity = as_exact_scalar(similarity, "similarity")
    check_positive(distance, "distance")
    s = _real(similarity, "similarity")
    if not 0 < s < 1:
        raise ValueError(f"similarity must be strictly between 0 and 1, got {similarity}")
    if exact:
        return sp.expand_log(-sp.log(similarity) / distance**2, force=True)
    return float(-np.log(s) / float(distance) ** 2)
