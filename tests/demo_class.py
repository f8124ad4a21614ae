"""The bundled demo class: who hands in what, and the score each must get.

``make demo`` lays these students into ``submitted/`` (see ``kit.intake.submitted.lay_class``).
Each entry maps a problem set to what the student hands in: ``"solution"`` (the
instructor's answers typed in), ``"blank"`` (the release untouched), the name of a
submission in ``tests/submissions/<ps>.py``, or a function that writes something odd.
A problem set missing from an entry was not handed in: most students who show one
mistake hand in only the problem sets where it shows.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from kit.course import ASSIGNMENTS

ALL = dict.fromkeys(ASSIGNMENTS, "solution")


def corrupt_file(course, assignment):
    """A notebook file cut off half-way through its JSON (a failed upload)."""
    text = course.notebook("release", assignment).read_text(encoding="utf-8")
    with tempfile.NamedTemporaryFile("w", suffix=".ipynb", delete=False, encoding="utf-8") as fh:
        fh.write(text[: len(text) // 2])
    return Path(fh.name)


def other_problem_set(course, assignment):
    """The student saved last week's notebook under this week's name."""
    other = ASSIGNMENTS[ASSIGNMENTS.index(assignment) - 1]
    return course.notebook("release", other)


def pastes_lecture(course, assignment):
    """Every exact answer pasted from the lecture's worked example (the rest: correct)."""
    from tests.support.pasting import lecture_values, pasted_submission

    return pasted_submission(course, assignment, lecture_values(assignment))


def pastes_classmate(course, assignment):
    """Every exact answer pasted from ada_reference's correct answers (the rest: correct)."""
    from tests.support.pasting import pasted_submission, student_values

    return pasted_submission(course, assignment, student_values(assignment, "ada_reference"))


def types_classmate_id(course, assignment):
    """A correct notebook worked on ada_reference's numbers: STUDENT_ID = "ada_reference"."""
    from kit.intake.submitted import build_submission
    from tests.support.nbgrading import type_student_id

    nb = build_submission(course, assignment)
    type_student_id(nb, "ada_reference")
    return nb


#: problem sets whose exact items are per-student (kpca_ref.variants)
PER_STUDENT = ASSIGNMENTS

ROSTER = {
    "ada_reference": ALL,
    "ben_blank": dict.fromkeys(ASSIGNMENTS, "blank"),
    "cleo_own_mean": {"ps4_centering": "new_point_own_mean",
                      "ps5_kernel_pca": "new_point_own_mean"},
    "dev_unscaled_alpha": {"ps5_kernel_pca": "alpha_not_scaled"},
    "eli_ascending": {"ps5_kernel_pca": "ascending_order"},
    "fay_divisor": {"ps5_kernel_pca": "variance_divisor"},
    "gus_uncentred": {"ps1_circle_lift": "not_centred", "ps4_centering": "not_centred"},
    "hana_lift_order": {"ps1_circle_lift": "lift_column_order"},
    "ivo_floats": {"ps1_circle_lift": "float_not_exact", "ps2_feature_maps": "floats_for_exact",
                   "ps3_mercer": "floats_not_exact", "ps4_centering": "float_answers",
                   "ps5_kernel_pca": "float_answers", "ps6_kernel_regression": "float_answers"},
    "jun_loops": {"ps0_high_dimensions": "loops", "ps1_circle_lift": "loops", "ps2_feature_maps": "loops",
                  "ps3_mercer": "loops_eig_minors", "ps4_centering": "loops",
                  "ps5_kernel_pca": "loops", "ps6_kernel_regression": "loops"},
    "kim_rewrites": {"ps1_circle_lift": "eig_instead_of_svd", "ps2_feature_maps": "other_order",
                     "ps3_mercer": "sympy_psd_uniform_search", "ps4_centering": "other_forms",
                     "ps5_kernel_pca": "svd_flipped_signs",
                     "ps6_kernel_regression": "other_routes"},
    "lea_partial": {"ps1_circle_lift": "solution", "ps2_feature_maps": "solution"},
    "max_loops_forever": {"ps2_feature_maps": "never_terminates"},
    "nia_float32": {"ps0_high_dimensions": "float32", "ps1_circle_lift": "float32",
                    "ps2_feature_maps": "float32", "ps4_centering": "float32",
                    "ps5_kernel_pca": "float32", "ps6_kernel_regression": "float32"},
    "oli_leading_minors": {"ps3_mercer": "leading_minors"},
    "pat_odd_files": {"ps2_feature_maps": "solution", "ps3_mercer": corrupt_file,
                      "ps4_centering": other_problem_set},
    "qin_pastes_lecture": dict.fromkeys(PER_STUDENT, pastes_lecture),
    "ray_pastes_classmate": dict.fromkeys(PER_STUDENT, pastes_classmate),
    "sam_typed_classmate_id": {"ps1_circle_lift": types_classmate_id},
    "tia_gamma_argument": {"ps0_high_dimensions": "gamma_argument"},
    "tom_one_at_a_time": {"ps6_kernel_regression": "sequential_update"},
    "uma_ridge_no_lambda": {"ps6_kernel_regression": "ridge_without_lambda"},
    "vic_core_not_shell": {"ps0_high_dimensions": "core_not_shell"},
}

NONE = dict.fromkeys(ASSIGNMENTS)

#: Auto-graded points each demo student must get, per problem set, worked out from what
#: each handed in (``tests/submissions/<ps>.py`` says which test cells each mistake loses
#: and why). Maxima: ps0 28, ps1 23, ps2 31, ps3 30, ps4 30, ps5 34, ps6 29. None: not handed in.
EXPECTED = {
    "ada_reference": {"ps0_high_dimensions": 28, "ps1_circle_lift": 23, "ps2_feature_maps": 31, "ps3_mercer": 30,
                      "ps4_centering": 30, "ps5_kernel_pca": 34, "ps6_kernel_regression": 29},
    "ben_blank": dict.fromkeys(ASSIGNMENTS, 0),
    # ps4: centre_new loses its 5 points; ps5: kpca_transform its 4 (its error group passes
    # but counts only beside a passing value group, kpca_ref/grading/error_groups.py)
    "cleo_own_mean": {**NONE, "ps4_centering": 25, "ps5_kernel_pca": 30},
    # kpca_fit passes only an error group, not counted beside no value group: 6 lost
    "dev_unscaled_alpha": {**NONE, "ps5_kernel_pca": 28},
    "eli_ascending": {**NONE, "ps5_kernel_pca": 28},
    # feature_variances: only its default-ddof and error groups pass
    "fay_divisor": {**NONE, "ps5_kernel_pca": 32.4},
    # ps1: variance_shares loses 4; ps4: centre_kernel's visible row-sum check fails: 4
    "gus_uncentred": {**NONE, "ps1_circle_lift": 19, "ps4_centering": 26},
    # lift 3 + lift of (4, 2) 2 + phi.u 1
    "hana_lift_order": {**NONE, "ps1_circle_lift": 17},
    # every exact-answer cell with a float earns nothing
    "ivo_floats": {"ps0_high_dimensions": None, "ps1_circle_lift": 18, "ps2_feature_maps": 22, "ps3_mercer": 24,
                   "ps4_centering": 24, "ps5_kernel_pca": 31, "ps6_kernel_regression": 24},
    "jun_loops": {"ps0_high_dimensions": 28, "ps1_circle_lift": 23, "ps2_feature_maps": 31, "ps3_mercer": 30,
                  "ps4_centering": 30, "ps5_kernel_pca": 34, "ps6_kernel_regression": 29},
    "kim_rewrites": {"ps0_high_dimensions": None, "ps1_circle_lift": 23, "ps2_feature_maps": 31, "ps3_mercer": 30,
                     "ps4_centering": 30, "ps5_kernel_pca": 34, "ps6_kernel_regression": 29},
    "lea_partial": {**NONE, "ps1_circle_lift": 23, "ps2_feature_maps": 31},
    # only the gamma_for_similarity test cell times out
    "max_loops_forever": {**NONE, "ps2_feature_maps": 29},
    "nia_float32": {**NONE, "ps0_high_dimensions": 28, "ps1_circle_lift": 23,
                    "ps2_feature_maps": 31, "ps4_centering": 30, "ps5_kernel_pca": 34,
                    "ps6_kernel_regression": 29},
    # a visible check on a singular matrix fails: the exact PSD cell's 5 points
    "oli_leading_minors": {**NONE, "ps3_mercer": 25},
    # the corrupt file and the wrong notebook cannot be graded: 0, with a line in the summary
    "pat_odd_files": {**NONE, "ps2_feature_maps": 31, "ps3_mercer": 0, "ps4_centering": 0},
    # exact items lost, everything else earned: ps0 8 of 28, ps1 7 of 23, ps2 11 of 31, ps3 11 of 30,
    # ps4 14 of 30, ps5 15 of 34, ps6 8 of 29
    "qin_pastes_lecture": {"ps0_high_dimensions": 20, "ps1_circle_lift": 16, "ps2_feature_maps": 20, "ps3_mercer": 19,
                           "ps4_centering": 16, "ps5_kernel_pca": 19,
                           "ps6_kernel_regression": 21},
    "ray_pastes_classmate": {"ps0_high_dimensions": 20, "ps1_circle_lift": 16, "ps2_feature_maps": 20, "ps3_mercer": 19,
                             "ps4_centering": 16, "ps5_kernel_pca": 19,
                             "ps6_kernel_regression": 21},
    "sam_typed_classmate_id": {**NONE, "ps1_circle_lift": 16},
    # ball_cube_ratio's ValueError group is not counted beside no passing value group (4
    # lost), the exact ratio loses 2
    "tia_gamma_argument": {**NONE, "ps0_high_dimensions": 22},
    # gd_dual_fit passes no value group (zero steps share a group with a few), so its error
    # group does not count: all 4 points lost; the two steps by hand 2
    "tom_one_at_a_time": {**NONE, "ps6_kernel_regression": 23},
    # kernel_ridge's visible check with lambda = 1 fails (3), the ridge answer by hand 2
    "uma_ridge_no_lambda": {**NONE, "ps6_kernel_regression": 24},
    # shell_fraction's visible 2-D check fails (3), the exact shell loses 2
    "vic_core_not_shell": {**NONE, "ps0_high_dimensions": 23},
}
