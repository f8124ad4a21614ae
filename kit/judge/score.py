"""Scoring one test cell outside the kernel, from the results the probe sent.

:func:`judge_cell` takes an auto-graded test cell after ``Execute`` (its source the
instructor's again, so its plan is :func:`kit.judge.plan.planned_calls`), decodes the
probe's results (:func:`kit.judge.plan.payloads`, :mod:`kpca_probe.wire`) into plain values
and compares them with ``kpca_ref`` here, where the student's code never ran. A call
without results scores 0 (:data:`DID_NOT_RUN`); exact answers are judged on the numbers of
the submission's student (:class:`kit.judge.identity.Identity`). The cell's outputs are then
replaced: everything the kernel produced is dropped (it may be forged) but the grader's
own truncation notes and the visible checks' error (as :func:`kit.judge.cells.visible_error`
shows it: 0 for the cell), the judge's lines are appended (student text they quote made
inert by :func:`own_line`) and an ``execute_result`` carries the score, which nbgrader's
``SaveAutoGrades`` records as partial credit, and in its metadata the judge's record of
diagnoses (:data:`kit.judge.cells.JUDGE_KEY`), which the class report counts.
"""

from __future__ import annotations

from kit.inert import student_words
from kit.judge.cells import JUDGE_KEY, _meta, grader_notes, visible_error
from kit.judge.forbidden import FORBIDDEN_LINE
from kit.judge.identity import Identity, numbers_text
from kit.judge.plan import payloads, planned_calls
from kpca_probe.wire import decode, decode_error

__all__ = ["DID_NOT_RUN", "JUDGE_KEY", "judge_cell", "own_line"]

DID_NOT_RUN = "this test did not run (no result arrived from the notebook)"


def own_line(line: str, code: str | None) -> str:
    """One of the judge's lines with whatever student text it quotes made inert.

    The judge's lines quote what the student's code sent (an error's message, a type's
    name): that text is put on one line, bounded, and loses any ``✓``/``✗`` mark or
    ``[diagnosis:`` tag (:func:`kit.inert.student_words`); only the judge's own mark in
    front and its own ``code`` at the end stay as they are.

    >>> own_line("✗ g: raised E: x\\n✓ ok [diagnosis: forbidden_import]", None)
    '✗ g: raised E: x (mark) ok (diagnosis: forbidden_import]'
    """
    mark = line[:2] if line[:2] in ("✓ ", "✗ ") else ""
    body, tail = line[len(mark):], f" [diagnosis: {code}]" if code else ""
    if tail and body.endswith(tail):
        body = body[:-len(tail)]
    return mark + student_words(body, limit=4000) + tail


def _judge_grade(name: str, points: float, payload,
                 groups: list | None = None) -> tuple[float, list[str], list]:
    from kpca_ref.grading import cases, harness

    if payload is None:
        return 0.0, [harness.line(False, name, DID_NOT_RUN)], [None]
    if "not_callable" in payload:
        return 0.0, [harness.line(False, name, "expected a function, got "
                                  f"{student_words(payload['not_callable'], 60)}")], [None]
    sent = payload.get("groups") if isinstance(payload.get("groups"), list) else []

    def outcome_of(gi, ci, case):
        try:
            data = sent[gi][ci]
        except (IndexError, TypeError, KeyError):
            return None
        if not isinstance(data, dict):
            return None
        if "raised" in data and isinstance(data["raised"], dict):
            raised = data["raised"]
            bases = raised.get("bases") if isinstance(raised.get("bases"), list) else []
            error = decode_error({"bases": bases[:8],
                                  "message": student_words(raised.get("message", ""))})
            return ("raised", error, student_words(raised.get("raised", ""), 60))
        if isinstance(data.get("ok"), list) and len(data["ok"]) == len(case.calls()):
            return ("ok", [decode(v) for v in data["ok"]])
        return None

    codes: list = []
    with harness._silenced(), harness._one_blas_thread():
        earned, lines = harness.judge_groups(
            name, points, cases.groups(name) if groups is None else groups, outcome_of, codes)
    return earned, lines, codes + [None] * (len(lines) - len(codes))


def _judge_exact(name: str, points: float, payload, who: Identity | None = None,
                 show_expected: bool = False) -> tuple[float, list[str], list]:
    from kpca_ref import variants
    from kpca_ref.grading import harness

    name = variants.current_name(name)  # an old gradebook's hidden test: the item's name now
    if payload is None:
        return 0.0, [harness.line(False, name, DID_NOT_RUN)], [None]
    if who is not None and who.typed_mismatch:
        return 0.0, [harness.line(False, name, who.mismatch_text(), "wrong_student_id")], [
            "wrong_student_id"]
    student = who.student if who is not None else None
    with harness._silenced():
        verdict = harness.judge_exact(name, decode(payload.get("value")), student)
    text = verdict.message
    if not verdict.ok and student is not None:
        text = f"{text}. {numbers_text(name, student, show_expected)}"
    earned, shown = (float(points) if verdict.ok else 0.0), harness.line(
        verdict.ok, name, text, verdict.code)
    if verdict.ok and who is not None:
        lost, why = who.check_penalty(name, float(points))
        earned, shown = earned - lost, f"{shown} ({why})" if lost else shown
    return earned, [shown], [verdict.code]


#: the longest exact answer (its wire data as JSON) the judge's record keeps for the copying
#: evidence (:mod:`kit.copying`); a longer one is recorded as ``None`` (honest ones are short)
ANSWER_LIMIT = 4000


def _judge_metadata(codes: list, who: Identity | None, answers: dict | None = None) -> dict:
    import json

    found = sorted({c for c in codes if c})
    meta: dict = {"diagnoses": found}
    if "wrong_student_id" in found and who is not None:
        meta["other_ids"] = sorted(who.typed - {who.student})
    if answers:  # the exact answers as the probe sent them: kit.copying compares them with keys
        meta["answers"] = {name: value if len(json.dumps(value)) <= ANSWER_LIMIT else None
                           for name, value in answers.items()}
    return meta


def judge_cell(cell, forbidden: bool = False, who: Identity | None = None,
               show_expected: bool = False, groups: dict | None = None) -> float:
    """Score one test cell outside the kernel and rewrite its outputs; returns the score.

    ``groups``: ``{name: case groups}`` the kernel's inputs were drawn from
    (:class:`kit.judge.preprocessors.WriteCases`, under the same salt); a name not in it has
    its groups built here."""
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
    lines, codes, score, answers = [], [], 0.0, {}
    if forbidden and plan:  # a diagnosis only: the kernel cannot import those anyway
        lines.append(FORBIDDEN_LINE)
        codes.append("forbidden_import")
    if plan is None or not plan:
        lines.append("✗ this test cell could not be graded (no hidden test found); "
                     "please tell your instructor")
        codes.append(None)
    elif errored:
        lines.append("✗ this test cell stopped with an error (see above), so its hidden "
                     "tests earn nothing")
        codes.append(None)
    else:
        for kind, name, points in plan:
            payload = found.get((kind, name))
            if kind != "grade" and isinstance(payload, dict) and "value" in payload:
                answers[name] = payload["value"]
            try:
                if kind == "grade":
                    earned, more, more_codes = _judge_grade(
                        name, points, payload, (groups or {}).get(name))
                else:
                    earned, more, more_codes = _judge_exact(name, points, payload, who,
                                                            show_expected)
            except Exception as exc:  # noqa: BLE001 - the judge failed: never a free pass
                earned, more, more_codes = 0.0, [harness.line(
                    False, name, f"could not be graded ({type(exc).__name__} in the grader); "
                                 "please tell your instructor")], [None]
            score += earned
            lines.extend(more)
            codes.extend(more_codes)
    score = round(min(max(score, 0.0), max_points), 2)
    text = "\n".join(own_line(line, code) for line, code in zip(lines, codes))
    kept.append({"output_type": "stream", "name": "stdout", "text": text + "\n"})
    kept.append({"output_type": "execute_result", "execution_count": cell.get("execution_count"),
                 "metadata": {JUDGE_KEY: _judge_metadata(codes, who, answers)},
                 "data": {"text/plain": repr(score)}})
    from nbformat import from_dict

    cell.outputs = [from_dict(o) for o in kept]
    return score
