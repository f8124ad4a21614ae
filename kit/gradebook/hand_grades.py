"""A submission's points as the gradebook holds them now: auto-graded, hand-graded, comments.

The grading processes know only the auto-graded points; the written answers are graded later
by a TA in formgrader, which stores ``Grade.manual_score`` and ``Comment.manual_comment`` in
the gradebook. The export (``reports/grades.csv``, ``nbgrader export``) and the class report
read them here, so whatever a TA graded before they run appears in them.

A cell is hand-graded when it is both a solution and a grade cell (a written answer); every
other grade cell is auto-graded (a TA may still override it in formgrader: the override wins).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Marks:
    """The points of one submitted notebook.

    Attributes
    ----------
    auto : float
        Points of the auto-graded cells (a TA's override included).
    manual : float
        Points the TA gave so far to the written answers (0 before any hand grading).
    manual_cells, manual_graded : int
        How many written answers the notebook has, and how many a TA has graded.
    comments : dict
        ``{cell name: the TA's comment}``, only cells with a non-empty comment.
    """

    auto: float = 0.0
    manual: float = 0.0
    manual_cells: int = 0
    manual_graded: int = 0
    comments: dict[str, str] = field(default_factory=dict)

    @property
    def total(self) -> float:
        return round(self.auto + self.manual, 2)

    @property
    def hand_graded(self) -> str:
        """``"yes"``, ``"no"``, ``"1 of 2"`` or ``""`` (nothing to grade by hand)."""
        if not self.manual_cells:
            return ""
        if self.manual_graded == self.manual_cells:
            return "yes"
        return "no" if not self.manual_graded else f"{self.manual_graded} of {self.manual_cells}"

    def comment_text(self) -> str:
        """The TA's comments on one line each, ``cell: comment``."""
        return "\n".join(f"{name}: {text}" for name, text in sorted(self.comments.items()))


def manual_cell_names(notebook) -> set[str]:
    """Names of the hand-graded cells of a gradebook ``Notebook`` (solution and grade cells)."""
    return {c.name for c in notebook.grade_cells} & {c.name for c in notebook.solution_cells}


def marks_of(submitted_notebook) -> Marks:
    """The :class:`Marks` of a gradebook ``SubmittedNotebook``."""
    manual_names = manual_cell_names(submitted_notebook.notebook)
    marks = Marks(manual_cells=len(manual_names))
    for grade in submitted_notebook.grades:
        if grade.name in manual_names:
            if grade.manual_score is not None:
                marks.manual += float(grade.score)
                marks.manual_graded += 1
        else:
            marks.auto += float(grade.score)
    for comment in submitted_notebook.comments:
        text = (comment.manual_comment or "").strip()
        if text:
            marks.comments[comment.name] = text
    marks.auto, marks.manual = round(marks.auto, 2), round(marks.manual, 2)
    return marks


def read_marks(db_url: str, pairs) -> dict[tuple[str, str], Marks]:
    """``{(assignment, student): Marks}`` of the ``(assignment, student)`` pairs in the gradebook.

    A pair the gradebook does not hold (not submitted, not graded) is left out.
    """
    from nbgrader.api import Gradebook, MissingEntry

    found = {}
    with Gradebook(db_url) as gb:
        for assignment, student in pairs:
            try:
                sub = gb.find_submission_notebook(assignment, assignment, student)
            except MissingEntry:
                continue
            found[assignment, student] = marks_of(sub)
    return found
