"""The feedback page names each graded cell by its part and its point split (kit/feedback_labels.py)."""

from __future__ import annotations

import copy
import os
from pathlib import Path

import nbgrader
from traitlets.config import Config

from kit.course import ASSIGNMENTS, REPO_ROOT
from kit.feedback_labels import TEMPLATES, LabelTestCells, label, part_title
from kit.handback.exporter import FeedbackExporter
from tests.support.nbgrading import read_source

NBGRADER_CSS = os.path.join(os.path.dirname(nbgrader.__file__), "server_extensions", "formgrader",
                            "static", "node_modules", "bootstrap", "dist", "css")


def _labelled(ps):
    nb, _ = LabelTestCells().preprocess(copy.deepcopy(read_source(ps)), {})
    return {c.metadata.nbgrader["grade_id"]: c.metadata["kit_label"] for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("grade")}


def test_a_cell_grading_several_answers_names_its_part_and_split():
    labels = _labelled("ps5_kernel_pca")
    assert labels["test_exact_3pt"] == (
        "Part 3 — A 3-point example by hand: eig_3pt 2 + alpha_3pt 2 + Z_3pt 2 points")
    assert labels["test_kpca_fit"] == "Part 1 — Fitting: eigenvalues and coefficient vectors: kpca_fit, 6 points"


def test_every_graded_cell_of_every_problem_set_gets_a_part():
    for ps in ASSIGNMENTS:
        for grade_id, text in _labelled(ps).items():
            assert text.startswith("Part "), f"{ps} {grade_id}: {text!r}"


def test_label_parts():
    assert part_title("## Part 6 — Caps, and searching (8 points)\n\ntext") == "Part 6 — Caps, and searching"
    assert part_title("no heading") is None
    source = '_grading.grade_exact("k1", a_b, points=2) + _grading.grade_exact("k2", c, points=0.5)'
    assert label("Part 2 — X", source, 2.5) == "Part 2 — X: a_b 2 + c 0.5 points"
    assert label(None, "", 3, written=True) == "Written answer, 3 points"


def test_the_courses_feedback_template_shows_the_labels(tmp_path):
    nb, _ = LabelTestCells().preprocess(copy.deepcopy(read_source("ps0_high_dimensions")), {})
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade"):
            meta["score"] = meta.get("points", 0)
    config = Config()
    config.HTMLExporter.template_name = "feedback"
    config.HTMLExporter.extra_template_basedirs = [str(REPO_ROOT / "kit" / "templates")]
    config.HTMLExporter.extra_template_paths = [NBGRADER_CSS]
    html, _ = FeedbackExporter(config=config).from_notebook_node(
        nb, resources={"nbgrader": {"notebook": "ps0", "score": 31, "max_score": 31, "late_penalty": 0}})
    assert "Part 2 — Your dimension, exactly: ratio_mine 2 + corner_mine 1 points</a>" in html
    assert "Test cell</a>" not in html


def test_the_course_config_uses_the_template():
    text = (REPO_ROOT / "nbgrader_config.py").read_text(encoding="utf-8")
    assert '"kit.feedback_labels.LabelTestCells",\n    "nbgrader.preprocessors.ClearHiddenTests"' in text
    assert "feedback_labels.template_dirs()" in text
    assert (Path(TEMPLATES) / "feedback" / "index.html.j2").is_file()


def test_the_template_folders_keep_formgraders_own():
    """The course's list replaces the one formgrader sets: its 'formgrade' template must still
    be found (without it formgrader does not load and every page of it is a 404), and the
    course's 'feedback' template must come first."""
    from nbconvert import HTMLExporter
    from traitlets.config import Config

    from kit.feedback_labels import template_dirs

    for name, first in (("formgrade", False), ("feedback", True)):
        config = Config()
        config.HTMLExporter.template_name = name
        config.HTMLExporter.extra_template_basedirs = template_dirs()
        exporter = HTMLExporter(config=config)
        found = exporter.template_paths
        assert any(Path(p).name == name for p in found), (name, found)
        if first:
            assert str(found[0]).startswith(TEMPLATES), found
