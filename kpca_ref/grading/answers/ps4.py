"""Exact answers of ps4_centering, computed by kpca_ref from the lecture's numbers.

Two worked examples: the 2 x 2 matrix of the self-test in notes 10-12 (Q8), and the
textbook's training points x = -1, 0, 1 with k(x, y) = xy + (xy)^2 (features (x, x^2)),
together with its new point x* = 2. Column vectors are (n, 1) sympy Matrices.
"""

from __future__ import annotations

import sympy as sp

from kpca_ref.centring import centre_kernel, centre_new, distances_to_mean, feature_mean_sq_norm
from kpca_ref.grading.answers import register_answer

#: the self-test's kernel matrix (notes 10-12, Q8)
K_2X2 = sp.Matrix([[2, 1], [1, 2]])
#: the textbook's training points and new point
TRAIN = (-1, 0, 1)
NEW_POINT = 2


def poly_kernel_xy(x, y) -> sp.Expr:
    """k(x, y) = xy + (xy)^2, the inner product of the features (x, x^2)."""
    t = sp.Integer(x) * sp.Integer(y)
    return t + t**2


def poly_gram() -> sp.Matrix:
    """The (3, 3) kernel matrix of the training points."""
    return sp.Matrix(len(TRAIN), len(TRAIN), lambda i, j: poly_kernel_xy(TRAIN[i], TRAIN[j]))


def new_row() -> sp.Matrix:
    """The (1, 3) raw kernel values between x* = 2 and the training points."""
    return sp.Matrix([[poly_kernel_xy(NEW_POINT, x) for x in TRAIN]])


@register_answer("ps4_centre_2x2")
def centre_2x2() -> sp.Matrix:
    """H K H for K = [[2, 1], [1, 2]]: [[1/2, -1/2], [-1/2, 1/2]]."""
    return centre_kernel(K_2X2)


@register_answer("ps4_poly_K")
def poly_K() -> sp.Matrix:
    """K = diag(2, 0, 2) for x = -1, 0, 1."""
    return poly_gram()


@register_answer("ps4_poly_Kc")
def poly_Kc() -> sp.Matrix:
    """The centred matrix (1/9) [[10, -2, -8], [-2, 4, -2], [-8, -2, 10]]."""
    return centre_kernel(poly_gram())


@register_answer("ps4_poly_grand_mean")
def poly_grand_mean() -> sp.Expr:
    """The grand mean of K, which is the squared length of the feature mean: 4/9."""
    return feature_mean_sq_norm(poly_gram())


@register_answer("ps4_poly_sq_dists")
def poly_sq_dists() -> sp.Matrix:
    """Squared feature-space distances to the mean, a (3, 1) column: (10/9, 4/9, 10/9)."""
    distances = sp.Matrix(distances_to_mean(poly_gram())).reshape(len(TRAIN), 1)
    return distances.applyfunc(lambda d: d**2)


@register_answer("ps4_poly_total_variance")
def poly_total_variance() -> sp.Expr:
    """Population total variance in feature space, tr(K~) / n = 8/9."""
    return centre_kernel(poly_gram()).trace() / len(TRAIN)


@register_answer("ps4_new_k_star")
def new_k_star() -> sp.Matrix:
    """Raw kernel vector of x* = 2, a (3, 1) column: (2, 0, 6)."""
    return new_row().T


@register_answer("ps4_new_row_means")
def new_row_means() -> sp.Matrix:
    """The stored training row means, a (3, 1) column: (2/3, 0, 2/3)."""
    K = poly_gram()
    return K * sp.ones(K.rows, 1) / K.rows


@register_answer("ps4_new_kc_star")
def new_kc_star() -> sp.Matrix:
    """Centred kernel vector of x* = 2, a (3, 1) column: (-8/9, -20/9, 28/9)."""
    return centre_new(new_row(), poly_gram()).T
