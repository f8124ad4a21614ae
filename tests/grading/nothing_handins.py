"""Hand-ins that compute nothing, generated for every contract function.

Each one checks its input exactly as the reference does (``ValueError`` wherever the
reference raises), so it passes every stated-error group, and then answers without
computing: a constant of the result's type and shape, an argument handed back, or the
right answer looked up in a table of the inputs it could know beforehand (every visible
check of the notebooks, and every hidden input that is the same for all students), a
constant elsewhere. Such code must earn none of a function's points: no value group may
be answered by it, and so no error group opens (:mod:`kpca_ref.grading.error_groups`).
"""

from __future__ import annotations

import copy
import functools

import numpy as np
import sympy as sp

import kpca_ref
from kpca_ref.grading import cases
from tests.grading import reference_memory
from tests.support.nbgrading import nb_meta, read_source

__all__ = ["CONSTANTS", "known_inputs", "nothing_handins", "visible_inputs"]

#: the constants a hand-in may answer with
CONSTANTS = (0, 1, -1, 0.5, 2, 90)


def call_key(args, kwargs):
    """A call's fingerprint (:func:`tests.grading.reference_memory.call_key`); an object
    without an exact one is known by its ``repr``."""
    return reference_memory.call_key(args, kwargs, strict=False)


def shaped(result, c):
    """``result`` with every number replaced by ``c`` (same type, shape and dtype)."""
    if isinstance(result, (bool, np.bool_)):
        return bool(c)
    if isinstance(result, np.ndarray):
        if result.dtype == bool:
            return np.full(result.shape, bool(c))
        dtype = result.dtype if np.issubdtype(result.dtype, np.inexact) else float
        return np.full(result.shape, c, dtype=dtype)
    if isinstance(result, sp.MatrixBase):
        return sp.Matrix(result.rows, result.cols, [sp.nsimplify(c)] * (result.rows * result.cols))
    if isinstance(result, sp.Basic):
        return sp.nsimplify(c)
    if isinstance(result, tuple):
        return tuple(shaped(r, c) for r in result)
    if isinstance(result, list):
        return [shaped(r, c) for r in result]
    if isinstance(result, (int, np.integer)):
        return int(c)
    if isinstance(result, (float, np.floating)):
        return float(c)
    return c


def _eye(result):
    """Ones on the diagonal of a matrix result (distinct points, for a point set)."""
    if isinstance(result, np.ndarray) and result.ndim == 2:
        return np.eye(*result.shape)
    if isinstance(result, sp.MatrixBase):
        return sp.eye(result.rows, result.cols)
    return shaped(result, 1)


def _answers(name: str) -> dict:
    """``{label: answer(args, kwargs, result)}``: the ways of answering without computing."""
    ways = {f"{c!r} of the result's shape": functools.partial(
        lambda args, kwargs, r, c: shaped(r, c), c=c) for c in CONSTANTS}
    ways.update({f"the plain number {c!r}": functools.partial(
        lambda args, kwargs, r, c: c, c=float(c)) for c in CONSTANTS})
    ways.update({f"{b}": functools.partial(lambda args, kwargs, r, b: b, b=b)
                 for b in (True, False)})
    ways["the identity matrix of the result's shape"] = lambda args, kwargs, r: _eye(r)
    for i, param in enumerate(cases.PARAMS[name]):
        def argument(args, kwargs, r, i=i, param=param):
            if i < len(args):
                return args[i]
            if param in kwargs:
                return kwargs[param]
            raise TypeError(f"no argument {param}")
        ways[f"the argument {param} itself"] = argument
    return ways


def nothing_handins(name: str, known: frozenset = frozenset()) -> dict:
    """``{label: function}``: the hand-ins of ``name`` that compute nothing.

    Every one validates with the reference (raising ``ValueError`` where it raises); each
    way of answering comes once alone and once behind a table of the ``known`` inputs
    (keys of :func:`call_key`), where it gives the reference's answer.
    """
    ref = getattr(kpca_ref, name)
    handins = {}
    for label, answer in _answers(name).items():
        for table in (frozenset(), known) if known else (frozenset(),):
            def handin(*args, _answer=answer, _table=table, **kwargs):
                try:
                    result = ref(*copy.deepcopy(args), **copy.deepcopy(kwargs))
                except Exception as exc:
                    raise ValueError("bad input") from exc
                if _table and call_key(args, kwargs) in _table:
                    return result
                return _answer(args, kwargs, result)
            handins[label + (", a table elsewhere" if table else "")] = handin
    return handins


def visible_inputs(assignment: str) -> dict[str, set]:
    """``{contract name: {call keys}}`` of the calls the visible test cells of the source
    notebook make (their hidden part left out; the reference answers every call).

    Only a test cell's own calls count: what a demo or a plot computes, or what one
    contract function calls of another, comes from the student's own code, and code that
    computes nothing shows nothing there.
    """
    import contextlib
    import io

    from tests.support.handin_functions import notebook_state_kept

    seen: dict[str, set] = {}
    state = {"test cell": False, "depth": 0}

    def recorder(name):
        ref = getattr(kpca_ref, name)

        def record(*args, **kwargs):
            if state["test cell"] and not state["depth"]:
                seen.setdefault(name, set()).add(call_key(args, kwargs))
            state["depth"] += 1
            try:
                return ref(*args, **kwargs)
            finally:
                state["depth"] -= 1
        record.recorded = True
        return record

    namespace: dict = {}
    with notebook_state_kept(assignment):
        for cell in read_source(assignment).cells:
            if cell.cell_type != "code":
                continue
            code = cell.source.split("### BEGIN HIDDEN TESTS")[0]
            meta = nb_meta(cell)
            state["test cell"] = bool(meta.get("grade") and not meta.get("solution"))
            with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(Exception):
                exec(compile(code, f"<{assignment}>", "exec"), namespace)  # noqa: S102
            for fname in cases.names():
                fn = namespace.get(fname)
                if callable(fn) and not getattr(fn, "recorded", False):
                    namespace[fname] = recorder(fname)
    return seen


def fixed_inputs(name: str, salts) -> set:
    """Call keys of the hidden inputs of ``name`` that are the same for every student."""
    def keys():
        return {call_key(a, k) for g in cases.groups(name) for c in g.cases for a, k in c.calls()}

    found = keys()
    for salt in salts:
        with cases.salted(salt):
            found &= keys()
    return found


def known_inputs(name: str, visible: set, salts) -> frozenset:
    """What a student can know beforehand: the visible calls and the fixed hidden inputs."""
    return frozenset(visible | fixed_inputs(name, salts))


def trivial_answers(name: str, args, kwargs, result) -> dict:
    """``{label: answer}``: every answer to one call that needs no computing."""
    answers = {label: way(args, kwargs, result) for label, way in _answers(name).items()
               if _fits(way, args, kwargs)}
    answers["None"] = None
    if _guessable(result):  # e.g. (1, 0) for "all points inside", the zero vector
        answers["entries each a constant"] = result
    return answers


def _guessable(result) -> bool:
    """Whether every number of ``result`` is one of :data:`CONSTANTS` (or 180, or bool):
    code choosing each entry among constants by the input's look would give it."""
    if result is None or isinstance(result, (bool, np.bool_)):
        return False
    try:
        values = np.asarray(result if not isinstance(result, sp.MatrixBase) else
                            np.array(result.tolist()), dtype=object).ravel()
        numbers = [float(v) for v in values]
    except (TypeError, ValueError):
        return False
    return bool(numbers) and all(v in {*map(float, CONSTANTS), 180.0} for v in numbers)


def _fits(way, args, kwargs) -> bool:
    try:
        way(args, kwargs, None)
    except TypeError:
        return False
    return True
