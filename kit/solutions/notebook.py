"""One student's worked solution: the source notebook on their numbers, run, with nothing hidden.

:func:`solution_notebook` takes ``source/<ps>/<ps>.ipynb`` and keeps the lesson, the worked
examples, the solution code and the visible checks; it drops what the release drops and more:
every hidden test (``### BEGIN HIDDEN TESTS`` ... ``END``), mark schemes, nbgrader's cell
metadata. The identity cell holds the student's id, so the numbers cell draws their numbers
(as on the hub and when grading), and each exact answer cell ends by printing its answers.
:func:`run` executes it in the grading sandbox (``kpca-sandbox``: no course files, no grading
secret, no network; only ``KPCA_STUDENT_ID`` comes in), so every figure and answer is the
student's own. :func:`answers_only` then puts back the release's cells for the code and
written answers and clears every output computed from them (see :mod:`.schedule` for when).
"""

from __future__ import annotations

import ast
import copy
import functools
import os
import re
import tempfile
import threading

from kit.judge.plan import planned_entries

__all__ = ["answers_only", "cell_kinds", "run", "solution_notebook"]

_HIDDEN = re.compile(r"^[ \t]*### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS[^\n]*(\n|$)",
                     re.DOTALL | re.MULTILINE)
_MARK_SCHEME = re.compile(r"^[ \t]*=== BEGIN MARK SCHEME ===.*?=== END MARK SCHEME ===[^\n]*(\n|$)",
                          re.DOTALL | re.MULTILINE)
_MARKER = re.compile(r"^[ \t]*#{3} (BEGIN|END) SOLUTION[ \t]*\n?", re.MULTILINE)
#: text that only the hidden tests carry: none of it may be left in a solution
_GRADER_WORDS = ("HIDDEN TESTS", "MARK SCHEME", "kpca_probe", "_grading.", "run_hidden")
_IDENTITY = re.compile(r'^STUDENT_ID = ""[ \t]*$', re.MULTILINE)
#: kinds of cells (:func:`cell_kinds`)
EXACT, CODE, OTHER = "exact", "code", "other"


def _meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def _roots(expression: str) -> str:
    return re.match(r"[A-Za-z_]\w*", expression.strip()).group(0)


def cell_kinds(nb) -> list[tuple[str, list[str], str | None]]:
    """Per cell ``(kind, names, grade_id)``: ``exact`` for an answer cell assigning a value the hidden
    tests grade with ``grade_exact`` (names: those values), ``code`` for every other answer
    cell (a function, a written answer: the same for every student; names: what it defines),
    ``other`` for the rest."""
    exact, graded = set(), set()
    for cell in nb.cells:
        if cell.cell_type == "code" and _meta(cell).get("grade") and "HIDDEN TESTS" in cell.source:
            for kind, _, expression, _ in planned_entries(cell.source):
                (exact if kind == "grade_exact" else graded).add(_roots(expression))
    kinds = []
    for cell in nb.cells:
        gid = _meta(cell).get("grade_id")
        if not _meta(cell).get("solution"):
            kinds.append((OTHER, [], gid))
            continue
        if cell.cell_type != "code":
            kinds.append((CODE, [], gid))
            continue
        tree = _parse(_MARKER.sub("", cell.source))
        defined = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
        assigned = [t.id for n in tree.body if isinstance(n, (ast.Assign, ast.AnnAssign))
                    for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                    if isinstance(t, ast.Name)]
        answers = [a for a in dict.fromkeys(assigned) if a in exact]
        if answers and not set(defined) & graded:
            kinds.append((EXACT, answers, gid))
        else:
            kinds.append((CODE, defined + assigned, gid))
    return kinds


def solution_notebook(source_nb, student: str):
    """The worked solution of ``student`` (not run yet), and its :func:`cell_kinds`."""
    nb = copy.deepcopy(source_nb)
    kinds = cell_kinds(nb)
    for cell, (kind, names, _) in zip(nb.cells, kinds):
        text = _MARK_SCHEME.sub("", _HIDDEN.sub("", cell.source))
        text = _MARKER.sub("", text) if _meta(cell).get("solution") else text
        if cell.cell_type == "code" and _IDENTITY.search(text):
            text = _IDENTITY.sub(lambda _: f"STUDENT_ID = {student!r}", text)
        if kind == EXACT:
            shown = "".join(f"print({n!r}, '=', {n})\n" for n in names)
            text = text.rstrip("\n") + "\n\n# Your answers, worked on your numbers:\n" + shown.rstrip("\n")
        cell.source = text.rstrip("\n") if cell.cell_type == "code" else text
        cell.metadata.pop("nbgrader", None)
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
        left = [w for w in _GRADER_WORDS if w in cell.source]
        if left:
            raise ValueError(f"a cell of the solution still holds grader text {left}: got {cell.source[:80]!r}")
    nb.metadata.pop("nbgrader", None)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb, kinds


def _execute_step():
    """:class:`kit.sandbox.execute.SandboxedExecute` that names the student to the kernel.

    The kernel gets ``KPCA_STUDENT_ID`` in the environment it is started with (never this
    process's own, so several students can run at once) and no ``KPCA_NUMBERS_FROM_LOGIN``
    or ``JUPYTERHUB_USER``: the numbers cell draws that student's numbers.
    """
    from nbclient.util import run_sync
    from traitlets import Unicode

    from kit.sandbox.execute import SandboxedExecute

    class SolutionExecute(SandboxedExecute):
        student = Unicode("")

        async def async_start_new_kernel(self, **kwargs):
            env = dict(kwargs.pop("env", None) or os.environ)
            for name in ("KPCA_NUMBERS_FROM_LOGIN", "JUPYTERHUB_USER"):
                env.pop(name, None)
            env["KPCA_STUDENT_ID"] = self.student
            return await super().async_start_new_kernel(env=env, **kwargs)

        start_new_kernel = run_sync(async_start_new_kernel)

    return SolutionExecute


def run(nb, student: str, kernel: str | None = None, timeout: int = 120):
    """Execute ``nb`` in the grading sandbox (``kernel``: another kernelspec, for tests of
    this module only) in an empty folder; ValueError naming the first cell that failed."""
    step = _execute_step()(timeout=timeout, allow_errors=True, interrupt_on_timeout=True,
                           student=student)
    if kernel:
        step.kernel_name = kernel
    with tempfile.TemporaryDirectory(prefix="kpca-solution-") as folder:
        nb, _ = step.preprocess(nb, {"metadata": {"path": folder}})
    for index, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                raise ValueError(f"the worked solution of {student!r} failed in cell {index}: "
                                 f"{out.get('ename')}: {str(out.get('evalue'))[:200]}")
    return nb


def _references(cell, names: set) -> bool:
    if cell.cell_type != "code" or not names:
        return False
    used = _names_used(cell.source)
    return used is None or not used.isdisjoint(names)


#: solutions are built on several threads, and CPython 3.11's ``ast.parse`` is not safe on
#: two threads at once ("AST constructor recursion depth mismatch", CPython gh-106905): the
#: builders hold it around every step that parses (:func:`solution_notebook`,
#: :func:`answers_only`, which also parse through :mod:`kit.judge.plan`)
PARSING = threading.RLock()


def _parse(source: str) -> ast.Module:
    with PARSING:
        return ast.parse(source)


@functools.lru_cache(maxsize=256)
def _names_used(source: str) -> frozenset[str] | None:
    """The names a cell's code reads or writes (``None``: it does not parse); cached, as the
    cells are the same for every student of a problem set (the numbers cell is 14-68 KB)."""
    try:
        tree = _parse(source)
    except SyntaxError:
        return None
    return frozenset(n.id for n in ast.walk(tree) if isinstance(n, ast.Name))


def answers_only(nb, kinds, release_nb):
    """``nb`` (run) with the code and written answers as the release has them, and every
    other output computed from that code cleared; the exact answers stay worked."""
    nb = copy.deepcopy(nb)
    stubs = {_meta(c).get("grade_id"): c for c in release_nb.cells if _meta(c).get("solution")}
    code_names = {n for kind, names, _ in kinds if kind == CODE for n in names}
    for cell, (kind, _, gid) in zip(nb.cells, kinds):
        if kind == CODE:
            stub = stubs.get(gid)
            if stub is None:
                raise ValueError(f"the release has no answer cell {gid!r} to stand for the code "
                                 "answer: release the problem set again (python -m kit.release)")
            cell.source = stub.source
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
        elif kind == OTHER and _references(cell, code_names):
            cell.outputs, cell.execution_count = [], None
    return nb
