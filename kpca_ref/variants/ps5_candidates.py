"""ps5_kernel_pca: the candidate tables of its three families, ``khat``, ``poly`` and ``cost``.

``khat`` candidates are centred symmetric integer 3 x 3 matrices ``Q diag(eta) Q^T`` built
from an integer orthogonal pair of directions in the plane x1 + x2 + x3 = 0, with distinct
integer eigenvalues eta_1 > eta_2 > 0 (at most three orientations per pair), small entries,
and denominators of at most ``NICE["denominator"]`` in the radical answers. ``poly``
candidates are training points symmetric about 0, square kernel coefficients ``c1, c2``
and a new point, one candidate per distinct set of answers. ``cost`` candidates are the size
of a fitted model: ``n_train`` training points and ``l_keep`` components, every pair distinct,
so every pair of counts (kernel evaluations, multiplications) of projecting a new point is
too. No family repeats an answer of the lecture's worked example (:data:`LECTURE`). The
answers computed from these numbers are in :mod:`kpca_ref.variants.ps5`.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

__all__ = ["LECTURE", "NICE", "candidates"]

LECTURE = {
    "khat": {"K_hat": [[5, -3, -2], [-3, 5, -2], [-2, -2, 4]]},
    "poly": {"X": [-1, 0, 1], "c1": 1, "c2": 1, "x_new": 2},
    # the textbook's model: three training points, both positive components kept
    "cost": {"n_train": 3, "l_keep": 2},
}
#: the largest denominator of any rational in the numbers and answers (radical answers:
#: of the rational factors sympy writes, e.g. the 1/30 of sqrt(30)/30)
NICE = {"denominator": 30}


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
        # no answer may equal the lecture's: eigenvalues, coordinates (up to sign), error;
        # and the two coordinates must differ in size, or listing them in ascending order
        # (a classic mistake) gives the same answer up to sign
        usable = [x for x in _NEW_POINTS if x not in xs and not any(
            a == b for a, b in zip(_poly_key(xs, c1, c2, x), taken))
            and len(set(_poly_key(xs, c1, c2, x)[1])) == 2]
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


# ----------------------------------------------------------------------------- cost family
#: training set sizes and numbers of components kept: a model fitted on a few hundred points,
#: a handful of components (l <= n - 1 always), far from the textbook's n = 3, l = 2
_COST_SIZES = tuple(range(120, 1001, 40))
_COST_COMPONENTS = tuple(range(2, 10))


def _costs() -> list[dict]:
    lecture = LECTURE["cost"]
    return [{"n_train": n, "l_keep": kept} for n in _COST_SIZES for kept in _COST_COMPONENTS
            if n != lecture["n_train"] and n * kept != lecture["n_train"] * lecture["l_keep"]]


def candidates() -> dict[str, list[dict]]:
    """The candidates of the three families, in draw order."""
    return {"khat": _khats(), "poly": _polys(), "cost": _costs()}
