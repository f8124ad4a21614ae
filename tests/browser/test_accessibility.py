"""axe-core finds no serious or critical accessibility violation on the pages students read.

Offline chromium (no request leaves the machine) opens, from files:

* a feedback page rendered as ``nbgrader generate_feedback`` renders it with the course's
  exporter, template and steps (:func:`tests.html.hostile_feedback.render_feedback`): ps0's
  graded notebook with the graders' comments and payloads in every field (its code, outputs
  of every kind, long lines, links in text); nbgrader's own template failed on
  contrast (grey links on the blue headings), a page without a language, links told from
  text by colour alone and code boxes that scroll out of a keyboard's reach;
* a student's overview (:func:`kit.checks.overview_page.write_overview`) on the small term
  of :mod:`tests.checks.overview_course`, with an extension's reason full of markup.

The same checks run on the pages the real hub serves (``tests/browser/test_real_hub.py``:
there without the highlighted code's token colours, checked here, as axe-core's contrast rule
takes a minute over a whole problem set's tokens).
"""

from __future__ import annotations

import pytest

from tests.browser.axe import serious_violations

pytestmark = pytest.mark.filterwarnings("ignore:Your element with mimetype", "ignore:No lexer found")


@pytest.fixture
def offline(browser):
    context = browser.new_context(offline=True, viewport={"width": 1280, "height": 900})
    yield context.new_page()
    context.close()


def test_feedback_page(offline, tmp_path):
    from tests.html.hostile_feedback import render_feedback

    page_file = tmp_path / "feedback.html"
    page_file.write_text(render_feedback())
    offline.goto(page_file.as_uri())
    assert offline.locator("#toc a").count() > 3  # the page is there to be checked
    assert serious_violations(offline) == []


def test_overview_page(offline, released_ps1, tmp_path):
    from kit.checks.overview_page import write_overview
    from tests.checks.overview_course import NOW, make_term

    course = make_term(released_ps1, tmp_path / "course")
    page_file = write_overview(course, "ada", tmp_path / "ada.html", NOW)
    offline.goto(page_file.as_uri())
    assert offline.get_by_role("link", name="feedback on ps1_circle_lift").count() == 1
    assert serious_violations(offline) == []
