"""The instructor's solution of a problem set's exact items, run on one student's numbers.

Runs, in one namespace and in notebook order, the identity cell (with the student's id),
the numbers cell, and just the cells the exact answers need (found from the names each
cell defines and uses), with the solution markers removed: what a student typing in the
instructor's solution would compute, in a fraction of the time of the whole notebook.
They run as :func:`tests.support.handin_functions.notebook_state_kept` runs a notebook's
cells: in its folder, what they set for the whole process put back afterwards, figures not
laid out and closed after each student.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import io

from kit.intake.submitted import solution_text
from tests.support.handin_functions import notebook_state_kept
from tests.support.nbgrading import nb_meta, read_source
from tests.support.pasting import _EXACT_CALL


def _names(tree) -> tuple[set[str], set[str]]:
    """(names the cell binds at top level, names it reads)."""
    bound, used = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (bound if isinstance(node.ctx, ast.Store) else used).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
    return bound, used


@functools.cache
def _plan(ps: str):
    """(cells to run in order, {answer name: expression}) for problem set ``ps``."""
    cells, exact = [], {}
    for cell in read_source(ps).cells:
        meta = nb_meta(cell)
        if cell.cell_type != "code":
            continue
        if meta.get("grade") and not meta.get("solution"):
            exact.update((n, e.strip()) for n, e in _EXACT_CALL.findall(cell.source))
            continue
        source = solution_text(cell.source)
        if "STUDENT_ID = " in source and meta.get("grade_id", "student_id") == "student_id":
            source = "STUDENT_ID = __student__"
        try:
            tree = ast.parse(source)
        except SyntaxError:  # IPython magics: not needed by exact answers
            continue
        cells.append((source, *_names(tree)))
    wanted = {e.split("[")[0] for e in exact.values()} | {"N", "VARIANT_ID"}
    keep = [False] * len(cells)
    for i in range(len(cells) - 1, -1, -1):
        source, bound, used = cells[i]
        if bound & wanted or "STUDENT_ID" in bound:
            keep[i] = True
            wanted |= used
    chosen = [compile(c[0], f"{ps} cell {i}", "exec") for i, c in enumerate(cells) if keep[i]]
    return chosen, exact


def solution_values(ps: str, student: str) -> dict:
    """``{answer name: value}`` the source solution computes for ``student``."""
    code, exact = _plan(ps)
    space = {"__student__": student}
    with contextlib.redirect_stdout(io.StringIO()), notebook_state_kept(ps):
        for block in code:
            exec(block, space)  # noqa: S102 - the instructor's own notebook
        return {name: eval(expr, space) for name, expr in exact.items()}

