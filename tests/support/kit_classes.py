"""A pytest plugin that gives a run the kit's changes to nbgrader, as a grading process has them.

``python -m pytest -p tests.support.kit_classes --pyargs nbgrader.tests...`` runs nbgrader's
own tests with the gradebook reuse of a grading process (:mod:`kit.engines.gradebook_reuse`:
one engine per gradebook, one query to check the tables) and nbgrader's alembic head read in
process (:func:`kit.course.read_alembic_head_in_process`) installed before the first test:
what the kit changes in nbgrader must leave nbgrader's own behaviour as its tests state it
(tests/engines/test_nbgrader_own_tests.py).
"""

from __future__ import annotations


def pytest_configure(config):
    from kit.course import read_alembic_head_in_process
    from kit.engines import gradebook_reuse

    read_alembic_head_in_process()
    gradebook_reuse.install()
    config.kit_classes_installed = True


def pytest_terminal_summary(terminalreporter):
    """Say, after the last test, whether both changes were still in place (shown with -q)."""
    from nbgrader import api

    from kit.engines import gradebook_reuse

    in_process = getattr(api.get_alembic_version, "_kpca_in_process", False) or getattr(
        getattr(api.get_alembic_version, "__wrapped__", None), "_kpca_in_process", False)
    terminalreporter.write_line(
        f"kit changes in place to the end: gradebook reuse {gradebook_reuse._installed}, "
        f"alembic head in process {in_process}")
