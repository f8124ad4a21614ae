"""Exact answers of ps5_kernel_pca, computed by kpca_ref from the lecture's numbers.

Two worked examples: the exam cards' 3-point example, given by its centred kernel
matrix K_hat = [[5, -3, -2], [-3, 5, -2], [-2, -2, 4]], and the textbook's training
points x = -1, 0, 1 with k(x, y) = xy + (xy)^2 and its new point x* = 2.
Eigenvectors, coefficient vectors and coordinates are registered ``up_to_sign``
(either sign per column). Column vectors are (n, 1) sympy Matrices; the new point's
coordinates are a (1, 2) row, as ``kpca_transform`` returns them.
"""

from __future__ import annotations

import sympy as sp

from kpca_ref.centring import centre_kernel
from kpca_ref.exact import eigvals_exact
from kpca_ref.grading.answers import register_answer
from kpca_ref.kpca import (
    explained_ratio,
    feature_variances,
    kpca_fit,
    kpca_scores,
    kpca_transform,
    reconstruction_error,
)

#: the exam cards' centred kernel matrix of three points
K_HAT = sp.Matrix([[5, -3, -2], [-3, 5, -2], [-2, -2, 4]])
#: the textbook's training points and new point, kernel k(x, y) = xy + (xy)^2
TRAIN = (-1, 0, 1)
NEW_POINT = 2
#: components kept in both examples (n - 1 = 2 positive eigenvalues)
COMPONENTS = 2


def _column(values) -> sp.Matrix:
    """Any sympy vector (row, column or list) as a (k, 1) column."""
    entries = list(values)
    return sp.Matrix(len(entries), 1, entries)


def _kernel(x, y) -> sp.Expr:
    t = sp.Integer(x) * sp.Integer(y)
    return t + t**2


def poly_gram() -> sp.Matrix:
    """Raw (3, 3) kernel matrix of x = -1, 0, 1."""
    return sp.Matrix(len(TRAIN), len(TRAIN), lambda i, j: _kernel(TRAIN[i], TRAIN[j]))


def _three_point_fit():
    mu, alpha = kpca_fit(K_HAT, COMPONENTS)
    return _column(mu), sp.Matrix(alpha)


@register_answer("ps5_3pt_eigenvalues")
def three_point_eigenvalues() -> sp.Matrix:
    """All eigenvalues of K_hat, largest first, a (3, 1) column: (8, 6, 0)."""
    return _column(eigvals_exact(K_HAT))


@register_answer("ps5_3pt_alpha", up_to_sign=True)
def three_point_alpha() -> sp.Matrix:
    """Coefficient vectors a_j / sqrt(mu_j) as columns: (1, -1, 0)/4 and (1, 1, -2)/6."""
    return _three_point_fit()[1]


@register_answer("ps5_3pt_scores", up_to_sign=True)
def three_point_scores() -> sp.Matrix:
    """Training coordinates K_hat alpha as columns: (2, -2, 0) and (1, 1, -2)."""
    return sp.Matrix(kpca_scores(K_HAT, _three_point_fit()[1]))


@register_answer("ps5_3pt_variances_population")
def three_point_variances_population() -> sp.Matrix:
    """Variances eta / n (lectures' convention, ddof=0): (8/3, 2)."""
    return _column(feature_variances(_three_point_fit()[0], K_HAT.rows, ddof=0))


@register_answer("ps5_3pt_variances_sample")
def three_point_variances_sample() -> sp.Matrix:
    """Variances mu / (n - 1) (textbook's sample convention, ddof=1): (4, 3)."""
    return _column(feature_variances(_three_point_fit()[0], K_HAT.rows, ddof=1))


@register_answer("ps5_3pt_ratios")
def three_point_ratios() -> sp.Matrix:
    """Explained shares mu_j / sum(mu) (the same in both conventions): (4/7, 3/7)."""
    return _column(explained_ratio(_three_point_fit()[0]))


@register_answer("ps5_poly_eigenvalues")
def poly_eigenvalues() -> sp.Matrix:
    """Positive eigenvalues of the centred x = -1, 0, 1 kernel matrix: (2, 2/3)."""
    return _column(kpca_fit(centre_kernel(poly_gram()), COMPONENTS)[0])


@register_answer("ps5_new_point_scores", up_to_sign=True)
def new_point_scores() -> sp.Matrix:
    """Coordinates of x* = 2 on both components, a (1, 2) row: (2, 10/3) up to signs."""
    K = poly_gram()
    alpha = kpca_fit(centre_kernel(K), COMPONENTS)[1]
    k_new = sp.Matrix([[_kernel(NEW_POINT, x) for x in TRAIN]])
    return sp.Matrix(kpca_transform(k_new, K, alpha)).reshape(1, COMPONENTS)


@register_answer("ps5_poly_reconstruction_error")
def poly_reconstruction_error() -> sp.Expr:
    """tr(K~) - mu_1 for x = -1, 0, 1 with one component kept: 2/3."""
    return reconstruction_error(centre_kernel(poly_gram()), 1)
