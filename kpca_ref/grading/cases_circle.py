"""Hidden case groups of ps1_circle_lift: variance shares, the lift, the circle.

Each builder returns a fresh list of :class:`~kpca_ref.grading.case_parts.Group`.
Inputs come from :func:`~kpca_ref.grading.case_parts.rng` with a key per builder;
the lecture's own numbers appear at most in one group, never alone.

>>> [g.label for g in BUILDERS["lift"]()]
['points of a circle', 'random points', 'large and small coordinates', 'a single point as a (1, 2) array']
"""

from __future__ import annotations

import math

import numpy as np

from kpca_ref.grading.case_parts import Case, Group, on_circle, rng
from kpca_ref.tolerances import GRADING_ATOL_SCALE, GRADING_CIRCLE_ATOL_SCALE

__all__ = ["BUILDERS"]


def _cloud(r, n, sx, sy, angle, shift=(0.0, 0.0)):
    c, s = math.cos(angle), math.sin(angle)
    pts = r.standard_normal((n, 2)) * [sx, sy]
    return pts @ np.array([[c, s], [-s, c]]) + np.asarray(shift)


def variance_shares():
    r = rng(101)
    line_t = r.uniform(-3, 3, 9)
    return [
        Group("points on a circle", [Case((on_circle(r, -2.5, 4.0, 1.7, 40),)),
                                     Case((on_circle(r, 10.0, -3.0, 0.4, 12),))]),
        Group("random point clouds", [Case((_cloud(r, 5, 1.0, 0.5, 0.3),)),
                                      Case((_cloud(r, 20, 2.0, 1.5, -1.0, (4, 1)),))]),
        Group("n up to 300, elongated clouds", [Case((_cloud(r, 300, 5.0, 0.2, 1.1, (2, -1)),))]),
        Group("coordinates of size 1e6",
              [Case((1e6 * _cloud(r, 50, 1.0, 0.3, -0.4) + 3e6,))]),
        Group("points on a line", [Case((np.column_stack([3 + line_t, -1 + 2 * line_t]),))]),
    ]


def _shares(r, k):
    return np.sort(r.dirichlet(np.ones(k) * 0.7))[::-1]


def _clear(shares, t):
    return all(abs(c - t) > 1e-6 for c in np.cumsum(shares).tolist())


def _many(r):
    """Shares of 8 to 12 components that need at least 3 of them for 95%: beside two shares,
    an answer that only knows 1 and 2 fails."""
    while True:
        s = np.sort(r.uniform(0.5, 1.5, int(r.integers(8, 13))))[::-1]
        s = s / s.sum()
        if _clear(s, 0.95):
            return Case((s,))


def _reached_exactly(r):
    """Dyadic shares (sums exact in binary) of this student's own, with the threshold one of
    their partial sums of 3 or more terms: the count is 3 or more and differs per draw."""
    k = int(r.integers(5, 9))
    parts = r.integers(1, 9, k).astype(float)
    parts = np.sort(parts * (64.0 / parts.sum()))[::-1]
    parts = np.floor(parts)
    parts[0] += 64.0 - parts.sum()
    s = np.sort(parts)[::-1] / 64.0
    needed = int(r.integers(3, k))
    return Case((s,), {"threshold": float(np.cumsum(s)[needed - 1])})


def components_needed():
    r = rng(102)
    several, others = [], []
    while len(several) < 3:
        s = _shares(r, int(r.integers(3, 9)))
        if _clear(s, 0.95):
            several.append(Case((s,)))
    for t in (0.5, 0.8, 0.99):
        s = _shares(r, 6)
        while not _clear(s, t):
            s = _shares(r, 6)
        others.append(Case((s,), {"threshold": t}))
    dyadic = np.array([0.5, 0.25, 0.125, 0.125])
    return [
        Group("two shares and the 95% rule", [Case((np.array([0.56, 0.44]),)),
                                              Case((np.array([0.97, 0.03]),)), _many(r)]),
        Group("several components, default threshold", several),
        Group("other thresholds", others),
        Group("threshold reached exactly", [
            Case((dyadic,), {"threshold": 0.75}), Case((dyadic,), {"threshold": 0.875}),
            Case((np.array([0.75, 0.25]),), {"threshold": 0.75}), _reached_exactly(r)]),
    ]


def lift():
    r = rng(103)
    cols = {"per_column": True}
    return [
        Group("points of a circle", [Case((on_circle(r, 2.5, -1.0, 1.5, 4),), **cols)]),
        Group("random points", [Case((r.standard_normal((7, 2)),), **cols),
                                Case((3 * r.standard_normal((30, 2)),), **cols)]),
        Group("large and small coordinates", [Case((1e3 * r.standard_normal((6, 2)),), **cols),
                                              Case((1e-3 * r.standard_normal((6, 2)),), **cols)]),
        Group("a single point as a (1, 2) array", [Case((np.array([[-0.75, 2.5]]),), **cols),
                                                   Case((r.uniform(-3, 3, (1, 2)),), **cols)]),
    ]


def _normal_case(a, b, radius):
    # each entry's floor is relative to the numbers it is computed from: a^2 + b^2 - r^2
    # may cancel, so its round-off scales with a^2 + b^2 + r^2 (float32 included)
    atol = GRADING_ATOL_SCALE * np.array([a * a + b * b + radius * radius, 1, 1, 1,
                                          2 * abs(a) + 1, 2 * abs(b) + 1])
    return Case((a, b, radius), atol=atol)


def circle_normal():
    r = rng(104)
    rand = [_normal_case(*r.uniform(-5, 5, 2).tolist(), float(r.uniform(0.5, 4))) for _ in range(4)]
    return [
        Group("circles near the origin", [_normal_case(0.5, -1.5, 2.0), _normal_case(0, 0, 1),
                                          _normal_case(-2, 3, 5),
                                          _normal_case(*r.uniform(-1, 1, 2).tolist(),
                                                       float(r.uniform(0.5, 2)))]),
        Group("random circles", rand),
        Group("circles far from the origin", [_normal_case(1e3, -2e3, 3.0),
                                              _normal_case(-4.5e4, 1.2e4, 250.0),
                                              _normal_case(*(r.choice([-1, 1], 2) * r.uniform(
                                                  1e3, 5e4, 2)).tolist(),
                                                  float(r.uniform(1.0, 300.0)))]),
    ]


def _circle_case(r, a, b, radius, n, noise=0.0):
    X = on_circle(r, a, b, radius, n) + noise * radius * r.standard_normal((n, 2))
    # floor GRADING_CIRCLE_ATOL_SCALE * max(|a|, |b|, r): the lift of a circle far from
    # the origin is ill-conditioned, and the contract's algorithm run in float32 is off
    # by about 2e-5 of the circle's size there (see kpca_ref.tolerances)
    return Case((X,), atol_scale=GRADING_CIRCLE_ATOL_SCALE)


def recover_circle():
    r = rng(105)
    return [
        Group("exact points on a circle", [_circle_case(r, -1.5, 0.5, 2.2, 5),
                                           _circle_case(r, 3.0, 2.0, 0.7, 9)]),
        Group("points with tiny noise", [_circle_case(r, 0.8, -2.4, 3.1, 30, 1e-10)]),
        Group("circle far from the origin", [_circle_case(r, 400.0, -300.0, 20.0, 12),
                                             _circle_case(r, -200.0, 300.0, 25.0, 8)]),
        Group("large and small circles", [_circle_case(r, 0.0, 1e4, 5e3, 10),
                                          _circle_case(r, 1e-3, 2e-3, 5e-3, 7)]),
    ]


BUILDERS = {
    "variance_shares": variance_shares,
    "components_needed": components_needed,
    "lift": lift,
    "circle_normal": circle_normal,
    "recover_circle": recover_circle,
}
