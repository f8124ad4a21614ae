"""``grade`` and ``grade_exact``: what every notebook's hidden test cell calls.

Output goes to stdout only, one line per case group (``✓ label`` or
``✗ label: what is wrong [diagnosis: code]``) and a closing summary line. While
grading, warnings are ignored and ``sys.stderr`` is captured: in nbgrader a test
cell that writes to stderr scores 0. The student's own prints are swallowed too.

Partial credit: ``points * passed_groups / groups`` rounded to 2 decimals, and
exactly ``float(points)`` when every group passes. A stated-error group (every case of it
must raise, e.g. "bad input raises ValueError") counts only beside a function that works:
when no value group of the same function passes, it earns nothing, whatever it raised
(:mod:`kpca_ref.grading.error_groups`): code that raises ``ValueError`` on every input earns 0.
The verdict :func:`grade_exact` prints is :func:`kpca_ref.grading.exact_verdict.judge_exact`'s.
"""

from __future__ import annotations

import contextlib
import copy
import importlib
import io
import sys
import warnings

import numpy as np

from kpca_ref.grading import cases as _cases
from kpca_ref.grading.checks import Verdict, check
from kpca_ref.grading.error_groups import counted
from kpca_ref.grading.exact_verdict import _judge_exact, judge_exact  # noqa: F401 - kept here
from kpca_ref.grading.mistakes import diagnose
from kpca_ref.grading.precision import in_single_precision, right_at_float32_inputs

__all__ = ["grade", "grade_exact", "judge_case", "judge_exact", "judge_groups", "run_student"]

#: longest excerpt of a student's exception message shown
MESSAGE_CHARS = 120


def _short(text: str, limit: int = MESSAGE_CHARS) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _one_blas_thread():
    """Limit BLAS to one thread while grading (threadpoolctl, when installed).

    The grading matrices are small; with several kernels sharing few cores, idle
    BLAS worker threads slow an eigen-decomposition of n = 300 by 10-100x.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - optional
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


@contextlib.contextmanager
def _silenced():
    """Ignore warnings, capture stderr and stdout, ignore numpy floating-point traps."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with (contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()),
              np.errstate(all="ignore")):
            yield


def _reference(name: str):
    return getattr(importlib.import_module("kpca_ref"), name)


def _expected(name, ref_fn, case) -> list:
    """The reference's result of each call of ``case`` (or the exception it must raise)."""
    expected = []
    for args, kwargs in case.calls():
        try:
            expected.append(ref_fn(*copy.deepcopy(args), **copy.deepcopy(kwargs)))
        except Exception as exc:
            if case.expect_error is None or not isinstance(exc, case.expect_error):
                raise RuntimeError(f"hidden case of {name} broke the reference: {exc!r}") from exc
            expected.append(exc)
    if case.expect_error is not None and not isinstance(expected[0], case.expect_error):
        raise RuntimeError(f"hidden case of {name} expected {case.expect_error.__name__} "
                           "but the reference returned a value")
    return expected


def run_student(student_fn, case) -> tuple:
    """``("ok", results)`` or ``("raised", exception, type name)`` for the student's calls."""
    results = []
    for args, kwargs in case.calls():
        try:
            with _silenced():
                results.append(student_fn(*copy.deepcopy(args), **copy.deepcopy(kwargs)))
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - any failure of the student's code
            return ("raised", exc, type(exc).__name__)
    return ("ok", results)


def judge_case(name, ref_fn, case, outcome) -> Verdict:
    """Judge one case from the student's ``outcome`` (see :func:`run_student`)."""
    expected = _expected(name, ref_fn, case)
    if outcome[0] == "raised":
        exc, kind = outcome[1], outcome[2]
        wanted = case.expect_error
        if wanted is not None and isinstance(exc, wanted):
            return Verdict(True)
        text = f"raised {kind}: {_short(exc)}" if str(exc) else f"raised {kind}"
        if wanted is not None:
            text += f" (expected {wanted.__name__})"
        return Verdict(False, text)
    results = outcome[1]
    if case.expect_error is not None:
        return Verdict(False, f"should raise {case.expect_error.__name__} for this input, "
                              "but returned a value")
    verdict = check(name, case, results, expected)
    if not verdict.ok and in_single_precision(results) and right_at_float32_inputs(
            case, lambda rounded: check(name, rounded, results, _expected(name, ref_fn, rounded)).ok):
        return Verdict(True)  # right for the inputs float32 holds (kpca_ref.grading.precision)
    if not verdict.ok and verdict.code is None and not case.batch:
        mistake = diagnose(name, copy.deepcopy(case.positional(name)), results[0])
        if mistake is not None:
            verdict = verdict._replace(code=mistake.code)
    return verdict


def _run_case(name, ref_fn, student_fn, case) -> Verdict:
    return judge_case(name, ref_fn, case, run_student(student_fn, case))


def line(ok: bool, label: str, message: str = "", code: str | None = None) -> str:
    if ok:
        return f"✓ {label}"
    tail = f" [diagnosis: {code}]" if code else ""
    return f"✗ {label}: {message}{tail}"


def _earned(points, passed: int, total: int) -> float:
    if passed == total:
        return float(points)
    return round(float(points) * passed / total, 2)


def grade(name: str, student_fn, points: float) -> float:
    """Run ``student_fn`` on the hidden cases of contract function ``name``.

    Parameters
    ----------
    name : str
        One of the 30 contract function names.
    student_fn : callable
        The student's implementation.
    points : float
        The points of the test cell.

    Returns
    -------
    float
        ``points * passed_groups / groups``, rounded to 2 decimals (``float(points)``
        when all pass). One line per group is printed to stdout.

    Examples
    --------
    >>> grade("centring_matrix", "not a function", points=2)
    ✗ centring_matrix: expected a function, got str
    0.0
    """
    out = sys.stdout
    if not callable(student_fn):
        print(line(False, name, f"expected a function, got {type(student_fn).__name__}"),
              file=out)
        return 0.0
    with _silenced(), _one_blas_thread():  # no warning of the grader may reach stderr
        groups = _cases.groups(name)
        earned, lines = judge_groups(
            name, points, groups, lambda gi, ci, case: run_student(student_fn, case))
    print("\n".join(lines), file=out, flush=True)
    return earned


def judge_groups(name: str, points: float, groups, outcome_of,
                 codes: list | None = None) -> tuple[float, list[str]]:
    """Points earned and the student-facing lines, from ``outcome_of(group, case, Case)``.

    ``outcome_of`` returns what :func:`run_student` returns, or None when the student's
    result for that case is missing (the case then fails). Used in the kernel by
    :func:`grade` and outside it by the judge, on results decoded from the kernel. With
    ``codes``, the diagnosis code of each group's line (or None) is appended to it, in the
    order of the lines.

    A stated-error group (every case expects an exception) is counted only when at least
    one value group of the function passes: raising on bad input is part of a working
    function, not a skill on its own (:mod:`kpca_ref.grading.error_groups`).
    """
    groups = list(groups)
    verdicts = counted(name, groups, _group_verdicts(name, groups, outcome_of))
    passed = sum(v.ok for v in verdicts)
    lines = [line(v.ok, g.label, v.message, v.code) for g, v in zip(groups, verdicts)]
    if codes is not None:
        codes.extend(v.code for v in verdicts)
    earned = _earned(points, passed, len(groups))
    lines.append(f"{name}: {passed} of {len(groups)} case groups passed, "
                 f"{earned:g} of {float(points):g} points")
    return earned, lines


def _group_verdicts(name: str, groups, outcome_of) -> list[Verdict]:
    """One verdict per group: the first failing case's, or a pass."""
    verdicts = []
    ref_fn = _reference(name)
    for gi, group in enumerate(groups):
        verdict = Verdict(True)
        for ci, case in enumerate(group.cases):
            try:
                outcome = outcome_of(gi, ci, case)
                if outcome is None:
                    verdict = Verdict(False, "no result arrived from your notebook for this case")
                else:
                    verdict = judge_case(name, ref_fn, case, outcome)
            except Exception as exc:  # noqa: BLE001 - the grader failed: never a free pass
                verdict = Verdict(False, f"could not be graded ({type(exc).__name__} in "
                                         "the grader); please tell your instructor")
            if not verdict.ok:
                if len(group.cases) > 1:
                    verdict = verdict._replace(
                        message=f"case {ci + 1} of {len(group.cases)}: {verdict.message}")
                break
        verdicts.append(verdict)
    return verdicts


def grade_exact(name: str, student_value, points: float, student_id: str | None = None) -> float:
    """Compare a student's exact answer with the answer ``name`` of their own numbers.

    A float anywhere earns 0 (``float_not_exact``); otherwise exact equality earns
    ``points``. Answers whose sign is free accept either sign per Matrix column, per list
    element, or for a scalar. A vector answer may come as a column, a row or a list; other
    matrices must have the expected shape. ``student_id`` picks the variant
    (:mod:`kpca_ref.variants`); without it, the id the notebook's numbers cell resolved
    (``VARIANT_ID``) or ``KPCA_STUDENT_ID`` is used.

    Returns
    -------
    float
        ``float(points)`` or ``0.0``; one line is printed to stdout.
    """
    out = sys.stdout
    student_id = student_id or _notebook_student()
    with _silenced():
        verdict = judge_exact(name, student_value, student_id)
    print(line(verdict.ok, name, verdict.message, verdict.code), file=out)
    return float(points) if verdict.ok else 0.0


def _notebook_student() -> str | None:
    """The id the running notebook drew its numbers for, when there is one."""
    import os

    try:
        from IPython import get_ipython

        shell = get_ipython()
    except ImportError:  # pragma: no cover - IPython comes with every kernel
        shell = None
    found = shell.user_ns.get("VARIANT_ID") if shell is not None else None
    return found if isinstance(found, str) and found else os.environ.get("KPCA_STUDENT_ID")
