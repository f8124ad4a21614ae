"""ps6_kernel_regression's per-student numbers: fixed draws, the families' shapes, the key."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
import sympy as sp

from kpca_ref import variants
from kpca_ref.grading.harness import _judge_exact, judge_exact
from kpca_ref.variants import ps6

PS = "ps6_kernel_regression"

#: the numbers of five fixed ids (x, K, y, k_new, alpha, lam), as drawn when written
FIXED = {
    "ada": ([-3, 0, 2], [[2, -1, 0], [-1, 5, -1], [0, -1, 2]], [-1, 3, 3], [-2, 2, 1], "1/5", 1),
    "bob_lee": ([-2, 1, 3], [[2, 1, -1], [1, 5, -1], [-1, -1, 2]], [2, 1, -1], [1, 3, -2],
                "1/8", 2),
    "student_017": ([-1, 0, 3], [[3, 1, 1], [1, 3, 2], [1, 2, 4]], [-2, 1, -2], [2, -2, -1],
                    "1/4", 1),
    "42": ([-3, -1, 1], [[4, 1, 2], [1, 5, -1], [2, -1, 2]], [-2, 3, -2], [-2, 2, -1], "1/4", 1),
    "zoë": ([-3, -1, 0], [[4, 2, 0], [2, 2, -1], [0, -1, 5]], [-2, -2, 2], [2, 2, 2], "1/5", 1),
}

SAMPLE = [f"s{i:03d}" for i in range(25)]


@pytest.mark.parametrize("student", sorted(FIXED))
def test_fixed_ids_draw_the_stored_numbers(student):
    n = variants.numbers(PS, student)
    got = (list(n.x), n.K.tolist(), list(n.y), list(n.k_new), str(n.alpha), int(n.lam))
    assert got == FIXED[student]


def test_candidate_tables_are_large_and_deterministic():
    first = ps6.candidates()
    assert len(first["points"]) >= ps6.FAMILIES["points"]
    assert ps6.FAMILIES["system"] <= len(first["system"]) <= 300  # a notebook cell's table
    digest = hashlib.sha256(repr(first).encode()).hexdigest()
    assert hashlib.sha256(repr(ps6.candidates()).encode()).hexdigest() == digest


def test_systems_are_positive_definite_and_their_step_sizes_converge():
    for c in ps6.candidates()["system"]:
        K = np.array(c["K"])
        assert K.dtype.kind == "i" and (K == K.T).all()
        values = np.linalg.eigvalsh(K)
        assert values[0] > 0, c
        assert 0 < float(sp.Rational(c["alpha"])) < 2 / values[-1], c
        assert round(np.linalg.det(K)) <= ps6.NICE["denominator"]
        assert K[0, 1] != 0  # the one-at-a-time update differs from the batch update
        # the two ridge mistakes differ: (K + lam 1 1^T)^-1 y = K^-1 y when 1^T K^-1 y = 0
        assert sum(ps6._solve3(c["K"], c["y"])) != 0


def test_worked_example_numbers_and_answers():
    lecture = variants.lecture(PS)
    found = ps6.answers(lecture)
    assert found["ps6_kernel_matrix"] == lecture.K  # the system's K is the points' kernel
    assert found["ps6_beta_limit"] == sp.Matrix([sp.Rational(5, 8), sp.Rational(-3, 2),
                                                 sp.Rational(7, 8)])
    assert lecture.K * found["ps6_beta_limit"] == lecture.y  # interpolates
    assert found["ps6_predict_new"] == sp.Rational(17, 2)
    assert found["ps6_beta_two_steps"] == sp.Matrix([sp.Rational(3, 16), sp.Rational(-3, 64),
                                                     sp.Rational(3, 8)])
    # the new point's kernel values are those of x* = 2 against -1, 0, 1
    assert list(lecture.k_new) == [sum((2 * x) ** t for t in range(4)) for x in (-1, 0, 1)]


@pytest.mark.parametrize("student", SAMPLE[:12])
def test_classic_mistakes_never_give_the_right_answer(student):
    v = variants.variant(PS, student)
    for name, wrong in v.mistakes.items():
        for code, message, value in wrong:
            assert not _judge_exact(value, v.answers[name], False).ok, (name, code)
            assert message and "\n" not in message


@pytest.mark.parametrize("student", SAMPLE[:8])
def test_mistakes_are_recognised_by_the_judge(student):
    v = variants.variant(PS, student)
    for name, wrong in v.mistakes.items():
        for code, _, value in wrong:
            verdict = judge_exact(name, value, student)
            assert not verdict.ok and verdict.code == code, (name, verdict)


@pytest.mark.parametrize("student", SAMPLE[:8])
def test_gradient_descent_approaches_the_fixed_point(student):
    n = variants.numbers(PS, student)
    K = np.array(n.K.tolist(), dtype=float)
    y = np.array([float(v) for v in n.y])
    beta = np.zeros(3)
    for _ in range(3000):
        beta = beta + float(n.alpha) * (y - K @ beta)
    limit = np.array(variants.variant(PS, student).answers["ps6_beta_limit"], dtype=float)
    assert np.allclose(beta, limit.ravel(), atol=1e-9)
