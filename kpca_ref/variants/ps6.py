"""ps6_kernel_regression: each student's 3-point regression problem.

The notes on the kernel trick (``shared/seeds/003``) give the update and the kernel but no
numbers; the notebook's worked example is the kit's own: training points x = -1, 0, 1 on
the line, targets y = 1, 0, 2, the notes' kernel ``k(x, z) = 1 + xz + (xz)^2 + (xz)^3`` (so
K = [[4, 1, 0], [1, 1, 1], [0, 1, 4]]), step size 1/8, a new point x* = 2 (kernel values
-5, 1, 15) and the ridge parameter lambda = 1.

Families:

``points``
    three distinct integer training points ``N.x`` in [-3, 3], for the kernel matrix of
    the notes' kernel.
``system``
    a symmetric positive definite integer kernel matrix ``N.K`` (of three points the student
    need not know), integer targets ``N.y``, the kernel values ``N.k_new`` of a new point
    against the three, a step size ``N.alpha = 1/q`` below ``2 / lambda_max(K)`` and a ridge
    parameter ``N.lam``. ``det K`` and ``det(K + lam I)`` are at most ``NICE``, so every
    fraction of the answers has a denominator of at most ``NICE``.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import sympy as sp

from kpca_ref.gd_convergence import kernel_ridge
from kpca_ref.kernel_regression import cubic_kernel, gd_dual_fit, kernel_predict

PS = "ps6_kernel_regression"
FAMILIES = {"points": 20, "system": 100}
LECTURE = {
    "points": {"x": [-1, 0, 1]},
    "system": {"K": [[4, 1, 0], [1, 1, 1], [0, 1, 4]], "y": [1, 0, 2], "k_new": [-5, 1, 15],
               "alpha": "1/8", "lam": 1},
}
ITEMS = {
    "ps6_kernel_matrix": ("points",),
    "ps6_beta_two_steps": ("system",),
    "ps6_beta_limit": ("system",),
    "ps6_predict_new": ("system",),
    "ps6_ridge_beta": ("system",),
}
UP_TO_SIGN = frozenset()
#: the largest denominator of any fraction in the numbers and answers
NICE = {"denominator": 100}

_RATES = ((1, 2), (1, 4), (1, 5), (1, 8))
_LAMS = (1, 2, 3)
_MAX_CANDIDATES = 240


def _column(values) -> sp.Matrix:
    entries = list(values)
    return sp.Matrix(len(entries), 1, entries)


def answers(n) -> dict:
    """The exact answers of one student's numbers ``n``."""
    xs = _column(n.x)
    K, y = n.K, _column(n.y)
    limit = kernel_ridge(K, y, 0)
    return {
        "ps6_kernel_matrix": cubic_kernel(xs, xs),
        "ps6_beta_two_steps": gd_dual_fit(K, y, n.alpha, 2),
        "ps6_beta_limit": limit,
        "ps6_predict_new": kernel_predict(n.k_new.T, limit)[0],
        "ps6_ridge_beta": kernel_ridge(K, y, n.lam),
    }


def _sequential(K, y, alpha, steps) -> sp.Matrix:
    """The per-coordinate reading of the update: each beta_i uses the newest values."""
    beta = sp.zeros(len(y), 1)
    for _ in range(steps):
        for i in range(len(y)):
            beta[i] = beta[i] + alpha * (y[i] - (K[i, :] * beta)[0])
    return beta


_ONE_STEP = "this is beta after one update: apply the update twice, starting from beta = 0"
_SEQUENTIAL = ("this updates the coefficients one after another, each with the newest values: "
               "the gradient step computes every residual y_i - sum_j beta_j K_ij from the "
               "same old beta")
_NO_CONSTANT = ("these entries miss the constant term: k(x, z) = 1 + xz + (xz)^2 + (xz)^3 "
                "starts with 1")
_NO_LAMBDA = ("this is K^-1 y, the interpolating fixed point: ridge adds lambda to the "
              "diagonal, (K + lambda I)^-1 y")
_ALL_ENTRIES = "this adds lambda to every entry of K: ridge adds it to the diagonal only"


def mistakes(n) -> dict:
    """Values the classic mistakes give on these numbers."""
    xs = _column(n.x)
    K, y = n.K, _column(n.y)
    ones = sp.ones(3, 3)
    return {
        "ps6_kernel_matrix": [("kernel_without_constant", _NO_CONSTANT,
                               cubic_kernel(xs, xs) - ones)],
        "ps6_beta_two_steps": [("one_step_only", _ONE_STEP, n.alpha * y),
                               ("sequential_update", _SEQUENTIAL, _sequential(K, y, n.alpha, 2))],
        "ps6_ridge_beta": [("ridge_without_lambda", _NO_LAMBDA, kernel_ridge(K, y, 0)),
                           ("ridge_all_entries", _ALL_ENTRIES, (K + n.lam * ones).LUsolve(y))],
    }


# ----------------------------------------------------------------------------- candidates
def _det3(M) -> int:
    return (M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1])
            - M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0])
            + M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0]))


def _shifted(K, lam) -> list[list[int]]:
    return [[K[i][j] + (lam if i == j else 0) for j in range(3)] for i in range(3)]


def _solve3(K, y) -> list[Fraction]:
    """``K^-1 y`` by Cramer's rule, exactly."""
    det = _det3(K)
    return [Fraction(_det3([[y[i] if j == col else K[i][j] for j in range(3)]
                             for i in range(3)]), det) for col in range(3)]


def _prediction(system) -> Fraction:
    beta = _solve3(system["K"], system["y"])
    return sum(k * b for k, b in zip(system["k_new"], beta))


def _points() -> list[dict]:
    lecture = LECTURE["points"]["x"]
    return [{"x": list(xs)} for xs in itertools.combinations(range(-3, 4), 3)
            if list(xs) != lecture]


def _matrices() -> list[list[list[int]]]:
    """Symmetric positive definite integer 3 x 3 matrices with small determinants."""
    found = []
    for d0, d1, d2 in itertools.product(range(2, 6), repeat=3):
        for a, b, c in itertools.product(range(-1, 3), repeat=3):
            K = [[d0, a, b], [a, d1, c], [b, c, d2]]
            minors = (d0, d0 * d1 - a * a, _det3(K))
            if min(minors) > 0 and _det3(K) <= NICE["denominator"]:
                found.append(K)
    return found


def _systems() -> list[dict]:
    """Kernel matrices, targets, new kernel rows and rates whose answers stay nice.

    Every matrix that qualifies is listed first; evenly spaced ones are then taken, and
    the targets, rates and ridge parameters are spread over them by position.
    """
    lecture = LECTURE["system"]
    targets = [list(t) for t in itertools.product((-2, -1, 1, 2, 3), repeat=3)]
    usable = []
    for K in _matrices():
        top = float(np.linalg.eigvalsh(np.array(K, dtype=float))[-1])
        rates = [r for r in _RATES if r[0] / r[1] < 2 / top]  # the iteration converges
        lams = [lam for lam in _LAMS if _det3(_shifted(K, lam)) <= NICE["denominator"]]
        # K[0][1] != 0: the one-at-a-time update differs from the batch one
        if rates and lams and K != lecture["K"] and K[0][1] != 0:
            usable.append((K, rates, lams))
    step = max(1, len(usable) // _MAX_CANDIDATES)
    found = []
    for j, (K, rates, lams) in enumerate(usable[::step][:_MAX_CANDIDATES]):
        p, q = rates[j % len(rates)]
        system = {"K": K, "y": targets[(37 * j) % len(targets)],
                  "k_new": targets[(53 * j + 11) % len(targets)],
                  "alpha": f"{p}/{q}", "lam": lams[(j // len(rates)) % len(lams)]}
        limit = _solve3(K, system["y"])
        if _prediction(system) == _prediction(lecture) or limit == _solve3(
                lecture["K"], lecture["y"]):
            continue  # no answer may equal the worked example's
        if sum(limit) == 0:
            continue  # then lambda on every entry gives K^-1 y too: two mistakes, one value
        found.append(system)
    return found


def candidates() -> dict[str, list[dict]]:
    """The candidates of both families, in draw order (deterministic)."""
    return {"points": _points(), "system": _systems()}


# ----------------------------------------------------------------------------- float route
def float_answers(n) -> dict:
    """The same answers by floating point (numpy)."""
    xs = np.array([float(v) for v in n.x])
    K = np.array(n.K.tolist(), dtype=float)
    y = np.array([float(v) for v in n.y])
    k_new = np.array([float(v) for v in n.k_new])
    alpha, lam = float(n.alpha), float(n.lam)
    t = np.outer(xs, xs)
    beta1 = alpha * y
    beta2 = beta1 + alpha * (y - K @ beta1)
    limit = np.linalg.solve(K, y)
    return {
        "ps6_kernel_matrix": 1 + t + t**2 + t**3,
        "ps6_beta_two_steps": beta2,
        "ps6_beta_limit": limit,
        "ps6_predict_new": float(k_new @ limit),
        "ps6_ridge_beta": np.linalg.solve(K + lam * np.eye(3), y),
    }
