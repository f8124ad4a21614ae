"""Exact (sympy) answers: rebuilding a student's value and exact equality.

:func:`as_exact` rebuilds the value node by node: integers become ``Integer``,
``Fraction`` becomes ``Rational``, matrices ``ImmutableMatrix``; every node of an
expression must be a sympy class, so a subclass with a lying ``__eq__`` is
refused, and any float raises :class:`FloatNotExact`. :func:`exact_equal`
compares differences with ``simplify``, never the student's own equality.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy as sp

__all__ = ["FloatNotExact", "as_exact", "exact_equal"]


class FloatNotExact(AssertionError):
    """An exact (sympy) value was expected and a float was found."""


def _sympy_node(node, name):
    if isinstance(node, sp.Float):
        raise FloatNotExact(f"{name}: exact value expected, got a float")
    if type(node).__module__.split(".")[0] != "sympy":
        raise AssertionError(f"{name} holds a {type(node).__name__}, which is not a sympy value")
    return node


def as_exact(value, *, name="answer"):
    """A sympy value rebuilt from ``value``; any float raises :class:`FloatNotExact`.

    Integers become ``Integer``, ``Fraction`` becomes ``Rational``, matrices become
    ``ImmutableMatrix``, bools stay bools, lists and tuples become lists and dicts
    stay dicts (converted entry by entry). Every node of a sympy expression must be
    a sympy class.

    Examples
    --------
    >>> as_exact([1, sp.Rational(4, 7)])
    [1, 4/7]
    >>> as_exact(sp.Matrix([[0.5]]))
    Traceback (most recent call last):
    ...
    kpca_ref.grading.compare_exact.FloatNotExact: answer: exact value expected, got a float
    """
    if isinstance(value, (float, complex, np.floating, np.complexfloating)):
        raise FloatNotExact(f"{name}: exact value expected, got a float")
    if type(value).__name__ == "Unreadable" and isinstance(getattr(value, "what", None), str):
        raise AssertionError(f"{name} could not be read: {value.what}")  # kpca_probe.wire
    if value is sp.true or value is sp.false:
        return value is sp.true
    if type(value) is bool or isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, int):
        return sp.Integer(int.__index__(value))
    if isinstance(value, np.integer):
        return sp.Integer(int(value))
    if isinstance(value, Fraction):
        return sp.Rational(value.numerator, value.denominator)
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "fc":
            raise FloatNotExact(f"{name}: exact value expected, got a float array")
        if value.ndim == 2:
            value = sp.Matrix(value.tolist())
        else:
            return as_exact(value.tolist(), name=name) if value.ndim else as_exact(value.item())
    if isinstance(value, sp.MatrixBase):
        if type(value).__module__.split(".")[0] != "sympy":
            raise AssertionError(f"{name} is a {type(value).__name__}, not a sympy Matrix")
        rows, cols = value.shape
        entries = [as_exact(v, name=name) for v in value.tolist() for v in v]
        return sp.ImmutableMatrix(rows, cols, entries)
    if isinstance(value, sp.Tuple):
        return [as_exact(v, name=name) for v in value]
    if isinstance(value, sp.Basic):
        for node in sp.preorder_traversal(value):
            _sympy_node(node, name)
        return value
    if isinstance(value, (list, tuple)):
        return [as_exact(v, name=name) for v in value]
    if isinstance(value, dict):
        return {k: as_exact(v, name=name) for k, v in value.items()}
    raise AssertionError(
        f"{name} must be a sympy value (Integer, Rational, sqrt(...), Matrix), "
        f"got {type(value).__name__}"
    )


def _is_zero(diff) -> bool:
    if diff == 0:
        return True
    simple = sp.simplify(diff)
    if simple == 0:
        return True
    return simple.equals(0) is True


def _flat(value):
    """A vector Matrix (k x 1 or 1 x k) as a list, anything else unchanged."""
    if isinstance(value, sp.MatrixBase) and 1 in value.shape:
        return list(value)
    return value


def _equal(a, b) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is bool and type(b) is bool and a == b
    if isinstance(a, dict) or isinstance(b, dict):
        return (isinstance(a, dict) and isinstance(b, dict) and set(a) == set(b)
                and all(_equal(a[k], b[k]) for k in b))
    if isinstance(a, list) or isinstance(b, list):
        a, b = _flat(a), _flat(b)
        return (isinstance(a, list) and isinstance(b, list) and len(a) == len(b)
                and all(_equal(x, y) for x, y in zip(a, b)))
    if isinstance(a, sp.MatrixBase) or isinstance(b, sp.MatrixBase):
        return (isinstance(a, sp.MatrixBase) and isinstance(b, sp.MatrixBase)
                and a.shape == b.shape and all(_is_zero(x - y) for x, y in zip(a, b)))
    return _is_zero(a - b)


def exact_equal(actual, expected) -> bool:
    """Exact equality of sympy values (scalars, matrices, lists, dicts, bools).

    A float anywhere makes it False. A vector Matrix equals a list of the same
    entries; otherwise matrix shapes must agree.

    >>> exact_equal(sp.sqrt(2) / 2, 1 / sp.sqrt(2)), exact_equal(0.5, sp.Rational(1, 2))
    (True, False)
    """
    try:
        return _equal(as_exact(actual), as_exact(expected, name="expected"))
    except Exception:  # noqa: BLE001 - whatever the value does, it is not equal
        return False
