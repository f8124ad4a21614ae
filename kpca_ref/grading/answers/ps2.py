"""Exact answers of ps2_feature_maps, computed by kpca_ref from the lecture's numbers.

Notes 10-12, Test-yourself Q3: for x = [1, 2] and x' = [3, -1] the quadratic kernel
(x.x' + 1)^2 equals 4, computed directly and as phi(x).phi(x') with the lecture's map
[a^2, b^2, 1, sqrt2 ab, sqrt2 a, sqrt2 b]. Q4: with d = 3 features up to power 2 the
lecture's tally gives 7 coordinates and all monomials give 10. Exam card "Choosing
gamma": similarity 1/2 at input distance 2 needs gamma = ln(2)/4, and the feature-space
distances d_phi = sqrt(2 - 2K) for input distances 1, 2, 4, 8 follow from it.
"""

from __future__ import annotations

import sympy as sp

from kpca_ref.feature_maps import count_distinct_products, count_monomials, quadratic_map
from kpca_ref.grading.answers import register_answer
from kpca_ref.kernels import feature_distance, gamma_for_similarity, poly_kernel, rbf_kernel

#: the lecture's pair of Q3, one point per row
Q3_X = sp.Matrix([[1, 2]])
Q3_XPRIME = sp.Matrix([[3, -1]])
#: Q4: three features, relationships up to power 2
Q4_D, Q4_P = 3, 2
#: the exam card: similarity 1/2 wanted at input distance 2
CARD_DISTANCE, CARD_SIMILARITY = sp.Integer(2), sp.Rational(1, 2)
#: the card's table of input distances
CARD_DISTANCES = (1, 2, 4, 8)


@register_answer("ps2_count_tally_d3_p2")
def count_tally_d3_p2() -> sp.Integer:
    """The lecture's tally for d = 3, p = 2: 1 + 3 + 3 = 7."""
    return sp.Integer(count_distinct_products(Q4_D, Q4_P))


@register_answer("ps2_count_monomials_d3_p2")
def count_monomials_d3_p2() -> sp.Integer:
    """All monomials of degree <= 2 in 3 features: C(5, 2) = 10."""
    return sp.Integer(count_monomials(Q4_D, Q4_P))


@register_answer("ps2_quad_kernel_direct")
def quad_kernel_direct() -> sp.Expr:
    """(x.x' + 1)^2 for the Q3 pair, computed with the kernel formula: 4."""
    return poly_kernel(Q3_X, Q3_XPRIME, 2)[0, 0]


@register_answer("ps2_quadratic_map_x")
def quadratic_map_x() -> sp.Matrix:
    """phi([1, 2]) = [1, 4, 1, 2 sqrt2, sqrt2, 2 sqrt2] as a (6, 1) column."""
    return quadratic_map(Q3_X.T)


@register_answer("ps2_quadratic_map_xprime")
def quadratic_map_xprime() -> sp.Matrix:
    """phi([3, -1]) = [9, 1, 1, -3 sqrt2, 3 sqrt2, -sqrt2] as a (6, 1) column."""
    return quadratic_map(Q3_XPRIME.T)


@register_answer("ps2_quad_kernel_via_map")
def quad_kernel_via_map() -> sp.Expr:
    """phi(x).phi(x') = 9 + 4 + 1 - 12 + 6 - 4 = 4, the same number as the kernel."""
    return sp.expand(quadratic_map_x().dot(quadratic_map_xprime()))


@register_answer("ps2_gamma_half_at_2")
def gamma_half_at_2() -> sp.Expr:
    """gamma with exp(-gamma 2^2) = 1/2: ln(2)/4."""
    return gamma_for_similarity(CARD_DISTANCE, CARD_SIMILARITY)


@register_answer("ps2_feature_distances_gamma")
def feature_distances_gamma() -> sp.Matrix:
    """d_phi for input distances 1, 2, 4, 8 with gamma = ln(2)/4, a (4, 1) column.

    K = 2^(-d^2/4), so d_phi = sqrt(2 - 2^(3/4)), 1, sqrt(15/8), sqrt(2 - 2^-15).
    """
    gamma = gamma_half_at_2()

    def k(a, b):
        return rbf_kernel(sp.Matrix([[a]]), sp.Matrix([[b]]), gamma)[0, 0]

    return sp.Matrix([feature_distance(k, sp.Integer(0), sp.Integer(t)) for t in CARD_DISTANCES])
