"""ps4_centering: each student's kernel matrix to centre, and 1-D kernel example.

The lecture's examples: the self-test of notes 10-12 (Q8) centres K = [[2, 1], [1, 2]];
the textbook section centres the kernel matrix of x = -1, 0, 1 under
k(x, y) = xy + (xy)^2, measures the feature-space mean, and centres the new point x* = 2
with the training means. By hand, n = 3 gives denominators of at most 9 (ninths).

Families:

``matrix``
    a 3 x 3 symmetric positive semidefinite integer matrix ``N.K`` (diagonal 1..3, other
    entries -1..2) whose row sums are not all equal (so K, KH and HKH all differ): one
    matrix per distinct centred matrix, so no two candidates share the answer (249
    candidates). The lecture's matrix is 2 x 2, but a 2 x 2 matrix centres to
    (s / 4) [[1, -1], [-1, 1]] with s = K_11 + K_22 - 2 K_12: too few distinct answers.
``poly``
    three distinct training points ``N.x`` (a 3 x 1 column, increasing, in -2..2), a
    kernel ``k(x, y) = N.k0 + N.k1 xy + N.k2 (xy)^2`` with ``k0`` in {0, 1}, ``k1`` in
    0..3 and ``k2`` in {1, 2} (features (sqrt(k0), sqrt(k1) x, sqrt(k2) x^2), so it is a
    valid kernel; ``N.kernel`` spells it out), and a new point ``N.x_star`` in -3..3, not a
    training point. Kernel values stay small (at most 36 in K, 60 in k_star). Candidates
    whose answers repeat one of the lecture's answers, on which two classic mistakes (or a
    mistake and the answer) coincide, or whose new point the kernel cannot tell from a
    training point, are left out; each training set and kernel keeps at most two new
    points (168 candidates; two random students share the centred matrix with probability
    about 2%, the total variance, a single fraction, about 5%). The same numbers give the
    squared feature-space distances of the three pairs of training points, which centring
    leaves as they are (the textbook's remark).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import sympy as sp

from kpca_ref.centring import centre_kernel, centre_new, feature_mean_sq_norm

PS = "ps4_centering"
FAMILIES = {"matrix": 100, "poly": 100}
LECTURE = {
    "matrix": {"K": [[2, 1], [1, 2]]},
    "poly": {"x": [-1, 0, 1], "k0": 0, "k1": 1, "k2": 1, "kernel": "k(x, y) = xy + (xy)^2",
             "x_star": 2},
}
ITEMS = {
    "ps4_centre_3x3": ("matrix",),
    "ps4_poly_K": ("poly",),
    "ps4_poly_Kc": ("poly",),
    "ps4_poly_grand_mean": ("poly",),
    "ps4_poly_sq_dists": ("poly",),
    "ps4_poly_total_variance": ("poly",),
    "ps4_new_k_star": ("poly",),
    "ps4_new_row_means": ("poly",),
    "ps4_new_kc_star": ("poly",),
    "ps4_poly_pair_sq_dists": ("poly",),
}
UP_TO_SIGN = frozenset()
NICE = {"denominator": 9}

_MAX_K, _MAX_K_STAR, _PER_KERNEL = 36, 60, 2
_PAIRS = ((0, 1), (0, 2), (1, 2))


def kernel_text(k0: int, k1: int, k2: int) -> str:
    """The kernel ``k0 + k1 xy + k2 (xy)^2`` as the notebook prints it.

    >>> kernel_text(0, 1, 1), kernel_text(1, 2, 1), kernel_text(1, 0, 2)
    ('k(x, y) = xy + (xy)^2', 'k(x, y) = 1 + 2xy + (xy)^2', 'k(x, y) = 1 + 2(xy)^2')
    """
    terms = [str(k0)] if k0 else []
    if k1:
        terms.append(f"{k1 if k1 > 1 else ''}xy")
    terms.append(f"{k2 if k2 > 1 else ''}(xy)^2")
    return "k(x, y) = " + " + ".join(terms)


def _kernel(k0, k1, k2, x, y):
    t = x * y
    return k0 + k1 * t + k2 * t * t


# ------------------------------------------------------------------- plain-integer answers
# The candidates are screened with Fractions (fast); answers() recomputes with kpca_ref.

def _centred(K):
    n = len(K)
    rows = [Fraction(sum(row), n) for row in K]
    grand = sum(rows) / n
    return tuple(tuple(K[i][j] - rows[i] - rows[j] + grand for j in range(n)) for i in range(n))


def _one_side(K):
    """K H: the columns of K centred, the rows not."""
    n = len(K)
    cols = [Fraction(sum(K[i][j] for i in range(n)), n) for j in range(n)]
    return tuple(tuple(K[i][j] - cols[j] for j in range(n)) for i in range(n))


def _is_psd3(K) -> bool:
    minors = [K[i][i] for i in range(3)]
    minors += [K[i][i] * K[j][j] - K[i][j] ** 2 for i, j in ((0, 1), (0, 2), (1, 2))]
    minors.append(round(np.linalg.det(np.array(K, dtype=float))))  # integer entries
    return min(minors) >= 0


def _matrices() -> list[dict]:
    seen = {}
    for d in itertools.product(range(1, 4), repeat=3):
        for o in itertools.product(range(-1, 3), repeat=3):
            K = ((d[0], o[0], o[1]), (o[0], d[1], o[2]), (o[1], o[2], d[2]))
            if not _is_psd3(K) or len({sum(row) for row in K}) == 1:
                continue
            seen.setdefault(_centred(K), K)
    return [{"K": [list(row) for row in K]} for _, K in sorted(seen.items())]


def _poly_values(x, k0, k1, k2, x_star) -> dict:
    """Every answer and classic-mistake value of one poly candidate, as hashable tuples."""
    K = [[_kernel(k0, k1, k2, a, b) for b in x] for a in x]
    Kc = _centred(K)
    rows = tuple(Fraction(sum(row), 3) for row in K)
    grand = sum(rows) / 3
    sq = tuple(Kc[i][i] for i in range(3))
    k_star = tuple(_kernel(k0, k1, k2, x_star, a) for a in x)
    own = Fraction(sum(k_star), 3)
    kc_star = tuple(k_star[i] - rows[i] - own + grand for i in range(3))
    trace = sum(sq)
    return {
        "ps4_poly_K": [tuple(map(tuple, K))],
        "ps4_poly_Kc": [Kc, tuple(map(tuple, K)), _one_side(K)],
        "ps4_poly_grand_mean": [grand],
        "ps4_poly_sq_dists": [sq, tuple(K[i][i] for i in range(3))],
        "ps4_poly_total_variance": [trace / 3, Fraction(sum(K[i][i] for i in range(3)), 3),
                                    trace / 2],
        "ps4_new_k_star": [k_star],
        "ps4_new_row_means": [rows],
        "ps4_new_kc_star": [kc_star, k_star, tuple(v - own for v in k_star)],
    }


def _usable(values, lecture) -> bool:
    """No answer equals the lecture's, each item's answer and mistakes all differ, and the
    new point is new in feature space."""
    for name, found in values.items():
        if found[0] == lecture[name][0] or len(set(found)) < len(found):
            return False
    K, k_star = values["ps4_poly_K"][0], values["ps4_new_k_star"][0]
    if any(k_star == column for column in zip(*K)):
        return False  # x* looks like a training point to this kernel (an even one)
    return any(d not in (0, 1) for d in values["ps4_poly_sq_dists"][0])


def _polys() -> list[dict]:
    spec = LECTURE["poly"]
    lecture = _poly_values(tuple(spec["x"]), spec["k0"], spec["k1"], spec["k2"], spec["x_star"])
    found = []
    for x in itertools.combinations(range(-2, 3), 3):
        for k0, k1, k2 in itertools.product((0, 1), range(4), (1, 2)):
            if max(abs(_kernel(k0, k1, k2, a, b)) for a in x for b in x) > _MAX_K:
                continue
            rows = {}  # an even kernel (k1 = 0) cannot tell x* from -x*: keep one of them
            for s in range(-3, 4):
                if (s not in x and max(abs(_kernel(k0, k1, k2, s, a)) for a in x) <= _MAX_K_STAR
                        and _usable(_poly_values(x, k0, k1, k2, s), lecture)):
                    rows.setdefault(tuple(_kernel(k0, k1, k2, s, a) for a in x), s)
            new = sorted(rows.values())
            # at most _PER_KERNEL new points per training set and kernel, spread out, so
            # that the items of the training set rarely repeat between two students
            step = max(1, len(new) // _PER_KERNEL)
            found += [{"x": list(x), "k0": k0, "k1": k1, "k2": k2,
                       "kernel": kernel_text(k0, k1, k2), "x_star": s}
                      for s in new[::step][:_PER_KERNEL]]
    return found


def candidates() -> dict[str, list[dict]]:
    """The candidates of both families, in draw order."""
    return {"matrix": _matrices(), "poly": _polys()}


# ---------------------------------------------------------------------- exact answers
def poly_gram(n) -> sp.Matrix:
    """The (3, 3) kernel matrix of the training points ``n.x`` under ``n``'s kernel."""
    xs = list(n.x)
    return sp.Matrix(len(xs), len(xs), lambda i, j: _kernel(n.k0, n.k1, n.k2, xs[i], xs[j]))


def new_row(n) -> sp.Matrix:
    """The (1, 3) raw kernel values between ``n.x_star`` and the training points."""
    return sp.Matrix([[_kernel(n.k0, n.k1, n.k2, n.x_star, x) for x in n.x]])


def answers(n) -> dict:
    """The exact answers of one student's numbers ``n`` (kpca_ref's exact routes)."""
    K = poly_gram(n)
    Kc = centre_kernel(K)
    size = K.rows
    return {
        "ps4_centre_3x3": centre_kernel(n.K),
        "ps4_poly_K": K,
        "ps4_poly_Kc": Kc,
        "ps4_poly_grand_mean": feature_mean_sq_norm(K),
        "ps4_poly_sq_dists": Kc.diagonal().T,
        "ps4_poly_total_variance": Kc.trace() / size,
        "ps4_new_k_star": new_row(n).T,
        "ps4_new_row_means": K * sp.ones(size, 1) / size,
        "ps4_new_kc_star": centre_new(new_row(n), K).T,
        "ps4_poly_pair_sq_dists": pair_sq_dists(K),
    }


def pair_sq_dists(K, cross: int = 2) -> sp.Matrix:
    """``K_ii + K_jj - cross K_ij`` for the pairs (1, 2), (1, 3), (2, 3): the squared
    feature-space distances (``cross = 2``; the same from the centred matrix)."""
    return sp.Matrix([K[i, i] + K[j, j] - cross * K[i, j] for i, j in _PAIRS])


def float_answers(n) -> dict:
    """The same answers by floating point (numpy only), for an independent check."""
    x = np.array([float(v) for v in n.x])
    t = np.outer(x, x)
    K = float(n.k0) + float(n.k1) * t + float(n.k2) * t**2
    size = len(x)
    H = np.eye(size) - np.ones((size, size)) / size
    Kc = H @ K @ H
    ts = float(n.x_star) * x
    k_star = float(n.k0) + float(n.k1) * ts + float(n.k2) * ts**2
    M = np.array(n.K.tolist(), dtype=float)
    Hm = np.eye(M.shape[0]) - np.ones(M.shape) / M.shape[0]
    return {
        "ps4_centre_3x3": Hm @ M @ Hm,
        "ps4_poly_K": K,
        "ps4_poly_Kc": Kc,
        "ps4_poly_grand_mean": float(np.ones(size) @ K @ np.ones(size)) / size**2,
        "ps4_poly_sq_dists": np.diag(Kc).reshape(size, 1),
        "ps4_poly_total_variance": float(np.trace(Kc)) / size,
        "ps4_new_k_star": k_star.reshape(size, 1),
        "ps4_new_row_means": K.mean(axis=1).reshape(size, 1),
        "ps4_new_kc_star": (H @ (k_star - K.mean(axis=0))).reshape(size, 1),
        "ps4_poly_pair_sq_dists": np.array([[Kc[i, i] + Kc[j, j] - 2 * Kc[i, j]]
                                            for i, j in _PAIRS]),
    }


_UNCENTRED = ("this is the matrix before centring: subtract the row and column means and add "
               "back the grand mean (the four-term formula)")
_ONE_SIDE = ("only one side is centred (K H or H K): the four-term formula subtracts a row "
             "mean and a column mean and adds the grand mean")
_LENGTHS = ("these are the squared lengths K_ii, measured from the origin: the squared "
            "distance to the mean is K_ii - 2 m_i + m")
_NOT_SQUARED = "these are the distances: the question asks for their squares"
_CROSS_ONCE = ("the cross term counts twice: ||phi(x_i) - phi(x_j)||^2 = K_ii + K_jj - 2 K_ij")
_AVERAGE_LENGTH = ("this averages K_ii, the squared lengths measured from the origin: average "
                   "the squared distances to the mean instead")
_RAW_NEW = ("this is the raw kernel vector: centre it with the stored training row means and "
            "grand mean")
_OWN_MEAN = ("this subtracts only the new vector's own average: the four-term formula also "
             "subtracts the training row means and adds the grand mean")


def mistakes(n) -> dict:
    """Values the classic mistakes of the notes give on these numbers."""
    K, k_star = poly_gram(n), new_row(n).T
    size, given = K.rows, n.K.rows
    H = sp.eye(size) - sp.ones(size, size) / size
    Hm = sp.eye(given) - sp.ones(given, given) / given
    right = answers(n)
    divisor = (f"this divides by n - 1 = {size - 1}; this problem set uses the population "
               f"convention and divides by n = {size}")
    return {
        "ps4_centre_3x3": [("not_centred", _UNCENTRED, sp.Matrix(n.K)),
                           ("centred_one_side", _ONE_SIDE, n.K * Hm),
                           ("centred_one_side", _ONE_SIDE, Hm * n.K)],
        "ps4_poly_Kc": [("not_centred", _UNCENTRED, K),
                        ("centred_one_side", _ONE_SIDE, K * H),
                        ("centred_one_side", _ONE_SIDE, H * K)],
        "ps4_poly_sq_dists": [
            ("not_centred", _LENGTHS, K.diagonal().T),
            ("distance_not_squared", _NOT_SQUARED,
             right["ps4_poly_sq_dists"].applyfunc(sp.sqrt))],
        "ps4_poly_total_variance": [
            ("not_centred", _AVERAGE_LENGTH, K.trace() / size),
            ("variance_divisor", divisor, right["ps4_poly_Kc"].trace() / (size - 1))],
        "ps4_new_kc_star": [("new_point_not_centred", _RAW_NEW, k_star),
                            ("new_point_own_mean", _OWN_MEAN, H * k_star)],
        # (a candidate whose pairs are all at squared distance 0 or 1 has no unsquared slip)
        "ps4_poly_pair_sq_dists": [m for m in (
            ("distance_not_squared", _NOT_SQUARED,
             right["ps4_poly_pair_sq_dists"].applyfunc(sp.sqrt)),
            ("cross_term_once", _CROSS_ONCE, pair_sq_dists(K, cross=1)))
            if m[2] != right["ps4_poly_pair_sq_dists"]],
    }
