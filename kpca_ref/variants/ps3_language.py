"""The certificate language of ps3_mercer's Part 7: nested tuples of the course's kernel rules.

::

    "linear"                     x.x'
    ("map", [f1, f2, ...])       phi(x) = (f1, f2, ...): sympy expressions in x1, x2 (points
                                 in R^2) or x (scalars); at most 16 features
    ("poly", c, p)               (x.x' + c)^p with c >= 0 and an integer p from 1 to 10
    ("rbf", gamma)               exp(-gamma ||x - x'||^2) with gamma > 0
    ("sum", A, B, ...)           A + B + ...
    ("product", A, B, ...)       A * B * ...
    ("scale", a, A)              a * A with a > 0
    ("exp", A)                   exp(A): its series is a sum of positive multiples of
                                 powers of A

Every number is exact: an integer, ``Rational(p, q)``, ``sqrt(2)``, ``E``; a decimal such as
``0.5`` is refused (the notebook's ``kernel_of`` refuses it too). At most 40 rules, nested 8
deep; a feature has at most 200 nodes, powers of at most 12, a degree of at most 60 (:func:`degree`)
and the functions exp, sin, cos, sqrt and Abs (:func:`kpca_ref.variants.ps3_reading.check_tree`). Each rule keeps a kernel a
kernel, so every certificate stands for a valid kernel (its features real: checked where
the certificate is evaluated). :func:`parse` refuses anything else with a message saying
why (:class:`~kpca_ref.variants.ps3_reading.Refused`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from kpca_ref.variants.ps3_reading import Refused, check_tree, exact_number, numeric, unreadable

__all__ = ["MAX_DEGREE", "RULES", "Certificate", "certificate_kernel", "degree", "parse"]

RULES = ("linear", "map", "poly", "rbf", "sum", "product", "scale", "exp")
_MAX_RULES = 40
_MAX_DEPTH = 8
_MAX_FEATURES = 16
MAX_DEGREE = 60  # of a feature (see degree)
_MAX_EXPONENT = 10_000  # of ("exp", A): |A| where the certificate is evaluated at numbers


@dataclass
class Certificate:
    """A parsed certificate: ``kernel(x, y)`` builds its exact sympy value (at numbers or at
    symbols), ``features`` lists every feature of its maps (in the symbols ``x1, x2`` or
    ``x``), whose values must be real."""

    kernel: object
    features: list = field(default_factory=list)
    rules: int = 0


def degree(expr) -> int:
    """A bound on a feature's degree: 1 for a symbol, the largest of a sum's terms, the sum
    of a product's factors, ``|e|`` times its base's for a power ``b**e`` (rounded up), an
    argument's for exp, sin, cos and Abs. It bounds the cost of evaluating the feature
    exactly, and the degree of a polynomial certificate (:mod:`kpca_ref.variants.ps3_equal`)."""
    if expr.is_Symbol:
        return 1
    if not expr.args or not expr.free_symbols:
        return 0
    inner = [degree(a) for a in expr.args]
    if expr.is_Add:
        return max(inner)
    if expr.is_Mul:
        return sum(inner)
    if expr.is_Pow:
        e = expr.exp
        return -(-abs(int(e.p)) * inner[0] // int(e.q)) if e.is_Rational else 10**9
    return max(inner)


def _rebuilt(expr):
    """``expr`` rebuilt with sympy's evaluation (the wire delivers it unevaluated)."""
    if not expr.args:
        return expr
    return expr.func(*[_rebuilt(a) for a in expr.args])


def _dot(x, y):
    return sp.Add(*[a * b for a, b in zip(x, y)])


def parse(cert, d: int) -> Certificate:
    """The certificate ``cert`` for points in R^d, checked against the language.

    Raises
    ------
    Refused
        When ``cert`` is not a certificate of the language (the message says why).
    """
    found = Certificate(kernel=None)
    found.kernel = _rule(cert, d, 0, found)
    return found


def certificate_kernel(cert, d: int):
    """The kernel ``k(x, y)`` (exact sympy values) a certificate stands for."""
    return parse(cert, d).kernel


def _rule(cert, d: int, depth: int, found: Certificate):
    found.rules += 1
    if depth > _MAX_DEPTH or found.rules > _MAX_RULES:
        raise Refused(f"the certificate is too large (at most {_MAX_RULES} rules, nested "
                       f"{_MAX_DEPTH} deep)")
    unreadable(cert, "the certificate")
    if isinstance(cert, str):
        cert = (cert,)
    if not isinstance(cert, (tuple, list)) or not cert or not isinstance(cert[0], str):
        raise Refused(f"a certificate is a rule's name or a tuple starting with one of "
                       f"{', '.join(RULES)}; got {type(cert).__name__} {str(cert)[:60]}")
    rule, args = cert[0], list(cert[1:])
    if rule not in RULES:
        raise Refused(f"unknown rule {rule!r}: the rules are {', '.join(RULES)}")
    wanted = {"linear": 0, "map": 1, "poly": 2, "rbf": 1, "scale": 2, "exp": 1}.get(rule)
    if wanted is not None and len(args) != wanted:
        raise Refused(f"({rule!r}, ...) takes {wanted} argument{'s' if wanted != 1 else ''}, "
                       f"got {len(args)}")
    if rule == "linear":
        return _dot
    if rule == "map":
        return _feature_map(args[0], d, found)
    if rule == "poly":
        c = exact_number(args[0], "the constant c of ('poly', c, p)", allow_float=False)
        p = int(args[1]) if isinstance(args[1], sp.Integer) else args[1]
        if not isinstance(p, (int, np.integer)) or isinstance(p, bool) or not 1 <= p <= 10:
            raise Refused("the power p of ('poly', c, p) should be an integer from 1 to 10")
        if not c.is_real or not c >= 0:
            raise Refused(f"('poly', c, p) is a kernel for c >= 0 only, got c = {c}")
        c = _rebuilt(c)
        return lambda x, y: (_dot(x, y) + c) ** int(p)
    if rule == "rbf":
        g = exact_number(args[0], "gamma of ('rbf', gamma)", allow_float=False)
        if not g.is_real or not g > 0:
            raise Refused(f"('rbf', gamma) is a kernel for gamma > 0 only, got {g}")
        g = _rebuilt(g)
        return lambda x, y: sp.exp(-g * sp.Add(*[(a - b) ** 2 for a, b in zip(x, y)]))
    if rule == "scale":
        a = exact_number(args[0], "the factor a of ('scale', a, A)", allow_float=False)
        if not a.is_real or not a > 0:
            raise Refused(f"('scale', a, A) keeps a kernel for a > 0 only, got a = {a}")
        a, inner = _rebuilt(a), _rule(args[1], d, depth + 1, found)
        return lambda x, y: a * inner(x, y)
    if rule == "exp":
        return _exponential(_rule(args[0], d, depth + 1, found))
    if len(args) < 2:  # sum, product
        raise Refused(f"({rule!r}, A, B, ...) needs at least two certificates")
    parts = [_rule(a, d, depth + 1, found) for a in args]
    if rule == "sum":
        return lambda x, y: sp.Add(*[part(x, y) for part in parts])
    return lambda x, y: sp.Mul(*[part(x, y) for part in parts])


def _exponential(inner):
    def k(x, y):
        value = inner(x, y)
        if not value.free_symbols and abs(numeric(value, 20)) > _MAX_EXPONENT:
            raise Refused(f"('exp', A) is checked where |A| <= {_MAX_EXPONENT} only")
        return sp.exp(value)

    return k


def _feature_map(features, d: int, found: Certificate):
    if isinstance(features, sp.MatrixBase):
        features = list(features)
    if not isinstance(features, (list, tuple)) or not 1 <= len(features) <= _MAX_FEATURES:
        raise Refused(f"('map', [f1, f2, ...]) takes a list of 1 to {_MAX_FEATURES} features")
    names = ("x",) if d == 1 else ("x1", "x2")
    mine = []
    for i, f in enumerate(features):
        unreadable(f, f"feature {i + 1}")
        if isinstance(f, (int, np.integer, float, np.floating)) and not isinstance(f, bool):
            f = exact_number(f, f"feature {i + 1}", allow_float=False)
        if not isinstance(f, sp.Expr):
            raise Refused(f"feature {i + 1} should be a sympy expression in "
                           f"{' and '.join(names)}, got {type(f).__name__}")
        check_tree(f, f"feature {i + 1}", set(names))
        if degree(f) > MAX_DEGREE:
            raise Refused(f"feature {i + 1} has degree {degree(f)}, over {MAX_DEGREE} (a power "
                          "multiplies its base's degree, a product adds its factors')")
        mine.append(_rebuilt(f))
    found.features += mine
    symbols = [sp.Symbol(n) for n in names]

    def k(x, y):
        return sp.Add(*[f.xreplace(dict(zip(symbols, x))) * f.xreplace(dict(zip(symbols, y)))
                        for f in mine])

    return k
