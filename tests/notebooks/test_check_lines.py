"""Each exact answer's ``check`` line stands beside its question, with the graded variable.

``check(item, answer)`` (the numbers cell, :mod:`kpca_ref.variants.cell_extras`) needs the
item's name, which only the hidden tests and the hidden numbers cell hold. So the released
notebook shows, for every exact item of ``kpca_ref.variants.module(ps).ITEMS`` the hub checks,
the line ``check("<item>", <variable>)`` in a cell a student can read (markdown, or code whose
source is not hidden), before the item's answer cell: in the cells since the student's previous
answer (the last graded or solution cell), or in the question's text (the last markdown cell
before the answer) where that comes earlier. ``<variable>`` is what the item's hidden test
grades, read from the source's ``grade_exact("<item>", <variable>, ...)``.

No check line anywhere in the notebook names an item outside ``ITEMS``, pairs an item with
another variable, or offers an item the hub refuses to check (a yes/no answer, such as ps3's
verdicts: one check would give it away, :func:`kit.checks.policy.default_limit`).
"""

from __future__ import annotations

import ast
import copy
import re

import pytest

from kit.checks.policy import KpcaCheck, default_limit
from kit.course import ASSIGNMENTS, REPO_ROOT
from kpca_ref import variants
from tests.notebooks.attributions import load

#: a check line as a student would type it: ``check("ps1_lift_point", phi_Q)``
CHECK_LINE = re.compile(r"""\bcheck\(\s*["']([^"']*)["']\s*,\s*([^()`\n]*?)\s*\)""")


def _meta(cell) -> dict:
    return cell["metadata"].get("nbgrader", {})


def _text(cell) -> str:
    return "".join(cell["source"])


def _stored(tree) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def graded_items(source: dict) -> dict[str, tuple[str, str]]:
    """``{item: (variable, grade_id of its answer cell)}`` from the source's hidden tests."""
    cells, found = source["cells"], {}
    for at, cell in enumerate(cells):
        if cell["cell_type"] != "code" or "grade_exact" not in _text(cell):
            continue
        calls = [n for n in ast.walk(ast.parse(_text(cell))) if isinstance(n, ast.Call)
                 and getattr(n.func, "attr", getattr(n.func, "id", None)) == "grade_exact"]
        for node in sorted(calls, key=lambda n: (n.lineno, n.col_offset)):
            item, graded = node.args[0].value, node.args[1]
            base = next(n.id for n in ast.walk(graded) if isinstance(n, ast.Name))
            answer = next(c for c in reversed(cells[:at]) if _meta(c).get("solution")
                          and c["cell_type"] == "code" and base in _stored(ast.parse(_text(c))))
            found[item] = (ast.unparse(graded), _meta(answer)["grade_id"])
    return found


def readable(cell) -> bool:
    """A cell whose text a student sees: markdown, or code whose source is not collapsed."""
    return cell["cell_type"] == "markdown" or not cell["metadata"].get("jupyter", {}).get(
        "source_hidden")


def _window(cells, answer: int) -> range:
    """The cells a student reads on the way to the answer cell at index ``answer``."""
    previous = max((i for i in range(answer) if _meta(cells[i]).get("grade")
                    or _meta(cells[i]).get("solution")), default=-1)
    question = max((i for i in range(answer) if cells[i]["cell_type"] == "markdown"), default=0)
    return range(min(previous + 1, question), answer)


def _lines(cell) -> list[tuple[str, str]]:
    return [(item, re.sub(r"\s", "", var)) for item, var in CHECK_LINE.findall(_text(cell))]


def check_line_problems(ps: str, release: dict, source: dict) -> list[str]:
    """What is wrong with the check lines of ``release`` (empty when nothing is)."""
    items, graded = variants.module(ps).ITEMS, graded_items(source)
    attempts = KpcaCheck().attempts
    checked = {i for i in items if default_limit(i, attempts) > 0}
    problems = [f"{item}: in ITEMS but graded by no hidden test" for item in items if item not in graded]
    cells = release["cells"]
    for item in sorted(checked & set(graded)):
        var, answer_id = graded[item]
        answer = next(i for i, c in enumerate(cells) if _meta(c).get("grade_id") == answer_id)
        wanted = (item, re.sub(r"\s", "", var))
        if not any(readable(cells[i]) and wanted in _lines(cells[i]) for i in _window(cells, answer)):
            problems.append(f'{item}: no `check("{item}", {var})` a student reads on the way to '
                            f"its answer cell {answer_id}")
    for cell in cells:
        for item, var in _lines(cell):
            where = _meta(cell).get("grade_id", cell.get("id"))
            if item not in items:
                problems.append(f"{where}: check({item!r}, ...) names no exact item of {ps}")
            elif item not in checked:
                problems.append(f"{where}: offers check({item!r}, ...), which the hub refuses")
            elif item in graded and var != re.sub(r"\s", "", graded[item][0]):
                problems.append(f"{where}: check({item!r}, {var}), but its hidden test grades "
                                f"{graded[item][0]}")
    return problems


def _notebook(ps: str, kind: str) -> dict:
    return load(REPO_ROOT / kind / ps / f"{ps}.ipynb")


@pytest.mark.parametrize("ps", ASSIGNMENTS)
def test_every_exact_item_shows_its_check_line_before_its_answer(ps):
    assert check_line_problems(ps, _notebook(ps, "release"), _notebook(ps, "source")) == []


@pytest.mark.parametrize("ps", ASSIGNMENTS)
def test_the_introduction_says_what_check_does(ps):
    (intro,) = [c for c in _notebook(ps, "release")["cells"]
                if _meta(c).get("grade_id") == "numbers_intro"]
    text = " ".join(_text(intro).split())
    for words in ("`check(", "*right*", "*not right*", "left", "not a grade", "Off the hub"):
        assert words in text, f"{ps}: the introduction should say what check does ({words!r})"


def test_the_hidden_tests_are_read():
    graded = graded_items(_notebook("ps3_mercer", "source"))
    assert graded["ps3_dist_gram"] == ("K_dist", "k_dist_answer")
    assert graded["ps3_verdict_10"] == ("verdicts[9]", "verdicts_answer")


def _planted(old: str, new: str, *, move: bool = False) -> list[str]:
    ps = "ps1_circle_lift"
    release = copy.deepcopy(_notebook(ps, "release"))
    (cell,) = [c for c in release["cells"] if old in _text(c)]
    cell["source"] = [_text(cell).replace(old, "" if move else new)]
    if move:  # the line goes to the introduction, far from its question
        intro = next(c for c in release["cells"] if _meta(c).get("grade_id") == "numbers_intro")
        intro["source"] = [_text(intro) + "\n\n" + new]
    return check_line_problems(ps, release, _notebook(ps, "source"))


@pytest.mark.parametrize(("new", "move", "expected"), [
    ('check("ps1_lift_piont", phi_Q)', False, ["ps1_lift_point: no", "'ps1_lift_piont', ...) names no"]),
    ('check("ps1_lift_point", phi_q)', False, ["ps1_lift_point: no", "phi_q), but its hidden test grades phi_Q"]),
    ('check("ps1_circle_u", phi_Q)', False, ["ps1_lift_point: no", "but its hidden test grades u_circle"]),
    ('check("ps1_lift_point", phi_Q)', True, ["ps1_lift_point: no"]),
    ('check("ps3_verdict_1", verdicts[0])', False, ["ps1_lift_point: no", "names no exact item of ps1_circle_lift"]),
])
def test_a_planted_mistake_in_a_check_line_is_found(new, move, expected):
    problems = _planted('check("ps1_lift_point", phi_Q)', new, move=move)
    for words in expected:
        assert any(words in p for p in problems), (words, problems)
    assert len(problems) == len(expected), problems


def test_an_offered_yes_no_check_is_found():
    ps = "ps3_mercer"
    release = copy.deepcopy(_notebook(ps, "release"))
    cell = next(c for c in release["cells"] if _meta(c).get("grade_id") == "part7_verdicts")
    cell["source"] = [_text(cell) + '\n\nCheck it now: `check("ps3_verdict_1", verdicts[0])`.']
    problems = check_line_problems(ps, release, _notebook(ps, "source"))
    assert problems and all("which the hub refuses" in p for p in problems), problems
