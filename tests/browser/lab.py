"""What a student does in JupyterLab and a TA in formgrader, as steps on a Playwright page.

Selectors are those of JupyterLab 4 and of nbgrader 0.9's lab extension and formgrader
(nbgrader's own UI tests use the same ones).
"""

from __future__ import annotations

import re
import time

#: How long a step that runs notebooks may take (Run All, Validate, autograde): the machine
#: is shared, and ps1 runs for a few seconds.
SLOW_MS = 120_000


def open_lab(page, server) -> None:
    """Open JupyterLab and wait until its shell and file browser are there."""
    page.goto(server.page_url("lab"))
    page.locator("#jp-main-dock-panel").wait_for(timeout=60_000)
    page.locator(".jp-DirListing-content").wait_for(timeout=60_000)


def open_assignments(page) -> None:
    """Nbgrader > Assignment List: the *Assignments* panel."""
    page.locator('#jp-menu-panel div.lm-MenuBar-itemLabel:text("Nbgrader")').click()
    page.locator('#jp-mainmenu-nbgrader li[data-command="nbgrader:open-assignment-list"]').click()
    page.locator(".lm-TabBar-tab .lm-TabBar-tabLabel", has_text="Assignments").wait_for()


def assignment_rows(page, name: str, count: int):
    """The rows of the panel's ``released``/``fetched``/``submitted`` list, once it shows
    ``count`` of them (the loading note and the placeholder gone)."""
    rows = page.locator(f"#{name}_assignments_list > .list_item")
    page.wait_for_function(
        "([sel, n]) => document.querySelectorAll(sel).length === n",
        arg=[f"#{name}_assignments_list > .list_item", count], timeout=SLOW_MS)
    assert page.locator(f"#{name}_assignments_list_loading").is_hidden()
    assert page.locator(f"#{name}_assignments_list_error").is_hidden()
    return rows


def success_dialog(page, timeout: float = SLOW_MS) -> str:
    """Wait for nbgrader's success dialog, return its text and close it; an error dialog
    instead fails the test with its text."""
    dialog = page.locator(".nbgrader-SuccessDialog, .nbgrader-ErrorDialog").first
    dialog.wait_for(timeout=timeout)
    text = dialog.inner_text()
    assert "nbgrader-SuccessDialog" in (dialog.get_attribute("class") or ""), text
    dialog.locator("button.jp-Dialog-button").first.click()
    return text


def cell_with(page, text: str):
    """The code cell whose editor shows ``text`` (the first one; a markdown cell's hidden
    editor, e.g. a question's ``check(...)`` line, does not count)."""
    editor = page.locator(".cm-content", has_text=text)
    return page.locator(".jp-Notebook .jp-CodeCell", has=editor).first


def replace_cell_source(page, cell, source: str) -> None:
    """Click into the cell's editor, select everything and type ``source`` in its place.

    The text goes in as typed input (``insert_text``, as a paste or an input method does),
    so the editor's own auto-indentation does not indent the lines a second time.
    """
    editor = cell.locator(".cm-content")
    editor.click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.insert_text(source)


def run_all(page) -> None:
    """Run > Run All Cells, then wait until every code cell shows its execution count."""
    page.locator('#jp-menu-panel div.lm-MenuBar-itemLabel:text("Run")').click()
    page.locator(".lm-Menu-item .lm-Menu-itemLabel", has_text="Run All Cells").first.click()
    page.wait_for_function(
        """() => {
            const prompts = [...document.querySelectorAll(
                '.jp-Notebook .jp-CodeCell .jp-InputArea-prompt')];
            return prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p.textContent));
        }""", timeout=SLOW_MS)


def loaded_images(page, scope: str = "") -> int:
    """How many ``<img>`` under ``scope`` have loaded with a width (naturalWidth > 0)."""
    return page.evaluate(
        "(scope) => [...document.querySelectorAll(scope + ' img')]"
        ".filter(i => i.complete && i.naturalWidth > 0).length", scope)


def score_text(text: str) -> tuple[float, float]:
    """``(score, max)`` from formgrader's "12.5 / 25" score cell."""
    found = re.search(r"([\d.]+)\s*/\s*([\d.]+)", text)
    assert found, f"no score in {text!r}"
    return float(found.group(1)), float(found.group(2))


def formgrader_modal(page) -> str:
    """formgrader's result dialog: its text once it is shown (an error dialog fails the
    test with its text); then closed with OK."""
    modal = page.locator("#success-modal, #error-modal").first
    modal.wait_for(state="visible", timeout=SLOW_MS)
    text = modal.inner_text()
    assert modal.get_attribute("id") == "success-modal", text
    modal.locator(".modal-footer button").first.click()  # OK
    modal.wait_for(state="hidden")
    return text


def formgrader_form_ready(page) -> None:
    """Wait until formgrader's grading page has loaded its grades and comments: a value
    typed before that is overwritten, and its change is never saved."""
    page.wait_for_function("() => window.formgrader && formgrader.grades.loaded"
                           " && formgrader.comments.loaded", timeout=SLOW_MS)


def wait_for_output(page, text: str, timeout: float = SLOW_MS) -> None:
    """Wait until some cell output on the page contains ``text``."""
    page.wait_for_function(
        "(t) => [...document.querySelectorAll('.jp-OutputArea-output')]"
        ".some(o => o.textContent.includes(t))", arg=text, timeout=timeout)


def select_kernel(page) -> None:
    """Accept JupyterLab's kernel choice when it asks (its python3, as the notebook says)."""
    from playwright.sync_api import TimeoutError as Timeout

    choose = page.locator(".jp-Dialog .jp-Dialog-button", has_text="Select")
    try:
        choose.wait_for(timeout=15_000)
        choose.click()
    except Timeout:
        pass


def hand_grade(page, url: str, db_url: str, cell: str, ps: str, student: str, points: float,
               comment: str) -> None:
    """Give ``cell`` of ``student``'s ``ps`` ``points`` and ``comment`` on formgrader's
    grading page ``url``, and wait until the gradebook at ``db_url`` holds both."""
    from nbgrader.api import Gradebook

    page.goto(url)
    formgrader_form_ready(page)
    score = page.locator(f"input.score#{cell}")
    score.fill(str(points))
    score.press("Tab")
    box = page.locator(f"textarea#{cell}-comment")
    box.fill(comment)
    box.press("Tab")
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        with Gradebook(db_url) as gb:
            grade = gb.find_grade(cell, ps, ps, student).manual_score
            said = gb.find_comment(cell, ps, ps, student).manual_comment
        if grade == points and said == comment:
            break
        page.wait_for_timeout(300)  # (time.sleep would hold the page's routed requests)
    assert (grade, said) == (points, comment)
