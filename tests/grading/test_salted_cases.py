"""Hidden inputs drawn per student (salted by the grader's secret) grade as the fixed ones do.

Under the autograder every submission's cases come from generators salted with words of
HMAC(secret, problem set, student) (kit.secret). For several salts: the reference, the
correct-but-different implementations and the float32 ones earn everything, every classic
mistake still loses points, and the inputs really differ from the fixed ones.
"""

from __future__ import annotations

import pickle

import pytest

from kit.secret import salt_words
from kpca_ref.grading import cases
from tests.grading import reference_memory
from tests.grading.alternatives import ALTERNATIVES
from tests.grading.conftest import reference
from tests.grading.float32_alternatives import FLOAT32
from tests.grading.mistaken import MISTAKEN, WRONG
from tests.grading.test_float32 import _failed_groups as _failed

SALTS = [salt_words(b"x" * 64, "ps", f"student{i}") for i in range(5)]
NAMES = cases.names()


#: students whose draws are compared: the groups a submission passes must not hang on its draw
FAIRNESS_SALTS = [salt_words(b"f" * 64, "ps", f"student{i}") for i in range(12)]


@pytest.mark.parametrize("name", NAMES)
def test_every_submission_in_the_tables_passes_the_same_groups_for_every_student(name,
                                                                                   monkeypatch):
    """The same code earns the same groups whatever a student's hidden inputs: measured
    over the fixed cases and 12 salts, for the reference, the correct-but-different and
    float32 codes (which pass every group) and every classic mistake (the wrong version of
    each function fails some group). Draws that decided by luck were found this
    way: float32 products of the ball formula overflowing at m = 49 to 62, a gradient
    descent run long enough that a sequential sweep reached the same fixed point, and
    parallel rows whose cosines all stayed within [-1, 1] for an unclipped arccos."""
    codes = [("reference", reference(name)), ("correct, different", ALTERNATIVES[name])]
    # every code is judged on the same 13 draws: the reference's answers are computed once
    reference_memory.remembered(monkeypatch)
    codes += [("float32", FLOAT32[name])] if name in FLOAT32 else []
    codes += [(f"mistake {code}", fn) for fn_name, code, fn in MISTAKEN if fn_name == name]
    for label, fn in codes:
        outcomes = {"fixed": _failed(name, fn)}
        for i, salt in enumerate(FAIRNESS_SALTS):
            with cases.salted(salt):
                outcomes[f"student{i}"] = _failed(name, fn)
        distinct = {frozenset(v) for v in outcomes.values()}
        assert len(distinct) == 1, f"{name}, {label}: failed groups differ by draw: {outcomes}"
        if not label.startswith("mistake"):
            assert outcomes["fixed"] == set(), f"{name}, {label} lost {outcomes['fixed']}"
    with cases.salted(FAIRNESS_SALTS[0]):
        assert _failed(name, WRONG[name]), f"{name}: the wrong version passed every group"


def test_salted_inputs_differ_from_the_fixed_ones_and_repeat_for_one_salt():
    def inputs():
        return pickle.dumps([[c.calls() for c in g.cases] for n in NAMES for g in cases.groups(n)])

    fixed = inputs()
    with cases.salted(SALTS[0]):
        first, again = inputs(), inputs()
    with cases.salted(SALTS[1]):
        other = inputs()
    assert first == again and first != fixed and other != first
    assert inputs() == fixed, "the salt must not outlive its block"


def test_salt_words_depend_on_secret_problem_set_and_student():
    base = salt_words(b"s" * 64, "ps1", "ada")
    assert base == salt_words(b"s" * 64, "ps1", "ada")
    assert len({base, salt_words(b"t" * 64, "ps1", "ada"), salt_words(b"s" * 64, "ps2", "ada"),
                salt_words(b"s" * 64, "ps1", "bob")}) == 4
    assert all(0 <= w < 2**32 for w in base)
