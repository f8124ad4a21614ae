"""The small graded ps1 class with a hand grade (``tests/support/graded_class.py``)."""

from __future__ import annotations

import pytest

from tests.support.graded_class import graded_class


@pytest.fixture(scope="session")
def graded(tmp_path_factory):
    return graded_class(tmp_path_factory)
