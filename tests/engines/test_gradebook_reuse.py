"""A grading process builds one database engine per gradebook (kit/engines/gradebook_reuse.py).

nbgrader opens its gradebook about eleven times a notebook, and each ``Gradebook`` built an
engine of its own: its statements compiled anew, every table checked. With the reuse a
process keeps one engine per URL, and still: each ``Gradebook`` closes its connections, a
database file replaced meanwhile is read anew, a missing table is created, stock nbgrader
(without :func:`install`) is as it was, and engines kept stay few.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from pathlib import Path

import nbgrader.api as nbapi
import pytest
import sqlalchemy

from kit.engines import gradebook_reuse as reuse


@functools.cache
def _alembic_version():
    version = nbapi.get_alembic_version()
    return lambda: version


@pytest.fixture
def reusing(monkeypatch):
    # nbgrader runs the ``alembic`` of the venv when it makes a new gradebook
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    reuse.uninstall()  # the process may have graded already (kit.engines.job.grading_api)
    # a new gradebook asks alembic for its version, a 1.5 CPU s subprocess: ask it once
    monkeypatch.setattr(nbapi, "get_alembic_version", _alembic_version())
    reuse.install()
    yield
    reuse.uninstall()


def test_one_engine_per_url_and_every_gradebook_still_works(reusing, tmp_path):
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    engines = set()
    for name in ("ada", "ben", "kim"):
        with nbapi.Gradebook(url) as gb:
            gb.add_student(name)
            engines.add(id(gb.engine))
    with nbapi.Gradebook(url) as gb:
        assert sorted(s.id for s in gb.students) == ["ada", "ben", "kim"]
        engines.add(id(gb.engine))
    assert len(engines) == 1


def _misses(url: str, openings: int) -> list[int]:
    """Compiled statements that missed the compiled cache, per opening of the gradebook."""
    from sqlalchemy.engine.interfaces import CacheStats

    misses: list[int] = []

    def seen(conn, cursor, statement, parameters, context, executemany):
        if context is not None and context.compiled is not None:
            misses[-1] += context.cache_hit == CacheStats.CACHE_MISS

    sqlalchemy.event.listen(sqlalchemy.engine.Engine, "before_cursor_execute", seen)
    try:
        for _ in range(openings):
            misses.append(0)
            with nbapi.Gradebook(url) as gb:
                gb.find_student("ada")
    finally:
        sqlalchemy.event.remove(sqlalchemy.engine.Engine, "before_cursor_execute", seen)
    return misses


def test_statements_are_compiled_once_per_process(reusing, tmp_path):
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with nbapi.Gradebook(url) as gb:
        gb.add_student("ada")
    misses = _misses(url, 3)
    assert misses[1:] == [0, 0], misses  # the second and third openings compile nothing
    reuse.uninstall()  # stock: every opening compiles its statements again
    assert all(m > 0 for m in _misses(url, 2))


def test_a_replaced_database_file_is_read_anew_and_its_tables_made(reusing, tmp_path):
    path = tmp_path / "gradebook.db"
    url = f"sqlite:///{path}"
    with nbapi.Gradebook(url) as gb:
        gb.add_student("ada")
    path.unlink()  # a fresh demo removes the demo's gradebook
    with nbapi.Gradebook(url) as gb:
        assert list(gb.students) == []
        gb.add_student("ben")
    with nbapi.Gradebook(url) as gb:
        assert [s.id for s in gb.students] == ["ben"]
    # a gradebook missing one table gets it back, as nbgrader's own create_all would
    with sqlalchemy.create_engine(url).begin() as conn:
        conn.exec_driver_sql("DROP TABLE comment")
    with nbapi.Gradebook(url) as gb:
        assert "comment" in sqlalchemy.inspect(gb.engine).get_table_names()


def test_connections_are_closed_with_each_gradebook(reusing, tmp_path):
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with nbapi.Gradebook(url) as gb:
        gb.add_student("ada")
        engine = gb.engine
    assert engine.pool.checkedout() == 0 and engine.pool.checkedin() == 0


def test_few_engines_are_kept_and_uninstall_restores_nbgrader(reusing, tmp_path, monkeypatch):
    monkeypatch.setattr(reuse, "KEPT", 2)  # each new gradebook runs alembic: keep it short
    kept = []
    for i in range(4):
        with nbapi.Gradebook(f"sqlite:///{tmp_path / f'g{i}.db'}") as gb:
            gb.add_student("ada")
            kept.append(gb.engine)
    assert list(reuse._engines.values()) == kept[-2:]  # the least recently used went first
    reuse.uninstall()
    assert nbapi.create_engine is sqlalchemy.create_engine
    assert "create_all" not in vars(nbapi.Base.metadata)
    assert not hasattr(nbapi.get_alembic_version, "__wrapped__")
    url = f"sqlite:///{tmp_path / 'stock.db'}"
    with nbapi.Gradebook(url) as one, nbapi.Gradebook(url) as two:
        assert one.engine is not two.engine


def test_a_process_that_graded_before_still_gets_the_reuse_tests_their_own_way(tmp_path):
    """The suite's processes grade before these tests run (``grading_api`` installs the
    reuse): uninstalling then restores nbgrader, even with its version function replaced."""
    reuse.install()
    real = nbapi.get_alembic_version
    nbapi.get_alembic_version = lambda: "x"  # as a test's monkeypatch would
    try:
        reuse.uninstall()
        assert nbapi.create_engine is sqlalchemy.create_engine
    finally:
        nbapi.get_alembic_version = real  # install() leaves it alone: Course.api reads it


def test_the_alembic_head_read_in_process_is_the_one_alembic_heads_prints(monkeypatch):
    """``Course.api`` lets nbgrader read its schema's version through alembic's Python API
    (once per process) instead of an ``alembic heads`` subprocess for every new gradebook."""
    from kit.course import read_alembic_head_in_process

    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    stock = nbapi.get_alembic_version  # nbgrader's own, whatever this process wrapped it in
    while hasattr(stock, "__wrapped__"):
        stock = stock.__wrapped__
    monkeypatch.setattr(nbapi, "get_alembic_version", stock)
    read_alembic_head_in_process()
    assert nbapi.get_alembic_version is not stock
    read_alembic_head_in_process()  # idempotent: not wrapped twice
    assert nbapi.get_alembic_version.__wrapped__ is stock
    head = nbapi.get_alembic_version()
    assert re.fullmatch(r"[0-9a-f]{12}", head)
    assert head == stock(), "the in-process head differs from `alembic heads`"


def test_two_in_memory_gradebooks_stay_two_databases(reusing):
    one, two = nbapi.Gradebook("sqlite:///:memory:"), nbapi.Gradebook("sqlite://")
    three = nbapi.Gradebook("sqlite:///:memory:")
    try:
        one.add_student("ada")
        assert not two.students and not three.students, "an in-memory gradebook was shared"
        assert len({id(one.engine), id(two.engine), id(three.engine)}) == 3
    finally:
        for gb in (one, two, three):
            gb.close()
