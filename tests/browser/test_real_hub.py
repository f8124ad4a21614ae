"""The course's whole loop on a real JupyterHub (``make hub``), in headless chromium.

One hub (:mod:`kit.hub`: JupyterHub, Debian's configurable-http-proxy, the demo class,
formgrader as the service ``kernel_pca``, the ``kpca-check`` service) for ps1 on 127.0.0.1,
started once for the module; the tests run in order, each needing the earlier ones:

1. ada logs in with the run's password, fetches ps1 from the Assignments panel and runs
   it: the numbers cell shows her numbers without her typing an id. Her earlier work is
   laid in the fetched file before she opens it, with a check of ``u`` that makes the
   lecture's sign mistake (and, in another answer cell, a line reporting what the kernel
   running it can reach); she sees the mistake named and her checks left fall, types the
   right ``u``, sees it checked right and saves. The attempts table holds what she did.
2. She submits from the panel; the exchange holds her notebook with the right ``u``.
3. The TA ta_tom logs in straight to formgrader through the hub (a fresh browser
   context), collects, autogrades her: the score is the judge's (every auto-graded part,
   her checked ``u`` with its points) and it ran in the kit's sandbox (her line there saw
   no ``kpca_ref``, no hub token, no gradebook; her ``check`` reached no service, and no
   attempt was recorded). He gives a written answer points and a comment, generates and
   releases her feedback.
4. ada fetches the feedback in the panel and reads the page: her total, the checked
   item's points under its label, the judge's lines, the TA's comment, no hidden test.
4c. The Assignments panel shows each student their own due date (:mod:`kit.duepanel`):
   ada's submitted ps1 with her extension and its reason (markup shown as text), bob's
   released ps1 with his own, neither with the other's.
5. bob runs a cell of his own notebook: ada's right ``u`` with his hub token and her name
   in the body (judged on his key, not right, counted against him), then 20 concurrent
   checks of it from 20 threads through the hub's proxy (``KPCA_CHECK_URL``): exactly the
   rest of his limit is judged, the others are refused with "no checks left"; neither key
   comes back and ada's attempts are untouched.
6. Requests without a hub token, or with one the hub does not know, are refused.
7. Stopped as an admin does (SIGTERM), the hub leaves no process of its own running.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import sqlite3
import time
import urllib.error
import urllib.request

import nbformat
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from kit.checks.policy import default_limit
from kit.course import Course
from kit.intake.submitted import build_submission
from kpca_probe.wire import encode
from kpca_ref import variants
from kpca_ref.grading.answers import mistaken_values
from tests.browser import lab
from tests.browser.realhub import (
    FORGED,
    SANDBOXED,
    attempts,
    forging_cell,
    judged_lines,
    log_in,
    press_in_panel,
    running_hub,
    stream_text,
    where_probe,
)
from tests.support.nbgrading import (
    auto_points,
    hidden_test_lines,
    nb_meta,
    read_source,
    solution_of,
)

COURSE_ID, PS = "kernel_pca", "ps1_circle_lift"
STUDENT, CLASSMATE, GRADER = "ada", "bob", "ta_tom"
ITEM, CELL, TEST_CELL = "ps1_circle_u", "circle_u_answer", "circle_u_test"
PROBED = "variances_three_answer"  # her answer cell that also prints where it runs
WRITTEN = "why_both_directions"  # the written answer the TA grades by hand
HAND_POINTS = 1.5
COMMENT = "Right about the equal spread; say which structure PCA can find (a line)."
FORMGRADER = f"services/{COURSE_ID}/formgrader/"
FLOOD = 20  # checks bob sends at once


def _matrix(value) -> str:
    return "Matrix([" + ", ".join(str(v) for v in value) + "])"


@pytest.fixture(scope="module")
def real_hub(tmp_path_factory):
    with running_hub(tmp_path_factory.mktemp("hub"), PS) as hub:
        yield hub


@pytest.fixture(scope="module")
def seen():
    """What the tests saw, for the later ones (each needs the earlier steps done)."""
    return {}


#: ada's extension's reason, markup and all: her notebook shows it as text
DUE_REASON = '<img src=x onerror="window.__pwned=1">travel'


def _due_in_a_week(course) -> dt.datetime:
    """A calendar whose ps1 is due in a week, ada with two days more; the due date."""
    from kit.term.calendar import Calendar, Entry, Extension, save
    from kit.term.times import parse_policy

    due = dt.datetime.now(dt.timezone.utc).replace(second=0, microsecond=0) + dt.timedelta(days=7)
    cal = Calendar.empty()
    cal.entries[PS] = Entry(None, due, "UTC", parse_policy("10% per day"))
    cal.extensions[PS] = {STUDENT: Extension(DUE_REASON, days=2)}
    save(course, cal)
    return due


def test_a_student_sees_her_numbers_and_checks_an_exact_answer(real_hub, page, seen):
    press_in_panel(page, real_hub, STUDENT, "released", "Fetch")
    lab.assignment_rows(page, "fetched", 1)
    path = real_hub["dir"] / "home" / STUDENT / PS / f"{PS}.ipynb"
    assert path.exists()

    course = Course(real_hub["dir"] / "course")
    due = _due_in_a_week(course)  # her numbers cell shows her own due date, as the hub says it
    code, hint, wrong = next(m for m in mistaken_values(ITEM, STUDENT))
    right = variants.answer(ITEM, STUDENT)[0]
    nbformat.write(build_submission(course, PS, {
        CELL: f'u_circle = {_matrix(wrong)}\ncheck("{ITEM}", u_circle)',
        PROBED: solution_of(PS, PROBED) + where_probe(course.root)}), path)

    page.locator(f'#fetched_assignments_list a:text("{PS}")').first.click()
    page.locator(f"#nbgrader-kernel_pca-{PS}.collapse.in").wait_for()
    page.locator(f"#nbgrader-kernel_pca-{PS} .list_item a", has_text=PS).first.click()
    page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell").first.wait_for(timeout=lab.SLOW_MS)
    lab.select_kernel(page)
    page.locator('#jp-menu-panel div.lm-MenuBar-itemLabel:text("Run")').click()
    page.locator(".lm-Menu-item .lm-Menu-itemLabel", has_text="Run All Cells").first.click()
    # the visible checks after her wrong u fail, and Run All stops there: wait for the check
    lab.wait_for_output(page, f"check {ITEM}: ")

    shown = page.locator(".jp-OutputArea-output", has_text="Your numbers (variant for").first \
        .text_content()  # the numbers cell's source is hidden: its output is what she sees
    assert f"Your numbers (variant for '{STUDENT}')" in shown  # from her login, nothing typed
    n = variants.numbers(PS, STUDENT)
    assert f"N.a = {n.a}" in shown and f"N.r = {n.r}" in shown
    assert (f"Your due date for {PS}: {due + dt.timedelta(days=2):%Y-%m-%d %H:%M} UTC (an "
            f"extension of 2 days: {DUE_REASON}). Late: 0.1 of the score per day.") in shown
    assert page.evaluate("window.__pwned") is None  # the reason's markup shown as text
    (course.root / "term.json").unlink()

    probe = page.locator(".jp-OutputArea-output", has_text="ran with: ").first.text_content()
    assert "; hub token; gradebook" in probe, probe  # her kernel: one OS user for the demo

    limit = default_limit(ITEM, 3)
    cell = lab.cell_with(page, f'check("{ITEM}", u_circle)')
    cell.scroll_into_view_if_needed()
    said = cell.locator(".jp-OutputArea-output").first.text_content()  # (rendered or not)
    assert said.startswith(f"check {ITEM}: not right: ") and hint in said, said
    assert f"{limit - 1} check" in said

    lab.replace_cell_source(page, cell, f'u_circle = {_matrix(right)}\ncheck("{ITEM}", u_circle)')
    page.keyboard.press("Shift+Enter")
    lab.wait_for_output(page, f"check {ITEM}: right", timeout=60_000)
    said = cell.locator(".jp-OutputArea-output").first.text_content()
    assert f"{limit - 2} check" in said and str(list(right)) not in said

    with sqlite3.connect(real_hub["dir"] / "course" / "gradebook.db") as db:
        found = db.execute("SELECT student, slot, verdict, code FROM kpca_check_attempts "
                           "WHERE item = ? ORDER BY id", [ITEM]).fetchall()
    assert found == [(STUDENT, 1, "mistake", code), (STUDENT, 2, "right", None)]

    page.keyboard.press("ControlOrMeta+s")  # she saves her work
    deadline = time.monotonic() + 30
    while _matrix(right) not in path.read_text() and time.monotonic() < deadline:
        page.wait_for_timeout(300)  # (time.sleep would hold the page's routed requests)
    saved = nbformat.read(path, as_version=4)
    assert _matrix(right) in next(c.source for c in saved.cells
                                  if nb_meta(c).get("grade_id") == CELL)
    seen["checked"] = found


def test_she_submits_from_the_assignments_panel(real_hub, page, seen):
    assert "checked" in seen, "her check step did not finish: nothing to submit"
    press_in_panel(page, real_hub, STUDENT, "fetched", "Submit")
    submitted = lab.assignment_rows(page, "submitted", 1)
    assert PS in submitted.first.locator(".item_name").first.inner_text()
    inbound = list((real_hub["dir"] / "exchange" / COURSE_ID / "inbound").iterdir())
    assert [p.name.split("+")[0] for p in inbound] == [STUDENT]
    handed = nbformat.read(inbound[0] / f"{PS}.ipynb", as_version=4)
    right = variants.answer(ITEM, STUDENT)[0]
    assert _matrix(right) in next(c.source for c in handed.cells
                                  if nb_meta(c).get("grade_id") == CELL)
    seen["submitted"] = True


def test_the_ta_grades_her_hand_in_in_formgrader_through_the_hub(real_hub, page, seen):
    from nbgrader.api import Gradebook

    assert "submitted" in seen, "the student's hand-in did not happen: nothing to grade"
    course = Course(real_hub["dir"] / "course")
    checks_before = attempts(real_hub)
    log_in(page, real_hub, GRADER, then=f"{FORMGRADER}manage_assignments")
    row = page.locator("#main-table tr", has_text=PS)
    row.locator(".collect a").click()
    assert "collected" in lab.formgrader_modal(page).lower()
    assert course.notebook("submitted", PS, STUDENT).exists()

    page.goto(real_hub["url"] + f"{FORMGRADER}manage_submissions/{PS}")
    ada = page.locator("#main-table tr", has=page.locator(".student-id", has_text=STUDENT))
    assert "needs autograding" in ada.locator(".status").inner_text(timeout=lab.SLOW_MS)
    ada.locator(".autograde a").click()
    assert f"autograded '{PS}' for student '{STUDENT}'" in lab.formgrader_modal(page)
    expect(ada.locator(".score")).to_contain_text("/", timeout=lab.SLOW_MS)
    auto, total = lab.score_text(ada.locator(".score").inner_text())
    assert "needs manual grading" in ada.locator(".status").inner_text()
    # the judge's score: every auto-graded part right, her checked u included
    points = auto_points(read_source(PS))
    assert auto == sum(points.values()) < total
    with Gradebook(course.db_url) as gb:
        assert gb.find_grade(TEST_CELL, PS, PS, STUDENT).auto_score == points[TEST_CELL]
        notebook_id = gb.find_submission_notebook(PS, PS, STUDENT).id
    # it ran in the kit's sandbox: her probe saw no reference, no hub token, no gradebook
    # (her own kernel on the hub saw the last two); her check() said nothing while graded
    # (her feedback carries no check line) and reached no service
    graded = nbformat.read(course.notebook("autograded", PS, STUDENT), as_version=4)
    probe = stream_text(graded, PROBED)
    assert SANDBOXED in probe, probe
    assert "check" not in stream_text(graded, CELL), stream_text(graded, CELL)
    assert attempts(real_hub) == checks_before

    lab.hand_grade(page, real_hub["url"] + f"{FORMGRADER}submissions/{notebook_id}/",
                   course.db_url, WRITTEN, PS, STUDENT, HAND_POINTS, COMMENT)

    page.goto(real_hub["url"] + f"{FORMGRADER}manage_submissions/{PS}")
    ada.locator(".generate-feedback a").wait_for()
    assert lab.score_text(ada.locator(".score").inner_text())[0] == auto + HAND_POINTS
    ada.locator(".generate-feedback a").click()
    assert "generated feedback" in lab.formgrader_modal(page).lower()
    ada.locator(".release-feedback a").click()
    assert "released feedback" in lab.formgrader_modal(page).lower()
    seen["score"], seen["judged"] = auto + HAND_POINTS, judged_lines(graded)


def test_she_fetches_and_reads_her_feedback(real_hub, page, seen):
    assert "score" in seen, "the TA's step did not finish: no feedback"
    press_in_panel(page, real_hub, STUDENT, "submitted", "Fetch Feedback")
    page.locator("#submitted_assignments_list a", has_text="view feedback").first.click()
    page.locator(".jp-DirListing-item", has_text=f"{PS}.html").wait_for(timeout=lab.SLOW_MS)
    folder = next((real_hub["dir"] / "home" / STUDENT / PS / "feedback").iterdir())
    page.goto(real_hub["url"] + f"user/{STUDENT}/files/{PS}/feedback/{folder.name}/{PS}.html")
    page.wait_for_load_state("load")

    text = " ".join(page.locator("body").inner_text().split())
    assert f"{PS} (Score: {seen['score']:.1f} / " in text  # her total, hand grade included
    points = auto_points(read_source(PS))[TEST_CELL]
    # the item she checked right earned its points, under its part's label
    assert f"u_circle, {points:g} points (Score: {points:.1f} / {points:.1f})" in text
    assert [line for line in seen["judged"] if " ".join(line.split()) not in text] == []
    assert any(ITEM in line and line.startswith("✓") for line in seen["judged"])
    assert f"written answer, 2 points (Score: {HAND_POINTS:.1f} / 2.0)" in text
    assert f"Comments: {COMMENT}" in text
    assert [line for line in hidden_test_lines(PS) if line in page.content()] == []


def test_she_reads_her_overview_and_nobody_else_can(real_hub, page, browser, seen):
    """4b. Her overview through the hub's login (the check service's page): ps1 with her own
    due date and extension (a reason full of markup, shown as text), feedback available, her
    score, her checks used, her feedback page linked; axe-core finds no serious or critical
    violation on either page. bob's login shows his own page whatever the address names;
    the TA's login gets none."""
    from kit.term.calendar import Calendar, Entry, Extension, save
    from kit.term.times import parse_policy
    from tests.browser.axe import serious_violations

    assert "score" in seen, "the TA's step did not finish: no feedback"
    course = real_hub["dir"] / "course"
    now = dt.datetime.now(dt.timezone.utc).replace(second=0, microsecond=0)
    cal = Calendar.empty()  # due in a week: bob's checks below stay open
    cal.entries[PS] = Entry(now - dt.timedelta(days=7), now + dt.timedelta(days=7), "UTC",
                            parse_policy("10% per day"))
    reason = '<img src=x onerror="window.__pwned=1">ill'
    cal.extensions[PS] = {STUDENT: Extension(reason, days=2)}
    save(course, cal)
    overview = "services/kpca-check/overview/"
    try:
        log_in(page, real_hub, STUDENT, then=overview)
        page.get_by_role("heading", name="Your problem sets").wait_for(timeout=lab.SLOW_MS)
        row = " ".join(page.locator("tr", has_text=PS).inner_text().split())
        used = sum(1 for r in attempts(real_hub, STUDENT) if r[2] is not None)
        assert "feedback available" in row and f"{seen['score']:g} of " in row, row
        assert f"extended to {(now + dt.timedelta(days=9)):%Y-%m-%d %H:%M} UTC: {reason}" in row
        assert f" {used} " in f" {row} " and used >= 2
        assert page.evaluate("window.__pwned") is None and page.locator("main img").count() == 0
        assert serious_violations(page) == []
        page.get_by_role("link", name=f"feedback on {PS}").click()
        page.wait_for_load_state("load")
        assert f"{PS} (Score: {seen['score']:.1f} / " in page.locator("body").inner_text()
        assert serious_violations(page, exclude=(".highlight",)) == []

        context = browser.new_context()
        try:
            other = context.new_page()
            log_in(other, real_hub, CLASSMATE, then=overview + f"?student={STUDENT}")
            other.get_by_role("heading", name="Your problem sets").wait_for(timeout=lab.SLOW_MS)
            text = other.locator("main").inner_text()
            assert f"Signed in as {CLASSMATE}" in text and "feedback available" not in text
            assert "onerror" not in text
            other.goto(real_hub["url"] + overview + f"feedback/{PS}")
            assert "no feedback page" in other.locator("body").inner_text()
        finally:
            context.close()
        context = browser.new_context()
        try:
            ta = context.new_page()
            log_in(ta, real_hub, GRADER, then=overview)
            ta.wait_for_load_state("load")
            assert "Your problem sets" not in ta.content() and reason not in ta.content()
        finally:
            context.close()
    finally:
        (course / "term.json").unlink()


def _due_line(page, listed: str) -> str:
    """The due-date line under the problem set's row of the panel's ``listed`` list, once
    it shows one (the list refreshed while it waits: an answer is reused for 10 s)."""
    line = lab.assignment_rows(page, listed, 1).first.locator(".kpca-due")
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        with contextlib.suppress(PlaywrightTimeout):  # not there yet: refresh, look again
            line.wait_for(timeout=10_000)
            if line.inner_text().startswith("Your due date: "):
                return " ".join(line.inner_text().split())
        page.locator("#refresh_assignments_list").click()
        lab.assignment_rows(page, listed, 1)
    raise AssertionError(f"no due date in the panel's {listed} list: "
                         + page.locator(f"#{listed}_assignments_list").inner_text())


def test_the_assignments_panel_shows_each_student_their_own_due_date(real_hub, page, browser):
    """4c. ada opens the Assignments panel: under her submitted ps1, her own due date with
    her extension and its reason, markup shown as text; bob, in his own browser, sees his
    released ps1 with his own extension and nothing of hers."""
    from kit.term.calendar import Calendar, Entry, Extension, save
    from kit.term.times import parse_policy

    course = real_hub["dir"] / "course"
    now = dt.datetime.now(dt.timezone.utc).replace(second=0, microsecond=0)
    due, his = now + dt.timedelta(days=7), now + dt.timedelta(days=8, hours=3)
    cal = Calendar.empty()
    cal.entries[PS] = Entry(now - dt.timedelta(days=7), due, "UTC", parse_policy("10% per day"))
    cal.extensions[PS] = {STUDENT: Extension(DUE_REASON, days=2),
                          CLASSMATE: Extension("a family matter", until=his)}
    save(course, cal)
    late = "Late: 0.1 of the score per day."
    try:
        log_in(page, real_hub, STUDENT)
        lab.open_assignments(page)
        hers = _due_line(page, "submitted")
        assert hers == (f"Your due date: {due + dt.timedelta(days=2):%Y-%m-%d %H:%M} UTC (an "
                        f"extension of 2 days: {DUE_REASON}). {late}"), hers
        assert page.evaluate("window.__pwned") is None
        assert page.locator("#submitted_assignments_list img").count() == 0

        context = browser.new_context()
        try:
            other = context.new_page()
            log_in(other, real_hub, CLASSMATE)
            lab.open_assignments(other)
            shown = _due_line(other, "released")
            assert shown == (f"Your due date: {his:%Y-%m-%d %H:%M} UTC (an extension from "
                             f"{due:%Y-%m-%d %H:%M} UTC: a family matter). {late}"), shown
            assert "travel" not in other.locator("#released_assignments_list").inner_text()
        finally:
            context.close()
    finally:
        (course / "term.json").unlink()


def test_a_classmate_forging_and_flooding_from_his_kernel_gets_nothing_of_hers(
        real_hub, page, seen):
    """bob, in his own notebook, checks ada's right answer with his token and her name in
    the body, then sends the same check 20 times at once through the hub's proxy."""
    assert "checked" in seen, "ada's checks did not happen: nothing to forge"
    limit = default_limit(ITEM, 3)
    hers, his = variants.answer(ITEM, STUDENT)[0], variants.answer(ITEM, CLASSMATE)[0]
    assert hers != his
    ada_before = attempts(real_hub, STUDENT)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        forging_cell(ITEM, STUDENT, encode(hers), FLOOD))])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                       "language": "python"}
    nbformat.write(notebook, real_hub["dir"] / "home" / CLASSMATE / "borrowed.ipynb")

    log_in(page, real_hub, CLASSMATE)
    page.goto(real_hub["url"] + f"user/{CLASSMATE}/lab/tree/borrowed.ipynb")
    page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell").first.wait_for(timeout=lab.SLOW_MS)
    lab.select_kernel(page)
    lab.run_all(page)
    lab.wait_for_output(page, FORGED)
    shown = page.locator(".jp-OutputArea-output", has_text=FORGED).first.text_content()
    replies = json.loads(shown.split(FORGED, 1)[1])

    status, forged = replies["forged"]  # judged on bob's key, counted against bob
    assert (status, forged["counted"], forged["attempts_left"]) == (200, True, limit - 1)
    assert forged["verdict"] in ("wrong", "mistake") and forged["message"].startswith(
        "not right"), forged
    flooded = replies["flooded"]
    judged = [r for s, r in flooded if r["counted"]]
    refused = [(s, r) for s, r in flooded if not r["counted"]]
    assert len(flooded) == FLOOD and len(judged) == limit - 1, flooded
    assert all(r["verdict"] in ("wrong", "mistake") for r in judged)
    assert all(s == 429 and r["message"] == f"no checks left for {ITEM} (you had {limit}); "
               "your answer is still graded when you hand in" for s, r in refused), refused
    messages = " ".join(r["message"] for _, r in [replies["forged"], *flooded])
    for key in (hers, his):  # no key comes back, in any form
        assert str(list(key)) not in messages and _matrix(key) not in messages
    assert "right: this is the exact answer" not in messages

    rows = attempts(real_hub, CLASSMATE)
    assert sorted(r[2] for r in rows if r[2] is not None) == list(range(1, limit + 1))
    assert {(r[1], r[3]) for r in rows} <= {(ITEM, "wrong"), (ITEM, "mistake")}
    assert attempts(real_hub, STUDENT) == ada_before  # nothing counted against her


def test_a_check_without_a_hub_login_is_refused(real_hub):
    url = real_hub["url"] + "services/kpca-check/check"
    body = json.dumps({"item": ITEM, "user": "bob", "student": "bob", "answer": {
        "M": [6, 1], "d": [{"Z": str(v)} for v in variants.answer(ITEM, "bob")[0]]}}).encode()
    for headers, status in (({}, 401), ({"Authorization": "token not-a-hub-token"}, 403)):
        request = urllib.request.Request(url, data=body, method="POST", headers=headers)
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=30)
        assert refused.value.code == status
        assert "check" in json.loads(refused.value.read())["message"] or status == 403


def test_the_hub_stops_with_everything_it_started(real_hub):
    """Stopped as an admin does (SIGTERM), the hub stops its services, the users' servers
    and their kernels; the check service's judging processes go with it."""
    started = time.monotonic()
    ran, left = real_hub["stop"]()
    took = time.monotonic() - started
    assert any("kit.checks.service" in line for line in ran)
    assert any("multiprocessing" in line for line in ran)  # its judging processes
    assert sum("jupyterhub-singleuser" in line for line in ran) >= 3  # formgrader, ada, bob
    assert left == [], f"still running {took:.0f} s after the stop:\n" + "\n".join(left)
