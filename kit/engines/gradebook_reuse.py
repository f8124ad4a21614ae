"""One database engine per gradebook in a grading process, instead of one per ``Gradebook()``.

nbgrader opens its gradebook about eleven times for each notebook it grades (the converter's
set-up, each saving step, the kit's own steps), and each ``nbgrader.api.Gradebook`` builds a
new SQLAlchemy engine: a new pool, a new cache of compiled statements (so every query is
compiled again, SQLAlchemy's costliest step), and a check of every table (``create_all``).
Measured, that was about a quarter of the grading process's own CPU per notebook.

:func:`install` makes ``Gradebook`` in this process take its engine from a small cache, one
engine per database URL, and check the tables with one query. Nothing else changes:

- every ``Gradebook`` still opens its own session and, on ``close()``, still disposes of the
  engine's pooled connections, so no connection stays open between two uses and a database
  file replaced in the meantime (a fresh demo) is opened anew;
- the tables are created exactly as before when one is missing (a new gradebook's alembic
  version is read once per process by :meth:`kit.course.Course.api`, which grading uses);
- an in-memory SQLite database is never shared: each of its engines is a database of its own;
- it is installed by the kit's grading processes only (:func:`kit.engines.job.grading_api`);
  stock ``nbgrader`` commands run without it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

#: engines kept, least recently used dropped first (a test process grades many courses)
KEPT = 8

_lock = threading.Lock()
_engines: OrderedDict = OrderedDict()
_installed = False


def _in_memory(url) -> bool:
    """Whether ``url`` names an in-memory SQLite database: each engine of one is a database
    of its own (two ``Gradebook("sqlite:///:memory:")`` are two gradebooks), never shared."""
    from sqlalchemy.engine import make_url

    try:
        url = make_url(url)
    except Exception:  # noqa: BLE001 - not a URL we can read: not shared
        return True
    return url.get_backend_name() == "sqlite" and (
        not url.database or ":memory:" in url.database or url.query.get("mode") == "memory")


def _cached_engine(original):
    def create_engine(url, *args, **kwargs):
        if _in_memory(url):
            return original(url, *args, **kwargs)
        key = (str(url), args, tuple(sorted(kwargs.items())))
        with _lock:
            engine = _engines.pop(key, None)
            if engine is None:
                engine = original(url, *args, **kwargs)
            _engines[key] = engine
            while len(_engines) > KEPT:
                _engines.popitem(last=False)[1].dispose()
            return engine

    create_engine.__wrapped__ = original
    return create_engine


def _one_query_create_all(metadata, original):
    """``metadata.create_all`` that asks the database for its table names once, and creates
    (through SQLAlchemy's own ``create_all``) only when one of the gradebook's is missing."""

    def create_all(bind=None, tables=None, checkfirst=True):
        from sqlalchemy import inspect

        if checkfirst and tables is None and bind is not None:
            present = set(inspect(bind).get_table_names())
            if set(metadata.tables) <= present:
                return None
        return original(bind=bind, tables=tables, checkfirst=checkfirst)

    create_all.__wrapped__ = original
    return create_all


def install() -> None:
    """Reuse engines for ``nbgrader.api.Gradebook`` in this process (idempotent)."""
    global _installed
    with _lock:
        if _installed:
            return
        from nbgrader import api

        api.create_engine = _cached_engine(api.create_engine)
        api.Base.metadata.create_all = _one_query_create_all(api.Base.metadata,
                                                             api.Base.metadata.create_all)
        _installed = True


def uninstall() -> None:
    """Undo :func:`install` (for tests) and dispose of the kept engines."""
    global _installed
    with _lock:
        if not _installed:
            return
        from nbgrader import api

        # what install() wrapped (unless something has replaced it since: then leave that)
        api.create_engine = getattr(api.create_engine, "__wrapped__", api.create_engine)
        del api.Base.metadata.create_all  # the class's own method again
        while _engines:
            _engines.popitem()[1].dispose()
        _installed = False
