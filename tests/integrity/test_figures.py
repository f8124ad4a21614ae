"""Graded notebooks keep the student's figures, and only those drawn outside the test cells.

ps1_circle_lift is graded for two students through ``kit.autograde``'s per-student call:
``eve``, whose ``variance_shares`` also draws every input it is given and leaves the figure
open (the hidden tests call it on inputs she must not see), with figures kept (the default);
and ``ada`` with ``KPCA_GRADING_FIGURES=0``, whose kernel draws with Agg.
"""

from __future__ import annotations

import nbformat
import pytest

from kit.autograde import autograde_student, grading_api
from kit.course import copy_course
from kit.handback.feedback import feedback_page, write_feedback
from kit.intake.submitted import build_submission, lay
from kit.release import release
from tests.support.nbgrading import nb_meta

PS = "ps1_circle_lift"
PLOT_CELLS = {"rotation_plot", "singular_values_demo", "circle_plot"}

DRAWING_SHARES = '''
def variance_shares(X):
    X = np.asarray(X, dtype=float)
    plt.figure()
    plt.scatter(X[:, 0], X[:, 1])  # every input it sees, hidden ones included
    centred = X - X.mean(axis=0)
    variances = np.linalg.svd(centred, compute_uv=False) ** 2
    return variances / variances.sum()
'''


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    course = copy_course(tmp_path_factory.mktemp("figures"), [PS])
    assert not release(course, [PS])
    lay(course, PS, "eve", build_submission(course, PS, {"variance_shares_answer": DRAWING_SHARES}))
    lay(course, PS, "ada", build_submission(course, PS))
    api = grading_api(course)
    scores = {"eve": autograde_student(course, PS, "eve", api=api)}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KPCA_GRADING_FIGURES", "0")
        scores["ada"] = autograde_student(course, PS, "ada", api=api)
    assert write_feedback(course, PS, "eve", api=api) == ""
    return course, scores


def pngs(course, student) -> dict[str, int]:
    """``{grade_id: number of PNG outputs}`` of the graded notebook's cells that have some."""
    nb = nbformat.read(course.notebook("autograded", PS, student), as_version=4)
    counts = {nb_meta(c).get("grade_id"):
              sum("image/png" in o.get("data", {}) for o in c.get("outputs", []))
              for c in nb.cells}
    return {k: v for k, v in counts.items() if v}


def test_plots_are_kept_and_shown_on_the_feedback_page(graded):
    course, scores = graded
    kept = pngs(course, "eve")
    assert PLOT_CELLS <= set(kept)
    assert scores["eve"]["variance_shares_test"] == 4.0  # drawing costs no points
    page = feedback_page(course, PS, "eve").read_text(encoding="utf-8")
    assert page.count("data:image/png") == sum(kept.values())


def test_figures_drawn_while_a_test_cell_runs_are_not_kept(graded):
    course, _ = graded
    nb = nbformat.read(course.notebook("autograded", PS, "eve"), as_version=4)
    test_cells = {nb_meta(c)["grade_id"] for c in nb.cells if nb_meta(c).get("grade")}
    assert not set(pngs(course, "eve")) & test_cells


def test_no_figure_is_kept_when_figures_are_off(graded):
    course, scores = graded
    assert pngs(course, "ada") == {}
    assert sum(scores["ada"].values()) == sum(scores["eve"].values())
