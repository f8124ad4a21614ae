"""ps3 Part 7's stated rules are the grader's rules: witnesses the notebook's own search finds
(at any scale its text recommends), a constant function's points, and one exactness rule for
certificates, which the notebook's ``kernel_of`` and the grader apply alike."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sympy as sp

from kit.secret import salt_words
from kpca_probe.wire import decode, encode
from kpca_ref.grading import cases
from kpca_ref.grading.harness import judge_exact
from kpca_ref.variants.ps3_certify import MAX_COORDINATE, judge_answer
from kpca_ref.variants.ps3_language import parse
from kpca_ref.variants.ps3_pool import POOL, constant, nonnegative, pool
from kpca_ref.variants.ps3_reading import Refused
from tests.support.nbgrading import TEST_SECRET, nb_meta, read_source, solution_of
from tests.variants.solutions import solution_values

PS = "ps3_mercer"
NOT_KERNELS = [c for c in pool() if not c.valid]
x, x1, x2 = sp.symbols("x x1 x2")


def _cell(grade_id: str) -> str:
    return next(c.source for c in read_source(PS).cells if nb_meta(c).get("grade_id") == grade_id)


@pytest.fixture(scope="module")
def notebook() -> dict:
    """The notebook's set-up and helper cells and the instructor's Parts 1, 3, 4 and 6."""
    space: dict = {}
    # the set-up cell's warning filters and numpy error settings stay in the notebook
    with warnings.catch_warnings(), np.errstate(), np.printoptions():
        for grade_id in ("setup", "gram_answer", "is_symmetric_answer", "is_psd_answer",
                         "find_counterexample_answer", "candidate_helper"):
            source = (_cell(grade_id) if grade_id in ("setup", "candidate_helper")
                      else solution_of(PS, grade_id))
            exec(source, space)  # noqa: S102 - the instructor's own notebook
    return space


def _witness(text: str, X) -> bool:
    return judge_answer(decode(encode(("witness", X))), text, "k").ok


def test_the_notebooks_own_search_refutes_every_non_kernel_of_the_pool(notebook):
    refused = []
    with np.errstate(all="ignore"):
        for c in NOT_KERNELS:
            X = notebook["find_counterexample"](*notebook["candidate"](c.text))
            if X is None or not _witness(c.text, np.abs(X) if nonnegative(c.text) else X):
                refused.append(c.text)
    assert not refused


@pytest.mark.parametrize("student", ["ada_lee", "s000000001", "zoe.k@uni.example"])
def test_the_solution_earns_every_item_when_graded(student):
    """Graded as the judge grades: through the wire, under the submission's salt."""
    values = solution_values(PS, student)
    with cases.salted(salt_words(TEST_SECRET.encode(), PS, student)):
        lost = [n for n, v in values.items() if n.startswith("ps3_verdict")
                and not judge_exact(n, decode(encode(v)), student).ok]
    assert not lost


def test_a_search_at_every_scale_the_text_allows_gives_accepted_witnesses():
    """A student's search may try scales from 0.01 to 1000 ("a few different scales"): every
    point set it returns as a witness (its float Gram matrix clearly not PSD) is accepted."""
    rng = np.random.default_rng(5)
    refused, found = [], 0
    with np.errstate(all="ignore"):
        for c in NOT_KERNELS:
            for scale in (0.01, 1.0, 100.0, 1000.0):
                for n in (1, 2, 4):
                    X = scale * rng.uniform(-1, 1, (n, c.d))
                    X = np.abs(X) if nonnegative(c.text) else X
                    K = np.array([[c.k(a, b) for b in X] for a in X])
                    if not np.isfinite(K).all():
                        continue
                    top = max(1.0, np.abs(K).max())
                    lam = np.linalg.eigvalsh((K + K.T) / 2)
                    if np.abs(K - K.T).max() > 1e-8 * top or lam[0] < -1e-8 * max(1.0, np.abs(lam).max()):
                        found += 1
                        if not _witness(c.text, X):
                            refused.append((c.text, scale, n))
    assert found > 250 and not refused


def test_coordinates_up_to_the_stated_size_are_read_and_larger_ones_refused_saying_so():
    text = _cell("part7_verdicts") + _cell("part6_search")
    assert "$10^6$" in text and MAX_COORDINATE == 10**6
    assert _witness("-x.x'", [[10**6, -10**6]]) and _witness("-x.x'", [[1e-20, 0.0]])
    verdict = judge_answer(("witness", [[10**6 + 1, 0]]), "-x.x'", "k")
    assert not verdict.ok and "at most 10^6" in verdict.message


def test_a_constant_functions_points_have_one_or_two_coordinates():
    """The text lists constants among the exceptions to points in R^2: a point of 1 or 2
    coordinates (or a bare number) refutes a negative constant, and the text says so."""
    assert '`("witness", [[0]])` refutes the' in _cell("part7_verdicts")
    constants = [c for c in POOL.values() if constant(c.text)]
    assert {c.valid for c in constants} == {True, False}
    for c in constants:
        for points in ([[0]], [0], [[0, 0]], [[3, -1]], [[sp.Rational(1, 2)], [5]]):
            assert _witness(c.text, points) == (not c.valid), (c.text, points)
        verdict = judge_answer(("witness", [[0, 0, 0]]), c.text, "k")
        assert not verdict.ok and "1 or 2 coordinates" in verdict.message


def _deep(levels: int):
    cert = "linear"
    for _ in range(levels):
        cert = ("scale", 2, cert)
    return cert


#: certificates whose form a student may get wrong: (certificate, dimension)
FORMS = [
    (("rbf", 0.5), 2), (("rbf", np.float64(0.5)), 2), (("rbf", sp.Float(0.5)), 2),
    (("rbf", sp.Rational(1, 2)), 2), (("rbf", 0), 2), (("rbf", -1), 2), (("rbf", sp.I), 2),
    (("poly", 1, 2.0), 2), (("poly", 1.0, 2), 2), (("poly", 1, 0), 2), (("poly", 1, 11), 2),
    (("poly", 1, True), 2), (("poly", -1, 2), 2), (("poly", sp.sqrt(2), 3), 2),
    (("poly", 10**41, 2), 2), (("poly", sp.oo, 2), 2), (("poly", 1, np.int64(3)), 2),
    (("scale", 0.5, "linear"), 2), (("scale", 0, "linear"), 2), (("scale", sp.E, "linear"), 2),
    (("scale", sp.pi, ("rbf", 1)), 1), (("map", [x1, 0.5]), 2), (("map", [1.5 * x1]), 2),
    (("map", [sp.Float(2) * x2]), 2), (("map", [x]), 2), (("map", [x1]), 1), (("map", [x]), 1),
    (("map", []), 2), (("map", [x1] * 17), 2), (("map", [x1] * 16), 2), (("map", [x1**13]), 2),
    (("map", [x1**12 / 7]), 2), (("map", [((x1 + 1)**5 + x2)**12]), 2),
    (("map", [((x1 + 1)**6 + x2)**11]), 2), (("map", [sp.cos(x1**6) ** 11]), 2), (("map", [sp.log(x1)]), 2), (("map", [sp.tan(x1)]), 2),
    (("map", [sp.sqrt(x1)]), 2), (("map", [sp.Abs(x1), sp.cos(x2)]), 2),
    (("map", [sp.Rational(1, 10**41)]), 2), (("map", [2, sp.sqrt(3)]), 2),
    (("map", sp.Matrix([x1, x2])), 2), (("map", [sp.Matrix([x1])]), 2), (("kernel",), 2),
    (("sum", "linear"), 2), (("product", "linear"), 2), (("sum", "linear", "linear", "linear"), 2),
    (("exp", "linear", "linear"), 2), (("linear", 1), 2), (42, 2), ([1, 2], 2), ("linear", 1),
    (["poly", 1, 2], 2), (("exp", ("product", "linear", ("rbf", 1))), 2),
    (_deep(8), 2), (_deep(9), 2), (("sum",) + ("linear",) * 39, 2), (("sum",) + ("linear",) * 40, 2),
]


def _pool_certificates():
    space = {"x": x, "x1": x1, "x2": x2, "sqrt": sp.sqrt, "exp": sp.exp, "cos": sp.cos,
             "sin": sp.sin, "Rational": sp.Rational}
    return [(eval(c.certificate, dict(space)), c.d)  # the kit's own pool
            for c in POOL.values() if c.certificate]


def test_kernel_of_refuses_exactly_the_certificates_the_grader_refuses(notebook):
    """One rule, applied by both: what the notebook's ``kernel_of`` refuses (a decimal such as
    ``("rbf", 0.5)``, a sign, a size) the grader refuses, and what it reads the grader reads,
    as the same function."""
    disagree, refused = [], 0
    for cert, d in FORMS + _pool_certificates():
        try:
            local = notebook["kernel_of"](cert, d)
        except ValueError:
            local = None
        try:
            grader = parse(decode(encode(cert)), d).kernel
        except Refused:
            grader = None
        if (local is None) != (grader is None):
            disagree.append((cert, d, "kernel_of refuses" if local is None else "the grader refuses"))
            continue
        refused += local is None
        if local is not None:
            a, b = [sp.Rational(1, 3), -2][:d], [sp.Rational(5, 4), sp.Rational(1, 2)][:d]
            want = complex(sp.N(grader(a, b), 30))
            got = local(np.array([float(v) for v in a]), np.array([float(v) for v in b]))
            if not np.isclose(got, want.real, rtol=1e-9) and abs(want.imag) < 1e-9:
                disagree.append((cert, d, f"values {got} and {want}"))
    assert not disagree
    assert refused >= 30  # the catalogue holds both kinds
    assert "`(\"rbf\", 0.5)` earns nothing" in _cell("part7_verdicts")
