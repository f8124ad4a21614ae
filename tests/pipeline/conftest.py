"""A released ps1_circle_lift course, made once and copied by each test that needs one."""

from __future__ import annotations

import shutil

import pytest

from kit.course import Course, copy_course
from kit.release import release

PS = "ps1_circle_lift"


@pytest.fixture(scope="session")
def released_ps1(tmp_path_factory):
    """Make a fresh course from it with ``released_ps1(dest)``: source, release, gradebook."""
    template = copy_course(tmp_path_factory.mktemp("released_ps1"), [PS])
    assert not release(template, [PS])

    def fresh(dest) -> Course:
        shutil.copytree(template.root, dest)
        return Course(dest)

    return fresh
