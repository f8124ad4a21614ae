"""The student's and the TA's week on a JupyterHub-style course, in headless chromium.

ps1_circle_lift is released to a temporary exchange. The three tests run in order on the
same course, one Jupyter server per person for the whole module:

1. ada, in JupyterLab: the *Assignments* panel lists ps1; she fetches it, opens it, types
   her ``variance_shares`` into its cell (her other answers were written earlier in the
   week: laid in the fetched file before it is opened), runs all cells, sees her plots,
   validates (success) and submits from the panel. bob hands in from a terminal.
2. The TA, in formgrader: collects, sees both submissions, autogrades ada's (the score
   equals ``python -m kit.autograde`` on the same notebook in a copy of the course), gives
   her written answer points and a comment, generates and releases her feedback;
   the gradebook and ``nbgrader export`` carry the hand grade.
3. ada fetches her feedback from the panel and opens it: her score, the judge's lines,
   her plots and the TA's comment are on the page, and no hidden test line is.
"""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
import time

import nbformat
import pytest
from playwright.sync_api import expect

from tests.browser import lab
from tests.browser.hub import COURSE_ID, PS, make_hub
from tests.support import nbgrading
from tests.support.nbgrading import auto_points, hidden_test_lines, nb_meta, read_source, variants

STUDENT, CLASSMATE = "ada", "bob"
TYPED = "variance_shares_answer"  # the answer ada types in the browser
WRITTEN = "why_both_directions"  # the written answer the TA grades by hand
HAND_POINTS = 1.5
COMMENT = "Right about the equal spread; say which structure PCA can find (a line)."
ROW_ID = f"#nbgrader-{COURSE_ID}-{PS}"


def solution_of(grade_id: str) -> str:
    return nbgrading.solution_of(PS, grade_id)


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    return make_hub(tmp_path_factory.mktemp("week"), (STUDENT, CLASSMATE))


@pytest.fixture(scope="module")
def student_server(hub, jupyter_server_for):
    server = jupyter_server_for(hub.homes[STUDENT], app="lab", env=hub.student_env(STUDENT))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def ta_server(hub, jupyter_server_for):
    server = jupyter_server_for(hub.course.root, env=hub.ta_env())
    yield server
    server.stop()


@pytest.fixture(scope="module")
def seen(hub):
    """What the tests saw, for the later ones: plots in the lab, scores."""
    return {}


def test_student_fetches_works_validates_and_submits(hub, student_server, page, seen):
    from kit.intake.submitted import build_submission

    lab.open_lab(page, student_server)
    lab.open_assignments(page)
    released = lab.assignment_rows(page, "released", 1)
    assert released.first.locator(".item_name").inner_text().strip() == PS
    assert released.first.locator(".item_course").inner_text().strip() == COURSE_ID
    released.first.locator(".item_status button").click()  # Fetch
    fetched = lab.assignment_rows(page, "fetched", 1)
    assert PS in fetched.first.locator(".item_name").first.inner_text()
    path = hub.homes[STUDENT] / PS / f"{PS}.ipynb"
    assert path.read_bytes() == hub.course.notebook("release", PS).read_bytes()

    # her work of earlier in the week; the cell she types now is still as released
    released_nb = nbformat.read(path, as_version=4)
    stub = next(c.source for c in released_nb.cells if nb_meta(c).get("grade_id") == TYPED)
    nbformat.write(build_submission(hub.course, PS, {TYPED: stub}), path)

    page.locator(f'#fetched_assignments_list a:text("{PS}")').first.click()  # expand
    page.locator(f"{ROW_ID}.collapse.in").wait_for()
    page.locator(f"{ROW_ID} .list_item a", has_text=PS).first.click()  # open the notebook
    page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell").first.wait_for(timeout=lab.SLOW_MS)
    cell = lab.cell_with(page, "def variance_shares(X):")
    lab.replace_cell_source(page, cell, solution_of(TYPED))
    assert "np.linalg.svd" in cell.locator(".cm-content").inner_text()
    lab.run_all(page)

    errors = page.locator('.jp-Notebook [data-mime-type="application/vnd.jupyter.error"]')
    assert errors.count() == 0, errors.first.inner_text()
    plots = lab.loaded_images(page, ".jp-Notebook .jp-OutputArea-output")
    assert plots >= 3  # the rotation plot, the singular values, the recovered circle
    assert cell.locator(".jp-OutputArea-output").count() == 0  # a definition prints nothing

    page.keyboard.press("ControlOrMeta+s")
    deadline = time.monotonic() + 30
    while "np.linalg.svd(centred" not in path.read_text() and time.monotonic() < deadline:
        page.wait_for_timeout(300)  # (time.sleep would hold the page's routed requests)
    saved = nbformat.read(path, as_version=4)
    assert "np.linalg.svd(centred" in next(c.source for c in saved.cells
                                           if nb_meta(c).get("grade_id") == TYPED)

    page.locator(".lm-TabBar-tab", has_text="Assignments").click()
    page.locator(f"{ROW_ID} .item_status button", has_text="Validate").first.click()
    assert "passes all the tests" in lab.success_dialog(page)

    fetched = lab.assignment_rows(page, "fetched", 1)
    fetched.first.locator(".item_status button", has_text="Submit").click()
    submitted = lab.assignment_rows(page, "submitted", 1)
    assert PS in submitted.first.locator(".item_name").first.inner_text()
    inbound = [p.name for p in (hub.exchange / COURSE_ID / "inbound").iterdir()]
    assert [n.split("+")[0] for n in inbound] == [STUDENT]
    seen["plots"] = plots


def _classmate_hands_in(hub) -> None:
    """bob works from a terminal and forgets to centre (a classic mistake)."""
    from kit.intake.submitted import build_submission

    hub.nbgrader("fetch_assignment", PS, "--course", COURSE_ID, student=CLASSMATE)
    nb = build_submission(hub.course, PS, variants(PS)["not_centred"]["cells"])
    nbformat.write(nb, hub.homes[CLASSMATE] / PS / f"{PS}.ipynb")
    hub.nbgrader("submit", PS, "--course", COURSE_ID, student=CLASSMATE)


def _start_cli_grading(hub, tmp_path):
    """``python -m kit.autograde`` on ada's collected notebook, in a copy of the course
    (started now, it runs while the TA works in formgrader); returns (process, copy)."""
    copy = tmp_path / "cli-course"
    # the gradebook comes along (it knows the problem set); ada is graded afresh, --force
    shutil.copytree(hub.course.root, copy, ignore=shutil.ignore_patterns(
        "autograded", "feedback", CLASSMATE))
    process = subprocess.Popen([sys.executable, "-m", "kit.autograde", PS, "--course", str(copy),
                                "--force"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    return process, copy


def _cli_score(process, copy) -> float:
    """ada's score as the command line graded it."""
    from nbgrader.api import Gradebook

    out, err = process.communicate(timeout=300)
    assert process.returncode == 0 and "graded 1 submissions" in out, out[-2000:] + err[-2000:]
    with Gradebook(f"sqlite:///{copy / 'gradebook.db'}") as gb:
        return gb.find_submission(PS, STUDENT).score


def test_ta_collects_autogrades_and_hand_grades(hub, ta_server, page, seen, tmp_path):
    from nbgrader.api import Gradebook

    assert "plots" in seen, "the student's step did not finish: nothing to grade"
    _classmate_hands_in(hub)
    page.goto(ta_server.page_url("formgrader/manage_assignments"))
    row = page.locator("#main-table tr", has_text=PS)
    row.locator(".collect a").click()
    assert "collected" in lab.formgrader_modal(page).lower()
    for student in (STUDENT, CLASSMATE):
        assert hub.course.notebook("submitted", PS, student).exists()
    cli = _start_cli_grading(hub, tmp_path)

    page.goto(ta_server.page_url(f"formgrader/manage_submissions/{PS}"))
    rows = page.locator("#main-table tr")
    page.wait_for_function("() => document.querySelectorAll('#main-table tr .student-id')"
                           ".length === 2", timeout=lab.SLOW_MS)
    assert sorted(rows.locator(".student-id").all_inner_texts()) == [STUDENT, CLASSMATE]
    ada = page.locator("#main-table tr", has=page.locator(".student-id", has_text=STUDENT))
    assert "needs autograding" in ada.locator(".status").inner_text()
    ada.locator(".autograde a").click()
    assert f"autograded '{PS}' for student '{STUDENT}'" in lab.formgrader_modal(page)
    expect(ada.locator(".score")).to_contain_text("/", timeout=lab.SLOW_MS)
    auto, total = lab.score_text(ada.locator(".score").inner_text())
    assert "needs manual grading" in ada.locator(".status").inner_text()
    assert auto == pytest.approx(_cli_score(*cli))  # same sandbox, same judge
    # every auto-graded part right, the typed variance_shares included; written answers open
    assert auto == sum(auto_points(read_source(PS)).values()) < total
    seen["auto"] = auto

    with Gradebook(hub.course.db_url) as gb:
        notebook_id = gb.find_submission_notebook(PS, PS, STUDENT).id
    lab.hand_grade(page, ta_server.page_url(f"formgrader/submissions/{notebook_id}/"),
                   hub.course.db_url, WRITTEN, PS, STUDENT, HAND_POINTS, COMMENT)
    page.reload()
    lab.formgrader_form_ready(page)
    assert page.locator(f"input.score#{WRITTEN}").input_value() == str(HAND_POINTS)
    assert page.locator(f"textarea#{WRITTEN}-comment").input_value() == COMMENT

    page.goto(ta_server.page_url(f"formgrader/manage_submissions/{PS}"))
    ada.locator(".generate-feedback a").wait_for()
    with_hand = lab.score_text(ada.locator(".score").inner_text())[0]
    assert with_hand == pytest.approx(auto + HAND_POINTS)
    ada.locator(".generate-feedback a").click()
    assert "generated feedback" in lab.formgrader_modal(page).lower()
    ada.locator(".release-feedback a").click()
    assert "released feedback" in lab.formgrader_modal(page).lower()

    hub.nbgrader("export", "--to=grades.csv")
    with (hub.course.root / "grades.csv").open(newline="") as fh:
        row = next(r for r in csv.DictReader(fh) if r["student_id"] == STUDENT)
    assert float(row["score"]) == pytest.approx(auto + HAND_POINTS)
    seen["score"] = auto + HAND_POINTS


def test_student_fetches_and_reads_her_feedback(hub, student_server, page, seen):
    assert "score" in seen, "the TA's step did not finish"
    lab.open_lab(page, student_server)
    lab.open_assignments(page)
    submitted = lab.assignment_rows(page, "submitted", 1)
    submitted.first.locator(".item_status button", has_text="Fetch Feedback").click()
    # the panel refreshes with a link under the submission's timestamp
    page.locator("#submitted_assignments_list a", has_text="view feedback").first.click()
    page.locator(".jp-DirListing-item", has_text=f"{PS}.html").wait_for()
    folder = next((hub.homes[STUDENT] / PS / "feedback").iterdir())
    page.goto(student_server.page_url(f"files/{PS}/feedback/{folder.name}/{PS}.html"))
    page.wait_for_load_state("load")

    text = page.locator("body").inner_text()
    assert f"{PS} (Score: {seen['score']:.1f} / " in text  # her total, hand grade included
    # the written answer's summary line names its part (kit/feedback_labels.py)
    assert f"written answer, 2 points (Score: {HAND_POINTS:.1f} / 2.0)" in text
    assert f"Comments: {COMMENT}" in " ".join(text.split())
    autograded = nbformat.read(hub.course.notebook("autograded", PS, STUDENT), as_version=4)
    judged = [line for c in autograded.cells if nb_meta(c).get("grade")
              for o in c.get("outputs", []) if o.get("output_type") == "stream"
              for line in o.get("text", "").splitlines() if line.startswith(("✓", "✗"))]
    assert judged and [line for line in judged if line not in text] == []
    assert lab.loaded_images(page) == seen["plots"]  # her plots, as she saw them
    assert [line for line in hidden_test_lines(PS) if line in page.content()] == []
