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

Forbidden shortcuts: a test cell scores 0, with a ``[diagnosis: forbidden_import]`` line,
when the student's code of its part (the answer and added cells since the previous test
cell) imports ``kpca_ref`` or scikit-learn's ``KernelPCA``/``KernelCenterer``, or uses a
name that code bound from them (directly or through a function or variable built on them,
anywhere in the notebook). See :func:`forbidden_parts`.

Limits: each notebook's test cells are judged in a forked child under a time and memory
limit (:mod:`kit.judge_limits`); a cell over a limit scores 0 with a line saying why.
"""

from __future__ import annotations

import ast
import functools
import os
import re

from nbgrader.preprocessors import NbGraderPreprocessor

import kpca_probe
from kit import judge_limits
from kpca_probe.wire import decode, decode_error

__all__ = ["JudgeHiddenTests", "WriteCases", "forbidden_parts", "judge_cell", "planned_calls"]

_HIDDEN = re.compile(r"### BEGIN HIDDEN TESTS\n?(.*?)### END HIDDEN TESTS", re.DOTALL)
FORBIDDEN_MODULES = ("kpca_ref",)
FORBIDDEN_NAMES = ("KernelPCA", "KernelCenterer")
FORBIDDEN_LINE = ("✗ this part uses the reference implementation (kpca_ref) or scikit-learn's "
                  "KernelPCA/KernelCenterer: not allowed, it earns nothing "
                  "[diagnosis: forbidden_import]")
DID_NOT_RUN = "this test did not run (no result arrived from the notebook)"


def _meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def is_test_cell(cell) -> bool:
    """An auto-graded test cell: code, ``grade`` and not ``solution``."""
    return cell.cell_type == "code" and bool(_meta(cell).get("grade")) and not _meta(cell).get(
        "solution")


def is_student_code(cell) -> bool:
    """Code the student wrote: answer cells and cells the student added (not locked)."""
    meta = _meta(cell)
    return cell.cell_type == "code" and not is_test_cell(cell) and (
        meta.get("solution") or not meta.get("locked"))


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


def _judge_exact(name: str, points: float, payload) -> tuple[float, list[str]]:
    from kpca_ref.grading import harness

    if payload is None:
        return 0.0, [harness.line(False, name, DID_NOT_RUN)]
    with harness._silenced():
        verdict = harness.judge_exact(name, decode(payload.get("value")))
    return (float(points) if verdict.ok else 0.0,
            [harness.line(verdict.ok, name, verdict.message, verdict.code)])


def judge_cell(cell, forbidden: bool = False) -> float:
    """Score one test cell outside the kernel and rewrite its outputs; returns the score."""
    from kpca_ref.grading import harness

    max_points = float(_meta(cell).get("points", 0))
    try:
        plan = planned_calls(cell.source)
    except (SyntaxError, ValueError):
        plan = None
    found = payloads(cell)
    errored = any(o.get("output_type") == "error" for o in cell.get("outputs", []))
    kept = []
    for out in cell.get("outputs", []):
        kind = out.get("output_type")
        if kind == "stream":
            kept.append({"output_type": "stream", "name": "stdout", "text": out.get("text", "")})
        elif kind == "error":
            kept.append(out)
    lines, score = [], 0.0
    if plan is None or not plan:
        lines.append("✗ this test cell could not be graded (no hidden test found); "
                     "please tell your instructor")
    elif forbidden:
        lines.append(FORBIDDEN_LINE)
    elif errored:
        lines.append("✗ this test cell stopped with an error (see above), so its hidden "
                     "tests earn nothing")
    else:
        for kind, name, points in plan:
            payload = found.get((kind, name))
            try:
                judge = _judge_grade if kind == "grade" else _judge_exact
                earned, more = judge(name, points, payload)
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


# ------------------------------------------------------------------ forbidden shortcuts
def _parse(source: str):
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        source = TransformerManager().transform_cell(source)
    except Exception:  # noqa: BLE001, S110 - fall back to the raw text
        pass
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


def _is_forbidden_module(name: str) -> bool:
    return name.split(".")[0] in FORBIDDEN_MODULES


def _scan(tree) -> tuple[bool, set[str], set[str]]:
    """(uses a forbidden thing directly, names used, names bound at top level)."""
    direct, used, bound = False, set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _is_forbidden_module(alias.name):
                    direct = True
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            names = {a.name for a in node.names}
            if _is_forbidden_module(module) or (
                    module.startswith("sklearn") and (names & set(FORBIDDEN_NAMES) or "*" in names
                                                      and module.split(".")[-1] in (
                                                          "decomposition", "preprocessing"))):
                direct = True
        elif isinstance(node, ast.Attribute) and node.attr in FORBIDDEN_NAMES:
            direct = True
        elif isinstance(node, ast.Name):
            used.add(node.id)
            if node.id in FORBIDDEN_NAMES:
                direct = True
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and any(
                m in node.value for m in FORBIDDEN_MODULES):
            direct = True
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        else:
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    bound.add(sub.id)
    return direct, used, bound


def forbidden_parts(nb) -> set[int]:
    """Indices of the test cells whose part uses a forbidden shortcut.

    A student cell is tainted when it imports ``kpca_ref`` or sklearn's KernelPCA /
    KernelCenterer (or names them), or uses a name bound by a tainted cell; the names a
    tainted cell binds are tainted in turn, until nothing changes. A test cell is then
    zeroed when any student cell of its part (since the previous test cell) is tainted.
    """
    scans = {}
    for index, cell in enumerate(nb.cells):
        if is_student_code(cell):
            tree = _parse(cell.source)
            if tree is not None:
                scans[index] = _scan(tree)
    tainted_cells, tainted_names = set(), set()
    changed = True
    while changed:
        changed = False
        for index, (direct, used, bound) in scans.items():
            if index not in tainted_cells and (direct or used & tainted_names):
                tainted_cells.add(index)
                tainted_names |= bound
                changed = True
    zeroed, part_tainted = set(), False
    for index, cell in enumerate(nb.cells):
        if index in tainted_cells:
            part_tainted = True
        if is_test_cell(cell):
            if part_tainted:
                zeroed.add(index)
            part_tainted = False
    return zeroed


# ------------------------------------------------------------------ the two preprocessors
def _case_path(resources) -> str:
    folder = (resources.get("metadata") or {}).get("path") or os.getcwd()
    return os.path.join(folder, kpca_probe.CASE_FILE)


def case_inputs(names) -> dict:
    """``{name: [[calls of each case] per group]}``: the inputs only, for the kernel."""
    from kpca_ref.grading import cases

    return {name: [[case.calls() for case in group.cases] for group in cases.groups(name)]
            for name in names}


class WriteCases(NbGraderPreprocessor):
    """Before ``Execute``: write the hidden case inputs next to the notebook."""

    def preprocess(self, nb, resources):
        import pickle

        names = []
        for cell in nb.cells:
            if is_test_cell(cell):
                try:
                    names += [n for kind, n, _ in planned_calls(cell.source) if kind == "grade"]
                except (SyntaxError, ValueError):
                    continue
        with open(_case_path(resources), "wb") as fh:
            pickle.dump(case_inputs(dict.fromkeys(names)), fh)
        return nb, resources


class JudgeHiddenTests(NbGraderPreprocessor):
    """After ``Execute``: score every auto-graded test cell outside the kernel."""

    def preprocess(self, nb, resources):
        try:
            os.remove(_case_path(resources))
        except OSError:
            pass
        zeroed = forbidden_parts(nb)
        jobs = []  # (cell, how to judge it): run below under time and memory limits
        for index, cell in enumerate(nb.cells):
            if is_test_cell(cell):
                jobs.append((cell, functools.partial(judge_cell, forbidden=index in zeroed)))
            elif cell.cell_type == "code":  # probe results elsewhere are forgeries: drop them
                cell.outputs = [o for o in cell.get("outputs", [])
                                if kpca_probe.MIME not in o.get("data", {})]
        judge_limits.run_bounded(jobs)  # kit/judge_limits.py: a forked child per notebook
        return nb, resources
