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
from tests.grading.test_float32 import _failed_groups
from tests.support.handin_functions import handin_functions, handins

SALTS = [salt_words(b"h" * 64, "ps", f"student{i}") for i in range(4)]
#: hand-ins whose function never returns: only the sandbox's time limit can grade them
#: (tests/notebooks grades them through the pipeline)
NEVER_RETURN = {("ps2_feature_maps", "never_terminates")}


@pytest.mark.parametrize("ps", ASSIGNMENTS)
def test_each_handin_passes_the_same_groups_whatever_the_students_inputs(ps):
    unfair, checked = [], 0
    for name, cells in handins(ps).items():
        if (ps, name) in NEVER_RETURN:
            continue
        for fname, fn in sorted(handin_functions(ps, cells).items()):
            draws = [_failed_groups(fname, fn)]
            for salt in SALTS:
                with cases.salted(salt):
                    draws.append(_failed_groups(fname, fn))
            checked += 1
            if any(d != draws[0] for d in draws):
                unfair.append(f"{name}.{fname}: {draws}")
    assert checked >= len(handins(ps)), f"{ps}: functions of the hand-ins were not found"
    assert not unfair, "failed groups differ by student:\n" + "\n".join(unfair)


def test_running_the_notebooks_cells_leaves_the_process_as_it_was():
    import warnings

    import numpy as np

    before = (np.get_printoptions(), np.geterr(), list(warnings.filters))
    handin_functions("ps3_mercer", {})  # its cells set print options, errors and warnings
    assert (np.get_printoptions(), np.geterr(), list(warnings.filters)) == before
