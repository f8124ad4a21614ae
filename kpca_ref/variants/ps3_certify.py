"""Checking ps3_mercer's Part 7 answers: a witness against a function, or a certificate for it.

An answer is one of

``("witness", points)``
    a list of 1 to :data:`MAX_POINTS` points on the function's domain: each a list of its
    coordinates (2 in R^2, 1 for scalars, where a bare number is a point too; a constant
    function takes points of 1 or 2 coordinates, its value does not depend on them). A
    coordinate is a real number of size at most :data:`MAX_COORDINATE`, exact to at most 40
    digits: an integer, a ``Rational``, an exact sympy number or a float, read as the exact
    binary fraction it stores (every float between 1e-20 and 1e6 in size, and 0, fits:
    these bounds keep each check under a second). Its Gram matrix is built exactly
    with sympy; the answer is right when that matrix is not symmetric or has a negative
    eigenvalue, decided exactly (:func:`kpca_ref.mercer.is_psd_exact`) when every entry is
    rational, and otherwise at 60 significant digits with a margin of 1e-40 times the
    matrix's scale (sympy's ``evalf`` guarantees the digits, so the margin certifies the sign).
a certificate
    an expression of the course's rules (:mod:`kpca_ref.variants.ps3_language`), which makes
    it a kernel. It is right when its kernel equals the item's function **as a function**
    (:mod:`kpca_ref.variants.ps3_equal`): proved exactly when both are exponential
    polynomials, else compared at points drawn with the grading secret, which no student can
    predict. A certificate for a function the pool knows is no kernel is never right.

A bare ``True`` / ``False`` earns nothing. Every check is bounded in size (points, rules,
expression nodes, exponents, the exact rewriting's work), so no answer can stall the grader.
"""

from __future__ import annotations

import hashlib

import mpmath
import numpy as np
import sympy as sp

from kpca_ref.mercer import is_psd_exact
from kpca_ref.variants.ps3_equal import exact_difference, public_points, same_at, secret_points
from kpca_ref.variants.ps3_language import Certificate, certificate_kernel, parse
from kpca_ref.variants.ps3_pool import POOL, constant, dimension, exact_function, nonnegative
from kpca_ref.variants.ps3_reading import Refused, exact_number, numeric, unreadable
from kpca_ref.verdict import Verdict

__all__ = ["MAX_COORDINATE", "MAX_POINTS", "certificate_kernel", "judge_answer", "point_seed"]

MAX_POINTS = 8
#: largest size of a witness's coordinate: a search's scales up to 1000 stay far inside it
MAX_COORDINATE = 10**6
_MAX_DIGITS = 40  # of a coordinate's numerator and denominator (as for every exact number)

BARE = ("a bare True/False earns nothing: give a witness (\"witness\", points) for a function "
        "that is not a kernel, or a certificate such as (\"sum\", \"linear\", (\"rbf\", 1)) for "
        "one that is")


# ----------------------------------------------------------------------------- witnesses
def _point(point, i: int, text: str) -> list:
    """The coordinates of point ``i`` of a witness, as given (numbers not yet read)."""
    d = dimension(text)
    if isinstance(point, (sp.MatrixBase, np.ndarray)):
        point = list(np.asarray(point.tolist() if isinstance(point, sp.MatrixBase)
                                else point, dtype=object).ravel())
    if not isinstance(point, (list, tuple)):
        point = [point]  # a bare number: a scalar point (or a constant function's point)
    if constant(text) and len(point) not in (1, 2):
        raise Refused(f"point {i + 1} of the witness should have 1 or 2 coordinates, got "
                      f"{len(point)} (this function is the same for every x, x': any point "
                      "will do, e.g. [0])")
    if not constant(text) and len(point) != d:
        raise Refused(f"point {i + 1} of the witness should have {d} coordinate"
                       f"{'s' if d > 1 else ''}, got {len(point)} (this function's points are "
                       f"{'scalars' if d == 1 else 'in R^2'})")
    return point


def _points(value, text: str) -> list[list[sp.Expr]]:
    unreadable(value, "the witness's points")
    if isinstance(value, (sp.MatrixBase, np.ndarray)):
        value = value.tolist()
    if not isinstance(value, (list, tuple)) or not 1 <= len(value) <= MAX_POINTS:
        raise Refused(f"a witness holds a list of 1 to {MAX_POINTS} points")
    found = []
    for i, point in enumerate(value):
        coords = [exact_number(v, f"a coordinate of point {i + 1}", allow_float=True)
                  for v in _point(point, i, text)]
        for v in coords:
            if not (v.is_real and v.is_finite):
                raise Refused(f"a coordinate of point {i + 1} should be a finite real number, "
                              f"got {v}")
            if abs(numeric(v, 15)) > MAX_COORDINATE:
                raise Refused("coordinates should be of size at most 10^6 "
                              f"(point {i + 1} has {sp.N(v, 4)})")
            if v.is_Rational and max(len(str(abs(v.p))), len(str(v.q))) > _MAX_DIGITS:
                raise Refused(f"a coordinate of point {i + 1} is exact to more than "
                              f"{_MAX_DIGITS} digits (a float between 1e-20 and 1e6 in size, "
                              "or 0, never is)")
            if nonnegative(text) and numeric(v, 15) < 0:
                raise Refused("this function's domain is x >= 0: every point of a witness "
                               "must be >= 0")
        found.append(coords if not constant(text) else [*coords, 0][:2])
    return found


def _witness(value, text: str) -> Verdict:
    points = _points(value, text)
    k = exact_function(text)
    n = len(points)
    K = sp.Matrix(n, n, lambda i, j: k(points[i], points[j]))
    if all(entry.is_Rational for entry in K):
        if K != K.T:
            return Verdict(True)
        if not is_psd_exact(K):
            return Verdict(True)
        return Verdict(False, "the Gram matrix of your points is symmetric and positive "
                              "semidefinite (checked exactly): not a witness")
    with mpmath.workdps(60):
        A = mpmath.matrix([[mpmath.mpf(str(numeric(K[i, j], 60))) for j in range(n)]
                           for i in range(n)])
        scale = max([mpmath.mpf(1)] + [abs(A[i, j]) for i in range(n) for j in range(n)])
        margin = mpmath.mpf("1e-40") * scale
        if max(abs(A[i, j] - A[j, i]) for i in range(n) for j in range(n)) > margin:
            return Verdict(True)
        S = (A + A.T) / 2
        least = min(mpmath.eigsy(S, eigvals_only=True))
        if least < -margin:
            return Verdict(True)
        return Verdict(False, f"the Gram matrix of your points is symmetric and its smallest "
                              f"eigenvalue is {mpmath.nstr(least, 6)}, not clearly negative "
                              "(checked to 60 digits): not a witness")


# ----------------------------------------------------------------------------- certificates
def _symbols(d: int):
    names = (("x",), ("y",)) if d == 1 else (("x1", "x2"), ("y1", "y2"))
    return [sp.Symbol(n) for n in names[0]], [sp.Symbol(n) for n in names[1]]


def _where(x, y, d: int) -> str:
    return f"x = {x[0] if d == 1 else tuple(x)}, x' = {y[0] if d == 1 else tuple(y)}"


def _surely_real(f) -> bool:
    """Real at every real point: no ``I``, and every fractional power of a positive constant
    (sums, products, integer powers, exp, sin, cos and Abs of reals are real)."""
    return not f.has(sp.I) and all(p.exp.is_Integer or (not p.base.free_symbols and p.base.is_positive)
                                   for p in f.atoms(sp.Pow))


def _real_features(cert: Certificate, points, d: int) -> None:
    names = [sp.Symbol(n) for n in (("x",) if d == 1 else ("x1", "x2"))]
    for f in cert.features:
        if _surely_real(f):
            continue
        for point in {tuple(p) for pair in points for p in pair}:
            value = numeric(f.xreplace(dict(zip(names, point))), 30)
            if abs(sp.im(value)) > sp.Float("1e-25") * max(1, abs(value)):
                raise Refused(f"the feature {f} is not a real number everywhere (it is "
                              f"{sp.N(value, 4)} at a point the grader drew): a feature map "
                              "must be real")


def _shown_difference(cert: Certificate, k, d: int, nonneg: bool) -> str | None:
    """Feedback naming a public point where the certificate's kernel and the function
    differ (never a secret point), or None when they agree at every one."""
    for x, y in public_points(d, nonneg):
        try:
            got, want = cert.kernel(x, y), k(x, y)
            if not same_at(got, want):
                return (f"your certificate's kernel is {sp.N(got, 6)} at {_where(x, y, d)}, but "
                        f"the function is {sp.N(want, 6)} there: it certifies another function")
        except (Refused, ArithmeticError, TypeError, ValueError):
            continue
    return None


_ANOTHER = ("your certificate's kernel is not this function (they differ at points the grader "
            "drew): it certifies another function")


def _certificate(value, text: str, seed: bytes | None) -> Verdict:
    d, nonneg = dimension(text), nonnegative(text)
    cert = parse(value, d)
    points = secret_points(seed, d, nonneg)
    _real_features(cert, points, d)
    k = exact_function(text)
    shown = _shown_difference(cert, k, d, nonneg)  # a difference at one point decides it
    if shown is not None:
        return Verdict(False, shown)
    X, Y = _symbols(d)
    same = exact_difference(cert.kernel(X, Y), k(X, Y), X + Y)
    if same is None:
        same = all(same_at(cert.kernel(x, y), k(x, y)) for x, y in points)
    known = POOL.get(text)
    if same and (known is None or known.valid):  # a certificate is a kernel: never a non-kernel
        return Verdict(True)
    return Verdict(False, _ANOTHER)


def point_seed(secret: bytes | None, key: str) -> bytes | None:
    """The seed of a certificate's secret points: the grader's secret and the item's key."""
    if not secret:
        return None
    return hashlib.sha256(b"ps3 certificate points\x1f" + secret + b"\x1f" + key.encode()).digest()


def judge_answer(value, text: str, key: str, secret: bytes | None = None) -> Verdict:
    """The verdict on one Part 7 answer ``value`` for the candidate ``text``.

    ``key`` (the student's id and the item's name) and ``secret`` (bytes the grader derives
    from its secret; None: fresh random points) pick the points a certificate is compared on
    when it cannot be compared exactly.
    """
    if isinstance(value, (bool, np.bool_)) or value is None or getattr(value, "is_Boolean", False):
        return Verdict(False, BARE, "bare_verdict")
    try:
        if (isinstance(value, (tuple, list)) and len(value) == 2
                and isinstance(value[0], str) and value[0] == "witness"):
            return _witness(value[1], text)
        return _certificate(value, text, point_seed(secret, key))
    except Refused as exc:
        return Verdict(False, str(exc))
    except (TypeError, ValueError, ArithmeticError, RecursionError) as exc:
        return Verdict(False, f"this answer could not be read as a witness or a certificate "
                              f"({type(exc).__name__})")
