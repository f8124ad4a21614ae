"""The class report as a TA sees it in chromium: its sections and numbers, every plot
loaded, and every feedback link opening the student's page (ada's with the TA's comment).

The class is the small graded ps1 class of ``tests/support/graded_class.py`` (shared with
``tests/report/``, graded once per session).
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from tests.support.graded_class import HAND_COMMENT, PS, graded_class


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    return graded_class(tmp_path_factory).course.root / "reports" / "class_report.html"


def test_class_report_renders_with_its_numbers_plots_and_links(page, report):
    page.goto(report.as_uri())
    page.wait_for_load_state("load")
    assert page.title() == "Class report"
    headings = page.locator("h2").all_inner_texts()
    assert headings[0] == PS and "Students" in headings
    section = page.locator(f"section#{PS}").inner_text()
    assert "4 graded, 1 not submitted, 1 could not be graded" in section
    assert "1 of 4 graded notebooks hand-graded" in section
    assert "Part 1 — Variance shares on a circle" in section
    assert "not_centred" in section and "lift_column_order" in section

    images = page.eval_on_selector_all(
        "img", "els => els.map(i => [i.complete, i.naturalWidth, i.naturalHeight])")
    assert images and all(done and w > 0 and h > 0 for done, w, h in images), images

    students = page.locator("section#students")
    assert "23 + 3.5 = 26.5" in students.locator("tr", has_text="ada").inner_text()
    assert "not submitted" in students.locator("tr", has_text="zoe").inner_text()
    hrefs = students.locator("a").evaluate_all("els => els.map(a => a.href)")
    assert len(hrefs) == 4
    for href in hrefs:
        assert urlsplit(href).scheme == "file" and Path(unquote(urlsplit(href).path)).is_file(), href

    students.locator("tr", has_text="ada").locator("a").click()
    page.wait_for_load_state("load")
    assert page.url.endswith(f"/feedback/ada/{PS}/{PS}.html")
    assert HAND_COMMENT in page.locator("body").inner_text()
