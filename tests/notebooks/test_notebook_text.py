"""What a student reads around the graded cells: names, points and the time to plan.

* every name a visible test cell reads is introduced before it: assigned by an earlier cell
  of the release (an answer cell's stub such as ``phi_Q = None`` included) or named in an
  earlier markdown cell, so a student never meets a NameError for a name nobody told them;
* where one test cell grades several answers, the text says each answer's points, and
  they add up to the cell's points;
* every problem set states its time part by part, the parts add up to its total, each total is
  one week's work of the same size (120 to 150 minutes), and the README's unit total is their sum;
* the numbers cell is collapsed in every notebook.
"""

from __future__ import annotations

import ast
import builtins
import re

import pytest

from kit.course import ASSIGNMENTS, REPO_ROOT
from tests.notebooks.attributions import load

#: one week's work, in minutes: every problem set's total lies within
WEEK = (120, 150)
TIME = re.compile(r"\*\*Time:\*\* about (\d+) minutes, one week's work \(every problem set of the "
                  r"unit takes 120 to 150\)\. Plan, in minutes: ([^\n]*?)\.\n")
GRADE_CALL = re.compile(r'grade(?:_exact)?\("[^"]+",\s*([A-Za-z_]\w*),\s*points=([\d.]+)\)')


def _notebook(ps, kind):
    return load(REPO_ROOT / kind / ps / f"{ps}.ipynb")


def _meta(cell):
    return cell["metadata"].get("nbgrader", {})


def _code(cell):
    return "\n".join(line for line in "".join(cell["source"]).splitlines()
                     if not line.lstrip().startswith(("%", "!")))


def _assigned(tree):
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


def unintroduced_names(nb):
    """``{test cell: names}`` read by a visible test cell and introduced nowhere before it."""
    known, named, missing = set(dir(builtins)), set(), {}
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            named |= set(re.findall(r"`([A-Za-z_]\w*)", "".join(cell["source"])))
            continue
        tree = ast.parse(_code(cell))
        if _meta(cell).get("grade") and not _meta(cell).get("solution"):
            read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
            unknown = read - known - named - _assigned(tree)
            if unknown:
                missing[_meta(cell)["grade_id"]] = sorted(unknown)
        known |= _assigned(tree)
    return missing


@pytest.mark.parametrize("ps", ASSIGNMENTS)
def test_every_name_a_visible_test_reads_is_introduced_before_it(ps):
    assert unintroduced_names(_notebook(ps, "release")) == {}


def test_a_name_met_first_in_a_test_cell_is_found():
    nb = _notebook("ps1_circle_lift", "release")
    for cell in nb["cells"]:
        if _meta(cell).get("grade_id") == "lift_point_answer":
            cell["source"] = ["# YOUR CODE HERE\n", "raise NotImplementedError()"]
    assert unintroduced_names(nb) == {"lift_point_test": ["phi_Q"]}


@pytest.mark.parametrize("ps", ASSIGNMENTS)
def test_multi_answer_cells_state_how_their_points_split(ps):
    nb = _notebook(ps, "source")
    text = ""
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            text += "".join(cell["source"]) + "\n"
        calls = GRADE_CALL.findall("".join(cell["source"])) if _meta(cell).get("grade") else []
        if len(calls) < 2:
            continue
        for name, points in calls:
            stated = re.findall(rf"`{name}`\s*\((\d+(?:\.\d+)?) points?", text)
            assert stated and float(stated[-1]) == float(points), (
                f"{_meta(cell)['grade_id']}: the text should say `{name}` ({points} points)")
        assert sum(float(p) for _, p in calls) == float(_meta(cell)["points"])


def _plan(ps) -> tuple[int, list[tuple[str, int]], str]:
    """``(total, [(part, minutes), ...], the rest of the text)`` a notebook's first cells state."""
    text = "\n".join("".join(c["source"]) for c in _notebook(ps, "source")["cells"][:3]) + "\n"
    found = TIME.findall(text)
    assert len(found) == 1, f"{ps} should state its time once as **Time:** ... Plan, in minutes: ..."
    total, parts = found[0]
    plan = [(m.group(1), int(m.group(2))) for m in re.finditer(r"(lesson|Part \d+) (\d+)", parts)]
    return int(total), plan, TIME.sub("", text)


@pytest.mark.parametrize("ps", ASSIGNMENTS)
def test_every_problem_set_states_its_time_part_by_part_and_the_parts_add_up(ps):
    total, plan, rest = _plan(ps)
    headings = [m.group(1) for c in _notebook(ps, "source")["cells"] if c["cell_type"] == "markdown"
                for m in re.finditer(r"^## (Part \d+)\b", "".join(c["source"]), re.MULTILINE)]
    assert [name for name, _ in plan] == ["lesson", *headings], f"{ps}: the plan names every part once"
    assert sum(m for _, m in plan) == total, f"{ps}: the parts' minutes add up to the total"
    assert WEEK[0] <= total <= WEEK[1], f"{ps}: {total} minutes is not one week's work of the unit's size"
    assert all(m >= 5 and m % 5 == 0 for _, m in plan), f"{ps}: minutes in steps of 5"
    # no second estimate in the first cells; a plan table (ps3's) restates the same minutes
    minutes = dict(plan)
    rows = re.compile(r"^\| (\d+)(?:–(\d+))? \|.*\| (\d+) min \|$", re.MULTILINE)
    for first, last, said in rows.findall(rest):
        parts = range(int(first), int(last or first) + 1)
        assert int(said) == sum(minutes[f"Part {p}"] for p in parts), (
            f"{ps}: the plan table says {said} min for Part {first}{'-' + last if last else ''}")
    stated = re.findall(r"\b\d+ (?:to \d+ )?(?:minutes|hours|min)\b", rows.sub("", rest).lower())
    assert not stated, f"{ps} states another time: {stated}"


def test_the_readme_states_the_units_total():
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    total = sum(_plan(ps)[0] for ps in ASSIGNMENTS)
    assert (f"The unit has {len(ASSIGNMENTS)} problem sets of {WEEK[0]} to {WEEK[1]} minutes each, "
            f"one a week: about {total} minutes") in readme
    assert f"about {round(total / 60)} hours" in readme


@pytest.mark.parametrize("ps", ASSIGNMENTS)
def test_the_numbers_cell_is_collapsed(ps):
    (cell,) = [c for c in _notebook(ps, "source")["cells"] if _meta(c).get("grade_id") == "your_numbers"]
    assert cell["metadata"].get("jupyter", {}).get("source_hidden") is True


@pytest.mark.parametrize("ps", ASSIGNMENTS)
def test_a_problem_set_with_error_groups_says_how_they_count(ps):
    """Where a graded function has "raises ValueError" groups, the notebook states the rule that
    such a group counts only beside a passed group of values (kpca_ref.grading.error_groups)."""
    from kpca_ref.grading import cases
    from kpca_ref.grading.error_groups import stated_error

    nb = _notebook(ps, "release")
    source = "\n".join("".join(c["source"]) for c in _notebook(ps, "source")["cells"])
    graded = [n for n in cases.names() if f'grade("{n}"' in source]
    if not any(stated_error(g) for n in graded for g in cases.groups(n)):
        return
    text = " ".join("\n".join("".join(c["source"]) for c in nb["cells"]
                              if c["cell_type"] == "markdown").split())
    assert "counts only when at least one group of values of the same function passes" in text, (
        f"{ps} grades functions with ValueError groups but never says how those groups count")
