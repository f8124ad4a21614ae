"""No student script runs in a TA's or a student's browser (headless chromium).

A ps4_centering submission carries script payloads in its code cells' outputs (HTML,
JavaScript, SVG, markdown, isolated HTML, image metadata, widgets), in its written answer,
in an added markdown cell and in an added "## Part 2 `<img onerror>`" heading before a
graded cell (issue 27: it became that cell's label on the feedback page, printed unescaped).
Every payload, if it ran, would set ``window.__pwned``, change ``document.title``, call
``alert`` or make a request to a listener of this test. It is graded through the real
``nbgrader autograde``; then formgrader's "manually grade" view of the submission and its
feedback page are opened in chromium. Nothing may run, and the written answer must still be
on the page.

``oldgrade`` hands in the same notebook, autograded without the sanitiser (as before this
step existed): formgrader and its feedback must still show it inert, and the same notebook
rendered by stock nbconvert shows the payloads do run in this browser.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from nbformat.v4 import new_markdown_cell

from kit.course import copy_course
from kit.handback.feedback import feedback_page, write_feedback
from kit.html.sanitize import BLANK_PNG
from kit.intake.submitted import build_submission, lay, solution_text
from kit.release import release
from tests.browser.harness import HitListener
from tests.support.nbgrading import nb_meta, read_source

# stock nbconvert warns that it cannot draw the widget output: that is expected
pytestmark = pytest.mark.filterwarnings("ignore:Your element with mimetype")

PS = "ps4_centering"
CODE_CELL = "centring_matrix_answer"
WRITTEN = "written_training_mean"
STUDENTS = ("mallory", "oldgrade", "blank")
ANSWER = "My written answer: the mean of the training features is the centre"
SANITISER = '    "kit.html.sanitize.SanitizeStudentContent",\n'


def js(hit: str, name: str) -> str:
    """Script that, if it runs, leaves every trace the tests look for (no spaces in it)."""
    return (f"window.__pwned=(window.__pwned||'')+'{name};';document.title='PWN-{name}';"
            f"fetch('{hit}/js-{name}');alert('PWN-{name}')")


def payload_code(hit: str) -> str:
    j = lambda name: js(hit, name)
    png = BLANK_PNG
    displays = [
        ("HTML", f"<script>{j('html-script')}</script>"),
        ("HTML", f'<img src=x onerror="{j("html-img")}">'),
        ("HTML", f'<svg onload="{j("html-svg")}"></svg>'),
        ("HTML", f'<details open ontoggle="{j("html-details")}">d</details>'),
        ("HTML", (f'<iframe srcdoc="<script>parent.eval(atob(\'{_b64(j("srcdoc"))}\'))</script>">'
                 "</iframe>")),
        ("HTML", f'<a href="javascript:{j("html-link")}">click me</a>'),
        ("HTML", f'<meta http-equiv="refresh" content="0;url={hit}/html-meta">'),
        ("HTML", f'<img src="{hit}/html-beacon">'),
        ("HTML", f'<link rel="stylesheet" href="{hit}/html-css">'),
        ("HTML", f'<object data="{hit}/html-object"></object>'),
        ("HTML", "<style>body{visibility:hidden}</style>"),
        ("Javascript", j("javascript")),
        ("SVG", (f'<svg xmlns="http://www.w3.org/2000/svg" onload="{j("svg")}"><script>'
                f'{j("svg-script")}</script></svg>')),
        ("Markdown", (f'<img src=x onerror="{j("markdown-img")}">\n\n'
                      f'[md](javascript:{j("md-link")})')),
    ]
    lines = ["from IPython.display import display, HTML, Javascript, SVG, Markdown"]
    lines += [f"display({kind}({text!r}))" for kind, text in displays]
    lines += [
        (f"display({{'text/html': {'<script>' + j('isolated') + '</script>'!r}}}, raw=True,"
        " metadata={'text/html': {'isolated': True}})"),
        (f"display({{'image/png': 'AAAA'}}, raw=True, metadata={{'image/png': "
        f"{{'width': {'1 onerror=' + j('png-width')!r}}}}})"),
        f"display({{'image/png': {png!r}, 'text/plain': 'a plot'}}, raw=True)",
        ("display({'application/vnd.jupyter.widget-view+json': {'model_id': 'x', "
        "'version_major': 2, 'version_minor': 0}}, raw=True)"),
        f"print({'<script>' + j('stdout') + '</script>'!r})",
    ]
    return "\n".join(lines) + "\n"


def _b64(text: str) -> str:
    import base64

    return base64.b64encode(text.encode()).decode()


def written_answer(hit: str) -> str:
    j = lambda name: js(hit, name)
    return (
        f"{ANSWER}, so $\\tilde K = HKH$ and $0 \\le \\lambda_i$ whenever $a<b$.\n\n"
        f"<script>{j('answer-script')}</script>\n"
        f'<img src=x onerror="{j("answer-img")}">\n'
        f'<iframe src="javascript:{j("answer-iframe")}"></iframe>\n'
        f'<svg onload="{j("answer-svg")}"></svg>\n'
        "<style>.panel, .cell {display:none}</style>\n"
        f'<meta http-equiv="refresh" content="0;url={hit}/answer-meta">\n'
        f'<form action="{hit}/answer-form"><button>go</button></form>\n'
        f'<object data="{hit}/answer-object"></object>\n\n'
        f"[a harmless looking link](javascript:{j('answer-link')})\n"
    )


def _nbgrader(course, *args) -> None:
    env = {**os.environ, "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]}
    run = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course.root, env=env,
                         capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stderr[-3000:]


@pytest.fixture(scope="module")
def listener():
    with HitListener() as hits:
        yield hits


@pytest.fixture(scope="module")
def graded(tmp_path_factory, listener):
    """The course, after ``nbgrader autograde`` and feedback of the three students."""
    course = copy_course(tmp_path_factory.mktemp("browser-course"), [PS])
    assert not release(course, [PS])
    solution = next(c.source for c in read_source(PS).cells
                    if nb_meta(c).get("grade_id") == CODE_CELL)
    nb = build_submission(course, PS, {
        CODE_CELL: solution_text(solution) + "\n" + payload_code(listener.url),
        WRITTEN: written_answer(listener.url),
    })
    nb.cells.insert(0, new_markdown_cell(f"Added by the student <script>{js(listener.url, 'added')}"
                                         "</script> **added cell text**"))
    # issue 27: a heading before a graded cell became its feedback label, printed unescaped
    graded_cell = next(i for i, c in enumerate(nb.cells)
                       if nb_meta(c).get("grade") and not nb_meta(c).get("solution"))
    nb.cells.insert(graded_cell, new_markdown_cell(
        f"## Part 2 `<img src=x onerror=\"{js(listener.url, 'label')}\">`"))
    for student in ("mallory", "oldgrade"):
        lay(course, PS, student, nb)
    lay(course, PS, "blank", course.notebook("release", PS))
    config = course.root / "nbgrader_config.py"
    text = config.read_text()
    assert text.count(SANITISER) == 2  # once in autograde, once in feedback
    cut = text.rindex(SANITISER)  # the autograde one comes last
    config.write_text(text[:cut] + text[cut + len(SANITISER):])  # autograde as before the step
    _nbgrader(course, "autograde", PS, "--student", "oldgrade")
    config.write_text(text)
    _nbgrader(course, "autograde", PS, "--student", "[mb]*")
    for student in STUDENTS:
        assert write_feedback(course, PS, student) == ""
    return course


@pytest.fixture(scope="module")
def server(graded, jupyter_server_for):
    return jupyter_server_for(graded.root)


def submission_id(course, student: str) -> str:
    from nbgrader.api import Gradebook

    with Gradebook(course.db_url) as gb:
        return gb.find_submission_notebook(PS, PS, student).id


def assert_nothing_ran(page, listener) -> None:
    """No dialog, no ``window.__pwned``, no title change, no request to the listener, no
    navigation away; then the student's links are clicked, and still nothing may run (a
    neutralised link may only lead to a harmless page of the same server)."""
    url = page.url
    page.wait_for_timeout(1500)  # time for timers, refreshes and requests to fire
    log = page.kpca_log
    assert log.dialogs == []
    assert page.evaluate("window.__pwned") is None
    assert "PWN" not in page.title()
    assert listener.hits == []
    assert page.url == url
    for text in ("click me", "a harmless looking link"):
        link = page.locator("a", has_text=text)
        if link.count():
            link.first.click()
            page.wait_for_timeout(1000)
            assert page.evaluate("window.__pwned") is None
            page.goto(url)
    assert log.dialogs == [] and listener.hits == [] and "PWN" not in page.title()
    assert [u for u in log.requests if urlsplit(u).port == listener.port] == []


def assert_answer_shown(page) -> None:
    assert page.get_by_text(ANSWER).first.is_visible()
    assert page.get_by_text("added cell text").first.is_visible()
    # the attempted markup is shown to the reader as text, not run
    assert page.get_by_text("<iframe src=").first.is_visible()


def _what_ran(page, listener) -> set[str]:
    page.wait_for_timeout(1500)
    page.locator("a", has_text="click me").first.dispatch_event("click")  # the page is hidden
    page.wait_for_timeout(500)
    ran = {n for n in (page.evaluate("window.__pwned") or "").split(";") if n}
    ran |= {hit.strip("/") for hit in listener.hits}
    listener.hits.clear()
    print(f"\n{page.url.split('?')[0]}: {len(page.kpca_log.dialogs)} dialogs; ran: {sorted(ran)}")
    return ran


@pytest.fixture(scope="module")
def stock_server(graded, jupyter_server_for, tmp_path_factory):
    """Formgrader as it was: a copy of the course whose formgrader does not sanitise."""
    root = tmp_path_factory.mktemp("stock") / "course"
    shutil.copytree(graded.root, root)
    config = root / "nbgrader_config.py"
    lines = config.read_text().splitlines(keepends=True)
    config.write_text("".join(x for x in lines if not x.startswith("c.HTMLExporter.preprocessors")))
    return jupyter_server_for(root)


def test_payloads_run_in_stock_formgrader(graded, stock_server, page, listener):
    """The payloads are real: formgrader without the sanitiser runs them in chromium."""
    page.goto(stock_server.page_url(f"formgrader/submissions/{submission_id(graded, 'oldgrade')}/"))
    ran = _what_ran(page, listener)
    assert {"html-script", "html-img", "javascript", "answer-script", "added", "html-link",
            "html-beacon"} <= ran
    assert page.kpca_log.dialogs
    assert page.get_by_text(ANSWER).first.is_hidden()  # the student's <style> hid the page


def test_payloads_run_in_a_stock_nbconvert_page(graded, page, listener, tmp_path):
    """And so does the page stock nbconvert makes of it (as feedback was before)."""
    from nbconvert import HTMLExporter
    from traitlets.config import Config

    stock = HTMLExporter(config=Config(), template_name="classic")
    html, _ = stock.from_filename(str(graded.notebook("autograded", PS, "oldgrade")))
    path = tmp_path / "stock.html"
    path.write_text(html)
    page.goto(path.as_uri())
    ran = _what_ran(page, listener)
    assert {"html-script", "html-img", "answer-script", "added", "html-link", "html-beacon"} <= ran
    assert page.kpca_log.dialogs


def test_autograded_notebook_on_disk_is_sanitised(graded):
    import nbformat
    from nbconvert.filters.markdown import markdown2html

    from kit.html.markdown import active_html

    def problems(student):
        nb = nbformat.read(graded.notebook("autograded", PS, student), as_version=4)
        found = []
        for cell in nb.cells:
            if cell.cell_type == "markdown":
                found += active_html(markdown2html(cell.source))
            for out in cell.get("outputs", []):
                data = out.get("data", {})
                found += [m for m in data
                          if m not in ("text/plain", "text/html", "text/markdown", "image/png")]
                found += active_html(data.get("text/html", ""))
                found += active_html(markdown2html(data.get("text/markdown", "")))
        return found

    assert problems("mallory") == []
    assert len(problems("oldgrade")) > 20  # the same notebook, autograded without the step


def test_written_answers_keep_their_manual_grading_state(graded):
    """Sanitising after SaveAutoGrades: an answer needs a grader, a blank one scores 0."""
    from nbgrader.api import Gradebook

    with Gradebook(graded.db_url) as gb:
        answered = gb.find_grade(WRITTEN, PS, PS, "mallory")
        blank = gb.find_grade(WRITTEN, PS, PS, "blank")
        assert answered.auto_score is None and answered.needs_manual_grade
        assert blank.auto_score == 0 and not blank.needs_manual_grade
        assert gb.find_comment(WRITTEN, PS, PS, "blank").auto_comment == "No response."


@pytest.mark.parametrize("student", ["mallory", "oldgrade"])
def test_formgrader_runs_no_student_script(graded, server, page, listener, student):
    url = server.page_url(f"formgrader/submissions/{submission_id(graded, student)}/")
    page.goto(url)
    page.wait_for_load_state("load")
    assert page.locator(f"input.score#{WRITTEN}").is_visible()  # the grading form is there
    assert_answer_shown(page)
    assert_nothing_ran(page, listener)


@pytest.mark.parametrize("student", ["mallory", "oldgrade"])
def test_feedback_page_runs_no_student_script(graded, page, listener, student):
    page.goto(feedback_page(graded, PS, student).as_uri())
    page.wait_for_load_state("load")
    assert_answer_shown(page)
    assert_nothing_ran(page, listener)



def test_formgrader_renders_with_the_feedback_exporter(graded, server, page):
    """The kit's server extension (kit/handback/formgrader.py) is on: the page's maths is
    MathML, laid out by the browser, where nbconvert's exporter left TeX for a MathJax that
    is not reachable offline."""
    page.goto(server.page_url(f"formgrader/submissions/{submission_id(graded, 'mallory')}/"))
    page.wait_for_load_state("load")
    assert page.locator("math").count() > 5
    assert page.locator("math").first.bounding_box()["height"] > 0
