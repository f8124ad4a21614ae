"""Checking ps3_mercer's Part 7 answers: a witness against a function, or a certificate for it.

An answer is one of

``("witness", points)``
    a list of 1 to :data:`MAX_POINTS` points on the function's domain (exact numbers; a float
    counts as the exact binary fraction it is). Its Gram matrix is built exactly with sympy;
    the answer is right when that matrix is not symmetric or has a negative eigenvalue,
    decided exactly (:func:`kpca_ref.mercer.is_psd_exact`) when every entry is rational, and
    otherwise at 60 significant digits with a margin of 1e-40 times the matrix's scale
    (sympy's ``evalf`` guarantees the digits, so the margin certifies the sign).
a certificate
    an expression of the course's rules, written as nested tuples::

        "linear"                     x.x'
        ("map", [f1, f2, ...])       phi(x) = (f1, f2, ...): sympy expressions in x1, x2
                                     (points in R^2) or x (scalars), exact numbers only
        ("poly", c, p)               (x.x' + c)^p with c >= 0 and an integer p >= 1
        ("rbf", gamma)               exp(-gamma ||x - x'||^2) with gamma > 0
        ("sum", A, B, ...)           A + B + ...
        ("product", A, B, ...)       A * B * ...
        ("scale", a, A)              a * A with a > 0
        ("exp", A)                   exp(A): its series is a sum of positive multiples of
                                     powers of A

    Every certificate stands for a valid kernel. It is right when its kernel equals the
    item's function: both are evaluated at :data:`SAMPLES` random pairs of points (drawn
    from the student's id and the item) to 50 significant digits and must agree to 1e-30
    of their size.

A bare ``True`` / ``False`` earns nothing. Every check is bounded in size (points,
coordinates, rules, expression nodes, exponents), so no answer can stall the grader.
"""

from __future__ import annotations

import hashlib
import random

import mpmath
import numpy as np
import sympy as sp

from kpca_ref.mercer import is_psd_exact
from kpca_ref.variants.ps3_pool import dimension, exact_function, nonnegative
from kpca_ref.variants.ps3_reading import (
    Refused,
    check_tree,
    exact_number,
    numeric,
    unreadable,
)
from kpca_ref.verdict import Verdict

__all__ = ["MAX_POINTS", "SAMPLES", "certificate_kernel", "judge_answer"]

MAX_POINTS = 8
SAMPLES = 6
_MAX_COORDINATE = 100
_MAX_RULES = 40
_MAX_DEPTH = 8
_MAX_FEATURES = 16
_RULES = ("linear", "map", "poly", "rbf", "sum", "product", "scale", "exp")
_MAX_EXPONENT = 1000  # of ("exp", A): |A| at the sample points

BARE = ("a bare True/False earns nothing: give a witness (\"witness\", points) for a function "
        "that is not a kernel, or a certificate such as (\"sum\", \"linear\", (\"rbf\", 1)) for "
        "one that is")


# ----------------------------------------------------------------------------- witnesses
def _points(value, text: str) -> list[list[sp.Expr]]:
    d = dimension(text)
    unreadable(value, "the witness's points")
    if isinstance(value, sp.MatrixBase):
        value = value.tolist()
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if not isinstance(value, (list, tuple)) or not 1 <= len(value) <= MAX_POINTS:
        raise Refused(f"a witness holds a list of 1 to {MAX_POINTS} points")
    found = []
    for i, point in enumerate(value):
        if isinstance(point, (sp.MatrixBase, np.ndarray)):
            point = list(np.asarray(point.tolist() if isinstance(point, sp.MatrixBase)
                                    else point, dtype=object).ravel())
        if d == 1 and not isinstance(point, (list, tuple)):
            point = [point]
        if not isinstance(point, (list, tuple)) or len(point) != d:
            raise Refused(f"point {i + 1} of the witness should have {d} coordinate"
                           f"{'s' if d > 1 else ''} (this function's points are "
                           f"{'scalars' if d == 1 else 'in R^2'})")
        coords = [exact_number(v, f"a coordinate of point {i + 1}", allow_float=True)
                  for v in point]
        for v in coords:
            if not v.is_real or abs(numeric(v, 15)) > _MAX_COORDINATE:
                raise Refused(f"coordinates should be real numbers of size at most "
                               f"{_MAX_COORDINATE}")
            if nonnegative(text) and numeric(v, 15) < 0:
                raise Refused("this function's domain is x >= 0: every point of a witness "
                               "must be >= 0")
        found.append(coords)
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
def certificate_kernel(cert, d: int, _depth: int = 0, _count: list | None = None):
    """The kernel ``k(x, y)`` (exact sympy values) a certificate stands for.

    Raises
    ------
    ValueError
        When ``cert`` is not a certificate of the language (the message says why).
    """
    count = _count if _count is not None else [0]
    count[0] += 1
    if _depth > _MAX_DEPTH or count[0] > _MAX_RULES:
        raise Refused(f"the certificate is too large (at most {_MAX_RULES} rules, nested "
                       f"{_MAX_DEPTH} deep)")
    unreadable(cert, "the certificate")
    if isinstance(cert, str):
        cert = (cert,)
    if not isinstance(cert, (tuple, list)) or not cert or not isinstance(cert[0], str):
        raise Refused(f"a certificate is a rule's name or a tuple starting with one of "
                       f"{', '.join(_RULES)}; got {type(cert).__name__} {str(cert)[:60]}")
    rule, args = cert[0], list(cert[1:])
    if rule not in _RULES:
        raise Refused(f"unknown rule {rule!r}: the rules are {', '.join(_RULES)}")

    def need(count_wanted: int):
        if len(args) != count_wanted:
            raise Refused(f"({rule!r}, ...) takes {count_wanted} argument"
                           f"{'s' if count_wanted != 1 else ''}, got {len(args)}")

    def dot(x, y):
        return sp.Add(*[a * b for a, b in zip(x, y)])

    if rule == "linear":
        need(0)
        return dot
    if rule == "map":
        need(1)
        return _feature_map(args[0], d)
    if rule == "poly":
        need(2)
        c = exact_number(args[0], "the constant c of ('poly', c, p)", allow_float=False)
        p = args[1]
        if isinstance(p, sp.Integer):
            p = int(p)
        if not isinstance(p, (int, np.integer)) or isinstance(p, bool) or not 1 <= p <= 10:
            raise Refused("the power p of ('poly', c, p) should be an integer from 1 to 10")
        if not c.is_real or not c >= 0:
            raise Refused(f"('poly', c, p) is a kernel for c >= 0 only, got c = {c}")
        return lambda x, y: (dot(x, y) + c) ** int(p)
    if rule == "rbf":
        need(1)
        g = exact_number(args[0], "gamma of ('rbf', gamma)", allow_float=False)
        if not g.is_real or not g > 0:
            raise Refused(f"('rbf', gamma) is a kernel for gamma > 0 only, got {g}")
        return lambda x, y: sp.exp(-g * sp.Add(*[(a - b) ** 2 for a, b in zip(x, y)]))
    if rule == "scale":
        need(2)
        a = exact_number(args[0], "the factor a of ('scale', a, A)", allow_float=False)
        if not a.is_real or not a > 0:
            raise Refused(f"('scale', a, A) keeps a kernel for a > 0 only, got a = {a}")
        inner = certificate_kernel(args[1], d, _depth + 1, count)
        return lambda x, y: a * inner(x, y)
    if rule == "exp":
        need(1)
        inner = certificate_kernel(args[0], d, _depth + 1, count)

        def k(x, y):
            value = inner(x, y)
            if abs(numeric(value, 20)) > _MAX_EXPONENT:
                raise Refused(f"('exp', A) is checked where |A| <= {_MAX_EXPONENT} only")
            return sp.exp(value)

        return k
    if len(args) < 2:  # sum, product
        raise Refused(f"({rule!r}, A, B, ...) needs at least two certificates")
    parts = [certificate_kernel(a, d, _depth + 1, count) for a in args]
    if rule == "sum":
        return lambda x, y: sp.Add(*[part(x, y) for part in parts])
    return lambda x, y: sp.Mul(*[part(x, y) for part in parts])


def _feature_map(features, d: int):
    if isinstance(features, sp.MatrixBase):
        features = list(features)
    if not isinstance(features, (list, tuple)) or not 1 <= len(features) <= _MAX_FEATURES:
        raise Refused(f"('map', [f1, f2, ...]) takes a list of 1 to {_MAX_FEATURES} features")
    names = ("x",) if d == 1 else ("x1", "x2")
    found = []
    for i, f in enumerate(features):
        unreadable(f, f"feature {i + 1}")
        if isinstance(f, (int, np.integer, float, np.floating)) and not isinstance(f, bool):
            f = exact_number(f, f"feature {i + 1}", allow_float=False)
        if not isinstance(f, sp.Expr):
            raise Refused(f"feature {i + 1} should be a sympy expression in "
                           f"{' and '.join(names)}, got {type(f).__name__}")
        check_tree(f, f"feature {i + 1}", set(names))
        found.append(f)
    symbols = [sp.Symbol(n) for n in names]

    def k(x, y):
        total = sp.Integer(0)
        for f in found:
            fx = f.xreplace(dict(zip(symbols, x)))
            fy = f.xreplace(dict(zip(symbols, y)))
            for value in (fx, fy):
                if abs(sp.im(numeric(value, 30))) > sp.Float("1e-25"):
                    raise Refused(f"the feature {f} is not a real number at "
                                   f"{', '.join(map(str, x))}: a feature map must be real")
            total += fx * fy
        return total

    return k


def _samples(key: str, d: int, nonneg: bool):
    rng = random.Random(hashlib.sha256(key.encode()).hexdigest())
    low = 0 if nonneg else -8

    def point():
        return [sp.Rational(rng.randint(low, 8), 4) for _ in range(d)]

    return [(point(), point()) for _ in range(SAMPLES)]


def _certificate(cert, text: str, key: str) -> Verdict:
    d = dimension(text)
    kernel = certificate_kernel(cert, d)
    k = exact_function(text)
    for x, y in _samples(key, d, nonnegative(text)):
        want, got = numeric(k(x, y)), numeric(kernel(x, y))
        if abs(sp.im(got)) > sp.Float("1e-25") or abs(want - got) > sp.Float("1e-30") * max(
                1, abs(want)):
            where = f"x = {x[0] if d == 1 else tuple(x)}, x' = {y[0] if d == 1 else tuple(y)}"
            return Verdict(False, f"your certificate's kernel is {sp.N(got, 6)} at {where}, "
                                  f"but the function is {sp.N(want, 6)} there: it certifies "
                                  "another function")
    return Verdict(True)


def judge_answer(value, text: str, key: str) -> Verdict:
    """The verdict on one Part 7 answer ``value`` for the candidate ``text``.

    ``key`` (the student's id and the item's name) picks the random points a certificate
    is compared on.
    """
    if isinstance(value, (bool, np.bool_)) or value is None or getattr(value, "is_Boolean", False):
        return Verdict(False, BARE, "bare_verdict")
    try:
        if (isinstance(value, (tuple, list)) and len(value) == 2
                and isinstance(value[0], str) and value[0] == "witness"):
            return _witness(value[1], text)
        return _certificate(value, text, key)
    except Refused as exc:
        return Verdict(False, str(exc))
    except (TypeError, ValueError, ArithmeticError, RecursionError) as exc:
        return Verdict(False, f"this answer could not be read as a witness or a certificate "
                              f"({type(exc).__name__})")
