"""The numbers of the class report (:mod:`kit.report.page`), per problem set and per student.

Distributions count the graded notebooks only: a student who did not hand a problem set in,
and a hand-in that could not be graded, are counted beside them, never as a score of 0.
Points are read from the gradebook when the report is made (:mod:`kit.gradebook.hand_grades`), so a
TA's hand grades appear as soon as the report is made again.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from dataclasses import dataclass, field

import nbformat

from kit.course import ASSIGNMENTS, Course
from kit.engines.job import Outcome, cell_scores
from kit.gradebook.export import GRADED, current_marks, max_points
from kit.gradebook.hand_grades import Marks
from kit.judge.cells import judge_records

DIAGNOSIS_CODE = re.compile(r"[a-z_]{1,40}")
_POINTS = re.compile(r"\s*\(\s*[\d.]+\s+points?\s*\)\s*$")


@dataclass
class Part:
    """One auto-graded test cell: its id, the title of the part it tests, its points and results."""

    grade_id: str
    title: str
    points: float
    full: float = 0.0  # share of graded notebooks with full points
    mean: float = 0.0  # mean share of the points earned
    heading: str = ""  # the title as the notebook writes it, TeX and all (the page draws it)


@dataclass
class ProblemSet:
    """What the report shows of one problem set."""

    name: str
    auto_max: float
    manual_max: float
    graded: dict[str, Marks] = field(default_factory=dict)  # student -> marks
    missing: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)  # student -> why
    parts: list[Part] = field(default_factory=list)  # hardest first
    mistakes: list[tuple[str, int]] = field(default_factory=list)  # (code, notebooks), most first
    checks: dict[str, dict] = field(default_factory=dict)  # exact item -> instant checks

    @property
    def hand_graded(self) -> list[Marks]:
        """Marks of the graded notebooks whose written answers are all graded by hand."""
        return [m for m in self.graded.values() if m.manual_cells and m.manual_graded == m.manual_cells]


def _order(assignment: str) -> int:
    return ASSIGNMENTS.index(assignment) if assignment in ASSIGNMENTS else len(ASSIGNMENTS)


#: LaTeX commands of the notebooks' headings, as plain text
_LATEX = {"phi": "φ", "gamma": "γ", "mu": "μ", "alpha": "α", "lambda": "λ", "sigma": "σ",
          "times": "×", "sqrt": "√", "cdot": "·"}


def plain(title: str) -> str:
    """A heading's LaTeX as plain text: ``$\\mathbf{u}$`` -> ``u``, ``$\\phi$`` -> ``φ``."""
    def command(match):
        return _LATEX.get(match.group(1), "")

    text = re.sub(r"\\(?:mathbf|mathrm|mathbb|text|operatorname)\{([^{}]*)\}", r"\1", title)
    text = re.sub(r"\\([A-Za-z]+)", command, text)
    return re.sub(r"\s+", " ", text.replace("$", "").replace("{", "").replace("}", "")).strip()


def _heading(cell, tex: bool = False) -> str:
    """The last heading of a plain markdown cell (not an answer or test), without its points;
    its TeX as plain text (:func:`plain`), or as written with ``tex``."""
    if cell.cell_type != "markdown" or cell.get("metadata", {}).get("nbgrader", {}).get("solution"):
        return ""
    lines = [ln.lstrip("#").strip() for ln in cell.source.splitlines() if ln.startswith("#")]
    lines = [ln for ln in lines if ln and "BEGIN SOLUTION" not in ln and "END SOLUTION" not in ln]
    if not lines:
        return ""
    return _POINTS.sub("", lines[-1]) if tex else plain(_POINTS.sub("", lines[-1]))


def parts_of(course: Course, assignment: str) -> list[Part]:
    """The auto-graded test cells of ``assignment`` in notebook order, titled by the heading above."""
    nb = nbformat.read(course.notebook("source", assignment), as_version=4)
    title, heading, found = "", "", []
    for cell in nb.cells:
        title, heading = _heading(cell) or title, _heading(cell, tex=True) or heading
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("grade") and not meta.get("solution"):
            found.append(Part(meta["grade_id"], title or meta["grade_id"], float(meta["points"]),
                              heading=heading))
    return found


def notebook_diagnoses(path) -> set[str]:
    """The diagnosis codes the judge recorded for a graded notebook's test cells."""
    nb = nbformat.read(path, as_version=4)
    return {code for record in judge_records(nb) for code in record.get("diagnoses", [])
            if isinstance(code, str) and DIAGNOSIS_CODE.fullmatch(code)}


def diagnoses(course: Course, outcomes: list[Outcome]) -> Counter:
    """``{(assignment, code): notebooks}``: a graded notebook counts once per code it shows."""
    counts: Counter = Counter()
    for o in outcomes:
        path = course.notebook("autograded", o.assignment, o.student)
        if o.status in GRADED and path.exists():
            counts.update((o.assignment, code) for code in notebook_diagnoses(path))
    return counts


def wrong_ids(course: Course, outcomes: list[Outcome]) -> list[tuple[str, str, str]]:
    """``(student, problem set, other ids)`` of graded notebooks whose numbers were drawn
    for someone else (the judge's ``wrong_student_id``, ``kit.judge.identity``): their exact items
    scored 0; the TA should look. The ids are as the student's kernel had them: shown
    through :func:`kit.inert.inert` wherever they are printed."""
    found = []
    for o in outcomes:
        path = course.notebook("autograded", o.assignment, o.student)
        if o.status not in GRADED or not path.exists():
            continue
        records = judge_records(nbformat.read(path, as_version=4))
        if any("wrong_student_id" in r.get("diagnoses", []) for r in records):
            others = {str(i) for r in records for i in r.get("other_ids", [])} - {o.student, ""}
            found.append((o.student, o.assignment, ", ".join(sorted(others)) or "?"))
    return found


def instant_checks(course: Course) -> dict[str, dict]:
    """Per exact item, the instant checks students made (:func:`kit.checks.store.summary`),
    named mistakes counted up to each student's hand-in."""
    from nbgrader.api import Gradebook

    from kit.checks.policy import Policy
    from kit.checks.store import summary
    from kit.intake.received import received_time

    handed_in = {}  # the time the kit received each hand-in, never its timestamp.txt
    with Gradebook(course.db_url) as gradebook:
        for assignment in gradebook.assignments:
            for sub in assignment.submissions:
                handed_in[sub.student.id, assignment.name] = received_time(
                    course, sub.student.id, assignment.name)
    return summary(Policy(course.root).db_url, handed_in)


def summarise(course: Course, outcomes: list[Outcome]) -> list[ProblemSet]:
    """One :class:`ProblemSet` per problem set of ``outcomes``, in teaching order."""
    marks = current_marks(course, outcomes)
    mistakes = diagnoses(course, outcomes)
    checks = instant_checks(course)
    found = []
    for name in sorted({o.assignment for o in outcomes}, key=_order):
        auto_max, manual_max = max_points(course, name)
        ps = ProblemSet(name, auto_max, manual_max)
        scores = {}
        for o in (o for o in outcomes if o.assignment == name):
            if o.status in GRADED and (o.assignment, o.student) in marks:
                ps.graded[o.student] = marks[o.assignment, o.student]
                scores[o.student] = o.scores or cell_scores(course, name, o.student)
            elif o.status == "failed":
                ps.failed[o.student] = o.message
            else:
                ps.missing.append(o.student)
        ps.parts = parts_of(course, name)
        for part in ps.parts:
            got = [s.get(part.grade_id, 0.0) for s in scores.values()]
            if got and part.points:
                part.full = sum(g >= part.points - 1e-9 for g in got) / len(got)
                part.mean = statistics.fmean(min(g / part.points, 1.0) for g in got)
        ps.parts.sort(key=lambda p: (p.full, p.mean))
        ps.mistakes = sorted(((code, n) for (a, code), n in mistakes.items() if a == name),
                             key=lambda item: (-item[1], item[0]))
        ps.checks = {item: c for item, c in checks.items() if item.split("_", 1)[0] ==
                     name.split("_", 1)[0]}
        found.append(ps)
    return found


def describe(values: list[float]) -> str:
    """``mean m, median d`` of ``values`` (``-`` when there are none)."""
    if not values:
        return "-"
    return f"mean {statistics.fmean(values):.1f}, median {statistics.median(values):g}"
