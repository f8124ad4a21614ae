"""Hidden case groups of ps4 (centring in feature space).

The centring functions are graded on random kernel matrices, up to n = 300, with entries of
size 1e6, rank-deficient ones, and exact sympy input built on the lecture's kernel
``k(x, y) = xy + (xy)^2``; a matrix that is not square, or shapes that do not fit, raise
ValueError. Results made by products and quotients only are compared entry by entry
(:data:`ENTRYWISE`). :mod:`kpca_ref.grading.cases_kpca` holds ps5's and the table of both.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from kpca_ref.grading.case_parts import Case, Group, poly, rbf, rng
from kpca_ref.tolerances import GRADING_ENTRYWISE_ATOL_SCALE

__all__ = ["BUILDERS", "ENTRYWISE"]

#: results computed by products and quotients only are compared entry by entry
ENTRYWISE = {"atol_scale": GRADING_ENTRYWISE_ATOL_SCALE}


def _exact_kernel(xs, ys):
    """The lecture's kernel k(x, y) = xy + (xy)^2 on scalars, exactly."""
    return sp.Matrix(len(xs), len(ys), lambda i, j: xs[i] * ys[j] + (xs[i] * ys[j]) ** 2)


def centring_matrix():
    # entries 1 - 1/n and -1/n: compared one by one, so that an n - 1 divisor shows
    # at n = 300 too (it moves the -1/n entries by 1/299 of themselves)
    r = rng(200)
    small = [int(n) for n in r.choice(np.arange(3, 21), size=3, replace=False)]
    return [
        Group("the smallest case n = 2, beside a larger n", [
            Case((2,), **ENTRYWISE), Case((int(r.integers(21, 40)),), **ENTRYWISE)]),
        Group("small n", [Case((n,), **ENTRYWISE) for n in small]),
        Group("n up to 300", [Case((300,), **ENTRYWISE),
                              Case((int(r.integers(40, 300)),), **ENTRYWISE)]),
        Group("n < 2 raises ValueError", [Case((1,), expect_error=ValueError),
                                          Case((0,), expect_error=ValueError)]),
        Group("an n that is not an integer raises TypeError", [
            Case((3.0,), expect_error=TypeError), Case((True,), expect_error=TypeError)]),
    ]


def _not_square():
    """A non-square K raises ValueError, numpy and sympy alike (the notebook says so)."""
    return Group("a non-square K raises ValueError", [
        Case((np.ones((2, 3)),), expect_error=ValueError),
        Case((sp.ones(3, 2),), expect_error=ValueError)])


def centre_kernel():
    r = rng(201)
    X = r.standard_normal((5, 2))
    low = r.standard_normal((9, 2))
    R = sp.Rational
    pts = sp.Matrix(4, 2, [R(int(v), 2) for v in r.integers(-6, 7, 8)])
    xs = [R(int(v), 2) for v in r.choice(np.arange(-6, 7), size=4, replace=False)]
    return [
        Group("the lecture's examples, and its kernel on other points", [
            Case((np.array([[2.0, 1.0], [1.0, 2.0]]),)),
            Case((np.array(_exact_kernel([-1, 0, 1], [-1, 0, 1]), dtype=float),)),
            Case((np.array(_exact_kernel(xs, xs), dtype=float),))]),
        Group("random kernel matrices", [Case((rbf(X, X, 0.9),)),
                                         Case((poly(low[:8], low[:8], 2, 0.5),))]),
        Group("n up to 300", [Case((rbf(*(2 * [r.standard_normal((300, 3))]), 0.3),))]),
        Group("kernel entries of size 1e6", [Case((1e6 * poly(X, X, 3),))]),
        Group("rank-deficient (linear kernel, d < n)", [Case((low @ low.T,))]),
        Group("exact sympy input", [Case((_exact_kernel([-2, 1, 3], [-2, 1, 3]),)),
                                    Case((pts * pts.T / 3,)), Case((_exact_kernel(xs, xs),))]),
        _not_square(),
    ]


def _new_case(r, m, n, kernel="rbf", scale=1.0):
    X, Xn = r.standard_normal((n, 2)), r.standard_normal((m, 2))
    if kernel == "rbf":
        return Case((scale * rbf(Xn, X, 0.7), scale * rbf(X, X, 0.7)))
    return Case((scale * poly(Xn + 1, X + 1, 2), scale * poly(X + 1, X + 1, 2)))


def centre_new():
    r = rng(202)
    X = r.standard_normal((6, 2))
    K = poly(X, X, 2)
    train = [-2, 1, 3]
    half, four = sp.Rational(1, 2), sp.Integer(4)
    own = [sp.Rational(int(v), 3) for v in r.choice(np.arange(-9, 10), size=5, replace=False)]
    return [
        Group("random kernel matrices", [_new_case(r, 3, 5), _new_case(r, 2, 6, "poly")]),
        Group("a single new point", [_new_case(r, 1, 4), _new_case(r, 1, 7, "poly")]),
        Group("new points equal to the training points", [Case((K.copy(), K))]),
        Group("n up to 300", [_new_case(r, 40, 300)]),
        Group("kernel entries of size 1e6", [_new_case(r, 3, 8, "poly", 1e6)]),
        Group("exact sympy input", [
            Case((_exact_kernel([half, four], train), _exact_kernel(train, train))),
            Case((_exact_kernel([sp.Integer(-1)], train), _exact_kernel(train, train))),
            Case((_exact_kernel(own[3:], own[:3]), _exact_kernel(own[:3], own[:3])))]),
        Group("shapes that do not fit raise ValueError", [
            Case((np.ones((2, 3)), np.ones((3, 2))), expect_error=ValueError),
            Case((np.ones((2, 2)), np.ones((3, 3))), expect_error=ValueError),
            Case((sp.ones(1, 2), sp.ones(3, 3)), expect_error=ValueError)]),
    ]


def feature_mean_sq_norm():
    r = rng(203)
    X = r.standard_normal((7, 3))
    return [
        Group("random kernel matrices", [Case((rbf(X, X, 0.5),)), Case((poly(X, X, 2),))]),
        Group("the linear kernel", [Case((X @ X.T,))]),
        Group("kernel entries of size 1e6", [Case((1e6 * poly(X[:4], X[:4], 3),))]),
        Group("one point, and two", [Case((np.array([[2.5]]),)),
                                     Case((np.array([[float(r.uniform(1.0, 4.0))]]),)),
                                     Case((rbf(X[:2] * 3, X[:2] * 3, 0.2),))]),
        _not_square(),
    ]


def distances_to_mean():
    r = rng(204)
    X = r.standard_normal((8, 2))
    low = r.standard_normal((10, 2))
    return [
        Group("random kernel matrices", [Case((rbf(X, X, 0.8),))]),
        Group("polynomial kernels", [Case((poly(X, X, 3, 0.5),))]),
        Group("kernel entries of size 1e6", [Case((1e6 * rbf(X, X, 0.3),))]),
        Group("rank-deficient (linear kernel, d < n)", [Case((low @ low.T,))]),
        _not_square(),
    ]


BUILDERS = {
    "centring_matrix": centring_matrix,
    "centre_kernel": centre_kernel,
    "centre_new": centre_new,
    "feature_mean_sq_norm": feature_mean_sq_norm,
    "distances_to_mean": distances_to_mean,
}
