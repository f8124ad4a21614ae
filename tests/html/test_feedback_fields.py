"""Every field a page built from a student's notebook prints is text, never markup.

The feedback page (``kit/templates/feedback``, rendered with the course's own exporter and
steps) of a notebook carrying the XSS catalogue in every field it prints: part labels (the
issue's ``## Part 2 `<img onerror>``` heading before a graded cell among them, and a course
heading made of hostile text), grade ids, graders' comments, the notebook's name, title,
authors, kernelspec and language_info, cell tags and ``alt`` texts, written answers, added
cells, every output type, attachments. Nothing in the page may run, and the labels still
name the course's parts. The class report is checked the same way
(``tests/html/test_report_fields.py``); chromium opens both
(``tests/browser/test_feedback_fields_browser.py``).

Also: the template itself (no ``|safe``, no autoescape switch, every ``{{ }}`` escaped or one
of the known safe forms) and the order of the feedback steps (the sanitiser last).
"""

from __future__ import annotations

import copy
import html
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from nbformat.v4 import new_code_cell, new_output

from kit.course import REPO_ROOT, Course
from kit.feedback_labels import LabelTestCells, label, part_title
from kit.html.markdown import _MATHJAX_ACTIVE, sanitize_markdown
from tests.html.hostile_feedback import (
    HOSTILE_GRADE_ID,
    NOTEBOOK_NAME,
    WRITTEN_ANSWER,
    hostile_notebook,
    render_feedback,
)
from tests.html.test_sanitize import live_markers
from tests.html.xss_payloads import FIELDS, LABEL_HEADINGS
from tests.support.nbgrading import read_source

pytestmark = pytest.mark.filterwarnings("ignore:Your element with mimetype",
                                        "ignore:No lexer found")
TEMPLATE = REPO_ROOT / "kit" / "templates" / "feedback" / "index.html.j2"


@pytest.fixture(scope="module")
def page() -> str:
    return render_feedback()


def _without_own_title(page: str) -> str:
    """The page without its own ``<title>`` (its text is the escaped notebook name, which the
    marker search would read as a student's ``<title>``); checked on its own below."""
    return re.sub(r"<title>[^<]*</title>", "", page, count=1)


def test_nothing_in_the_feedback_page_can_run(page):
    assert live_markers(_without_own_title(page)) == set()


def test_the_page_title_is_the_escaped_notebook_name(page):
    soup = BeautifulSoup(page, "html.parser")
    assert [t.get_text() for t in soup.find_all("title")] == [NOTEBOOK_NAME]
    own = re.search(r"<title>([^<]*)</title>", page)  # the whole name, escaped, in one title
    assert own and html.unescape(own.group(1)) == NOTEBOOK_NAME
    assert soup.find("h4").get_text().startswith(NOTEBOOK_NAME)


def test_no_mathjax_link_or_style_macro_is_left_in_the_body(page):
    """MathJax typesets the page's text but for ``pre``/``code`` (streams, errors, code): no
    macro that makes a link, loads an extension or sets a style may be left in it."""
    soup = BeautifulSoup(page, "html.parser")
    for skipped in soup(["head", "script", "style", "pre", "code", "textarea"]):
        skipped.decompose()
    found = [m.group() for m in _MATHJAX_ACTIVE.finditer(soup.get_text())]
    assert found == []


def test_labels_are_shown_as_text_and_name_the_courses_parts(page):
    soup = BeautifulSoup(page, "html.parser")
    labels = [s.get_text() for s in soup.select("span.nbgrader-label")
              if s.get_text() != "Student's answer"]
    toc = [a.get_text() for a in soup.select("#toc a") if a.get_text() != "Comment"]
    assert len(toc) == 9 and len(labels) == 8  # a written answer is headed "Student's answer"
    # the course's Part 3 heading, hostile text and all, is shown as the text it is
    part3 = [t.replace("\u200b", "") for t in labels if t.startswith("Part 3 — ")]
    assert len(part3) == 2 and all(FIELDS["close_attr"][:40] in t for t in part3), part3
    assert any("onerror=" in t for t in toc)
    # a heading the student added names nothing: each label is the course's own part
    assert not [t for t in labels + toc if "added by the student" in t or "Part 2 `" in t]
    assert "Part 2 — Your dimension, exactly: ratio_mine 2 + corner_mine 1 points" in labels


def test_the_written_answer_and_the_comment_are_shown(page):
    soup = BeautifulSoup(page, "html.parser")
    text = soup.get_text()
    assert WRITTEN_ANSWER in text and "Good start." in text
    assert soup.find("a", attrs={"name": HOSTILE_GRADE_ID}) is None  # normalised, not printed
    assert soup.find("a", attrs={"name": re.sub(r"[^A-Za-z0-9_\-]", "_", HOSTILE_GRADE_ID)})


def test_labels_come_from_the_courses_cells_only():
    """Headings a student adds before graded cells change no label."""
    clean, hostile = copy.deepcopy(read_source("ps0_high_dimensions")), hostile_notebook()

    def labels(nb):
        nb, _ = LabelTestCells().preprocess(nb, {})
        return [c.metadata["kit_label"] for c in nb.cells if "kit_label" in c.metadata]

    got, want = labels(hostile), labels(clean)
    assert len(got) == len(want) == 9
    assert [a for a, b in zip(got, want) if a != b and not a.startswith("Part 3 — ")] == []


@pytest.mark.parametrize("name", sorted(LABEL_HEADINGS))
def test_a_label_is_plain_text_whatever_the_heading(name):
    """What a label is made of, even from a heading of the course's, holds no tag opener
    and no MathJax macro once the feedback steps are through with it."""
    from kit.html.markdown import TAG_OPENER
    from kit.html.sanitize import plain_text

    heading = sanitize_markdown(LABEL_HEADINGS[name])
    text = plain_text(label(part_title(heading), "", 2))
    assert not TAG_OPENER.search(text) and not _MATHJAX_ACTIVE.search(text), text
    assert "\n" not in text and len(text) <= 200


@pytest.mark.parametrize("name", sorted(FIELDS))
def test_every_printed_cell_field_is_made_inert(name):
    from kit.html.markdown import TAG_OPENER
    from kit.html.sanitize import sanitize_cell_fields

    payload = FIELDS[name]
    cell = new_code_cell("x", outputs=[new_output("execute_result", data={"text/plain": "1"},
                                                  execution_count=1)])
    cell.execution_count = payload
    cell.outputs[0].execution_count = payload
    cell.metadata.update(kit_label=payload, nbgrader={"grade_id": payload, "comment": payload})
    sanitize_cell_fields(cell)
    meta = cell.metadata.nbgrader
    assert cell.execution_count is None and cell.outputs[0].execution_count is None
    assert re.fullmatch(r"[A-Za-z0-9_\-]*", meta["grade_id"])
    assert not TAG_OPENER.search(meta["comment"]) and not _MATHJAX_ACTIVE.search(meta["comment"])
    assert not TAG_OPENER.search(cell.metadata.kit_label)


# -- the template, read as text -----------------------------------------------------------

#: the forms a ``{{ }}`` of the course's template may take: escaped text, numbers, the base
#: template's blocks and macros, course CSS, and markdown/code renderers of sanitised sources
SAFE_EXPRESSIONS = [
    r".+\|\s*e",  # escaped
    r"[\w.]+\s*\|\s*float\s*\|\s*round\(2\)",  # a number
    r"super\(\)", r"self\.\w+\(\)", r"(score|nbgrader_heading|nbgrader_footer)\(cell\)",
    r"resources\.include_css\('[\w.]+'\)", r"css",
    r"cell\.source\s*\|\s*markdown2html\s*\|\s*strip_files_prefix",
    r"cell\.metadata\.nbgrader\.comment\s*\|\s*markdown2html\s*\|\s*strip_files_prefix",
    r"cell\.source\s*\|\s*highlight_code\(metadata=cell\.metadata\)",
    # escaped text with its inline maths drawn as checked MathML (kit/html/maths.py)
    r".+\|\s*maths_text",
    r"output\.data\['text/latex'\]\s*\|\s*latex_output",
]


def _expressions(path: Path) -> list[str]:
    text = re.sub(r"\{#.*?#\}", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
    return [m.strip() for m in re.findall(r"\{\{-?(.*?)-?\}\}", text, flags=re.DOTALL)]


def test_the_template_escapes_every_field_it_prints():
    templates = sorted((REPO_ROOT / "kit" / "templates").rglob("*.j2"))
    assert TEMPLATE in templates
    for path in templates:
        text = re.sub(r"\{#.*?#\}", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
        assert not re.search(r"\|\s*safe\b|autoescape|\bMarkup\b", text), path
        unsafe = [x for x in _expressions(path)
                  if not any(re.fullmatch(p, x, flags=re.DOTALL) for p in SAFE_EXPRESSIONS)]
        assert unsafe == [], f"{path.name}: printed without escaping: {unsafe}"
        assert not [x for x in _expressions(path) if "~" in x and not x.endswith("e")], path


def test_the_sanitiser_is_the_last_feedback_step():
    """Everything the feedback template prints passes it: the graders' comments (added by
    GetGrades) and the labels (LabelTestCells) come before it."""
    steps = Course(REPO_ROOT).config().GenerateFeedback.preprocessors
    assert steps[-1] == "kit.html.sanitize.SanitizeStudentContent"
    assert steps.index("nbgrader.preprocessors.GetGrades") < len(steps) - 1
    assert steps.index("kit.feedback_labels.LabelTestCells") < len(steps) - 1


def test_the_course_feedback_still_reads_the_same():
    """An honest notebook's page: labels, maths and code read as before."""
    page = render_feedback(copy.deepcopy(read_source("ps0_high_dimensions")))
    soup = BeautifulSoup(page, "html.parser")
    labels = [s.get_text() for s in soup.select("span.nbgrader-label")]
    assert "Part 1 — The ball inside the cube: ball_cube_ratio, 4 points" in labels
    assert live_markers(_without_own_title(page)) == set()
