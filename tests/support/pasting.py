"""Submissions that paste exact values instead of working them out.

:func:`pasted_cells` rewrites each exact-answer cell of a problem set so that it assigns
literal values: the lecture's answers (:func:`lecture_values`) or another student's correct
answers (:func:`student_values`). Everything else is the instructor's solution, so such a
submission must lose exactly the exact items.
"""

from __future__ import annotations

import ast
import re

import sympy as sp

from kit.intake.submitted import build_submission, solution_text
from kpca_ref import variants
from tests.support.nbgrading import nb_meta, read_source

_EXACT_CALL = re.compile(r'_grading\.grade_exact\(\s*"([^"]+)",\s*([^,]+?),\s*points=')


def exact_variables(ps: str) -> dict[str, str]:
    """``{answer name: notebook variable}`` of every exact item of ``ps``."""
    found = {}
    for cell in read_source(ps).cells:
        for name, expr in _EXACT_CALL.findall(cell.source):
            found[name] = expr.strip()
    return found


def literal(value) -> str:
    """Python source that rebuilds ``value`` exactly in a notebook (sympy imported)."""
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, bool) or value in (sp.true, sp.false):
        return "True" if bool(value) else "False"
    return f"__import__('sympy').sympify({str(value)!r})"


def student_values(ps: str, student: str) -> dict:
    return dict(variants.variant(ps, student).answers)


def lecture_values(ps: str) -> dict:
    mod = variants.module(ps)
    return dict(mod.answers(variants.lecture(ps)))


def pasted_cells(ps: str, values: dict) -> dict[str, str]:
    """``{answer cell grade_id: source}`` assigning ``values`` to the exact answers' names.

    An answer cell is rewritten when its solution assigns one of the exact variables
    (indexed names such as ``verdicts[0]`` count for ``verdicts``); it then assigns each
    of those variables its pasted value, and nothing else.
    """
    by_variable: dict[str, object] = {}
    for name, variable in exact_variables(ps).items():
        base, _, index = variable.partition("[")
        if index:
            by_variable.setdefault(base, {})[int(index.rstrip("]"))] = values[name]
        else:
            by_variable[variable] = values[name]
    cells = {}
    for cell in read_source(ps).cells:
        meta = nb_meta(cell)
        if not meta.get("solution") or cell.cell_type != "code":
            continue
        tree = ast.parse(solution_text(cell.source))
        assigned = [t.id for node in tree.body if isinstance(node, ast.Assign)
                    for t in node.targets if isinstance(t, ast.Name)]
        lines = []
        for variable in dict.fromkeys(assigned):
            if variable in by_variable:
                value = by_variable[variable]
                if isinstance(value, dict):
                    value = [value[i] for i in sorted(value)]
                lines.append(f"{variable} = {literal(value)}")
        if lines:
            cells[meta["grade_id"]] = "\n".join(lines)
    return cells


def pasted_submission(course, ps: str, values: dict):
    """The solution notebook of ``ps`` with the exact answers pasted from ``values``."""
    return build_submission(course, ps, pasted_cells(ps, values))
