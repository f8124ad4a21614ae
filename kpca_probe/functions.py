"""Python callables that hidden test cases hand to the student's functions.

They live here, not in ``kpca_ref``, because the case file the grader writes for the
student's kernel holds references to them, and the kernel can import ``kpca_probe``
but not the reference implementation. None of them is an answer to anything.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["asym", "asym_shift", "k_dist", "k_linear", "k_neg_rbf", "k_one_minus_sq", "k_poly",
           "k_rbf", "k_sqdist"]


def k_rbf(x, y, gamma=0.8):
    """RBF kernel of two points.

    >>> k_rbf([0.0, 0.0], [0.0, 0.0])
    1.0
    """
    diff = np.asarray(x, dtype=float) - np.asarray(y, dtype=float)
    return float(np.exp(-gamma * float(diff @ diff)))


def k_poly(x, y, p=2, c=1.0):
    """Polynomial kernel ``(x @ y + c)^p`` of two points."""
    return float((float(np.asarray(x, dtype=float) @ np.asarray(y, dtype=float)) + c) ** p)


def k_linear(x, y):
    """Linear kernel ``x @ y`` of two points."""
    return float(np.asarray(x, dtype=float) @ np.asarray(y, dtype=float))


def asym(x, y):
    """A function of two points that is not symmetric: ``x @ y + x[0]``."""
    return float(np.asarray(x, dtype=float) @ np.asarray(y, dtype=float) + x[0])


def asym_shift(x, y):
    """Another non-symmetric function: ``exp(x[0] - 2 y[0])``."""
    return float(np.exp(float(x[0]) - 2.0 * float(y[0])))


def k_sqdist(x, y):
    """The squared distance ``||x - y||^2`` (not a kernel)."""
    diff = np.asarray(x, dtype=float) - np.asarray(y, dtype=float)
    return float(diff @ diff)


def k_neg_rbf(x, y):
    """Minus an RBF kernel (symmetric, not PSD)."""
    return -k_rbf(x, y, 1.0)


def k_dist(x, y):
    """The plain distance ``||x - y||`` (symmetric, not PSD)."""
    return math.sqrt(k_sqdist(x, y))


def k_one_minus_sq(x, y):
    """``1 - ||x - y||^2`` (symmetric, not PSD)."""
    return 1.0 - k_sqdist(x, y)
