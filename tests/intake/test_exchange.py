"""The JupyterHub course end to end through an exchange directory, with nbgrader's commands.

The instructor releases ps1_circle_lift to a temporary exchange; two students, each in a
home directory of their own and knowing only the exchange root and ``--course kernel_pca``
(never the course's ``nbgrader_config.py``), fetch it, work it and submit it; the TA
collects, grades and writes the feedback (``kit.autograde --feedback``), releases the
feedback and exports the grades; each student fetches their own feedback.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import nbformat
import pytest

from kit.autograde import autograde_student, grading_api
from kit.handback.feedback import write_feedback
from kit.intake.submitted import build_submission
from tests.support.nbgrading import auto_points, hidden_test_lines, read_source, variants

PS = "ps1_circle_lift"
COURSE_ID = "kernel_pca"
#: student -> what they hand in: the instructor's solution, or a variant with a classic mistake
STUDENTS = {"ada_reference": "solution", "bob_not_centred": "not_centred"}


def expected_score(what: str) -> float:
    full = sum(auto_points(read_source(PS)).values())
    return full - (0.0 if what == "solution" else sum(variants(PS)[what]["lost"].values()))


def nbgrader(*args, cwd, env):
    """Run one nbgrader command as a user would; fail the test with its log if it fails."""
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{done.stdout}{done.stderr}"
    return done


def student_env(home, student, config_dir=None):
    """A student's environment on the hub: their own HOME and JUPYTERHUB_USER, nothing of
    the course (no KPCA_* variable); ``config_dir`` plays the admin's /etc/jupyter."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "KPCA_"))}
    env.update(HOME=str(home), JUPYTERHUB_USER=student)
    if config_dir is not None:
        env["JUPYTER_CONFIG_PATH"] = str(config_dir)
    return env


def in_parallel(job, items):
    """Run ``job(item)`` for every item at once, as students act independently."""
    with ThreadPoolExecutor(len(items)) as pool:
        return list(pool.map(job, items))


@pytest.fixture(scope="module")
def hub(tmp_path_factory, released_ps1):
    tmp = tmp_path_factory.mktemp("hub")
    exchange = tmp / "exchange"  # release_assignment creates it, world-writable
    course = released_ps1(tmp / "course")
    instructor = {**os.environ, "KPCA_EXCHANGE": str(exchange)}
    nbgrader("release_assignment", PS, cwd=course.root, env=instructor)

    # What the hub's admin puts in /etc/jupyter/nbgrader_config.py (README, "For TAs").
    etc = tmp / "etc-jupyter"
    etc.mkdir()
    (etc / "nbgrader_config.py").write_text(f"c = get_config()\nc.Exchange.root = {str(exchange)!r}\n")
    # ada's server reads the admin's file; bob names the exchange on the command line.
    how = {"ada_reference": ([], etc), "bob_not_centred": ([f"--Exchange.root={exchange}"], None)}
    homes = {s: tmp / "home" / s for s in STUDENTS}

    def hand_in(student):
        extra, config_dir = how[student]
        homes[student].mkdir(parents=True)
        env = student_env(homes[student], student, config_dir)
        nbgrader("fetch_assignment", PS, "--course", COURSE_ID, *extra, cwd=homes[student], env=env)
        fetched = homes[student] / PS / f"{PS}.ipynb"
        assert fetched.read_bytes() == course.notebook("release", PS).read_bytes()
        what = STUDENTS[student]
        cells = None if what == "solution" else variants(PS)[what]["cells"]
        nbformat.write(build_submission(course, PS, cells), fetched)
        # nbgrader files a submission under the OS user's name and reads JUPYTERHUB_USER
        # only when that user is `jovyan`; these tests run as one OS user, so name the student.
        nbgrader("submit", PS, "--course", COURSE_ID, f"--student={student}", *extra,
                 cwd=homes[student], env=env)

    def fetch_feedback(student):
        extra, config_dir = how[student]
        env = student_env(homes[student], student, config_dir)
        nbgrader("fetch_feedback", PS, "--course", COURSE_ID, *extra, cwd=homes[student], env=env)

    in_parallel(hand_in, list(STUDENTS))
    nbgrader("collect", PS, cwd=course.root, env=instructor)
    # the grading and feedback of `python -m kit.autograde --feedback`, one student at a time
    api = grading_api(course)
    scores = {s: autograde_student(course, PS, s, api=api) for s in STUDENTS}
    assert not [s for s in STUDENTS if write_feedback(course, PS, s, api=api)]
    nbgrader("release_feedback", PS, cwd=course.root, env=instructor)
    in_parallel(fetch_feedback, list(STUDENTS))
    nbgrader("export", "--to=grades.csv", cwd=course.root, env=instructor)
    return course, exchange, homes, scores


def test_collect_files_each_submission_under_its_student(hub):
    course, exchange, _, _ = hub
    inbound = sorted(p.name.split("+")[0] for p in (exchange / COURSE_ID / "inbound").iterdir())
    assert inbound == sorted(STUDENTS)
    for student in STUDENTS:
        folder = course.root / "submitted" / student / PS
        assert (folder / f"{PS}.ipynb").exists() and (folder / "timestamp.txt").exists()


def test_each_student_gets_the_reasoned_score(hub):
    _, _, _, scores = hub
    auto_ids = auto_points(read_source(PS))
    for student, what in STUDENTS.items():
        got = sum(v for k, v in scores[student].items() if k in auto_ids)
        assert got == expected_score(what), (student, scores[student])


def test_feedback_reaches_each_student_without_hidden_tests(hub):
    course, _, homes, _ = hub
    hidden = hidden_test_lines(PS)
    assert hidden
    for student, home in homes.items():
        page = (course.root / "feedback" / student / PS / f"{PS}.html").read_text(encoding="utf-8")
        assert "HIDDEN TESTS" not in page and "_grading" not in page
        assert not [line for line in hidden if line in page], student
        fetched = list((home / PS / "feedback").glob(f"*/{PS}.html"))
        assert len(fetched) == 1, f"{student} fetched {fetched}"
        assert fetched[0].read_text(encoding="utf-8") == page


def test_export_lists_both_students_with_their_scores(hub):
    course, _, _, _ = hub
    with (course.root / "grades.csv").open(newline="") as fh:
        rows = {r["student_id"]: r for r in csv.DictReader(fh) if r["assignment"] == PS}
    assert {s: float(rows[s]["score"]) for s in STUDENTS} == {
        s: expected_score(w) for s, w in STUDENTS.items()}
