"""The contract functions a hand-in of ``tests/submissions`` defines, run in this process.

The pipeline tests grade each hand-in once, under one student's hidden inputs. To see that
the same code earns the same groups under any student's inputs, the grading tests call the
hand-in's functions directly: the source notebook's code cells run in order with the hand-in's
answer cells (the solution elsewhere), leaving out the test cells and the cells that only
compute or plot (no ``def`` and no ``import``). What the cells set for the whole process
(numpy's print options and error handling, warning filters, random states, matplotlib's
settings, the working folder) is put back afterwards, so later tests in the same process
(the doctests of ``kpca_ref`` print arrays) see none of it.
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
              warnings.catch_warnings(), matplotlib.rc_context()):
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
