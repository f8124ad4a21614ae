"""The pool of candidate functions that ps3_mercer's Part 7 asks verdicts on.

Each entry is a :class:`Candidate`: the text a student reads (plain text, e.g.
``"(x.x' - 2)^3"``), the dimension of its points, its *group* (the kind of function: a
student's list never holds two of one group), the verdict that kernel algebra gives (a
valid kernel or not, with the reason) and a float function built here from the entry's own
parameters, never from its text. The grader looks a text up in :data:`POOL` and reads the
verdict: no text is ever evaluated.

Texts use ``x.x'`` for the dot product, ``||x - x'||^2`` for the squared distance,
``x_1``, ``x'_2`` for coordinates, ``^`` for powers and ``*`` for products. A text may end in
a domain in square brackets: ``[scalars x, x' >= 0]`` (1-D points, non-negative),
``[scalars x, x']`` (1-D points) or ``[the same for every x, x']`` (a constant); without one
the points are in R^2. The notebook's ``candidate`` helper turns a text into a function with
the same grammar (a test checks that it agrees with :attr:`Candidate.k` on every entry).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

__all__ = ["LECTURE_TEXTS", "PICTURED", "POOL", "Candidate", "pool"]

NONNEG = "  [scalars x, x' >= 0]"
SCALARS = "  [scalars x, x']"
CONSTANT = "  [the same for every x, x']"
SQD = "||x - x'||^2"
DOT = "x.x'"

#: the ten candidates of the lecture's worked list (kept out of the pool)
LECTURE_TEXTS = (
    "x.x'", "(x.x' + 1)^2", "exp(-||x - x'||^2)", "||x - x'||^2", "-x.x'", "x.x' - 1",
    "(x.x')^3", "exp(||x - x'||^2)", "min(x, x')" + NONNEG, "x_1 * x'_2",
)

#: the functions the notebook's picture plots that are not in the lecture's list
PICTURED = ("(x.x' - 1)^2",)


@dataclass(frozen=True)
class Candidate:
    """One candidate function of the pool."""

    text: str
    group: str
    valid: bool
    reason: str
    k: Callable = None  # float function of two 1-D arrays
    d: int = 2


def _dot(x, y):
    return float(np.dot(x, y))


def _sqd(x, y):
    return float(np.sum((np.asarray(x) - np.asarray(y)) ** 2))


def _num(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def _times(a: Fraction, term: str) -> str:
    """``a * term`` as text: ``2 * x.x'``, ``-x.x'``, ``x.x' / 2``, ``-3 * x.x'``."""
    sign = "-" if a < 0 else ""
    a = abs(a)
    if a == 1:
        return f"{sign}{term}"
    if a.numerator == 1:
        return f"{sign}{term} / {a.denominator}"
    return f"{sign}{_num(a)} * {term}"


def _linear() -> list[Candidate]:
    out = []
    for a in (Fraction(1), Fraction(2), Fraction(3), Fraction(1, 2), Fraction(-1), Fraction(-2),
              Fraction(-3), Fraction(-1, 2)):
        f = float(a)
        out.append(Candidate(_times(a, "x.x'"), "linear", a > 0,
                             "a positive multiple of x.x'" if a > 0 else "k(x, x) < 0",
                             lambda x, y, f=f: f * _dot(x, y)))
    for c in (Fraction(1), Fraction(2), Fraction(3), Fraction(-1), Fraction(-2), Fraction(-3),
              Fraction(-1, 2)):
        f = float(c)
        text = f"x.x' + {_num(c)}" if c > 0 else f"x.x' - {_num(-c)}"
        out.append(Candidate(text, "shifted", c > 0,
                             "phi(x) = (x, sqrt(c))" if c > 0 else "k(0, 0) < 0",
                             lambda x, y, f=f: _dot(x, y) + f))
    return out


def _polynomial() -> list[Candidate]:
    out = []
    for c in (0, 1, 2, 3, -1, -2):
        for p in (2, 3, 4):
            inner = "x.x'" if c == 0 else (f"x.x' + {c}" if c > 0 else f"x.x' - {-c}")
            out.append(Candidate(f"({inner})^{p}", "polynomial", c >= 0,
                                 "(x.x' + c)^p with c >= 0" if c >= 0
                                 else "c < 0: a point near 0 gives a negative 2 x 2 minor",
                                 lambda x, y, c=c, p=p: (_dot(x, y) + c) ** p))
    return out


def _exponentials() -> list[Candidate]:
    out = []
    for g in (Fraction(1), Fraction(2), Fraction(3), Fraction(1, 2), Fraction(-1), Fraction(-2),
              Fraction(-3), Fraction(-1, 2)):
        f = float(g)
        text = f"exp({_times(-g, SQD)})"
        out.append(Candidate(text, "rbf", g > 0,
                             "RBF with gamma > 0" if g > 0 else "gamma < 0: eigenvalue 1 - e^m",
                             lambda x, y, f=f: float(np.exp(-f * _sqd(x, y)))))
    for a in (2, 3, -2):
        for g in (1, -1):
            if a < 0 and g < 0:
                continue
            text = f"{a} * exp({'-' if g > 0 else ''}||x - x'||^2)"
            out.append(Candidate(text, "scaled_rbf", a > 0 and g > 0,
                                 "a positive multiple of a kernel" if a > 0 and g > 0
                                 else ("k(x, x) < 0" if a < 0 else "gamma < 0"),
                                 lambda x, y, a=a, g=g: a * float(np.exp(-g * _sqd(x, y)))))
    for b in (Fraction(1), Fraction(2), Fraction(1, 2), Fraction(-1), Fraction(-2)):
        f = float(b)
        out.append(Candidate(f"exp({_times(b, DOT)})", "exp_dot", b > 0,
                             "a series of polynomial kernels with positive weights" if b > 0
                             else "two points 0 and t give a negative determinant",
                             lambda x, y, f=f: float(np.exp(f * _dot(x, y)))))
    return out


def _distances() -> list[Candidate]:
    out = []
    for a in (1, 2, 3, -1, -2):
        out.append(Candidate(_times(Fraction(a), "||x - x'||^2"), "distance", False,
                             "two points give eigenvalues c and -c (times a)",
                             lambda x, y, a=a: a * _sqd(x, y)))
    out.append(Candidate("||x - x'||", "distance", False, "two points: eigenvalues +-|x - x'|",
                         lambda x, y: _sqd(x, y) ** 0.5))
    out.append(Candidate("sqrt(1 + ||x - x'||^2)", "distance", False,
                         "two points: eigenvalue 1 - sqrt(1 + c) < 0",
                         lambda x, y: (1.0 + _sqd(x, y)) ** 0.5))
    for a, g in ((1, 1), (1, 2), (2, 1)):
        text = f"{a} / (1 + {_times(Fraction(g), SQD)})"
        out.append(Candidate(text, "inverse", True, "a scale mixture of RBF kernels",
                             lambda x, y, a=a, g=g: a / (1.0 + g * _sqd(x, y))))
    return out


def _scalars() -> list[Candidate]:
    s = lambda v: float(np.ravel(v)[0])
    nn = lambda v: abs(s(v))
    return [
        Candidate("min(x, x')" + NONNEG, "order", True, "integral of indicator features",
                  lambda x, y: min(nn(x), nn(y)), 1),
        Candidate("2 * min(x, x')" + NONNEG, "order", True, "integral of indicator features",
                  lambda x, y: 2 * min(nn(x), nn(y)), 1),
        Candidate("max(x, x')" + NONNEG, "order", False, "1 and 2 give det 2 - 4 < 0",
                  lambda x, y: max(nn(x), nn(y)), 1),
        Candidate("min(x, x') - 1" + NONNEG, "order", False, "k(0, 0) = -1 < 0",
                  lambda x, y: min(nn(x), nn(y)) - 1.0, 1),
        Candidate("x * x'" + SCALARS, "trig", True, "phi(x) = x",
                  lambda x, y: s(x) * s(y), 1),
        Candidate("cos(x - x')" + SCALARS, "trig", True, "phi(x) = (cos x, sin x)",
                  lambda x, y: float(np.cos(s(x) - s(y))), 1),
        Candidate("cos(2 * (x - x'))" + SCALARS, "trig", True, "phi(x) = (cos 2x, sin 2x)",
                  lambda x, y: float(np.cos(2 * (s(x) - s(y)))), 1),
        Candidate("sin(x) * sin(x')" + SCALARS, "trig", True, "phi(x) = sin x",
                  lambda x, y: float(np.sin(s(x)) * np.sin(s(y))), 1),
        Candidate("cos(x + x')" + SCALARS, "trig", False, "k(x, x) = cos 2x < 0 at x = pi/2",
                  lambda x, y: float(np.cos(s(x) + s(y))), 1),
        Candidate("sin(x - x')" + SCALARS, "trig", False, "not symmetric",
                  lambda x, y: float(np.sin(s(x) - s(y))), 1),
        Candidate("sin(x + x')" + SCALARS, "trig", False, "k(x, x) = sin 2x < 0 somewhere",
                  lambda x, y: float(np.sin(s(x) + s(y))), 1),
        Candidate("2" + CONSTANT, "constant", True, "phi(x) = sqrt(2)",
                  lambda x, y: 2.0),
        Candidate("3" + CONSTANT, "constant", True, "phi(x) = sqrt(3)",
                  lambda x, y: 3.0),
        Candidate("-1" + CONSTANT, "constant", False, "k(x, x) = -1 < 0",
                  lambda x, y: -1.0),
        Candidate("-2" + CONSTANT, "constant", False, "k(x, x) = -2 < 0",
                  lambda x, y: -2.0),
    ]


def _coordinates() -> list[Candidate]:
    return [
        Candidate("x_1 * x'_1", "coordinates", True, "phi(x) = x_1",
                  lambda x, y: float(x[0] * y[0])),
        Candidate("x_2 * x'_2", "coordinates", True, "phi(x) = x_2",
                  lambda x, y: float(x[1] * y[1])),
        Candidate("x_1 * x'_1 + 2 * x_2 * x'_2", "coordinates", True,
                  "phi(x) = (x_1, sqrt(2) x_2)",
                  lambda x, y: float(x[0] * y[0] + 2 * x[1] * y[1])),
        Candidate("x_1 * x'_2", "coordinates", False, "not symmetric",
                  lambda x, y: float(x[0] * y[1])),
        Candidate("x_2 * x'_1", "coordinates", False, "not symmetric",
                  lambda x, y: float(x[1] * y[0])),
        Candidate("x_1 * x'_2 + x_2 * x'_1", "coordinates", False, "k(x, x) = 2 x_1 x_2 < 0",
                  lambda x, y: float(x[0] * y[1] + x[1] * y[0])),
        Candidate("x_1 * x'_1 - x_2 * x'_2", "coordinates", False, "k((0, 1), (0, 1)) = -1",
                  lambda x, y: float(x[0] * y[0] - x[1] * y[1])),
        Candidate("x.x' + x_1", "coordinates", False, "not symmetric",
                  lambda x, y: _dot(x, y) + float(x[0])),
    ]


def _combinations() -> list[Candidate]:
    rbf = lambda x, y: float(np.exp(-_sqd(x, y)))
    return [
        Candidate("x.x' + exp(-||x - x'||^2)", "combination", True, "a sum of kernels",
                  lambda x, y: _dot(x, y) + rbf(x, y)),
        Candidate("x.x' * exp(-||x - x'||^2)", "combination", True, "a product of kernels",
                  lambda x, y: _dot(x, y) * rbf(x, y)),
        Candidate("(x.x')^2 + x.x'", "combination", True, "a sum of kernels",
                  lambda x, y: _dot(x, y) ** 2 + _dot(x, y)),
        Candidate("(x.x' + 1)^2 - 1", "combination", True, "(x.x')^2 + 2 x.x': a sum of kernels",
                  lambda x, y: (_dot(x, y) + 1.0) ** 2 - 1.0),
        Candidate("(x.x')^2 - x.x'", "combination", False, "k(x, x) < 0 for 0 < ||x|| < 1",
                  lambda x, y: _dot(x, y) ** 2 - _dot(x, y)),
        Candidate("x.x' - exp(-||x - x'||^2)", "combination", False, "k(0, 0) = -1 < 0",
                  lambda x, y: _dot(x, y) - rbf(x, y)),
        Candidate("exp(-||x - x'||^2) - 1", "combination", False,
                  "zero diagonal, negative off-diagonal: eigenvalues +-(1 - e^-c)",
                  lambda x, y: rbf(x, y) - 1.0),
        Candidate("(x.x' + 1)^2 - 2", "combination", False, "k(0, 0) = -1 < 0",
                  lambda x, y: (_dot(x, y) + 1.0) ** 2 - 2.0),
    ]


def _everything() -> tuple[Candidate, ...]:
    found = [*_linear(), *_polynomial(), *_exponentials(), *_distances(), *_scalars(),
             *_coordinates(), *_combinations()]
    texts = [c.text for c in found]
    if len(set(texts)) != len(texts):
        raise RuntimeError("two candidates of the pool have the same text")
    if not set(LECTURE_TEXTS) <= set(texts):
        raise RuntimeError("the lecture's list must be built here too (its worked verdicts)")
    return tuple(found)


def pool() -> tuple[Candidate, ...]:
    """Every candidate a student can get, in a fixed order: the lecture's ten and the
    notebook's pictured functions left out (the picture shows how their spectra behave)."""
    return tuple(c for c in _everything() if c.text not in LECTURE_TEXTS + PICTURED)


#: text -> candidate, the lecture's ten included (the grader's only way from a text to a
#: verdict: a dictionary look-up)
POOL = {c.text: c for c in _everything()}
