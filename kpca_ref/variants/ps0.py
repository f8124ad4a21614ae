"""ps0_high_dimensions: each student's dimension, thin shell and cap around a direction.

The exam cards' opening card works the ball inside the cube in two and three dimensions
(pi/4 and pi/6) and says that a random direction in R^30 almost never comes near a chosen
one. The problem set asks the same questions in other dimensions.

Families:

``ball``
    a dimension ``N.m`` (4 to 23): the exact ratio of the m-ball's volume to its enclosing
    cube's, and the distance from the cube's centre to a corner in units of the radius
    (``sqrt(m)``). 20 candidates.
``shell``
    a dimension ``N.m_shell`` and a relative width ``N.eps``: the exact fraction of the
    ball's volume in the outer shell, ``1 - (1 - eps)**m``; one candidate per distinct
    answer.
``cap``
    a dimension ``N.m_cap`` and an angle ``N.angle`` (degrees): the exact fraction of the
    unit sphere within that angle of a fixed direction, and the expected number of random
    unit vectors tried until one lies within that angle of the direction *or of its
    opposite* (a principal direction has no sign): ``1 / (2 * fraction)``.
"""

from __future__ import annotations

import math

import sympy as sp

from kpca_ref.high_dimensions import ball_cube_ratio, cap_fraction, shell_fraction

PS = "ps0_high_dimensions"
FAMILIES = {"ball": 20, "shell": 20, "cap": 20}
LECTURE = {
    "ball": {"m": 3},
    "shell": {"m_shell": 10, "eps": "1/10"},
    "cap": {"m_cap": 3, "angle": 60},
}
ITEMS = {
    "ps0_ball_ratio": ("ball",),
    "ps0_corner_length": ("ball",),
    "ps0_shell_fraction": ("shell",),
    "ps0_cap_fraction": ("cap",),
    "ps0_tries_estimate": ("cap",),
}
UP_TO_SIGN = frozenset()
#: the largest denominator of a rational in any answer: the ball ratio's 1/(Gamma(m/2+1) 2^m)
#: at m = 23 (about 6.5e14). Students get these from sympy's gamma, not by hand.
NICE = {"denominator": 10**15}

_BALL_DIMENSIONS = range(4, 24)
_SHELL_DIMENSIONS = range(2, 9)
_WIDTHS = ("1/2", "1/3", "1/4", "1/5", "1/10")
_CAP_DIMENSIONS = range(3, 11)
_ANGLES = (30, 45, 60)


def _shells() -> list[dict]:
    found, seen = [], set()
    for m in _SHELL_DIMENSIONS:
        for eps in _WIDTHS:
            value = shell_fraction(sp.Integer(m), sp.Rational(eps))
            if value not in seen:
                seen.add(value)
                found.append({"m_shell": m, "eps": eps})
    return found


def _caps() -> list[dict]:
    lecture = LECTURE["cap"]
    return [{"m_cap": m, "angle": a} for m in _CAP_DIMENSIONS for a in _ANGLES
            if (m, a) != (lecture["m_cap"], lecture["angle"])]


def candidates() -> dict[str, list[dict]]:
    """The candidates of the three families, in draw order."""
    return {"ball": [{"m": m} for m in _BALL_DIMENSIONS], "shell": _shells(), "cap": _caps()}


def answers(n) -> dict:
    """The exact answers of one student's numbers ``n``."""
    cap = cap_fraction(n.m_cap, n.angle)
    return {
        "ps0_ball_ratio": ball_cube_ratio(n.m),
        "ps0_corner_length": sp.sqrt(n.m),
        "ps0_shell_fraction": shell_fraction(n.m_shell, n.eps),
        "ps0_cap_fraction": cap,
        "ps0_tries_estimate": 1 / (2 * cap),
    }


def float_answers(n) -> dict:
    """The same answers by floating point (lgamma, expm1, the regularised beta function)."""
    m = int(n.m)
    cap = cap_fraction(int(n.m_cap), float(n.angle))
    return {
        "ps0_ball_ratio": math.exp(0.5 * m * math.log(math.pi) - math.lgamma(0.5 * m + 1)
                                   - m * math.log(2.0)),
        "ps0_corner_length": math.sqrt(m),
        "ps0_shell_fraction": 1.0 - (1.0 - float(n.eps)) ** int(n.m_shell),
        "ps0_cap_fraction": cap,
        "ps0_tries_estimate": 1.0 / (2.0 * cap),
    }


_GAMMA = ("this uses Gamma(m/2) in the denominator: the ball's volume has Gamma(m/2 + 1) "
          "(in 2-D both give pi r^2, in 3-D they do not)")
_CUBE_R = ("this compares the ball with a cube of side r: the enclosing cube has side 2r, "
           "volume (2r)^m")
_SQUARED = "this is the squared distance to the corner: take the square root"
_CORE = "this is the fraction in the inner ball of radius (1 - eps) r, not in the shell"
_BOTH_CAPS = ("this counts both caps, around the direction and around its opposite: the "
              "fraction asks for one")
_PLANAR = "angle / 180 is the fraction on a circle (m = 2); on the sphere in R^m it is smaller"
_ONE_CAP = ("this waits for one cap only: a principal direction has no sign, so a try also "
            "succeeds near the opposite direction (two caps)")


def mistakes(n) -> dict:
    """Values the classic mistakes give on these numbers."""
    half = n.m / 2
    cap = cap_fraction(n.m_cap, n.angle)
    return {
        "ps0_ball_ratio": [
            ("gamma_argument", _GAMMA, sp.pi**half / (sp.gamma(half) * 2**n.m)),
            ("cube_side_r", _CUBE_R, sp.pi**half / sp.gamma(half + 1)),
        ],
        "ps0_corner_length": [("squared_distance", _SQUARED, n.m)],
        "ps0_shell_fraction": [("core_not_shell", _CORE, (1 - n.eps) ** n.m_shell)],
        "ps0_cap_fraction": [("both_caps", _BOTH_CAPS, 2 * cap),
                             ("planar_fraction", _PLANAR, n.angle / sp.Integer(180))],
        "ps0_tries_estimate": [("one_cap_only", _ONE_CAP, 1 / cap)],
    }
