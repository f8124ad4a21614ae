"""ps0 (data in high dimensions): correct implementations written differently, float32
versions, and the classic mistakes, merged into the shared tables of the grading tests.

Correct ones: the ball ratio by the Gamma recursion, the shell by the plain formula, the
Monte Carlo share by a loop, angles with a unit vector first, the cap by numerical
integration (trapezoids) instead of the regularised beta function.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

F32 = np.float32


def ball_cube_ratio(m):
    if isinstance(m, bool) or not isinstance(m, (int, np.integer, sp.Integer)):
        raise TypeError("m must be an integer")
    if m < 1:
        raise ValueError("m must be at least 1")
    if isinstance(m, sp.Integer):
        return sp.pi ** (m / sp.Integer(2)) / (sp.gamma(m / sp.Integer(2) + 1) * 2**m)
    # V_m(1) = V_{m-2}(1) * 2 pi / m, V_0 = 1, V_1 = 2
    volume = 1.0 if m % 2 == 0 else 2.0
    for k in range(2 + m % 2, int(m) + 1, 2):
        volume *= 2.0 * math.pi / k
    return volume / 2.0**m


def shell_fraction(m, eps):
    if m < 1 or not 0 <= eps <= 1:
        raise ValueError("need m >= 1 and 0 <= eps <= 1")
    return 1 - (1 - eps) ** m


def inside_fraction(X):
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError("X must be 2-D")
    inside = 0
    for row in X.tolist():
        inside += math.sqrt(sum(x * x for x in row)) <= 1.0
    p = inside / len(X)
    return (p, (p * (1 - p) / len(X)) ** 0.5)


def angles_deg(U, v):
    U, v = np.asarray(U, dtype=float), np.asarray(v, dtype=float)
    if U.ndim != 2 or v.shape != (U.shape[1],):
        raise ValueError("shapes do not fit")
    if np.linalg.norm(v) == 0 or (np.linalg.norm(U, axis=1) == 0).any():
        raise ValueError("zero vector")
    unit = v / np.linalg.norm(v)
    rows = U / np.linalg.norm(U, axis=1, keepdims=True)
    return [math.degrees(math.acos(min(1.0, max(-1.0, c)))) for c in (rows @ unit).tolist()]


def cap_fraction(m, angle):
    if m < 2 or not 0 <= angle <= 180:
        raise ValueError("need m >= 2 and 0 <= angle <= 180")
    if angle > 90:
        return 1.0 - cap_fraction(m, 180.0 - angle)
    # integrate sin^(m-2) on a fine grid (log-space weights keep tiny caps accurate)
    t = np.linspace(0.0, math.radians(angle), 20001)
    full = np.linspace(0.0, math.pi / 2, 20001)
    with np.errstate(divide="ignore"):
        part = np.exp((m - 2) * np.log(np.sin(t)))
        half = np.exp((m - 2) * np.log(np.sin(full)))
    if m == 2:
        return angle / 180.0
    simpson = (lambda y, h: h / 3 * (y[0] + y[-1] + 4 * y[1:-1:2].sum() + 2 * y[2:-1:2].sum()))
    return float(simpson(part, t[1] - t[0]) / (2 * simpson(half, full[1] - full[0])))


# ----------------------------------------------------------------------------- float32
def _ball32(m):
    from kpca_ref import ball_cube_ratio as ref

    if isinstance(m, sp.Integer):
        return ref(m)
    if m < 1:
        raise ValueError("m must be at least 1")
    # the formula as it reads: the denominator overflows float32 from m = 49 on
    with np.errstate(over="ignore"):
        return F32(np.pi) ** F32(m / 2) / (F32(math.gamma(m / 2 + 1)) * F32(2) ** F32(m))


def _shell32(m, eps):
    if isinstance(eps, sp.Basic):
        return 1 - (1 - eps) ** m
    if m < 1 or not 0 <= eps <= 1:
        raise ValueError("need m >= 1 and 0 <= eps <= 1")
    return F32(-np.expm1(F32(m) * np.log1p(-F32(eps))))


def _inside32(X):
    X = np.asarray(X, dtype=F32)
    if X.ndim != 2:
        raise ValueError("X must be 2-D")
    p = F32(np.count_nonzero((X * X).sum(axis=1, dtype=F32) <= F32(1))) / F32(len(X))
    return np.array([p, np.sqrt(p * (F32(1) - p) / F32(len(X)))], dtype=F32)


def _angles32(U, v):
    U, v = np.asarray(U, dtype=F32), np.asarray(v, dtype=F32)
    if U.ndim != 2 or v.shape != (U.shape[1],):
        raise ValueError("shapes do not fit")
    norms = np.linalg.norm(U, axis=1) * np.linalg.norm(v)
    if (norms == 0).any():
        raise ValueError("zero vector")
    return np.degrees(np.arccos(np.clip((U @ v) / norms, F32(-1), F32(1)))).astype(F32)


def _cap32(m, angle):
    from kpca_ref import cap_fraction as ref

    return F32(ref(m, angle))


# ----------------------------------------------------------------------------- mistakes
def _ball_gamma(m):
    if m < 1:
        raise ValueError("m must be at least 1")
    return math.pi ** (m / 2) / (math.gamma(m / 2) * 2.0**m)


def _ball_side_r(m):
    if m < 1:
        raise ValueError("m must be at least 1")
    return math.pi ** (m / 2) / math.gamma(m / 2 + 1)


def _inside_variance(X):
    p, se = inside_fraction(X)
    return (p, se * se)


def _inside_over_n(X):
    p, _ = inside_fraction(X)
    return (p, math.sqrt(p * (1 - p)) / len(X))


def _angles_raw_dot(U, v):
    U, v = np.asarray(U, dtype=float), np.asarray(v, dtype=float)
    if U.ndim != 2 or v.shape != (U.shape[1],) or np.linalg.norm(v) == 0:
        raise ValueError("shapes do not fit")
    return np.degrees(np.arccos(np.clip((U @ v) / np.linalg.norm(v), -1, 1)))


def _cap_exponent(m, angle):
    from kpca_ref import cap_fraction as ref

    return ref(m + 1, angle)


def _angles_unclipped(U, v):
    U, v = np.asarray(U, dtype=float), np.asarray(v, dtype=float)
    if U.ndim != 2 or v.shape != (U.shape[1],) or np.linalg.norm(v) == 0:
        raise ValueError("shapes do not fit")
    with np.errstate(invalid="ignore"):
        return np.degrees(np.arccos((U @ v) / (np.linalg.norm(U, axis=1) * np.linalg.norm(v))))


def _angles_radians(U, v):
    return np.radians(np.asarray(angles_deg(U, v)))


def _cap_both(m, angle):
    from kpca_ref import cap_fraction as ref

    return 2 * ref(m, angle)


def _cap_planar(m, angle):
    if m < 2 or not 0 <= angle <= 180:
        raise ValueError("need m >= 2 and 0 <= angle <= 180")
    return angle / 180.0


ALTERNATIVES = {name: globals()[name] for name in (
    "ball_cube_ratio", "shell_fraction", "inside_fraction", "angles_deg", "cap_fraction")}

FLOAT32 = {"ball_cube_ratio": _ball32, "shell_fraction": _shell32, "inside_fraction": _inside32,
           "angles_deg": _angles32, "cap_fraction": _cap32}

MISTAKEN = [
    ("ball_cube_ratio", "gamma_argument", _ball_gamma),
    ("ball_cube_ratio", "cube_side_r", _ball_side_r),
    ("shell_fraction", "core_not_shell", lambda m, eps: (1 - eps) ** m),
    ("inside_fraction", "variance_not_standard_error", _inside_variance),
    ("inside_fraction", "standard_error_divisor", _inside_over_n),
    ("angles_deg", "not_normalised", _angles_raw_dot),
    ("cap_fraction", "sphere_exponent", _cap_exponent),
    ("angles_deg", "arccos_not_clipped", _angles_unclipped),
    ("angles_deg", "radians_not_degrees", _angles_radians),
    ("cap_fraction", "both_caps", _cap_both),
    ("cap_fraction", "planar_fraction", _cap_planar),
]
