"""Forged ps3 certificates: a certificate earns its item only when its kernel equals the
candidate as a function, whatever points a hand-in can compute.

The forger is the hand-in of ``tests/submissions/ps3_mercer.py`` (``FORGED_CERTIFICATES``; the
notebook tests also grade it through the real pipeline): it draws the points the grader once
compared certificates on (SHA-256 of the student id and the item) and fits a polynomial
feature map to each candidate there. Each forgery is first shown to pass that older rule, then
judged as grading judges it: through the wire, under the submission's salt (HMAC of a grading
secret, :mod:`kit.secret`), by :func:`kpca_ref.grading.harness.judge_exact`.
"""

from __future__ import annotations

import hashlib
import random
import time

import numpy as np
import pytest
import sympy as sp

from kit.secret import salt_words
from kpca_probe.wire import decode, encode
from kpca_ref import variants
from kpca_ref.grading import cases
from kpca_ref.grading.harness import judge_exact
from kpca_ref.variants import ps3
from kpca_ref.variants.ps3_certify import certificate_kernel, judge_answer
from kpca_ref.variants.ps3_pool import POOL, dimension, exact_function, nonnegative
from tests.submissions.ps3_mercer import FORGED_CERTIFICATES
from tests.support.nbgrading import TEST_SECRET

PS = "ps3_mercer"
STUDENTS = ("ada_lee", "bob", "12345", "zoe.k@uni.example", "s000000001", "forged_certificates")
x, x1, x2 = sp.symbols("x x1 x2")
_WORDS = [("||x - x'||^2", " sqd "), ("||x - x'||", " dist "), ("x.x'", " dot "),
          ("x'_1", " y1 "), ("x'_2", " y2 "), ("x_1", " x1 "), ("x_2", " x2 "),
          ("x'", " y "), ("^", "**")]  # the notebook's candidate helper


def forge(student: str) -> tuple:
    """The forger's ten answers, as its notebook cell computes them for ``student``."""
    n = variants.numbers(PS, student)
    space = {"N": n, "VARIANT_ID": student, "sp": sp, "x": x, "x1": x1, "x2": x2,
             "sqrt": sp.sqrt, "exp": sp.exp, "Rational": sp.Rational, "_WORDS": _WORDS}
    exec(FORGED_CERTIFICATES, space)  # noqa: S102 - the test's own hand-in
    return space["verdicts"]


def passes_the_old_rule(cert, text: str, key: str) -> bool:
    """Would ``cert`` have earned the item when certificates were compared at six pairs of
    points drawn from the student id and item only (to 50 digits, within 1e-30)?"""
    d = dimension(text)
    rng = random.Random(hashlib.sha256(key.encode()).hexdigest())
    low = 0 if nonnegative(text) else -8
    kernel, k = certificate_kernel(cert, d), exact_function(text)
    for _ in range(6):
        a = [sp.Rational(rng.randint(low, 8), 4) for _ in range(d)]
        b = [sp.Rational(rng.randint(low, 8), 4) for _ in range(d)]
        want, got = sp.N(k(a, b), 50), sp.N(kernel(a, b), 50)
        if abs(want - got) > sp.Float("1e-30") * max(1, abs(want)):
            return False
    return True


def graded(name: str, value, student: str, salt=None):
    """The verdict grading gives: through the wire, under the submission's salt."""
    salt = salt_words(TEST_SECRET.encode(), PS, student) if salt is None else salt
    with cases.salted(salt):
        return judge_exact(name, decode(encode(value)), student)


@pytest.mark.parametrize("student", STUDENTS)
def test_maps_fitted_to_predictable_points_earn_nothing(student):
    texts = ps3.texts(variants.numbers(PS, student))
    forged = forge(student)
    fitted = [i for i, text in enumerate(texts)
              if passes_the_old_rule(forged[i], text, f"{student}\x1fps3_verdict_{i + 1}")]
    # the forgery works: it would have earned (nearly) every item, non-kernels included
    assert len(fitted) >= 8 and any(not POOL[texts[i]].valid for i in fitted), fitted
    earned = [texts[i] for i in fitted if graded(f"ps3_verdict_{i + 1}", forged[i], student).ok]
    assert not earned
    unsalted = [texts[i] for i in fitted if graded(f"ps3_verdict_{i + 1}", forged[i], student,
                                                   salt=()).ok]
    assert not unsalted  # no secret (outside grading): fresh random points, never predictable


def test_the_judge_draws_its_points_from_the_submissions_secret(monkeypatch):
    """Grading passes the submission's salt (from the grader's secret) down to the check: the
    points are drawn from it and the item, the same on every grading of one submission,
    different for another secret, and fresh random ones outside grading."""
    from kpca_ref.variants import ps3_certify
    from kpca_ref.variants.ps3_equal import secret_points

    seeds = []

    def spy(seed, d, nonneg):
        seeds.append(seed)
        return secret_points(seed, d, nonneg)

    monkeypatch.setattr(ps3_certify, "secret_points", spy)
    student, name = "bob", "ps3_verdict_4"
    salt = salt_words(TEST_SECRET.encode(), PS, student)
    other = salt_words(b"another course's secret, 32 chars or more", PS, student)
    for s in (salt, salt, other, ()):
        graded(name, "linear", student, s)
    mine = ps3_certify.point_seed(",".join(map(str, salt)).encode(), f"{student}\x1f{name}")
    assert seeds[:2] == [mine, mine] and seeds[2] not in (None, mine) and seeds[3] is None
    assert secret_points(seeds[0], 2, False) != secret_points(seeds[2], 2, False)
    fresh = [secret_points(None, 2, False) for _ in range(2)]
    assert fresh[0] != fresh[1]
    coordinates = [v for pair in secret_points(mine, 2, False) for p in pair for v in p]
    assert all(v.q % 2 and v.q % 5 for v in coordinates)  # neither binary nor decimal fractions
    assert sum(v.q > 10**6 for v in coordinates) >= len(coordinates) - 2  # on a fine grid


@pytest.mark.parametrize("text", ["(x.x' + 1)^3", "exp(-||x - x'||^2 / 3)", "x.x' - 2",
                                  "cos(x + x')  [scalars x, x']", "max(x, x')  [scalars x, x' >= 0]"])
def test_a_map_fitted_to_the_points_feedback_shows_earns_nothing(text):
    """Feedback names a point where a wrong certificate differs, from a short public list: a
    map fitted to all of them is still refused (exactly, or at the secret points), quickly."""
    from kpca_ref.variants.ps3_equal import public_points

    d, k = dimension(text), exact_function(text)
    pairs = public_points(d, nonnegative(text))
    t = (lambda p: p[0]) if d == 1 else (lambda p: p[0] + 100 * p[1])
    t_symbol = x if d == 1 else x1 + 100 * x2
    where = sorted({t(p) for pair in pairs for p in pair})
    assert len(where) == 2 * len(pairs)  # distinct: the fit below is exact

    def delta(p):
        return sp.Mul(*[(t_symbol - v) / (t(p) - v) for v in where if v != t(p)])

    fitted = ("map", [delta(a) + k(a, b) * delta(b) for a, b in pairs])
    kernel = certificate_kernel(fitted, d)
    assert all(sp.N(kernel(a, b) - k(a, b), 30) == 0 for a, b in pairs)
    start = time.process_time()  # CPU: the machine may be busy with other work
    assert not judge_answer(decode(encode(fitted)), text, "k", b"secret").ok
    assert time.process_time() - start < 2.1


@pytest.mark.parametrize(("text", "proof"), [
    ("2 * x.x'", ("map", [sp.sqrt(2) * x1, sp.sqrt(2) * x2])),
    ("2 * x.x'", ("scale", -(1 + sp.sqrt(2)) * (1 - sp.sqrt(2)) * 2, "linear")),  # proved at points
    ("x.x' + exp(-||x - x'||^2)", ("sum", ("rbf", 1), "linear")),
    ("(x.x' + 1)^2 - 1", ("sum", ("scale", 2, "linear"), ("poly", 0, 2))),
    ("(x.x' + 2)^2", ("map", [x1**2, x2**2, sp.sqrt(2) * x1 * x2, 2 * x1, 2 * x2, 2])),
    ("(x.x' + 1)^3", ("product", ("poly", 1, 1), ("poly", 1, 2))),
    ("cos(2 * (x - x'))  [scalars x, x']", ("map", [2 * sp.cos(x)**2 - 1, 2 * sp.sin(x) * sp.cos(x)])),
    ("exp(x.x' / 2)", ("product", ("exp", ("scale", sp.Rational(1, 4), "linear")),
                       ("exp", ("scale", sp.Rational(1, 4), "linear")))),
    ("exp(-||x - x'||^2 / 2)", ("product", ("rbf", sp.Rational(1, 4)), ("rbf", sp.Rational(1, 4)))),
    ("5  [the same for every x, x']", ("sum", ("map", [2]), ("map", [1]))),
    ("x_1 * x'_1 + 2 * x_2 * x'_2", ("sum", ("map", [x2]), ("map", [x1]), ("map", [x2]))),
])
def test_a_certificate_written_differently_earns_the_item(text, proof):
    assert POOL[text].valid
    assert judge_answer(decode(encode(proof)), text, "s\x1fps3_verdict_1", b"secret").ok


@pytest.mark.parametrize("text", ["2 * x.x'", "(x.x' + 2)^2", "exp(-||x - x'||^2 / 2)",
                                  "cos(x - x')  [scalars x, x']"])
def test_a_certificate_of_a_function_nearby_earns_nothing(text):
    """Another function however close: the reference certificate plus 1e-39 x.x'."""
    space = {"x": x, "x1": x1, "x2": x2, "sqrt": sp.sqrt, "exp": sp.exp, "cos": sp.cos,
             "sin": sp.sin, "Rational": sp.Rational}
    reference = eval(POOL[text].certificate, space)  # the kit's own pool
    near = ("sum", reference, ("scale", sp.Rational(1, 10**39), "linear"))
    assert not judge_answer(decode(encode(near)), text, "k", b"secret").ok


def _bogus():
    deep, tower = "linear", "linear"
    for _ in range(8):
        deep, tower = ("product", deep, ("poly", 10**30, 10)), ("exp", tower)
    r = [sp.sqrt(p) for p in (2, 3, 5, 7, 11, 13)]
    rng = np.random.default_rng(0)
    return [
        (("witness", [[0.1, 0.2]] * 9), "x.x' - 2"),
        (("witness", [[float("nan"), 0]]), "x.x' - 2"),
        (("witness", [[float("inf"), 0]]), "x.x' - 2"),
        (("witness", [[10**40, 0]]), "x.x' - 2"),
        (("witness", [[1e-300, 1e-300]]), "x.x' - 2"),
        (("witness", rng.uniform(-1, 1, (8, 2)) * 1e6), "exp(-2 * ||x - x'||^2)"),
        (("witness", [[sp.Rational(10**39 + 7, 10**33 + 1)] * 2] * 8), "(x.x' + 3)^4"),
        (("witness", rng.uniform(-1, 1, (8, 1)) * 1e6), "sin(x) * sin(x')  [scalars x, x']"),
        (("witness", [[sp.pi ** 12, sp.E ** 12]] * 8), "exp(3 * ||x - x'||^2)"),
        (("scale", 0.5, "linear"), "x.x' / 2"),
        (("poly", sp.oo, 2), "(x.x')^2"),
        (deep, "(x.x')^5"),
        (tower, "exp(x.x')"),
        (("product",) + tuple(("poly", 3, 10) for _ in range(39)), "(x.x' + 3)^4"),
        (("product",) + tuple(("poly", r[i % 6], 3) for i in range(12)), "(x.x')^5"),
        (("product",) + tuple(("rbf", r[i % 6]) for i in range(39)), "exp(-2 * ||x - x'||^2)"),
        (("map", [(r[0] * x1 + r[1] * x2 + r[2]) ** 12] * 16), "(x.x')^4"),
        (("map", [((x1 + 2) ** 12 + x2) ** 12]), "x_1 * x'_1"),
        (("map", [sp.cos(r[0] * x + r[1]) ** 12 * sp.sin(x + r[2]) ** 12] * 16),
         "cos(x) * cos(x')  [scalars x, x']"),
        (("product",) + tuple(("map", [sp.cos(r[i % 6] * x), sp.sin(r[(i + 1) % 6] * x)])
                              for i in range(20)), "cos(x - x')  [scalars x, x']"),
        (("product",) + tuple(("exp", ("poly", r[i % 6], 2)) for i in range(12)), "exp(x.x')"),
        (("map", [sp.I * x1]), "x_1 * x'_1"),
        (("map", [sp.sqrt(x1)]), "x_1 * x'_1"),
    ]


def test_bogus_witnesses_and_certificates_are_refused_quickly():
    slow = []
    for answer, text in _bogus():
        start = time.process_time()  # CPU, not wall: a busy machine stretches wall time
        verdict = judge_answer(decode(encode(answer)), text, "k", b"secret")
        spent = time.process_time() - start
        assert not verdict.ok, (answer, text)
        if spent > 2.1:
            slow.append((text, round(spent, 2)))
    assert not slow
