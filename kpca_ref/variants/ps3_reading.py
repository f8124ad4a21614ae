"""Reading the numbers and sympy expressions of ps3_mercer's Part 7 answers, within bounds.

A student's answer reaches the grader decoded but unevaluated (:mod:`kpca_probe.wire`). Before
any arithmetic, :func:`exact_number` and :func:`check_tree` refuse what is not an exact
number or a small expression of the allowed functions and symbols, with a message saying why
(:class:`Refused`), so no answer can make the grader's sympy run long.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

__all__ = ["Refused", "check_tree", "exact_number", "numeric", "unreadable"]

_MAX_NODES = 200
_MAX_POWER = 12
_MAX_DIGITS = 40  # of an integer, numerator or denominator
_FUNCTIONS = (sp.exp, sp.sin, sp.cos, sp.Abs)
_NOT_FINITE = (sp.oo, -sp.oo, sp.zoo, sp.nan)


class Refused(ValueError):
    """An answer that cannot be read as a witness or a certificate; the message says why."""


def unreadable(value, what: str) -> None:
    """Refuse a value the wire could not carry (too large, or not a number or expression)."""
    if type(value).__name__ == "Unreadable":
        raise Refused(f"{what} could not be read ({value.what})")


def exact_number(value, what: str, allow_float: bool) -> sp.Expr:
    unreadable(value, what)
    if isinstance(value, (bool, np.bool_)):
        raise Refused(f"{what} should be a number, got {value!r}")
    if isinstance(value, (int, np.integer)):
        value = sp.Integer(int(value))
        check_tree(value, what, set())
        return value
    if isinstance(value, (float, np.floating)):
        if not allow_float:
            raise Refused(f"{what} should be exact (an integer, Rational(p, q) or sqrt(...)), "
                           f"got the decimal {value!r}")
        if not np.isfinite(value):
            raise Refused(f"{what} should be a finite number, got {value!r}")
        return sp.Rational(float(value))  # the exact binary fraction the float holds
    if isinstance(value, sp.Basic) and not isinstance(value, sp.MatrixBase):
        if value.has(sp.Float):
            if allow_float and isinstance(value, sp.Float):
                return exact_number(float(value), what, True)
            raise Refused(f"{what} should be exact, got the decimal {value}")
        if value.free_symbols or not value.is_number:
            raise Refused(f"{what} should be a number, got {value}")
        check_tree(value, what, set())
        return value
    raise Refused(f"{what} should be a number, got {type(value).__name__}")


def check_tree(expr, what: str, symbols: set[str]) -> None:
    """Bounded size, small exponents, exact numbers, allowed functions and symbols only."""
    nodes = list(sp.preorder_traversal(expr))
    if len(nodes) > _MAX_NODES:
        raise Refused(f"{what} is too large to check ({len(nodes)} nodes, at most {_MAX_NODES})")
    for node in nodes:
        if isinstance(node, sp.Float):
            raise Refused(f"{what} should be exact, got the decimal {node}")
        if node in _NOT_FINITE:
            raise Refused(f"{what} holds {node}, not a finite number")
        if isinstance(node, sp.Rational) and max(len(str(abs(node.p))), len(str(node.q))) > (
                _MAX_DIGITS):
            raise Refused(f"{what} holds a number too large to check")
        if isinstance(node, sp.Symbol) and node.name not in symbols:
            allowed = ", ".join(sorted(symbols)) or "none"
            raise Refused(f"{what} uses the symbol {node.name} (allowed here: {allowed})")
        if isinstance(node, sp.Pow):
            power = node.exp
            if not (isinstance(power, sp.Rational) and abs(power.p) <= _MAX_POWER
                    and power.q <= 4):
                raise Refused(f"{what}: the power {power} is not a small integer or fraction")
        elif isinstance(node, sp.Function) and not isinstance(node, _FUNCTIONS):
            raise Refused(f"{what} uses {type(node).__name__}, not one of exp, sin, cos, sqrt, "
                           "Abs")
        elif not isinstance(node, (sp.Number, sp.Symbol, sp.Add, sp.Mul, sp.Pow, sp.Function,
                                   sp.NumberSymbol, sp.core.numbers.ImaginaryUnit)):
            raise Refused(f"{what} holds {type(node).__name__}, which a certificate cannot use")


def numeric(value, digits: int = 50):
    result = sp.N(value, digits)
    if not result.is_number:
        raise Refused(f"could not evaluate {value}")
    return result
