"""The judge outside the kernel: hidden tests scored in the grader's own process.

Two nbgrader preprocessors, wired into ``c.Autograde.autograde_preprocessors``:

* :class:`WriteCases` (before ``Execute``) writes the hidden case INPUTS of every
  ``grade`` call of the notebook into the notebook's folder (``kpca_probe.CASE_FILE``),
  where the probe in the student's kernel reads them, with the plan of each test cell
  (:mod:`kit.judge.plan`), and takes the hidden tests' code out of the cells the kernel
  runs. No expected value is written.
* :class:`JudgeHiddenTests` (right after ``Execute``) removes that file, puts the
  instructor's cells back, then scores each auto-graded test cell itself
  (:func:`kit.judge.score.judge_cell`: the probe's results compared with ``kpca_ref``, the
  cell's outputs replaced by the judge's lines and score).

Forbidden shortcuts cannot be imported in a grading kernel (kit/sandbox/kernelenv.py), so a part
built on them fails there; the judge only names the cause, with a ``[diagnosis:
forbidden_import]`` line in a test cell whose part (the answer and added cells since the
previous test cell) imports ``kpca_ref`` or scikit-learn's ``KernelPCA``/``KernelCenterer``,
or uses a name that code bound from them (directly or through a function or variable built
on them, anywhere in the notebook). See :func:`kit.judge.forbidden.forbidden_parts`.

Limits: each notebook's test cells are judged in a forked child under a time and memory
limit (:mod:`kit.judge.limits`); a cell over a limit scores 0 with a line saying why.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Bool

import kpca_probe
from kit.judge import limits as judge_limits
from kit.judge.cells import _HIDDEN, _meta, is_test_cell
from kit.judge.forbidden import forbidden_parts
from kit.judge.identity import Identity, kernel_ids, typed_ids
from kit.judge.plan import planned_entries, without_hidden_code
from kit.judge.score import judge_cell

__all__ = ["STUDENT_VAR", "JudgeHiddenTests", "WriteCases", "case_inputs"]


def _case_path(resources) -> str:
    folder = (resources.get("metadata") or {}).get("path") or os.getcwd()
    return os.path.join(folder, kpca_probe.CASE_FILE)


def case_inputs(names, built: dict | None = None) -> dict:
    """``{name: [[calls of each case] per group]}``: the inputs only, for the kernel.

    ``built``: ``{name: groups}`` already built (under the same salt); the others are built here.
    """
    from kpca_ref.grading import cases

    built = built or {}
    return {name: [[case.calls() for case in group.cases]
                   for group in (built[name] if name in built else cases.groups(name))]
            for name in names}


def _warm_exact_items(names, student: str | None) -> None:
    """Compute in this process what judging the exact answers ``names`` needs, for the judge's
    forked child (:mod:`kit.judge.limits`) to inherit instead of computing it for every
    notebook, since what the child computes dies with it:

    - the number families of their problem sets (:func:`kpca_ref.variants.families`, cached
      per process; they depend on the problem set alone: 0.04 to 0.7 CPU s each);
    - ``student``'s exact answers (:func:`kpca_ref.variants.variant`, cached per process),
      whose own caches (a ps5 fit, sympy's) outlive the notebook, shared by students with a
      family's numbers in common. The numbers are one of the problem set's candidates, drawn
      from the student's id: no answer of the student's is read here.

    A name that is not an exact item of this course, or any failure, is left to the judge,
    which reports it as before."""
    from kpca_ref import variants

    first: dict[str, str] = {}  # problem set -> the first of its items
    for name in names:
        if not isinstance(name, str):
            continue
        try:
            name = variants.current_name(name)
            ps = variants.problem_set_of(name)
            variants.families(ps)
        except (KeyError, ValueError):  # not an exact item of this course: judged as before
            continue
        first.setdefault(ps, name)
    if student is None:
        return
    for name in first.values():
        try:
            variants.answer(name, student)
        except Exception:  # noqa: BLE001, S112 - a warm-up: the judge reports any failure
            continue


#: environment variable naming the submission's student for the notebook's numbers cell
STUDENT_VAR = "KPCA_STUDENT_ID"
#: set to "1" for the numbers cell when the course's numbers come from the login
LOGIN_VAR = "KPCA_NUMBERS_FROM_LOGIN"
_SAVED_STUDENT_VAR: list = []


def _student(resources) -> str | None:
    found = (resources.get("nbgrader") or {}).get("student")
    return found if isinstance(found, str) and found else None


def _salt(resources) -> tuple[int, ...]:
    """Salt words of this submission's hidden inputs (see :mod:`kit.secret`)."""
    from kit.secret import course_secret, salt_words

    meta = resources.get("nbgrader") or {}
    student, assignment = meta.get("student"), meta.get("assignment")
    if not student or not assignment:
        return ()
    folder = Path(_case_path(resources)).resolve().parent  # autograded/<student>/<ps>/
    return salt_words(course_secret(folder.parents[2]), assignment, student)


def _check_costs(config, resources, student: str) -> tuple[dict, float]:
    """``(wrong checks per item, cost of each)`` when the course makes instant checks cost
    points (``c.KpcaCheck.wrong_check_cost`` > 0 in ``config``, the grading app's own,
    :mod:`kit.checks`); else ``({}, 0.0)`` without reading anything more. Only checks made
    before the hand-in was received count: :func:`kit.intake.received.received_time`, never
    the hand-in's own ``timestamp.txt``."""
    from kit.checks.policy import KpcaCheck

    cost = KpcaCheck(config=config).wrong_check_cost
    assignment = (resources.get("nbgrader") or {}).get("assignment")
    if cost <= 0 or not assignment:
        return {}, 0.0
    from kit.checks.policy import Policy
    from kit.checks.store import wrong_checks
    from kit.intake.received import received_time

    root = Path(_case_path(resources)).resolve().parents[3]  # autograded/<student>/<ps>/<file>
    until = received_time(root, student, assignment)
    return wrong_checks(Policy(root).db_url, student, assignment, until), cost


def _in_kernel_cell_id(index: int, cell) -> str:
    return str(_meta(cell).get("grade_id") or f"cell-{index}")


class WriteCases(NbGraderPreprocessor):
    """Before ``Execute``: write the hidden case inputs and the grading plan next to the
    notebook, and take the hidden tests' code out of the notebook the kernel runs.

    Each test cell's hidden part becomes ``__import__('kpca_probe').run_hidden('<grade_id>')``
    (no line of the hidden tests is left for the student's code to find); the plan in
    the case file says which contract function or exact answer that cell grades, from which
    notebook name, for how many points. The inputs are drawn for this submission only
    (salted with :mod:`kit.secret`). It also names the submission's student to the kernel
    (:data:`STUDENT_VAR`), so the notebook's numbers cell draws that student's numbers when
    ``STUDENT_ID`` is empty. :class:`JudgeHiddenTests` puts the cells' code back.
    """

    numbers_from_login = Bool(
        False,
        help="The course runs on JupyterHub, where each notebook's numbers are those of the "
             "login and a typed STUDENT_ID is ignored (with a warning). Grading then does the "
             "same: the numbers are the submission's student's whatever STUDENT_ID says. Off "
             "(an LMS course): the typed id draws the numbers, and exact answers drawn for "
             "another id than the submission's earn nothing, with a line that says so.",
    ).tag(config=True)

    def preprocess(self, nb, resources):
        import pickle

        from kpca_ref.grading import cases

        names, plan, originals = [], {}, {}
        for index, cell in enumerate(nb.cells):
            if not is_test_cell(cell) or not _HIDDEN.search(cell.source):
                continue
            try:
                entries = planned_entries(cell.source)
            except (SyntaxError, ValueError):
                continue
            cell_id = _in_kernel_cell_id(index, cell)
            plan[cell_id] = entries
            names += [name for kind, name, _, _ in entries if kind == "grade"]
            originals[index] = cell.source
            cell.source = without_hidden_code(cell.source, cell_id)
        resources[_ORIGINALS] = originals
        from kpca_ref.grading.harness import _one_blas_thread

        salt = resources[_SALT_KEY] = _salt(resources)
        # built once (the judge compares with these same cases), on one BLAS thread: the
        # grader's numpy may have been loaded with one thread per core, whose waiting beside
        # the kernels cost more than the case inputs' own eigen-decompositions
        with cases.salted(salt), _one_blas_thread():
            built = resources[_GROUPS_KEY] = {name: cases.groups(name)
                                              for name in dict.fromkeys(names)}
            inputs = case_inputs(built, built)
        with open(_case_path(resources), "wb") as fh:
            pickle.dump({"cases": inputs, "plan": plan}, fh)
        student = _student(resources)
        _warm_exact_items((name for entries in plan.values() for kind, name, _, _ in entries
                           if kind == "grade_exact"), student)
        resources[_LOGIN_KEY] = bool(self.numbers_from_login)
        if student is not None:
            _SAVED_STUDENT_VAR.append((os.environ.get(STUDENT_VAR), os.environ.get(LOGIN_VAR)))
            os.environ[STUDENT_VAR] = student
            if self.numbers_from_login:
                os.environ[LOGIN_VAR] = "1"
            else:
                os.environ.pop(LOGIN_VAR, None)
        return nb, resources


#: keys of what WriteCases leaves for JudgeHiddenTests in nbgrader's resources
_ORIGINALS, _SALT_KEY, _LOGIN_KEY = "kpca_hidden_sources", "kpca_case_salt", "kpca_login"
_GROUPS_KEY = "kpca_case_groups"


class JudgeHiddenTests(NbGraderPreprocessor):
    """After ``Execute``: score every auto-graded test cell outside the kernel.

    Exact answers are judged against the numbers of the submission's nbgrader student id
    (``submitted/<student>/``), never an id typed into the notebook. Whether a typed id
    that differs costs the exact points depends on ``WriteCases.numbers_from_login``
    (:mod:`kit.judge.identity`).
    """

    show_expected = Bool(
        False,
        help="Show the expected value of a wrong exact answer in the feedback line (off: "
             "the line names the student's numbers and what was wrong, not the key).",
    ).tag(config=True)

    def preprocess(self, nb, resources):
        try:
            os.remove(_case_path(resources))
        except OSError:
            pass
        if _SAVED_STUDENT_VAR:  # what the grading process had before WriteCases set it
            for name, before in zip((STUDENT_VAR, LOGIN_VAR), _SAVED_STUDENT_VAR.pop()):
                if before is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = before
        for index, source in resources.pop(_ORIGINALS, {}).items():
            nb.cells[index].source = source  # the instructor's cell, hidden tests and all
        student = _student(resources)
        used = (kernel_ids(nb, "drawn") if resources.pop(_LOGIN_KEY, False)
                else typed_ids(nb) | kernel_ids(nb))
        who = (Identity(student, used, *_check_costs(self.config, resources, student))
               if student is not None else None)
        zeroed = forbidden_parts(nb)
        from kpca_ref.grading import cases

        built = resources.pop(_GROUPS_KEY, None)  # WriteCases's cases, the kernel's inputs
        jobs = []  # (cell, how to judge it): run below under time and memory limits
        for index, cell in enumerate(nb.cells):
            if is_test_cell(cell):
                jobs.append((cell, functools.partial(
                    judge_cell, forbidden=index in zeroed, who=who,
                    show_expected=self.show_expected, groups=built)))
            elif cell.cell_type == "code":  # probe results elsewhere are forgeries: drop them
                cell.outputs = [o for o in cell.get("outputs", [])
                                if kpca_probe.MIME not in o.get("data", {})]
        with cases.salted(resources.pop(_SALT_KEY, ())):  # the child inherits the salt
            judge_limits.run_bounded(jobs)  # kit/judge/limits.py: a forked child per notebook
        return nb, resources
