"""ps2: explicit feature maps and how many coordinates they need.

An explicit map ``phi`` with ``k(x, y) = phi(x) @ phi(y)`` certifies that ``k`` is a
kernel. Numeric inputs give float64 arrays; sympy inputs give exact sympy Matrices
(``sqrt(2)`` stays a radical). A single point gives a vector: shape (D,) numerically,
a sympy column Matrix (D, 1) exactly; points as rows give one row per point.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import sympy as sp

from kpca_ref._validation import (
    _shape_text,
    as_exact_param,
    as_exact_scalar,
    as_float_array,
    as_points,
    check_int,
    check_positive,
    is_exact,
)

__all__ = [
    "count_distinct_products",
    "count_monomials",
    "poly_feature_map",
    "quadratic_map",
    "rbf_features_1d",
]

#: poly_feature_map refuses to build more coordinates than this
MAX_COORDINATES = 10**6


def count_distinct_products(d, p):
    """The lecture's tally of coordinates: ``sum_{i=0}^{p} C(d, i)``.

    It counts the constant and the products of ``i`` distinct features for
    ``i = 1..p`` (no powers such as ``f1^2``).

    Parameters
    ----------
    d : int
        Number of features, ``d >= 1``.
    p : int
        Highest power, ``p >= 0``.

    Returns
    -------
    int

    Examples
    --------
    >>> count_distinct_products(4, 3), count_distinct_products(3, 2)
    (15, 7)
    """
    d, p = check_int(d, "d", minimum=1), check_int(p, "p", minimum=0)
    return sum(math.comb(d, i) for i in range(p + 1))


def count_monomials(d, p):
    """Number of monomials of degree at most ``p`` in ``d`` features: ``C(d + p, p)``.

    This is the length of the feature map of ``(x @ y + c) ** p``.

    Parameters
    ----------
    d : int
        Number of features, ``d >= 1``.
    p : int
        Highest degree, ``p >= 0``.

    Returns
    -------
    int

    Examples
    --------
    >>> count_monomials(2, 2), count_monomials(3, 2)
    (6, 10)
    """
    d, p = check_int(d, "d", minimum=1), check_int(p, "p", minimum=0)
    return math.comb(d + p, p)


def _shape_out(rows, single: bool, exact: bool):
    """rows: list of lists (exact) or 2-D ndarray -> vector or matrix."""
    if exact:
        mat = sp.Matrix(rows)
        return mat.T if single else mat
    return rows[0] if single else rows


def quadratic_map(x):
    """The lecture's map of ``(x @ y + 1) ** 2`` in R^6: ``[a^2, b^2, 1, √2ab, √2a, √2b]``.

    Parameters
    ----------
    x : array_like, shape (2,) or (n, 2)
        One point ``[a, b]``, or points as rows.

    Returns
    -------
    ndarray of shape (6,) or (n, 6); sympy Matrix (6, 1) or (n, 6) when exact.

    Examples
    --------
    >>> round(float(quadratic_map([1.0, 2.0]) @ quadratic_map([3.0, -1.0])), 12)
    4.0
    >>> import sympy as sp
    >>> quadratic_map(sp.Matrix([1, 2])).T
    Matrix([[1, 4, 1, 2*sqrt(2), sqrt(2), 2*sqrt(2)]])
    """
    pts, single = as_points(x, "x", cols=2)
    exact = is_exact(x)
    if exact:
        r2 = sp.sqrt(2)
        rows = [[a**2, b**2, sp.Integer(1), r2 * a * b, r2 * a, r2 * b]
                for a, b in pts.tolist()]
        return _shape_out(rows, single, True)
    a, b, r2 = pts[:, 0], pts[:, 1], np.sqrt(2.0)
    rows = np.column_stack([a**2, b**2, np.ones_like(a), r2 * a * b, r2 * a, r2 * b])
    return _shape_out(rows, single, False)


def _multinomial(p: int, a0: int, alpha) -> int:
    return math.factorial(p) // (math.factorial(a0) * math.prod(math.factorial(a) for a in alpha))


def _exponents(d: int, p: int):
    """(exponent tuple of x_1..x_d, exponent of c) for every monomial of degree <= p."""
    for combo in itertools.combinations_with_replacement(range(d + 1), p):
        powers = [combo.count(i) for i in range(d + 1)]
        yield powers[:d], powers[d]


def poly_feature_map(x, p, c=1.0):
    """A feature map of ``(x @ y + c) ** p``: one coordinate per monomial of degree <= p.

    Coordinate ``alpha`` is ``sqrt(multinomial(p; alpha, a0) * c**a0) * x**alpha`` with
    ``a0 = p - |alpha|`` (multinomial theorem), so ``phi(x) @ phi(y) == (x @ y + c) ** p``.
    The length is always ``C(d + p, p)``; with ``c = 0`` the coordinates of degree
    below ``p`` are 0.

    Parameters
    ----------
    x : array_like, shape (d,) or (n, d)
    p : int
        Degree, ``p >= 0``.
    c : float, default 1.0
        Constant, ``c >= 0`` (a negative ``c`` has no real feature map).

    Returns
    -------
    ndarray of shape (C(d+p, p),) or (n, C(d+p, p)); sympy Matrix when exact.

    Examples
    --------
    >>> phi = poly_feature_map([1.0, 2.0, 0.5], p=3, c=2.0)
    >>> phi.shape, round(float(phi @ poly_feature_map([0.0, 1.0, -1.0], 3, 2.0)), 9)
    ((20,), 42.875)
    """
    pts, single = as_points(x, "x")
    p = check_int(p, "p", minimum=0)
    exact = is_exact(x)
    d = pts.shape[1]
    size = math.comb(d + p, p)
    if size > MAX_COORDINATES:
        raise ValueError(f"the feature map would have C({d}+{p}, {p}) = {size} coordinates; "
                         f"poly_feature_map builds at most {MAX_COORDINATES}")
    if exact:
        c = as_exact_param(c, "c", 1.0)
        if c.is_negative:
            raise ValueError(f"c must be >= 0 for a real feature map, got {c}")
        rows = []
        for point in pts.tolist():
            row = []
            for alpha, a0 in _exponents(d, p):
                coef = sp.Integer(_multinomial(p, a0, alpha))
                mono = sp.prod(v**a for v, a in zip(point, alpha))
                row.append(sp.sqrt(coef * c**a0) * mono)
            rows.append(row)
        return _shape_out(rows, single, True)
    c = float(as_float_array(c, "c", ndim=0))
    if c < 0:
        raise ValueError(f"c must be >= 0 for a real feature map, got {c}")
    cols = []
    for alpha, a0 in _exponents(d, p):
        coef = float(_multinomial(p, a0, alpha))
        cols.append(np.sqrt(coef * c**a0) * np.prod(pts ** np.array(alpha), axis=1))
    return _shape_out(np.column_stack(cols), single, False)


def rbf_features_1d(x, terms, gamma=0.5):
    """First ``terms`` coordinates of the 1-D RBF feature map.

    ``phi_m(x) = exp(-gamma x^2) * sqrt((2 gamma)^m / m!) * x^m`` for ``m = 0..terms-1``;
    summing ``phi_m(x) phi_m(y)`` over all m gives ``exp(-gamma (x - y)^2)``.

    Parameters
    ----------
    x : float or array_like of shape (n,)
    terms : int
        Number of coordinates, ``>= 1``.
    gamma : float, default 0.5
        RBF width, ``> 0`` (0.5 is ``sigma = 1``).

    Returns
    -------
    ndarray of shape (terms,) for a scalar, (n, terms) for a 1-D array; sympy
    Matrix (terms, 1) or (n, terms) when exact.

    Examples
    --------
    >>> phi = rbf_features_1d([0.3, -0.4], terms=20)
    >>> round(float(phi[0] @ phi[1]), 12) == round(float(np.exp(-0.5 * 0.7**2)), 12)
    True
    """
    terms = check_int(terms, "terms", minimum=1)
    if is_exact(x, gamma):
        gamma = as_exact_param(gamma, "gamma", 0.5)
        check_positive(gamma, "gamma")
        single = not isinstance(x, (list, tuple, np.ndarray, sp.MatrixBase))
        shape = (x.rows, x.cols) if isinstance(x, sp.MatrixBase) else np.shape(x)
        if not single and len(shape) != 1 and min(shape) != 1:
            raise ValueError(f"x must be a scalar or 1-D, got shape {_shape_text(shape)}")
        values = [as_exact_scalar(v, "x") for v in ([x] if single else list(sp.Matrix(x)))]
        rows = [[sp.exp(-gamma * v**2) * sp.sqrt((2 * gamma) ** m / sp.factorial(m)) * v**m
                 for m in range(terms)] for v in values]
        return _shape_out(rows, single, True)
    gamma = check_positive(gamma, "gamma")
    arr = as_float_array(x, "x")
    if arr.ndim > 1:
        raise ValueError(f"x must be a scalar or 1-D, got shape {_shape_text(arr.shape)}")
    v = np.atleast_1d(arr)
    cols = [np.exp(-gamma * v**2)]
    step = np.sqrt(2.0 * gamma) * v
    for m in range(1, terms):
        cols.append(cols[-1] * step / np.sqrt(m))
    out = np.column_stack(cols)
    return out[0] if arr.ndim == 0 else out
