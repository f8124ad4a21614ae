"""The contract functions a hand-in of ``tests/submissions`` defines, run in this process.

The pipeline tests grade each hand-in once, under one student's hidden inputs. To see that
the same code earns the same groups under any student's inputs, the grading tests call the
hand-in's functions directly: the source notebook's code cells run in order with the hand-in's
answer cells (the solution elsewhere), leaving out the test cells and the cells that only
compute or plot (no ``def`` and no ``import``). What the cells set for the whole process
(numpy's print options and error handling, warning filters, random states, matplotlib's
settings, the working folder) is put back afterwards, so later tests in the same process
(the doctests of ``kpca_ref`` print arrays) see none of it. Figures the cells draw are not
laid out (:func:`no_layout`).
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import warnings

from kit.course import REPO_ROOT
from kit.intake.submitted import solution_text
from kpca_ref.grading import cases
from tests.support.nbgrading import nb_meta, read_source, variants


def _runs(cell) -> bool:
    meta = nb_meta(cell)
    return cell.cell_type == "code" and not (meta.get("grade") and not meta.get("solution"))


@contextlib.contextmanager
def no_layout():
    """Figures skip ``tight_layout`` (``plt.tight_layout`` and ``fig.tight_layout``): it moves
    axes and computes no value, and it was most of the CPU of running a notebook's cells here
    (0.64 of ps2's 0.76 CPU s a student)."""
    from matplotlib.figure import Figure

    real = Figure.tight_layout
    Figure.tight_layout = lambda self, *args, **kwargs: None
    try:
        yield
    finally:
        Figure.tight_layout = real


@contextlib.contextmanager
def notebook_state_kept(assignment: str):
    """Run a source notebook's cells in this process: in its folder, with what they set for
    the whole process (numpy's print options, error handling and random state, Python's random
    state, warning filters, matplotlib's settings and figures, the working folder) put back
    afterwards."""
    import matplotlib
    import numpy as np

    matplotlib.use("Agg")
    here, np_state, py_state = os.getcwd(), np.random.get_state(), random.getstate()
    os.chdir(REPO_ROOT / "source" / assignment)
    try:
        with (np.printoptions(**np.get_printoptions()), np.errstate(**np.geterr()),
              warnings.catch_warnings(), matplotlib.rc_context(), no_layout()):
            yield
    finally:
        os.chdir(here)
        np.random.set_state(np_state)
        random.setstate(py_state)
        import matplotlib.pyplot as plt

        plt.close("all")


def handin_functions(assignment: str, cells: dict[str, str]) -> dict:
    """``{contract name: function}`` defined by the notebook with ``cells`` typed in."""
    namespace: dict = {}
    with notebook_state_kept(assignment):
        for cell in filter(_runs, read_source(assignment).cells):
            gid = nb_meta(cell).get("grade_id")
            code = cells[gid] if gid in cells else solution_text(cell.source)
            if "def " not in code and "import" not in code:
                continue
            with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(Exception):
                exec(compile(code, f"<{assignment}:{gid}>", "exec"), namespace)  # noqa: S102
    return {name: fn for name, fn in namespace.items()
            if name in cases.names() and callable(fn) and hasattr(fn, "__code__")
            and fn.__code__.co_filename.startswith(f"<{assignment}:")}


def handins(assignment: str) -> dict[str, dict[str, str]]:
    """``{name: answer cells}`` of the hand-ins of ``assignment``, the solution included."""
    return {"solution": {}, **{name: v["cells"] for name, v in variants(assignment).items()}}


def _bound_names(code: str) -> set[str] | None:
    """The names a hand-in's answer cell binds at top level, or ``None`` when the cell does
    more than define functions and import (a statement that runs something, a decorator, a
    class body) or does not parse: such a cell may change what any function does."""
    import ast

    try:
        tree = ast.parse(solution_text(code))
    except (SyntaxError, ValueError):
        return None
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not node.decorator_list:
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
            return None
    return names


def _global_names(fn, namespace: dict) -> set[str]:
    """Every name ``fn`` may read from the notebook's namespace, through the notebook's own
    functions it may call (a superset: attribute names count too)."""
    seen: set[str] = set()
    todo = [fn.__code__]
    while todo:
        code = todo.pop()
        todo += [c for c in code.co_consts if hasattr(c, "co_names")]
        for name in code.co_names:
            if name not in seen:
                seen.add(name)
                other = namespace.get(name)
                if callable(other) and hasattr(other, "__code__"):
                    todo.append(other.__code__)
    return seen


def as_in_the_solution(assignment: str, cells: dict[str, str], fname: str,
                       solution: dict) -> bool:
    """Whether the hand-in's ``fname`` is the solution's own, in code and in everything it
    reads: the hand-in's cells only define functions and import, and none of the names they
    bind is ``fname`` or a name ``fname`` may reach. Its grading is then the solution's."""
    bound: set[str] = set()
    for code in cells.values():
        names = _bound_names(code)
        if names is None:
            return False
        bound |= names
    fn = solution.get(fname)
    if fn is None:
        return False
    return fname not in bound and bound.isdisjoint(_global_names(fn, fn.__globals__))
