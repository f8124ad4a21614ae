"""Test-wide set-up: kernels started by the tests get the grading environment."""

import os

import pytest

from kit.course import prepare_environment

prepare_environment()
# Notebooks the tests run outside the grader (source notebooks, nbgrader validate) draw their
# numbers for this id, as an instructor trying a notebook would set it; the grader always
# sets the submission's own id for each graded notebook.
os.environ.setdefault("KPCA_STUDENT_ID", "instructor_check")


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory):
    """The main job (``kit.demo.run``) on a temporary copy of the course: (course, outcomes).

    Graded once per test session; the pipeline tests check it, and the problem-set tests
    take from it the scores of the submissions the demo class hands in.
    """
    from kit import demo
    from kit.course import copy_course
    from tests.support.nbgrading import pin_secret

    course = copy_course(tmp_path_factory.mktemp("demo"))
    pin_secret(course)
    outcomes = demo.run(course, workers=2)
    return course, outcomes


@pytest.fixture(scope="session")
def released_ps1(tmp_path_factory):
    """A released ps1_circle_lift course, made once: ``released_ps1(dest)`` copies it to ``dest``.

    For the intake (exchange, zip collect) and engine (cluster) tests: source, release, gradebook.
    """
    import shutil

    from kit.course import Course, copy_course
    from kit.release import release
    from tests.support.once import made_once

    def build(folder):
        assert not release(copy_course(folder, ["ps1_circle_lift"]), ["ps1_circle_lift"])

    # made once per run of the whole suite: its users sit in several groups
    template = made_once("released_ps1", tmp_path_factory, build)

    def fresh(dest) -> Course:
        shutil.copytree(template, dest)
        return Course(dest)

    return fresh
