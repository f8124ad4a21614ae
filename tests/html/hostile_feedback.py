"""A feedback page and a class report with the XSS catalogue in every field they print.

Shared by the fast tests on the HTML (``tests/html/test_feedback_fields.py``) and the one
page chromium opens (``tests/browser/test_feedback_fields_browser.py``).

:func:`hostile_notebook` is ps0's graded notebook with payloads of
:mod:`tests.html.xss_payloads` everywhere a student (or a compromised kernel) can write:

- a "## Part ..." heading before every graded cell (the issue's code span holding an
  ``<img onerror>`` among them), in cells the student added;
- the course's own Part 3 heading made of every plain-field payload, so that a label holds
  hostile text and the template alone has to keep it text;
- written answers, added markdown and raw cells, every HTML/markdown/LaTeX/JavaScript/SVG/
  widget output, streams and errors, attachments (one not an image, one with a quoting name);
- a grade id, the graders' comments, cell tags and ``alt`` text, the notebook's title,
  authors, kernelspec and language_info, and the notebook name the page is titled with.

:func:`render_feedback` renders it as ``nbgrader generate_feedback`` does with the course's
own ``nbgrader_config.py`` (its exporter class, its template, its steps in its order), with
:class:`GradesOf` standing in for nbgrader's ``GetGrades`` (which needs a gradebook): it sets
the same fields (scores, points, comments, the notebook's score) the same way.
"""

from __future__ import annotations

import base64
import copy
import os

import nbgrader
from nbconvert.preprocessors import Preprocessor
from nbformat.v4 import new_code_cell, new_markdown_cell, new_output, new_raw_cell
from traitlets import Bool
from traitlets.config import Config
from traitlets.utils.importstring import import_item

from kit.course import REPO_ROOT, Course
from tests.html.xss_payloads import FIELDS, HTML, LABEL_HEADINGS, MARKDOWN
from tests.support.nbgrading import read_source

PS = "ps0_high_dimensions"
NBGRADER_CSS = os.path.join(os.path.dirname(nbgrader.__file__), "server_extensions", "formgrader",
                            "static", "node_modules", "bootstrap", "dist", "css")
HOSTILE_TEXT = " ".join(FIELDS.values())
#: what the graders' comments say: every plain-field payload and a few markdown ones
COMMENT = "Good start. " + HOSTILE_TEXT + "\n\n" + "\n\n".join(
    MARKDOWN[k] for k in ("raw_img_onerror", "code_span", "md_link", "mathjax_href", "fence"))
#: the notebook name the page is titled with (nbgrader's resources)
NOTEBOOK_NAME = "ps0 " + FIELDS["title_break"] + FIELDS["close_attr"]
WRITTEN_ANSWER = "My written answer about random directions"
HOSTILE_GRADE_ID = "written_search" + FIELDS["close_attr"]
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(40))).decode()


class GradesOf(Preprocessor):
    """Sets what nbgrader's ``GetGrades`` sets, without a gradebook: each graded cell's
    score (half its points) and points, each answer's and task's comment (:data:`COMMENT`),
    and the notebook's score, maximum and late penalty."""

    enabled = Bool(True).tag(config=True)

    def preprocess(self, nb, resources):
        total = maximum = 0.0
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("solution") or meta.get("task"):
                meta["comment"] = COMMENT
            if meta.get("grade") or meta.get("task"):
                meta["points"] = float(meta.get("points", 0))
                meta["score"] = meta["points"] / 2
                total, maximum = total + meta["score"], maximum + meta["points"]
        resources["nbgrader"].update(score=total, max_score=maximum, late_penalty=0)
        return nb, resources


def _graded_tests(nb) -> list[int]:
    return [i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade")]


def hostile_notebook():
    """ps0's notebook, graded, with the catalogue in every field (see the module)."""
    nb = copy.deepcopy(read_source(PS))
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade_id") == "part3":  # the course's own heading, made hostile
            cell.source = "## Part 3 — " + HOSTILE_TEXT + " (5 points)\n\nWrite it."
        if meta.get("grade_id") == "written_search":
            cell.source = WRITTEN_ANSWER + ".\n\n" + "\n\n".join(MARKDOWN.values())
            meta["grade_id"] = HOSTILE_GRADE_ID
        cell.metadata["tags"] = [FIELDS["dq_attr"]]
        cell.metadata["alt"] = FIELDS["close_attr"]
    headings = list(LABEL_HEADINGS.values())
    for n, index in enumerate(reversed(_graded_tests(nb))):  # a heading before each graded cell
        heading = headings[n % len(headings)] if n else LABEL_HEADINGS["code"]  # the issue's
        nb.cells.insert(index, new_markdown_cell(heading + "\n\nadded by the student"))
    nb.cells.insert(1, new_markdown_cell("\n\n".join(MARKDOWN.values())))
    nb.cells.insert(1, new_raw_cell("\n".join(HTML.values()), metadata={"raw_mimetype": "text/html"}))
    nb.cells.insert(1, new_code_cell("show()", execution_count=1, outputs=_outputs()))
    for name, bundle in (("notes.html", {"text/html": HTML["script"]}),
                         (FIELDS["dq_attr"], {"image/png": PNG})):
        attached = new_markdown_cell(f"![figure](attachment:{name})")
        attached["attachments"] = {name: bundle}
        nb.cells.insert(1, attached)
    nb.metadata.update(
        title=FIELDS["title_break"], authors=[{"name": FIELDS["close_attr"]}],
        kernelspec={"name": FIELDS["dq_attr"], "display_name": FIELDS["tag"], "language": "python"},
        language_info={"name": FIELDS["sq_attr"], "pygments_lexer": FIELDS["tag"],
                       "codemirror_mode": FIELDS["js_url"], "version": FIELDS["tex"]},
        widgets={"application/vnd.jupyter.widget-state+json": {
            "state": {FIELDS["tag"]: {}}, "version_major": 2, "version_minor": 0}},
    )
    return nb


def _outputs() -> list:
    outputs = [new_output("display_data", data={"text/html": html, "text/plain": name})
               for name, html in HTML.items()]
    outputs += [new_output("display_data", data={"text/markdown": md}) for md in MARKDOWN.values()]
    outputs += [
        new_output("display_data", data={"application/javascript": HTML["script"][8:-9]}),
        new_output("display_data", data={"image/svg+xml": HTML["svg_onload"]}),
        new_output("display_data", data={"text/html": HTML["script"]},
                   metadata={"text/html": {"isolated": True}}),
        new_output("display_data", data={"image/png": PNG},
                   metadata={"image/png": {"width": FIELDS["dq_attr"], "alt": FIELDS["close_attr"]},
                             "filenames": {"image/png": FIELDS["close_attr"]}}),
        new_output("execute_result", execution_count=1, data={"text/latex": HOSTILE_TEXT}),
        new_output("stream", name="stdout", text=HOSTILE_TEXT),
        new_output("error", ename=FIELDS["tag"], evalue=FIELDS["title_break"],
                   traceback=[FIELDS["close_attr"]]),
    ]
    return outputs


def course_exporter():
    """The exporter nbgrader's ``GenerateFeedback`` builds from the course's config, its steps
    registered in the config's order (``GetGrades`` replaced by :class:`GradesOf`)."""
    cfg = Course(REPO_ROOT).config()
    config = Config()
    config.merge(cfg)
    config.HTMLExporter.template_name = "feedback"
    config.HTMLExporter.extra_template_paths = [NBGRADER_CSS]
    exporter = import_item(cfg.GenerateFeedback.exporter_class)(config=config)
    for name in cfg.GenerateFeedback.preprocessors:
        step = GradesOf if name == "nbgrader.preprocessors.GetGrades" else import_item(name)
        exporter.register_preprocessor(step, enabled=True)
    return exporter


def render_feedback(nb=None) -> str:
    """The feedback page of ``nb`` (default :func:`hostile_notebook`)."""
    nb = hostile_notebook() if nb is None else nb
    resources = {"nbgrader": {"notebook": NOTEBOOK_NAME, "assignment": PS, "student": "mallory"}}
    return course_exporter().from_notebook_node(nb, resources=resources)[0]
