"""Hidden case groups of ps2_feature_maps: counts, explicit maps, kernels, gamma.

``poly_feature_map`` cases are batches of calls: the coordinate order is free,
so the grader compares the Gram matrix of the mapped points.

>>> [len(g.cases[0].batch) for g in BUILDERS["poly_feature_map"]()]
[6, 5, 4, 4]
"""

from __future__ import annotations

import functools
import math

import numpy as np

from kpca_ref.grading.case_parts import Case, Group, k_linear, k_poly, k_rbf, rng
from kpca_ref.tolerances import GRADING_ATOL_SCALE, GRADING_ENTRYWISE_ATOL_SCALE

__all__ = ["BUILDERS"]


def _count_groups():
    r = rng(100)

    def cases(pairs):
        return [Case(pair) for pair in pairs]

    def draw(d_low, d_high, p_low, p_high):
        # a (d, p) of this student's own, in a range none of the fixed pairs is in
        return int(r.integers(d_low, d_high + 1)), int(r.integers(p_low, p_high + 1))

    return [
        Group("the lecture's table", cases([(2, 2), (4, 3), (10, 3), draw(11, 20, 2, 4)])),
        Group("small d and p", cases([(3, 1), (5, 2), (6, 4), (1, 1), draw(7, 9, 2, 5)])),
        Group("p larger than d", cases([(2, 5), (3, 7), (1, 4), draw(4, 6, 8, 12)])),
        Group("large d", cases([(1000, 3), (500, 4), (100, 5), draw(1001, 2000, 2, 5)])),
        Group("p = 0, beside a p > 0", cases([(7, 0), (1, 0), draw(21, 40, 2, 6)])),
    ]


def quadratic_map():
    r = rng(106)
    # products only: each coordinate carries its own relative round-off
    entrywise = {"atol_scale": GRADING_ENTRYWISE_ATOL_SCALE}
    return [
        Group("small points", [Case((np.array([2.0, -1.0]),), **entrywise),
                               Case((np.array([-3.0, 0.5]),), **entrywise),
                               Case((r.integers(-4, 5, 2) / 2.0 + 0.25,), **entrywise)]),
        Group("random points", [Case((r.standard_normal(2),), **entrywise) for _ in range(4)]),
        Group("large and small coordinates", [Case((1e4 * r.standard_normal(2),), **entrywise),
                                              Case((1e-4 * r.standard_normal(2),), **entrywise)]),
        Group("the zero vector, and a point on an axis", [
            Case((np.zeros(2),), **entrywise),
            Case((np.roll([float(r.uniform(0.5, 3.0)), 0.0], int(r.integers(2))),), **entrywise)]),
    ]


def _map_case(r, m, d, p, c=None):
    kw = {} if c is None else {"c": c}
    return Case(batch=[((r.standard_normal(d), p), dict(kw)) for _ in range(m)])


def poly_feature_map():
    r = rng(107)
    return [
        Group("d = 2, p = 2 (the lecture's kernel)", [_map_case(r, 6, 2, 2)]),
        Group("d = 3, p = 3, c = 2", [_map_case(r, 5, 3, 3, 2.0)]),
        Group("d = 1 and d = 4", [_map_case(r, 4, 1, 5, 0.5), _map_case(r, 5, 4, 2, 1.0)]),
        Group("degree 1 and larger constants", [_map_case(r, 4, 3, 1, 3.0),
                                                _map_case(r, 4, 2, 4, 2.5)]),
    ]


def rbf_features_1d():
    r = rng(120)
    # products and quotients only: each coordinate carries its own relative round-off
    entrywise = {"atol_scale": GRADING_ENTRYWISE_ATOL_SCALE}

    def x(low, high):
        return float(r.choice([-1, 1]) * r.uniform(low, high))

    return [
        Group("gamma = 0.5 (sigma = 1)", [Case((x(0.3, 1.5), int(r.integers(4, 9))), **entrywise),
                                          Case((x(0.3, 1.5), int(r.integers(2, 6))), **entrywise)]),
        Group("other gammas", [
            Case((x(0.2, 0.8), int(r.integers(5, 9))), {"gamma": float(r.uniform(1.0, 3.0))},
                 **entrywise),
            Case((x(1.0, 2.5), int(r.integers(3, 7))), {"gamma": float(r.uniform(0.05, 0.3))},
                 **entrywise)]),
        Group("many terms", [Case((x(1.2, 2.0), int(r.integers(20, 31))), **entrywise)]),
        Group("x = 0 and one term", [Case((0.0, int(r.integers(3, 8))), **entrywise),
                                     Case((x(0.5, 1.5), 1), {"gamma": float(r.uniform(0.1, 0.6))},
                                          **entrywise)]),
    ]


def poly_kernel():
    r = rng(108)
    X = r.standard_normal((5, 3))
    return [
        Group("small random point sets", [Case((r.standard_normal((4, 2)),
                                                r.standard_normal((3, 2)), 2)),
                                          Case((r.standard_normal((3, 3)),
                                                r.standard_normal((5, 3)), 3), {"c": 0.5})]),
        Group("Y equal to X", [Case((X, X.copy(), 2), {"c": 1.0})]),
        Group("n up to 300", [Case((r.standard_normal((300, 5)), r.standard_normal((200, 5)), 3))]),
        Group("large coordinates", [Case((100 * r.standard_normal((6, 2)),
                                          100 * r.standard_normal((4, 2)), 2), {"c": 2.0})]),
        Group("degree 1 with c = 0 (the linear kernel)",
              [Case((r.standard_normal((4, 3)), r.standard_normal((5, 3)), 1), {"c": 0.0})]),
    ]


def rbf_kernel():
    r = rng(109)
    X = r.standard_normal((6, 2))
    dup = r.standard_normal((5, 3))
    dup[3] = dup[1]
    return [
        Group("small random point sets", [Case((r.standard_normal((4, 2)),
                                                r.standard_normal((3, 2)), 0.8)),
                                          Case((r.standard_normal((3, 4)),
                                                r.standard_normal((5, 4)), 0.25))]),
        Group("Y equal to X", [Case((X, X.copy(), 1.3))]),
        Group("n up to 300", [Case((r.standard_normal((300, 4)), r.standard_normal((250, 4)), 0.4))]),
        Group("coordinates of size 1e3 with gamma 1e-6",
              [Case((1e3 * r.standard_normal((6, 2)), 1e3 * r.standard_normal((5, 2)), 1e-6))]),
        Group("coincident points and one dimension",
              [Case((dup, dup.copy(), 0.6)),
               Case((r.standard_normal((4, 1)), r.standard_normal((3, 1)), 2.0))]),
    ]


def _distance_case(k, x, y):
    # the squared distance k(x,x) + k(y,y) - 2 k(x,y) is found by cancellation, with an
    # error up to GRADING_ATOL_SCALE * (|k(x,x)| + |k(y,y)|); its square root near 0 is
    # off by up to the square root of that (float32: sqrt(eps32) = 3.5e-4 of the scale)
    scale = math.sqrt(abs(k(x, x)) + abs(k(y, y)))
    return Case((k, x, y), atol=math.sqrt(GRADING_ATOL_SCALE) * scale)


def _unit(r, d):
    v = r.standard_normal(d)
    return v / np.linalg.norm(v)


def feature_distance():
    r = rng(110)
    x = r.standard_normal(3)
    return [
        Group("the RBF kernel", [_distance_case(k_rbf, r.standard_normal(2), r.standard_normal(2)),
                                 _distance_case(functools.partial(k_rbf, gamma=0.05),
                                                r.standard_normal(3), 4 * r.standard_normal(3))]),
        Group("a polynomial kernel", [_distance_case(k_poly, r.standard_normal(2),
                                                     r.standard_normal(2)),
                                      _distance_case(functools.partial(k_poly, p=3, c=0.5),
                                                     r.standard_normal(4), r.standard_normal(4))]),
        Group("the linear kernel (plain distance)",
              [_distance_case(k_linear, r.standard_normal(5), r.standard_normal(5))]),
        Group("identical points, and close ones", [
            _distance_case(k_poly, x, x.copy()), _distance_case(k_rbf, x, x.copy()),
            _distance_case(k_rbf, x, x + r.uniform(0.2, 0.5) * _unit(r, 3))]),
    ]


def gamma_for_similarity():
    r = rng(121)

    def u(low, high):
        return float(r.uniform(low, high))

    return [
        Group("moderate distances and similarities", [
            Case((u(1.0, 2.0), u(0.2, 0.4))), Case((u(2.5, 3.5), u(0.7, 0.9))),
            Case((u(0.5, 0.9), u(0.02, 0.08)))]),
        Group("similarity close to 1", [Case((u(0.3, 0.7), 1 - u(5e-7, 2e-6))),
                                        Case((u(1.5, 2.5), 1 - u(5e-5, 2e-4)))]),
        Group("similarity close to 0", [Case((u(2.0, 3.0), u(0.5e-12, 2e-12)))]),
        Group("large and small distances", [Case((u(5e2, 2e3), u(0.4, 0.6))),
                                            Case((u(5e-4, 2e-3), u(0.2, 0.3)))]),
        # the notebook requires a ValueError when no positive gamma exists
        Group("no positive gamma: ValueError",
              [Case(args, expect_error=ValueError)
               for args in ((0.0, 0.5), (-1.0, 0.5), (1.0, 1.0), (1.0, 0.0), (2.0, 1.5))]),
    ]


BUILDERS = {
    "count_distinct_products": _count_groups,
    "count_monomials": _count_groups,
    "quadratic_map": quadratic_map,
    "poly_feature_map": poly_feature_map,
    "rbf_features_1d": rbf_features_1d,
    "poly_kernel": poly_kernel,
    "rbf_kernel": rbf_kernel,
    "feature_distance": feature_distance,
    "gamma_for_similarity": gamma_for_similarity,
}
