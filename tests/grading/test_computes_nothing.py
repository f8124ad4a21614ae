"""Code that computes nothing earns nothing, in every problem set.

A hand-in that checks its input and then answers without computing (a constant of the
result's type and shape, an argument handed back, the right answer only on inputs it could
know beforehand) used to pass the value groups whose answer happened to be that constant
(an n = 2 case, an error of 0, zeros, ``eps`` itself, a fixed input), and with them the
function's stated-error groups: 4.73 of 12 points over four functions of ps4-ps6, 1.2 of 3
and 2 of 4 in ps0. Every group is graded here by :func:`kpca_ref.grading.harness.judge_groups`
and :func:`~kpca_ref.grading.harness.judge_case`, the code the hidden test cells run, on the
hidden inputs of one student (salted as the grader salts them), with the points of the
notebooks' own test cells.
"""

from __future__ import annotations

import copy
import functools

import pytest

import kpca_ref
from kit.course import ASSIGNMENTS
from kit.secret import salt_words
from kpca_ref.grading import cases, harness
from kpca_ref.grading.error_groups import stated_error
from tests.grading import reference_memory
from tests.grading.nothing_handins import (
    call_key,
    known_inputs,
    nothing_handins,
    trivial_answers,
    visible_inputs,
)
from tests.grading.test_error_groups import _graded_functions

#: functions whose answer is a decision beyond True or False (points, or None for a kernel)
DECISIONS = {"find_counterexample"}
#: the student whose hidden inputs grade the hand-ins, and others to tell fixed inputs
STUDENT = salt_words(b"c" * 64, "ps", "student0")
OTHERS = [salt_words(b"c" * 64, "ps", f"student{i}") for i in range(1, 4)]


@functools.cache
def _visible(ps: str) -> dict:
    return visible_inputs(ps)


@pytest.fixture
def cached_reference(monkeypatch):
    """The reference remembers its answers (the hand-ins and the judge ask it the same)."""
    reference_memory.remembered(monkeypatch)


def _known(ps: str, name: str) -> frozenset:
    return known_inputs(name, _visible(ps).get(name, set()), OTHERS + [STUDENT, ()])


@pytest.mark.parametrize("ps", ASSIGNMENTS)
def test_code_that_computes_nothing_earns_none_of_a_functions_points(ps, cached_reference):
    functions = _graded_functions(ps)
    assert len(functions) >= 5
    scored, tried = [], 0
    with cases.salted(STUDENT):
        for name, points in functions.items():
            for label, handin in nothing_handins(name, _known(ps, name)).items():
                earned, lines = harness.judge_groups(
                    name, points, cases.groups(name),
                    lambda gi, ci, case, fn=handin: harness.run_student(fn, case))
                tried += 1
                if earned:
                    passed = [line for line in lines[:-1] if line.startswith("✓ ")]
                    scored.append(f"{name} ({label}): {earned} of {points}, {passed}")
    assert tried >= 20 * len(functions)
    assert not scored, "code that computes nothing earned points:\n" + "\n".join(scored)


def _trivially_passed(name: str, ref, case, known: frozenset) -> set:
    """Labels of the answers needing no computing that pass ``case`` ("known" included)."""
    calls = case.calls()
    if all(call_key(a, k) in known for a, k in calls):
        return {"known"}
    results = [ref(*copy.deepcopy(a), **copy.deepcopy(k)) for a, k in calls]
    answers = [trivial_answers(name, a, k, r) for (a, k), r in zip(calls, results)]
    passed = set()
    for label in answers[0]:
        outcome = ("ok", [copy.deepcopy(a[label]) for a in answers])
        if harness.judge_case(name, ref, case, outcome).ok:
            passed.add(label)
    return passed


@pytest.mark.parametrize("ps", ASSIGNMENTS)
def test_every_value_group_needs_computing_on_the_students_own_inputs(ps, cached_reference):
    """No value group is passed by an answer that needs no computing, case by case.

    Stronger than any one hand-in: a group fails this test when each of its cases, alone,
    is answered by some constant, argument or known input, as code that picks among them
    by the input's look (eps == 0, all points inside, n == 2) would answer it. Where the
    answer is a decision (True or False; a counterexample or None), choosing it is the
    computing: there one answer must pass the whole group, so a group must hold both.
    """
    loose = []
    with cases.salted(STUDENT):
        for name in _graded_functions(ps):
            ref = getattr(kpca_ref, name)
            known = _known(ps, name)
            for group in cases.groups(name):
                if stated_error(group):
                    continue
                per_case = [_trivially_passed(name, ref, case, known) for case in group.cases]
                common = set.intersection(*per_case)
                first_args, first_kwargs = group.cases[0].calls()[0]
                decision = name in DECISIONS or isinstance(ref(*first_args, **first_kwargs), bool)
                if common or (not decision and all(per_case)):
                    loose.append(f"{name}: {group.label!r} {per_case}")
    assert not loose, "value groups answered without computing:\n" + "\n".join(loose)
