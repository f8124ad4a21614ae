"""Per-student numbers for every exact ("by hand") item, and each student's answer key.

Every exact item of a problem set is built on one or more *families* of numbers: the
circle of ps1, the 3-point kernel matrix of ps5, ... Each family has a fixed, ordered list
of *candidates* (the variants a student can get), none of them the lecture's worked
example. A student's candidate of a family is drawn by :func:`draw`, from the course id,
the problem set, the family and the student id, with SHA-256 and integer arithmetic only:
the same id gives the same numbers on every machine, Python, numpy and sympy version.

Each problem set has one module here (``ps1`` ... ``ps5``) with:

``PS``
    the problem set's name;
``FAMILIES``
    ``{family: minimum number of candidates}`` (100 for matrices and point sets, 20 for
    small domains such as coordinate counts);
``LECTURE``
    ``{family: candidate}``: the lecture's own numbers (the notebooks' worked example);
``candidates()``
    ``{family: [candidate, ...]}``; a candidate is ``{name: encoded value}`` where a value
    is an ``int``, a ``"p/q"`` string (a Rational), another string (plain text), or a
    list (a flat list is a column Matrix, a list of lists a Matrix by rows);
``ITEMS``
    ``{answer name: (family, ...)}``: the families each exact answer is built on;
``answers(n)``
    ``{answer name: exact value}`` computed with kpca_ref's exact routes from the numbers
    ``n`` (a namespace of sympy values, the same ``N`` the notebook shows);
``UP_TO_SIGN``
    the answer names whose sign is free (per column, element or scalar);
``SHOWN`` (optional)
    ``{answer name: (number name, ...)}``: the numbers feedback shows for an answer, when
    not every number of its families (ps3's verdict items show their own candidate only);
``mistakes(n)`` (optional)
    ``{answer name: [(diagnosis code, message, wrong value), ...]}``: what the classic
    mistakes of the lecture notes give on these numbers, so feedback can name them.

The notebook draws the same numbers itself (:mod:`kpca_ref.variants.cell` writes the cell
that does it), so students see theirs; the grader never trusts the notebook's copy and
recomputes the key here from the submission's nbgrader student id.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import sympy as sp

__all__ = ["COURSE_ID", "PROBLEM_SETS", "RENAMED", "RETIRED", "Variant", "answer",
           "candidate_of", "current_name", "decode", "draw", "families", "lecture", "module",
           "numbers", "problem_set_of", "retired", "variant"]

#: the course id (``c.CourseDirectory.course_id`` in nbgrader_config.py; a test checks
#: they agree): part of every draw, so two courses give one student different numbers
COURSE_ID = "kernel_pca"

#: problem set -> the module of this package that holds its families
PROBLEM_SETS = {
    "ps0_high_dimensions": "ps0",
    "ps1_circle_lift": "ps1",
    "ps2_feature_maps": "ps2",
    "ps3_mercer": "ps3",
    "ps4_centering": "ps4",
    "ps5_kernel_pca": "ps5",
    "ps6_kernel_regression": "ps6",
}

#: exact items and nbgrader grade ids renamed since a term began -> their current names.
#: Old gradebooks, check records and notebooks released before the rename hold the old
#: names: every place that reads them (the judge, the check service and its records, the
#: scores of the report and the class table) reads them through :func:`current_name`.
#: ps4's centred matrix is 3 x 3 (it was named after the lecture's 2 x 2 example).
RENAMED = {
    "ps4_centre_2x2": "ps4_centre_3x3",
    "exact_centre_2x2_answer": "exact_centre_3x3_answer",
    "test_exact_centre_2x2": "test_exact_centre_3x3",
}


def current_name(name):
    """The current name of an exact item or graded cell that was renamed (:data:`RENAMED`);
    any other name, or a value that is not a string, as it is."""
    return RENAMED.get(name, name) if isinstance(name, str) else name


_RATIONAL = re.compile(r"^-?\d+/\d+$")


def draw(family: str, ps: str, student_id: str, count: int, course_id: str = COURSE_ID) -> int:
    """Index of the student's candidate among ``count`` candidates of ``family``.

    SHA-256 of ``course_id``, ``ps``, ``family`` and ``student_id`` (joined by the unit
    separator, UTF-8), read as a big-endian integer, modulo ``count``: uniform to within
    ``count / 2**256`` and the same everywhere.

    >>> draw("circle", "ps1_circle_lift", "ada", 200)
    5
    """
    if count < 1:
        raise ValueError(f"a family needs at least one candidate, got {count}")
    key = "\x1f".join((course_id, ps, family, str(student_id))).encode("utf-8")
    return int.from_bytes(hashlib.sha256(key).digest(), "big") % count


#: candidates retired for the next release, ``{problem set: {family: [index, ...]}}``, read
#: from ``retired.json`` beside this file (``python -m kit.variants PS --retire FAMILY:INDEX``
#: writes it): a student whose draw falls on a retired candidate gets another of the family's
#: (:func:`candidate_of`); every other student keeps theirs. The numbers cell carries the list.
RETIRED_FILE = Path(__file__).with_name("retired.json")


def _read_retired(path: Path = RETIRED_FILE) -> dict[str, dict[str, tuple[int, ...]]]:
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not all(
            isinstance(f, dict) and all(isinstance(i, list) and all(
                isinstance(x, int) and not isinstance(x, bool) for x in i) for i in f.values())
            for f in data.values()):
        raise ValueError(f"{path.name} must map problem set -> family -> [candidate index, "
                         f"...], got {str(data)[:200]!r}")
    return {ps: {fam: tuple(sorted(set(i))) for fam, i in fams.items() if i}
            for ps, fams in data.items()}


RETIRED = _read_retired()


def retired(ps: str, family: str) -> tuple[int, ...]:
    """The retired candidates of ``family`` in ``ps`` (:data:`RETIRED`), in order."""
    return tuple(RETIRED.get(ps, {}).get(family, ()))


def candidate_of(family: str, ps: str, student_id: str, count: int,
                 course_id: str = COURSE_ID, gone: tuple[int, ...] | None = None) -> int:
    """The student's candidate index: :func:`draw`'s, unless that one is retired (``gone``,
    default :func:`retired`); then one of the others, drawn by SHA-256 of the same key and
    ``"retired"``, so only the retired candidate's students move.

    >>> candidate_of("circle", "ps1_circle_lift", "ada", 200, gone=(5,)) != 5
    True
    """
    index = draw(family, ps, student_id, count, course_id)
    gone = retired(ps, family) if gone is None else gone
    if index not in gone:
        return index
    alive = [i for i in range(count) if i not in gone]
    if not alive:
        raise ValueError(f"{ps}: every candidate of family {family!r} is retired; keep one")
    key = "\x1f".join((course_id, ps, family, str(student_id), "retired")).encode("utf-8")
    return alive[int.from_bytes(hashlib.sha256(key).digest(), "big") % len(alive)]


def decode(value):
    """An encoded candidate value as a sympy value (see the module docstring).

    >>> decode("-3/4"), decode(2), decode([[1, "1/2"]]).shape, decode([1, 2]).shape
    (-3/4, 2, (1, 2), (2, 1))
    """
    if isinstance(value, bool):
        return sp.true if value else sp.false
    if isinstance(value, int):
        return sp.Integer(value)
    if isinstance(value, str):
        return sp.Rational(value) if _RATIONAL.match(value) else value
    if isinstance(value, list):
        if value and all(isinstance(row, list) for row in value):
            return sp.Matrix([[decode(v) for v in row] for row in value])
        return sp.Matrix([decode(v) for v in value])
    raise TypeError(f"cannot decode a candidate value of type {type(value).__name__}")


def module(ps: str):
    """The module of this package that holds the families of problem set ``ps``."""
    if ps not in PROBLEM_SETS:
        raise ValueError(f"unknown problem set {ps!r}; known: {', '.join(PROBLEM_SETS)}")
    return importlib.import_module(f"{__name__}.{PROBLEM_SETS[ps]}")


def problem_set_of(answer_name: str) -> str:
    """The problem set whose exact answer is ``answer_name`` (by its ``psN_`` prefix)."""
    prefix = answer_name.split("_", 1)[0]
    for ps, short in PROBLEM_SETS.items():
        if short == prefix:
            return ps
    raise KeyError(f"no problem set has the exact answer {answer_name!r}")


@functools.cache
def families(ps: str) -> dict[str, tuple[dict, ...]]:
    """``{family: (candidate, ...)}`` of problem set ``ps``, in draw order."""
    found = module(ps).candidates()
    return {family: tuple(found[family]) for family in module(ps).FAMILIES}


def _namespace(chosen: dict[str, dict]) -> SimpleNamespace:
    values = {}
    for candidate in chosen.values():
        for name, value in candidate.items():
            if name in values:
                raise ValueError(f"two families define the number {name!r}")
            values[name] = decode(value)
    return SimpleNamespace(**values)


def numbers(ps: str, student_id: str, course_id: str = COURSE_ID) -> SimpleNamespace:
    """The student's numbers of ``ps``: the namespace the notebook calls ``N``."""
    return _namespace(_chosen(ps, student_id, course_id))


def _chosen(ps, student_id, course_id) -> dict[str, dict]:
    return {family: options[candidate_of(family, ps, student_id, len(options), course_id)]
            for family, options in families(ps).items()}


def lecture(ps: str) -> SimpleNamespace:
    """The lecture's own numbers of ``ps`` (the notebook's worked example)."""
    return _namespace(dict(module(ps).LECTURE))


@dataclass(frozen=True)
class Variant:
    """One student's numbers and answer key for one problem set."""

    ps: str
    student_id: str
    course_id: str
    numbers: SimpleNamespace
    answers: dict = field(repr=False)
    up_to_sign: frozenset = field(repr=False)

    @functools.cached_property
    def mistakes(self) -> dict:
        """``{answer name: [(code, message, wrong value), ...]}``: computed when first asked
        for (grading needs them only to name a wrong answer's mistake)."""
        mod = module(self.ps)
        return mod.mistakes(self.numbers) if hasattr(mod, "mistakes") else {}

    def shown(self, answer_name: str) -> str:
        """The numbers an exact answer is built on, as ``N.a = 1, N.b = 2``."""
        mod = module(self.ps)
        names = list(getattr(mod, "SHOWN", {}).get(answer_name, ()))
        for family in () if names else mod.ITEMS.get(answer_name, tuple(mod.FAMILIES)):
            names += list(families(self.ps)[family][0])
        return ", ".join(f"N.{n} = {_flat(getattr(self.numbers, n))}" for n in names)


def _flat(value) -> str:
    if isinstance(value, sp.MatrixBase):
        return str(value.tolist() if value.cols > 1 else list(value))
    return str(value)


@functools.lru_cache(maxsize=256)
def variant(ps: str, student_id: str, course_id: str = COURSE_ID) -> Variant:
    """The numbers, exact answers and named-mistake values of ``student_id`` in ``ps``.

    >>> v = variant("ps1_circle_lift", "ada")
    >>> sorted(v.answers) == sorted(module("ps1_circle_lift").ITEMS)
    True
    """
    if not isinstance(student_id, str) or not student_id.strip():
        raise ValueError(f"a student id must be a non-empty string, got {student_id!r}")
    mod = module(ps)
    n = numbers(ps, student_id, course_id)
    found = mod.answers(n)
    missing = set(mod.ITEMS) ^ set(found)
    if missing:
        raise RuntimeError(f"{ps}: ITEMS and answers() disagree on {sorted(missing)}")
    return Variant(ps, student_id, course_id, n, found, frozenset(mod.UP_TO_SIGN))


def answer(name: str, student_id: str, course_id: str = COURSE_ID):
    """``(value, up_to_sign)`` of the exact answer ``name`` for ``student_id``.

    A copy is handed out: sympy's Matrix is mutable and variants are cached. A renamed
    item's old name (:data:`RENAMED`) gives the item's answer.
    """
    name = current_name(name)
    v = variant(problem_set_of(name), student_id, course_id)
    if name not in v.answers:
        raise KeyError(f"no exact answer is registered under {name!r}; known answers: "
                       f"{', '.join(sorted(v.answers))}")
    value = v.answers[name]
    return (value.copy() if getattr(value, "is_Matrix", False) else value), name in v.up_to_sign
