"""ps2_feature_maps: each student's counts, pair of points, and RBF width.

The lecture's self-test (notes 10-12): Q4 counts the coordinates for ``d = 3`` features
up to power ``p = 2`` (the tally gives 7, all monomials 10); Q3 computes
``(x.x' + 1)^2`` for ``x = [1, 2]``, ``x' = [3, -1]`` directly and through the quadratic
map (both give 4, as the sum of the six coordinate-by-coordinate products 9 + 4 + 1 - 12 + 6 -
4). The exam card "choosing gamma" wants similarity 1/2 at input distance
2 (``gamma = ln 2 / 4``) and the feature-space distances ``sqrt(2 - 2K)`` at input
distances 1, 2, 4, 8.

Families:

``tally``
    ``N.d_tally`` features up to power ``N.p_tally`` (``2 <= p <= d <= 12``, ``p <= 4``,
    at most 500 coordinates):
    one pair per distinct tally, never one the lecture states (7, 10, or a count of its
    table: 4, 6, 15, 35, 176, 286, ...) (23 candidates).
``monomials``
    ``N.d_all`` features up to power ``N.p_all`` (``2 <= p <= 4``, ``d <= 12``, at most
    500 monomials): one pair per distinct count, never one the lecture states (21
    candidates).
``pair``
    two integer points ``N.x, N.xp`` (columns) with nonzero entries in -3..3, so every one
    of the six products is in play. ``k = (x.x' + 1)^2`` is never 0 or 4 (the lecture's)
    and never equals ``x.x' + 1``, and the map without sqrt(2) never gives ``k`` by
    chance. At most 12 pairs per value of ``|x.x' + 1|``, spread evenly, so the kernel
    values are as varied as the pairs allow (172 candidates, 15 kernel values).
``gamma``
    similarity ``N.similarity = 1/q`` wanted at input distance ``N.distance = D``
    (``q`` in 2, 3, 4, 5, 6, 8, 9; ``D`` in 2, 4, 6, 8), so ``gamma = ln(q) / D^2``
    with one logarithm, as in the lecture; and three input distances
    ``N.table_distances`` that are half-multiples of ``D``, so ``K = q^(-e)`` with ``e``
    a multiple of 1/4 (square and fourth roots only, as the lecture's table has). Each
    table keeps every denominator within the lecture's (256); each candidate has its
    own gamma and its own column of distances (27 candidates).
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from fractions import Fraction

import numpy as np
import sympy as sp

from kpca_ref.feature_maps import count_distinct_products, count_monomials, quadratic_map
from kpca_ref.kernels import feature_distance, gamma_for_similarity, poly_kernel, rbf_kernel
from kpca_ref.mistake_messages import MESSAGES as MISTAKES
from kpca_ref.variants import ps2_geometry

PS = "ps2_feature_maps"
FAMILIES = {"tally": 20, "monomials": 20, "pair": 100, "gamma": 20}
LECTURE = {
    "tally": {"d_tally": 3, "p_tally": 2},
    "monomials": {"d_all": 3, "p_all": 2},
    "pair": {"x": [1, 2], "xp": [3, -1]},
    "gamma": {"distance": 2, "similarity": "1/2", "table_distances": [1, 2, 4, 8]},
}
ITEMS = {
    "ps2_count_tally": ("tally",),
    "ps2_count_monomials": ("monomials",),
    "ps2_quad_kernel_direct": ("pair",),
    "ps2_quadratic_map_x": ("pair",),
    "ps2_quadratic_map_xprime": ("pair",),
    "ps2_gamma_exact": ("gamma",),
    "ps2_feature_distances_gamma": ("gamma",),
    **ps2_geometry.ITEMS,  # the length and angle of mapped points, gamma in other units
}
UP_TO_SIGN = frozenset()
#: largest denominator of a rational in any number or answer: the lecture's own table
#: has sqrt(131070)/256 (input distance 8); the cosine of two mapped points of the pair
#: family is a fraction over (x.x + 1)(x'.x' + 1), at most 19^2
NICE = {"denominator": 361}

_LECTURE_COUNTS = (7, 10)  # the lecture's tally and count of monomials (Q4)
#: the (d, p) of the lecture's table of counts (also in the notebook's demo and text)
_LECTURE_TABLE = ((2, 2), (4, 3), (10, 3), (100, 3), (100, 5), (1000, 3), (10, 15), (2, 20))
_MAX_COUNT = 500
_PAIR_ENTRIES = [v for v in range(-3, 4) if v]
_PAIRS_PER_VALUE = 12
_SIMILARITY_INVERSES = (2, 3, 4, 5, 6, 8, 9)
_DISTANCES = (2, 4, 6, 8)
_RATIOS = tuple(Fraction(k, 2) for k in range(1, 9))  # table distance / D: 1/2 .. 4
_LECTURE_RATIOS = {Fraction(1, 2), Fraction(1), Fraction(2), Fraction(4)}


def _lecture_counts() -> set[int]:
    """Every count the lecture states (Q4 and its table), tally and monomials alike."""
    found = set(_LECTURE_COUNTS)
    for d, p in _LECTURE_TABLE:
        found |= {sum(math.comb(d, i) for i in range(p + 1)), math.comb(d + p, p)}
    return found


def _tallies() -> list[dict]:
    stated, seen = _lecture_counts(), {}
    for d in range(2, 13):
        for p in range(2, min(d, 4) + 1):
            value = sum(math.comb(d, i) for i in range(p + 1))
            if value <= _MAX_COUNT and value not in stated and value not in seen:
                seen[value] = {"d_tally": d, "p_tally": p}
    return [seen[v] for v in sorted(seen)]


def _monomial_counts() -> list[dict]:
    stated, seen = _lecture_counts(), {}
    for d in range(12, 1, -1):  # of (d, p) and (p, d), keep the one with more features
        for p in range(2, 5):
            value = math.comb(d + p, p)
            if value <= _MAX_COUNT and value not in stated and value not in seen:
                seen[value] = {"d_all": d, "p_all": p}
    return [seen[v] for v in sorted(seen)]


def _pairs() -> list[dict]:
    points = list(itertools.product(_PAIR_ENTRIES, repeat=2))
    by_value = defaultdict(list)
    for x, y in itertools.product(points, repeat=2):
        if x == y or x == (1, 2) or y == (3, -1):  # not the lecture's points
            continue
        dot = x[0] * y[0] + x[1] * y[1]
        cross = x[0] * x[1] * y[0] * y[1]
        if dot + 1 in (0, 1, 2, -2) or dot + cross == 0:  # k in (0, 1, 4); no-sqrt2 == k
            continue
        by_value[abs(dot + 1)].append((x, y))
    found = []
    for value in sorted(by_value):
        group = by_value[value]
        take = min(len(group), _PAIRS_PER_VALUE)
        found += [group[i * len(group) // take] for i in range(take)]
    return [{"x": list(x), "xp": list(y)} for x, y in found]


def _denominator(expr) -> int:
    return max((a.q for a in sp.sympify(expr).atoms(sp.Rational)), default=1)


def _tables(q: int) -> list[tuple]:
    """Sets of three ratios whose distances for similarity 1/q stay within NICE."""
    def nice(r):
        return _denominator(sp.sqrt(2 - 2 * sp.Integer(q) ** (-sp.Rational(r * r)))) <= 256

    usable = [r for r in _RATIOS if nice(r)]
    return [t for t in itertools.combinations(usable, 3)
            if not (q == 2 and set(t) <= _LECTURE_RATIOS)]


def _gammas() -> list[dict]:
    found = []
    for q in _SIMILARITY_INVERSES:
        tables = _tables(q)
        for j, D in enumerate(_DISTANCES):
            if (q, D) == (2, 2):  # the lecture's gamma
                continue
            ratios = tables[j * len(tables) // len(_DISTANCES)]  # spread, one per D
            found.append({"distance": D, "similarity": f"1/{q}",
                          "table_distances": [int(r * D) for r in ratios]})
    return found


def candidates() -> dict[str, list[dict]]:
    """The candidates of every family, in draw order."""
    return {"tally": _tallies(), "monomials": _monomial_counts(), "pair": _pairs(),
            "gamma": _gammas()}


def _rbf(gamma):
    def k(a, b):
        return rbf_kernel(sp.Matrix([[a]]), sp.Matrix([[b]]), gamma)[0, 0]
    return k


def _distances(gamma, table) -> sp.Matrix:
    return sp.Matrix([feature_distance(_rbf(gamma), sp.Integer(0), t) for t in table])


def count_answers(n) -> dict:
    """The exact answers of the ``tally`` and ``monomials`` families."""
    return {
        "ps2_count_tally": sp.Integer(count_distinct_products(int(n.d_tally), int(n.p_tally))),
        "ps2_count_monomials": sp.Integer(count_monomials(int(n.d_all), int(n.p_all))),
    }


def pair_answers(n) -> dict:
    """The exact answers of the ``pair`` family."""
    phi_x, phi_xp = quadratic_map(n.x), quadratic_map(n.xp)
    return {
        "ps2_quad_kernel_direct": poly_kernel(n.x.T, n.xp.T, 2)[0, 0],
        "ps2_quadratic_map_x": phi_x,
        "ps2_quadratic_map_xprime": phi_xp,
    }


def gamma_answers(n) -> dict:
    """The exact answers of the ``gamma`` family."""
    gamma = gamma_for_similarity(n.distance, n.similarity)
    return {"ps2_gamma_exact": gamma,
            "ps2_feature_distances_gamma": _distances(gamma, n.table_distances)}


def answers(n) -> dict:
    """The exact answers of one student's numbers ``n``."""
    return {**count_answers(n), **pair_answers(n), **gamma_answers(n),
            **ps2_geometry.answers(n)}


def float_answers(n) -> dict:
    """The same answers by floating point, without sympy: enumeration, numpy, kpca_ref."""
    d_t, p_t, d_a, p_a = int(n.d_tally), int(n.p_tally), int(n.d_all), int(n.p_all)
    tally = sum(1 for i in range(p_t + 1) for _ in itertools.combinations(range(d_t), i))
    monomials = sum(1 for a in itertools.product(range(p_a + 1), repeat=d_a) if sum(a) <= p_a)
    x = np.array([float(v) for v in n.x])
    xp = np.array([float(v) for v in n.xp])
    phi_x, phi_xp = quadratic_map(x), quadratic_map(xp)
    gamma = gamma_for_similarity(float(n.distance), float(n.similarity))

    def k(a, b):
        return rbf_kernel(np.atleast_2d(a), np.atleast_2d(b), gamma)[0, 0]

    distances = [feature_distance(k, np.array([0.0]), np.array([float(t)]))
                 for t in n.table_distances]
    return {
        "ps2_count_tally": float(tally),
        "ps2_count_monomials": float(monomials),
        "ps2_quad_kernel_direct": float((x @ xp + 1.0) ** 2),
        "ps2_quadratic_map_x": phi_x.reshape(6, 1),
        "ps2_quadratic_map_xprime": phi_xp.reshape(6, 1),
        "ps2_gamma_exact": gamma,
        "ps2_feature_distances_gamma": np.array(distances).reshape(-1, 1),
        **ps2_geometry.float_answers(n),
    }


def _no_sqrt2(v) -> sp.Matrix:
    a, b = v
    return sp.Matrix([a**2, b**2, 1, a * b, a, b])


def mistakes(n) -> dict:
    """Values the lecture's classic mistakes give on these numbers (right values dropped)."""
    right = answers(n)
    d_t, p_t, d_a, p_a = int(n.d_tally), int(n.p_tally), int(n.d_all), int(n.p_all)
    dot = n.x.dot(n.xp)
    q_inverse = 1 / n.similarity
    gamma_plain = sp.log(q_inverse) / n.distance  # the plain distance, not its square
    found = {
        "ps2_count_tally": [
            ("counted_all_monomials", MISTAKES["counted_all_monomials"],
             sp.Integer(math.comb(d_t + p_t, p_t))),
            ("ordered_products", MISTAKES["ordered_products"], sp.Integer(d_t**p_t)),
        ],
        "ps2_count_monomials": [
            ("counted_distinct_only", MISTAKES["counted_distinct_only"],
             sp.Integer(sum(math.comb(d_a, i) for i in range(p_a + 1)))),
            ("ordered_products", MISTAKES["ordered_products"],
             sp.Integer(sum(d_a**i for i in range(p_a + 1)))),
            ("ordered_products", MISTAKES["ordered_products"], sp.Integer(d_a**p_a)),
        ],
        "ps2_quad_kernel_direct": [
            ("kernel_without_constant", "the quadratic kernel adds 1 to x.x' before squaring",
             dot**2),
            ("kernel_not_squared", "the quadratic kernel squares x.x' + 1", dot + 1),
        ],
        "ps2_quadratic_map_x": [("missing_sqrt2", MISTAKES["missing_sqrt2"], _no_sqrt2(n.x))],
        "ps2_quadratic_map_xprime": [
            ("missing_sqrt2", MISTAKES["missing_sqrt2"], _no_sqrt2(n.xp))],
        "ps2_gamma_exact": [
            ("rbf_unsquared_distance", MISTAKES["rbf_unsquared_distance"], gamma_plain),
            ("gamma_sign", "gamma must be positive: it is ln(1/s) / d^2 = -ln(s) / d^2",
             -right["ps2_gamma_exact"]),
        ],
        "ps2_feature_distances_gamma": [
            ("squared_distance", MISTAKES["squared_distance"],
             right["ps2_feature_distances_gamma"].applyfunc(lambda v: sp.expand(v**2))),
            ("rbf_unsquared_distance", MISTAKES["rbf_unsquared_distance"],
             sp.Matrix([sp.sqrt(2 - 2 * sp.exp(-gamma_plain * t)) for t in n.table_distances])),
        ],
        **ps2_geometry.mistakes(n),
    }
    return {name: [m for m in wrong if not _same(m[2], right[name])]
            for name, wrong in found.items()}


def _same(a, b) -> bool:
    """Equal values (to 30 digits: every value here is a closed form of small numbers)."""
    a = list(a) if isinstance(a, sp.MatrixBase) else [a]
    b = list(b) if isinstance(b, sp.MatrixBase) else [b]
    return len(a) == len(b) and all(abs(sp.N(u - v, 30)) < 1e-25 for u, v in zip(a, b))
