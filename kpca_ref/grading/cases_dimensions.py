"""Hidden case groups of ps0 (data in high dimensions), and the rules naming its mistakes.

Dimensions, widths and angles are drawn from the builder's generator (salted per
student under the autograder); each group keeps to the region its label names.

>>> [g.label for g in BUILDERS["ball_cube_ratio"]()][:2]
["the lecture's dimensions m = 2, 3, and one more", 'small m']
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from kpca_ref.grading.case_parts import Case, Group, rng
from kpca_ref.grading.mistake_match import first_match, floats
from kpca_ref.tolerances import (
    ANGLE_ROUNDOFF_DEG,
    FLOAT32_BALL_FLOOR,
    FLOAT32_UNDERFLOW,
    GRADING_ENTRYWISE_ATOL_SCALE,
)

__all__ = ["BUILDERS", "MESSAGES", "rules"]

#: values that span many orders of magnitude are compared entry by entry (relative)
ENTRYWISE = {"atol_scale": GRADING_ENTRYWISE_ATOL_SCALE}


def _ints(r, low, high, size):
    return [int(v) for v in r.choice(np.arange(low, high + 1), size=size, replace=False)]


def ball_float32_floor(m: int) -> float:
    """The float32 floor of the ball's share at ``m``: :data:`FLOAT32_BALL_FLOOR` where the
    formula as written overflows float32 (its denominator Gamma(m/2 + 1) 2^m is past
    3.4e38 from m = 49 on), float32's smallest normal number where float32 holds the share.

    >>> ball_float32_floor(48) == FLOAT32_UNDERFLOW, ball_float32_floor(49)
    (True, 1e-26)
    """
    overflows = math.gamma(m / 2 + 1) * 2.0**m > float(np.finfo(np.float32).max)
    return FLOAT32_BALL_FLOOR if overflows else FLOAT32_UNDERFLOW


def ball_cube_ratio():
    r = rng(301)
    small = _ints(r, 4, 12, 3)
    large = _ints(r, 40, 150, 2)
    # the first large m is one float32 holds (40-48): a zero, or the Gamma(m/2) mistake in
    # float32, fails this group for every draw, not only for the draws of small m
    large[0] = 40 + large[0] % 9
    beyond = int(r.integers(13, 40))  # the lecture's m beside one only this student has
    return [
        Group("the lecture's dimensions m = 2, 3, and one more",
              [Case((2,)), Case((3,)), Case((beyond,), **ENTRYWISE)]),
        Group("small m", [Case((1,))] + [Case((m,)) for m in small]),
        Group("m up to 150", [Case((m,), **ENTRYWISE, float32_floor=ball_float32_floor(m))
                              for m in large + [150]]),
        Group("exact sympy input", [Case((sp.Integer(m),)) for m in (2, *_ints(r, 3, 9, 2))]),
        Group("m < 1 raises ValueError", [Case((0,), expect_error=ValueError),
                                          Case((-int(r.integers(1, 5)),), expect_error=ValueError)]),
    ]


def shell_fraction():
    r = rng(302)
    return [
        Group("thin shells in high dimensions", [
            Case((int(m), float(e))) for m, e in zip(_ints(r, 50, 1000, 3),
                                                     r.uniform(0.001, 0.02, 3))]),
        Group("low dimensions", [Case((int(m), float(e))) for m, e in zip(
            _ints(r, 1, 6, 3), r.uniform(0.05, 0.9, 3))]),
        Group("eps = 0 and eps = 1, beside an eps between", [
            Case((int(r.integers(2, 20)), 0.0), **ENTRYWISE), Case((int(r.integers(2, 20)), 1.0)),
            Case((int(r.integers(2, 20)), float(r.uniform(0.1, 0.9))))]),
        Group("exact sympy input", [
            Case((sp.Integer(int(r.integers(2, 8))), sp.Rational(1, int(r.integers(2, 11))))),
            Case((sp.Integer(int(r.integers(2, 8))), sp.Rational(2, 7)))]),
        Group("eps outside [0, 1] or m < 1 raises ValueError", [
            Case((5, -0.1), expect_error=ValueError), Case((5, 1.5), expect_error=ValueError),
            Case((0, 0.5), expect_error=ValueError)]),
    ]


def _cube(r, n, m):
    return r.uniform(-1.0, 1.0, (n, m))


def _some_inside(r, n_low=10, n_high=30, m=3):
    """Points of a cube of dimension ``m``, some inside the ball and some not (a share
    strictly between 0 and 1, which no answer of 0 or 1 matches)."""
    while True:
        X = _cube(r, int(r.integers(n_low, n_high)), m)
        inside = int(np.count_nonzero((X**2).sum(axis=1) <= 1.0))
        if 0 < inside < len(X):
            return X


def inside_fraction():
    r = rng(303)
    return [
        Group("points in a square (m = 2)", [Case((_cube(r, 40, 2),)), Case((_cube(r, 7, 2),))]),
        Group("points in cubes of dimension 3 to 10", [
            Case((_cube(r, 200, int(m)),)) for m in (3, int(r.integers(4, 11)))]),
        Group("n up to 20000", [Case((_cube(r, 20000, 4),))]),
        Group("all points inside, or none, or some", [
            Case((0.3 * _cube(r, 12, 3),)), Case((1.5 + _cube(r, 9, 5) ** 2,)),
            Case((_some_inside(r),))]),
        Group("a single point, and a few", [Case((np.array([[0.2, -0.1, 0.4]]),)),
                                            Case((np.array([[0.9, 0.9]]),)),
                                            Case((_some_inside(r, 3, 7, 2),))]),
        Group("X that is not a 2-D array raises ValueError", [
            Case((np.zeros(5),), expect_error=ValueError)]),
    ]


def _unit(r, m):
    v = r.standard_normal(m)
    return v / np.linalg.norm(v)


def _past_one(U, v) -> bool:
    """Whether a cosine of ``U``'s rows with ``v`` lands past +-1 in round-off, computed
    either way students do: dot over both norms, or the dot of the normalised vectors."""
    both = (U @ v) / (np.linalg.norm(U, axis=1) * np.linalg.norm(v))
    unit = (U / np.linalg.norm(U, axis=1)[:, None]) @ (v / np.linalg.norm(v))
    return bool((np.abs(both) > 1).any() and (np.abs(unit) > 1).any())


def _parallel_rows(r):
    """Rows that are multiples of a drawn ``v``, and ``v``: their cosine is +-1 up to
    round-off. ``v`` is drawn until both usual ways of computing the cosine land past +-1
    on some row, so an unclipped arccos gives nan for every student (with 30 rows and no
    such check, 1 student in 60 drew rows where it did not). Two short rows
    (``|row| |v| = 1/2``) keep a cosine not divided by the row's norm inside [-1, 1], so
    that mistake shows for every draw too, not only when ``v`` came out short.
    """
    scales = np.concatenate([r.uniform(0.1, 10.0, 40), -r.uniform(0.1, 10.0, 40)])
    for _ in range(100):
        v = r.standard_normal(7) * 3.7
        rows = np.outer(np.concatenate([scales, [0.5, -0.5] / (v @ v)]), v)
        if _past_one(rows, v):
            break
    return rows, v


def _axes(r):
    """Multiples of the axes of R^m (m drawn) against a multiple of one axis: angles of 0,
    90 and 180 degrees, in an order and with lengths only this student's inputs have."""
    m = int(r.integers(3, 7))
    signs = r.choice([-1.0, 1.0], size=m)
    U = np.eye(m) * signs[:, None] * r.uniform(0.5, 4.0, m)[:, None]
    U = np.vstack([U, U[0] + U[1]])  # and one between two axes
    v = np.zeros(m)
    v[int(r.integers(m))] = float(r.uniform(0.5, 4.0))
    return U[r.permutation(len(U))], v


def angles_deg():
    r = rng(304)
    v3 = r.standard_normal(3) * 2.5
    v30 = r.standard_normal(30)
    parallel = [_parallel_rows(r) for _ in range(3)]
    return [
        Group("axes: 0, 90 and 180 degrees", [Case((
            np.array([[2.0, 0.0, 0.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [1.0, 1.0, 0.0]]),
            np.array([3.0, 0.0, 0.0]))), Case(_axes(r))]),
        Group("random directions in R^3", [Case((r.standard_normal((20, 3)), v3))]),
        Group("random directions in R^30 and R^300", [
            Case((r.standard_normal((50, 30)), v30)),
            Case((r.standard_normal((10, 300)), r.standard_normal(300)))]),
        Group("rows parallel to v (round-off past |cos| = 1)", [
            Case((rows, v), atol=ANGLE_ROUNDOFF_DEG) for rows, v in parallel]),
        Group("shapes that do not fit, or a zero vector, raise ValueError", [
            Case((np.ones((3, 4)), np.ones(3)), expect_error=ValueError),
            Case((np.ones((3, 2)), np.zeros(2)), expect_error=ValueError)]),
    ]


def cap_fraction():
    r = rng(305)
    return [
        Group("the circle m = 2", [Case((2, float(a))) for a in r.uniform(1.0, 179.0, 2)]),
        Group("the sphere m = 3", [Case((3, float(a))) for a in r.uniform(1.0, 89.0, 2)]),
        Group("dimensions 4 to 12", [Case((int(m), float(a))) for m, a in zip(
            _ints(r, 4, 12, 3), r.uniform(10.0, 80.0, 3))]),
        Group("R^30 and beyond: tiny caps", [
            Case((30, float(r.uniform(20.0, 40.0))), **ENTRYWISE),
            Case((int(r.integers(50, 200)), float(r.uniform(30.0, 60.0))), **ENTRYWISE)]),
        Group("angles of 90 degrees and more", [
            Case((int(r.integers(3, 20)), 90.0)),
            Case((int(r.integers(3, 7)), float(r.uniform(100.0, 130.0))))]),
        Group("m < 2 or an angle outside [0, 180] raises ValueError", [
            Case((1, 30.0), expect_error=ValueError), Case((5, 200.0), expect_error=ValueError),
            Case((5, -10.0), expect_error=ValueError)]),
    ]


BUILDERS = {
    "ball_cube_ratio": ball_cube_ratio,
    "shell_fraction": shell_fraction,
    "inside_fraction": inside_fraction,
    "angles_deg": angles_deg,
    "cap_fraction": cap_fraction,
}


# ----------------------------------------------------------------------------- mistakes
def _ball_mistakes(m):
    m = int(m)
    return [
        ("gamma_argument", lambda: math.pi ** (m / 2) / (math.gamma(m / 2) * 2.0**m)),
        ("cube_side_r", lambda: math.pi ** (m / 2) / math.gamma(m / 2 + 1)),
    ]


def _cap_mistakes(m, angle):
    from kpca_ref.high_dimensions import cap_fraction as cap

    m, angle = int(m), float(angle)
    return [
        ("both_caps", lambda: 2.0 * cap(m, angle)),
        ("planar_fraction", lambda: angle / 180.0),
        ("sphere_exponent", lambda: cap(m + 1, angle)),
    ]


def _inside_mistakes(X):
    X = floats(X)
    n = X.shape[0]
    p = float(np.count_nonzero((X**2).sum(axis=1) <= 1.0)) / n
    return [
        ("variance_not_standard_error", lambda: np.array([p, p * (1 - p) / n])),
        ("standard_error_divisor", lambda: np.array([p, math.sqrt(p * (1 - p)) / n])),
    ]


def _angles(U, v, actual):
    U, v = floats(U), floats(v)
    got = floats(actual)
    if got.shape == (U.shape[0],) and not np.isfinite(got).all():
        return "arccos_not_clipped"
    cos = (U @ v) / (np.linalg.norm(U, axis=1) * np.linalg.norm(v))
    return first_match(actual, [
        ("radians_not_degrees", lambda: np.arccos(np.clip(cos, -1, 1))),
        ("not_normalised", lambda: np.degrees(np.arccos(np.clip(U @ v, -1, 1)))),
        ("not_normalised", lambda: np.degrees(np.arccos(np.clip(
            (U @ v) / np.linalg.norm(v), -1, 1)))),
    ])


def rules() -> dict:
    """name -> rule(args, actual) -> code or None (see :mod:`.mistake_rules`)."""
    return {
        "ball_cube_ratio": lambda a, r: first_match(r, _ball_mistakes(a[0])),
        "shell_fraction": lambda a, r: first_match(r, [
            ("core_not_shell", lambda: (1.0 - float(a[1])) ** int(a[0]))]),
        "inside_fraction": lambda a, r: first_match(r, _inside_mistakes(a[0])),
        "angles_deg": lambda a, r: _angles(*a, r),
        "cap_fraction": lambda a, r: first_match(r, _cap_mistakes(*a)),
    }


#: diagnosis code -> student-facing message (no expected values)
MESSAGES = {
    "gamma_argument": "your ratio uses Gamma(m/2): the ball's volume is "
    "pi^(m/2) r^m / Gamma(m/2 + 1) (in 2-D both agree, in 3-D they do not)",
    "cube_side_r": "your ratio compares the ball with a cube of side r: the enclosing cube "
    "has side 2r, so divide by 2^m as well",
    "core_not_shell": "your value is the fraction in the inner ball of radius (1 - eps) r: "
    "the shell holds the rest",
    "variance_not_standard_error": "your second value is the variance p(1 - p)/n of the "
    "estimate: the standard error is its square root",
    "standard_error_divisor": "your standard error divides by n: it is sqrt(p(1 - p) / n), "
    "the square root of the whole quotient",
    "arccos_not_clipped": "some angles are NaN: round-off can push a cosine just past 1 or "
    "-1; clip it to [-1, 1] before arccos",
    "radians_not_degrees": "your angles are in radians: convert them to degrees",
    "not_normalised": "your angles ignore the vectors' lengths: divide the dot product by "
    "both norms",
    "both_caps": "your fraction counts two caps (around the direction and its opposite): "
    "the fraction asks for one",
    "planar_fraction": "angle / 180 is the answer on a circle (m = 2) only: on the sphere "
    "in R^m the area at angle t grows like sin(t)^(m - 2)",
    "sphere_exponent": "your fraction uses the wrong power of sin: on the unit sphere in "
    "R^m the area at angle t grows like sin(t)^(m - 2)",
}
