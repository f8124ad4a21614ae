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
    eigenvalues, the new point's coordinates and the reconstruction error are rational.

Every vector answer is a column Matrix, except the new point's coordinates: a list, so that
each coordinate's sign is free on its own (the harness flips a Matrix per column). Students
enter them as a column too. The coefficient vectors and training coordinates are up to sign
per column.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import sympy as sp

from kpca_ref.centring import centre_kernel
from kpca_ref.exact import eigvals_exact
from kpca_ref.kpca import explained_ratio, feature_variances, kpca_fit, reconstruction_error
from kpca_ref.kpca_projection import kpca_scores, kpca_transform

PS = "ps5_kernel_pca"
FAMILIES = {"khat": 100, "poly": 100}
LECTURE = {
    "khat": {"K_hat": [[5, -3, -2], [-3, 5, -2], [-2, -2, 4]]},
    "poly": {"X": [-1, 0, 1], "c1": 1, "c2": 1, "x_new": 2},
}
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
}
UP_TO_SIGN = frozenset({"ps5_3pt_alpha", "ps5_3pt_scores", "ps5_new_point_scores"})
#: the largest denominator of any rational in the numbers and answers (radical answers:
#: of the rational factors sympy writes, e.g. the 1/30 of sqrt(30)/30)
NICE = {"denominator": 30}

#: components kept in both examples (n - 1 = 2 positive eigenvalues for three points)
COMPONENTS = 2

#: bounds that keep the 3 x 3 matrices pleasant by hand
_MAX_ETA, _MAX_ENTRY, _MAX_ORIENTATIONS = 30, 20, 3


# ----------------------------------------------------------------------------- khat family
def _primitive(v: tuple) -> tuple:
    g = math.gcd(*(abs(x) for x in v))
    v = tuple(x // g for x in v)
    first = next(x for x in v if x)
    return v if first > 0 else tuple(-x for x in v)


def _direction_pairs() -> list[tuple[tuple, tuple]]:
    """Ordered pairs of orthogonal primitive integer directions with entries summing to 0."""
    found = set()
    for a, b in itertools.product(range(-5, 6), repeat=2):
        if (a, b) == (0, 0) or abs(a + b) > 5:
            continue
        d = _primitive((a, b, -a - b))
        e = _primitive((d[1] - d[2], d[2] - d[0], d[0] - d[1]))  # d x (1, 1, 1)
        if max(map(abs, e)) <= 5:
            found.add((d, e))
    return sorted(found)


def _squarefree(m: int) -> tuple[int, int]:
    """``(s, f)`` with ``m = s^2 f`` and ``f`` squarefree."""
    s, p = 1, 2
    while p * p <= m:
        while m % (p * p) == 0:
            m //= p * p
            s *= p
        p += 1
    return s, m


def _radical_denominator(eta: int, d: tuple) -> int:
    """Largest denominator of ``d / sqrt(|d|^2 eta)`` and ``eta d / sqrt(|d|^2 eta)``."""
    s, f = _squarefree(eta * sum(x * x for x in d))
    return max(max(Fraction(x, s * f).denominator, Fraction(eta * x, s * f).denominator)
               for x in d)


def _khat_matrix(eta1: int, eta2: int, d: tuple, e: tuple) -> list[list[int]] | None:
    nd, ne = sum(x * x for x in d), sum(x * x for x in e)
    rows = [[Fraction(eta1 * d[i] * d[j], nd) + Fraction(eta2 * e[i] * e[j], ne)
             for j in range(3)] for i in range(3)]
    if any(x.denominator != 1 for row in rows for x in row):
        return None
    return [[int(x) for x in row] for row in rows]


def _khats() -> list[dict]:
    lecture_ratio = Fraction(8, 14)
    by_pair: dict[tuple[int, int], list] = {}
    for (d, e), eta1, eta2 in itertools.product(_direction_pairs(), range(1, _MAX_ETA + 1),
                                                range(1, _MAX_ETA + 1)):
        if eta2 >= eta1 or Fraction(eta1, eta1 + eta2) == lecture_ratio:
            continue  # distinct eigenvalues; never the lecture's shares (4/7, 3/7)
        matrix = _khat_matrix(eta1, eta2, d, e)
        if matrix is None or max(abs(x) for row in matrix for x in row) > _MAX_ENTRY:
            continue
        worst = max(_radical_denominator(eta1, d), _radical_denominator(eta2, e),
                    Fraction(eta1, eta1 + eta2).denominator)
        if worst <= NICE["denominator"]:
            by_pair.setdefault((eta1, eta2), []).append(matrix)
    found = []
    for pair in sorted(by_pair):
        options = sorted({tuple(map(tuple, m)) for m in by_pair[pair]})
        step = max(1, len(options) // _MAX_ORIENTATIONS)
        found += [{"K_hat": [list(r) for r in options[i]]}
                  for i in range(0, len(options), step)][:_MAX_ORIENTATIONS]
    return found


# ----------------------------------------------------------------------------- poly family
_TRAINING_SETS = ((-1, 0, 1), (-2, 0, 2), (-3, 0, 3), (-2, -1, 1, 2), (-3, -1, 1, 3),
                  (-3, -2, 2, 3))
_SQUARES = (1, 4, 9, 16)
_MAX_POLY_EIGENVALUE = 100
_NEW_POINTS = (0, 1, 2, 3, 4, 5)  # x and -x give the same answers (points symmetric)
_NEW_PER_KERNEL = 6


def _poly_exact(xs, c1, c2) -> tuple[Fraction, Fraction, Fraction]:
    """The two positive eigenvalues (x-part, x^2-part) and the mean of x^2."""
    n = len(xs)
    m2 = Fraction(sum(x * x for x in xs), n)
    sxx = sum(x * x for x in xs)
    s22 = sum((x * x - m2) ** 2 for x in xs)
    return c1 * sxx, c2 * s22, m2


def _poly_key(xs, c1, c2, x_new) -> tuple:
    """``(eigenvalues, |coordinates|, error)`` of a candidate, largest eigenvalue first."""
    mu_x, mu_q, m2 = _poly_exact(xs, c1, c2)
    mean = Fraction(sum(xs), len(xs))
    z_x = math.isqrt(c1) * abs(x_new - mean)
    z_q = math.isqrt(c2) * abs(x_new * x_new - m2)
    pairs = sorted([(mu_x, z_x), (mu_q, z_q)], reverse=True)
    return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs), pairs[1][0]


def _polys() -> list[dict]:
    lecture = LECTURE["poly"]
    taken = _poly_key(lecture["X"], lecture["c1"], lecture["c2"], lecture["x_new"])
    found, kernels, seen = [], 0, set()
    for xs, c1, c2 in itertools.product(_TRAINING_SETS, _SQUARES, _SQUARES):
        mu_x, mu_q, _ = _poly_exact(xs, c1, c2)
        if mu_x == mu_q or max(mu_x, mu_q) > _MAX_POLY_EIGENVALUE:
            continue  # a repeated eigenvalue leaves the coordinates undetermined
        # no answer may equal the lecture's: eigenvalues, coordinates (up to sign), error
        usable = [x for x in _NEW_POINTS if x not in xs and not any(
            a == b for a, b in zip(_poly_key(xs, c1, c2, x), taken))]
        if not usable:
            continue
        start = (3 * kernels) % len(usable)
        kernels += 1
        for x in sorted(set((usable * 2)[start:start + _NEW_PER_KERNEL])):
            key = _poly_key(xs, c1, c2, x)
            if key not in seen:  # one candidate per distinct set of answers
                seen.add(key)
                found.append({"X": list(xs), "c1": c1, "c2": c2, "x_new": x})
    return found


def candidates() -> dict[str, list[dict]]:
    """The candidates of both families, in draw order."""
    return {"khat": _khats(), "poly": _polys()}


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


def answers(n) -> dict:
    """The exact answers of one student's numbers ``n``."""
    K = n.K_hat
    mu, alpha = kpca_fit(K, COMPONENTS)
    K_train, k_new = _poly_gram(n)
    Kc = centre_kernel(K_train)
    mu_poly, alpha_poly = kpca_fit(Kc, COMPONENTS)
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
    }


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
             "all): use the training row means and the training grand mean")


def mistakes(n) -> dict:
    """Values the classic mistakes of the notes give on these numbers."""
    K = n.K_hat
    mu, alpha = kpca_fit(K, COMPONENTS)
    units = sp.Matrix(K.rows, COMPONENTS, lambda i, j: sp.nsimplify(alpha[i, j] * sp.sqrt(mu[j])))
    K_train, k_new = _poly_gram(n)
    Kc = centre_kernel(K_train)
    mu_poly, alpha_poly = kpca_fit(Kc, COMPONENTS)
    right = answers(n)
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
    }


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
    }
