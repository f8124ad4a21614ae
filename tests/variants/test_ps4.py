"""ps4_centering's per-student numbers: stored draws, the families' properties, and the
classic mistakes of tests/submissions/ps4_centering.py judged on many students' numbers."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest
import sympy as sp
from sympy import Matrix, Rational, sqrt

from kit.intake.submitted import solution_text
from kpca_ref.grading.harness import judge_exact
from kpca_ref.variants import _namespace, draw, families, numbers, ps4, variant
from tests.submissions import ps4_centering as submissions
from tests.support.nbgrading import nb_meta, read_source
from tests.support.pasting import exact_variables

PS = "ps4_centering"

#: the numbers of five ids, written down once: any change to the draw, the course id or the
#: candidate lists changes a student's numbers and must show here
STORED = {
    "ada_lee": {"matrix": {"K": [[2, -1, -1], [-1, 3, 1], [-1, 1, 3]]},
                "poly": {"x": [-1, 1, 2], "k0": 0, "k1": 2, "k2": 1,
                         "kernel": "k(x, y) = 2xy + (xy)^2", "x_star": -2}},
    "bo.chen@example.edu": {"matrix": {"K": [[3, -1, 2], [-1, 2, 0], [2, 0, 2]]},
                            "poly": {"x": [-2, 1, 2], "k0": 0, "k1": 2, "k2": 1,
                                     "kernel": "k(x, y) = 2xy + (xy)^2", "x_star": -1}},
    "s1234567": {"matrix": {"K": [[1, -1, -1], [-1, 1, 1], [-1, 1, 1]]},
                 "poly": {"x": [-2, 0, 2], "k0": 0, "k1": 1, "k2": 2,
                          "kernel": "k(x, y) = xy + 2(xy)^2", "x_star": -1}},
    "Zoë": {"matrix": {"K": [[3, 0, -1], [0, 2, 2], [-1, 2, 3]]},
            "poly": {"x": [-2, 0, 1], "k0": 1, "k1": 3, "k2": 1,
                     "kernel": "k(x, y) = 1 + 3xy + (xy)^2", "x_star": -3}},
    "42": {"matrix": {"K": [[1, 0, -1], [0, 2, -1], [-1, -1, 2]]},
           "poly": {"x": [-2, 0, 2], "k0": 1, "k1": 3, "k2": 1,
                    "kernel": "k(x, y) = 1 + 3xy + (xy)^2", "x_star": 1}},
}

IDS = [f"student_{i:03d}" for i in range(40)]


@pytest.mark.parametrize("student", sorted(STORED))
def test_stored_numbers_are_drawn_again(student):
    drawn = {family: options[draw(family, PS, student, len(options))]
             for family, options in families(PS).items()}
    assert drawn == STORED[student]
    n = numbers(PS, student)
    assert n.K == Matrix(STORED[student]["matrix"]["K"])
    assert n.x == Matrix(STORED[student]["poly"]["x"]) and n.x.shape == (3, 1)


def test_matrices_are_symmetric_psd_integer_and_one_per_centred_matrix():
    seen = set()
    for candidate in families(PS)["matrix"]:
        K = Matrix(candidate["K"])
        assert K.shape == (3, 3) and K == K.T and all(v.is_Integer for v in K)
        minors = [K.extract(list(rows), list(rows)).det()
                  for size in (1, 2, 3) for rows in itertools.combinations(range(3), size)]
        assert min(minors) >= 0, f"not positive semidefinite: {candidate}"
        assert len(set(K * sp.ones(3, 1))) > 1, "equal row sums: K H would be the answer"
        Kc = ps4.centre_kernel(K)
        assert Kc != sp.zeros(3, 3) and Kc * sp.ones(3, 1) == sp.zeros(3, 1)
        seen.add(tuple(Kc))
    assert len(seen) == len(families(PS)["matrix"]) >= ps4.FAMILIES["matrix"]


def test_poly_candidates_are_valid_kernels_on_distinct_points():
    for c in families(PS)["poly"]:
        assert c["x"] == sorted(set(c["x"])) and len(c["x"]) == 3, c
        assert c["x_star"] not in c["x"]
        assert min(c["k0"], c["k1"]) >= 0 and c["k2"] >= 1, "a kernel with features needs >= 0"
        assert c["kernel"] == ps4.kernel_text(c["k0"], c["k1"], c["k2"])
        assert c != ps4.LECTURE["poly"]


def test_kernel_text_says_what_the_numbers_compute():
    xs = sp.symbols("x y")
    for c in families(PS)["poly"][:40]:
        spoken = c["kernel"].split("= ", 1)[1].replace("xy", "(x*y)").replace("^", "**")
        spoken = re.sub(r"(\d)\(", r"\1*(", spoken)
        assert sp.expand(sp.sympify(spoken) - ps4._kernel(c["k0"], c["k1"], c["k2"], *xs)) == 0


@pytest.mark.parametrize("student", IDS[:10])
def test_answers_hang_together(student):
    a = variant(PS, student).answers
    ones = sp.ones(3, 1)
    assert a["ps4_poly_Kc"] * ones == sp.zeros(3, 1)
    assert sum(a["ps4_new_kc_star"]) == 0, "a centred kernel vector sums to zero"
    assert a["ps4_poly_sq_dists"] == a["ps4_poly_Kc"].diagonal().T
    assert a["ps4_poly_total_variance"] == sum(a["ps4_poly_sq_dists"]) / 3
    assert a["ps4_poly_grand_mean"] == sum(a["ps4_new_row_means"]) / 3


def test_no_answer_repeats_the_lecture():
    lecture = ps4.answers(_namespace(dict(ps4.LECTURE)))
    for candidate in families(PS)["poly"]:
        n = _namespace({"matrix": families(PS)["matrix"][0], "poly": candidate})
        found = ps4.answers(n)
        same = [name for name in found if name != "ps4_centre_3x3" and found[name] == lecture[name]]
        assert not same, (candidate, same)


# --------------------------------------------- the classic mistakes of the submissions file
def _exact_cells() -> list[tuple[str, str]]:
    """(grade_id, solution source) of every exact answer cell, in notebook order."""
    variables = set(exact_variables(PS).values())
    cells = []
    for cell in read_source(PS).cells:
        meta = nb_meta(cell)
        if cell.cell_type == "code" and meta.get("solution"):
            body = solution_text(cell.source)
            if any(re.search(rf"^{v} =", body, re.MULTILINE) for v in variables):
                cells.append((meta["grade_id"], body))
    return cells


def _points() -> dict[str, tuple[str, float]]:
    """{answer name: (test cell grade_id, points)} from the source's hidden tests."""
    found = {}
    for cell in read_source(PS).cells:
        for name, pts in re.findall(r'grade_exact\("([^"]+)", [^,]+, points=(\d+)', cell.source):
            found[name] = (nb_meta(cell)["grade_id"], float(pts))
    return found


def _run(student: str, replaced: dict) -> dict:
    ns = {"np": np, "sp": sp, "sympy": sp, "Matrix": Matrix, "Rational": Rational,
          "sqrt": sqrt, "N": numbers(PS, student)}
    for gid, body in _exact_cells():
        exec(replaced.get(gid, body), ns)  # noqa: S102 - the project's own notebook cells
    return ns


MISTAKES = {name: spec for name, spec in submissions.VARIANTS.items() if "diagnoses" in spec}


def test_every_classic_exact_mistake_has_a_submission():
    codes = {(item, code) for student in IDS[:3]
             for item, found in variant(PS, student).mistakes.items() for code, _, _ in found}
    covered = {(item, code) for spec in MISTAKES.values()
               for item, code in spec["diagnoses"].items()}
    assert {code for _, code in codes} <= {code for _, code in covered}


@pytest.mark.parametrize("name", sorted(MISTAKES))
def test_a_mistake_loses_exactly_its_items_with_its_diagnosis(name):
    spec, variables, points = MISTAKES[name], exact_variables(PS), _points()
    lost = {}
    for item in spec["diagnoses"]:
        cell, pts = points[item]
        lost[cell] = lost.get(cell, 0.0) + pts
    assert lost == spec["lost"], "the submission's lost points do not follow from its items"
    for student in IDS:
        ns = _run(student, spec["cells"])
        for item, variable in variables.items():
            verdict = judge_exact(item, ns[variable], student)
            if item in spec["diagnoses"]:
                assert not verdict.ok and verdict.code == spec["diagnoses"][item], (student, item)
                assert verdict.message, "the feedback line should say what went wrong"
            else:
                assert verdict.ok, (student, item, verdict)


def test_the_solution_cells_earn_every_item():
    variables = exact_variables(PS)
    for student in IDS:
        ns = _run(student, {})
        assert all(judge_exact(item, ns[v], student).ok for item, v in variables.items())
