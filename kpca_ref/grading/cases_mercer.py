"""Hidden case groups of ps3_mercer: Gram matrices, symmetry, PSD tests, counterexamples.

The exact PSD groups include the matrices that defeat the two classic shortcuts:
leading principal minors alone, and rounding to floats.

>>> [g.label for g in BUILDERS["is_psd_exact"]()][-2:]
['nearly singular: floats cannot decide', 'not symmetric']
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
    return [
        Group("symmetric matrices", [Case((rbf(*(2 * [r.standard_normal((5, 2))]), 0.5),)),
                                     Case((_sym(r, 4, 2.0),))]),
        Group("clearly not symmetric", [Case((r.standard_normal((4, 4)),)),
                                        Case((np.array([[1.0, 2.0], [2.5, 1.0]]),))]),
        Group("round-off asymmetry at scale 1e8", [Case((big,))]),
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
    return [
        Group("Gram matrices of valid kernels", [Case((rbf(low, low, 0.7),)),
                                                 Case((poly(low, low, 2),))]),
        Group("clearly indefinite matrices", [Case((sq,)),
                                              Case((np.array([[1.0, 2.0], [2.0, 1.0]]),))]),
        Group("singular PSD with round-off", [Case((low @ low.T,)),
                                              Case((1e8 * (low @ low.T),))]),
        Group("matrices that are not symmetric", [Case((asym,)), Case((asym + 0.5 * np.eye(2),))]),
    ]


def is_psd_exact():
    R = sp.Rational
    v = sp.Matrix([[1, 2, 0, -1], [0, 1, 1, 1]])
    return [
        Group("positive definite rational matrices", [
            Case((sp.Matrix([[2, R(1, 3)], [R(1, 3), 1]]),)),
            Case((v.T * v + sp.eye(4) / 5,))]),
        Group("singular PSD matrices", [
            Case((v.T * v,)), Case((sp.eye(3) - sp.ones(3, 3) / 3,)),
            Case((sp.Matrix([[0, 0, 0], [0, 2, 1], [0, 1, 1]]),))]),
        Group("matrices that are not PSD", [
            Case((sp.Matrix([[0, 0], [0, -1]]),)), Case((sp.Matrix([[1, 2], [2, 1]]),)),
            Case((sp.Matrix([[0, 1, 4], [1, 0, 1], [4, 1, 0]]),))]),
        Group("nearly singular: floats cannot decide", [
            Case((sp.Matrix([[1, 1], [1, 1 - R(1, 10**20)]]),)),
            Case((sp.Matrix([[1, 1], [1, 1 + R(1, 10**20)]]),))]),
        Group("not symmetric", [Case((sp.Matrix([[2, 1], [0, 2]]),))]),
    ]


def find_counterexample():
    return [
        Group("the squared distance ||x - y||^2", [Case((_k_sqdist, 2)),
                                                   Case((_k_sqdist, 1), {"max_points": 3})]),
        Group("functions that are not symmetric", [Case((_asym, 2)), Case((_asym_shift, 1))]),
        Group("symmetric functions that are not PSD", [Case((_k_neg_rbf, 2)), Case((_k_dist, 3)),
                                                       Case((_k_one_minus_sq, 2))]),
        Group("valid kernels (no counterexample exists)", [
            Case((k_rbf, 2)), Case((k_poly, 3)), Case((k_linear, 2), {"max_points": 6})]),
        Group("other seeds and budgets", [Case((_k_sqdist, 3), {"max_points": 2, "seed": 5}),
                                          Case((_k_neg_rbf, 1), {"seed": 11})]),
    ]


BUILDERS = {
    "gram": gram,
    "is_symmetric": is_symmetric,
    "is_psd": is_psd,
    "is_psd_exact": is_psd_exact,
    "find_counterexample": find_counterexample,
}
