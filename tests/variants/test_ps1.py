"""ps1_circle_lift's numbers: stored for fixed ids, and what each family promises."""

from __future__ import annotations

import sympy as sp

from kpca_ref import variants

PS = "ps1_circle_lift"

#: the numbers of five ids, as drawn when the families were written; a change of the draw,
#: the candidate lists or their order changes them (and every student's numbers with them)
STORED = {
    "ada_reference": {"P1": [[0, -3]], "P2": [[4, 5]], "P3": [[-4, 1]], "a": 2, "b": 2, "r": 3, "Q": [[-1, -1]]},
    "ben_blank": {"P1": [[3, 1]], "P2": [[-3, 3]], "P3": [[-1, -3]], "a": 1, "b": 0, "r": 2, "Q": [[3, -3]]},
    "jh_2291": {"P1": [[-3, 5]], "P2": [[-1, -3]], "P3": [[5, -1]], "a": 2, "b": 1, "r": 4, "Q": [[2, -2]]},
    "lms-user-0007": {"P1": [[3, -2]], "P2": [[4, -1]], "P3": [[-3, 5]], "a": -1, "b": 2, "r": 4, "Q": [[-3, -1]]},
    "Zoë Ng": {"P1": [[0, 5]], "P2": [[5, 1]], "P3": [[-4, 0]], "a": 3, "b": 1, "r": 3, "Q": [[6, 4]]},
}


def test_stored_ids_draw_the_stored_numbers():
    for student, stored in STORED.items():
        n = variants.numbers(PS, student)
        got = {k: (v.tolist() if isinstance(v, sp.MatrixBase) else int(v)) for k, v in vars(n).items()}
        assert got == stored, student


def test_every_triple_spreads_in_two_directions_with_distinct_rational_variances():
    seen = set()
    for candidate in variants.families(PS)["triple"]:
        n = variants._namespace({"triple": candidate, "circle": variants.module(PS).LECTURE["circle"]})
        big, small = variants.module(PS).answers(n)["ps1_three_point_variances"]
        assert big > small > 0 and big.is_rational and small.is_rational
        seen.add((big, small))
    assert len(seen) == len(variants.families(PS)["triple"]), "two triples share their answer"


def test_every_point_q_lies_off_its_circle():
    for c in variants.families(PS)["circle"]:
        (q1, q2), = c["Q"]
        assert (q1 - c["a"]) ** 2 + (q2 - c["b"]) ** 2 != c["r"] ** 2, c
        assert c["r"] > 0
        assert not {q1, q2} <= {0, 1}, "a lift that reads the same in any column order"


def test_a_sign_slip_in_u_is_named_on_any_variant():
    from kpca_ref.grading.harness import judge_exact

    for student in ("ada_reference", "jh_2291", "Zoë Ng"):
        n = variants.numbers(PS, student)
        slipped = sp.Matrix([n.a**2 + n.b**2 - n.r**2, 1, 1, 0, 2 * n.a, 2 * n.b])
        verdict = judge_exact("ps1_circle_u", slipped, student)
        assert not verdict.ok and verdict.code == "sign_of_centre", (student, verdict)
