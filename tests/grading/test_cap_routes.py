"""Every route ps0 Part 6 recommends for ``cap_fraction`` earns the same groups for every student.

The lesson names two float routes (the incomplete beta function, the notebook's own
solution; numerical integration with ``scipy.integrate.quad``) and keeps the reduction
formula for exact arithmetic, saying where it breaks in floats: run upwards it carries the
rounding of its first steps while the cap shrinks, so tiny caps come out wrong. Each
recommended route must pass every group under the fixed cases and 40 students' draws; the
warned-against route must fail the tiny caps on some draws and pass them on others (the
reason the notebook warns: its points would depend on the draw).
"""

from __future__ import annotations

import math

import numpy as np

from kit.secret import salt_words
from kpca_ref.grading import cases
from tests.grading.test_float32 import _failed_groups
from tests.support.nbgrading import read_source, solution_text

DRAWS = [salt_words(b"c" * 64, "ps0_high_dimensions", f"student{i}") for i in range(40)]
TINY = "R^30 and beyond"  # the group "R^30 and beyond: tiny caps", as the lines name it


def _notebooks_solution():
    """``cap_fraction`` as the source notebook's solution cell writes it (the beta route)."""
    (cell,) = [c for c in read_source("ps0_high_dimensions").cells
               if c.metadata.get("nbgrader", {}).get("grade_id") == "cap_fraction_answer"]
    scope = {"np": np, "math": math}
    exec(solution_text(cell.source), scope)  # noqa: S102 - the course's own notebook
    return scope["cap_fraction"]


def cap_quad(m, angle):
    """Numerical integration of sin^(m-2), as the lesson's third route says: the
    ``quad_route`` hand-in's cell (tests/submissions), run as the notebook would run it."""
    from tests.submissions.ps0_high_dimensions import QUAD_CAP

    scope = {"np": np, "math": math}
    exec(QUAD_CAP, scope)  # noqa: S102 - the kit's own hand-in
    return scope["cap_fraction"](m, angle)


def cap_reduction_in_floats(m, angle):
    """The reduction formula run upwards in floats: what the lesson warns against."""
    if m < 2 or not 0 <= angle <= 180:
        raise ValueError(f"need m >= 2 and 0 <= angle <= 180, got {m}, {angle}")
    if m == 2:
        return angle / 180
    if angle > 90:
        return 1 - cap_reduction_in_floats(m, 180 - angle)

    def integral(k, a):
        if k < 2:
            return a if k == 0 else 1 - math.cos(a)
        return -math.sin(a) ** (k - 1) * math.cos(a) / k + (k - 1) / k * integral(k - 2, a)

    return integral(m - 2, math.radians(angle)) / integral(m - 2, math.pi)


def _failures_by_draw(fn):
    outcomes = [_failed_groups("cap_fraction", fn)]
    for salt in DRAWS:
        with cases.salted(salt):
            outcomes.append(_failed_groups("cap_fraction", fn))
    return outcomes


def test_every_recommended_route_earns_every_group_for_every_draw():
    for label, fn in (("incomplete beta (the notebook's solution)", _notebooks_solution()),
                      ("scipy.integrate.quad", cap_quad)):
        outcomes = _failures_by_draw(fn)
        assert all(o == set() for o in outcomes), f"{label}: {outcomes}"


def test_the_reduction_formula_in_floats_fails_tiny_caps_by_luck_of_the_draw():
    outcomes = _failures_by_draw(cap_reduction_in_floats)
    assert all(o <= {TINY} for o in outcomes), outcomes
    failed = sum(TINY in o for o in outcomes)
    assert 0 < failed < len(outcomes), f"failed on {failed} of {len(outcomes)} draws"


def test_the_lesson_recommends_these_routes_and_warns_against_the_other():
    text = " ".join(c.source for c in read_source("ps0_high_dimensions").cells
                    if c.cell_type == "markdown")
    assert "scipy.special.betainc" in text and "scipy.integrate.quad" in text
    assert "**Not** the reduction formula in floats" in text
