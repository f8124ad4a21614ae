"""Adversarial submissions of ps0_high_dimensions and ps6_kernel_regression.

Built like :mod:`tests.integrity.attacks` (the release with its answer cells filled, the
instructor's solution unless ``cells`` says otherwise, then ``edit``), graded through the real
pipeline by ``test_attacks_new_sets.py``. ``lost`` gives the points each test cell must lose.

These two problem sets are mostly exact answers on per-student numbers, so the attacks aim
there: someone else's numbers (the lecture's, a classmate's, a classmate's id typed in), the
reference imported, and a forged grade in the kernel's output.
"""

from __future__ import annotations

from kit.judge.plan import planned_calls
from kpca_ref import variants
from tests.support.nbgrading import (
    auto_points,
    exact_points,
    nb_meta,
    read_source,
    solution_of,
    type_student_id,
)

PS0 = "ps0_high_dimensions"
PS6 = "ps6_kernel_regression"
MIME = "application/vnd.kpca-probe+json"

#: the exact answer cells of each problem set and their test cells
EXACT_TESTS = {
    PS0: {"ball_exact_answer": "test_ball_exact", "shell_exact_answer": "test_shell_exact",
          "cap_exact_answer": "test_cap_exact"},
    PS6: {"exact_steps_answer": "test_exact_steps",
          "exact_fixed_point_answer": "test_exact_fixed_point"},
}
#: ``{answer cell: (test cell, its points)}``, the points read from the source notebook
EXACT = {ps: {cell: (test, exact_points(ps)[test]) for cell, test in tests.items()}
         for ps, tests in EXACT_TESTS.items()}

#: the variables of the first exact cell and the answers they hold
REFERENCE_ITEMS = {
    PS0: [("ratio_mine", "ps0_ball_ratio"), ("corner_mine", "ps0_corner_length")],
    PS6: [("K_own", "ps6_kernel_matrix"), ("beta_two", "ps6_beta_two_steps")],
}

#: walks the whole file system the kernel sees for a directory holding the reference
FIND_ON_DISK = '''
import os, sys
for _dir, _subdirs, _files in os.walk("/"):
    _subdirs[:] = [d for d in _subdirs if d not in ("proc", "sys", "dev")]
    if os.path.isfile(os.path.join(_dir, "kpca" + "_ref", "__init__.py")):
        sys.path.insert(0, _dir)
        break
'''


def other_id(ps: str, student: str) -> str:
    """A classmate's id whose numbers differ from ``student``'s in every family."""
    mine = variants._chosen(ps, student, variants.COURSE_ID)
    for i in range(1000):
        candidate = f"classmate_{i}"
        theirs = variants._chosen(ps, candidate, variants.COURSE_ID)
        if all(theirs[family] != mine[family] for family in mine):
            return candidate
    raise AssertionError(f"no classmate of {student} with other numbers in every family")


def lecture_numbers_code(ps: str) -> str:
    """A line that replaces ``N`` by the lecture's numbers, with the numbers cell's helpers."""
    merged = {}
    for values in variants.module(ps).LECTURE.values():
        merged.update(values)
    return f"N = _Namespace(**{{k: _exact(v) for k, v in {merged!r}.items()}})\n"


def with_numbers(ps: str, line: str) -> dict[str, str]:
    """Every exact answer cell of ``ps``: ``line`` (which rebinds ``N``), then the solution."""
    return {gid: line + solution_of(ps, gid) for gid in EXACT[ps]}


def exact_lost(ps: str) -> dict[str, float]:
    return dict(EXACT[ps].values())


def type_id(student_id: str):
    """The edit of a student who types ``student_id`` into the identity cell."""
    return lambda nb: type_student_id(nb, student_id)


def forge_exact(name: str) -> str:
    """Publish a forged exact-answer payload (the lecture's value) before every cell runs."""
    return f'''
from IPython.display import publish_display_data
_forged = {{"kind": "grade_exact", "name": "{name}", "value": {{"int": "1"}}}}
get_ipython().events.register("pre_run_cell", lambda *a: publish_display_data({{"{MIME}": _forged}}))
'''


def catalogue(ps: str) -> dict[str, dict]:
    """The attacks on ``ps``, by student id."""
    if ps == PS0:
        fn_cell, fn_test = "ball_cube_ratio_answer", "test_ball_cube_ratio"
        imported = "from kpca_ref import ball_cube_ratio\n"
        forged = ("ball_exact_answer", "ps0_ball_ratio", "ratio_mine = sp.Rational(1, 2)\n")
    else:
        fn_cell, fn_test = "kernel_ridge_answer", "test_kernel_ridge"
        imported = "from kpca_ref import kernel_ridge\n"
        forged = ("exact_fixed_point_answer", "ps6_predict_new", None)
    first_exact = next(iter(EXACT[ps]))
    # the grader sets KPCA_STUDENT_ID in the kernel: the reference's answers for that id
    reference_exact = "import os\nfrom kpca_ref.variants import answer as _answer\n" + "".join(
        f'{var} = _answer("{item}", os.environ["KPCA_STUDENT_ID"])\n'
        for var, item in REFERENCE_ITEMS[ps])
    attacks = {
        "lecture_numbers": {"cells": with_numbers(ps, lecture_numbers_code(ps)),
                            "lost": exact_lost(ps)},
        "classmate_numbers": {
            "cells": with_numbers(ps, f'N = your_numbers("{other_id(ps, "classmate_numbers")}")\n'),
            "lost": exact_lost(ps)},
        "typed_classmate_id": {"cells": {}, "edit": type_id(other_id(ps, "typed_classmate_id")),
                               "lost": exact_lost(ps)},
        "import_reference": {"cells": {fn_cell: imported}, "lost": {fn_test: auto_points(read_source(ps))[fn_test]}},
        "reference_in_exact_cell": {"cells": {first_exact: reference_exact},
                                    "lost": {EXACT[ps][first_exact][0]: EXACT[ps][first_exact][1]}},
        # the reference is not in the grading kernel's environment: look for it on disk
        "reference_found_on_disk": {"cells": {first_exact: FIND_ON_DISK + reference_exact.replace(
            "from kpca_ref.variants import answer as _answer\n",
            "_answer = __import__(\"kpca\" + \"_ref.variants\", fromlist=[\"answer\"]).answer\n")},
                                    "lost": {EXACT[ps][first_exact][0]: EXACT[ps][first_exact][1]}},
        "zz_correct": {"cells": {}, "lost": {}},
    }
    cell, name, wrong = forged
    source = solution_of(ps, cell) if wrong is None else solution_of(ps, cell) + wrong
    if wrong is None:  # ps6: a wrong prediction, the right everything else
        source = source.replace("pred_new = (N.k_new.T * beta_limit)[0]", "pred_new = sp.Integer(1)")
        assert "pred_new = sp.Integer(1)" in source
    attacks["forged_exact_payload"] = {"cells": {cell: source + forge_exact(name)},
                                       "lost": {EXACT[ps][cell][0]: _points_of(ps, name)}}
    return attacks


def _points_of(ps: str, item: str) -> float:
    """The points the hidden test gives the exact item ``item``."""
    return next(points for cell in read_source(ps).cells
                if nb_meta(cell).get("grade") and not nb_meta(cell).get("solution")
                for kind, name, points in planned_calls(cell.source)
                if kind == "grade_exact" and name == item)
