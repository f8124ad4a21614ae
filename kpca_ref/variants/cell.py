"""The two cells at the top of every notebook that give a student their own numbers.

* The identity cell (unlocked, no nbgrader metadata, cell id ``student-id``):
  ``STUDENT_ID = ""``.
  On the course's JupyterHub the student leaves it empty; on an LMS course they type their
  course id once.
* The numbers cell (grade_id ``your_numbers``, locked, source hidden): the draw of
  :func:`kpca_ref.variants.draw` written out with the standard library and sympy, and the
  problem set's candidate table (numbers only, never an answer). It prints
  ``Your numbers (variant for '<id>')`` and defines ``N`` and ``VARIANT_ID``; on the hub it
  then prints the student's own due date, extension included, as the course's check service
  says it when the cell runs (``due_date()``, :mod:`kpca_ref.variants.cell_due`).

Which id the cell uses: on a JupyterHub (``JUPYTERHUB_USER`` set, ``KPCA_STUDENT_ID`` not),
the hub login, always: a typed ``STUDENT_ID`` that differs is ignored with a warning. Grading
a hub course does the same with the submission's student (``KPCA_STUDENT_ID`` with
``KPCA_NUMBERS_FROM_LOGIN=1``, set by the grader when ``c.WriteCases.numbers_from_login``).
Elsewhere ``STUDENT_ID`` when typed (checked against the course roster when the release
carries one, :mod:`kpca_ref.variants.cell_extras`); else ``KPCA_STUDENT_ID`` (set by the
grader to the submission's nbgrader student id, and by instructors to try an id). With none,
it stops with a message saying what to type. The cell also defines ``check(item, answer)``,
the instant check of an exact answer on the course's hub (:mod:`kit.checks`), and
``practice(k)``, fresh numbers for practice (:mod:`kpca_ref.variants.cell_extras`).

``python -m kit.variants --write-cells`` rewrites the numbers cell of every source notebook
from :func:`numbers_cell`; a test checks that the stored cells are current.
"""

from __future__ import annotations

from kpca_ref.variants import COURSE_ID, families, retired
from kpca_ref.variants.cell_due import DUE_CALL, DUE_PART
from kpca_ref.variants.cell_extras import CHECK_PART, ROSTER_PART

__all__ = ["IDENTITY_CELL", "NUMBERS_ID", "numbers_cell"]

#: grade_id of the numbers cell
NUMBERS_ID = "your_numbers"

IDENTITY_CELL = '''\
# Your course id. On the course's JupyterHub leave this empty: the hub tells the notebook
# who you are. Otherwise type the id your course gave you, once, e.g. STUDENT_ID = "ada_lee".
STUDENT_ID = ""'''

_HEAD = '''\
# Your numbers: drawn from your course id, so every student works their own. Do not edit
# this cell; run it (again) after setting STUDENT_ID above. It holds numbers, not answers.
import hashlib as _hashlib
import os as _os
import re as _re
import sys as _sys
from types import SimpleNamespace as _Namespace

import sympy as _sympy

_COURSE, _PS = {course!r}, {ps!r}
_TABLE = {{
{table}
}}


def _exact(value):
    if isinstance(value, bool):
        return _sympy.true if value else _sympy.false
    if isinstance(value, int):
        return _sympy.Integer(value)
    if isinstance(value, str):
        return _sympy.Rational(value) if _re.match(r"^-?\\d+/\\d+$", value) else value
    if value and all(isinstance(row, list) for row in value):
        return _sympy.Matrix([[_exact(v) for v in row] for row in value])
    return _sympy.Matrix([_exact(v) for v in value])


def your_numbers(student_id):
    """The numbers of the student with course id `student_id`, as a namespace."""
    numbers = {{}}
    for family, options in _TABLE.items():
        key = f"{{_COURSE}}\\x1f{{_PS}}\\x1f{{family}}\\x1f{{student_id}}".encode()
        pick = options[int.from_bytes(_hashlib.sha256(key).digest(), "big") % len(options)]
        numbers.update({{name: _exact(value) for name, value in pick.items()}})
    return _Namespace(**numbers)


def _whose_numbers():
    typed = STUDENT_ID.strip() if isinstance(STUDENT_ID, str) else ""
    given = _os.environ.get("KPCA_STUDENT_ID", "").strip()
    login = _os.environ.get("JUPYTERHUB_USER", "").strip() if not given else (
        given if _os.environ.get("KPCA_NUMBERS_FROM_LOGIN") == "1" else "")
    if login:  # on the hub, and when grading a hub course: the login, always
        if typed and typed != login:
            print(f"WARNING: STUDENT_ID = {{typed!r}} is ignored: on the course's JupyterHub "
                  f"your numbers are those of your login, {{login!r}}.", file=_sys.stderr)
        return login
    if typed:
        return typed if given else _on_roster(typed)
    if given:
        return given
    raise RuntimeError(
        "No course id: type yours in the cell above, e.g. STUDENT_ID = \\"ada_lee\\", and run "
        "both cells again. Your exact questions use numbers drawn from it."
    )


{extras}

VARIANT_ID = _whose_numbers()
N = your_numbers(VARIANT_ID)
print(f"Your numbers (variant for {{VARIANT_ID!r}}):")
for _name, _value in vars(N).items():
    _shown = _value
    if isinstance(_value, _sympy.MatrixBase):  # a column as a flat list, others by rows
        _shown = list(_value) if _value.cols == 1 else _value.tolist()
    print(f"  N.{{_name}} = {{_shown}}")
{due_call}'''


def _table(ps: str) -> str:
    lines = []
    for family, options in families(ps).items():
        lines.append(f"    {family!r}: [")
        lines += [f"        {option!r}," for option in options]
        lines.append("    ],")
    return "\n".join(lines)


def numbers_cell(ps: str, course_id: str = COURSE_ID) -> str:
    """Source of the numbers cell of problem set ``ps``.

    >>> "_TABLE" in numbers_cell("ps1_circle_lift") and "kpca" not in numbers_cell(
    ...     "ps1_circle_lift").replace("KPCA_STUDENT_ID", "").replace("KPCA_CHECK_URL", "")
    True
    """
    from kpca_ref.variants import module

    items = "_CHECK_ITEMS = (\n" + "".join(f"    {i!r},\n" for i in module(ps).ITEMS) + ")"
    text = _HEAD.format(course=course_id, ps=ps, table=_table(ps),
                        extras=f"{ROSTER_PART}\n\n\n{items}\n\n\n{CHECK_PART}\n\n\n{DUE_PART}",
                        due_call=DUE_CALL)
    gone = {family: list(retired(ps, family)) for family in families(ps) if retired(ps, family)}
    if not gone:  # a problem set with no retired candidate keeps the cell it always had
        return text
    text = text.replace("\n}\n\n\ndef _exact", f"\n}}\n_RETIRED = {gone!r}\n\n\ndef _exact", 1)
    return text.replace(_PICK, _PICK_RETIRED, 1)


_PICK = ('        pick = options[int.from_bytes(_hashlib.sha256(key).digest(), "big") '
         '% len(options)]')
_PICK_RETIRED = '''\
        index = int.from_bytes(_hashlib.sha256(key).digest(), "big") % len(options)
        if index in _RETIRED.get(family, ()):  # retired: another of the family's candidates
            alive = [i for i in range(len(options)) if i not in _RETIRED[family]]
            index = alive[int.from_bytes(_hashlib.sha256(key + b"\\x1fretired").digest(),
                                         "big") % len(alive)]
        pick = options[index]'''
