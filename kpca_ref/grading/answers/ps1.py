"""Exact answers of ps1_circle_lift, computed by kpca_ref from the lecture's numbers.

The lecture's self-test (notes 10-12, Q1) uses the circle with centre (1, 2) and
radius 3 and its point (4, 2); the problem set adds three points of that circle,
(4, 2), (1, 5) and (-2, 2), whose variance shares are found by hand.
"""

from __future__ import annotations

import sympy as sp

from kpca_ref.circle import circle_normal, lift, variance_shares
from kpca_ref.grading.answers import register_answer

#: the lecture's circle: centre (a, b) = (1, 2), radius r = 3
CENTRE = (sp.Integer(1), sp.Integer(2))
RADIUS = sp.Integer(3)
#: the lecture's point of that circle
POINT = sp.Matrix([[4, 2]])
#: three points of the same circle (the point above, the top and the left end)
THREE_POINTS = sp.Matrix([[4, 2], [1, 5], [-2, 2]])


@register_answer("ps1_three_point_shares")
def three_point_shares() -> sp.Matrix:
    """Variance shares of (4, 2), (1, 5), (-2, 2), largest first: a (2, 1) column."""
    return variance_shares(THREE_POINTS)


@register_answer("ps1_lift_point")
def lift_point() -> sp.Matrix:
    """phi(4, 2) = [1, 16, 4, 8, 4, 2] as a (6, 1) column."""
    return lift(POINT).T


@register_answer("ps1_circle_u")
def circle_u() -> sp.Matrix:
    """u = [a^2 + b^2 - r^2, 1, 1, 0, -2a, -2b] of the lecture's circle, a (6, 1) column."""
    return circle_normal(*CENTRE, RADIUS)


@register_answer("ps1_lift_dot_u")
def lift_dot_u() -> sp.Expr:
    """phi(4, 2) . u, the lecture's check that (4, 2) lies on the circle.

    >>> lift_dot_u(), list(circle_u())
    (0, [-4, 1, 1, 0, -2, -4])
    """
    return (lift(POINT) * circle_normal(*CENTRE, RADIUS))[0, 0]
