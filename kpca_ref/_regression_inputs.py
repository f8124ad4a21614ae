"""Input checks of the kernel regression functions (ps6).

Matrices and vectors are float arrays on the numeric route and sympy matrices (no float
inside) on the exact route; each check raises ``ValueError`` or ``TypeError`` naming the
argument, the problem and what was received. Used by :mod:`kpca_ref.kernel_regression`
and :mod:`kpca_ref.gd_convergence`.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

__all__ = ["as_matrix", "as_vector", "check_rate", "check_square", "check_steps", "shape_of"]


def shape_of(value) -> tuple:
    """The shape of a numpy array, a sympy Matrix or a nested list."""
    return tuple(value.shape) if hasattr(value, "shape") else np.shape(value)


def as_matrix(value, name: str, exact: bool):
    """A 2-D float array, or a sympy Matrix on the exact route."""
    if exact:
        if not isinstance(value, sp.MatrixBase):
            value = sp.Matrix(value)
        if any(entry.has(sp.Float) for entry in value):
            raise TypeError(f"{name} contains a float: the exact route needs sympy numbers")
        return sp.Matrix(value)
    arr = np.asarray(value, dtype=float)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf")
    return arr


def as_vector(value, name: str, exact: bool):
    """A 1-D float array, or a sympy column Matrix on the exact route."""
    if exact:
        vec = sp.Matrix(list(value) if not isinstance(value, sp.MatrixBase) else value)
        if 1 not in vec.shape:
            raise ValueError(f"{name} must be a vector, got shape {vec.shape}")
        if any(entry.has(sp.Float) for entry in vec):
            raise TypeError(f"{name} contains a float: the exact route needs sympy numbers")
        return vec.reshape(len(vec), 1)
    arr = np.asarray(value, dtype=float)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf")
    return arr


def check_square(K, name: str = "K"):
    """``K`` itself when it is square (array or sympy Matrix)."""
    if shape_of(K)[0] != shape_of(K)[1]:
        raise ValueError(f"{name} must be square, got shape {shape_of(K)}")
    return K


def check_steps(steps) -> int:
    """The number of gradient steps: an integer ``>= 0``."""
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)):
        raise TypeError(f"steps must be an integer, got {type(steps).__name__}")
    if steps < 0:
        raise ValueError(f"steps must be >= 0, got {steps}")
    return int(steps)


def check_rate(alpha, exact: bool):
    """The step size ``alpha``: positive; a sympy number (no float) on the exact route."""
    if exact:
        alpha = sp.sympify(alpha)
        if alpha.has(sp.Float):
            raise TypeError("alpha is a float: the exact route needs a sympy number")
    if not alpha > 0:
        raise ValueError(f"the step size alpha must be positive, got {alpha}")
    return alpha if exact else float(alpha)
