"""Step 5 of the pipeline: one HTML feedback page per graded submission, in ``feedback/``.

nbgrader's ``ClearHiddenTests`` (configured in ``nbgrader_config.py``) removes the hidden
test code from the page; :class:`HideTracebacks` below also replaces each error's traceback,
which would quote the failing line of a hidden test, by its one-line message;
:class:`LateLine` gives the page its line on lateness (what the calendar took and why).
"""

from __future__ import annotations

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

from kit.course import Course

HIDDEN_MARKERS = ("HIDDEN TESTS", "_grading")  # text only the hidden tests contain


class HideTracebacks(Preprocessor):
    """Replace every error traceback by ``ExceptionName: message``."""

    # nbconvert preprocessors are off unless enabled; nbgrader registers them as they are
    enabled = Bool(True).tag(config=True)

    def preprocess_cell(self, cell, resources, index):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                output["traceback"] = [f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"]
        return cell, resources


class LateLine(Preprocessor):
    """After nbgrader's ``GetGrades``: ``resources.nbgrader.kit_late``, the one line saying
    what lateness took and why (:func:`kit.term.late.lateness_of`: the time the course
    received the hand-in, the student's own due date, the calendar's policy); empty when the
    hand-in was not late or the course has no calendar. The template prints it escaped."""

    enabled = Bool(True).tag(config=True)

    def preprocess(self, nb, resources):
        from pathlib import Path

        from kit.term.late import lateness_of

        meta = resources.setdefault("nbgrader", {})
        meta["kit_late"] = ""
        folder = (resources.get("metadata") or {}).get("path")
        if folder and meta.get("student") and meta.get("assignment"):
            root = Path(folder).resolve().parents[2]  # <root>/autograded/<student>/<ps>
            taken = float(meta.get("late_penalty") or 0.0)  # the gradebook's, from GetGrades,
            score = float(meta.get("score") or 0.0) + taken  # whose score has it taken off
            verdict = lateness_of(root, meta["student"], meta["assignment"], score, taken)
            meta["kit_late"] = verdict.why if verdict.late else ""
        return nb, resources


def write_feedback(course: Course, assignment: str, student: str, api=None) -> str:
    """Generate ``feedback/<student>/<assignment>/<assignment>.html``; return an error or ''."""
    api = api or course.api()
    result = api.generate_feedback(assignment, student, force=True)
    if not result.get("success"):
        return "feedback could not be generated"
    page = feedback_page(course, assignment, student)
    leaked = [m for m in HIDDEN_MARKERS if m in page.read_text(encoding="utf-8")]
    if leaked:
        page.unlink()
        return f"feedback page withheld: it would show hidden test text ({', '.join(leaked)})"
    return ""


def feedback_page(course: Course, assignment: str, student: str):
    return course.root / "feedback" / student / assignment / f"{assignment}.html"
