"""One grading job: one student's submission of one problem set, graded by nbgrader.

Every engine (:mod:`kit.engines`) runs the same job: :func:`check_submission` refuses a
hand-in that cannot be graded (links and devices, the wrong notebook, a broken file) before
anything reads it, :func:`autograde_student` runs nbgrader's autograde on it (in the sandbox,
:mod:`kit.sandbox`) and returns its per-cell scores, and an :class:`Outcome` says what
happened.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import nbformat

from kit.course import Course
from kit.inert import inert
from kit.intake import safefiles
from kit.sandbox import wrapper as sandbox
from kit.sandbox.execute import kernel_env_refusal


class GradingError(RuntimeError):
    """nbgrader could not grade a submission at all."""


@dataclass
class Outcome:
    """What happened to one student's submission of one problem set."""

    student: str
    assignment: str
    status: str  # "graded", "not submitted", "failed" or "already graded"
    scores: dict[str, float] = field(default_factory=dict)
    message: str = ""

    @property
    def total(self) -> float:
        return round(sum(self.scores.values()), 2)


def cell_scores(course: Course, assignment: str, student: str) -> dict[str, float]:
    """``{grade_id: score}`` of one graded submission (auto-graded and manual cells); a cell
    an old gradebook holds under a name since renamed is given under its current name
    (:data:`kpca_ref.variants.RENAMED`)."""
    from nbgrader.api import Gradebook

    from kpca_ref.variants import current_name

    with Gradebook(course.db_url) as gb:
        sub = gb.find_submission_notebook(assignment, assignment, student)
        return {current_name(g.name): float(g.score) for g in sub.grades}


def _graded_ids(nb) -> set[str]:
    return {
        c.metadata["nbgrader"]["grade_id"]
        for c in nb.cells
        if c.get("metadata", {}).get("nbgrader", {}).get("grade")
    }


def check_submission(course: Course, assignment: str, student: str) -> str:
    """Empty string if the submission can be graded, else why it cannot."""
    folder = course.root / "submitted" / student / assignment
    found = safefiles.submission_problems(folder)
    if found:  # before anything reads the folder: links, FIFOs and devices are refused
        return "; ".join(found) + " (only plain files are graded)"
    path = folder / f"{assignment}.ipynb"
    if not path.exists():
        others = sorted(p.name for p in folder.glob("*.ipynb")) if folder.exists() else []
        shown = ", ".join(inert(n, limit=100) for n in others[:5]) + ", ..." * (len(others) > 5)
        return f"no {path.name} in the submission" + (f" (found {shown})" if others else "")
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as exc:  # noqa: BLE001  (nbformat raises many unrelated types for a broken file)
        return f"{path.name} is not a readable notebook ({type(exc).__name__})"
    expected = _graded_ids(nbformat.read(course.notebook("release", assignment), as_version=4))
    if not expected & _graded_ids(nb):
        return f"{path.name} holds none of the graded cells of {assignment}: wrong problem set?"
    return ""


def _sandboxed(api) -> bool:
    """Whether nbgrader's autograde runs notebooks through ``kit.sandbox.execute.SandboxedExecute``."""
    steps = api.config.Autograde.get("autograde_preprocessors", [])
    return any(str(getattr(step, "__name__", step)).endswith("SandboxedExecute") for step in steps)


def grading_api(course: Course):
    """The ``NbGraderAPI`` that grades: its hand-in times are the course's records of when each
    hand-in was received (:mod:`kit.intake.received`), never the hand-in's ``timestamp.txt``."""
    from kit.engines import gradebook_reuse as reuse
    from kit.intake.received import ReceivedTimeDirectory

    _one_blas_thread()
    reuse.install()  # one engine per gradebook in this process (kit/engines/gradebook_reuse.py)
    return course.api(ReceivedTimeDirectory)


def _one_blas_thread() -> None:
    """The grading process's own BLAS on one thread, as its kernels' (:data:`kit.course.
    SINGLE_THREADED`): numpy is loaded before that environment is set, with a thread per
    core, and the judge's eigen-decompositions then waited on threads the kernels needed."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - installed with scikit-learn
        return
    threadpool_limits(limits=1, user_api="blas")


def autograde_student(course: Course, assignment: str, student: str, api=None) -> dict[str, float]:
    """Autograde one student's submission and return its per-cell scores."""
    problem = check_submission(course, assignment, student)
    if problem:
        raise GradingError(problem)
    api = api or grading_api(course)
    sandboxed = _sandboxed(api)
    if sandboxed and (why := sandbox.unavailable(cached=True)):
        raise GradingError(f"sandbox unavailable: {why}")
    if sandboxed and (why := kernel_env_refusal(str(course.root))):
        raise GradingError(f"grading refused: {why}")
    result = api.autograde(assignment, student, force=True, create=True)
    if not result.get("success"):
        log = (result.get("error") or "") + (result.get("log") or "")
        reason = "the notebook's kernel died" if "Kernel died" in log or "DeadKernel" in log else "nbgrader failed"
        if sandboxed and (why := sandbox.unavailable()):
            reason = f"sandbox unavailable: {why}"
        raise GradingError(f"{reason}; see autograde log")
    return cell_scores(course, assignment, student)


def students_of(course: Course) -> list[str]:
    """Every student with a folder in ``submitted/``."""
    folder = course.root / "submitted"
    return sorted(p.name for p in folder.iterdir() if p.is_dir()) if folder.exists() else []
