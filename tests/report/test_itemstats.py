"""Item statistics and fairness across variants (kit.itemstats) on synthetic classes.

A class with a planted effect (a harder candidate, a cell with negative discrimination) must
be flagged there and nowhere else; classes without any effect must flag nothing (seeds
fixed; the report's flags keep a family-wise error of 1 %, so about one clean class in a
hundred flags something, and `make bench-stats` measures it). Everything that reaches the
page is escaped and every CSV cell is safe from a spreadsheet's formulas.
"""

from __future__ import annotations

import csv

import numpy as np
import pytest

from kit.itemstats import fairness, items
from kit.itemstats.output import sections, write_all
from kit.itemstats.stats import analyse
from kit.itemstats.synthetic import synthetic_class
from kit.itemstats.table import sheets


def _analyse(c, **kw):
    return analyse(c.rows, c.cells_of, c.drawn, **kw)


def test_a_harder_candidate_and_a_negative_item_are_flagged_and_nothing_else():
    c = synthetic_class(students=1000, sets=3, seed=11, harder=("ps1", "small", 4, 2.0),
                        negative=("ps2", "ps2_cell6"))
    stats = _analyse(c)
    assert [(i.assignment, i.level, i.name, i.flags) for i in stats.flagged_items()] == [
        ("ps2", "cell", "ps2_cell6", ["negative discrimination"])]
    flagged = {(r.assignment, r.family, r.candidate) for r in stats.flagged_variants()}
    assert flagged == {("ps1", "small", None), ("ps1", "small", 4)}
    (row,) = [r for r in stats.fairness if (r.assignment, r.family, r.candidate) == ("ps1", "small", 4)]
    assert row.share_right < row.rest_share_right - 0.3 and row.p_holm < fairness.ALPHA_CANDIDATE


@pytest.mark.parametrize("seed", [0, 1])
def test_a_class_without_any_effect_flags_nothing(seed):
    stats = _analyse(synthetic_class(students=1000, sets=3, seed=seed))
    assert stats.flagged_items() == [] and stats.flagged_variants() == []
    assert all(i.discrimination > 0 for i in stats.items if i.level == "cell")
    tested = [r for r in stats.fairness if r.candidate is not None and r.p_value is not None]
    assert len(tested) >= 60  # the 20-candidate families are tested per candidate


def test_an_easier_candidate_is_not_called_harder():
    c = synthetic_class(students=1000, sets=1, seed=5, harder=("ps0", "small", 3, -3.0))
    flagged = {(r.family, r.candidate) for r in _analyse(c).flagged_variants()}
    assert ("small", None) in flagged and ("small", 3) not in flagged  # they differ; 3 is easier


def _rows(table, maxima=(2.0, 1.0, 3.0), assignment="ps"):
    return [{"student": f"s{i}", "assignment": assignment, "part": f"P{j // 2}",
             "grade_id": f"c{j}", "kind": "auto", "points": p, "max_points": maxima[j],
             "graded": "yes"} for i, row in enumerate(table) for j, p in enumerate(row)]


def test_discrimination_is_the_point_biserial_with_the_rest_score():
    rng = np.random.default_rng(3)
    table = np.column_stack([rng.integers(0, 3, 30), np.ones(30), rng.integers(0, 4, 30)])
    table[0, 1] = 0.0
    stats = analyse(_rows(table.tolist()), {}, {})
    c0 = next(i for i in stats.items if i.name == "c0")
    rest = (table[:, 1] + table[:, 2]) / 4.0
    assert c0.discrimination == pytest.approx(np.corrcoef(table[:, 0] / 2, rest)[0, 1])
    assert c0.mean_share == pytest.approx(table[:, 0].mean() / 2)
    assert c0.difficulty == pytest.approx((table[:, 0] == 2).mean())


def test_nobody_and_everybody_right_are_flagged_and_too_few_students_said():
    table = [[0.0, 1.0, float(i % 4)] for i in range(12)]
    flags = {i.name: i.flags for i in analyse(_rows(table), {}, {}).items}
    assert flags["c0"] == ["nobody right"] and flags["c1"] == ["everybody right"]
    few = analyse(_rows(table[:items.MIN_STUDENTS - 1]), {}, {}).items
    assert all(i.flags == [items.TOO_FEW] and i.discrimination is None for i in few)


def test_too_few_students_per_candidate_get_no_test():
    c = synthetic_class(students=60, sets=1, seed=2)
    rows = [r for r in _analyse(c).fairness if r.candidate is not None]
    assert rows and all(r.p_value is None or r.students >= fairness.MIN_CANDIDATE for r in rows)
    assert any(r.note.startswith("too few students") for r in rows)


def test_a_bad_row_says_which_value():
    with pytest.raises(ValueError, match="points must be a number, got 'lots'"):
        sheets([{"student": "a", "assignment": "ps", "part": "", "grade_id": "c",
                 "kind": "auto", "points": "lots", "max_points": 1, "graded": "yes"}])


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def test_markup_escapes_and_formulas_never_reach_the_page_or_a_spreadsheet(tmp_path):
    hostile = "=HYPERLINK(\"http://x\")<img src=x onerror=alert(1)>\x1b[2J"
    rows = [{"student": f"s{i}", "assignment": hostile, "part": hostile, "grade_id": f"{hostile}{j}",
             "kind": "auto", "points": float((i + j) % 2), "max_points": 1.0, "graded": "yes"}
            for i in range(12) for j in range(3)]
    stats = analyse(rows, {(hostile, "+fam"): {f"{hostile}0"}},
                    {(hostile, "+fam"): {f"s{i}": i % 2 for i in range(12)}},
                    mistakes={(hostile, f"{hostile}0"): [("-cmd|calc", 3)]},
                    checks={(hostile, f"{hostile}1"): {"@item<svg onload=1>": {
                        "students": 2, "attempts": 3, "first_try": 0.5}}})
    page = sections(stats)
    assert "<img" not in page and "<svg" not in page and "\x1b" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page and "&lt;svg onload=1&gt;" in page
    for path in write_all(stats, tmp_path):
        with path.open(newline="", encoding="utf-8") as fh:
            cells = [v for row in csv.reader(fh) for v in row]
        formulas = [v for v in cells if v.lstrip(" ")[:1] in tuple("=+-@\t\r\n")]
        assert all(_number(v) for v in formulas), path.name  # -0.5 is a number, not a formula
        assert "'=HYPERLINK" in path.read_text(encoding="utf-8")
        assert "\x1b" not in path.read_text(encoding="utf-8")
    assert "'+fam" in (tmp_path / "fairness.csv").read_text(encoding="utf-8")
    assert "'-cmd|calc (3)" in (tmp_path / "item_stats.csv").read_text(encoding="utf-8")
