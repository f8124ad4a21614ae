"""The pool of candidate functions of ps3_mercer's Part 7, each with its kind of trap.

Each entry is a :class:`Candidate`: the text a student reads (plain text, e.g.
``"(x.x' - 2)^3"``), its *kind* (:data:`KINDS`: which wrong rule it catches), its *group*
(a student's two items of one kind come from two groups), whether it is a valid kernel and,
for a kernel, a reference certificate (the source of a certificate in the language of
:mod:`kpca_ref.variants.ps3_certify`). The function itself is built from the text by
:func:`exact_function` (sympy) or :func:`float_function` (floats): the text is the kit's
own, never a student's, and the grader only reads it after looking it up in :data:`POOL`.

The notation of the texts, and the functions built from them, are
:mod:`kpca_ref.variants.ps3_notation`'s (its names stay importable from here). The
notebook's ``candidate`` helper reads the same notation.

Only what the course can certify is asked: every kernel of the pool has a certificate from
the rules the notes teach (an explicit feature map, the polynomial and RBF kernels, sums,
positive multiples, products, the exponential of a kernel); ``1 / (1 + c ||x - x'||^2)``
and ``min(x, x')`` are left out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from kpca_ref.variants.ps3_notation import (
    CONSTANT,
    NONNEG,
    SCALARS,
    constant,
    dimension,
    exact_function,
    float_function,
    nonnegative,
)

__all__ = ["EXAMPLE_TEXTS", "KINDS", "PICTURED", "POOL", "Candidate", "constant", "dimension",
           "exact_function", "float_function", "nonnegative", "pool"]

SQD = "||x - x'||^2"
DOT = "x.x'"

#: kind -> what it is; every student's list holds two items of each kind
KINDS = {
    "diagonal": "not a kernel: some point has k(x, x) < 0 (one point is a witness)",
    "asymmetric": "not a kernel: k(x, x') != k(x', x) for some pair",
    "eigenvalue": "not a kernel although symmetric with k(x, x) >= 0: two or more points",
    "signed_kernel": "a kernel that takes negative values (its Gram matrices have negative "
                     "entries)",
    "positive_kernel": "a kernel that never takes negative values",
}
VALID_KINDS = frozenset({"signed_kernel", "positive_kernel"})

#: the notebook's worked examples, two of each kind (kept out of the pool)
EXAMPLE_TEXTS = (
    "x.x' - 1", "-x.x'", "x_1 * x'_2 - x'_1 * x_2 + 1", "x.x' + x_1 - x'_1", "||x - x'||^2",
    "exp(||x - x'||^2)",
    "x.x'", "(x.x')^3", "(x.x' + 1)^2", "exp(-||x - x'||^2)",
)

#: the notebook's worked certificates and the functions its picture plots (kept out too)
PICTURED = ("(x.x' - 1)^2", "3 * x.x' + (x.x' + 1)^2", "x_1 * x'_1 + 4")


@dataclass(frozen=True)
class Candidate:
    """One candidate function: its text, kind, group and (for a kernel) a certificate."""

    text: str
    kind: str
    group: str
    certificate: str | None = None  # Python source of a certificate (kernels only)

    @property
    def valid(self) -> bool:
        """Is it a valid kernel?"""
        return self.kind in VALID_KINDS

    @property
    def d(self) -> int:
        """The dimension of its points."""
        return dimension(self.text)

    @property
    def k(self) -> Callable:
        """Float function of two 1-D arrays (see :func:`float_function`)."""
        return float_function(self.text)


def _num(q) -> str:
    q = Fraction(q)
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def _src(q) -> str:
    q = Fraction(q)
    return str(q.numerator) if q.denominator == 1 else f"Rational({q.numerator}, {q.denominator})"


def _times(a, term: str) -> str:
    """``a * term`` as text: ``2 * x.x'``, ``-x.x'``, ``x.x' / 2``, ``-3 * x.x'``."""
    a = Fraction(a)
    sign = "-" if a < 0 else ""
    a = abs(a)
    if a == 1:
        return f"{sign}{term}"
    if a.numerator == 1:
        return f"{sign}{term} / {a.denominator}"
    return f"{sign}{_num(a)} * {term}"


def _shift(c) -> str:
    return DOT if c == 0 else (f"x.x' + {_num(c)}" if c > 0 else f"x.x' - {_num(-c)}")


def _kernels() -> list[Candidate]:
    F = Fraction
    out = [Candidate(f"exp({_times(-g, SQD)})", "positive_kernel", "rbf", f'("rbf", {_src(g)})')
           for g in (2, 3, F(1, 2), F(1, 3))]
    out += [Candidate(f"{a} * exp(-{SQD})", "positive_kernel", "scaled_rbf",
                      f'("scale", {a}, ("rbf", 1))') for a in (2, 3, 5)]
    out += [Candidate(f"({_shift(c)})^{p}", "positive_kernel", "poly_even", f'("poly", {c}, {p})')
            for c, p in ((0, 2), (0, 4), (1, 4), (2, 2), (2, 4), (3, 2), (3, 4))]
    out += [Candidate(f"{a}" + CONSTANT, "positive_kernel", "constant", f'("map", [sqrt({a})])')
            for a in (2, 3, 5)]
    out += [Candidate(f"exp({_times(b, DOT)})", "positive_kernel", "exp_dot",
                      f'("exp", ("scale", {_src(b)}, "linear"))')
            for b in (1, 2, F(1, 2))]
    out += [Candidate(_times(a, DOT), "signed_kernel", "linear", f'("scale", {_src(a)}, "linear")')
            for a in (2, 3, F(1, 2), F(1, 3))]
    out += [Candidate(_shift(c), "signed_kernel", "shifted", f'("poly", {c}, 1)')
            for c in (1, 2, 3)]
    out += [Candidate(f"({_shift(c)})^{p}", "signed_kernel", "poly_odd", f'("poly", {c}, {p})')
            for c, p in ((1, 3), (2, 3), (3, 3), (0, 5), (1, 5))]
    out += [
        Candidate("x * x'" + SCALARS, "signed_kernel", "trig", '("map", [x])'),
        Candidate("cos(x - x')" + SCALARS, "signed_kernel", "trig", '("map", [cos(x), sin(x)])'),
        Candidate("cos(2 * (x - x'))" + SCALARS, "signed_kernel", "trig",
                  '("map", [cos(2*x), sin(2*x)])'),
        Candidate("sin(x) * sin(x')" + SCALARS, "signed_kernel", "trig", '("map", [sin(x)])'),
        Candidate("cos(x) * cos(x')" + SCALARS, "signed_kernel", "trig", '("map", [cos(x)])'),
        Candidate("x_1 * x'_1", "signed_kernel", "coordinates", '("map", [x1])'),
        Candidate("x_2 * x'_2", "signed_kernel", "coordinates", '("map", [x2])'),
        Candidate("x_1 * x'_1 + 2 * x_2 * x'_2", "signed_kernel", "coordinates",
                  '("map", [x1, sqrt(2)*x2])'),
        Candidate("3 * x_1 * x'_1 + x_2 * x'_2", "signed_kernel", "coordinates",
                  '("map", [sqrt(3)*x1, x2])'),
        Candidate(f"x.x' + exp(-{SQD})", "signed_kernel", "combination",
                  '("sum", "linear", ("rbf", 1))'),
        Candidate(f"x.x' * exp(-{SQD})", "signed_kernel", "combination",
                  '("product", "linear", ("rbf", 1))'),
        Candidate("(x.x')^2 + x.x'", "signed_kernel", "combination",
                  '("sum", ("poly", 0, 2), "linear")'),
        Candidate("(x.x' + 1)^2 - 1", "signed_kernel", "combination",
                  '("sum", ("poly", 0, 2), ("scale", 2, "linear"))'),
    ]
    return out


def _not_kernels() -> list[Candidate]:
    F = Fraction
    out = [Candidate(_times(-a, DOT), "diagonal", "negative_linear") for a in (2, 3, F(1, 2))]
    out += [Candidate(_shift(-c), "diagonal", "negative_shift") for c in (2, 3, F(1, 2))]
    out += [Candidate(f"({_shift(-c)})^3", "diagonal", "negative_odd_power") for c in (1, 2)]
    out += [Candidate(f"-2 * exp(-{SQD})", "diagonal", "negative_scale"),
            Candidate("-3 * (x.x' + 1)^2", "diagonal", "negative_scale")]
    out += [Candidate(t + SCALARS, "diagonal", "trig_diagonal") for t in ("cos(x + x')",
                                                                          "sin(x + x')")]
    out += [Candidate(f"{a}" + CONSTANT, "diagonal", "negative_constant") for a in (-1, -2)]
    out += [Candidate("min(x, x') - 1" + NONNEG, "diagonal", "order_diagonal"),
            Candidate("x_1 * x'_2 + x_2 * x'_1", "diagonal", "coordinates_diagonal"),
            Candidate("x_1 * x'_1 - x_2 * x'_2", "diagonal", "coordinates_diagonal"),
            Candidate("(x.x')^2 - x.x'", "diagonal", "combination_diagonal"),
            Candidate(f"x.x' - exp(-{SQD})", "diagonal", "combination_diagonal"),
            Candidate("(x.x' + 1)^2 - 2", "diagonal", "combination_diagonal")]
    # an asymmetric trap has k(x, x) >= 0 and a PSD symmetric part: only asymmetry refutes it
    out += [Candidate(t, "asymmetric", "antisymmetric")
            for t in ("x_1 * x'_2 - x_2 * x'_1", "2 * x_2 * x'_1 - 2 * x_1 * x'_2")]
    out += [Candidate(t + SCALARS, "asymmetric", "antisymmetric_scalars")
            for t in ("x - x'", "sin(x - x')", "x^2 - x'^2")]
    out += [Candidate(t, "asymmetric", "kernel_plus_antisymmetric")
            for t in ("x.x' + x_1 * x'_2 - x_2 * x'_1", "(x.x')^2 + x_1 - x'_1",
                      f"exp(-{SQD}) + x_2 - x'_2")]
    out += [Candidate(t + SCALARS, "asymmetric", "kernel_plus_antisymmetric")
            for t in ("x * x' + x - x'", "1 + x - x'")]
    out += [Candidate(_times(a, SQD), "eigenvalue", "distance") for a in (2, 3, -1, -2)]
    out += [Candidate("||x - x'||", "eigenvalue", "distance"),
            Candidate(f"sqrt(1 + {SQD})", "eigenvalue", "distance")]
    out += [Candidate(f"exp({_times(g, SQD)})", "eigenvalue", "rbf_negative_gamma")
            for g in (2, 3, F(1, 2))]
    out += [Candidate(f"{a} * exp({SQD})", "eigenvalue", "rbf_negative_gamma") for a in (2, 3)]
    out += [Candidate(f"({_shift(-c)})^{p}", "eigenvalue", "even_power_negative_shift")
            for c, p in ((1, 4), (2, 2), (2, 4))]
    out += [Candidate(f"exp({_times(-b, DOT)})", "eigenvalue", "exp_dot_negative")
            for b in (1, 2, F(1, 2))]
    out += [Candidate("max(x, x')" + NONNEG, "eigenvalue", "order"),
            Candidate(f"exp(-{SQD}) - 1", "eigenvalue", "combination_eigenvalue"),
            Candidate(f"{SQD} + x.x'", "eigenvalue", "combination_eigenvalue")]
    return out


def _examples() -> list[Candidate]:
    kinds = ("diagonal", "diagonal", "asymmetric", "asymmetric", "eigenvalue", "eigenvalue",
             "signed_kernel", "signed_kernel", "positive_kernel", "positive_kernel")
    certificates = dict(zip(EXAMPLE_TEXTS[6:], ('"linear"', '("poly", 0, 3)', '("poly", 1, 2)',
                                                 '("rbf", 1)')))
    found = [Candidate(t, k, "example", certificates.get(t)) for t, k in zip(EXAMPLE_TEXTS, kinds)]
    return found + [
        Candidate(PICTURED[0], "eigenvalue", "example"),
        Candidate(PICTURED[1], "signed_kernel", "example",
                  '("sum", ("scale", 3, "linear"), ("poly", 1, 2))'),
        Candidate(PICTURED[2], "signed_kernel", "example", '("map", [x1, 2])')]


def _everything() -> tuple[Candidate, ...]:
    found = [*_kernels(), *_not_kernels(), *_examples()]
    texts = [c.text for c in found]
    if len(set(texts)) != len(texts):
        raise RuntimeError(f"two candidates have one text: {sorted(t for t in texts if texts.count(t) > 1)}")
    return tuple(found)


def pool() -> tuple[Candidate, ...]:
    """Every candidate a student can get, in a fixed order (the notebook's examples and
    pictured functions are not among them)."""
    return tuple(c for c in _everything() if c.group != "example")


#: text -> candidate, the notebook's examples included (the grader's only way from a text
#: to its function and kind)
POOL = {c.text: c for c in _everything()}
