"""What a test cell asks the kernel, and what the kernel sent back.

A test cell's hidden part (between nbgrader's ``### BEGIN/END HIDDEN TESTS``) is parsed with
``ast``, never run in the grader: :func:`planned_calls` lists its ``_grading.grade`` /
``grade_exact`` calls with their names and points, :func:`planned_entries` adds the source
of the value each call grades, and :func:`without_hidden_code` is the cell as the kernel
runs it (its hidden part becomes one call of the probe, :mod:`kpca_probe`). After the
kernel has run, :func:`payloads` collects the probe's results (display outputs of MIME type
``kpca_probe.MIME``, the first per call) for the judge (:mod:`kit.judge.score`).
"""

from __future__ import annotations

import ast

import kpca_probe
from kit.judge.cells import _HIDDEN

__all__ = ["payloads", "planned_calls", "planned_entries", "without_hidden_code"]


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
