"""Scoring one test cell outside the kernel, from the results the probe sent.

:func:`judge_cell` takes an auto-graded test cell after ``Execute`` (its source the
instructor's again, so its plan is :func:`kit.judge_plan.planned_calls`), decodes the
probe's results (:func:`kit.judge_plan.payloads`, :mod:`kpca_probe.wire`) into plain values
and compares them with ``kpca_ref`` here, where the student's code never ran. A call
without results scores 0 (:data:`DID_NOT_RUN`); exact answers are judged on the numbers of
the submission's student (:class:`kit.identity.Identity`). The cell's outputs are then
replaced: every display/execute result the kernel produced is dropped (they may be forged),
stdout is kept, stderr becomes stdout (the score is the judge's, a warning costs nothing),
an error stays (the visible checks failed: 0), the judge's lines are appended and an
``execute_result`` carries the score, which nbgrader's ``SaveAutoGrades`` records as
partial credit.
"""

from __future__ import annotations

from kit.cells import _meta, grader_notes, visible_error
from kit.forbidden import FORBIDDEN_LINE
from kit.identity import Identity, numbers_text
from kit.judge_plan import payloads, planned_calls
from kpca_probe.wire import decode, decode_error

__all__ = ["DID_NOT_RUN", "judge_cell"]

DID_NOT_RUN = "this test did not run (no result arrived from the notebook)"


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
    score = round(min(max(score, 0.0), max_points), 2)
    kept.append({"output_type": "stream", "name": "stdout", "text": "\n".join(lines) + "\n"})
    kept.append({"output_type": "execute_result", "execution_count": cell.get("execution_count"),
                 "metadata": {}, "data": {"text/plain": repr(score)}})
    from nbformat import from_dict

    cell.outputs = [from_dict(o) for o in kept]
    return score
