"""ps1_circle_lift: each student's three points, circle and point near it.

The lecture's self-test (notes 10-12, Q1): the circle with centre (1, 2) and radius 3 and
its point (4, 2), with ``phi(4, 2) . u = 0``; the problem set adds three points of that
circle, (4, 2), (1, 5), (-2, 2), whose variances along the principal directions (6 and 2,
dividing by n = 3) are found by hand.

Families:

``triple``
    three lattice points ``N.P1, N.P2, N.P3`` (1 x 2 rows) whose covariance matrix
    (divisor 3) has rational eigenvalues; one triple per distinct pair of variances, so
    no two candidates share an answer, and none has its mean at the origin (where
    forgetting to centre changes nothing).
``circle``
    a circle with integer centre ``(N.a, N.b)`` and radius ``N.r``, and a lattice point
    ``N.Q`` near it, never on it: ``phi(Q) . u`` is the power of the point, negative
    inside the circle and positive outside. No centre is the origin, where the sign of
    the centre's entries in ``u`` would not show.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import sympy as sp

from kpca_ref.circle import circle_normal, lift
from kpca_ref.exact import eigvals_exact

PS = "ps1_circle_lift"
FAMILIES = {"triple": 100, "circle": 100}
LECTURE = {
    "triple": {"P1": [[4, 2]], "P2": [[1, 5]], "P3": [[-2, 2]]},
    "circle": {"a": 1, "b": 2, "r": 3, "Q": [[4, 2]]},
}
ITEMS = {
    "ps1_three_point_variances": ("triple",),
    "ps1_lift_point": ("circle",),
    "ps1_circle_u": ("circle",),
    "ps1_lift_dot_u": ("circle",),
}
UP_TO_SIGN = frozenset()
#: largest denominator in any number or answer: ninths, as in the lecture's covariance
NICE = {"denominator": 9}


def _variances(points) -> tuple[Fraction, Fraction] | None:
    """Covariance eigenvalues (divisor 3) of three points when rational and distinct."""
    xs, ys = [3 * p[0] for p in points], [3 * p[1] for p in points]
    mx, my = sum(xs) // 3, sum(ys) // 3
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    trace, det = sxx + syy, sxx * syy - sxy * sxy
    disc = trace * trace - 4 * det
    root = int(disc ** 0.5 + 0.5) if disc >= 0 else -1
    while root > 0 and root * root > disc:
        root -= 1
    if det == 0 or root <= 0 or root * root != disc:
        return None
    return Fraction(trace + root, 54), Fraction(trace - root, 54)  # coordinates x3: /9, /n


def _triples() -> list[dict]:
    lecture = _variances([(4, 2), (1, 5), (-2, 2)])
    grid = [(x, y) for x in range(-4, 6) for y in range(-3, 6)]
    by_pair: dict = {}
    for triple in itertools.combinations(grid, 3):
        found = _variances(triple)
        centred = sum(x for x, _ in triple) == 0 and sum(y for _, y in triple) == 0
        # a triple whose mean is the origin has the same variances uncentred: forgetting to
        # centre would earn the item
        if found is not None and found != lecture and not centred:
            by_pair.setdefault(found, []).append(triple)
    chosen = []
    for k, pair in enumerate(sorted(by_pair)):  # one triple per pair, spread over the grid
        options = by_pair[pair]
        t = options[(7919 * k + 13) % len(options)]
        t = t[k % 3:] + t[:k % 3]  # and not always the leftmost point first
        chosen.append({"P1": [list(t[0])], "P2": [list(t[1])], "P3": [list(t[2])]})
    return chosen


def _mistakes_show(a: int, b: int, q1: int, q2: int) -> bool:
    """Whether ``phi(Q) . u`` of a wrong ``u`` or a wrong lift differs from the right one.

    The sign slip in ``u`` (+2a, +2b) changes it by ``4 (a q1 + b q2)``; a lift in degree
    order ``[1, q1, q2, q1^2, q2^2, q1 q2]`` against the right ``u`` changes it unless the
    two orders happen to agree. Where either change is 0, the wrong work would earn the item.
    """
    right = q1 * q1 + q2 * q2 - 2 * a * q1 - 2 * b * q2
    degree_order = q1 + q2 - 2 * a * q2 * q2 - 2 * b * q1 * q2
    return a * q1 + b * q2 != 0 and degree_order != right


def _circles() -> list[dict]:
    offsets = [(dx, dy) for dx in range(-3, 4) for dy in range(-3, 4) if (dx, dy) != (0, 0)]
    found = []
    for a, b, r in itertools.product(range(-2, 4), range(-2, 4), (2, 3, 4, 5)):
        if (a, b, r) == (1, 2, 3) or (a, b) == (0, 0):
            # the lecture's circle; a centre at the origin makes u the same with +2a, +2b
            continue
        usable = [o for o in offsets if o[0] ** 2 + o[1] ** 2 != r * r
                  and (a + o[0], b + o[1]) not in ((4, 2), (0, 0), (0, 1), (1, 0), (1, 1))
                  and _mistakes_show(a, b, a + o[0], b + o[1])]
        # nobody's point: the lecture's, the origin (the lift's visible check shows its
        # lift), and points whose coordinates equal their squares (their lift reads the same
        # in any column order, which would hide a wrong order)
        dx, dy = usable[(7 * len(found)) % len(usable)]
        found.append({"a": a, "b": b, "r": r, "Q": [[a + dx, b + dy]]})
    return found


def candidates() -> dict[str, list[dict]]:
    """The candidates of both families, in draw order."""
    return {"triple": _triples(), "circle": _circles()}


def _three_points(n) -> sp.Matrix:
    return sp.Matrix.vstack(n.P1, n.P2, n.P3)


def answers(n) -> dict:
    """The exact answers of one student's numbers ``n``."""
    points = _three_points(n)
    centred = points - sp.ones(3, 1) * (sp.ones(1, 3) * points) / 3
    covariance = centred.T * centred / 3
    u = circle_normal(n.a, n.b, n.r)
    return {
        "ps1_three_point_variances": eigvals_exact(covariance),
        "ps1_lift_point": lift(n.Q).T,
        "ps1_circle_u": u,
        "ps1_lift_dot_u": (lift(n.Q) * u)[0, 0],
    }


def float_answers(n) -> dict:
    """The same answers by the float route: numpy's covariance and kpca_ref's float lift."""
    points = np.array([[float(v) for v in p] for p in (n.P1, n.P2, n.P3)])
    variances = np.linalg.eigvalsh(np.cov(points.T, bias=True))[::-1]
    q = np.array([[float(v) for v in n.Q]])
    u = circle_normal(float(n.a), float(n.b), float(n.r))
    return {
        "ps1_three_point_variances": variances,
        "ps1_lift_point": lift(q)[0],
        "ps1_circle_u": u,
        "ps1_lift_dot_u": float(lift(q)[0] @ u),
    }


def mistakes(n) -> dict:
    """Values the lecture's classic mistakes give on these numbers."""
    points = _three_points(n)
    raw = points.T * points / 3  # forgot to centre: the first step of every PCA
    sample = answers(n)["ps1_three_point_variances"] * sp.Rational(3, 2)
    u_wrong_sign = circle_normal(n.a, n.b, n.r).copy()
    u_wrong_sign[4:, 0] = -u_wrong_sign[4:, 0]
    return {
        "ps1_three_point_variances": [
            ("not_centred", ("these are the variances of the points before centring: "
                             "subtract the mean first"), eigvals_exact(raw)),
            ("variance_divisor", "this divides by n - 1 = 2; this problem set divides by n = 3",
             sample),
        ],
        "ps1_circle_u": [
            ("sign_of_centre", "the last two entries are -2a and -2b (with a minus sign)",
             u_wrong_sign),
        ],
    }
