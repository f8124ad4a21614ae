"""The only grading code that runs inside a student's kernel; it holds no answers.

A hidden test cell calls::

    import kpca_probe as _grading
    _grading.grade("centre_kernel", centre_kernel, points=4)

Under the autograder a case file (:data:`CASE_FILE`, written next to the notebook by
``kit.judge.preprocessors.WriteCases`` before the kernel starts) holds the hidden case INPUTS.
:func:`grade` calls the student's function on copies of them, and :func:`grade_exact`
takes the student's exact value; each emits one display output of MIME type :data:`MIME`
with the results as plain data (:mod:`kpca_probe.wire`) and returns 0.0. The score is
decided outside the kernel by ``kit.judge.preprocessors.JudgeHiddenTests``, which compares those results
with the reference and replaces the cell's outputs: nothing the student's code does in
the kernel (patched numpy, fake modules, forged outputs) changes the comparison.

Without a case file (an instructor running the source notebook, ``nbgrader validate``,
the notebook tests), the probe hands over to ``kpca_ref.grading``, which grades in the
kernel and prints its usual lines, so the source notebooks behave as they always did.
"""

from __future__ import annotations

import contextlib
import copy
import io
import os
import pickle
import warnings

from kpca_probe.wire import encode, encode_error

__all__ = ["CASE_FILE", "ENV_VAR", "MIME", "grade", "grade_exact", "run_hidden"]

#: file name of the case file, in the notebook's folder (the kernel's working directory)
CASE_FILE = ".kpca_probe_cases.pickle"
#: environment variable naming another case file path (takes precedence)
ENV_VAR = "KPCA_PROBE_CASES"
#: MIME type of the results each grading call emits
MIME = "application/vnd.kpca-probe+json"

_LOADED: dict = {}


def _case_file() -> str:
    return os.environ.get(ENV_VAR) or CASE_FILE


def _case_data():
    """The case file's content ``{"cases": ..., "plan": ...}``, or None without one."""
    path = _case_file()
    if not os.path.exists(path):
        return None
    stamp = (path, os.path.getmtime(path))
    if _LOADED.get("stamp") != stamp:
        with open(path, "rb") as fh:
            _LOADED["data"] = pickle.load(fh)  # the grader's own file
        _LOADED["stamp"] = stamp
    return _LOADED["data"]


def _cases():
    """The case inputs ``{name: [[[(args, kwargs), ...] per case] per group]}``, or None."""
    data = _case_data()
    return None if data is None else data.get("cases", {})


@contextlib.contextmanager
def _silenced():
    import numpy as np

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with (contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()),
              np.errstate(all="ignore")):
            yield


def _emit(payload: dict) -> None:
    try:
        from IPython.display import publish_display_data
    except ImportError:  # pragma: no cover - always there in a kernel
        return
    publish_display_data({MIME: payload}, metadata={})


def _run(student_fn, calls):
    results = []
    for args, kwargs in calls:
        try:
            with _silenced():
                value = student_fn(*copy.deepcopy(args), **copy.deepcopy(kwargs))
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - any failure of the student's code
            return {"raised": encode_error(exc)}
        try:
            results.append(encode(value))
        except Exception as exc:  # noqa: BLE001 - a value that breaks the encoder
            results.append({"u": f"{type(value).__name__} ({type(exc).__name__})"[:80]})
    return {"ok": results}


def _fallback(kind: str, name: str, value, points: float) -> float:
    try:
        from kpca_ref import grading
    except ImportError:
        print(f"✗ {name}: the grader's case file is missing; this test cannot run here")
        return 0.0
    return getattr(grading, kind)(name, value, points=points)


def grade(name: str, student_fn, points: float) -> float:
    """Run ``student_fn`` on the hidden cases of ``name`` and emit the results.

    Returns 0.0 under the autograder (the judge outside the kernel scores the cell), or
    the points ``kpca_ref.grading.grade`` awards when there is no case file.
    """
    cases = _cases()
    if cases is None:
        return _fallback("grade", name, student_fn, points)
    payload = {"kind": "grade", "name": name}
    if not callable(student_fn):
        payload["not_callable"] = type(student_fn).__name__[:60]
    else:
        payload["groups"] = [[_run(student_fn, calls) for calls in group]
                             for group in cases.get(name, [])]
    _emit(payload)
    return 0.0


def grade_exact(name: str, student_value, points: float) -> float:
    """Emit the student's exact answer ``name`` for the judge (see :func:`grade`)."""
    if _cases() is None:
        return _fallback("grade_exact", name, student_value, points)
    try:
        value = encode(student_value)
    except Exception as exc:  # noqa: BLE001
        value = {"u": type(exc).__name__}
    _emit({"kind": "grade_exact", "name": name, "value": value, "ids": _ids_in_use(),
           "drawn": _ids_in_use(typed=False)})
    return 0.0


def _ids_in_use(typed: bool = True) -> list[str]:
    """The ids the notebook's numbers may have been drawn for, as the kernel has them now:
    ``STUDENT_ID`` (left out when ``typed`` is false: a course whose numbers come from the
    login ignores it) and ``VARIANT_ID`` (whatever code set them) and ``KPCA_STUDENT_ID``
    (the grader sets it to the submission's student; a cell may have changed it)."""
    try:
        from IPython import get_ipython

        namespace = get_ipython().user_ns
    except (ImportError, AttributeError):  # pragma: no cover - always in a kernel
        namespace = {}
    found = [namespace.get("STUDENT_ID") if typed else None, namespace.get("VARIANT_ID"),
             os.environ.get("KPCA_STUDENT_ID")]
    return [v.strip()[:200] for v in found if isinstance(v, str) and v.strip()]


def run_hidden(cell_id: str) -> float:
    """Run the grading calls the grader planned for test cell ``cell_id``.

    Under the autograder the hidden part of every test cell is replaced, before the kernel
    starts, by ``__import__('kpca_probe').run_hidden('<grade_id>')``: the kernel never sees the hidden
    tests' code. The plan (which contract function or exact answer, which notebook name
    holds it, how many points) comes from the case file; each call then runs as
    :func:`grade` or :func:`grade_exact` would. Returns 0.0: the judge scores the cell.
    """
    data = _case_data()
    plan = (data or {}).get("plan", {}).get(cell_id, [])
    try:
        from IPython import get_ipython

        namespace = get_ipython().user_ns
    except (ImportError, AttributeError):  # pragma: no cover - always in a kernel
        namespace = {}
    for kind, name, expression, points in plan:
        try:
            value = eval(expression, namespace)  # the instructor's expression, from the grader
        except Exception as exc:  # noqa: BLE001 - the student removed or broke the name
            missing = f"{type(exc).__name__}: {exc}"[:80]
            if kind == "grade":
                _emit({"kind": kind, "name": name, "not_callable": missing})
            else:
                _emit({"kind": kind, "name": name, "value": {"u": missing}})
            continue
        (grade if kind == "grade" else grade_exact)(name, value, points=points)
    return 0.0
