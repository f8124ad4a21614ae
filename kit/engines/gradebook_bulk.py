"""Recording many graded notebooks in the gradebook in one transaction.

The cluster client (:mod:`kit.engines.dask_client`) receives each worker's grades and must record them
in the course's gradebook (sqlite or PostgreSQL). Through nbgrader's ORM a notebook takes
about 37 statements and its own commits, which caps a cluster at a few notebooks per
second. :func:`record_many` writes a batch of results with a handful of statements per
batch, in one transaction, and writes exactly the rows the ORM path writes
(``Gradebook.update_or_create_student``, ``update_or_create_submission``, then each
grade's ``auto_score`` and ``needs_manual_grade`` and each comment's ``auto_comment``):

- a new student: one ``student`` row with only its id;
- a new submission: ``submitted_assignment`` (the time the kit received the hand-in,
  :func:`kit.intake.received.received_time`; no extension), one
  ``submitted_notebook`` per notebook of the assignment (not flagged), one ``grade`` per
  grade or task cell and one ``comment`` per solution or task cell, as
  ``Gradebook.add_submission`` mirrors them;
- an existing submission: its timestamp (the received time again), and each grade's auto
  score. A TA's manual score and comment are kept, and a grade with a manual score keeps
  needing a look (``needs_manual_grade``), as :func:`kit.engines.recording.record` does.

Recording the same result again sets the same values: a batch retried after a failure
leaves one row per cell. nbgrader's ``Gradebook`` and formgrader read the rows unchanged.
A new student is inserted only if absent (:func:`ensure_students`): two grading processes
recording one new student at once both succeed.
"""

from __future__ import annotations

from collections.abc import Iterable

#: Rows per ``IN (...)`` list: well under sqlite's and PostgreSQL's parameter limits.
CHUNK = 500


def _chunks(values: list, size: int = CHUNK):
    for i in range(0, len(values), size):
        yield values[i:i + size]


def ensure_students(db, students) -> None:
    """Add the ``student`` rows of ``students`` that are missing, in the open transaction.

    Insert-if-absent in one statement (sqlite ``INSERT OR IGNORE``, PostgreSQL ``ON CONFLICT
    DO NOTHING``), so two processes adding one new student at the same moment both succeed
    (a read-then-insert, nbgrader's ``update_or_create_student``, fails in one of them with
    "UNIQUE constraint failed: student.id"). Other databases: each row in a savepoint, a
    duplicate ignored.
    """
    from nbgrader.api import Student
    from sqlalchemy.exc import IntegrityError

    rows = [{"id": s, "first_name": None, "last_name": None, "email": None, "lms_user_id": None}
            for s in sorted(set(students))]
    if not rows:
        return
    dialect = db.get_bind().dialect.name
    if dialect in ("sqlite", "postgresql"):
        from importlib import import_module

        insert = import_module(f"sqlalchemy.dialects.{dialect}").insert
        for part in _chunks(rows):
            db.execute(insert(Student.__table__).on_conflict_do_nothing(), part)
        return
    from sqlalchemy import insert

    for row in rows:
        try:
            with db.begin_nested():
                db.execute(insert(Student.__table__), [row])
        except IntegrityError:
            pass


def _select_in(db, columns, column, values: list, *where) -> list:
    """Rows of ``select(*columns).where(column IN values, *where)``, in chunks."""
    from sqlalchemy import select

    rows = []
    for part in _chunks(sorted(set(values))):
        rows.extend(db.execute(select(*columns).where(column.in_(part), *where)).all())
    return rows


def _submissions(db, aid: str, students: list[str]) -> dict[str, str]:
    """``{student: submission id}`` of the assignment ``aid``."""
    from nbgrader.api import SubmittedAssignment as SA

    return {st: sid for sid, st in _select_in(db, [SA.id, SA.student_id], SA.student_id,
                                              students, SA.assignment_id == aid)}


def _assignment_layout(db, assignment: str) -> tuple[str, list[tuple[str, dict]]]:
    """``(assignment id, [(notebook id, {cell id: (name, kind)})])``.

    A manually graded answer is two cells of one name: a grade cell and a solution cell.
    """
    from nbgrader.api import Assignment, BaseCell, Notebook
    from sqlalchemy import select

    aid = db.execute(select(Assignment.id).where(Assignment.name == assignment)).scalar()
    if aid is None:
        raise ValueError(f"the gradebook does not know the problem set {assignment!r}")
    notebooks = db.execute(select(Notebook.id).where(Notebook.assignment_id == aid)
                           .order_by(Notebook.name)).scalars().all()
    layout = []
    for nid in notebooks:
        cells = db.execute(select(BaseCell.id, BaseCell.name, BaseCell.type)
                           .where(BaseCell.notebook_id == nid)).all()
        layout.append((nid, {cid: (name, kind) for cid, name, kind in cells}))
    return aid, layout


def _new_submissions(db, aid: str, layout, todo: list[tuple[str, object]]) -> None:
    """Insert the rows of ``Gradebook.add_submission`` for each ``(student, timestamp)``."""
    from nbgrader.api import Comment, Grade, SubmittedAssignment, SubmittedNotebook, new_uuid
    from sqlalchemy import insert

    subs, nbs, grades, comments = [], [], [], []
    for student, timestamp in todo:
        sid = new_uuid()
        subs.append({"id": sid, "assignment_id": aid, "student_id": student,
                     "timestamp": timestamp, "extension": None})
        for nid, cells in layout:
            snid = new_uuid()
            nbs.append({"id": snid, "assignment_id": sid, "notebook_id": nid, "flagged": False,
                        "late_submission_penalty": None})
            for cid, (_, kind) in cells.items():
                if kind in ("GradeCell", "TaskCell"):
                    grades.append({"id": new_uuid(), "notebook_id": snid, "cell_id": cid,
                                   "auto_score": None, "manual_score": None,
                                   "extra_credit": None, "needs_manual_grade": True})
                if kind in ("SolutionCell", "TaskCell"):
                    comments.append({"id": new_uuid(), "notebook_id": snid, "cell_id": cid,
                                     "auto_comment": None, "manual_comment": None})
    for table, rows in ((SubmittedAssignment, subs), (SubmittedNotebook, nbs), (Grade, grades),
                        (Comment, comments)):
        for part in _chunks(rows):
            db.execute(insert(table.__table__), part)


def record_many(gb, batch: Iterable[tuple[str, str, dict]], received: dict) -> int:
    """Record ``(assignment, student, result)`` triples in one transaction; return how many.

    ``gb``: an open ``nbgrader.api.Gradebook``. ``result`` holds ``grades`` and ``comments``
    (auto score and auto comment per cell name), and ``received`` (``{(assignment, student):
    naive UTC time}``, :func:`kit.intake.received.received_time` of each hand-in: the
    submission's timestamp; a file of the hand-in is never read for it). On any error the
    whole batch is rolled back and the error raised.
    """
    from nbgrader.api import Comment, Grade, SubmittedAssignment, SubmittedNotebook
    from sqlalchemy import bindparam, update

    batch = list(batch)
    if not batch:
        return 0
    db = gb.db
    try:
        ensure_students(db, [student for _, student, _ in batch])
        by_assignment: dict[str, list] = {}
        for assignment, student, result in batch:
            by_assignment.setdefault(assignment, []).append((student, result))
        grade_rows, comment_rows, stamps = [], [], []
        for assignment, items in by_assignment.items():
            aid, layout = _assignment_layout(db, assignment)
            mine = [s for s, _ in items]
            subs = _submissions(db, aid, mine)
            latest = dict(items)  # a student's last result wins, as when recorded in order
            stamp = {s: received[assignment, s] for s in latest}
            _new_submissions(db, aid, layout, [(s, stamp[s]) for s in latest if s not in subs])
            stamps += [{"sid": subs[s], "ts": stamp[s]} for s in latest if s in subs and stamp[s]]
            subs = _submissions(db, aid, mine)
            notebooks = _select_in(db, [SubmittedNotebook.id, SubmittedNotebook.assignment_id,
                                        SubmittedNotebook.notebook_id],
                                   SubmittedNotebook.assignment_id, list(subs.values()))
            names = {nid: {cid: name for cid, (name, _) in cells.items()} for nid, cells in layout}
            owner = {sid: st for st, sid in subs.items()}
            snb = {snid: (owner[sid], nid) for snid, sid, nid in notebooks}
            for gid, snid, cid, manual in _select_in(
                    db, [Grade.id, Grade.notebook_id, Grade.cell_id, Grade.manual_score],
                    Grade.notebook_id, list(snb)):
                student, nid = snb[snid]
                name = names[nid].get(cid)
                grades = latest[student]["grades"]
                if name in grades:
                    auto = grades[name]
                    grade_rows.append({"gid": gid, "auto": auto,
                                       "needs": manual is not None or auto is None})
            for cid_row, snid, cid in _select_in(db, [Comment.id, Comment.notebook_id,
                                                      Comment.cell_id],
                                                 Comment.notebook_id, list(snb)):
                student, nid = snb[snid]
                name = names[nid].get(cid)
                texts = latest[student]["comments"]
                if name in texts:
                    comment_rows.append({"cid": cid_row, "text": texts[name]})
        sa, g, c = SubmittedAssignment.__table__, Grade.__table__, Comment.__table__
        for part in _chunks(stamps):
            db.execute(update(sa).where(sa.c.id == bindparam("sid"))
                       .values(timestamp=bindparam("ts")), part)
        for part in _chunks(grade_rows):
            db.execute(update(g).where(g.c.id == bindparam("gid"))
                       .values(auto_score=bindparam("auto"), needs_manual_grade=bindparam("needs")),
                       part)
        for part in _chunks(comment_rows):
            db.execute(update(c).where(c.c.id == bindparam("cid"))
                       .values(auto_comment=bindparam("text")), part)
        db.commit()
    except BaseException:
        db.rollback()
        raise
    return len(batch)

