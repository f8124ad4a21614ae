"""The inputs of :func:`kit.itemstats.stats.analyse`, read from a course.

* per-part rows: the gradebook as ``reports/grades_by_part.csv`` gives it
  (:func:`kit.gradebook.parts.gradebook_rows`), hand grades included;
* which graded cells each family's exact items sit in: the hidden grading calls of the
  instructor's test cells (:func:`kit.judge.plan.planned_calls`) and each problem set's
  ``ITEMS`` (:mod:`kpca_ref.variants`);
* each student's candidate of every family: :func:`kpca_ref.variants.candidate_of`, retired
  candidates followed;
* named mistakes per cell: the judge's record on each graded test cell's score output
  (metadata only the judge writes, never text the student's code printed), codes checked;
* the instant checks per exact item: the check service's attempts table
  (:mod:`kit.checks.store`), items it does not know left out.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

import nbformat

from kit.course import Course
from kit.gradebook.export import GRADED, as_text
from kpca_ref import variants

CODE = re.compile(r"[a-z_]{1,40}")


def exact_cells(course: Course, assignment: str) -> dict[str, str]:
    """``{exact item: grade id of the test cell that grades it}`` of ``assignment``."""
    from kit.judge.cells import is_test_cell
    from kit.judge.plan import planned_calls

    path = course.notebook("source", assignment)
    if not path.is_file():
        return {}
    found = {}
    for cell in nbformat.read(path, as_version=4).cells:
        if not is_test_cell(cell):
            continue
        try:
            plan = planned_calls(cell.source)
        except (SyntaxError, ValueError):
            continue
        gid = cell.metadata["nbgrader"]["grade_id"]
        found.update({variants.current_name(name): gid for kind, name, _ in plan if kind != "grade"})
    return found


def families_of(course: Course, assignments) -> dict[tuple[str, str], set[str]]:
    """``{(assignment, family): {grade id, ...}}``: the cells built on each family."""
    found: dict = defaultdict(set)
    for a in assignments:
        if a not in variants.PROBLEM_SETS:
            continue
        items = variants.module(a).ITEMS
        for item, gid in exact_cells(course, a).items():
            for family in items.get(item, ()):
                found[a, family].add(gid)
    return dict(found)


def candidates(pairs, assignments) -> dict[tuple[str, str], dict[str, int]]:
    """``{(assignment, family): {student as the rows name them: candidate index}}``."""
    found: dict = defaultdict(dict)
    for a, student in pairs:
        if a not in assignments or a not in variants.PROBLEM_SETS:
            continue
        for family, options in variants.families(a).items():
            found[a, family][as_text(student)] = variants.candidate_of(
                family, a, student, len(options))
    return dict(found)


def mistakes(course: Course, pairs) -> dict[tuple[str, str], list[tuple[str, int]]]:
    """``{(assignment, grade id): [(code, notebooks), ...]}``, most frequent first."""
    from kit.course import JUDGE_KEY
    from kit.judge.cells import is_test_cell

    counts: dict = defaultdict(Counter)
    for a, student in pairs:
        path = course.notebook("autograded", a, student)
        if not path.is_file():
            continue
        try:
            cells = nbformat.read(path, as_version=4).cells
        except Exception:  # noqa: BLE001, S112 - an unreadable notebook names no mistake
            continue
        for cell in cells:
            if not is_test_cell(cell):
                continue
            gid = variants.current_name(cell.metadata["nbgrader"].get("grade_id"))
            codes = set()
            for out in cell.get("outputs", []):
                record = (out.get("metadata") or {}).get(JUDGE_KEY) if out.get(
                    "output_type") == "execute_result" else None
                if isinstance(record, dict) and isinstance(record.get("diagnoses"), list):
                    codes |= {c for c in record["diagnoses"] if isinstance(c, str) and CODE.fullmatch(c)}
            counts[a, gid].update(codes)
    return {key: sorted(c.items(), key=lambda kv: (-kv[1], kv[0])) for key, c in counts.items() if c}


def checks(course: Course, assignments) -> dict[tuple[str, str], dict[str, dict]]:
    """``{(assignment, grade id): {exact item: {"students", "attempts", "first_try"}}}``:
    students who checked, counted checks, and the share of them right at their first."""
    from sqlalchemy import create_engine, inspect, select

    from kit.checks.policy import Policy
    from kit.checks.store import ATTEMPTS, COUNTED

    engine = create_engine(Policy(course.root).db_url)
    try:
        if not inspect(engine).has_table(ATTEMPTS.name):
            return {}
        with engine.connect() as conn:
            rows = conn.execute(select(ATTEMPTS.c.student, ATTEMPTS.c.item, ATTEMPTS.c.verdict)
                                .where(ATTEMPTS.c.verdict.in_(COUNTED))
                                .order_by(ATTEMPTS.c.at, ATTEMPTS.c.id)).all()
    finally:
        engine.dispose()
    cells = {a: exact_cells(course, a) for a in assignments}
    first: dict = defaultdict(dict)
    tries: Counter = Counter()
    for student, item, verdict in rows:
        item = variants.current_name(item)
        try:
            a = variants.problem_set_of(item)
        except KeyError:
            continue  # not an exact item of the course: never shown
        if item not in cells.get(a, {}):
            continue
        tries[item] += 1
        first[item].setdefault(student, verdict == "right")
    found: dict = defaultdict(dict)
    for item, by_student in first.items():
        a = variants.problem_set_of(item)
        found[a, cells[a][item]][item] = {
            "students": len(by_student), "attempts": tries[item],
            "first_try": sum(by_student.values()) / len(by_student)}
    return dict(found)


def gather(course: Course, outcomes, assignments) -> dict:
    """The keyword arguments of :func:`kit.itemstats.stats.analyse` for the graded
    ``outcomes`` of ``assignments``."""
    from nbgrader.api import Gradebook

    from kit.gradebook.parts import gradebook_rows

    pairs = [(o.assignment, o.student) for o in outcomes if o.status in GRADED]
    with Gradebook(course.db_url) as gb:
        rows = gradebook_rows(gb, pairs, lambda ps: course.notebook("source", ps))
    return {"rows": rows, "cells_of": families_of(course, assignments),
            "drawn": candidates(pairs, assignments), "mistakes": mistakes(course, pairs),
            "checks": checks(course, assignments), "order": list(assignments)}
