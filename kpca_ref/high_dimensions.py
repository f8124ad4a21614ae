"""ps0: data in high dimensions (the exam cards' opening topic).

The ball inside its enclosing cube shrinks to nothing as the dimension ``m`` grows
(pi/4 in 2-D, pi/6 in 3-D), the ball's volume sits in a thin outer shell, and a random
direction almost never comes near a chosen one: the fraction of the unit sphere within an
angle of a direction (a *cap*) falls like ``sin(angle)**(m - 1)``.

Numbers in, floats out; sympy in (``Integer`` dimension, ``Rational`` widths, exact
angles in degrees), exact sympy out. A float on an exact route is a ``TypeError``.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
import sympy as sp

from kpca_ref._validation import (
    _reject_float,
    _shape_text,
    as_exact_scalar,
    as_float_array,
    check_int,
    is_exact,
)

__all__ = ["angles_deg", "ball_cube_ratio", "cap_fraction", "inside_fraction",
           "shell_fraction"]


def _dimension(m, name: str = "m", minimum: int = 1) -> int:
    return check_int(m, name, minimum=minimum)


def ball_cube_ratio(m):
    """Volume of the m-ball of radius r over the volume of its enclosing cube (side 2r).

    ``pi**(m/2) / (Gamma(m/2 + 1) * 2**m)``, the same for every radius.

    Parameters
    ----------
    m : int or sympy.Integer
        The dimension, ``m >= 1``. A sympy Integer gives the exact sympy value.

    Returns
    -------
    float or sympy.Expr
        The ratio, in (0, 1].

    Raises
    ------
    TypeError
        When ``m`` is not an integer (``2.0`` and ``True`` included).
    ValueError
        When ``m < 1``.

    Examples
    --------
    >>> ball_cube_ratio(sp.Integer(2)), ball_cube_ratio(sp.Integer(3))
    (pi/4, pi/6)
    >>> round(ball_cube_ratio(2), 4)
    0.7854
    """
    exact = isinstance(m, sp.Basic)
    k = _dimension(m)
    if exact:
        half = sp.Rational(k, 2)
        return sp.pi**half / (sp.gamma(half + 1) * sp.Integer(2) ** k)  # Gamma: evaluated
    log_ratio = 0.5 * k * math.log(math.pi) - math.lgamma(0.5 * k + 1.0) - k * math.log(2.0)
    return float(math.exp(log_ratio))


def shell_fraction(m, eps):
    """Fraction of the m-ball's volume within relative distance ``eps`` of its surface.

    The ball of radius ``(1 - eps) r`` holds ``(1 - eps)**m`` of the volume, so the outer
    shell of width ``eps r`` holds ``1 - (1 - eps)**m``.

    Parameters
    ----------
    m : int or sympy.Integer
        The dimension, ``m >= 1``.
    eps : float or sympy.Rational
        Relative width of the shell, ``0 <= eps <= 1``. With a sympy value (and an
        integer ``m``) the result is exact.

    Returns
    -------
    float or sympy.Rational

    Raises
    ------
    TypeError
        When ``m`` is not an integer, or a float is mixed into the exact route.
    ValueError
        When ``m < 1`` or ``eps`` lies outside [0, 1].

    Examples
    --------
    >>> shell_fraction(sp.Integer(2), sp.Rational(1, 2))
    3/4
    >>> round(shell_fraction(100, 0.01), 4)
    0.634
    """
    k = _dimension(m)
    if is_exact(m, eps):
        width = as_exact_scalar(eps, "eps")
        if not width.is_real or width < 0 or width > 1:
            raise ValueError(f"eps must lie in [0, 1], got {width}")
        return 1 - (1 - width) ** k
    if isinstance(eps, (bool, np.bool_)) or not isinstance(eps, numbers.Real):
        raise TypeError(f"eps must be a number, got {type(eps).__name__} {eps!r}")
    width = float(eps)
    if not 0.0 <= width <= 1.0:
        raise ValueError(f"eps must lie in [0, 1], got {eps}")
    if width == 1.0:
        return 1.0
    return float(-math.expm1(k * math.log1p(-width)))


def inside_fraction(X):
    """Monte Carlo estimate: the share of the points (rows of ``X``) in the unit ball.

    With points drawn uniformly from the cube ``[-1, 1]^m`` this estimates
    :func:`ball_cube_ratio`; its standard error is ``sqrt(p (1 - p) / n)``.

    Parameters
    ----------
    X : array_like of shape (n, m)
        The points, one per row (``n >= 1``).

    Returns
    -------
    numpy.ndarray of shape (2,)
        ``[p, se]``: the fraction of rows with ``||x|| <= 1`` and its standard error.

    Raises
    ------
    ValueError
        When ``X`` is not a non-empty 2-D array of finite numbers.

    Examples
    --------
    >>> inside_fraction([[0.5, 0.5], [0.9, 0.9], [0.0, -1.0], [1.0, 1.0]])
    array([0.5 , 0.25])
    """
    points = as_float_array(X, "X", ndim=2)
    if points.shape[0] < 1 or points.shape[1] < 1:
        raise ValueError(f"X needs at least one point and one coordinate, got shape "
                         f"{_shape_text(points.shape)}")
    n = points.shape[0]
    p = float(np.count_nonzero((points**2).sum(axis=1) <= 1.0)) / n
    return np.array([p, math.sqrt(p * (1.0 - p) / n)])


def angles_deg(U, v):
    """Angles in degrees between each row of ``U`` and the vector ``v``.

    ``arccos(u . v / (||u|| ||v||))``, the cosine clipped to [-1, 1] first: round-off
    can push it just past 1 for parallel vectors.

    Parameters
    ----------
    U : array_like of shape (n, m)
        Directions, one per row, none of them zero.
    v : array_like of shape (m,)
        The chosen direction (any non-zero length).

    Returns
    -------
    numpy.ndarray of shape (n,)
        Angles in [0, 180].

    Raises
    ------
    ValueError
        When the shapes do not fit or a vector is zero.

    Examples
    --------
    >>> angles_deg([[1.0, 0.0], [0.0, 2.0], [-3.0, 0.0], [1.0, 1.0]], [2.0, 0.0])
    array([  0.,  90., 180.,  45.])
    """
    rows = as_float_array(U, "U", ndim=2)
    direction = as_float_array(v, "v", ndim=1)
    if rows.shape[1] != direction.shape[0]:
        raise ValueError(f"U has rows of length {rows.shape[1]} but v has length "
                         f"{direction.shape[0]}")
    row_norms = np.linalg.norm(rows, axis=1)
    v_norm = float(np.linalg.norm(direction))
    if v_norm == 0.0 or np.any(row_norms == 0.0):
        raise ValueError("every row of U and v must be non-zero: a zero vector has no direction")
    cosines = (rows @ direction) / (row_norms * v_norm)
    return np.degrees(np.arccos(np.clip(cosines, -1.0, 1.0)))


def _sin_power_integral(k: int, theta):
    """Exact ``integral_0^theta sin(t)**k dt`` by the reduction formula."""
    if k == 0:
        return theta
    if k == 1:
        return 1 - sp.cos(theta)
    return (-(sp.sin(theta) ** (k - 1)) * sp.cos(theta) / k
            + sp.Rational(k - 1, k) * _sin_power_integral(k - 2, theta))


def _cap_float(k: int, angle: float) -> float:
    """Cap fraction for ``m = k + 2`` and an angle in degrees, 0 <= angle <= 180."""
    from scipy.special import betainc

    if angle > 90.0:
        return 1.0 - _cap_float(k, 180.0 - angle)
    s = math.sin(math.radians(angle))
    return float(0.5 * betainc(0.5 * (k + 1), 0.5, s * s))


def cap_fraction(m, angle):
    """Fraction of the unit sphere in R^m within ``angle`` degrees of a fixed direction.

    The sphere's area at angle ``t`` from the direction grows like ``sin(t)**(m - 2)``, so
    the fraction is ``int_0^a sin^(m-2) / int_0^pi sin^(m-2)``; a random unit vector lands
    in that cap with this probability. ``m = 2``: ``angle / 180``; ``m = 3``:
    ``(1 - cos a) / 2``.

    Parameters
    ----------
    m : int or sympy.Integer
        The dimension, ``m >= 2``.
    angle : float or sympy number
        The cap's half-angle in degrees, ``0 <= angle <= 180``. With sympy values the
        result is exact.

    Returns
    -------
    float or sympy.Expr

    Raises
    ------
    TypeError
        When ``m`` is not an integer, or a float is mixed into the exact route.
    ValueError
        When ``m < 2`` or the angle lies outside [0, 180].

    Examples
    --------
    >>> cap_fraction(sp.Integer(3), sp.Integer(60))
    1/4
    >>> round(cap_fraction(2, 45.0), 6)
    0.25
    """
    k = _dimension(m, minimum=2) - 2
    if is_exact(m, angle):
        _reject_float(angle, "angle")
        degrees = as_exact_scalar(angle, "angle")
        if not degrees.is_real or degrees < 0 or degrees > 180:
            raise ValueError(f"angle must lie in [0, 180] degrees, got {degrees}")
        theta = degrees * sp.pi / 180
        return sp.expand(_sin_power_integral(k, theta) / _sin_power_integral(k, sp.pi))
    if isinstance(angle, (bool, np.bool_)) or not isinstance(angle, numbers.Real):
        raise TypeError(f"angle must be a number, got {type(angle).__name__} {angle!r}")
    degrees = float(angle)
    if not 0.0 <= degrees <= 180.0:
        raise ValueError(f"angle must lie in [0, 180] degrees, got {angle}")
    if k == 0:
        return degrees / 180.0
    return _cap_float(k, degrees)
