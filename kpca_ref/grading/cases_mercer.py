"""Hidden case groups of ps3_mercer: Gram matrices, symmetry, PSD tests, counterexamples.

The exact PSD groups include the matrices that defeat the two classic shortcuts:
leading principal minors alone, and rounding to floats.

>>> [g.label for g in BUILDERS["is_psd_exact"]()][-2:]
['nearly singular: floats cannot decide', 'not symmetric, beside a symmetric one']
"""

from __future__ import annotations

import functools

import numpy as np
import sympy as sp

from kpca_probe.functions import asym as _asym
from kpca_probe.functions import asym_shift as _asym_shift
from kpca_probe.functions import k_dist as _k_dist
from kpca_probe.functions import k_neg_rbf as _k_neg_rbf
from kpca_probe.functions import k_one_minus_sq as _k_one_minus_sq
from kpca_probe.functions import k_sqdist as _k_sqdist
from kpca_ref.grading.case_parts import Case, Group, k_linear, k_poly, k_rbf, poly, rbf, rng

__all__ = ["BUILDERS"]


def gram():
    r = rng(111)
    return [
        Group("the RBF kernel", [Case((k_rbf, r.standard_normal((6, 2))))]),
        Group("a polynomial kernel", [Case((functools.partial(k_poly, p=3, c=0.5),
                                            r.standard_normal((5, 3))))]),
        Group("a function that is not symmetric", [Case((_asym, r.standard_normal((5, 2)))),
                                                   Case((_asym_shift, r.standard_normal((4, 1))))]),
        Group("one point", [Case((k_poly, r.standard_normal((1, 3))))]),
        Group("40 points", [Case((k_linear, r.standard_normal((40, 3))))]),
    ]


def _sym(r, n, scale=1.0):
    A = r.standard_normal((n, n))
    return scale * (A + A.T)


def is_symmetric():
    r = rng(112)
    big = _sym(r, 6, 1e8)
    big[0, 3] += 1e-6
    tiny_asym = _sym(r, 5, 3.0)
    tiny_asym[1, 2] += 3e-5
    off = _sym(r, 5, 1e8)
    off[2, 4] += 1e4  # 1e-4 of the scale: far past round-off
    return [
        Group("symmetric matrices, beside one that is not", [
            Case((rbf(*(2 * [r.standard_normal((5, 2))]), 0.5),)), Case((_sym(r, 4, 2.0),)),
            Case((_sym(r, 3, 1.0) + np.triu(r.uniform(0.5, 1.0, (3, 3)), 1),))]),
        Group("clearly not symmetric, beside a symmetric one", [
            Case((r.standard_normal((4, 4)),)), Case((np.array([[1.0, 2.0], [2.5, 1.0]]),)),
            Case((_sym(r, 6, 0.5),))]),
        Group("round-off asymmetry at scale 1e8, beside a real one", [Case((big,)),
                                                                      Case((off,))]),
        Group("the tol argument", [Case((tiny_asym,), {"tol": 1e-3}),
                                   Case((tiny_asym,), {"tol": 1e-7})]),
        Group("a matrix that is not square: ValueError", [
            Case((r.standard_normal((2, 3)),), expect_error=ValueError)]),
    ]


def is_psd():
    r = rng(113)
    low = r.standard_normal((8, 2))
    sq = ((low[:, None, :] - low[None, :, :]) ** 2).sum(axis=2)
    asym = np.array([[2.0, 1.0], [0.0, 3.0]])
    other = r.standard_normal((6, 3))
    a, b = r.uniform(1.0, 3.0, 2)
    skew = np.array([[a, float(r.uniform(1.0, 2.0))], [0.0, b]])
    lin = low @ low.T
    return [
        Group("Gram matrices of valid kernels, beside an indefinite one", [
            Case((rbf(low, low, 0.7),)), Case((poly(low, low, 2),)),
            Case((rbf(other, other, 0.5) - float(r.uniform(0.2, 0.6)) * np.eye(6) * 3,))]),
        Group("clearly indefinite matrices, beside a kernel's", [
            Case((sq,)), Case((np.array([[1.0, 2.0], [2.0, 1.0]]),)),
            Case((poly(other, other, 2, 0.5),))]),
        Group("singular PSD with round-off, beside one shifted below 0", [
            Case((lin,)), Case((1e8 * lin,)),
            Case((lin - 0.1 * float(np.trace(lin)) / len(lin) * np.eye(len(lin)),))]),
        Group("matrices that are not symmetric, beside a symmetric one", [
            Case((asym,)), Case((asym + 0.5 * np.eye(2),)), Case((skew,)),
            Case(((skew + skew.T) / 2 + float(r.uniform(1.0, 2.0)) * np.eye(2),))]),
    ]


def _rational(r, low, high, den=9):
    return sp.Rational(int(r.integers(low * den, high * den + 1)), den)


def is_psd_exact():
    R = sp.Rational
    r = rng(114)
    v = sp.Matrix([[1, 2, 0, -1], [0, 1, 1, 1]])
    w = sp.Matrix(2, 3, [int(e) for e in r.integers(-3, 4, 6)])
    w[0, 0] = int(r.integers(1, 4))  # a non-zero row: w^T w is not the zero matrix
    p, q = _rational(r, 1, 3), _rational(r, 1, 3)
    near = R(1, 10 ** int(r.integers(18, 25)))
    c = int(r.integers(1, 6))
    e = _rational(r, 1, 3)
    return [
        Group("positive definite rational matrices, beside one that is not", [
            Case((sp.Matrix([[2, R(1, 3)], [R(1, 3), 1]]),)),
            Case((v.T * v + sp.eye(4) / 5,)), Case((sp.Matrix([[1 + p, e / 2], [e / 2, 1 + q]]),)),
            Case((sp.Matrix([[p, p + q], [p + q, q]]),))]),
        Group("singular PSD matrices, beside a singular one that is not", [
            Case((v.T * v,)), Case((sp.eye(3) - sp.ones(3, 3) / 3,)),
            Case((sp.Matrix([[0, 0, 0], [0, 2, 1], [0, 1, 1]]),)), Case((w.T * w,)),
            Case((sp.Matrix([[-p, e], [e, -e**2 / p]]),))]),  # eigenvalues 0 and below 0
        Group("matrices that are not PSD, beside one that is", [
            Case((sp.Matrix([[0, 0], [0, -1]]),)), Case((sp.Matrix([[1, 2], [2, 1]]),)),
            Case((sp.Matrix([[0, 1, 4], [1, 0, 1], [4, 1, 0]]),)),
            Case((w.T * w - sp.diag(0, 0, (w.T * w)[2, 2] + q),)),  # a negative diagonal
            Case((w.T * w + p * sp.eye(3),))]),
        Group("nearly singular: floats cannot decide", [
            Case((sp.Matrix([[1, 1], [1, 1 - R(1, 10**20)]]),)),
            Case((sp.Matrix([[1, 1], [1, 1 + R(1, 10**20)]]),)),
            Case((c * sp.Matrix([[1, 1], [1, 1 - near]]),)),
            Case((c * sp.Matrix([[1, 1], [1, 1 + near]]),))]),
        Group("not symmetric, beside a symmetric one", [
            Case((sp.Matrix([[2, 1], [0, 2]]),)), Case((sp.Matrix([[2, p], [0, 2]]),)),
            Case((sp.Matrix([[2, p / 2], [p / 2, 2]]),))]),
    ]


def find_counterexample():
    # every group holds functions that are kernels (answer None) and functions that are
    # not (answer points): no one answer, None or fixed points, passes a group (minus an
    # RBF kernel, refuted by any point at all, is no case of this student's own)
    r = rng(115)

    def d():
        return int(r.integers(1, 5))

    def seed():
        return int(r.integers(0, 1000))

    def kernel():
        # pairs of points in R^3 or R^4 under the linear kernel: a Gram matrix of full rank,
        # whose least eigenvalue no round-off takes below 0 (a search that calls any
        # negative eigenvalue a counterexample answers it right, for every draw)
        return Case((k_linear, int(r.integers(3, 5))), {"max_points": 2, "seed": seed()})

    return [
        Group("the squared distance ||x - y||^2, beside a kernel", [
            Case((_k_sqdist, 2)), Case((_k_sqdist, 1), {"max_points": 3}),
            Case((_k_sqdist, d()), {"seed": seed()}), kernel()]),
        Group("functions that are not symmetric, beside a kernel", [
            Case((_asym, 2)), Case((_asym_shift, 1)), Case((_asym, d()), {"seed": seed()}),
            kernel()]),
        Group("symmetric functions that are not PSD, beside a kernel", [
            Case((_k_neg_rbf, 2)), Case((_k_dist, 3)), Case((_k_one_minus_sq, 2)),
            Case((_k_dist, d()), {"seed": seed()}), kernel()]),
        Group("valid kernels (no counterexample exists), beside a function that is not", [
            Case((k_rbf, 2)), Case((k_poly, 3)), Case((k_linear, 2), {"max_points": 6}),
            Case((k_rbf, d()), {"seed": seed()}), Case((_k_dist, d()), {"seed": seed()})]),
        Group("other seeds and budgets", [Case((_k_sqdist, 3), {"max_points": 2, "seed": 5}),
                                          Case((_k_neg_rbf, 1), {"seed": 11}),
                                          Case((_k_one_minus_sq, d()), {"seed": seed()}),
                                          kernel()]),
    ]


BUILDERS = {
    "gram": gram,
    "is_symmetric": is_symmetric,
    "is_psd": is_psd,
    "is_psd_exact": is_psd_exact,
    "find_counterexample": find_counterexample,
}
