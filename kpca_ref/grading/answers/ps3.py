"""Exact answers of ps3_mercer, computed by kpca_ref from the lecture's numbers.

The lecture's self-test (notes 10-12, Q5) shows that the squared distance
``||x - x'||^2`` is not a kernel: two points at squared distance ``c`` give the
Gram matrix ``[[0, c], [c, 0]]`` with eigenvalues ``c`` and ``-c``. The problem set
uses the two points of Q3, (1, 2) and (3, -1), so ``c = 13``. Lecture 002 adds that
the RBF kernel needs ``gamma > 0``: with ``gamma = -1`` the scalars 0 and 1 give the
eigenvalue ``1 - e``. The ten verdicts (one answer each, ``ps3_verdict_<name>``)
come from the reference counterexample search; each candidate also names the
textbook reason for its verdict.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from kpca_ref.grading.answers import register_answer
from kpca_ref.mercer import find_counterexample, gram

#: the two points of the lecture's Q3, one per row
Q3_POINTS = sp.Matrix([[1, 2], [3, -1]])
#: two scalars at squared distance 1, one per row
UNIT_PAIR = sp.Matrix([[0], [1]])


def _sq_dist(x, y):
    return sum((a - b) ** 2 for a, b in zip(x, y))


def _eigenvalues_descending(K: sp.Matrix) -> sp.Matrix:
    values = K.eigenvals(multiple=True)
    return sp.Matrix(sorted(values, key=lambda v: sp.N(v, 30), reverse=True))


@register_answer("ps3_dist_gram")
def dist_gram() -> sp.Matrix:
    """Gram matrix of ||x - x'||^2 on (1, 2), (3, -1): [[0, 13], [13, 0]]."""
    return gram(_sq_dist, Q3_POINTS)


@register_answer("ps3_dist_eigenvalues")
def dist_eigenvalues() -> sp.Matrix:
    """Its eigenvalues, largest first, as a (2, 1) column: 13 and -13."""
    return _eigenvalues_descending(dist_gram())


@register_answer("ps3_exp_plus_min_eigenvalue")
def exp_plus_min_eigenvalue() -> sp.Expr:
    """Least eigenvalue of the Gram matrix of exp(+(x - x')^2) on 0 and 1: 1 - e."""
    K = gram(lambda x, y: sp.exp(_sq_dist(x, y)), UNIT_PAIR)
    return _eigenvalues_descending(K)[-1]


def _dot(x, y):
    return float(np.dot(x, y))


#: the ten candidates of Part 7, in the notebook's order:
#: (answer-name suffix, function on float arrays, dimension searched, verdict's reason)
CANDIDATES = (
    ("linear", _dot, 2, "phi(x) = x"),
    ("poly2", lambda x, y: (_dot(x, y) + 1.0) ** 2, 2, "explicit 6-coordinate phi"),
    ("rbf", lambda x, y: float(np.exp(-np.sum((x - y) ** 2))), 2, "RBF with gamma = 1 > 0"),
    ("sq_dist", lambda x, y: float(np.sum((x - y) ** 2)), 2, "eigenvalues c and -c"),
    ("neg_linear", lambda x, y: -_dot(x, y), 2, "k(x, x) = -||x||^2 < 0"),
    ("linear_minus_one", lambda x, y: _dot(x, y) - 1.0, 2, "k(0, 0) = -1 < 0"),
    ("cubic", lambda x, y: _dot(x, y) ** 3, 2, "phi = all degree-3 products"),
    ("exp_plus", lambda x, y: float(np.exp(np.sum((x - y) ** 2))), 2, "eigenvalue 1 - e^c < 0"),
    # min on non-negative scalars, searched as min(|x|, |x'|): the same function composed
    # with x -> |x|, an integral of the indicator features 1[t < x] 1[t < x']
    ("min", lambda x, y: float(min(abs(x[0]), abs(y[0]))), 1, "integral of indicator features"),
    ("asymmetric", lambda x, y: float(x[0] * y[1]), 2, "k((1, 0), (0, 1)) = 1, reversed 0"),
)


def _register_verdict(suffix, k, d, reason):
    def verdict() -> bool:
        return find_counterexample(k, d) is None

    verdict.__qualname__ = verdict.__name__ = f"verdict_{suffix}"
    verdict.__doc__ = f"True when the candidate is a kernel ({reason})."
    register_answer(f"ps3_verdict_{suffix}")(verdict)
    return verdict


#: expected: linear, poly2, rbf, cubic and min are kernels; the other five are not
VERDICTS = tuple(_register_verdict(*candidate) for candidate in CANDIDATES)
