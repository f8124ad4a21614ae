"""The notation of ps3_mercer's candidate functions, read into functions.

Texts use ``x.x'`` for the dot product, ``||x - x'||^2`` for the squared distance,
``x_1``, ``x'_2`` for coordinates, ``^`` for powers and ``*`` for products. A text may end in
a domain in square brackets: ``[scalars x, x' >= 0]`` (1-D points, non-negative),
``[scalars x, x']`` (1-D points) or ``[the same for every x, x']`` (a constant); without one
the points are in R^2. :func:`exact_function` builds the function of a text in sympy,
:func:`float_function` in floats; a text is read as an expression tree of this notation
alone (anything else is a ValueError), and is always the kit's own
(:data:`kpca_ref.variants.ps3_pool.POOL`), never a student's.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable

import numpy as np
import sympy as sp

__all__ = ["CONSTANT", "NONNEG", "SCALARS", "constant", "dimension", "exact_function",
           "float_function", "nonnegative"]

NONNEG = "  [scalars x, x' >= 0]"
SCALARS = "  [scalars x, x']"
CONSTANT = "  [the same for every x, x']"


def dimension(text: str) -> int:
    """1 for a scalar domain, else 2."""
    return 1 if "[scalars" in text else 2


def constant(text: str) -> bool:
    """Is the text's function a constant (its points may have 1 or 2 coordinates)?"""
    return CONSTANT.strip() in text


def nonnegative(text: str) -> bool:
    """Does the text's domain hold non-negative scalars only?"""
    return ">= 0]" in text


_WORDS = [("||x - x'||^2", " sqd "), ("||x - x'||", " dist "), ("x.x'", " dot "),
          ("x'_1", " y1 "), ("x'_2", " y2 "), ("x_1", " x1 "), ("x_2", " x2 "),
          ("x'", " y "), ("^", "**")]
_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
        ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b,
        ast.Pow: lambda a, b: a ** b}


def _tree(text: str):
    formula = text.partition("  [")[0]
    for word, name in _WORDS:
        formula = formula.replace(word, name)
    return ast.parse(formula.strip(), mode="eval").body


def _value(node, names, calls, number):
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return number(node.value)
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _value(node.operand, names, calls, number)
        return -inner if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        left = _value(node.left, names, calls, number)
        return _OPS[type(node.op)](left, _value(node.right, names, calls, number))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in calls:
        return calls[node.func.id](*(_value(a, names, calls, number) for a in node.args))
    raise ValueError(f"not part of the candidates' notation: {ast.dump(node)}")


def _root(v):
    """``sqrt(v)``, left unevaluated for a rational of more than 30 digits (sympy would look
    for its square factors: seconds for the 160-digit sums of squares a witness can give)."""
    if isinstance(v, sp.Rational) and max(abs(v.p), v.q) >= 10**30:
        return sp.Pow(v, sp.S.Half, evaluate=False)
    return sp.sqrt(v)


_SYMPY_CALLS = {"exp": sp.exp, "cos": sp.cos, "sin": sp.sin, "sqrt": _root,
                "min": sp.Min, "max": sp.Max}
_FLOAT_CALLS = {"exp": math.exp, "cos": math.cos, "sin": math.sin, "sqrt": math.sqrt,
                "min": min, "max": max}


def _names(x, y, d, sqrt):
    sqd = sum((a - b) ** 2 for a, b in zip(x, y))
    names = {"dot": sum(a * b for a, b in zip(x, y)), "sqd": sqd, "dist": sqrt(sqd),
             "x": x[0], "y": y[0], "x1": x[0], "y1": y[0]}
    if d > 1:
        names.update(x2=x[1], y2=y[1])
    return names


def exact_function(text: str) -> Callable:
    """``k(x, y)`` on two sequences of sympy numbers (or symbols): an exact sympy value."""
    tree, d = _tree(text), dimension(text)

    def k(x, y):
        return _value(tree, _names(list(x), list(y), d, _root), _SYMPY_CALLS, sp.Integer)

    return k


def float_function(text: str) -> Callable:
    """``k(x, y)`` on two 1-D float arrays; a non-negative domain reads ``|x|`` (as the
    notebook's helper does, so a search over R stays on the domain)."""
    tree, d, absolute = _tree(text), dimension(text), nonnegative(text)

    def k(x, y):
        x, y = np.asarray(x, dtype=float).ravel(), np.asarray(y, dtype=float).ravel()
        if absolute:
            x, y = np.abs(x), np.abs(y)
        names = _names([float(v) for v in x], [float(v) for v in y], d, math.sqrt)
        try:
            return float(_value(tree, names, _FLOAT_CALLS, float))
        except OverflowError:
            return math.inf

    return k
