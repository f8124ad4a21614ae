"""ps3_mercer's Part 7: each item is earned by a checked witness or certificate, never a guess.

Every answer goes through the wire (:mod:`kpca_probe.wire`) as the graded notebook's would,
and is judged by :func:`kpca_ref.grading.harness.judge_exact` on the student's own list.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import pytest
import sympy as sp

from kpca_probe.wire import decode, encode
from kpca_ref import variants
from kpca_ref.grading.harness import judge_exact
from kpca_ref.mercer import find_counterexample
from kpca_ref.variants import ps3
from kpca_ref.variants.ps3_certify import judge_answer
from kpca_ref.variants.ps3_pool import POOL, nonnegative

PS = "ps3_mercer"
STUDENTS = ("ada_lee", "bob", "12345", "zoe.k@uni.example", "s000000001")
x, x1, x2 = sp.symbols("x x1 x2")
_NAMES = {"x": x, "x1": x1, "x2": x2, "sqrt": sp.sqrt, "exp": sp.exp, "cos": sp.cos,
          "sin": sp.sin, "Rational": sp.Rational}


def certificate(c):
    return eval(c.certificate, dict(_NAMES))  # the kit's own pool, never a student's text


def witness(c):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        X = find_counterexample(c.k, c.d)
    return ("witness", np.abs(X) if nonnegative(c.text) else X)


def judged(name, value, student):
    return judge_exact(name, decode(encode(value)), student)


def items(student):
    n = variants.numbers(PS, student)
    return [(f"ps3_verdict_{i + 1}", POOL[text]) for i, text in enumerate(ps3.texts(n))]


def test_every_pool_proof_is_accepted_through_the_wire():
    """Each kernel's reference certificate and each non-kernel's search witness is accepted."""
    refused = [c.text for c in POOL.values()
               if not judge_answer(decode(encode(certificate(c) if c.valid else witness(c))),
                                   c.text, "key").ok]
    assert not refused


@pytest.mark.parametrize("student", STUDENTS)
def test_a_correct_proof_earns_each_item_and_a_bare_verdict_earns_nothing(student):
    for name, c in items(student):
        assert judged(name, certificate(c) if c.valid else witness(c), student).ok, c.text
        for bare in (True, False, np.bool_(c.valid)):
            verdict = judged(name, bare, student)
            assert not verdict.ok and verdict.code == "bare_verdict", (c.text, bare)


@pytest.mark.parametrize("student", STUDENTS)
def test_a_witness_with_a_psd_gram_matrix_earns_nothing(student):
    """Points of a kernel never make a witness; for a non-kernel, points that happen to give
    a PSD Gram matrix (one point with k(x, x) >= 0, or two copies of it) earn nothing."""
    rng = np.random.default_rng(1)
    for name, c in items(student):
        if c.valid:
            X = rng.standard_normal((5, c.d))
            X = np.abs(X) if nonnegative(c.text) else X
            verdict = judged(name, ("witness", X), student)
            assert not verdict.ok and "not a witness" in verdict.message, c.text
    assert not judge_answer(("witness", [[1, 0]]), "x.x' - 1/2", "k").ok  # k(x, x) = 1/2
    assert not judge_answer(("witness", [[2], [2]]), "max(x, x')  [scalars x, x' >= 0]",
                            "k").ok  # [[2, 2], [2, 2]]
    assert not judge_answer(("witness", [[1, 1], [1, 1]]), "||x - x'||^2 + x.x'", "k").ok
    assert judge_answer(("witness", [[1, 1], [0, 0]]), "||x - x'||^2 + x.x'", "k").ok


@pytest.mark.parametrize("student", STUDENTS)
def test_a_wrong_certificate_earns_nothing(student):
    """A certificate of a non-kernel cannot exist; one of another kernel certifies that one."""
    others = [c for c in POOL.values() if c.valid]
    for name, c in items(student):
        tries = ["linear", ("rbf", 1), ("poly", 1, 2), ("map", [1])]
        if c.valid:
            tries = [certificate(o) for o in others if o.d == c.d and o.text != c.text][:8]
        for wrong in tries:
            verdict = judged(name, wrong, student)
            assert not verdict.ok, (c.text, wrong)


@pytest.mark.parametrize(("text", "proof"), [
    ("x_1 * x'_1 + 2 * x_2 * x'_2", ("sum", ("map", [x1]), ("scale", 2, ("map", [x2])))),
    ("(x.x')^2 + x.x'", ("map", [x1**2, sp.sqrt(2) * x1 * x2, x2**2, x1, x2])),
    ("(x.x' + 1)^2 - 1", ("map", [x1**2, x2**2, sp.sqrt(2) * x1 * x2, sp.sqrt(2) * x1,
                                  sp.sqrt(2) * x2])),
    ("exp(-2 * ||x - x'||^2)", ("product", ("rbf", 1), ("rbf", 1))),
    ("2 * x.x'", ("sum", "linear", "linear")),
    ("x.x' + 3", ("sum", "linear", ("map", [sp.sqrt(3)]))),
    ("cos(x - x')  [scalars x, x']", ("sum", ("map", [sp.cos(x)]), ("map", [sp.sin(x)]))),
    ("exp(x.x')", ("exp", "linear")),
    ("(x.x')^4", ("product", ("poly", 0, 2), ("poly", 0, 2))),
    ("3 * exp(-||x - x'||^2)", ("sum", ("rbf", 1), ("scale", 2, ("rbf", 1)))),
])
def test_a_valid_but_different_certificate_earns_the_item(text, proof):
    assert POOL[text].valid and str(proof) != str(certificate(POOL[text]))
    assert judge_answer(decode(encode(proof)), text, "some_student\x1fps3_verdict_1").ok


def test_a_valid_but_different_certificate_earns_a_student_s_item():
    name = next(n for n, c in items("ada_lee") if c.text == "2 * x.x'")
    assert judged(name, ("map", [sp.sqrt(2) * x1, sp.sqrt(2) * x2]), "ada_lee").ok


def test_exact_witnesses_rational_and_float_points():
    assert judge_answer(("witness", [[sp.Rational(1, 2), 0]]), "x.x' - 1/2", "k").ok
    assert judge_answer(("witness", [[0.25, 0.5]]), "x.x' - 1/2", "k").ok  # exact binary
    assert judge_answer(("witness", [[1, 0], [0, 1]]), "x_2 * x'_1", "k").ok  # asymmetric
    assert judge_answer(("witness", [[1]]), "cos(x + x')  [scalars x, x']", "k").ok  # cos 2 < 0
    assert judge_answer(("witness", [[0, 0], [1, 0]]), "exp(2 * ||x - x'||^2)", "k").ok


@pytest.mark.parametrize(("answer", "text", "says"), [
    (("witness", [[-1], [2]]), "max(x, x')  [scalars x, x' >= 0]", "domain"),
    (("witness", [[0, 0]] * 9), "x.x' - 2", "1 to 8 points"),
    (("witness", [[0, 0, 0]]), "x.x' - 2", "2 coordinates"),
    (("witness", [[2 * 10**6, 0]]), "x.x' - 2", "size at most 10^6"),
    (("witness", [[1e-30, 0]]), "x.x' - 2", "40 digits"),
    (("witness", [[float("nan"), 0]]), "x.x' - 2", "finite"),
    (("poly", -1, 2), "(x.x' - 2)^2", "c >= 0"),
    (("rbf", -1), "exp(2 * ||x - x'||^2)", "gamma > 0"),
    (("scale", -2, "linear"), "-2 * x.x'", "a > 0"),
    (("scale", 2.0, "linear"), "2 * x.x'", "exact"),
    (("map", [sp.Float(1.5) * x1]), "x_1 * x'_1", "exact"),
    (("map", [sp.sqrt(x1 - 100)]), "x_1 * x'_1", "real"),
    (("map", [x1 ** 40]), "x_1 * x'_1", "power"),
    (("map", [sp.log(x1)]), "x_1 * x'_1", "log"),
    (("map", [sp.Symbol("y")]), "x_1 * x'_1", "symbol y"),
    (("kernel", "linear"), "2 * x.x'", "unknown rule"),
    (("exp", ("poly", 10**6, 3)), "exp(x.x')", "|A| <="),
    (("sum", "linear"), "2 * x.x'", "at least two"),
])
def test_an_answer_that_is_no_proof_is_refused_with_a_reason(answer, text, says):
    verdict = judge_answer(decode(encode(answer)), text, "k")
    assert not verdict.ok and says in verdict.message, verdict


def test_checks_are_bounded_in_time():
    """Large but legal answers are judged in well under a second each."""
    deep = "linear"
    for _ in range(8):
        deep = ("product", deep, ("poly", 10**30, 10))
    big_map = ("map", [(x1 + x2 + 3) ** 12] * 16)
    start = time.perf_counter()
    for answer, text in [(deep, "(x.x')^5"), (big_map, "(x.x')^5"),
                         (("witness", np.random.default_rng(0).uniform(-99, 99, (8, 2))),
                          "exp(3 * ||x - x'||^2)"),
                         (("witness", np.random.default_rng(0).uniform(0, 99, (8, 1))),
                          "max(x, x')  [scalars x, x' >= 0]")]:
        judge_answer(decode(encode(answer)), text, "k")
    assert time.perf_counter() - start < 5


def test_feedback_on_an_item_names_its_own_candidate_and_never_a_bare_verdict():
    from kit.judge.identity import numbers_text

    n = variants.numbers(PS, "bob")
    text = numbers_text("ps3_verdict_3", "bob", show_expected=True)
    assert f"N.k3 = {n.k3}" in text and "N.k4" not in text
    assert "expected a witness" in text or "expected a certificate" in text
    assert "True" not in text and "False" not in text


def test_the_negative_entries_rule_costs_every_student_the_same():
    """The hand-in that calls a kernel with negative Gram entries invalid loses exactly the
    two signed kernels of every list: its probe sees the sign of every candidate of the pool."""
    from kpca_ref.mercer import gram

    t = np.linspace(-3.0, 3.0, 13)
    X = np.column_stack([t, -0.5 * t[::-1]])  # the probe of tests/submissions/ps3_mercer.py
    for c in POOL.values():
        if c.valid:
            assert bool((gram(c.k, X[:, :c.d]) < 0).any()) == (c.kind == "signed_kernel"), c.text
