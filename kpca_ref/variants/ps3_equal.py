"""Does a ps3 certificate stand for the candidate function itself? Exactly where it can be
decided, else at points drawn with the grading secret.

A certificate is a kernel by construction (:mod:`kpca_ref.variants.ps3_language`); it proves
the candidate is one only when its kernel **equals the candidate as a function**.
:mod:`kpca_ref.variants.ps3_certify` decides that in three steps; the first to decide ends it.

0. **At public points** (:func:`public_points`): a value that differs at one of five fixed
   pairs refuses the certificate, and the feedback names that pair (never a secret point).
1. **Exactly** (:func:`exact_difference`): both sides are rewritten as *exponential
   polynomials* ``sum_j P_j(v) exp(Q_j(v))`` in the symbols ``v = (x1, x2, y1, y2)`` (or
   ``(x, y)``), with ``cos`` and ``sin`` as complex exponentials and each ``Q_j`` without a
   constant term. Every step is an identity, so a difference whose every ``P_j`` is 0 proves
   equality. Exponential polynomials with distinct exponents ``Q_j`` are linearly independent,
   so when every coefficient is a Gaussian rational (``a + b i``, canonical in sympy) a
   non-zero ``P_j`` proves the two functions differ. The rewriting is bounded (at most
   :data:`_MAX_WORK` coefficient products and :data:`_MAX_TERMS` terms): past a bound, or on
   what is not an exponential polynomial (``sqrt`` of a variable, ``Abs``, ``min``, an
   exponential of an exponential), step 2 decides.
2. **At secret points** (:func:`secret_points`): :data:`SAMPLES` pairs of points whose
   coordinates are ``n / q``, ``q`` an odd denominator between ``10**9`` and ``2 * 10**9``
   not divisible by 5 (no binary or decimal fraction), ``n`` uniform so that a coordinate
   lies in ``[-2, 2]`` for half the pairs and ``[-8, 8]`` for the other half (``[0, ...]``
   on a domain ``x >= 0``). They are drawn from SHA-256 of a seed the grader derives from
   its secret (:mod:`kit.secret`: HMAC of the secret, problem set and student), the student
   and the item, so nothing a student holds predicts them; without a secret they are fresh
   random ones. Rational values are compared exactly, others to 40 significant digits.

Why no forgery passes step 2 (Schwartz-Zippel): a certificate is fixed before the points are
drawn. If its kernel minus the candidate is a non-zero polynomial of total degree ``D`` in the
``2 d`` coordinates of a pair, a pair whose coordinates are uniform on a set ``S`` is a root
with probability at most ``D / |S|``; here ``|S| = 4 q + 1 > 4 * 10**9`` (``16 q + 1`` for the
wide pairs). The language bounds ``D``: a feature has degree at most 60
(:func:`kpca_ref.variants.ps3_language.degree`), so a map's kernel at most 120, a polynomial
kernel at most 20, a product of at most 40 rules at most 4,800, and with the candidate's
``D <= 5,000``: all eight pairs are roots with probability below
``(5000 / (4 * 10**9)) ** 8 < 10**-47``. A non-zero difference with ``exp``, ``sin``, ``cos``,
``sqrt`` or ``Abs`` is real-analytic away from a set of measure zero: it vanishes on a set of
measure zero, and is within 40 digits of zero on a
set of tiny measure, which points of a grid ``10**9`` times finer than the unit meet with
negligible probability. The student id and item alone (the rule this replaces) let a
polynomial map agree with any candidate at the points they give and nowhere else; these
points cannot be computed without the grader's secret.
"""

from __future__ import annotations

import hashlib
import os
from fractions import Fraction

import sympy as sp

__all__ = ["SAMPLES", "exact_difference", "public_points", "same_at", "secret_points"]

SAMPLES = 8
_MAX_WORK = 20_000  # coefficient products in one rewriting
_MAX_TERMS = 2_000  # terms of one exponential polynomial
_MAX_COEFFICIENT_TERMS = 24  # terms of one coefficient (a sum of radicals, say)
_ZERO = Fraction(0)
_DIGITS = 60
_AGREE = sp.Float("1e-40")


def _terms(c) -> int:
    return len(c.args) if isinstance(c, sp.Add) else 1


def _norm(c):
    """A coefficient: a rational as a ``Fraction`` (fast, and one hash per value, so equal
    exponents are one key), any other constant as a sympy expression."""
    if isinstance(c, sp.Rational):
        return Fraction(int(c.p), int(c.q))
    return c


def _sym(c):
    return sp.Rational(c.numerator, c.denominator) if isinstance(c, Fraction) else c


def _times_c(a, b):
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a * b
    return _norm(sp.Mul(_sym(a), _sym(b)))


def _plus_c(a, b):
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a + b
    return _norm(sp.Add(_sym(a), _sym(b)))


class _Undecided(Exception):
    """The expression is no exponential polynomial, or rewriting it would cost too much."""


# ----------------------------------------------------------------------------- exact
class _Rewriter:
    """Exponential polynomials as ``{exponent: polynomial}``; a polynomial (an exponent
    too) as ``{monomial: coefficient}``, a monomial a tuple of powers of the symbols."""

    def __init__(self, symbols):
        self.symbols = list(symbols)
        self.zero = (0,) * len(self.symbols)
        self.work = 0

    def _spend(self, n: int) -> None:
        self.work += n
        if self.work > _MAX_WORK:
            raise _Undecided("too costly")

    @staticmethod
    def _key(poly: dict):
        return frozenset(poly.items())

    def _add(self, a: dict, b: dict) -> dict:
        out = dict(a)
        for m, c in b.items():
            out[m] = _plus_c(out.get(m, _ZERO), c)
            if out[m] == 0:
                del out[m]
        return out

    def _times(self, a: dict, b: dict) -> dict:
        self._spend(len(a) * len(b))
        out: dict = {}
        for ma, ca in a.items():
            for mb, cb in b.items():
                m = tuple(i + j for i, j in zip(ma, mb))
                old = out.get(m, _ZERO)
                self._spend(_terms(ca) * _terms(cb) + _terms(old))
                out[m] = _plus_c(old, _times_c(ca, cb))
                if _terms(out[m]) > _MAX_COEFFICIENT_TERMS:
                    raise _Undecided("coefficients too large")
        return {m: c for m, c in out.items() if c != 0}

    def add(self, a: dict, b: dict) -> dict:
        out = dict(a)
        for q, p in b.items():
            out[q] = self._add(out.get(q, {}), p)
            if not out[q]:
                del out[q]
        return out

    def mul(self, a: dict, b: dict) -> dict:
        out: dict = {}
        for qa, pa in a.items():
            for qb, pb in b.items():
                self._spend(len(qa) + len(qb))
                q = self._key(self._add(dict(qa), dict(qb)))
                if any(_terms(c) > _MAX_COEFFICIENT_TERMS for _, c in q):
                    raise _Undecided("exponents too large")
                out[q] = self._add(out.get(q, {}), self._times(pa, pb))
                if not out[q]:
                    del out[q]
        if sum(len(p) for p in out.values()) > _MAX_TERMS:
            raise _Undecided("too many terms")
        return out

    def constant(self, c) -> dict:
        c = _norm(c)
        return {frozenset(): {self.zero: c}} if c != 0 else {}

    def _polynomial(self, e: dict) -> dict:
        if set(e) - {frozenset()}:
            raise _Undecided("an exponential inside an exponential or a cosine")
        return e.get(frozenset(), {})

    def _exp(self, poly: dict, factor) -> dict:
        """``exp(factor * poly)`` as one term."""
        rest = {m: _times_c(factor, c) for m, c in poly.items() if m != self.zero}
        start = _norm(sp.exp(_sym(_times_c(factor, poly.get(self.zero, _ZERO)))))
        return {self._key(rest): {self.zero: start}}

    def rewrite(self, expr) -> dict:
        if not expr.free_symbols:
            if not expr.is_number:
                raise _Undecided("not a number")
            return self.constant(expr)
        if expr.is_Symbol:
            if expr not in self.symbols:
                raise _Undecided("unknown symbol")
            power = [0] * len(self.symbols)
            power[self.symbols.index(expr)] = 1
            return {frozenset(): {tuple(power): Fraction(1)}}
        if expr.is_Add:
            out: dict = {}
            for arg in expr.args:
                out = self.add(out, self.rewrite(arg))
            return out
        if expr.is_Mul:
            out = self.constant(sp.Integer(1))
            for arg in expr.args:
                out = self.mul(out, self.rewrite(arg))
            return out
        if expr.is_Pow:
            n = expr.exp if expr.exp.is_Integer else sp.sympify(expr.exp).doit()
            if not (n.is_Integer and 0 <= n <= 64):
                raise _Undecided("not a polynomial power")
            base, out = self.rewrite(expr.base), self.constant(sp.Integer(1))
            for _ in range(int(n)):
                out = self.mul(out, base)
            return out
        if isinstance(expr, sp.exp):
            return self._exp(self._polynomial(self.rewrite(expr.args[0])), Fraction(1))
        if isinstance(expr, (sp.cos, sp.sin)):
            inner = self._polynomial(self.rewrite(expr.args[0]))
            plus, minus = self._exp(inner, sp.I), self._exp(inner, -sp.I)
            half = sp.Rational(1, 2) if isinstance(expr, sp.cos) else -sp.I / 2
            sign = 1 if isinstance(expr, sp.cos) else -1
            return self.add(self.mul(self.constant(half), plus),
                            self.mul(self.constant(sign * half), minus))
        raise _Undecided(f"{type(expr).__name__} is not part of an exponential polynomial")


def _gaussian_rational(c) -> bool:
    return isinstance(c, Fraction) or all(t.is_Rational or t is sp.I or (t.is_Mul and len(t.args) == 2 and t.args[0].is_Rational
                                               and t.args[1] is sp.I)
               for t in sp.Add.make_args(c))


def exact_difference(a, b, symbols) -> bool | None:
    """Is ``a - b`` zero as a function (False: it is not; None: undecided within the bounds)?

    >>> x, y = sp.symbols("x y")
    >>> exact_difference(sp.cos(x) * sp.cos(y) + sp.sin(x) * sp.sin(y), sp.cos(x - y), [x, y])
    True
    >>> exact_difference((x * y + 1) ** 2, x**2 * y**2 + 2 * x * y, [x, y])
    False
    """
    rewriter = _Rewriter(symbols)
    try:
        difference = rewriter.add(rewriter.rewrite(a), rewriter.mul(rewriter.constant(
            sp.Integer(-1)), rewriter.rewrite(b)))
    except (_Undecided, RecursionError):
        return None
    if not difference:
        return True
    coefficients = [c for q, p in difference.items() for c in [*p.values(), *dict(q).values()]]
    if all(_gaussian_rational(c) for c in coefficients):
        return False
    return None


# ----------------------------------------------------------------------------- points
def _stream(seed: bytes):
    counter = 0
    while True:
        block = hashlib.sha256(seed + counter.to_bytes(8, "big")).digest()
        counter += 1
        for i in range(0, 32, 8):
            yield int.from_bytes(block[i:i + 8], "big")


def secret_points(seed: bytes | None, d: int, nonneg: bool) -> list[tuple[list, list]]:
    """:data:`SAMPLES` pairs of points in R^d (exact rationals) drawn from ``seed``; fresh
    random points when ``seed`` is None."""
    words = _stream(seed if seed is not None else os.urandom(32))
    q = 10**9 + next(words) % 10**9
    while q % 2 == 0 or q % 5 == 0:
        q += 1

    def coordinate(width: int):
        n = next(words) % (width * q + 1) if nonneg else next(words) % (2 * width * q + 1) - width * q
        return sp.Rational(n, q)

    pairs = []
    for i in range(SAMPLES):
        width = 2 if i < SAMPLES // 2 else 8
        pairs.append(([coordinate(width) for _ in range(d)], [coordinate(width) for _ in range(d)]))
    return pairs


def public_points(d: int, nonneg: bool) -> list[tuple[list, list]]:
    """Simple pairs where a differing certificate is shown to differ in feedback (never the
    secret points: shown, they would let the next hand-in fit them)."""
    raw = [((2, 4), (-6, 1)), ((4, -3), (10, 5)), ((-8, 2), (12, -4)), ((14, 6), (-16, -1)),
           ((1, -2), (-3, 3))]
    out = []
    for a, b in raw:
        a, b = [abs(v) if nonneg else v for v in a[:d]], [abs(v) if nonneg else v for v in b[:d]]
        out.append(([sp.Rational(v, 4) for v in a], [sp.Rational(v, 4) for v in b]))
    return out


def same_at(got, want) -> bool:
    """Do two values at one point agree: exactly when both are rational, else to 40 digits?"""
    if got.is_Rational and want.is_Rational:
        return got == want
    g, w = sp.N(got, _DIGITS), sp.N(want, _DIGITS)
    if not (g.is_number and w.is_number):
        return False
    if abs(sp.im(g)) > _AGREE * max(1, abs(w)):
        return False
    return abs(g - w) <= _AGREE * max(abs(g), abs(w))
