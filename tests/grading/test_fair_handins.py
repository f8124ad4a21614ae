"""Every hand-in of tests/submissions passes the same hidden groups for every student.

The pipeline tests grade each hand-in once, under one course secret. Here its functions are
called in this process under the fixed cases and several students' salted ones: any group
that a hand-in passes for one student and fails for another is reported. The same check over
40 draws found the ball's float32 formula overflowing at m = 49 to 62 (after it cost a CI run
0.8 points); these 4 draws miss that band, which tests/grading/test_precision.py covers m by m.
"""

from __future__ import annotations

import pytest

from kit.course import ASSIGNMENTS
from kit.secret import salt_words
from kpca_ref.grading import cases
from tests.grading import reference_memory
from tests.grading.test_float32 import _failed_groups
from tests.support.handin_functions import as_in_the_solution, handin_functions, handins

SALTS = [salt_words(b"h" * 64, "ps", f"student{i}") for i in range(4)]
#: hand-ins whose function never returns: only the sandbox's time limit can grade them
#: (tests/notebooks grades them through the pipeline)
NEVER_RETURN = {("ps2_feature_maps", "never_terminates")}


@pytest.mark.parametrize("ps", ASSIGNMENTS)
def test_each_handin_passes_the_same_groups_whatever_the_students_inputs(ps, monkeypatch):
    reference_memory.remembered(monkeypatch)  # every hand-in is judged on the same 5 draws
    unfair, checked, shared = [], 0, 0
    solution = handin_functions(ps, {})
    for name, cells in handins(ps).items():
        if (ps, name) in NEVER_RETURN:
            continue
        for fname, fn in sorted(handin_functions(ps, cells).items()):
            if name != "solution" and as_in_the_solution(ps, cells, fname, solution):
                shared += 1  # the solution's own function: its draws are checked once, below
                continue
            draws = [_failed_groups(fname, fn)]
            for salt in SALTS:
                with cases.salted(salt):
                    draws.append(_failed_groups(fname, fn))
            checked += 1
            if any(d != draws[0] for d in draws):
                unfair.append(f"{name}.{fname}: {draws}")
    assert checked >= len(handins(ps)) - len(NEVER_RETURN), (
        f"{ps}: functions of the hand-ins were not found ({checked} checked, {shared} shared)")
    assert not unfair, "failed groups differ by student:\n" + "\n".join(unfair)


def test_a_handin_shares_the_solutions_draws_only_where_nothing_it_wrote_is_reached():
    """The shortcut above is taken only for a function the hand-in cannot have changed."""
    ps = "ps4_centering"
    solution = handin_functions(ps, {})
    assert {"centre_kernel", "centre_new"} <= set(solution)
    wrong = {"centre_kernel_answer": "def centre_kernel(K):\n    return K\n"}
    assert not as_in_the_solution(ps, wrong, "centre_kernel", solution)
    others = set(solution) - {"centre_kernel"}
    # a function that calls the hand-in's (directly or through another) is not shared
    reaching = {f for f in others if not as_in_the_solution(ps, wrong, f, solution)}
    assert all("centre_kernel" in _names(solution[f]) for f in reaching), reaching
    # a cell that runs something, rebinds a module or does not parse shares nothing
    for cell in ("import numpy\nnumpy.linalg.eigh = None\n", "np = None\n", "def (:\n",
                 "@functools.cache\ndef centre_kernel(K):\n    return K\n"):
        assert not any(as_in_the_solution(ps, {"centre_kernel_answer": cell}, f, solution)
                       for f in others), cell


def _names(fn) -> set[str]:
    from tests.support.handin_functions import _global_names

    return _global_names(fn, fn.__globals__)


def test_running_the_notebooks_cells_leaves_the_process_as_it_was():
    import warnings

    import numpy as np

    before = (np.get_printoptions(), np.geterr(), list(warnings.filters))
    handin_functions("ps3_mercer", {})  # its cells set print options, errors and warnings
    assert (np.get_printoptions(), np.geterr(), list(warnings.filters)) == before
