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
    if isinstance(value, bool) or not isinstance(value, (float, np.ndarray, list, tuple)):
        return value  # ints, sympy values, callables and strings stay as they are
    if isinstance(value, float):
        return float(np.float32(value))
    if isinstance(value, np.ndarray):
        return value.astype(np.float32).astype(np.float64) if value.dtype.kind == "f" else value
    return type(value)(_round(v) for v in value)


def rounded_inputs(call):
    """One call ``(args, kwargs)`` with its float inputs rounded to float32 (kept float64)."""
    args, kwargs = call
    return tuple(_round(a) for a in args), {k: _round(v) for k, v in kwargs.items()}


def rounded_case(case):
    """``case`` with its float inputs rounded to float32, or None when none changes."""
    if case.batch:
        return None  # several calls judged together: no second comparison
    args, kwargs = rounded_inputs((case.args, case.kwargs))
    same = all(_same(a, b) for a, b in zip(args, case.args)) and all(
        _same(kwargs[k], case.kwargs[k]) for k in kwargs)
    return None if same else dataclasses.replace(case, args=args, kwargs=kwargs)


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


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape \
            and bool(np.array_equal(a, b))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a is b or a == b
