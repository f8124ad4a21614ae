"""A stated error ("raises ValueError" group) earns its points only beside a working function.

A hand-in that returns the visible checks' values and raises ``ValueError`` on every other
input (hidden inputs are never the visible ones) used to earn every error group: 3.7 of
ps0's 20 function points. Graded here through :func:`kpca_ref.grading.harness.judge_groups`,
the path both the in-kernel ``grade`` and the judge outside the kernel take, with the points
of the notebooks' own test cells.
"""

from __future__ import annotations

import numpy as np
import pytest

from kit.judge.plan import planned_calls
from kpca_ref.grading import cases, harness
from kpca_ref.grading.error_groups import NOT_COUNTED, stated_error
from tests.grading.conftest import reference
from tests.support.nbgrading import nb_meta, read_source


def _graded_functions(ps: str) -> dict[str, float]:
    """``{contract name: points}`` of every hidden ``grade`` call of the source notebook."""
    found = {}
    for cell in read_source(ps).cells:
        if nb_meta(cell).get("grade") and "BEGIN HIDDEN TESTS" in cell.source:
            found.update({name: points for kind, name, points in planned_calls(cell.source)
                          if kind == "grade"})
    return found


def _judge(name: str, fn, points: float) -> tuple[float, list[str]]:
    return harness.judge_groups(name, points, cases.groups(name),
                                lambda gi, ci, case: harness.run_student(fn, case))


def _raises_on_everything(*args, **kwargs):
    raise ValueError("bad input")


@pytest.mark.parametrize("ps", ["ps0_high_dimensions", "ps6_kernel_regression"])
def test_code_that_only_raises_earns_nothing_and_the_solution_everything(ps):
    functions = _graded_functions(ps)
    assert len(functions) >= 5
    with_error_groups = 0
    for name, points in functions.items():
        earned, lines = _judge(name, _raises_on_everything, points)
        assert earned == 0.0, (name, lines)
        errors = [g for g in cases.groups(name) if stated_error(g)]
        with_error_groups += bool(errors)
        for group in errors:
            assert (f"✗ {group.label}: {NOT_COUNTED}: no value group of {name} passed"
                    in lines), lines
        earned, lines = _judge(name, reference(name), points)
        assert earned == points and all(line.startswith("✓ ") for line in lines[:-1]), lines
    assert with_error_groups >= 5  # the rule was exercised, not vacuously true


def test_an_error_group_counts_beside_one_working_value_group():
    def one_step_only(K, y, alpha, steps):
        K, y = np.asarray(K, dtype=float), np.asarray(y, dtype=float)
        if K.shape != (len(y), len(y)) or alpha <= 0 or steps < 0:
            raise ValueError("bad input")
        return alpha * y if steps == 1 else np.zeros(len(y))  # right for 0 and 1 steps only

    earned, lines = _judge("gd_dual_fit", one_step_only, 6)
    assert earned == 2.0, lines  # "one step" and the bad-input group: 2 of 6 groups
    assert "✓ bad input raises ValueError (shapes, alpha <= 0, steps < 0)" in lines
    assert not any(NOT_COUNTED in line for line in lines)


def test_a_failed_error_group_keeps_its_own_message():
    earned, lines = _judge("kernel_ridge", lambda K, y, lam: np.zeros(len(y)), 3)
    assert earned == 0.0
    assert any("should raise ValueError" in line for line in lines), lines
    assert not any(NOT_COUNTED in line for line in lines)
