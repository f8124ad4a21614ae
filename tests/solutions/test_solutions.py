"""Worked solutions on each student's own numbers (``python -m kit.solutions``).

A released ps1 course whose calendar makes ps1 due at 2026-12-10 16:00 UTC (grace 15 min,
then no late hand-ins), bob having two more days and cy exempt; ada hands in through a real
exchange (nbgrader's release_assignment, fetch_assignment, submit, collect) and has a
feedback page. Before the due date nobody gets anything; a day after it ada gets her exact
answers (the code waits for bob's extension) and fetches them with ``nbgrader
fetch_feedback``, bob nothing; after bob's extension a student whose id is markup gets the
whole solution. Each build runs in the grading sandbox (about 10 s).
"""

from __future__ import annotations

import csv
import datetime as dt
import html
import os
import shutil
import zipfile
from contextlib import contextmanager

import nbformat
import pytest

from kit.course import ASSIGNMENTS
from kit.judge.plan import planned_entries
from kit.solutions import SolutionRefused, release_solutions
from kit.solutions.__main__ import main
from kit.solutions.build import check_student_id, leaks
from kit.solutions.notebook import CODE, EXACT, answers_only, solution_notebook
from kit.solutions.schedule import ANSWERS, FULL, decide, late_window, schedule
from kit.term import NOW_VAR, save
from kit.term.calendar import Calendar, Entry, Extension
from kit.term.times import parse_policy
from kpca_ref import variants
from tests.intake.test_exchange import nbgrader, student_env
from tests.support.nbgrading import (
    TEST_SECRET,
    hidden_test_lines,
    pin_secret,
    read_release,
    read_source,
)

PS = "ps1_circle_lift"
DUE = dt.datetime(2026, 12, 10, 16, 0, tzinfo=dt.timezone.utc)
#: an id that is markup, quotes and an ampersand: it must stay text everywhere
MARKUP = "<img src=x onerror=alert(1)>\"&'"
FEEDBACK_MARK = "FEEDBACK-PAGE-OF-ADA"


def calendar(late: str = "grace 15m; none") -> Calendar:
    cal = Calendar.empty()
    cal.entries[PS] = Entry(None, DUE, "Europe/Berlin", parse_policy(late))
    cal.extensions[PS] = {"bob": Extension("ill, note seen", days=2)}
    cal.exemptions[PS] = {"cy": "joined late"}
    return cal


@contextmanager
def exchange_env(exchange):
    before = os.environ.get("KPCA_EXCHANGE")
    os.environ["KPCA_EXCHANGE"] = str(exchange)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("KPCA_EXCHANGE", None)
        else:
            os.environ["KPCA_EXCHANGE"] = before


@contextmanager
def parsing_one_thread_at_a_time():
    """Fail a builder thread that parses code without holding ``notebook.PARSING``: CPython
    3.11's ``ast.parse`` on two threads at once raised "AST constructor recursion depth
    mismatch" and lost the whole release. Yields the list of the threads' parses."""
    import ast
    import threading

    from kit.solutions import notebook

    real, seen = ast.parse, []

    def guarded(*args, **kwargs):
        if threading.current_thread() is not threading.main_thread():
            assert notebook.PARSING._is_owned(), "a builder thread parsed without the lock"
            seen.append(threading.current_thread().name)
        return real(*args, **kwargs)

    ast.parse = guarded
    try:
        yield seen
    finally:
        ast.parse = real


@pytest.fixture(scope="module")
def term(tmp_path_factory, released_ps1):
    tmp = tmp_path_factory.mktemp("solutions")
    course = released_ps1(tmp / "course")
    pin_secret(course)
    save(course, calendar())
    roster = tmp / "roster.csv"
    with roster.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows([["student_id"], ["ada"], ["bob"], ["cy"], [MARKUP]])
    exchange, home = tmp / "exchange", tmp / "home" / "ada"
    home.mkdir(parents=True)
    instructor = {**os.environ, "KPCA_EXCHANGE": str(exchange)}
    nbgrader("release_assignment", PS, cwd=course.root, env=instructor)
    ada = student_env(home, "ada")
    where = f"--Exchange.root={exchange}"
    nbgrader("fetch_assignment", PS, "--course", "kernel_pca", where, cwd=home, env=ada)
    nbgrader("submit", PS, "--course", "kernel_pca", "--student=ada", where, cwd=home, env=ada)
    nbgrader("collect", PS, cwd=course.root, env=instructor)
    # ada's feedback page as generate_feedback leaves it (grading is tested elsewhere)
    feedback = course.root / "feedback" / "ada" / PS
    feedback.mkdir(parents=True)
    for name in ("timestamp.txt", "submission_secret.txt"):
        shutil.copyfile(course.root / "submitted" / "ada" / PS / name, feedback / name)
    (feedback / f"{PS}.html").write_text(
        f"<!DOCTYPE html><html><head><title>{PS}</title></head><body><main><p>{FEEDBACK_MARK}</p>"
        "</main></body></html>", encoding="utf-8")
    # the instructor accepts cy's exemption (--late-open): without it cy gets nothing and the
    # code waits (test_an_exempt_student_gets_nothing_and_the_code_waits_for_her)
    with exchange_env(exchange), parsing_one_thread_at_a_time() as parsed_off_main:
        day_after = release_solutions(course, PS, ["ada", "bob", "cy"], now=DUE + dt.timedelta(days=1),
                                      hub=True, roster=roster, workers=2, late_open=True)
    assert parsed_off_main, "the builders' threads parsed nothing: the guard below saw nothing"
    after_all = release_solutions(course, PS, [MARKUP], now=DUE + dt.timedelta(days=3), roster=roster,
                                  late_open=True)
    return {"course": course, "roster": roster, "exchange": exchange, "home": home, "ada": ada,
            "day_after": {o.student: o for o in day_after},
            "after_all": {o.student: o for o in after_all}}


def folder(course, student):
    return course.root / "solutions" / student / PS


def texts(course, student) -> list[str]:
    """Every file written for ``student``: the notebook, the page, and the zip's members."""
    base = folder(course, student)
    found = [base.joinpath(f"{PS}_solution.ipynb").read_text(encoding="utf-8"),
             base.joinpath(f"{PS}_solution.html").read_text(encoding="utf-8")]
    with zipfile.ZipFile(base / f"{PS}_solution.zip") as zf:
        found += [zf.read(name).decode("utf-8") for name in zf.namelist()]
    return found


def printed(course, student) -> str:
    nb = nbformat.read(folder(course, student) / f"{PS}_solution.ipynb", as_version=4)
    return "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)


def test_nothing_goes_out_before_a_students_own_due_date(term, monkeypatch, capsys):
    course = term["course"]
    cy_before = (folder(course, "cy") / "released.json").read_text(encoding="utf-8")
    before = DUE - dt.timedelta(minutes=1)
    outcomes = release_solutions(course, PS, ["bob", "cy"], now=before, roster=term["roster"],
                                 late_open=True)
    assert [o.form for o in outcomes] == ["refused", "refused"]
    assert "bob: no solution of ps1_circle_lift before their due date, 2026-12-12 17:00 " \
           "Europe/Berlin (extension included)" in outcomes[0].message
    assert "cy: no solution of ps1_circle_lift before their due date, 2026-12-10 17:00 " \
           "Europe/Berlin (exempt (joined late): the problem set's due date)" in outcomes[1].message
    assert not folder(course, "bob").exists()
    assert (folder(course, "cy") / "released.json").read_text(encoding="utf-8") == cy_before
    # the command: one line naming the student and their due date, exit status 2
    monkeypatch.setenv(NOW_VAR, "2026-12-12 17:14 Europe/Berlin")  # within bob's grace
    assert main([PS, "--students", "bob", "--roster", str(term["roster"]),
                 "--course", str(course.root)]) == 2
    err = capsys.readouterr().err
    assert "not yet: bob: no solution of ps1_circle_lift before their due date, 2026-12-12 17:00" in err
    assert "hand-ins count until 2026-12-12 17:15 Europe/Berlin" in err
    assert not folder(course, "bob").exists()


def test_a_student_with_an_extension_waits_while_classmates_get_theirs(term):
    day_after = term["day_after"]
    assert day_after["ada"].form == ANSWERS
    assert day_after["cy"].form == ANSWERS  # exempt: the problem set's due date
    assert day_after["bob"].form == "refused" and "2026-12-12 17:00" in day_after["bob"].message
    assert not folder(term["course"], "bob").exists()
    assert not (term["course"].root / "solutions_hub" / "bob").exists()


def test_before_the_last_extension_only_the_exact_answers_are_worked(term):
    course = term["course"]
    nb = nbformat.read(folder(course, "ada") / f"{PS}_solution.ipynb", as_version=4)
    out = printed(course, "ada")
    for item, name in (("ps1_lift_dot_u", "lift_dot_u"), ("ps1_circle_u", "u_circle")):
        assert f"{name} = {variants.answer(item, 'ada')[0]}" in out
    assert "Your numbers (variant for 'ada')" in out
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert "np.ones_like(f1)" not in code and "NotImplementedError" in code  # lift as released
    plot = next(c for c in nb.cells if "recover_circle(X_noisy)" in c.source)
    assert plot.outputs == []  # drawn by the code solution: not shown yet
    assert "YOUR ANSWER HERE" in "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def test_solutions_built_at_once_hold_each_students_own_numbers(term):
    """ada's and cy's were built side by side (two kernels): each has their own numbers."""
    course = term["course"]
    for me, other in (("ada", "cy"), ("cy", "ada")):
        out = printed(course, me)
        assert f"Your numbers (variant for {me!r})" in out and f"for {other!r}" not in out
        mine, theirs = (variants.answer("ps1_lift_dot_u", s)[0] for s in (me, other))
        assert mine != theirs and f"lift_dot_u = {mine}" in out
        assert f"lift_dot_u = {theirs}" not in out


def test_on_the_hub_the_student_fetches_the_solution_with_the_feedback(term):
    hashed = list((term["exchange"] / "kernel_pca" / "feedback").glob("*.html"))
    assert len(hashed) == 1  # ada's only: bob has to wait, cy has nothing graded to attach it to
    assert "no feedback page to attach the solution to" in term["day_after"]["cy"].hub
    nbgrader("fetch_feedback", PS, "--course", "kernel_pca", f"--Exchange.root={term['exchange']}",
             cwd=term["home"], env=term["ada"])
    pages = list((term["home"] / PS / "feedback").glob(f"*/{PS}.html"))
    assert len(pages) == 1
    page = pages[0].read_text(encoding="utf-8")
    assert FEEDBACK_MARK in page and "Worked solution of ps1_circle_lift on your numbers" in page
    assert page.index(FEEDBACK_MARK) < page.index("Worked solution of")
    assert html.escape(f"lift_dot_u = {variants.answer('ps1_lift_dot_u', 'ada')[0]}") in page
    assert page.count("<main") == 1


def test_the_whole_solution_is_the_students_own_and_holds_nothing_of_the_grader(term):
    course = term["course"]
    assert term["after_all"][MARKUP].form == FULL
    files = texts(course, MARKUP)
    nb = nbformat.reads(files[0], as_version=4)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert "np.ones_like(f1)" in code  # the code solution of lift
    out = printed(course, MARKUP)
    assert f"Your numbers (variant for {MARKUP!r})" in out
    mine, ada = (variants.answer("ps1_circle_u", s)[0] for s in (MARKUP, "ada"))
    assert mine != ada
    assert f"u_circle = {mine}" in out and f"u_circle = {ada}" not in out
    every = files + [html.unescape(files[1])]
    for line in hidden_test_lines(PS):
        assert not any(line in text for text in every), line
    assert not any(TEST_SECRET in text or TEST_SECRET[:16] in text for text in every)
    assert not any(c.metadata.get("nbgrader") for c in nb.cells)
    page = files[1]
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page


def test_the_guard_finds_hidden_lines_and_the_secret(term):
    course, source = term["course"], read_source(PS)
    line = min(hidden_test_lines(PS))
    assert leaks(["clean text"], course.root, source) == []
    assert leaks([f"x\n{line}\n"], course.root, source)
    assert leaks([html.escape(line)], course.root, source)
    assert leaks([f"salt {TEST_SECRET}"], course.root, source)


def test_the_schedule_follows_the_calendar():
    cal = calendar()
    ada, bob, cy = (schedule(cal, PS, s) for s in ("ada", "bob", "cy"))
    grace = dt.timedelta(minutes=15)
    assert (ada.answers_at, bob.answers_at) == (DUE + grace, DUE + dt.timedelta(days=2) + grace)
    assert (cy.answers_at, cy.code_at, ada.code_at, bob.code_at) == (None,) * 4  # cy is exempt
    ada, bob, cy = (schedule(cal, PS, s, late_open=True) for s in ("ada", "bob", "cy"))
    assert (ada.answers_at, ada.code_at) == (DUE + grace, DUE + dt.timedelta(days=2) + grace)
    assert bob.answers_at == bob.code_at == DUE + dt.timedelta(days=2) + grace
    assert (cy.answers_at, cy.code_at) == (ada.answers_at, ada.code_at)  # exempt: the class's date
    assert schedule(cal, PS, "ada", code_now=True, late_open=True).code_at == ada.answers_at
    assert decide(ada, DUE + dt.timedelta(days=1)) == ANSWERS
    assert decide(ada, DUE + dt.timedelta(days=3)) == FULL
    for early in (DUE + dt.timedelta(minutes=14), ada.answers_at):  # a hand-in still counts
        with pytest.raises(SolutionRefused, match="ada: no solution"):
            decide(ada, early)
    assert decide(ada, ada.code_at) == ANSWERS
    # a late hand-in counts until the penalty takes everything: 10% a day, the 10th day on
    assert late_window(parse_policy("10% per day")) == dt.timedelta(days=9)
    assert late_window(parse_policy("grace 1h; none")) == dt.timedelta(hours=1)
    for endless in ("off", "10% per day; cap 50%"):
        assert late_window(parse_policy(endless)) is None
        with pytest.raises(SolutionRefused, match="however late"):
            schedule(calendar(endless), PS, "ada")
        assert schedule(calendar(endless), PS, "ada", late_open=True).answers_at == DUE
    with pytest.raises(SolutionRefused, match="has no due date"):
        schedule(Calendar.empty(), PS, "ada")


@pytest.mark.parametrize("bad", ["", " ada", "../ada", "a/b", ".hidden", "ada\x1b[2J", "ada\u202e",
                                 "x" * 200])
def test_ids_that_cannot_name_a_folder_are_refused(bad):
    with pytest.raises(ValueError, match="cannot name a folder"):
        check_student_id(bad)


def test_unknown_students_and_problem_sets_are_refused(term):
    with pytest.raises(ValueError, match="unknown student 'zed'"):
        release_solutions(term["course"], PS, ["zed"], now=DUE)
    with pytest.raises(ValueError, match="unknown problem set"):
        release_solutions(term["course"], "ps9_nothing", ["ada"], now=DUE)
    assert check_student_id(MARKUP) == MARKUP


@pytest.mark.parametrize("ps", ASSIGNMENTS)
def test_every_problem_set_builds_without_hidden_tests_and_masks_its_code(ps):
    """Built, not run (each problem set's run in the sandbox is ten seconds): no hidden-test
    line or nbgrader metadata; every exact item's cell is worked; the answers-only form has
    every code and written answer exactly as released."""
    nb, kinds = solution_notebook(read_source(ps), "ada")
    text = nbformat.writes(nb)
    assert not [line for line in hidden_test_lines(ps) if line in text]
    assert 'STUDENT_ID = "ada"' in text.replace("'ada'", '"ada"')
    exact = {name for kind, names, _ in kinds if kind == EXACT for name in names}
    source = read_source(ps)
    graded = {expr.split("[")[0] for c in source.cells if "HIDDEN TESTS" in c.source
              for kind, _, expr, _ in planned_entries(c.source) if kind == "grade_exact"}
    assert graded and graded <= exact
    release = {c.metadata["nbgrader"]["grade_id"]: c.source for c in read_release(ps).cells
               if c.metadata.get("nbgrader", {}).get("solution")}
    masked = answers_only(nb, kinds, read_release(ps))
    for cell, (kind, _, gid) in zip(masked.cells, kinds):
        if kind == CODE:
            assert cell.source == release[gid], gid


def test_a_known_id_that_cannot_name_a_folder_is_refused_with_the_class(term):
    """A hand-in folder whose name carries a terminal escape: the whole class's run refuses
    that id in one inert line and goes on with the others."""
    course = term["course"]
    odd = course.root / "submitted" / "eve\x1b[2J"
    odd.mkdir()
    try:
        outcomes = {o.student: o for o in release_solutions(course, PS, now=DUE - dt.timedelta(minutes=1))}
    finally:
        odd.rmdir()
    assert "cannot name a folder" in outcomes["eve\x1b[2J"].message
    assert "\x1b" not in outcomes["eve\x1b[2J"].message and "\\x1b" in outcomes["eve\x1b[2J"].message
    assert outcomes["ada"].form == "refused" and "before their due date" in outcomes["ada"].message
    assert not (course.root / "solutions" / "eve\x1b[2J").exists()


def test_an_exempt_student_gets_nothing_and_the_code_waits_for_her(term, monkeypatch, capsys):
    """cy is exempt: a hand-in of hers counts, without penalty, whenever it comes. Her own
    worked answers (at the problem set's due date, as before) or a classmate's code solution
    (once bob's extension passed) would let her hand in the solution for full marks; neither
    goes out, however late, unless the instructor accepts it (--late-open)."""
    course, late = term["course"], DUE + dt.timedelta(days=60)
    before = (folder(course, "cy") / "released.json").read_text(encoding="utf-8")
    (cy,) = release_solutions(course, PS, ["cy"], now=late, roster=term["roster"])
    assert cy.form == "refused" and "counts whenever it comes" in cy.message
    assert "exempt (joined late)" in cy.message
    assert (folder(course, "cy") / "released.json").read_text(encoding="utf-8") == before
    ada = schedule(calendar(), PS, "ada")
    assert decide(ada, late) == ANSWERS  # the code, the same for cy, waits for her
    assert decide(schedule(calendar(), PS, "ada", code_now=True), late) == FULL
    monkeypatch.setenv(NOW_VAR, "2027-02-08 12:00 UTC")
    assert main([PS, "--students", "cy", "--roster", str(term["roster"]),
                 "--course", str(course.root)]) == 2
    assert "not yet: cy: no solution of ps1_circle_lift: exempt (joined late)" in capsys.readouterr().err
