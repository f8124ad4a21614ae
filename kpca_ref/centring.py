"""ps4: centring in feature space, using kernel values only.

With training points x_1..x_n, the feature-space mean is phi_bar = (1/n) sum phi(x_i).
Its inner products with the data are averages of kernel entries, so every centred
inner product follows from K alone (the four-term formula):

    <phi(x_i) - phi_bar, phi(x_j) - phi_bar> = K_ij - r_i - c_j + g,

with r_i the mean of row i, c_j the mean of column j (equal to r_j for a symmetric
kernel matrix) and g the mean of all n^2 entries, which is ||phi_bar||^2. In
matrix form this is H K H with the centring matrix H = I - (1/n) 1 1^T.

A NEW point x* is centred with the stored TRAINING means: its raw kernel values
k*_j = k(x_j, x*) become k*_j - c_j - mean(k*) + g. The training set and its mean
are not changed by the new point.

Route: numeric (float64 numpy) by default; exact when any kernel argument is a sympy
object (Matrix, Rational, Integer, or a list holding one), for ``centring_matrix``
when ``n`` is a sympy Integer. Exact results are sympy and never contain floats.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from kpca_ref._validation import (
    as_exact_matrix,
    as_float_array,
    as_square_float,
    check_exact_finite,
    check_int,
    is_exact,
)
from kpca_ref.exact import sign_exact, tidy
from kpca_ref.tolerances import NEGATIVE_EIGENVALUE_RTOL

__all__ = [
    "centre_kernel",
    "centre_new",
    "centring_matrix",
    "distances_to_mean",
    "feature_mean_sq_norm",
]


def _exact_square(K, name: str, min_size: int = 1) -> sp.Matrix:
    return check_exact_finite(as_exact_matrix(K, name, square=True, min_size=min_size), name)


def _exact_means(K: sp.Matrix):
    """Row means, column means and grand mean of an exact matrix."""
    n = K.rows
    rows = [sum(K.row(i)) / n for i in range(n)]
    cols = [sum(K.col(j)) / n for j in range(n)]
    return rows, cols, sum(rows) / n


def centring_matrix(n):
    """The centring matrix H = I - (1/n) 1 1^T.

    Parameters
    ----------
    n : int
        Number of points, at least 2. A sympy Integer selects the exact route.

    Returns
    -------
    ndarray of shape (n, n), or a sympy Matrix when ``n`` is a sympy Integer.

    Examples
    --------
    >>> centring_matrix(2)
    array([[ 0.5, -0.5],
           [-0.5,  0.5]])
    >>> centring_matrix(sp.Integer(3))[0, :]
    Matrix([[2/3, -1/3, -1/3]])
    """
    exact = isinstance(n, sp.Basic)
    n = check_int(n, "n", minimum=2)
    if exact:
        return sp.eye(n) - sp.ones(n, n) / n
    return np.eye(n) - np.full((n, n), 1.0 / n)


def centre_kernel(K):
    """Centre a kernel matrix in feature space: H K H, by the four-term formula.

    Parameters
    ----------
    K : array_like of shape (n, n), n >= 2
        Kernel (Gram) matrix of the training points. Symmetry is not required.

    Returns
    -------
    ndarray of shape (n, n), or a sympy Matrix for sympy input. Every row and column
    of the result sums to zero.

    Examples
    --------
    >>> centre_kernel(np.array([[2.0, 1.0], [1.0, 2.0]]))
    array([[ 0.5, -0.5],
           [-0.5,  0.5]])
    >>> centre_kernel(sp.Matrix([[2, 1], [1, 2]]))
    Matrix([
    [ 1/2, -1/2],
    [-1/2,  1/2]])
    """
    if is_exact(K):
        K = _exact_square(K, "K", min_size=2)
        rows, cols, grand = _exact_means(K)
        return sp.Matrix(K.rows, K.cols, lambda i, j: K[i, j] - rows[i] - cols[j] + grand)
    K = as_square_float(K, "K", min_size=2)
    rows, cols = K.mean(axis=1), K.mean(axis=0)
    return K - rows[:, None] - cols[None, :] + rows.mean()


def centre_new(K_new, K_train):
    """Centre kernel values of new points with the TRAINING feature mean.

    Parameters
    ----------
    K_new : array_like of shape (m, n), or (n,) for one new point
        ``K_new[a, j] = k(x*_a, x_j)``: new point a against training point j.
    K_train : array_like of shape (n, n), n >= 2
        Kernel matrix of the training points; only its means are used.

    Returns
    -------
    ndarray of shape (m, n), or (n,) for 1-D ``K_new``. Exact route (sympy input): a
    sympy Matrix of shape (m, n); a sympy column of length n counts as one new point and
    gives a column back.

    Notes
    -----
    Entry (a, j) is ``K_new[a, j] - c_j - mean(K_new[a, :]) + g`` with c_j the mean of
    column j of ``K_train`` and g its grand mean. ``centre_new(K, K)`` equals
    ``centre_kernel(K)``.

    Examples
    --------
    The lecture's x = -1, 0, 1 with k(x, y) = xy + (xy)^2 and the new point x* = 2:

    >>> K = sp.Matrix([[2, 0, 0], [0, 0, 0], [0, 0, 2]])
    >>> centre_new(sp.Matrix([2, 0, 6]), K).T
    Matrix([[-8/9, -20/9, 28/9]])
    >>> centre_new(np.array([2.0, 0.0, 6.0]), np.array(K, dtype=float)) * 9
    array([ -8., -20.,  28.])
    """
    if is_exact(K_new, K_train):
        K_train = _exact_square(K_train, "K_train", min_size=2)
        n = K_train.rows
        column = isinstance(K_new, sp.MatrixBase) and K_new.cols == 1 and K_new.rows == n
        K_new = check_exact_finite(as_exact_matrix(K_new.T if column else K_new, "K_new"), "K_new")
        _check_columns(K_new.shape, n, "K_new", "K_train")
        _, cols, grand = _exact_means(K_train)
        out = sp.Matrix(
            K_new.rows, n, lambda a, j: K_new[a, j] - cols[j] - sum(K_new.row(a)) / n + grand
        )
        return out.T if column else out
    K_train = as_square_float(K_train, "K_train", min_size=2)
    n = K_train.shape[0]
    K_new = as_float_array(K_new, "K_new")
    if K_new.ndim not in (1, 2):
        raise ValueError(f"K_new must be 1-D (one new point) or 2-D, got shape {K_new.shape}")
    _check_columns(K_new.shape, n, "K_new", "K_train")
    cols = K_train.mean(axis=0)
    return K_new - cols - K_new.mean(axis=-1, keepdims=True) + cols.mean()


def _check_columns(shape, n: int, name: str, other: str) -> None:
    if shape[-1] != n:
        what = "length" if len(shape) == 1 else "columns"
        raise ValueError(
            f"{name} must have n = {n} {what} (one per training point of {other}, "
            f"which is {n} x {n}), got shape {tuple(shape)}"
        )


def feature_mean_sq_norm(K):
    """Squared length of the feature-space mean: the mean of all entries of K.

    ||phi_bar||^2 = (1/n^2) sum_ij K_ij = (1/n^2) 1^T K 1.

    Parameters
    ----------
    K : array_like of shape (n, n)

    Returns
    -------
    float, or a sympy number for sympy input.

    Examples
    --------
    >>> feature_mean_sq_norm(sp.Matrix([[2, 0, 0], [0, 0, 0], [0, 0, 2]]))
    4/9
    >>> feature_mean_sq_norm([[2.0, 1.0], [1.0, 2.0]])
    1.5
    """
    if is_exact(K):
        K = _exact_square(K, "K")
        return tidy(sum(K) / K.rows**2)
    return float(as_square_float(K, "K").mean())


def distances_to_mean(K):
    """Feature-space distance of each training point to the feature-space mean.

    ||phi(x_i) - phi_bar||^2 = K_ii - r_i - c_i + g (= K_ii - 2 r_i + g for a symmetric
    K): the diagonal of the centred kernel matrix.

    Parameters
    ----------
    K : array_like of shape (n, n)
        A positive semidefinite kernel matrix.

    Returns
    -------
    ndarray of shape (n,), or a sympy column Matrix (n, 1) of exact square roots.

    Raises
    ------
    ValueError
        If a squared distance is clearly negative (K is then not a kernel matrix).
        Round-off negatives (relative to max |K|) are set to zero.

    Examples
    --------
    >>> distances_to_mean(sp.Matrix([[2, 0, 0], [0, 0, 0], [0, 0, 2]])).T
    Matrix([[sqrt(10)/3, 2/3, sqrt(10)/3]])
    >>> distances_to_mean([[1.0, 0.0], [0.0, 1.0]])
    array([0.70710678, 0.70710678])
    """
    if is_exact(K):
        K = _exact_square(K, "K")
        rows, cols, grand = _exact_means(K)
        squares = [tidy(K[i, i] - rows[i] - cols[i] + grand) for i in range(K.rows)]
        for i, sq in enumerate(squares):
            if sign_exact(sq) < 0:
                raise ValueError(
                    f"K is not a valid kernel matrix: point {i} has squared feature-space "
                    f"distance {sq} to the mean, which is negative"
                )
        return sp.Matrix([tidy(sp.sqrt(sq)) for sq in squares])
    K = as_square_float(K, "K")
    squares = np.diag(K) - K.mean(axis=1) - K.mean(axis=0) + K.mean()
    scale = np.abs(K).max()
    worst = int(np.argmin(squares))
    if squares[worst] < -NEGATIVE_EIGENVALUE_RTOL * scale:
        raise ValueError(
            f"K is not a valid kernel matrix: point {worst} has squared feature-space "
            f"distance {squares[worst]:.6g} to the mean, "
            f"{squares[worst] / scale:.3g} times max |K|"
        )
    return np.sqrt(np.clip(squares, 0.0, None))
