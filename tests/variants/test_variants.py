"""Every problem set's per-student numbers: counts, evenness, niceness, the lecture kept out.

Generic over the problem sets that have a module in :mod:`kpca_ref.variants`; each module's
own test file (``test_ps1.py`` ...) stores the numbers of fixed ids and checks what is
special to its families.
"""

from __future__ import annotations

import collections
import functools
import random
from types import SimpleNamespace

import numpy as np
import pytest
import sympy as sp
from sympy.logic.boolalg import BooleanAtom

from kit.course import ASSIGNMENTS, REPO_ROOT
from kpca_ref import variants
from kpca_ref.grading.compare import as_exact
from kpca_ref.grading.harness import _judge_exact, judge_exact
from kpca_ref.variants.cell import NUMBERS_ID, numbers_cell
from tests.support.nbgrading import nb_meta, read_source
from tests.variants.solutions import solution_values


def _ported():
    found = []
    for ps in variants.PROBLEM_SETS:
        try:
            variants.module(ps)
        except ModuleNotFoundError:
            continue
        found.append(ps)
    return found


PORTED = _ported()


@pytest.fixture(params=PORTED)
def ps(request):
    return request.param


def random_ids(count: int, seed: int = 9) -> list[str]:
    rng = random.Random(seed)
    return [f"s{rng.randrange(10**9):09d}_{i}" for i in range(count)]


def with_candidate(ps: str, family: str, candidate: dict) -> SimpleNamespace:
    """The lecture's numbers, with ``family`` replaced by ``candidate``."""
    chosen = dict(variants.module(ps).LECTURE)
    chosen[family] = candidate
    return variants._namespace(chosen)


def test_course_id_matches_the_nbgrader_config():
    text = (REPO_ROOT / "nbgrader_config.py").read_text(encoding="utf-8")
    assert f'c.CourseDirectory.course_id = "{variants.COURSE_ID}"' in text


def test_every_family_has_enough_distinct_candidates_and_none_is_the_lecture(ps):
    mod = variants.module(ps)
    for family, minimum in mod.FAMILIES.items():
        options = variants.families(ps)[family]
        keys = [repr(sorted(o.items())) for o in options]
        assert len(set(keys)) == len(keys), f"{family}: a candidate is listed twice"
        assert len(options) >= minimum, f"{family}: {len(options)} candidates, need {minimum}"
        assert repr(sorted(mod.LECTURE[family].items())) not in keys, (
            f"{family}: the lecture's own numbers are a candidate")


def test_draws_are_even_over_2000_ids(ps):
    """The most frequent candidate of each family is drawn less than twice its fair share.

    Over 2,000 ids, or 20 per candidate for families of over 100 (with fewer draws per
    candidate, chance alone puts one candidate over twice its share now and then).
    """
    for family, options in variants.families(ps).items():
        ids = random_ids(max(2000, 20 * len(options)))
        counts = collections.Counter(variants.draw(family, ps, s, len(options)) for s in ids)
        share = len(ids) / len(options)
        assert max(counts.values()) < 2 * share, (family, max(counts.values()), share)
        assert len(counts) > 0.8 * len(options) or len(ids) < 3 * len(options), family


def _rationals(value):
    if isinstance(value, (sp.MatrixBase, list, tuple)):
        for v in value:
            yield from _rationals(v)
    elif isinstance(value, sp.Basic):
        yield from (a for a in sp.preorder_traversal(value) if isinstance(a, sp.Rational))


def test_numbers_and_answers_are_exact_and_nice(ps):
    mod = variants.module(ps)
    for student in random_ids(60, seed=3):
        v = variants.variant(ps, student)
        for value in [*vars(v.numbers).values(), *v.answers.values()]:
            assert not (isinstance(value, sp.Basic) and value.has(sp.Float)), (student, value)
            big = [r for r in _rationals(value) if r.q > mod.NICE["denominator"]]
            assert not big, (student, value, big)


def _floats(value):
    if isinstance(value, (bool, str, sp.logic.boolalg.BooleanAtom)):
        return value
    if isinstance(value, sp.MatrixBase):
        return np.array(value.evalf(30).tolist(), dtype=float).reshape(value.shape)
    if isinstance(value, (list, tuple)):
        return [_floats(v) for v in value]
    return float(sp.N(value, 30))


def test_exact_answers_agree_with_an_independent_float_route(ps):
    mod = variants.module(ps)
    for student in random_ids(40, seed=5):
        v = variants.variant(ps, student)
        numeric = mod.float_answers(v.numbers)
        assert set(numeric) == set(v.answers)
        for name, exact in v.answers.items():
            want, got = _floats(exact), numeric[name]
            if isinstance(want, (bool, str)) or isinstance(exact, sp.logic.boolalg.BooleanAtom):
                assert bool(want) == bool(got), (student, name)
                continue
            want, got = np.asarray(want, dtype=float), np.asarray(got, dtype=float)
            if name in v.up_to_sign:  # either sign per column (or entry)
                want = np.abs(want)
                got = np.abs(got)
            assert want.size == got.size, (student, name)
            assert np.allclose(got.ravel(), want.ravel(), rtol=1e-12, atol=1e-12), (
                student, name, got, want)


@functools.cache
def candidate_answers(ps: str) -> dict[str, list]:
    """``{family: [(candidate, its answers with the lecture's other numbers), ...]}``; worked
    out once per problem set and run (three tests read it: 15 to 25 CPU s for ps3 and ps5),
    so nothing may change what it returns."""
    mod = variants.module(ps)
    return {family: [(c, mod.answers(with_candidate(ps, family, c))) for c in options]
            for family, options in variants.families(ps).items()}


def test_no_candidate_gives_the_lecture_s_answer(ps):
    """Pasting the lecture's worked answers earns nothing, whoever pastes them."""
    mod = variants.module(ps)
    lecture = mod.answers(variants.lecture(ps))
    for family, pairs in candidate_answers(ps).items():
        items = [name for name, fams in mod.ITEMS.items() if family in fams]
        verdicts = [n for n in items if isinstance(lecture[n], (bool, BooleanAtom))]
        for candidate, found in pairs:
            same = [n for n in items if n not in verdicts and _near(lecture[n], found[n])
                    and _judge_exact(lecture[n], as_exact(found[n]), n in mod.UP_TO_SIGN).ok]
            assert not same, (family, candidate, same)
            # a single verdict is True or False for anyone: the lecture's list as a whole
            assert not verdicts or [bool(found[n]) for n in verdicts] != [
                bool(lecture[n]) for n in verdicts], (family, candidate)


def test_numbers_cell_is_current_and_draws_the_same_numbers(ps):
    cells = [c for c in read_source(ps).cells if nb_meta(c).get("grade_id") == NUMBERS_ID]
    assert len(cells) == 1, f"{ps} needs one numbers cell"
    assert cells[0].source == numbers_cell(ps), "run: python -m kit.variants --write-cells"
    assert nb_meta(cells[0]).get("locked") and not nb_meta(cells[0]).get("grade")
    for student in random_ids(25, seed=11):
        space = {"STUDENT_ID": student}
        exec(compile(cells[0].source, "numbers", "exec"), space)  # noqa: S102
        assert space["N"] == variants.numbers(ps, student), student
        assert space["VARIANT_ID"] == student


def test_numbers_cell_says_what_to_do_without_an_id(ps, monkeypatch):
    monkeypatch.delenv("KPCA_STUDENT_ID", raising=False)
    monkeypatch.delenv("JUPYTERHUB_USER", raising=False)
    with pytest.raises(RuntimeError, match="type yours"):
        exec(numbers_cell(ps), {"STUDENT_ID": "  "})  # noqa: S102


def test_source_solution_earns_every_exact_point_on_50_ids(ps):
    """The instructor's solution cells, run on 50 students' numbers, match each key."""
    for student in random_ids(50, seed=13):
        values = solution_values(ps, student)
        assert set(values) == set(variants.module(ps).ITEMS), sorted(values)
        wrong = {n: judge_exact(n, v, student).message for n, v in values.items()
                 if not judge_exact(n, v, student).ok}
        assert not wrong, (student, wrong)


def test_readme_lists_every_family_with_its_count():
    from kit.variants import counts_table

    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert counts_table() in readme, "run: python -m kit.variants --counts, paste into README"


def test_the_problem_set_table_states_the_counts_the_variants_have():
    """A count of variants in the README's problem-set table (``(142 variants``) is one of
    that problem set's family counts: the two tables never state one family two ways."""
    import re

    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    wrong = []
    for ps in ASSIGNMENTS:
        counts = {len(v) for v in variants.module(ps).candidates().values()}
        for row in re.findall(rf"^\| `{ps}` \| [^|]*\|\s*$", readme, re.MULTILINE):
            wrong += [(ps, int(n)) for n in re.findall(r"\((\d+) variants", row)
                      if int(n) not in counts]
    assert not wrong, f"the README states counts no family has: {wrong}"


def _near(value, right) -> bool:
    """False only when the two values' sizes surely differ (a quick test before the judge's
    exact comparison, which is slow on radicals): entry by entry, signs ignored."""
    try:
        a, b = (np.abs(np.array(_floats(v), dtype=float)).ravel() for v in (value, right))
    except (TypeError, ValueError):
        return True
    return a.shape != b.shape or bool(np.allclose(a, b, rtol=1e-9, atol=1e-12))


def test_no_classic_mistake_gives_the_right_answer_on_any_candidate(ps):
    """A named mistake that lands on the right value for some candidates would earn those
    students the item: the exponent with |t - t'| for its square when |t - t'| = 1, a
    dropped scale s = 1, a sign slip in u for a circle centred at the origin, forgetting to
    centre points whose mean is the origin. Every candidate of each family is tried, with
    the lecture's other numbers."""
    mod = variants.module(ps)
    hits = collections.Counter()
    for family, pairs in candidate_answers(ps).items():
        items = {name for name, fams in mod.ITEMS.items() if family in fams}
        for candidate, right in pairs:
            found = mod.mistakes(with_candidate(ps, family, candidate))
            for item in items & set(found):
                for code, _text, value in found[item]:
                    if _near(value, right[item]) and _judge_exact(
                            value, right[item], item in mod.UP_TO_SIGN).ok:
                        hits[(item, code)] += 1
    assert not hits, f"{ps}: mistakes equal to the right answer (candidates): {dict(hits)}"
