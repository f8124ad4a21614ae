"""The student's overview: what it says of each problem set, and the page it makes of it.

On the small term of :mod:`tests.checks.overview_course` (written by the kit's own writers):
each status (not open yet, not fetched, fetched, submitted late, graded, feedback available),
each student's own due date with her extension and its reason, the score after the penalty
the gradebook holds, checks used, solutions shown only past her own due date, and the file
:func:`kit.checks.overview_page.write_overview` writes. Hostile records: a received record
of hundreds of MB, links where pages should be, markup and escapes in every field.
"""

from __future__ import annotations

import os
import re
import time
from html.parser import HTMLParser

import pytest

from kit.checks.overview import MAX_RECORD, overview
from kit.checks.overview_page import render, write_overview
from tests.checks.overview_course import NOW, PS, REASON, make_term


@pytest.fixture(scope="module")
def term(released_ps1, tmp_path_factory):
    return make_term(released_ps1, tmp_path_factory.mktemp("term") / "course")


def _rows(course, student, when=NOW):
    return {r.ps: r for r in overview(course, student, when)}


def test_each_status_from_the_course_records(term):
    ada, bob, cy, dee, eve = (_rows(term, s) for s in ("ada", "bob", "cy", "dee", "eve"))
    assert [ada[PS].status, bob[PS].status, cy[PS].status, dee[PS].status, eve[PS].status] == [
        "feedback available", "graded", "submitted late", "fetched", "not fetched"]
    assert eve["ps2_feature_maps"].status == "not open yet"
    # only what this course hands out: the calendar's ps2 and the released ps1
    assert sorted(eve) == [PS, "ps2_feature_maps"]
    assert cy[PS].status_text == "submitted late (1 day 2 h after your due date)"
    assert dee[PS].checks == 2 and eve[PS].checks == 0


def test_own_due_dates_and_reasons(term):
    ada, bob, dee = (_rows(term, s)[PS] for s in ("ada", "bob", "dee"))
    assert bob.shown(bob.due) == "2026-12-10 17:00 Europe/Berlin" and bob.granted == ""
    assert ada.shown(ada.due) == "2026-12-13 17:00 Europe/Berlin"
    assert ada.granted == f"extended to 2026-12-13 17:00 Europe/Berlin: {REASON}"
    assert dee.shown(dee.due) == "2026-12-20 13:00 Europe/Berlin"
    assert ada.shown(ada.opens) == "2026-12-03 09:00 Europe/Berlin"


def test_scores_carry_the_gradebooks_late_penalty(term):
    from nbgrader.api import Gradebook

    with Gradebook(term.db_url) as gb:
        raw = {s: gb.find_submission(PS, s).score for s in ("ada", "bob")}
    ada, bob = (_rows(term, s)[PS] for s in ("ada", "bob"))
    assert ada.penalty == 0 and ada.score == raw["ada"] and ada.late_by == 0  # extended
    assert bob.penalty == pytest.approx(0.1 * raw["bob"])  # 17 h late: one day's 10%
    assert bob.score == pytest.approx(raw["bob"] - bob.penalty)
    assert "17 h late" in bob.why and f"{bob.penalty:.4g} of" in bob.why
    assert bob.status_text == "graded (handed in 17 h late)"


def test_solutions_only_past_her_own_due_date(term):
    ada, bob, dee, eve = (_rows(term, s)[PS] for s in ("ada", "bob", "dee", "eve"))
    assert (ada.solutions, bob.solutions, eve.solutions) == (True, True, False)
    assert dee.solutions is False  # written, but his extension runs to 12-20
    later = _rows(term, "dee", NOW.replace(day=21))[PS]
    assert later.solutions is True
    # before ada's own (extended) due date her solutions are not shown either
    assert _rows(term, "ada", NOW.replace(day=12))[PS].solutions is False


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.attrs = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.extend(name for name, _ in attrs)


def test_page_escapes_every_field_and_has_no_script(term):
    rows = overview(term, "ada", NOW)
    evil = '<img src=x onerror=alert(1)>\x1b[2J\u202e'
    page = render(evil, rows, NOW, lambda kind, ps: f"{kind}/{ps}")
    parsed = _Tags()
    parsed.feed(page)
    assert "img" not in parsed.tags and "b" not in parsed.tags and "script" not in parsed.tags
    assert not [a for a in parsed.attrs if a.startswith("on")]
    assert "&lt;img src=x onerror=alert(1)&gt;\\x1b[2J\\u202e" in page
    assert "ill &lt;b onmouseover=&quot;alert(1)&quot;&gt;note&lt;/b&gt; seen\\x1b]0;owned\\x07" in page
    assert "\x1b" not in page and "\u202e" not in page
    assert 'href="feedback/ps1_circle_lift"' in page and 'href="solutions/ps1_circle_lift"' in page


def test_write_overview_links_the_course_pages(term, tmp_path):
    dest = write_overview(term, "ada", tmp_path / "out" / "ada.html", NOW)
    page = dest.read_text()
    links = re.findall(r'href="([^"]+)"', page)
    assert len(links) == 2
    for link in links:
        assert (dest.parent / link).resolve().is_file()
    assert f"feedback/ada/{PS}/{PS}.html" in links[0]
    bob = write_overview(term, "bob", tmp_path / "bob.html", NOW).read_text()
    # his feedback page is not generated yet: only his solutions are linked
    (link,) = re.findall(r'href="([^"]+)"', bob)
    assert (tmp_path / link).resolve() == (
        term.root / "solutions" / "bob" / PS / f"{PS}_solution.html").resolve()
    with pytest.raises(ValueError, match="a student id must name one folder, got '../ada'"):
        write_overview(term, "../ada", tmp_path / "x.html", NOW)


def test_a_huge_received_record_is_no_record(term):
    record = term.root / "received" / "eve" / f"{PS}.json"
    record.parent.mkdir(parents=True, exist_ok=True)
    with open(record, "wb") as fh:  # sparse: 300 MB that costs no disk
        fh.write(b'{"time": "2026-12-01T00:00:00+00:00", "pad": "')
        fh.truncate(300 << 20)
    try:
        start = time.monotonic()
        row = _rows(term, "eve")[PS]
        assert time.monotonic() - start < 5
        assert row.status == "not fetched" and row.received is None
        record.write_text('{"time": "2026-12-01T00:00:00+00:00"}')
        assert _rows(term, "eve")[PS].status == "submitted on time"  # a real one counts
        assert record.stat().st_size < MAX_RECORD
    finally:
        record.unlink()


def test_links_and_other_students_pages_are_not_hers(term):
    """A feedback page or solutions folder that is a link (to ada's) is none: bob is graded
    and cy past her due date, so without the links' refusal both would show ada's."""
    mine = term.root / "feedback" / "bob" / PS
    mine.mkdir(parents=True)
    try:
        os.symlink(term.root / "feedback" / "ada" / PS / f"{PS}.html", mine / f"{PS}.html")
        (term.root / "solutions" / "cy").mkdir(parents=True)
        os.symlink(term.root / "solutions" / "ada" / PS, term.root / "solutions" / "cy" / PS)
        assert _rows(term, "bob")[PS].feedback is False
        assert _rows(term, "cy")[PS].solutions is False
    finally:
        (mine / f"{PS}.html").unlink()
        mine.rmdir()
        (term.root / "solutions" / "cy" / PS).unlink()
        (term.root / "solutions" / "cy").rmdir()


def test_on_a_hub_course_feedback_counts_once_released(term, tmp_path, monkeypatch):
    """With an exchange (a hub course), a generated feedback page is not hers until
    ``nbgrader release_feedback`` put it there under her submission's secret."""
    from nbgrader.utils import notebook_hash

    from kit.checks.overview import exchange_of

    monkeypatch.setenv("KPCA_EXCHANGE", str(tmp_path / "exchange"))
    (tmp_path / "exchange" / "kernel_pca" / "feedback").mkdir(parents=True)
    assert exchange_of(term.root) == tmp_path / "exchange" / "kernel_pca"
    secret = term.root / "feedback" / "ada" / PS / "submission_secret.txt"
    secret.write_text("s3cret-of-ada")
    try:
        assert _rows(term, "ada")[PS].status == "graded"  # generated, not released
        released = tmp_path / "exchange" / "kernel_pca" / "feedback" / (
            notebook_hash(secret="s3cret-of-ada", notebook_id=PS) + ".html")
        released.write_text("<html></html>")
        assert _rows(term, "ada")[PS].status == "feedback available"
        secret.write_text("another secret")  # bob's released page is not hers
        assert _rows(term, "ada")[PS].status == "graded"
    finally:
        secret.unlink()


def test_fetched_from_her_home_folder(term, tmp_path):
    """Where the service knows the homes (KPCA_HOMES on the hub), a problem set's folder in
    hers is fetched; a link of that name (to anything) is not."""
    homes = str(tmp_path / "home" / "{student}")
    (tmp_path / "home" / "eve").mkdir(parents=True)
    rows = {r.ps: r for r in overview(term, "eve", NOW, homes=homes)}
    assert rows[PS].status == "not fetched"
    (tmp_path / "home" / "eve" / PS).symlink_to(tmp_path)
    assert {r.ps: r for r in overview(term, "eve", NOW, homes=homes)}[PS].status == "not fetched"
    (tmp_path / "home" / "eve" / PS).unlink()
    (tmp_path / "home" / "eve" / PS).mkdir()
    assert {r.ps: r for r in overview(term, "eve", NOW, homes=homes)}[PS].status == "fetched"
