"""Forbidden shortcuts: parts whose code uses the reference or scikit-learn's estimators.

A diagnosis only: graded kernels cannot import those packages at all (kit/sandbox/kernelenv.py), so
the part's own tests decide its score. A test cell gets a ``[diagnosis: forbidden_import]``
line when the student's code of its part (the answer and added cells since the previous test
cell) imports ``kpca_ref`` or scikit-learn's ``KernelPCA``/``KernelCenterer``, or uses a name
that code bound from them (directly or through a function or variable built on them,
anywhere in the notebook).
"""

from __future__ import annotations

import ast

from kit.judge.cells import is_student_code, is_test_cell

__all__ = ["FORBIDDEN_LINE", "FORBIDDEN_MODULES", "FORBIDDEN_NAMES", "forbidden_parts"]

FORBIDDEN_MODULES = ("kpca_ref",)
FORBIDDEN_NAMES = ("KernelPCA", "KernelCenterer")
FORBIDDEN_LINE = ("✗ this part uses the reference implementation (kpca_ref) or scikit-learn's "
                  "KernelPCA/KernelCenterer, which graded notebooks cannot import "
                  "[diagnosis: forbidden_import]")


#: per notebook, what the scan spends on cells that are not plain Python: characters
#: tokenised, and logical lines rewritten from IPython syntax (IPython itself refuses a cell
#: needing over 500 rewrites: it never runs). Past either, the rest of the notebook's such
#: cells are not read: the scan is a diagnosis only (the kernel cannot import those packages
#: whatever the scan reads), so a notebook gains nothing by it and costs a bounded time
IPYTHON_BUDGET = {"characters": 32_000, "rewrites": 500}
_MAGIC = ("!", "%", "?")


class _OverBudget(Exception):
    pass


def _parse(source: str, budget: dict):
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # null bytes, deep nesting
        pass
    try:
        return ast.parse(ipython_source(source, budget))
    except Exception:  # noqa: BLE001 - not Python even so, or over the budget
        return None


def ipython_source(cell: str, budget: dict | None = None) -> str:
    """``cell`` as IPython's input transformers turn it into Python, in linear time.

    IPython's ``TransformerManager.transform_cell`` tokenises the whole cell again after
    each piece of IPython syntax it rewrites (``x = !ls``, ``%time``, ``x?``), so a cell of
    many such lines costs time in the square of its length. Here the cell is tokenised once
    and split into its logical lines; each line holding ``!``, ``%`` or ``?`` is rewritten on
    its own (those rewrites never reach past one logical line), after the cell-wide cleanups
    (prompts, indent, ``%%``). ``budget`` (``{"characters": n, "rewrites": n}``, spent
    here) stops it with an exception once spent.

    >>> ipython_source("x = !ls\\nimport kpca_ref\\n")
    "x = get_ipython().getoutput('ls')\\nimport kpca_ref\\n"
    """
    from IPython.core.inputtransformer2 import TransformerManager, make_tokens_by_line

    budget = budget if budget is not None else {"characters": len(cell) + 1, "rewrites": 10**9}
    budget["characters"] -= len(cell)
    if budget["characters"] < 0 or budget["rewrites"] <= 0:
        raise _OverBudget("spent")
    manager = TransformerManager()
    lines = (cell if cell.endswith("\n") else cell + "\n").splitlines(keepends=True)
    for transform in manager.cleanup_transforms + manager.line_transforms:
        lines = transform(lines)
    starts = sorted({min(t.start[0] for t in group) - 1
                     for group in make_tokens_by_line(lines) if group} | {0})
    out = []
    for first, end in zip(starts, starts[1:] + [len(lines)]):
        group = lines[first:end]
        if any(mark in line for line in group for mark in _MAGIC):
            budget["rewrites"] -= 1
            if budget["rewrites"] < 0:
                raise _OverBudget("rewrites")
            group = manager.do_token_transforms(group)
        out += group
    return "".join(out)


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
    scans, budget = {}, dict(IPYTHON_BUDGET)
    for index, cell in enumerate(nb.cells):
        if is_student_code(cell):
            tree = _parse(cell.source, budget)
            if tree is not None:
                scans[index] = _scan(tree)
    tainted_cells = {index for index, (direct, _, _) in scans.items() if direct}
    users: dict[str, list[int]] = {}
    for index, (_, used, _) in scans.items():
        for name in used:
            users.setdefault(name, []).append(index)
    tainted_names, todo = set(), list(tainted_cells)
    while todo:  # each cell and each name is taken up once: linear in the notebook
        for name in scans[todo.pop()][2] - tainted_names:
            tainted_names.add(name)
            for index in users.get(name, []):
                if index not in tainted_cells:
                    tainted_cells.add(index)
                    todo.append(index)
    zeroed, part_tainted = set(), False
    for index, cell in enumerate(nb.cells):
        if index in tainted_cells:
            part_tainted = True
        if is_test_cell(cell):
            if part_tainted:
                zeroed.add(index)
            part_tainted = False
    return zeroed
