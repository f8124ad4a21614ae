"""Each question reads right for every student's numbers, not only for the worked example's.

* ps1 Part 3 works a diagonal covariance and, since most students' three points give a
  non-diagonal one, a second example that is not diagonal: its stated numbers are right, and
  its variances are no student's answer;
* ps2's question on the signs of the six products asks for negative ones only "if some of
  yours are": a pair of points with none exists among the candidates, and so does one with some.
"""

from __future__ import annotations

import sympy as sp

from kit.course import REPO_ROOT
from kpca_ref.feature_maps import quadratic_map
from kpca_ref.variants import ps1, ps2
from tests.notebooks.attributions import load


def _markdown(ps: str) -> str:
    nb = load(REPO_ROOT / "release" / ps / f"{ps}.ipynb")
    return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")


def _covariance(points):
    M = sp.Matrix(points)
    centred = M - sp.ones(3, 1) * (sp.ones(1, 3) * M) / 3
    return centred.T * centred / 3


def test_ps1_shows_a_non_diagonal_covariance_because_most_students_get_one():
    covariances = [_covariance([t[k][0] for k in ("P1", "P2", "P3")])
                   for t in ps1.candidates()["triple"]]
    assert sum(C[0, 1] != 0 for C in covariances) > len(covariances) / 2
    text = _markdown("ps1_circle_lift")
    assert "(1, 0)$, $(4, 1)$ and $(1, 3)$" in text and "(16 \\pm \\sqrt{13})/9" in text
    C = _covariance([[1, 0], [4, 1], [1, 3]])
    assert C == sp.Matrix([[2, sp.Rational(-1, 3)], [sp.Rational(-1, 3), sp.Rational(14, 9)]])
    assert (C.trace(), C.det()) == (sp.Rational(32, 9), 3)
    values = sorted(C.eigenvals(multiple=True), key=float)
    assert [sp.simplify(v - w) for v, w in zip(values, [(16 - sp.sqrt(13)) / 9, (16 + sp.sqrt(13)) / 9])] == [0, 0]
    answers = {tuple(sorted(c.eigenvals(multiple=True), key=float)) for c in covariances}
    assert tuple(values) not in answers, "the worked example would give a student's answer away"


def test_ps2_sign_question_fits_pairs_with_and_without_negative_products():
    negative = []
    for pair in ps2.candidates()["pair"]:
        x, xp = (sp.Matrix(pair[k]) for k in ("x", "xp"))
        products = sp.Matrix(quadratic_map(x)).multiply_elementwise(sp.Matrix(quadratic_map(xp)))
        assert sum(products) == (x.dot(xp) + 1) ** 2
        negative.append(any(p < 0 for p in products))
    assert any(negative) and not all(negative), "both kinds of pair occur: the question must fit both"
    text = " ".join(_markdown("ps2_feature_maps").split())
    assert "if some of yours are negative" in text and "If none is" in text
    assert "Which are negative, and what do they cancel?" not in text
