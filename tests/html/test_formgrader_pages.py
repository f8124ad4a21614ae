"""Formgrader's submission pages render with the feedback's exporter (kit/handback/formgrader.py).

The server extension replaces formgrader's ``HTMLExporter`` with
:class:`~kit.handback.exporter.FeedbackExporter` of the same configuration. On a graded
submission with a student's hostile HTML, its page (nbgrader's ``formgrade`` template, the
course's sanitiser) is the same document as the one nbconvert's own accessibility pass gives,
still carries the grading form, and runs nothing of the student's. The browser side (a real
formgrader server, chromium) is ``tests/browser/test_no_student_script.py``.
"""

from __future__ import annotations

from bs4 import BeautifulSoup
from nbconvert.exporters import HTMLExporter
from traitlets.config import Config

from kit.handback.exporter import FeedbackExporter
from kit.handback.formgrader import SETTING, use_feedback_exporter
from tests.html.test_feedback_exporter import HOSTILE_PS as PS
from tests.html.test_feedback_exporter import NbconvertPass, graded_hostile_handin


def same_lines(a: str, b: str) -> bool:
    """:func:`tests.html.test_feedback_exporter.same_document` but for blank lines: serialising nbconvert's already serialised
    page again drops the one blank line formgrader's navigation bar ends with."""
    def lines(page):
        return [x for x in str(BeautifulSoup(page, "html.parser")).splitlines() if x.strip()]

    return lines(a) == lines(b)


def formgraders_config(course) -> Config:
    """What nbgrader's formgrader gives its exporter: its own template over the course's
    configuration (``FormgradeExtension.build_extra_config``)."""
    from nbgrader.server_extensions.formgrader import handlers

    config = Config()
    config.HTMLExporter.template_name = "formgrade"
    config.HTMLExporter.extra_template_basedirs = [handlers.template_path]
    config.merge(course.api().config)
    return config


def test_only_formgraders_plain_exporter_is_replaced():
    settings = {SETTING: HTMLExporter(config=Config(HTMLExporter={"template_name": "lab",
                                                                  "exclude_input": True}))}
    assert use_feedback_exporter(settings)
    assert type(settings[SETTING]) is FeedbackExporter
    assert settings[SETTING].exclude_input  # the same configuration
    assert not use_feedback_exporter(settings)  # once
    assert not use_feedback_exporter({})  # a server without formgrader


def test_a_graded_submissions_page_is_the_same_document(tmp_path):
    course = graded_hostile_handin(tmp_path)
    config = formgraders_config(course)
    settings = {SETTING: HTMLExporter(config=config)}
    assert use_feedback_exporter(settings)
    exporter = settings[SETTING]
    assert exporter.preprocessors == ["kit.html.sanitize.SanitizeStudentContent"]
    resources = {"assignment_id": PS, "notebook_id": PS, "submission_id": "s1", "index": 0,
                 "total": 1, "base_url": "/", "student": "ada", "last_name": "Lovelace",
                 "first_name": "Ada", "notebook_path": f"autograded/ada/{PS}/{PS}.ipynb"}
    path = str(course.notebook("autograded", PS, "ada"))
    mine, _ = exporter.from_filename(path, resources=dict(resources))
    stock, _ = NbconvertPass(config=config).from_filename(path, resources=dict(resources))
    assert mine != stock and same_lines(mine, stock)
    soup = BeautifulSoup(mine, "html.parser")
    assert soup.select("input.score") and "Ada" in soup.get_text()  # formgrader's form
    assert not [t for t in soup.find_all("script") if "alert(" in t.get_text()]
    handlers = [v for t in soup.find_all(True) for a, v in t.attrs.items() if a.startswith("on")]
    assert handlers and all("toggle_name" in v for v in handlers)  # formgrader's own only
    assert [t for t in soup.find_all("img") if "<script>" in t.get("title", "")]  # as text
