"""ps5_kernel_pca: each student's centred 3-point kernel matrix, and 1-D training set.

Two worked examples of the lecture notes: the exam cards' centred kernel matrix of three
points ``K_hat = [[5, -3, -2], [-3, 5, -2], [-2, -2, 4]]`` (eigenvalues 8, 6, 0), and the
textbook's training points x = -1, 0, 1 with k(x, y) = xy + (xy)^2 and new point x* = 2.

Families:

``khat``
    a centred (rows sum to 0) symmetric integer 3 x 3 matrix ``N.K_hat`` with distinct
    integer eigenvalues eta_1 > eta_2 > 0 = eta_3, built as ``Q diag(eta) Q^T`` from an
    integer orthogonal pair of directions in the plane x1 + x2 + x3 = 0: its unit
    eigenvectors are rational directions, as in the lecture. The coefficient vectors
    ``a_j / sqrt(eta_j)`` carry radicals (as the lecture's ``beta / sqrt(n lambda)`` does);
    every other answer is rational. Per pair of eigenvalues at most three orientations.
``poly``
    training points ``N.X`` symmetric about 0 (three or four of them), the kernel
    ``k(x, y) = N.c1 xy + N.c2 (xy)^2`` with square coefficients and a new point
    ``N.x_new``: the centred features ``(x, x^2) - mean`` are orthogonal, so the two positive
    eigenvalues, the new point's coordinates and the reconstruction error are rational. The
    same numbers give the textbook's shortcut vector ``k* - m_row`` (raw kernel values of the
    new point minus the training row means), whose dot product with alpha_j is z*_j.
``cost``
    the size of a fitted model, ``N.n_train`` training points and ``N.l_keep`` components:
    projecting one new point with the stored row means takes ``n`` kernel evaluations
    ``k(x_i, x*)`` and ``n l`` multiplications (``l`` dot products of length ``n``), the
    cost the notebook states as O(n) kernel evaluations plus O(nl) arithmetic.

The candidate tables of the families (and the lecture's numbers they avoid) are in
:mod:`kpca_ref.variants.ps5_candidates`; this module computes each student's answers, the
classic mistakes and the float route from them.

Every vector answer is a column Matrix, except the new point's coordinates: a list, so that
each coordinate's sign is free on its own (the harness flips a Matrix per column). Students
enter them as a column too. The coefficient vectors and training coordinates are up to sign
per column.
"""

from __future__ import annotations

import functools

import numpy as np
import sympy as sp

from kpca_ref.centring import centre_kernel
from kpca_ref.exact import eigvals_exact
from kpca_ref.kpca import explained_ratio, feature_variances, kpca_fit, reconstruction_error
from kpca_ref.kpca_projection import kpca_scores, kpca_transform
from kpca_ref.variants.ps5_candidates import LECTURE, NICE, candidates

__all__ = ["COMPONENTS", "FAMILIES", "ITEMS", "LECTURE", "NICE", "PS", "UP_TO_SIGN", "answers",
           "candidates", "float_answers", "mistakes"]

PS = "ps5_kernel_pca"
FAMILIES = {"khat": 100, "poly": 100, "cost": 100}
ITEMS = {
    "ps5_3pt_eigenvalues": ("khat",),
    "ps5_3pt_alpha": ("khat",),
    "ps5_3pt_scores": ("khat",),
    "ps5_3pt_variances_population": ("khat",),
    "ps5_3pt_variances_sample": ("khat",),
    "ps5_3pt_ratios": ("khat",),
    "ps5_poly_eigenvalues": ("poly",),
    "ps5_new_point_scores": ("poly",),
    "ps5_poly_reconstruction_error": ("poly",),
    "ps5_new_point_shortcut": ("poly",),
    "ps5_new_point_cost": ("cost",),
}
UP_TO_SIGN = frozenset({"ps5_3pt_alpha", "ps5_3pt_scores", "ps5_new_point_scores"})

#: components kept in both examples (n - 1 = 2 positive eigenvalues for three points)
COMPONENTS = 2


# ----------------------------------------------------------------------------- answers
def _column(values) -> sp.Matrix:
    entries = list(values)
    return sp.Matrix(len(entries), 1, entries)


def _poly_gram(n) -> tuple[sp.Matrix, sp.Matrix]:
    """Raw training kernel matrix and the new point's kernel column."""
    xs = list(n.X)

    def k(x, y):
        t = x * y
        return n.c1 * t + n.c2 * t**2

    K = sp.Matrix(len(xs), len(xs), lambda i, j: k(xs[i], xs[j]))
    return K, _column(k(n.x_new, x) for x in xs)


def _fits(n) -> tuple:
    """``(K, mu, alpha, K_train, k_new, Kc, mu_poly, alpha_poly)``: the two exact fits of one
    student's numbers, which the answers and the mistakes share (each fit is an exact
    eigendecomposition, the costly part of both)."""
    K = n.K_hat
    mu, alpha = _fit(K)
    K_train, k_new = _poly_gram(n)
    Kc = centre_kernel(K_train)
    mu_poly, alpha_poly = _fit(Kc)
    return K, mu, alpha, K_train, k_new, Kc, mu_poly, alpha_poly


def _fit(K: sp.Matrix) -> tuple[sp.Matrix, sp.Matrix]:
    """``kpca_fit(K, COMPONENTS)``, as new matrices each call, each distinct ``K`` fitted once
    per process: students (and the tests' candidates) that share one family's numbers share
    that fit, while the other family's changes."""
    mu, alpha = _fit_once(sp.ImmutableMatrix(K))
    return sp.Matrix(mu), sp.Matrix(alpha)


@functools.lru_cache(maxsize=1024)
def _fit_once(K: sp.ImmutableMatrix) -> tuple[sp.ImmutableMatrix, sp.ImmutableMatrix]:
    mu, alpha = kpca_fit(sp.Matrix(K), COMPONENTS)
    return sp.ImmutableMatrix(mu), sp.ImmutableMatrix(alpha)


def answers(n) -> dict:
    """The exact answers of one student's numbers ``n``."""
    return _answers(n, _fits(n))


def _answers(n, fits) -> dict:
    K, mu, alpha, K_train, k_new, Kc, mu_poly, alpha_poly = fits
    return {
        "ps5_3pt_eigenvalues": _column(eigvals_exact(K)),
        "ps5_3pt_alpha": sp.Matrix(alpha),
        "ps5_3pt_scores": sp.Matrix(kpca_scores(K, alpha)),
        "ps5_3pt_variances_population": _column(feature_variances(mu, K.rows, ddof=0)),
        "ps5_3pt_variances_sample": _column(feature_variances(mu, K.rows, ddof=1)),
        "ps5_3pt_ratios": _column(explained_ratio(mu)),
        "ps5_poly_eigenvalues": _column(mu_poly),
        # a list: the sign is free per component (a column Matrix flips only as a whole)
        "ps5_new_point_scores": list(kpca_transform(k_new, K_train, alpha_poly)),
        "ps5_poly_reconstruction_error": reconstruction_error(Kc, 1),
        # the textbook's shortcut z* = alpha^T (k* - m_row): the terms constant over the
        # training index vanish against the zero-sum alpha, the row means do not
        "ps5_new_point_shortcut": k_new - K_train * sp.ones(K_train.rows, 1) / K_train.rows,
        "ps5_new_point_cost": _cost(n.n_train, n.n_train * n.l_keep),
    }


def _cost(evaluations, multiplications) -> sp.Matrix:
    """The (kernel evaluations, multiplications) column of projecting one new point."""
    return sp.Matrix([evaluations, multiplications])


def _swapped(matrix: sp.Matrix) -> sp.Matrix:
    return matrix.extract(list(range(matrix.rows)), list(range(matrix.cols))[::-1])


_UNSCALED = ("these are the unit eigenvectors a_j: divide each by the square root of its "
             "eigenvalue")
_UNSCALED_SCORES = ("these are K_hat times the unit eigenvectors: the coordinates use "
                    "alpha_j = a_j / sqrt(eta_j), so column j is sqrt(eta_j) a_j")
_UNSCALED_NEW = ("these are the unit eigenvectors a_j times the centred kernel vector: use "
                 "alpha_j = a_j / sqrt(mu_j)")
_ASCENDING = "your values come smallest first: order the components by decreasing eigenvalue"
_TRACE_RAW = ("this uses the trace of the uncentred kernel matrix: the error is tr(K~) - mu_1, "
              "with the centred matrix")
_SMALLER = "this subtracts the smaller eigenvalue: keeping one component keeps the largest"
_OWN_MEAN = ("the new point's kernel values were centred with their own mean (or not at "
             "all, as in the derivation that skips centring the new sample): use the training "
             "row means and the training grand mean")
_RAW_SHIFT = ("these are the raw kernel values k(x_i, x*), the uncentred formula: subtract the "
              "training row means m_i, which differ from one training point to the next")
_OWN_SHIFT = ("this subtracts the new vector's own average, a constant that alpha ignores: "
              "subtract the training row means m_i instead")
_REFIT = ("this builds the (n + 1) x (n + 1) kernel matrix with the new point in it, as if it "
          "were re-centred with the training points: it is centred with the stored training "
          "means, so only its n values k(x_i, x*) are new, and nothing n x n is done again")
_ROW_MEANS_AGAIN = ("this recomputes the n x n training kernel matrix for its row means: the row "
                    "means m_i are stored with the fitted model, so only the n values "
                    "k(x_i, x*) are new")
_PER_COMPONENT = ("this evaluates the kernel values again for every component: the same n "
                  "values k(x_i, x*) serve all l dot products")


def mistakes(n) -> dict:
    """Values the classic mistakes of the notes give on these numbers."""
    fits = _fits(n)
    K, mu, alpha, K_train, k_new, Kc, mu_poly, alpha_poly = fits
    units = sp.Matrix(K.rows, COMPONENTS, lambda i, j: sp.nsimplify(alpha[i, j] * sp.sqrt(mu[j])))
    right = _answers(n, fits)
    new = right["ps5_new_point_scores"]
    return {
        "ps5_3pt_eigenvalues": [
            ("ascending_order", _ASCENDING, _column(list(right["ps5_3pt_eigenvalues"])[::-1]))],
        "ps5_3pt_alpha": [("alpha_not_scaled", _UNSCALED, units),
                          ("ascending_order", _ASCENDING, _swapped(alpha))],
        "ps5_3pt_scores": [("alpha_not_scaled", _UNSCALED_SCORES, K * units),
                           ("ascending_order", _ASCENDING, _swapped(right["ps5_3pt_scores"]))],
        "ps5_3pt_variances_population": [
            ("variance_divisor", "this divides by n - 1; the population convention divides by n",
             _column(feature_variances(mu, K.rows, ddof=1)))],
        "ps5_3pt_variances_sample": [
            ("variance_divisor", "this divides by n; the sample convention divides by n - 1",
             _column(feature_variances(mu, K.rows, ddof=0)))],
        "ps5_3pt_ratios": [
            ("ascending_order", _ASCENDING, _column(list(right["ps5_3pt_ratios"])[::-1]))],
        "ps5_poly_eigenvalues": [("ascending_order", _ASCENDING, _column(list(mu_poly)[::-1]))],
        "ps5_new_point_scores": [
            ("new_point_own_mean", _OWN_MEAN, list(alpha_poly.T * k_new)),
            ("alpha_not_scaled", _UNSCALED_NEW, [sp.sqrt(m) * z for m, z in zip(mu_poly, new)]),
            ("ascending_order", _ASCENDING, new[::-1]),
        ],
        "ps5_poly_reconstruction_error": [
            ("not_centred", _TRACE_RAW, K_train.trace() - mu_poly[0]),
            ("ascending_order", _SMALLER, Kc.trace() - mu_poly[1]),
        ],
        "ps5_new_point_shortcut": [
            ("new_point_not_centred", _RAW_SHIFT, k_new),
            ("new_point_own_mean", _OWN_SHIFT, k_new - sp.ones(k_new.rows, 1) * (
                sum(k_new) / k_new.rows)),
        ],
        "ps5_new_point_cost": _cost_mistakes(n.n_train, n.l_keep),
    }


def _cost_mistakes(size, kept) -> list:
    """The counts of the classic ways of projecting one new point with n x n work again."""
    return [("new_point_refitted", _REFIT, _cost((size + 1) ** 2, size * kept)),
            ("row_means_recomputed", _ROW_MEANS_AGAIN, _cost(size**2 + size, size * kept)),
            ("kernel_per_component", _PER_COMPONENT, _cost(size * kept, size * kept))]


# ----------------------------------------------------------------------------- float route
def _float_fit(Kc: np.ndarray, l: int) -> tuple[np.ndarray, np.ndarray]:
    values, vectors = np.linalg.eigh(Kc)
    order = np.argsort(values)[::-1][:l]
    return values[order], vectors[:, order] / np.sqrt(values[order])


def float_answers(n) -> dict:
    """The same answers by floating point (numpy), signs as numpy gives them."""
    K = np.array(n.K_hat.tolist(), dtype=float)
    mu, alpha = _float_fit(K, COMPONENTS)
    xs = np.array([float(x) for x in n.X])
    c1, c2, x_new = float(n.c1), float(n.c2), float(n.x_new)
    t = np.outer(xs, xs)
    K_train = c1 * t + c2 * t**2
    k_new = c1 * x_new * xs + c2 * (x_new * xs) ** 2
    H = np.eye(len(xs)) - 1.0 / len(xs)
    Kc = H @ K_train @ H
    mu_poly, alpha_poly = _float_fit(Kc, COMPONENTS)
    kc_new = k_new - K_train.mean(axis=1) - k_new.mean() + K_train.mean()
    return {
        "ps5_3pt_eigenvalues": np.sort(np.linalg.eigvalsh(K))[::-1],
        "ps5_3pt_alpha": alpha,
        "ps5_3pt_scores": K @ alpha,
        "ps5_3pt_variances_population": mu / 3,
        "ps5_3pt_variances_sample": mu / 2,
        "ps5_3pt_ratios": mu / mu.sum(),
        "ps5_poly_eigenvalues": mu_poly,
        "ps5_new_point_scores": kc_new @ alpha_poly,
        "ps5_poly_reconstruction_error": float(np.trace(Kc) - mu_poly[0]),
        "ps5_new_point_shortcut": (k_new - K_train.mean(axis=1)).reshape(-1, 1),
        # counted on the float route's own arrays: one row of kernel values, l columns of alpha
        "ps5_new_point_cost": _float_cost(int(n.n_train), int(n.l_keep)),
    }


def _float_cost(size: int, kept: int) -> np.ndarray:
    """The same counts read off numpy's shapes: one kernel row, a (1, n) @ (n, l) product."""
    row, alpha = np.zeros((1, size)), np.zeros((size, kept))
    return np.array([[row.size], [row.shape[1] * alpha.shape[1]]], dtype=float)
