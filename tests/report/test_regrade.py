"""A safe re-grade after a key fixed after grading (``kit.autograde --regrade``).

Two ps1 hand-ins are graded in this process under a broken key: ``ps1_circle_u``'s key is the
lecture's value for everyone, so ada's right answer earned nothing and qin's pasted lecture
value earned the points. The key is then fixed and the problem set graded again through
``kit.autograde`` (its own grading processes, which import the fixed key): under the default
policy ada is raised and qin keeps her points; under ``apply`` qin is lowered. Every change is
in ``reports/regrade_<ps>.csv``, and a TA's hand grades (a written answer with a comment, an
override of an auto-graded part) survive both.
"""

from __future__ import annotations

import csv

import pytest

from kit.autograde import autograde_student, cell_scores, main, regrade
from kit.gradebook.regrade import check_policy
from kit.intake.submitted import lay_class
from kpca_ref import variants
from tests.demo_class import pastes_lecture
from tests.support.graded_class import hand_grade

PS, ITEM, CELL = "ps1_circle_lift", "ps1_circle_u", "circle_u_test"
HAND = {"ada": {"why_both_directions": (1.5, "Say which sign.")},
        "qin": {"lift_test": (1.0, "")}}  # qin's: a TA's override of an auto-graded part


def _rows(course):
    with open(course.root / "reports" / f"regrade_{PS}.csv", newline="", encoding="utf-8") as fh:
        return {(r["student"], r["part"]): r for r in csv.DictReader(fh)}


def _hand_grades(course):
    from nbgrader.api import Gradebook

    with Gradebook(course.db_url) as gb:
        return {(s, cell): (gb.find_grade(cell, PS, PS, s).manual_score,
                            gb.find_comment(cell, PS, PS, s).manual_comment if text else "")
                for s, cells in HAND.items() for cell, (_, text) in cells.items()}


@pytest.fixture(scope="module")
def broken_then_fixed(released_ps1, tmp_path_factory):
    """ada and qin graded under the broken key, then hand-graded; the key fixed again."""
    from kit.secret import course_secret

    course = released_ps1(tmp_path_factory.mktemp("regrade") / "course")
    lay_class(course, {"ada": {PS: "solution"}, "qin": {PS: pastes_lecture}})
    course_secret(course.root)
    mod = variants.module(PS)
    real, lecture = mod.answers, mod.answers(variants.lecture(PS))[ITEM]
    mod.answers = lambda n: {**real(n), ITEM: lecture}
    variants.variant.cache_clear()
    try:
        old = {s: autograde_student(course, PS, s) for s in ("ada", "qin")}
    finally:
        mod.answers = real
        variants.variant.cache_clear()
    hand_grade(course, HAND)
    return course, old


def test_a_fixed_key_raises_and_never_lowers_by_default_then_apply_lowers(broken_then_fixed, capsys):
    course, old = broken_then_fixed
    assert old["ada"][CELL] == 0 and old["qin"][CELL] == 2  # what the broken key gave
    hand = _hand_grades(course)

    assert regrade(course, PS, workers=2, progress=False) == 0
    rows = _rows(course)
    assert rows["ada", CELL]["change"] == "raised" and float(rows["ada", CELL]["new_points"]) == 2
    assert rows["qin", CELL]["change"] == "kept old (never-lower)"
    assert float(rows["qin", CELL]["new_points"]) == 0 and float(rows["qin", CELL]["counted_points"]) == 2
    assert not any(r["change"].startswith("lowered") for r in rows.values())
    now = {s: cell_scores(course, PS, s) for s in ("ada", "qin")}
    assert now["ada"][CELL] == 2 and now["qin"][CELL] == 2
    # every auto-graded part of both hand-ins is listed, each with its old points
    for s in ("ada", "qin"):
        for cell, points in old[s].items():
            if cell not in HAND.get(s, {}) and cell not in ("why_both_directions", "five_points"):
                assert float(rows[s, cell]["old_points"]) == points
    assert "raised 1 parts of 1 students" in capsys.readouterr().out
    assert _hand_grades(course) == hand
    assert "override" in rows["qin", "lift_test"]["change"]

    assert main([PS, "--regrade", "--policy", "apply", "--workers", "1",
                 "--course", str(course.root)]) == 0
    rows = _rows(course)
    assert rows["qin", CELL]["change"] == "lowered" and float(rows["qin", CELL]["counted_points"]) == 0
    assert rows["ada", CELL]["change"] == "unchanged"
    assert cell_scores(course, PS, "qin")[CELL] == 0
    assert _hand_grades(course) == hand  # hand grades survive both policies
    assert cell_scores(course, PS, "ada")["why_both_directions"] == 1.5


def test_an_unknown_policy_is_refused_by_name():
    with pytest.raises(ValueError, match="never-lower, apply; got 'lower-all'"):
        check_policy("lower-all")
    with pytest.raises(SystemExit):
        main([PS, "--policy", "apply"])  # a policy without --regrade


def test_a_hand_in_not_graded_again_keeps_its_points_under_both_policies():
    from kit.gradebook.regrade import _what

    for policy in ("never-lower", "apply"):
        assert _what(2.0, 0.0, policy, failed=True) == ("kept old (not graded again)", 2.0)
        assert _what(None, 0.0, policy, failed=True) == ("not graded", 0.0)  # nothing to keep
        assert _what(0.0, 2.0, policy, failed=False) == ("raised", 2.0)


def test_an_unknown_problem_set_is_refused_by_name(tmp_path, capsys):
    assert main(["ps9_nothing", "--regrade", "--course", str(tmp_path)]) == 2
    assert "no problem set 'ps9_nothing' to re-grade" in capsys.readouterr().err
