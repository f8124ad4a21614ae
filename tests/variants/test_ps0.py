"""ps0_high_dimensions' per-student numbers: fixed draws, the families, the answer key."""

from __future__ import annotations

import hashlib
import itertools

import pytest
import sympy as sp

from kpca_ref import variants
from kpca_ref.grading.harness import _judge_exact, judge_exact
from kpca_ref.variants import ps0

PS = "ps0_high_dimensions"

#: the numbers of five fixed ids (m, m_shell, eps, m_cap, angle), as drawn when written
FIXED = {
    "ada": (17, 4, "1/5", 8, 60),
    "bob_lee": (15, 7, "1/4", 6, 45),
    "student_017": (23, 5, "1/3", 8, 60),
    "42": (18, 7, "1/5", 4, 60),
    "zoë": (5, 2, "1/2", 3, 30),
}


@pytest.mark.parametrize("student", sorted(FIXED))
def test_fixed_ids_draw_the_stored_numbers(student):
    n = variants.numbers(PS, student)
    assert (int(n.m), int(n.m_shell), str(n.eps), int(n.m_cap), int(n.angle)) == FIXED[student]


def test_candidate_tables_are_deterministic_and_distinct():
    first = ps0.candidates()
    digest = hashlib.sha256(repr(first).encode()).hexdigest()
    assert hashlib.sha256(repr(ps0.candidates()).encode()).hexdigest() == digest
    shells = [ps0.answers(_with("shell", c))["ps0_shell_fraction"] for c in first["shell"]]
    assert len(set(shells)) == len(shells), "two shell candidates share an answer"
    caps = [ps0.answers(_with("cap", c))["ps0_cap_fraction"] for c in first["cap"]]
    assert len({sp.nsimplify(sp.N(c, 40)) for c in caps}) == len(caps)


def _with(family, candidate):
    chosen = dict(ps0.LECTURE)
    chosen[family] = candidate
    return variants._namespace(chosen)


def test_lecture_numbers_give_the_lecture_answers():
    found = ps0.answers(variants.lecture(PS))
    assert found["ps0_ball_ratio"] == sp.pi / 6
    assert found["ps0_corner_length"] == sp.sqrt(3)
    assert found["ps0_shell_fraction"] == 1 - sp.Rational(9, 10) ** 10
    assert found["ps0_cap_fraction"] == sp.Rational(1, 4)
    assert found["ps0_tries_estimate"] == 2


def test_the_cap_answers_are_below_a_half_and_rarer_in_higher_dimensions():
    for angle in (30, 45, 60):
        values = [float(ps0.answers(_with("cap", {"m_cap": m, "angle": angle}))["ps0_cap_fraction"])
                  for m in range(4, 11)]
        assert all(0 < b < a < 0.5 for a, b in itertools.pairwise(values))


@pytest.mark.parametrize("student", ["s000", "s001", "s002", "s003"])
def test_classic_mistakes_are_wrong_and_recognised_by_the_judge(student):
    v = variants.variant(PS, student)
    for name, wrong in v.mistakes.items():
        for code, message, value in wrong:
            assert not _judge_exact(value, v.answers[name], False).ok, (name, code)
            assert message and "\n" not in message
        code, _, value = wrong[0]
        verdict = judge_exact(name, value, student)
        assert not verdict.ok and verdict.code == code, (name, verdict)


def test_a_float_answer_earns_nothing():
    v = variants.variant(PS, "ada")
    verdict = judge_exact("ps0_ball_ratio", float(v.answers["ps0_ball_ratio"]), "ada")
    assert not verdict.ok and verdict.code == "float_not_exact"


@pytest.mark.parametrize("student", ["s010", "core_not_shell", "s011"])
def test_answers_and_their_reciprocals_travel_to_the_judge(student):
    """Honest forms such as 1/(2*cap), with pi inside, are readable after the wire."""
    from kpca_probe.wire import decode, encode

    v = variants.variant(PS, student)
    cap = v.answers["ps0_cap_fraction"]
    for name, value in [*v.answers.items(), ("ps0_tries_estimate", 1 / (2 * cap)),
                        ("ps0_tries_estimate", (2 * cap) ** -1)]:
        assert judge_exact(name, decode(encode(value)), student).ok, (name, value)
