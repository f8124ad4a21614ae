"""ps1: PCA cannot see a circle; the lift to R^6 makes it linear.

Points on the circle with centre (a, b) and radius r satisfy
``f1^2 + f2^2 - 2a f1 - 2b f2 + a^2 + b^2 - r^2 = 0``. After the lift
``phi(x) = [1, f1^2, f2^2, f1 f2, f1, f2]`` this is ``phi(x) @ u = 0`` with
``u = [a^2 + b^2 - r^2, 1, 1, 0, -2a, -2b]``: one linear relation in R^6.
Numeric inputs give float64 results; sympy inputs give exact sympy results.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from kpca_ref._validation import (
    as_exact_scalar,
    as_float_array,
    as_points,
    check_positive,
    is_exact,
)
from kpca_ref.tolerances import CIRCLE_RTOL, CUMULATIVE_SHARE_RTOL

__all__ = ["circle_normal", "components_needed", "lift", "recover_circle", "variance_shares"]

#: the shares given to components_needed must sum to 1 within this
_SHARE_SUM_ATOL = 1e-6


def _points2(X, *, min_rows: int, label: str):
    pts, _ = as_points(X, "X", cols=2)
    n = pts.shape[0]
    if n < min_rows:
        raise ValueError(f"X needs at least {min_rows} {label}, got {n}")
    return pts


def variance_shares(X):
    """Shares of the total variance along the two principal directions of ``X``.

    ``X`` is mean-centred first; the shares are the eigenvalues of its covariance
    matrix divided by their sum, in descending order.

    Parameters
    ----------
    X : array_like, shape (n, 2), n >= 2, not all points identical.

    Returns
    -------
    ndarray of shape (2,) summing to 1; a sympy column Matrix (2, 1) when exact.

    Examples
    --------
    >>> variance_shares([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    array([0.5, 0.5])
    """
    pts = _points2(X, min_rows=2, label="points to have a variance")
    if is_exact(X):
        centred = pts - sp.ones(pts.rows, 1) * (sp.ones(1, pts.rows) * pts) / pts.rows
        scatter = centred.T * centred
        a, b, c = scatter[0, 0], scatter[0, 1], scatter[1, 1]
        total = a + c
        if total == 0:
            raise ValueError("X has zero total variance (all points identical); "
                             "shares are undefined")
        disc = sp.sqrt((a - c) ** 2 + 4 * b**2)
        return sp.Matrix([(total + disc) / (2 * total), (total - disc) / (2 * total)]).applyfunc(
            sp.simplify)
    if np.all(np.ptp(pts, axis=0) == 0):
        raise ValueError("X has zero total variance (all points identical); shares are undefined")
    sv = np.linalg.svd(pts - pts.mean(axis=0), compute_uv=False)
    var = sv**2
    return var / var.sum()


def components_needed(shares, threshold=0.95):
    """Smallest number of leading components whose cumulative share reaches ``threshold``.

    The shares are used in the order given (``variance_shares`` returns them
    descending). A tiny relative tolerance lets 0.6 + 0.35 count as reaching 0.95.

    Parameters
    ----------
    shares : array_like, shape (k,)
        Non-negative, summing to 1 (exact shares are evaluated numerically).
    threshold : float, default 0.95
        ``0 < threshold <= 1``.

    Returns
    -------
    int

    Examples
    --------
    >>> components_needed([0.52, 0.48]), components_needed([0.95, 0.05])
    (2, 1)
    """
    if isinstance(shares, sp.MatrixBase):
        shares = [float(s) for s in shares]
    s = as_float_array(shares, "shares", ndim=1)
    if s.size == 0:
        raise ValueError("shares must hold at least one share, got shape (0,)")
    if np.any(s < 0):
        raise ValueError(f"shares must be non-negative, got {s.min():.6g}")
    if abs(s.sum() - 1.0) > _SHARE_SUM_ATOL:
        raise ValueError(f"shares must sum to 1, got a sum of {s.sum():.6g}")
    t = float(as_float_array(threshold, "threshold", ndim=0))
    if not 0 < t <= 1:
        raise ValueError(f"threshold must satisfy 0 < threshold <= 1, got {threshold}")
    reached = np.cumsum(s) >= t * (1.0 - CUMULATIVE_SHARE_RTOL)
    return int(np.argmax(reached)) + 1 if reached.any() else int(s.size)


def lift(X):
    """The lift ``phi(x) = [1, f1^2, f2^2, f1 f2, f1, f2]`` of every point.

    Parameters
    ----------
    X : array_like, shape (n, 2) or (2,)
        Points as rows, or one point.

    Returns
    -------
    ndarray of shape (n, 6), or (6,) for one point; sympy Matrix (n, 6), or a
    column (6, 1) for one point, when exact.

    Examples
    --------
    >>> lift([4.0, 2.0])
    array([ 1., 16.,  4.,  8.,  4.,  2.])
    """
    pts, single = as_points(X, "X", cols=2)
    if is_exact(X):
        rows = [[sp.Integer(1), a**2, b**2, a * b, a, b] for a, b in pts.tolist()]
        return sp.Matrix(rows).T if single else sp.Matrix(rows)
    f1, f2 = pts[:, 0], pts[:, 1]
    out = np.column_stack([np.ones_like(f1), f1**2, f2**2, f1 * f2, f1, f2])
    return out[0] if single else out


def circle_normal(a, b, r):
    """The vector ``u = [a^2 + b^2 - r^2, 1, 1, 0, -2a, -2b]`` of the circle (a, b), r.

    Every lifted point of the circle is orthogonal to it: ``lift(x) @ u == 0``.

    Parameters
    ----------
    a, b : float
        Centre.
    r : float
        Radius, ``r > 0``.

    Returns
    -------
    ndarray of shape (6,); a sympy column Matrix (6, 1) when an argument is sympy.

    Examples
    --------
    >>> circle_normal(1, 2, 3)
    array([-4.,  1.,  1.,  0., -2., -4.])
    """
    if is_exact(a, b, r):
        a, b, r = (as_exact_scalar(v, n) for v, n in ((a, "a"), (b, "b"), (r, "r")))
        for v, n in ((a, "a"), (b, "b")):
            if not v.is_real:
                raise ValueError(f"{n} must be a real number, got {v}")
        check_positive(r, "r")
        return sp.Matrix([a**2 + b**2 - r**2, 1, 1, 0, -2 * a, -2 * b])
    a, b = (float(as_float_array(v, n, ndim=0)) for v, n in ((a, "a"), (b, "b")))
    r = check_positive(r, "r")
    return np.array([a**2 + b**2 - r**2, 1.0, 1.0, 0.0, -2.0 * a, -2.0 * b])


def _circle_from_normal(v, scale_check: bool):
    """(a, b, r^2) from a conic vector v, or ValueError when it is not a circle."""
    c1, c2, c12 = v[1], v[2], v[3]
    top = max(abs(c1), abs(c2))
    if scale_check:
        if top <= CIRCLE_RTOL * max(abs(x) for x in v):
            raise ValueError("X does not lie on a circle: the conic through the lifted points "
                             "has no f1^2 or f2^2 term (are the points on a line?)")
        bad_sq, bad_cross = abs(c1 - c2) > CIRCLE_RTOL * top, abs(c12) > CIRCLE_RTOL * top
    else:
        bad_sq, bad_cross = c1 != c2 or c1 == 0, c12 != 0
    if bad_sq:
        raise ValueError("X does not lie on a circle: the conic through the lifted points has "
                         f"f1^2 and f2^2 coefficients {float(c1):.6g} and {float(c2):.6g} "
                         "(a circle needs them equal and non-zero)")
    if bad_cross:
        raise ValueError("X does not lie on a circle: the conic through the lifted points has "
                         f"an f1*f2 coefficient {float(c12 / c1):.6g} (a circle has none)")
    u = [x / c1 for x in v]
    a, b = -u[4] / 2, -u[5] / 2
    r2 = a**2 + b**2 - u[0]
    if r2 <= 0:
        raise ValueError(f"X does not lie on a circle: the fitted conic has r^2 = {r2} <= 0")
    return a, b, r2


def _recover_exact(pts: sp.Matrix):
    null = lift(pts).nullspace()
    if not null:
        raise ValueError("X does not lie on one circle: no conic passes through all its points")
    if len(null) > 1:
        raise ValueError("X does not fix a unique circle: several conics pass through its "
                         "points (are 3 or more of them collinear?)")
    a, b, r2 = _circle_from_normal(list(null[0]), scale_check=False)
    return sp.simplify(a), sp.simplify(b), sp.sqrt(sp.simplify(r2))


def recover_circle(X):
    """Centre and radius ``(a, b, r)`` of the circle through the points of ``X``.

    The lifted points are orthogonal to ``u``; ``u`` is the right singular vector of
    ``lift(X)`` with the least singular value, scaled so its f1^2 entry is 1. To keep
    the six lifted columns on comparable scales, the points are first shifted to
    their mean and scaled to unit RMS radius; the circle is mapped back afterwards.

    Parameters
    ----------
    X : array_like, shape (n, 2)
        At least 5 distinct points of one circle (tiny noise is tolerated).

    Returns
    -------
    tuple of 3 floats; sympy numbers when ``X`` is exact (the nullspace is exact).

    Raises
    ------
    ValueError
        Fewer than 5 distinct points, collinear points, or points not on one circle.

    Examples
    --------
    >>> t = np.linspace(0, 2 * np.pi, 7)[:-1]
    >>> a, b, r = recover_circle(np.column_stack([1 + 3 * np.cos(t), 2 + 3 * np.sin(t)]))
    >>> round(a, 9), round(b, 9), round(r, 9)
    (1.0, 2.0, 3.0)
    """
    pts = _points2(X, min_rows=1, label="points")
    exact = is_exact(X)
    rows = pts.tolist() if exact else pts
    distinct = len({tuple(p) for p in rows}) if exact else len(np.unique(pts, axis=0))
    if distinct < 5:
        raise ValueError(f"X needs at least 5 distinct points to fix one circle, got {distinct}")
    if exact:
        return _recover_exact(pts)
    mean = pts.mean(axis=0)
    shifted = pts - mean
    scale = np.sqrt(np.mean(np.sum(shifted**2, axis=1)))
    unit = shifted / scale
    spread = np.linalg.svd(unit, compute_uv=False)
    if spread[1] <= CIRCLE_RTOL * spread[0]:
        raise ValueError("X does not lie on a circle: its points are collinear")
    _, sv, vt = np.linalg.svd(lift(unit))
    sv = np.concatenate([sv, np.zeros(6 - sv.size)])
    if sv[4] <= 1e3 * np.finfo(float).eps * sv[0]:
        raise ValueError("X does not fix a unique circle: several conics pass through its "
                         "points (are 3 or more of them collinear?)")
    a, b, r2 = _circle_from_normal(list(vt[5]), scale_check=True)
    a, b, r = mean[0] + scale * a, mean[1] + scale * b, scale * np.sqrt(r2)
    gap = np.sqrt(np.mean((np.hypot(pts[:, 0] - a, pts[:, 1] - b) - r) ** 2)) / r
    if gap > CIRCLE_RTOL:
        raise ValueError("X does not lie on one circle: its points are off the best-fitting "
                         f"circle by {gap:.3g} of the radius (RMS)")
    return float(a), float(b), float(r)
