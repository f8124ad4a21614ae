"""Name each graded cell of a feedback page by its part and how its points split.

nbgrader's feedback page lists every test cell as "Test cell (Score: 4 / 6)". The
:class:`LabelTestCells` step (in ``GenerateFeedback.preprocessors``, before the hidden tests
are cleared) gives each graded cell a label instead, stored in ``cell.metadata.kit_label``
and shown by the course's copy of the template (``kit/templates/feedback``):
``Part 3 — A 3-point example by hand: eig_3pt 2 + alpha_3pt 2 + Z_3pt 2 points``.
The part is the last ``## Part ...`` heading above the cell in a cell of the course's own
(locked, with a ``grade_id``: nbgrader's ``OverwriteCells`` gave it back its released text
at grading, so a heading a student adds or edits names nothing); the answers and their
points are read from the hidden tests' ``grade(...)`` and ``grade_exact(...)`` calls.

A label is plain text, never markup: :func:`label` returns it one line, bounded, with no
control or invisible character, and the template escapes it like every other field it
prints (``tests/html/test_feedback_fields.py``).
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

from kit.inert import inert

#: the course's template directory (its ``feedback`` template), wherever the course directory is
TEMPLATES = str(Path(__file__).resolve().parent / "templates")


def template_dirs() -> list[str]:
    """``HTMLExporter.extra_template_basedirs`` for every page of the course: the course's
    folder first (its ``feedback`` template wins), then nbgrader's own, which holds the
    ``formgrade`` template. The course's config replaces the list nbgrader's formgrader and
    feedback steps would set, so nbgrader's folder must stay in it: without it formgrader
    fails to load ("No template sub-directory with name 'formgrade'")."""
    import nbgrader

    stock = Path(nbgrader.__file__).resolve().parent / "server_extensions" / "formgrader"
    return [TEMPLATES, str(stock / "templates")]


PART = re.compile(r"^#{2,3}\s*(Part\s+\d+[^\n]*)", re.MULTILINE)
CALL = re.compile(r'grade(?:_exact)?\(\s*"[^"]+",\s*([A-Za-z_]\w*),\s*points=([\d.]+)')
#: longest label shown (the course's longest is about 110 characters)
LABEL_CHARS = 200


def _number(text: str) -> str:
    value = float(text)
    return str(int(value)) if value.is_integer() else f"{value:g}"


def part_title(markdown: str) -> str | None:
    """The part a heading opens, without its "(N points)": ``Part 3 — A 3-point example``."""
    found = PART.findall(markdown)
    if not found:
        return None
    return re.sub(r"\s*\(\s*[\d.]+\s+points?\s*\)\s*$", "", found[-1]).strip()


def label(part: str | None, source: str, points, written: bool = False) -> str:
    """The feedback's name of one graded cell."""
    calls = CALL.findall(source)
    if written:
        what = f"written answer, {_number(points)} points"
    elif len(calls) > 1:
        what = " + ".join(f"{name} {_number(p)}" for name, p in calls) + " points"
    elif calls:
        what = f"{calls[0][0]}, {_number(calls[0][1])} points"
    else:
        what = f"checks, {_number(points)} points"
    text = f"{part}: {what}" if part else what.capitalize()
    # plain text, as the heading reads rendered: entities decoded (the sanitiser writes `<`
    # as `&lt;`), the zero-width spaces it puts in code gone, one line, and any other
    # control or invisible character shown as an escape; the template escapes the result
    text = html.unescape(text).replace("\u200b", "")
    return inert(" ".join(text.split()), limit=LABEL_CHARS)


def course_cell(cell) -> bool:
    """Whether a cell's text is the course's: locked, with a ``grade_id`` (after
    ``OverwriteCells``, which drops an unknown id and restores a locked cell's text)."""
    meta = cell.metadata.get("nbgrader", {})
    return bool(meta.get("locked")) and bool(meta.get("grade_id")) and not meta.get("solution")


class LabelTestCells(Preprocessor):
    """Store a label naming the part and the point split in every graded cell's metadata."""

    enabled = Bool(True).tag(config=True)

    def preprocess(self, nb, resources):
        part = None
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            if cell.cell_type == "markdown" and course_cell(cell):
                part = part_title(cell.source) or part
            if meta.get("grade"):
                written = cell.cell_type == "markdown"
                cell.metadata["kit_label"] = label(part, cell.source, meta.get("points", 0), written)
        return nb, resources
