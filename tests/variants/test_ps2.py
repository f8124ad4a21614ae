"""ps2_feature_maps: each student's counts, pair of points and RBF width (kpca_ref.variants.ps2)."""

from __future__ import annotations

import ast
import math
from collections import Counter
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest
import sympy as sp

from kit.intake.submitted import solution_text
from kpca_ref import variants
from kpca_ref.grading import harness
from kpca_ref.variants import ps2, ps2_geometry
from tests.support.nbgrading import nb_meta, read_source
from tests.support.pasting import exact_variables

PS = "ps2_feature_maps"

#: the numbers of five fixed ids, written out once: a change of the draw or of a
#: candidate list shows here
FIXED = {
    "ada_lee": {"d_tally": 11, "p_tally": 3, "d_all": 11, "p_all": 3, "x": [-3, -3],
                "xp": [1, 3], "distance": 8, "similarity": "1/9", "table_distances": [8, 12, 16]},
    "ben": {"d_tally": 11, "p_tally": 3, "d_all": 6, "p_all": 3, "x": [-2, -3], "xp": [3, 3],
            "distance": 2, "similarity": "1/4", "table_distances": [1, 2, 3]},
    "s001": {"d_tally": 11, "p_tally": 2, "d_all": 5, "p_all": 4, "x": [-3, -1], "xp": [2, -1],
             "distance": 8, "similarity": "1/8", "table_distances": [8, 12, 16]},
    "s002": {"d_tally": 10, "p_tally": 4, "d_all": 8, "p_all": 4, "x": [-2, -2], "xp": [3, -2],
             "distance": 4, "similarity": "1/8", "table_distances": [2, 4, 8]},
    "zoe.k@uni": {"d_tally": 6, "p_tally": 4, "d_all": 6, "p_all": 3, "x": [2, 2],
                  "xp": [-1, 2], "distance": 6, "similarity": "1/2",
                  "table_distances": [6, 9, 24]},
}


def _namespace(family: str, candidate: dict) -> SimpleNamespace:
    return SimpleNamespace(**{k: variants.decode(v) for k, v in candidate.items()})


def _family_answers(family: str) -> list[dict]:
    """The exact answers of every candidate of ``family`` (only the answers it builds)."""
    compute = {"tally": ps2.count_answers, "monomials": ps2.count_answers,
               "pair": lambda n: {**ps2.pair_answers(n), **ps2_geometry.pair_answers(n)},
               "gamma": lambda n: {**ps2.gamma_answers(n), **ps2_geometry.gamma_answers(n)},
               }[family]
    other = {"tally": "monomials", "monomials": "tally"}.get(family)
    out = []
    for candidate in variants.families(PS)[family]:
        numbers = dict(candidate)
        if other is not None:
            numbers.update(ps2.LECTURE[other])
        found = compute(_namespace(family, numbers))
        out.append({k: v for k, v in found.items() if family in ps2.ITEMS[k]})
    return out


@pytest.fixture(scope="module")
def family_answers():
    return {family: _family_answers(family) for family in ps2.FAMILIES}


def _key(value) -> tuple:
    """A value by its first 20 digits (entry by entry): equal values, equal keys."""
    entries = list(value) if isinstance(value, sp.MatrixBase) else [value]
    return tuple(str(sp.N(v, 20)) for v in entries)


def test_fixed_ids_draw_the_stored_numbers():
    for student, expected in FIXED.items():
        got = variants.numbers(PS, student)
        assert vars(got) == {k: variants.decode(v) for k, v in expected.items()}, student


def test_each_family_has_its_minimum_and_one_candidate_per_answer(family_answers):
    for family, minimum in ps2.FAMILIES.items():
        answers = family_answers[family]
        assert len(answers) >= minimum, family
        assert len(answers) <= 300, f"{family}: too many candidates for a notebook cell"
        keys = [tuple(_key(v) for v in a.values()) for a in answers]
        assert len(set(keys)) == len(keys), f"{family}: two candidates share their answers"
    # every candidate of tally, monomials and gamma has its own value for each item
    for family in ("tally", "monomials", "gamma"):
        for name in family_answers[family][0]:
            values = [_key(a[name]) for a in family_answers[family]]
            assert len(set(values)) == len(values), name


def test_no_candidate_is_the_lecture_or_has_one_of_its_answers(family_answers):
    lecture = ps2.answers(variants.lecture(PS))
    for family, options in variants.families(PS).items():
        assert ps2.LECTURE[family] not in options, family
        for answers in family_answers[family]:
            for name, value in answers.items():
                assert _key(value) != _key(lecture[name]), (family, name, value)


def test_counts_never_state_a_count_the_lecture_gives(family_answers):
    stated = {7, 10, 4, 6, 15, 35, 176, 286}  # Q4 and the lecture's table (d, p) = (2, 2) ...
    for family in ("tally", "monomials"):
        for answers in family_answers[family]:
            (value,) = answers.values()
            assert int(value) not in stated and int(value) <= 500


def test_pairs_keep_every_product_and_avoid_ambiguous_values():
    for candidate in variants.families(PS)["pair"]:
        x, y = candidate["x"], candidate["xp"]
        assert all(v != 0 and -3 <= v <= 3 for v in x + y) and x != y
        dot = x[0] * y[0] + x[1] * y[1]
        assert (dot + 1) ** 2 not in (0, 4) and dot != 0  # the lecture's 4; x.x' + 1 != its square
        assert dot + x[0] * x[1] * y[0] * y[1] != 0  # the map without sqrt(2) is then wrong


def test_gamma_tables_use_quarter_exponents_only():
    for candidate in variants.families(PS)["gamma"]:
        D, table = candidate["distance"], candidate["table_distances"]
        assert table == sorted(set(table)) and len(table) == 3
        for t in table:
            exponent = Fraction(t, D) ** 2  # K = similarity ** exponent
            assert (4 * exponent).denominator == 1, candidate


def test_answers_are_nice_and_agree_with_the_float_route(family_answers):
    limit = ps2.NICE["denominator"]
    for family, options in variants.families(PS).items():
        for candidate, answers in zip(options, family_answers[family]):
            for value in [variants.decode(v) for v in candidate.values()] + list(answers.values()):
                atoms = value.atoms(sp.Rational) if isinstance(value, sp.Basic) else set()
                assert max((a.q for a in atoms), default=1) <= limit, (candidate, value)
    lecture_max = max(a.q for v in ps2.answers(variants.lecture(PS)).values()
                      for a in sp.sympify(v).atoms(sp.Rational))
    # the lecture's own largest denominator, or the cosine of two mapped points of the pair
    # family, a fraction over (x.x + 1)(x'.x' + 1) <= 19^2 (4 of its 172 candidates need more
    # than the lecture's 256)
    assert limit == max(lecture_max, 19 * 19), "NICE must be the largest denominator needed"
    for student in [f"s{i:03d}" for i in range(20)]:
        n = variants.numbers(PS, student)
        exact, floats = ps2.answers(n), ps2.float_answers(n)
        for name, value in exact.items():
            entries = list(value) if isinstance(value, sp.MatrixBase) else [value]
            want = np.array([float(v) for v in entries]).reshape(np.shape(floats[name]))
            assert np.allclose(floats[name], want, rtol=1e-12, atol=1e-12), (student, name)


def test_draws_are_even_over_2000_ids():
    for family, options in variants.families(PS).items():
        counts = Counter(variants.draw(family, PS, f"student{i}", len(options))
                         for i in range(2000))
        assert max(counts.values()) < 2 * 2000 / len(options), family


def test_each_classic_mistake_is_named_on_any_variant():
    for student in ("ada_lee", "ben", "s001", "s002"):
        v = variants.variant(PS, student)
        for name, wrong in v.mistakes.items():
            for code, _message, value in wrong:
                assert not harness.judge_exact(name, v.answers[name], student).code
                verdict = harness.judge_exact(name, value, student)
                assert not verdict.ok, (student, name, code)
                assert verdict.code == code, (student, name, code, verdict)
        assert {m[0] for m in v.mistakes["ps2_count_tally"]} >= {"counted_all_monomials"}
        assert {m[0] for m in v.mistakes["ps2_mean_sq_length"]} == {
            "mapped_the_mean", "mean_without_cross_term", "sum_not_mean"}


def _solution_cells() -> str:
    code = []
    for cell in read_source(PS).cells:
        meta = nb_meta(cell)
        if cell.cell_type == "code" and meta.get("solution"):
            tree = ast.parse(solution_text(cell.source))
            targets = {t.id for node in tree.body if isinstance(node, ast.Assign)
                       for t in node.targets if isinstance(t, ast.Name)}
            if targets & set(exact_variables(PS).values()):
                code.append(solution_text(cell.source))
    return "\n".join(code)


def test_the_notebook_solution_matches_the_key_on_50_ids():
    code = _solution_cells()
    names = exact_variables(PS)
    assert set(names) == set(ps2.ITEMS)
    for i in range(50):
        student = f"id-{i}"
        space = {"N": variants.numbers(PS, student), "sp": sp, "sympy": sp, "math": math,
                 "np": np, "Matrix": sp.Matrix, "Integer": sp.Integer,
                 "Rational": sp.Rational}
        exec(code, space)  # noqa: S102 - the instructor's own solution cells
        for name, variable in names.items():
            assert harness.judge_exact(name, space[variable], student).ok, (student, name)
