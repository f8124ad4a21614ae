"""Move a course's sqlite gradebook into another database (a shared PostgreSQL server).

``python -m kit.gradebook_move --to postgresql://grader:PASSWORD@dbhost/kernel_pca`` copies
every row of ``gradebook.db`` (assignments, their cells, students, submissions, every grade
and comment, manual scores included) into the named database, in one transaction, then
counts the rows of both: the move is reported only when every table holds the same rows.
The target must hold no gradebook yet (an empty database: nbgrader's tables are made
there); ``gradebook.db`` itself is left as it was. Afterwards, point the course at the new
database with ``export KPCA_DB_URL=...`` (see ``nbgrader_config.py``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kit.course import REPO_ROOT, prepare_environment, shown


class MoveError(RuntimeError):
    """The gradebook could not be moved (nothing was written to the target)."""


def _tables():
    from nbgrader.api import Base

    return Base.metadata.sorted_tables  # parents before children: foreign keys hold


def row_counts(url: str) -> dict[str, int]:
    """Rows of each nbgrader table in the gradebook at ``url``."""
    from sqlalchemy import create_engine, func, select

    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return {t.name: conn.execute(select(func.count()).select_from(t)).scalar_one()
                    for t in _tables()}
    finally:
        engine.dispose()


def move(source: str, target: str) -> dict[str, int]:
    """Copy every gradebook row from ``source`` to the empty gradebook ``target``.

    Returns the rows copied per table. Raises :class:`MoveError` when the target already
    holds a gradebook, or when the rows counted afterwards differ (the copy is then rolled back).
    """
    from nbgrader.api import Gradebook
    from sqlalchemy import create_engine, inspect

    prepare_environment()  # nbgrader runs the alembic executable when it makes a gradebook
    engine = create_engine(target)
    try:
        existing = set(inspect(engine).get_table_names())
    except Exception as exc:
        raise MoveError(f"cannot reach {shown(target)}: {str(exc).splitlines()[0]}") from exc
    finally:
        engine.dispose()
    if existing & {t.name for t in _tables()} and any(row_counts(target).values()):
        raise MoveError(f"{shown(target)} already holds a gradebook; move into an empty database")
    Gradebook(target).close()  # nbgrader's own tables and alembic version stamp
    Gradebook(source).close()  # an old gradebook.db gets the same schema first

    src, dst = create_engine(source), create_engine(target)
    try:
        with src.connect() as read, dst.begin() as write:
            for table in reversed(_tables()):  # what making the tables added (a course row)
                write.execute(table.delete())
            copied = {}
            for table in _tables():
                rows = [dict(r._mapping) for r in read.execute(table.select())]
                if rows:
                    write.execute(table.insert(), rows)
                copied[table.name] = len(rows)
    finally:
        src.dispose()
        dst.dispose()
    after = row_counts(target)
    if after != copied:
        raise MoveError(f"{shown(target)} holds other rows than were copied: {after} != {copied}")
    return copied


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kit.gradebook_move",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--to", required=True, metavar="URL",
                        help="the target database, e.g. postgresql://user:pw@host:5432/dbname")
    parser.add_argument("--course", type=Path, default=REPO_ROOT,
                        help="the course directory whose gradebook.db is moved (default: this one)")
    args = parser.parse_args(argv)
    path = args.course.resolve() / "gradebook.db"
    if not path.is_file():
        print(f"no gradebook to move: {path} does not exist", file=sys.stderr)
        return 1
    try:
        copied = move(f"sqlite:///{path}", args.to)
    except MoveError as exc:
        print(f"gradebook not moved: {exc}", file=sys.stderr)
        return 1
    print(f"moved {path} to {shown(args.to)}: "
          + ", ".join(f"{n} {name}" for name, n in copied.items() if n))
    print(f"now use it: export KPCA_DB_URL='{shown(args.to)}' (with its password)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
