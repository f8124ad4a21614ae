"""ps3_mercer's per-student numbers: stored draws, the pairs, the negative-gamma RBF, the ten
candidates and their kinds (the checks of witnesses and certificates: test_ps3_proofs.py)."""

from __future__ import annotations

import collections
import warnings

import numpy as np
import pytest
import sympy as sp

from kpca_ref import variants
from kpca_ref.grading.harness import judge_exact
from kpca_ref.mercer import find_counterexample
from kpca_ref.variants import ps3
from kpca_ref.variants.ps3_pool import EXAMPLE_TEXTS, KINDS, PICTURED, POOL, pool
from tests.support.nbgrading import nb_meta, read_source

PS = "ps3_mercer"

#: the numbers of five fixed ids, as drawn when the families were written
STORED = {
    'ada_lee': {
        "x1": [[1, 1]],
        "x2": [[-1, 0]],
        "s": 11,
        "gamma": -1,
        "t1": 2,
        "t2": 5,
        "k1": "x.x' + x_1 * x'_2 - x_2 * x'_1",
        "k2": "||x - x'||^2 + x.x'",
        "k3": "-x.x' / 2",
        "k4": "2 * exp(-||x - x'||^2)",
        "k5": "(x.x')^5",
        "k6": "3 * ||x - x'||^2",
        "k7": "x_1 * x'_2 - x_2 * x'_1",
        "k8": "cos(x + x')  [scalars x, x']",
        "k9": "(x.x')^2",
        "k10": "2 * x.x'",
    },
    's000000001': {
        "x1": [[2, 0, 1]],
        "x2": [[7, 2, 2]],
        "s": 16,
        "gamma": -3,
        "t1": 0,
        "t2": 3,
        "k1": "x^2 - x'^2  [scalars x, x']",
        "k2": "(x.x')^2 + x_1 - x'_1",
        "k3": "(x.x')^2",
        "k4": "(x.x')^2 + x.x'",
        "k5": "exp(2 * ||x - x'||^2)",
        "k6": "cos(x - x')  [scalars x, x']",
        "k7": "x_1 * x'_2 + x_2 * x'_1",
        "k8": "exp(-3 * ||x - x'||^2)",
        "k9": "-2  [the same for every x, x']",
        "k10": "(x.x' - 2)^2",
    },
    'bob': {
        "x1": [[1, 0, -3]],
        "x2": [[-5, 2, -5]],
        "s": 5,
        "gamma": -1,
        "t1": 1,
        "t2": 4,
        "k1": "sqrt(1 + ||x - x'||^2)",
        "k2": "exp(x.x' / 2)",
        "k3": "x^2 - x'^2  [scalars x, x']",
        "k4": "2 * x.x'",
        "k5": "3 * exp(-||x - x'||^2)",
        "k6": "x_1 * x'_2 + x_2 * x'_1",
        "k7": "||x - x'||^2 + x.x'",
        "k8": "x_2 * x'_2",
        "k9": "exp(-||x - x'||^2) + x_2 - x'_2",
        "k10": "(x.x')^2 - x.x'",
    },
    'zoe.k@uni.example': {
        "x1": [[3, 3, -2]],
        "x2": [[0, 6, -5]],
        "s": 5,
        "gamma": -3,
        "t1": 0,
        "t2": 3,
        "k1": "x.x' + x_1 * x'_2 - x_2 * x'_1",
        "k2": "2 * ||x - x'||^2",
        "k3": "exp(2 * x.x')",
        "k4": "x - x'  [scalars x, x']",
        "k5": "(x.x' + 1)^2 - 1",
        "k6": "x_1 * x'_1",
        "k7": "(x.x' - 2)^4",
        "k8": "x.x' - 1/2",
        "k9": "(x.x')^2",
        "k10": "min(x, x') - 1  [scalars x, x' >= 0]",
    },
    '12345': {
        "x1": [[0, 2]],
        "x2": [[1, 3]],
        "s": 2,
        "gamma": -3,
        "t1": 3,
        "t2": 5,
        "k1": "-2 * x.x'",
        "k2": "2 * x_2 * x'_1 - 2 * x_1 * x'_2",
        "k3": "x^2 - x'^2  [scalars x, x']",
        "k4": "(x.x' + 1)^2 - 1",
        "k5": "2 * ||x - x'||^2",
        "k6": "(x.x' + 1)^2 - 2",
        "k7": "exp(-x.x')",
        "k8": "5  [the same for every x, x']",
        "k9": "x_1 * x'_1",
        "k10": "(x.x' + 2)^2",
    },
}


@pytest.mark.parametrize("student", sorted(STORED))
def test_stored_numbers_are_drawn_again(student):
    assert variants.numbers(PS, student) == variants._namespace({"all": STORED[student]})


def _c(pair) -> int:
    return sum((a - b) ** 2 for a, b in zip(pair["x1"][0], pair["x2"][0]))


def test_pairs_have_one_squared_distance_each_and_integer_eigenvalues():
    pairs = variants.families(PS)["pair"]
    distances = [_c(p) for p in pairs]
    assert len(set(distances)) == len(pairs) and 13 not in distances
    for pair in pairs:
        assert len(pair["x1"][0]) == len(pair["x2"][0]) in (2, 3, 4)
        n = variants._namespace({"pair": pair, **{f: ps3.LECTURE[f] for f in ("exp_plus",
                                                                              "verdicts")}})
        c = _c(pair)
        assert ps3.answers(n)["ps3_dist_eigenvalues"] == sp.Matrix([c, -c])


def test_exp_plus_gamma_is_negative_and_each_scale_and_exponent_comes_once():
    found = set()
    for option in variants.families(PS)["exp_plus"]:
        assert option["gamma"] < 0 and option["s"] >= 1 and option["t1"] != option["t2"]
        found.add((option["s"], -option["gamma"] * (option["t1"] - option["t2"]) ** 2))
    assert len(found) == len(variants.families(PS)["exp_plus"]) and (1, 1) not in found


def test_every_list_holds_two_of_each_kind_from_two_groups_without_the_examples():
    lists = variants.families(PS)["verdicts"]
    for option in lists:
        chosen = [POOL[option[f"k{i}"]] for i in range(1, 11)]
        assert collections.Counter(c.kind for c in chosen) == {kind: 2 for kind in KINDS}
        assert len({c.group for c in chosen}) == 10, option
        assert not set(option.values()) & set(EXAMPLE_TEXTS + PICTURED), option
    patterns = {tuple(POOL[o[f"k{i}"]].kind for i in range(1, 11)) for o in lists}
    assert len(patterns) == len(lists), "two lists share their pattern of kinds"
    assert tuple(POOL[t].kind for t in EXAMPLE_TEXTS) not in patterns


def test_every_student_s_list_is_balanced_by_kind_over_500_ids():
    """The same wrong rule costs every student the same: two items of each kind each."""
    for i in range(500):
        n = variants.numbers(PS, f"student_{i}")
        kinds = collections.Counter(POOL[text].kind for text in ps3.texts(n))
        assert kinds == {kind: 2 for kind in KINDS}, (i, kinds)


def _probe(c, count=200, seed=0):
    rng = np.random.default_rng(seed)
    pairs = 2.0 * rng.standard_normal((count, 2, c.d))
    return [(x, y, c.k(x, y), c.k(y, x), c.k(x, x)) for x, y in pairs]


def test_each_candidate_is_of_its_kind():
    """Kinds are checked on the functions, not taken on trust: a one-point trap is symmetric
    with some k(x, x) < 0, an asymmetric one has some k(x, x') != k(x', x) and no k(x, x) < 0
    (so only its asymmetry refutes it), an eigenvalue trap neither
    (on 200 random pairs) yet is refuted, a signed kernel takes negative values and a
    positive one never does."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for c in POOL.values():
            values = _probe(c)
            negative_diagonal = any(kxx < -1e-9 for *_, kxx in values)
            asymmetric = any(not np.isclose(kxy, kyx) for _, _, kxy, kyx, _ in values)
            negative = any(kxy < -1e-9 for _, _, kxy, _, _ in values)
            if c.kind == "diagonal":
                assert negative_diagonal and not asymmetric, c.text
            elif c.kind == "asymmetric":
                assert asymmetric and not negative_diagonal, c.text
            elif c.kind == "eigenvalue":
                assert not asymmetric and not negative_diagonal, c.text
            else:
                assert negative == (c.kind == "signed_kernel"), c.text
            assert (find_counterexample(c.k, c.d) is None) == c.valid, c.text
    assert len(pool()) == len(POOL) - len(EXAMPLE_TEXTS) - len(PICTURED)


def _helper():
    cells = [c for c in read_source(PS).cells if nb_meta(c).get("grade_id") == "candidate_helper"]
    assert len(cells) == 1 and nb_meta(cells[0]).get("locked")
    space = {"np": np, "sp": sp}
    exec(cells[0].source, space)  # noqa: S102 - the notebook's own locked cell
    return space["candidate"]


def test_the_notebook_s_helper_computes_every_candidate_as_the_pool_does():
    candidate = _helper()
    rng = np.random.default_rng(0)
    for text, entry in POOL.items():
        k, d = candidate(text)
        assert d == entry.d, text
        for _ in range(10):
            x, y = 1.5 * rng.standard_normal(d), 1.5 * rng.standard_normal(d)
            assert np.isclose(k(x, y), entry.k(x, y), rtol=1e-12, atol=1e-12), text


@pytest.mark.parametrize("text", ["__import__('os').getcwd()", "x.x'.real", "open('f')",
                                  "exp(x.x', y=1)", "[x.x']"])
def test_the_helper_evaluates_nothing_outside_the_notation(text):
    with pytest.raises((ValueError, SyntaxError)):
        _helper()(text)


def test_the_grader_only_looks_texts_up():
    n = variants.numbers(PS, "ada_lee")
    n.k3 = "__import__('os').getcwd()"
    with pytest.raises(KeyError, match="not a candidate function"):
        ps3.answers(n)


@pytest.mark.parametrize("student", ["ada_lee", "bob", "12345"])
def test_each_classic_mistake_is_named_and_never_the_right_answer(student):
    v = variants.variant(PS, student)
    for name, found in v.mistakes.items():
        assert found, name
        for code, _, wrong in found:
            assert wrong != v.answers[name], (name, code)
            verdict = judge_exact(name, wrong, student)
            assert not verdict.ok and verdict.code == code, (name, code, verdict)


def test_the_release_states_no_verdict_and_no_exp_plus_value():
    from kit.course import REPO_ROOT

    text = (REPO_ROOT / "release" / PS / f"{PS}.ipynb").read_text(encoding="utf-8")
    for leak in ("  (valid)", "(not valid)", "1 - E", "1 - e^", "1-e", "e^{c}", "= 13",
                 "CERTIFICATES = {"):
        assert leak not in text, leak
