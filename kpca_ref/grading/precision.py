"""A float32 result judged at the inputs float32 can hold.

A student who computes in float32 first stores the hidden inputs in float32. Where the
answer is ill-conditioned (``gamma_for_similarity`` at a similarity of 0.999999 has
condition number 1e6), that rounding alone moves the right answer by more than any
sensible tolerance, although every step after it is correct. So a float32 result that
misses the reference at the given inputs gets one more comparison: against the reference
at the same inputs rounded to float32, with the same tolerances.

Only results whose dtype is float32 (numpy keeps it on its way to the judge) get this;
a float64 result, right or wrong, is judged at the given inputs alone. A classic mistake
computed in float32 still fails: the mistakes differ from the right answer by far more
than the rounding of the inputs does.

>>> import numpy as np
>>> rounded_inputs(((0.1, np.array([0.3])), {"c": 1}))[0][0] == float(np.float32(0.1))
True
"""

from __future__ import annotations

import dataclasses

import numpy as np

from kpca_ref.grading.compare import underflow_floor

__all__ = ["in_single_precision", "right_at_float32_inputs", "rounded_case", "rounded_inputs"]


def in_single_precision(results) -> bool:
    """Whether every result of a case's calls is float32."""
    return bool(results) and all(underflow_floor(r) > 0 for r in results)


def _round(value):
    """``value`` with its floats rounded to float32 (kept float64); the same object when
    float32 holds it exactly, so a caller can tell by identity whether anything moved."""
    if isinstance(value, bool) or not isinstance(value, (float, np.ndarray, list, tuple)):
        return value  # ints, sympy values, callables and strings stay as they are
    if isinstance(value, float):
        rounded = float(np.float32(value))
        return value if rounded == value else rounded
    if isinstance(value, np.ndarray):
        if value.dtype.kind != "f":
            return value
        rounded = value.astype(np.float32).astype(np.float64)
        return value if np.array_equal(rounded, value) else rounded
    items = [_round(v) for v in value]
    return value if all(r is v for r, v in zip(items, value)) else type(value)(items)


def rounded_inputs(call):
    """One call ``(args, kwargs)`` with its float inputs rounded to float32 (kept float64)."""
    args, kwargs = call
    return tuple(_round(a) for a in args), {k: _round(v) for k, v in kwargs.items()}


def rounded_case(case):
    """``case`` with its float inputs rounded to float32, or None when none changes."""
    if case.batch:
        return None  # several calls judged together: no second comparison
    args, kwargs = rounded_inputs((case.args, case.kwargs))
    if all(r is v for r, v in zip(args, case.args)) and all(
            kwargs[k] is v for k, v in case.kwargs.items()):
        return None
    return dataclasses.replace(case, args=args, kwargs=kwargs)


def right_at_float32_inputs(case, judge) -> bool:
    """Whether ``judge(rounded)`` passes, ``rounded`` being ``case`` at float32-held inputs.

    False when no input changes, or when the reference refuses the rounded inputs (the
    judge raises): the first verdict stands.
    """
    rounded = rounded_case(case)
    if rounded is None:
        return False
    try:
        return bool(judge(rounded))
    except Exception:  # noqa: BLE001 - the reference broke on the rounded inputs
        return False
