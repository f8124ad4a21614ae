"""A float32 result is also judged at the inputs float32 holds; nothing else is."""

from __future__ import annotations

import io
import math
from contextlib import redirect_stdout

import numpy as np

from kpca_ref import gamma_for_similarity as reference
from kpca_ref.grading.cases import Case
from kpca_ref.grading.harness import judge_case, run_student
from kpca_ref.grading.precision import in_single_precision, rounded_case

F32 = np.float32
#: an ill-conditioned case: gamma moves by 6% when s is stored in float32
CASE = Case((1.7, 0.999999))


def float32_gamma(distance, similarity):
    return -np.log(F32(similarity)) / F32(distance) ** 2


def judged(fn, case=CASE):
    with redirect_stdout(io.StringIO()):
        return judge_case("gamma_for_similarity", reference, case, run_student(fn, case))


def test_the_case_is_one_float32_cannot_meet_at_the_given_inputs():
    got, want = float(float32_gamma(*CASE.args)), reference(*CASE.args)
    assert abs(got - want) > 0.01 * want  # off by more than any grading tolerance
    assert rounded_case(CASE).args == (float(F32(1.7)), float(F32(0.999999)))


def test_float32_result_right_at_float32_inputs_passes():
    assert judged(float32_gamma).ok


def test_the_same_numbers_as_float64_fail():
    """The second comparison is for float32 results only: a float64 value that equals the
    float32 answer is wrong for the inputs it was given."""
    assert not judged(lambda d, s: float(float32_gamma(d, s))).ok


def test_a_mistake_in_float32_still_fails():
    assert not judged(lambda d, s: -np.log(F32(s)) / F32(d)).ok  # d, not d squared
    assert not judged(lambda d, s: F32(1) - F32(s)).ok  # ln s taken as s - 1, no distance


def test_inputs_without_floats_get_no_second_comparison():
    assert rounded_case(Case((2, 3))) is None
    assert rounded_case(Case((0.5, 0.25))) is None  # float32 holds these exactly
    assert in_single_precision([F32(1.0), np.ones(2, dtype=F32)])
    assert not in_single_precision([F32(1.0), 1.0])
    assert not in_single_precision([])


def test_a_reference_that_refuses_the_rounded_inputs_leaves_the_verdict():
    """The rounded inputs may be refused (a similarity rounded to 1.0): no crash, no pass."""
    case = Case((1.0, 1 - 1e-9))  # float32(1 - 1e-9) == 1.0, where gamma is 0 or refused
    assert not judged(lambda d, s: F32(math.pi), case).ok


# ------------------------------------------------- the ball's share past float32's range
def float32_ball(m, gamma_argument=1):
    """The formula as it reads, in float32: its denominator overflows from m = 49 on."""
    return F32(np.pi) ** F32(m / 2) / (F32(math.gamma(m / 2 + gamma_argument)) * F32(2) ** F32(m))


def test_the_formula_as_written_in_float32_passes_the_large_m_group_for_every_m():
    from kpca_ref import ball_cube_ratio
    from kpca_ref.grading.cases import groups
    from kpca_ref.grading.cases_dimensions import ball_float32_floor

    template = next(g for g in groups("ball_cube_ratio") if g.label == "m up to 150").cases[0]
    with np.errstate(over="ignore"):
        for m in range(40, 151):
            case = Case((m,), float32_floor=ball_float32_floor(m),
                        **{k: getattr(template, k) for k in ("rtol", "atol_scale")})
            right = judge_case("ball_cube_ratio", ball_cube_ratio, case,
                               run_student(float32_ball, case))
            wrong = judge_case("ball_cube_ratio", ball_cube_ratio, case,
                               run_student(lambda k: float32_ball(k, 0), case))
            as_float64 = judge_case("ball_cube_ratio", ball_cube_ratio, case,
                                    run_student(lambda k: float(float32_ball(k)), case))
            assert right.ok, f"m = {m}: {right.message}"
            # Gamma(m/2) in float32 fails until it drops below the floor (m = 50 on; the
            # small-m groups fail it anyway); the float32 numbers handed back as float64,
            # which holds every share up to m = 150, are wrong from m = 49 on
            assert wrong.ok == (m >= 50), f"m = {m}"
            assert as_float64.ok == (m < 49), f"m = {m}"


def _group_passes(fn, group) -> bool:
    from kpca_ref import ball_cube_ratio

    with np.errstate(over="ignore"), redirect_stdout(io.StringIO()):
        return all(judge_case("ball_cube_ratio", ball_cube_ratio, case,
                              run_student(fn, case)).ok for case in group.cases)


def test_the_same_float32_code_earns_the_same_large_m_group_for_every_student():
    """Every draw of "m up to 150" has an m that float32 holds (40-48), where the floor is
    float32's smallest normal number: a float32 zero and the Gamma(m/2) mistake in float32
    fail it for every student, the formula as written in float32 passes it for every one."""
    from kpca_ref.grading import cases

    def zero(m):
        return F32(0.0) if m >= 40 else float32_ball(m)

    for salt in range(40):
        with cases.salted((salt, 7)):
            group = next(g for g in cases.groups("ball_cube_ratio") if g.label == "m up to 150")
        assert any(40 <= case.args[0] <= 48 for case in group.cases), salt
        assert _group_passes(float32_ball, group), salt
        assert not _group_passes(zero, group), salt
        assert not _group_passes(lambda k: float32_ball(k, 0), group), salt
