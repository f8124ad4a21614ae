"""The judge outside the kernel: hidden tests scored in the grader's own process.

Two nbgrader preprocessors, wired into ``c.Autograde.autograde_preprocessors``:

* :class:`WriteCases` (before ``Execute``) writes the hidden case INPUTS of every
  ``grade`` call of the notebook into the notebook's folder (``kpca_probe.CASE_FILE``),
  where the probe in the student's kernel reads them. No expected value is written.
* :class:`JudgeHiddenTests` (right after ``Execute``) removes that file, then scores each
  auto-graded test cell itself. The cell's source is the instructor's (nbgrader's
  ``OverwriteCells`` restored it); its hidden part is parsed with ``ast`` for the
  ``_grading.grade``/``grade_exact`` calls it makes, with their names and points. The
  results the probe emitted (display outputs of MIME type ``kpca_probe.MIME``, the first
  per call) are decoded into plain values and compared with ``kpca_ref`` here, where the
  student's code never ran. A call without results scores 0 ("this test did not run").
  The cell's outputs are then replaced: every display/execute result the kernel produced
  is dropped (they may be forged), stdout is kept, stderr becomes stdout (the score is the
  judge's, a warning costs nothing), an error stays (the visible checks failed: 0), the
  judge's lines are appended and an ``execute_result`` carries the score, which nbgrader's
  ``SaveAutoGrades`` records as partial credit.

Forbidden shortcuts cannot be imported in a grading kernel (kit/kernelenv.py), so a part
built on them fails there; the judge only names the cause, with a ``[diagnosis:
forbidden_import]`` line in a test cell whose part (the answer and added cells since the
previous test cell) imports ``kpca_ref`` or scikit-learn's ``KernelPCA``/``KernelCenterer``,
or uses a name that code bound from them (directly or through a function or variable built
on them, anywhere in the notebook). See :func:`forbidden_parts`.

Limits: each notebook's test cells are judged in a forked child under a time and memory
limit (:mod:`kit.judge_limits`); a cell over a limit scores 0 with a line saying why.
"""

from __future__ import annotations

import ast
import functools
import os
from pathlib import Path

from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Bool

import kpca_probe
from kit import judge_limits
from kit.cells import _HIDDEN, _meta, grader_notes, is_test_cell, visible_error
from kit.forbidden import FORBIDDEN_LINE, forbidden_parts
from kit.identity import Identity, numbers_text, typed_ids
from kit.verdicts import verdict_lists
from kpca_probe.wire import decode, decode_error

__all__ = ["JudgeHiddenTests", "WriteCases", "forbidden_parts", "judge_cell", "planned_calls"]

DID_NOT_RUN = "this test did not run (no result arrived from the notebook)"


# ------------------------------------------------------------------ what a test cell asks
def planned_calls(source: str) -> list[tuple[str, str, float]]:
    """``[(kind, name, points), ...]`` of the grading calls in a test cell's hidden part.

    >>> planned_calls('x = 1\\n### BEGIN HIDDEN TESTS\\nimport kpca_probe as _grading\\n'
    ...               '_grading.grade("lift", lift, points=3)\\n### END HIDDEN TESTS')
    [('grade', 'lift', 3.0)]
    """
    hidden = _HIDDEN.findall(source)
    tree = ast.parse("\n".join(hidden) if hidden else source)
    calls = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("grade", "grade_exact")
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "_grading"):
            name = node.args[0].value if node.args and isinstance(node.args[0], ast.Constant) else None
            points = [k.value.value for k in node.keywords
                      if k.arg == "points" and isinstance(k.value, ast.Constant)]
            if not isinstance(name, str) or not points:
                raise ValueError("a hidden grading call needs a literal name and points=")
            calls.append((node.lineno, node.col_offset, node.func.attr, name, float(points[0])))
    return [c[2:] for c in sorted(calls)]


def planned_entries(source: str) -> list[tuple[str, str, str, float]]:
    """``[(kind, name, expression, points), ...]``: :func:`planned_calls` with the source of
    the value each call grades (the student's function or exact answer), e.g. ``"lift"``."""
    hidden = _HIDDEN.findall(source)
    text = "\n".join(hidden) if hidden else source
    found = []
    for node in ast.walk(ast.parse(text)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("grade", "grade_exact")
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "_grading"):
            expression = ast.get_source_segment(text, node.args[1]) if len(node.args) > 1 else None
            found.append((node.lineno, node.col_offset, expression))
    expressions = [e for *_, e in sorted(found)]
    plan = planned_calls(source)
    if len(expressions) != len(plan) or any(e is None for e in expressions):
        raise ValueError("a hidden grading call needs the graded value as its second argument")
    return [(kind, name, expr, points) for (kind, name, points), expr in zip(plan, expressions)]


def without_hidden_code(source: str, cell_id: str) -> str:
    """The test cell as the kernel runs it: its hidden part becomes one call of the probe."""
    call = f"__import__('kpca_probe').run_hidden({cell_id!r})\n"
    return _HIDDEN.sub(lambda _: call, source)


def payloads(cell) -> dict:
    """``{(kind, name): payload}``: the first probe result per call found in the outputs."""
    found = {}
    for out in cell.get("outputs", []):
        data = out.get("data", {}) if out.get("output_type") in (
            "display_data", "execute_result", "update_display_data") else {}
        payload = data.get(kpca_probe.MIME)
        if isinstance(payload, dict) and isinstance(payload.get("name"), str):
            found.setdefault((payload.get("kind"), payload["name"]), payload)
    return found


# ------------------------------------------------------------------ judging
def _judge_grade(name: str, points: float, payload) -> tuple[float, list[str]]:
    from kpca_ref.grading import cases, harness

    if payload is None:
        return 0.0, [harness.line(False, name, DID_NOT_RUN)]
    if "not_callable" in payload:
        return 0.0, [harness.line(False, name, "expected a function, got "
                                  f"{payload['not_callable']}")]
    sent = payload.get("groups") if isinstance(payload.get("groups"), list) else []

    def outcome_of(gi, ci, case):
        try:
            data = sent[gi][ci]
        except (IndexError, TypeError, KeyError):
            return None
        if not isinstance(data, dict):
            return None
        if "raised" in data and isinstance(data["raised"], dict):
            return ("raised", decode_error(data["raised"]), str(data["raised"].get("raised", "")))
        if isinstance(data.get("ok"), list) and len(data["ok"]) == len(case.calls()):
            return ("ok", [decode(v) for v in data["ok"]])
        return None

    with harness._silenced(), harness._one_blas_thread():
        return harness.judge_groups(name, points, cases.groups(name), outcome_of)


def _judge_exact(name: str, points: float, payload, who: Identity | None = None,
                 show_expected: bool = False) -> tuple[float, list[str]]:
    from kpca_ref.grading import harness

    if payload is None:
        return 0.0, [harness.line(False, name, DID_NOT_RUN)]
    if who is not None and who.typed_mismatch:
        return 0.0, [harness.line(False, name, who.mismatch_text(), "wrong_student_id")]
    student = who.student if who is not None else None
    with harness._silenced():
        verdict = harness.judge_exact(name, decode(payload.get("value")), student)
    text = verdict.message
    if not verdict.ok and student is not None:
        text = f"{text}. {numbers_text(name, student, show_expected)}"
    return (float(points) if verdict.ok else 0.0,
            [harness.line(verdict.ok, name, text, verdict.code)])


def judge_cell(cell, forbidden: bool = False, who: Identity | None = None,
               show_expected: bool = False) -> float:
    """Score one test cell outside the kernel and rewrite its outputs; returns the score."""
    from kpca_ref.grading import harness

    max_points = float(_meta(cell).get("points", 0))
    try:
        plan = planned_calls(cell.source)
    except (SyntaxError, ValueError):
        plan = None
    found = payloads(cell)
    errored = any(o.get("output_type") == "error" for o in cell.get("outputs", []))
    kept = [visible_error(out, cell.source) for out in cell.get("outputs", [])
            if out.get("output_type") == "error"][:1]
    kept = grader_notes(cell) + kept
    lines, score = [], 0.0
    if forbidden and plan:  # a diagnosis only: the kernel cannot import those anyway
        lines.append(FORBIDDEN_LINE)
    if plan is None or not plan:
        lines.append("✗ this test cell could not be graded (no hidden test found); "
                     "please tell your instructor")
    elif errored:
        lines.append("✗ this test cell stopped with an error (see above), so its hidden "
                     "tests earn nothing")
    else:
        results = []
        for kind, name, points in plan:
            payload = found.get((kind, name))
            try:
                if kind == "grade":
                    earned, more = _judge_grade(name, points, payload)
                else:
                    earned, more = _judge_exact(name, points, payload, who, show_expected)
            except Exception as exc:  # noqa: BLE001 - the judge failed: never a free pass
                earned, more = 0.0, [harness.line(False, name, f"could not be graded "
                                                  f"({type(exc).__name__} in the grader); "
                                                  "please tell your instructor")]
            score += earned
            lines.extend(more)
            results.append((name, points, earned))
        score, more = verdict_lists(results, who, score)
        lines.extend(more)
    score = round(min(max(score, 0.0), max_points), 2)
    kept.append({"output_type": "stream", "name": "stdout", "text": "\n".join(lines) + "\n"})
    kept.append({"output_type": "execute_result", "execution_count": cell.get("execution_count"),
                 "metadata": {}, "data": {"text/plain": repr(score)}})
    from nbformat import from_dict

    cell.outputs = [from_dict(o) for o in kept]
    return score


# ------------------------------------------------------------------ the two preprocessors
def _case_path(resources) -> str:
    folder = (resources.get("metadata") or {}).get("path") or os.getcwd()
    return os.path.join(folder, kpca_probe.CASE_FILE)


def case_inputs(names) -> dict:
    """``{name: [[calls of each case] per group]}``: the inputs only, for the kernel."""
    from kpca_ref.grading import cases

    return {name: [[case.calls() for case in group.cases] for group in cases.groups(name)]
            for name in names}


#: environment variable naming the submission's student for the notebook's numbers cell
STUDENT_VAR = "KPCA_STUDENT_ID"
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
        salt = resources[_SALT_KEY] = _salt(resources)
        with cases.salted(salt):
            inputs = case_inputs(dict.fromkeys(names))
        with open(_case_path(resources), "wb") as fh:
            pickle.dump({"cases": inputs, "plan": plan}, fh)
        student = _student(resources)
        if student is not None:
            _SAVED_STUDENT_VAR.append(os.environ.get(STUDENT_VAR))
            os.environ[STUDENT_VAR] = student
        return nb, resources


#: keys of what WriteCases leaves for JudgeHiddenTests in nbgrader's resources
_ORIGINALS, _SALT_KEY = "kpca_hidden_sources", "kpca_case_salt"


class JudgeHiddenTests(NbGraderPreprocessor):
    """After ``Execute``: score every auto-graded test cell outside the kernel.

    Exact answers are judged against the numbers of the submission's nbgrader student id
    (``submitted/<student>/``), never an id typed into the notebook.
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
            before = _SAVED_STUDENT_VAR.pop()
            if before is None:
                os.environ.pop(STUDENT_VAR, None)
            else:
                os.environ[STUDENT_VAR] = before
        for index, source in resources.pop(_ORIGINALS, {}).items():
            nb.cells[index].source = source  # the instructor's cell, hidden tests and all
        student = _student(resources)
        who = Identity(student, typed_ids(nb)) if student is not None else None
        zeroed = forbidden_parts(nb)
        from kpca_ref.grading import cases

        jobs = []  # (cell, how to judge it): run below under time and memory limits
        for index, cell in enumerate(nb.cells):
            if is_test_cell(cell):
                jobs.append((cell, functools.partial(
                    judge_cell, forbidden=index in zeroed, who=who,
                    show_expected=self.show_expected)))
            elif cell.cell_type == "code":  # probe results elsewhere are forgeries: drop them
                cell.outputs = [o for o in cell.get("outputs", [])
                                if kpca_probe.MIME not in o.get("data", {})]
        with cases.salted(resources.pop(_SALT_KEY, ())):  # the child inherits the salt
            judge_limits.run_bounded(jobs)  # kit/judge_limits.py: a forked child per notebook
        return nb, resources
