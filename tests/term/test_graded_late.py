"""End to end: ``kit.autograde`` grades a late hand-in whose ``timestamp.txt`` says it was early.

One real grading of ps1 (nbgrader's autograde in the sandbox, through the course's
``nbgrader_config.py``) under a calendar: the gradebook's late penalty is the calendar's,
from the time the course received the hand-in, and the feedback page says what it took.
"""

from __future__ import annotations

import datetime as dt

import pytest
from bs4 import BeautifulSoup
from nbgrader.api import Gradebook

from kit.autograde import grade_class
from kit.handback.feedback import feedback_page
from kit.intake.received import record_received
from kit.term.__main__ import main as term
from tests.support.nbgrading import lay_submission, pin_secret

PS = "ps1_circle_lift"


@pytest.mark.filterwarnings("ignore")
def test_a_late_hand_in_claiming_to_be_early_is_penalised_through_the_real_grader(released_ps1, tmp_path):
    course = released_ps1(tmp_path / "course")
    pin_secret(course)
    lay_submission(course, PS, "zoe", {})  # every answer the solution's
    (course.root / "submitted" / "zoe" / PS / "timestamp.txt").write_text(
        "2026-12-01 09:00:00.000000 UTC")  # the student's claim
    record_received(course, "zoe", PS, dt.datetime(2026, 12, 13, 16, 30), "test intake")  # 3 days late
    assert term(["--course", str(course.root), "set", PS, "--due", "2026-12-10 17:00 Europe/Berlin",
                 "--late", "10% per day; cap 25%"]) == 0
    (outcome,) = grade_class(course, [PS], students=["zoe"], workers=1, progress=False, feedback=True)
    assert outcome.status == "graded", outcome.message
    with Gradebook(course.db_url) as gb:
        sub = gb.find_submission(PS, "zoe")
        (nb,) = sub.notebooks
        assert sub.timestamp == dt.datetime(2026, 12, 13, 16, 30)  # never timestamp.txt's
        assert nb.score > 0 and nb.late_submission_penalty == pytest.approx(0.25 * nb.score)
        taken, score = nb.late_submission_penalty, nb.score
    page = BeautifulSoup(feedback_page(course, PS, "zoe").read_text(), "html.parser")
    (line,) = [li.get_text() for li in page.select("li.late-penalty")]
    assert line.startswith("Late submission penalty (Score: -")
    assert line.endswith("3 days 30 min late: 4 × 0.1 per day, capped at 25% = 0.25 of the "
                         f"score; {taken:.4g} of {score:.4g} points taken")
