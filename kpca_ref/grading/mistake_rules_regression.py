"""How the classic mistakes of ps6 (kernel regression by gradient descent) would answer.

Each rule recomputes, with plain numpy from the case's arguments, what a classic mistake
returns and gives the code of the first one the student's result matches (see
:func:`kpca_ref.grading.mistakes.diagnose`).

>>> K, y = np.array([[2.0, 1.0], [1.0, 2.0]]), np.array([1.0, -1.0])
>>> RULES["kernel_ridge"]((K, y, 0.5), np.linalg.solve(K, y))
'ridge_without_lambda'
"""

from __future__ import annotations

import numpy as np

from kpca_ref.grading.mistake_match import first_match as _first
from kpca_ref.grading.mistake_match import floats as _f

__all__ = ["RULES"]


def _batch(K, y, alpha, steps, sign=1.0):
    beta = np.zeros(len(y))
    for _ in range(steps):
        beta = beta + sign * alpha * (y - K @ beta)
    return beta


def _sequential(K, y, alpha, steps):
    beta = np.zeros(len(y))
    for _ in range(steps):
        for i in range(len(y)):
            beta[i] += alpha * (y[i] - K[i] @ beta)
    return beta


def _dual(args, actual):
    K, y, alpha, steps = _f(args[0]), _f(args[1]), float(args[2]), int(args[3])
    return _first(actual, [
        ("sequential_update", lambda: _sequential(K, y, alpha, steps)),
        ("off_by_one_step", lambda: _batch(K, y, alpha, steps - 1)),
        ("off_by_one_step", lambda: _batch(K, y, alpha, steps + 1)),
        ("update_sign", lambda: _batch(K, y, alpha, steps, sign=-1.0)),
    ])


def _primal(args, actual):
    Phi, y, alpha, steps = _f(args[0]), _f(args[1]), float(args[2]), int(args[3])

    def run(count, sign=1.0):
        theta = np.zeros(Phi.shape[1])
        for _ in range(count):
            theta = theta + sign * alpha * (Phi.T @ (y - Phi @ theta))
        return theta

    return _first(actual, [("off_by_one_step", lambda: run(steps - 1)),
                           ("off_by_one_step", lambda: run(steps + 1)),
                           ("update_sign", lambda: run(steps, -1.0))])


def _kernel(args, actual):
    S = _f(args[0]) @ _f(args[1]).T
    return _first(actual, [("kernel_without_constant", lambda: S + S**2 + S**3)])


def _bound(args, actual):
    values = np.linalg.eigvalsh(_f(args[0]))
    return _first(actual, [("bound_not_doubled", lambda: 1.0 / values[-1]),
                           ("bound_from_trace", lambda: 2.0 / values.sum())])


def _ridge(args, actual):
    K, y, lam = _f(args[0]), _f(args[1]), float(args[2])
    return _first(actual, [
        ("ridge_without_lambda", lambda: np.linalg.solve(K, y)),
        ("ridge_all_entries", lambda: np.linalg.solve(K + lam, y))])


#: contract name -> rule(args, actual) -> diagnosis code or None
RULES = {
    "gd_dual_fit": _dual,
    "gd_primal_fit": _primal,
    "cubic_kernel": _kernel,
    "max_step_size": _bound,
    "kernel_ridge": _ridge,
}
