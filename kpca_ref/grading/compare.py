"""Coercion of a student's result and the comparisons the hidden tests use.

Every comparison first turns the student's value into a plain object the grader
controls: a float64 ``numpy.ndarray`` (never a subclass, so an overridden
``__eq__`` or ``__array_ufunc__`` is gone), a Python ``int`` or ``bool``, or a
sympy value checked node by node. The final float comparisons run in Python
arithmetic on ``.tolist()``, not through numpy functions a notebook could have
replaced. The exact (sympy) half is :mod:`.compare_exact`, re-exported here.

Tolerances are relative to the scale of the expected value: an entry passes
when ``|actual - expected| <= atol + floor + rtol * |expected|`` with ``atol`` defaulting
to ``atol_scale * max |expected|`` (per column with ``per_column=True``) and ``floor``
zero unless the caller passes :func:`underflow_floor` of the student's result.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from kpca_ref.grading.compare_exact import FloatNotExact, as_exact, exact_equal
from kpca_ref.tolerances import (
    FLOAT32_UNDERFLOW,
    GRADING_ATOL_SCALE,
    GRADING_IMAG_RTOL,
    GRADING_RTOL,
)

__all__ = [
    "FloatNotExact",
    "allclose",
    "allclose_up_to_sign",
    "as_bool",
    "as_exact",
    "as_float_array",
    "as_int",
    "exact_equal",
    "mismatch_report",
    "same_subspace",
    "shape_text",
    "underflow_floor",
]


def shape_text(shape) -> str:
    """``(3, 2)``, ``(6,)`` or ``()``: how shapes appear in messages."""
    return str(tuple(int(s) for s in shape))


def as_float_array(value, shape=None, *, name="result") -> np.ndarray:
    """A finite, plain float64 ndarray made from ``value``; ``AssertionError`` otherwise.

    Parameters
    ----------
    value : object
        What the student returned.
    shape : tuple of int, optional
        The expected shape. A one-element result is accepted for shape ``()``.
    name : str
        How the value is called in messages.

    Examples
    --------
    >>> as_float_array([[1, 2], [3, 4]], (2, 2))
    array([[1., 2.],
           [3., 4.]])
    >>> as_float_array(np.zeros((3, 2)), (3, 3))
    Traceback (most recent call last):
    ...
    AssertionError: result has shape (3, 2), expected (3, 3)
    """
    if value is None:
        raise AssertionError(f"{name} is None (is a return statement missing?)")
    try:
        raw = np.array(value)
        if raw.dtype.kind == "c":
            imag = [abs(v) for v in raw.imag.ravel().tolist()]
            real = [abs(v) for v in raw.real.ravel().tolist()]
            if imag and max(imag) > GRADING_IMAG_RTOL * max(real + [1e-300]):
                raise AssertionError(f"{name} has complex entries; real numbers expected")
            raw = raw.real
        arr = np.array(raw, dtype=np.float64)
    except AssertionError:
        raise
    except Exception as exc:  # noqa: BLE001 - whatever the value's own conversion raises
        text = " ".join(str(exc).split())[:80]
        raise AssertionError(
            f"{name} could not be read as an array of numbers ({type(value).__name__}: {text})"
        ) from None
    arr = arr.view(np.ndarray) if type(arr) is not np.ndarray else arr
    if shape is not None:
        shape = tuple(int(s) for s in shape)
        if arr.shape != shape:
            if shape == () and arr.size == 1:
                arr = arr.reshape(())
            else:
                raise AssertionError(
                    f"{name} has shape {shape_text(arr.shape)}, expected {shape_text(shape)}"
                )
    if not all(math.isfinite(v) for v in arr.ravel().tolist()):
        raise AssertionError(f"{name} contains NaN or inf")
    return arr


def as_int(value, *, name="result") -> int:
    """A Python int from an integer-valued number (``3``, ``np.int64(3)``, ``3.0``).

    >>> as_int(np.int64(7)), as_int(7.0)
    (7, 7)
    """
    if isinstance(value, (bool, np.bool_)):
        raise AssertionError(f"{name} must be a whole number, got a bool")  # noqa: TRY004
    if isinstance(value, np.ndarray) and value.shape in ((), (1,)):
        value = value.reshape(()).item()
    if isinstance(value, int):
        return int.__index__(value)
    if isinstance(value, (np.integer, sp.Integer)):
        return int(value)
    if isinstance(value, (float, np.floating, sp.Float)):
        number = float(value)
        if math.isfinite(number) and number == math.floor(number):
            return int(number)
    raise AssertionError(f"{name} must be a whole number, got {type(value).__name__} {value!r}")


def as_bool(value, *, name="result") -> bool:
    """A Python bool from ``bool``, ``numpy.bool_`` or sympy's ``true``/``false``.

    >>> as_bool(np.bool_(True)), as_bool(sp.false)
    (True, False)
    """
    if isinstance(value, np.ndarray) and value.shape == () and value.dtype == bool:
        value = value.item()
    if type(value) is bool:
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if value is sp.true or value is sp.false:
        return value is sp.true
    raise AssertionError(f"{name} must be True or False, got {type(value).__name__} {value!r}")


def _grid(value) -> np.ndarray:
    """A plain float64 array with two axes (vectors as one column)."""
    arr = np.array(value, dtype=np.float64).view(np.ndarray)
    if arr.ndim == 0:
        return arr.reshape(1, 1)
    if arr.ndim == 1:
        return arr.reshape(-1, 1)
    return arr.reshape(arr.shape[0], -1) if arr.ndim > 2 else arr


def underflow_floor(result, single_floor: float = FLOAT32_UNDERFLOW) -> float:
    """The absolute floor a student's ``result`` earns by its precision.

    A float32 result (array, scalar, or a list or tuple of float32 scalars) cannot hold
    magnitudes below float32's smallest normal number, so it gets ``single_floor``
    (:data:`kpca_ref.tolerances.FLOAT32_UNDERFLOW` unless a case asks for more);
    anything else gets 0.

    >>> underflow_floor(np.float32(0.0)) > 0, underflow_floor(0.0), underflow_floor([1.0])
    (True, 0.0, 0.0)
    """
    try:
        single = np.asarray(result).dtype == np.float32
    except Exception:  # noqa: BLE001 - an unreadable value earns nothing
        return 0.0
    return single_floor if single else 0.0


def _entry_checks(actual, expected, rtol, atol, per_column, atol_scale, floor=0.0):
    """Per-entry pass/fail grid (lists of bools), or None when the shapes differ.

    Both sides are first copied into plain float64 arrays, so nothing of the student's
    objects (subclasses, overloaded operators) takes part in the arithmetic.
    """
    a_arr, e_arr = np.array(actual, dtype=np.float64), np.array(expected, dtype=np.float64)
    if a_arr.shape != e_arr.shape:
        return None
    a, e = _grid(a_arr), _grid(e_arr)
    magnitude = np.abs(e)
    if per_column:
        scales = np.max(magnitude, axis=0, initial=0.0)
    else:
        scales = np.full(e.shape[1], np.max(magnitude, initial=0.0))
    if atol is None:
        bounds = np.broadcast_to(atol_scale * np.where(scales > 0, scales, 1.0), e.shape)
    else:
        bounds = _grid(np.broadcast_to(np.array(atol, dtype=np.float64), e_arr.shape))
    with np.errstate(invalid="ignore", over="ignore"):
        return (np.abs(a - e) <= bounds + floor + rtol * magnitude).tolist()


def allclose(actual, expected, *, rtol=GRADING_RTOL, atol=None, per_column=False,
             atol_scale=GRADING_ATOL_SCALE, floor=0.0) -> bool:
    """True when the shapes agree and every entry is within tolerance.

    ``atol`` (scalar or array broadcastable to the shape) defaults to
    ``atol_scale * max |expected|``, over each column when ``per_column``; ``floor`` is
    added to it (see :func:`underflow_floor`).

    >>> allclose([1.0, 2.0 + 1e-9], [1.0, 2.0]), allclose([1.0, 2.1], [1.0, 2.0])
    (True, False)
    """
    try:
        checks = _entry_checks(actual, expected, rtol, atol, per_column, atol_scale, floor)
    except Exception:  # noqa: BLE001 - an unreadable value compares unequal
        return False
    return checks is not None and all(ok for row in checks for ok in row)


def mismatch_report(actual, expected, *, rtol=GRADING_RTOL, atol=None, per_column=False,
                    atol_scale=GRADING_ATOL_SCALE, floor=0.0) -> str:
    """Which entries differ, without revealing any expected value.

    >>> mismatch_report([[1.0, 2.0], [3.0, 5.0]], [[1.0, 2.0], [3.0, 4.0]])
    '1 of 4 entries differ from the expected values (the first at index (1, 1))'
    """
    checks = _entry_checks(actual, expected, rtol, atol, per_column, atol_scale, floor)
    if checks is None:
        return "the shape differs from the expected one"
    bad = [(i, j) for i, row in enumerate(checks) for j, ok in enumerate(row) if not ok]
    ndim = np.ndim(expected)
    total = sum(len(row) for row in checks)
    if not bad:
        return "all entries agree"
    i, j = bad[0]
    where = "" if ndim == 0 else f" (the first at index {(i, j) if ndim == 2 else (i,)})"
    if ndim == 0:
        return "the value differs from the expected one"
    noun = "entry differs" if len(bad) == 1 and total == 1 else "entries differ"
    return f"{len(bad)} of {total} {noun} from the expected values{where}"


def _columns(value) -> list[np.ndarray]:
    return list(_grid(value).T)


def allclose_up_to_sign(actual, expected, *, rtol=GRADING_RTOL, atol=None) -> bool:
    """Like :func:`allclose` per column, each column of ``actual`` may be negated.

    A 1-D vector is one column. Tolerances are relative to each column's scale.

    >>> allclose_up_to_sign([[1.0, -2.0], [3.0, -4.0]], [[1.0, 2.0], [3.0, 4.0]])
    True
    """
    try:
        a_arr = np.array(actual, dtype=np.float64).view(np.ndarray)
    except Exception:  # noqa: BLE001 - an unreadable value compares unequal
        return False
    e_arr = np.array(expected, dtype=np.float64)
    if a_arr.shape != e_arr.shape:
        return False
    for ca, ce in zip(_columns(a_arr), _columns(e_arr)):
        kw = {"rtol": rtol, "atol": atol}
        if not (allclose(ca, ce, **kw) or allclose(-ca, ce, **kw)):
            return False
    return True


def same_subspace(actual, expected, *, rtol=GRADING_RTOL) -> bool:
    """True when the columns of both matrices span the same subspace (same count, full rank).

    The orthogonal projectors onto the two column spaces are compared entry by
    entry with absolute tolerance ``rtol`` (projector entries are at most 1).

    >>> same_subspace([[1.0, 1.0], [1.0, -1.0], [0.0, 0.0]], [[2.0, 0.0], [0.0, 3.0], [0.0, 0.0]])
    True
    """

    def projector(value):
        arr = np.array(value, dtype=np.float64).view(np.ndarray)
        arr = arr.reshape(-1, 1) if arr.ndim == 1 else arr
        u, s, _ = np.linalg.svd(arr, full_matrices=False)
        sv = s.tolist()
        if not sv or sv[-1] <= 1e-10 * sv[0]:
            return None
        return (u @ u.T).tolist(), arr.shape

    try:
        pa, pe = projector(actual), projector(expected)
    except Exception:  # noqa: BLE001 - an unreadable value compares unequal
        return False
    if pa is None or pe is None or pa[1] != pe[1]:
        return False
    return all(abs(x - y) <= rtol for ra, re in zip(pa[0], pe[0]) for x, y in zip(ra, re))
