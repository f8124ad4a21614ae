"""ps5_kernel_pca's per-student numbers: fixed draws, the families' shapes, the answer key."""

from __future__ import annotations

import hashlib
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from kpca_ref import variants
from kpca_ref.grading.harness import _judge_exact
from kpca_ref.variants import ps5, ps5_candidates

PS = "ps5_kernel_pca"

#: the numbers of five fixed ids (K_hat, X, c1, c2, x_new), as drawn when written
FIXED = {
    "ada": ([[8, -1, -7], [-1, 2, -1], [-7, -1, 8]], [-2, -1, 1, 2], 4, 9, 0),
    "bob_lee": ([[8, -5, -3], [-5, 8, -3], [-3, -3, 6]], [-3, -2, 2, 3], 1, 1, 4),
    "student_017": ([[9, -1, -8], [-1, 9, -8], [-8, -8, 16]], [-2, -1, 1, 2], 1, 9, 0),
    "42": ([[6, -3, -3], [-3, 8, -5], [-3, -5, 8]], [-2, -1, 1, 2], 1, 4, 3),
    "zoë": ([[4, -2, -2], [-2, 14, -12], [-2, -12, 14]], [-2, -1, 1, 2], 1, 9, 4),
}

#: ids whose whole answer key is checked (sympy is slow: a sample, not every candidate)
SAMPLE = [f"s{i:03d}" for i in range(25)]


def _ids_covering(family: str, count: int) -> list[str]:
    """Ids whose draws hit ``count`` different candidates of ``family`` (deterministic)."""
    found, i = {}, 0
    size = len(variants.families(PS)[family])
    while len(found) < count:
        index = variants.draw(family, PS, f"cover{i}", size)
        found.setdefault(index, f"cover{i}")
        i += 1
    return list(found.values())


@pytest.mark.parametrize("student", sorted(FIXED))
def test_fixed_ids_draw_the_stored_numbers(student):
    n = variants.numbers(PS, student)
    got = (n.K_hat.tolist(), list(n.X), n.c1, n.c2, n.x_new)
    assert got == FIXED[student]


def test_candidate_tables_are_large_and_deterministic():
    first = ps5.candidates()
    assert len(first["khat"]) >= ps5.FAMILIES["khat"] and len(first["poly"]) >= ps5.FAMILIES["poly"]
    assert len(first["khat"]) <= 300 and len(first["poly"]) <= 300  # a notebook cell's table
    digest = hashlib.sha256(repr(first).encode()).hexdigest()
    assert hashlib.sha256(repr(ps5.candidates()).encode()).hexdigest() == digest


def test_khat_candidates_are_centred_integer_with_distinct_integer_eigenvalues():
    lecture = ps5.LECTURE["khat"]["K_hat"]
    seen = set()
    for candidate in ps5.candidates()["khat"]:
        K = np.array(candidate["K_hat"])
        assert K.dtype.kind == "i" and K.shape == (3, 3)
        assert (K == K.T).all() and (K.sum(axis=1) == 0).all()
        assert candidate["K_hat"] != lecture
        eta = sorted(sp.Matrix(candidate["K_hat"]).eigenvals(multiple=True), reverse=True)
        assert all(e.is_Integer for e in eta) and eta[2] == 0 and eta[0] > eta[1] > 0
        # never the lecture's eigenvalues (8, 6) nor its shares (4/7, 3/7)
        assert Fraction(int(eta[0]), int(eta[0] + eta[1])) != Fraction(4, 7)
        key = tuple(map(tuple, candidate["K_hat"]))
        assert key not in seen
        seen.add(key)


def test_khat_eigenvectors_have_rational_directions():
    for candidate in ps5.candidates()["khat"][::7]:
        K = sp.Matrix(candidate["K_hat"])
        for value in set(K.eigenvals()):
            (direction,) = (K - value * sp.eye(3)).nullspace()
            assert all(entry.is_Rational for entry in direction)


def test_poly_candidates_are_symmetric_training_sets_with_distinct_answers():
    lecture = ps5.LECTURE["poly"]
    taken = ps5_candidates._poly_key(lecture["X"], lecture["c1"], lecture["c2"], lecture["x_new"])
    keys = set()
    for c in ps5.candidates()["poly"]:
        xs = c["X"]
        assert sorted(xs) == xs and len(set(xs)) == len(xs) and sorted(-x for x in xs) == xs
        assert c["x_new"] not in xs
        assert {c["c1"], c["c2"]} <= {1, 4, 9, 16}
        key = ps5_candidates._poly_key(xs, c["c1"], c["c2"], c["x_new"])
        assert key[0][0] > key[0][1] > 0  # two distinct positive eigenvalues
        assert all(a != b for a, b in zip(key, taken)), c  # no answer equals the lecture's
        keys.add(key)
    assert len(keys) == len(ps5.candidates()["poly"])


def test_lecture_numbers_give_the_lecture_answers():
    found = ps5.answers(variants.lecture(PS))
    assert found["ps5_3pt_eigenvalues"] == sp.Matrix([8, 6, 0])
    assert found["ps5_3pt_ratios"] == sp.Matrix([sp.Rational(4, 7), sp.Rational(3, 7)])
    assert [abs(v) for v in found["ps5_new_point_scores"]] == [2, sp.Rational(10, 3)]
    assert found["ps5_poly_reconstruction_error"] == sp.Rational(2, 3)


def _close_up_to_sign(exact, numeric, free: bool) -> bool:
    """1e-12 agreement (relative to the size), each column (of a vector: entry) sign-free."""
    atol = 1e-12 * max(1.0, np.abs(exact).max())
    if not free:
        return np.allclose(exact, numeric, rtol=0, atol=atol)
    parts = exact.T if exact.shape[1] > 1 else exact
    other = numeric.T if exact.shape[1] > 1 else numeric
    return all(np.allclose(a, b, rtol=0, atol=atol) or np.allclose(a, -b, rtol=0, atol=atol)
               for a, b in zip(parts, other))


def _same(name, value, want) -> bool:
    return _judge_exact(value, want, name in ps5.UP_TO_SIGN).ok


@pytest.mark.parametrize("student", SAMPLE)
def test_no_answer_equals_the_lectures(student):
    lecture = ps5.answers(variants.lecture(PS))
    for name, value in variants.variant(PS, student).answers.items():
        assert not _same(name, lecture[name], value), name


def _rationals(value):
    items = value if isinstance(value, list) else [value]
    for item in items:
        yield from (a for a in sp.sympify(item).atoms(sp.Rational) if not a.is_Integer)


@pytest.mark.parametrize("student", SAMPLE)
def test_answers_are_nice_and_agree_with_floating_point(student):
    v = variants.variant(PS, student)
    floats = ps5.float_answers(v.numbers)
    for name, value in v.answers.items():
        assert all(r.q <= ps5.NICE["denominator"] for r in _rationals(value)), (name, value)
        exact = np.array(sp.Matrix(value) if isinstance(value, list) else value, dtype=float)
        numeric = np.asarray(floats[name], dtype=float).reshape(exact.shape)
        assert _close_up_to_sign(exact, numeric, name in ps5.UP_TO_SIGN), (name, value)
    for name in ("K_hat", "X"):
        entries = getattr(v.numbers, name)
        assert all(e.is_Integer for e in entries)


def test_every_khat_variance_and_share_is_nice():
    # every eigenvalue pair's variances and shares have denominators within NICE
    for candidate in ps5.candidates()["khat"]:
        eta = sorted(sp.Matrix(candidate["K_hat"]).eigenvals(multiple=True), reverse=True)[:2]
        shares = [sp.Rational(e, sum(eta)) for e in eta]
        assert all(sp.Rational(e, 3).q <= 3 and sp.Rational(e, 2).q <= 2 for e in eta)
        assert all(s.q <= ps5.NICE["denominator"] for s in shares)


@pytest.mark.parametrize("student", SAMPLE[:12])
def test_classic_mistakes_never_give_the_right_answer(student):
    v = variants.variant(PS, student)
    for name, wrong in v.mistakes.items():
        for code, message, value in wrong:
            assert not _same(name, value, v.answers[name]), (name, code)
            assert message and "\n" not in message


@pytest.mark.parametrize("student", _ids_covering("khat", 6) + ["ascending_by_hand",
                                                                 "alpha_not_scaled_by_hand"])
def test_mistakes_are_recognised_by_the_judge(student):
    from kpca_ref.grading.harness import judge_exact

    v = variants.variant(PS, student)
    for name, wrong in v.mistakes.items():
        code, _, value = wrong[0]
        verdict = judge_exact(name, value, student)
        assert not verdict.ok and verdict.code == code, (name, verdict)


# ----------------------------------------------------------------------------- the cost item
COST = "ps5_new_point_cost"

#: the cost numbers (n_train, l_keep) of the fixed ids, as drawn when written
FIXED_COST = {"ada": (160, 5), "bob_lee": (480, 5), "42": (560, 9), "zoë": (320, 5)}


@pytest.mark.parametrize("student", sorted(FIXED_COST))
def test_fixed_ids_draw_the_stored_model_sizes(student):
    n = variants.numbers(PS, student)
    assert (n.n_train, n.l_keep) == FIXED_COST[student]
    assert ps5.answers(n)[COST] == sp.Matrix([n.n_train, n.n_train * n.l_keep])


def test_cost_candidates_are_distinct_models_far_from_the_textbooks():
    lecture = ps5.LECTURE["cost"]
    found = ps5.candidates()["cost"]
    assert len(found) >= ps5.FAMILIES["cost"]
    pairs = {(c["n_train"], c["l_keep"]) for c in found}
    assert len(pairs) == len(found)
    for size, kept in pairs:
        assert 2 <= kept <= size - 1  # a centred n x n matrix has at most n - 1 components
        assert size != lecture["n_train"] and size * kept != lecture["n_train"] * lecture["l_keep"]
    assert len({size for size, _ in pairs}) >= 10 and len({kept for _, kept in pairs}) >= 5


def _ids_for_cost(count: int) -> list[str]:
    return _ids_covering("cost", count)


@pytest.mark.parametrize("student", _ids_for_cost(40))
def test_the_cost_is_graded_right_on_each_students_own_numbers(student):
    from kpca_ref.grading.harness import judge_exact

    n = variants.numbers(PS, student)
    size, kept = int(n.n_train), int(n.l_keep)
    right_ways = [
        sp.Matrix([size, size * kept]),                               # Python ints
        sp.Matrix([n.n_train, n.l_keep * n.n_train]),                 # sympy Integers
        sp.Matrix([sp.Rational(2 * size, 2), sp.Rational(3 * size * kept, 3)]),
        sp.ImmutableMatrix([[size], [size * kept]]),
        sp.Matrix([sp.Mul(size, 1, evaluate=False), sp.Mul(size, kept, evaluate=False)]),
    ]
    for value in right_ways:
        assert judge_exact(COST, value, student).ok, value
    # someone else's numbers, the counts swapped, a float and the textbook's counts earn nothing
    other = next(s for s in _ids_for_cost(40) if variants.numbers(PS, s).n_train != size)
    wrong_ways = [ps5.answers(variants.numbers(PS, other))[COST],
                  sp.Matrix([size * kept, size]), sp.Matrix([size, size]),
                  sp.Matrix([size + 1, size * kept]), sp.Matrix([float(size), size * kept]),
                  sp.Matrix([3, 6]), sp.Integer(size * kept)]
    for value in wrong_ways:
        verdict = judge_exact(COST, value, student)
        assert not verdict.ok and verdict.code in (None, "float_not_exact"), (value, verdict)


@pytest.mark.parametrize("student", _ids_for_cost(12))
def test_the_costs_named_mistakes_are_named(student):
    from kpca_ref.grading.harness import judge_exact

    n = variants.numbers(PS, student)
    size, kept = int(n.n_train), int(n.l_keep)
    named = {
        "new_point_refitted": sp.Matrix([(size + 1) ** 2, size * kept]),  # (n+1) x (n+1) again
        "row_means_recomputed": sp.Matrix([size**2 + size, size * kept]),
        "kernel_per_component": sp.Matrix([size * kept, size * kept]),
    }
    for code, value in named.items():
        verdict = judge_exact(COST, value, student)
        assert not verdict.ok and verdict.code == code, (code, verdict)
        assert "k(x_i, x*)" in verdict.message
