"""Practice never counts towards a grade: a hand-in that calls practice(k) is graded on its own numbers.

One real grading of ps1 (``kit.autograde``: nbgrader's autograde in the sandbox). pia's hand-in
draws practice numbers twice, once at the end of the numbers cell (a locked cell she edited)
and once in a cell of her own right after it (``N = practice(2)``), then computes every
exact answer from ``N``. The grading kernel's ``practice`` hands back her own numbers (the
grader never reaches the check service), so every exact item is graded on her own key and
earns its points; the practice cells run without an error.
"""

from __future__ import annotations

import nbformat
import pytest
from nbgrader.api import Gradebook

from kit.autograde import grade_class
from tests.support.nbgrading import exact_points, lay_submission, pin_secret

PS = "ps1_circle_lift"


def _practising(nb) -> None:
    index, cell = next((i, c) for i, c in enumerate(nb.cells)
                       if c.metadata.get("nbgrader", {}).get("grade_id") == "your_numbers")
    cell.source += "\nN = practice(1)"
    nb.cells.insert(index + 1, nbformat.v4.new_code_cell("N = practice(2)\nprint(vars(N))"))


@pytest.mark.filterwarnings("ignore")
def test_a_hand_in_that_practises_is_graded_on_its_own_numbers(released_ps1, tmp_path):
    course = released_ps1(tmp_path / "course")
    pin_secret(course)
    lay_submission(course, PS, "pia", {}, edit=_practising)  # every answer the solution's
    (outcome,) = grade_class(course, [PS], students=["pia"], workers=1, progress=False,
                             feedback=False)
    assert outcome.status == "graded", outcome.message
    exact = exact_points(PS)
    assert exact
    with Gradebook(course.db_url) as gb:
        grades = {g.name: (g.score, g.max_score)
                  for g in gb.find_submission_notebook(PS, PS, "pia").grades}
    assert {name: grades[name] for name in exact} == {
        name: (points, points) for name, points in exact.items()}
    graded = nbformat.read(course.root / "autograded" / "pia" / PS / f"{PS}.ipynb", as_version=4)
    errors = [o for c in graded.cells if "practice(" in c.source
              for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert errors == []
