"""Exact answers that equal another student's key, not the student's own.

Each graded test cell carries the judge's record (:data:`kit.course.JUDGE_KEY`); its
``answers`` are the exact answers as the probe sent them (:mod:`kpca_probe.wire` data,
decoded here as the judge decodes them: nothing the student defined runs). For every item
of a problem set, each student's key is computed from their id (:mod:`kpca_ref.variants`) and
indexed by a fingerprint (:func:`fingerprint`); an answer that is wrong for its student and
whose fingerprint meets another student's key is confirmed with the judge's own comparison
(up to sign where the item allows it) before it is listed.

A value many variants share (``True`` for a verdict, a count of 3) is not evidence: the
share of variants whose key it is, over the class's keys and :data:`SAMPLE` ids drawn for
no student, must be under :data:`DISTINCTIVE`. Items judged by a check rather than a key
(ps3's witnesses, ``CHECKED``) are left out.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import nbformat
import sympy as sp

from kit.course import Course
from kit.judge.cells import judge_records

#: a value that is the key of this share of variants or more is everyone's key: never listed
DISTINCTIVE = 0.05
#: ids drawn for no student, added to the class's to tell how many variants share a key
SAMPLE = 24
#: the largest graded notebook read (bytes); a larger one is skipped and said so
MAX_NOTEBOOK = 50_000_000


@dataclass(frozen=True)
class KeyMatch:
    """``student`` handed in, for ``item`` of ``problem_set``, the key of ``others``' numbers;
    ``share``: the share of variants whose key it is."""

    problem_set: str
    item: str
    student: str
    others: tuple[str, ...]
    share: float


def recorded_answers(path) -> dict | None:
    """``{item: wire data}`` the judge recorded in a graded notebook; None when the
    notebook holds no record of answers (graded before the judge kept them, or unreadable)."""
    from kpca_ref.variants import current_name

    try:
        if path.stat().st_size > MAX_NOTEBOOK:
            return None
        nb = nbformat.read(path, as_version=4)
    except Exception:  # noqa: BLE001 - nbformat raises many types for a broken file
        return None
    found, seen = {}, False
    for record in judge_records(nb):
        if isinstance(record.get("answers"), dict):
            seen = True
            found.update({current_name(k): v for k, v in record["answers"].items()
                          if isinstance(k, str) and v is not None})
    return found if seen else None


def _entry(value, signless: bool):
    if isinstance(value, sp.Expr) and value.is_number:
        z = complex(value) if value.is_Rational else complex(sp.N(value, 30))
        if signless and (z.real, z.imag) < (0.0, 0.0):
            z = -z
        return ("n", z.real, z.imag)
    return ("t", str(value))


def fingerprint(value, up_to_sign: bool = False):
    """A hashable summary of an exact value that equal values share (sign dropped when
    ``up_to_sign``); None for a value that is not exact (a float, an unreadable value).

    >>> fingerprint(sp.Rational(1, 2)) == fingerprint(sp.sqrt(sp.Rational(1, 4)))
    True
    """
    from kpca_ref.grading.compare import FloatNotExact, as_exact

    try:
        got = as_exact(value)
        if isinstance(got, sp.MatrixBase):
            shape = "vector" if 1 in got.shape else tuple(got.shape)
            return (shape, tuple(_entry(v, up_to_sign) for v in got))
        if isinstance(got, (list, tuple)):
            return ("vector", tuple(_entry(v, up_to_sign) for v in got))
        return ("scalar", _entry(got, up_to_sign))
    except (FloatNotExact, AssertionError, TypeError, ValueError, AttributeError):
        return None


def _same(value, key, up_to_sign: bool) -> bool:
    """The judge's own comparison of an exact answer with a key."""
    from kpca_ref.grading.compare import as_exact
    from kpca_ref.grading.harness import _judge_exact

    try:
        return _judge_exact(value, as_exact(key), up_to_sign).ok
    except Exception:  # noqa: BLE001 - a value the comparison cannot take matches nothing
        return False


def _items(ps: str) -> dict[str, bool]:
    """``{item: up to sign}`` of the items of ``ps`` judged against a key."""
    from kpca_ref import variants

    mod = variants.module(ps)
    checked = set(getattr(mod, "CHECKED", ()))
    return {item: item in mod.UP_TO_SIGN for item in mod.ITEMS if item not in checked}


@functools.lru_cache(maxsize=8)
def candidate_keys(ps: str) -> dict[str, dict[int, object]]:
    """``{item: {candidate index: key}}`` of the items of ``ps`` built on one family: a
    student's key of such an item is its family's candidate's (families are drawn
    independently, so every combination of candidates is some student's)."""
    from kpca_ref import variants

    fams, mod = variants.families(ps), variants.module(ps)
    single = {item: fs[0] for item, fs in mod.ITEMS.items() if len(fs) == 1 and fs[0] in fams}
    table: dict[str, dict] = {item: {} for item in single}
    for i in range(max(len(c) for c in fams.values())):
        answers = mod.answers(variants._namespace({f: c[i % len(c)] for f, c in fams.items()}))
        for item, family in single.items():
            table[item].setdefault(i % len(fams[family]), answers[item])
    return table


class Keys:
    """Keys of ``ps`` by student id: from :func:`candidate_keys` when ``many`` ids are asked
    for (more than a family has candidates), else from each student's variant."""

    def __init__(self, ps: str, many: int):
        from kpca_ref import variants

        self.ps, self.fams, self.mod = ps, variants.families(ps), variants.module(ps)
        self.table = candidate_keys(ps) if many > max(map(len, self.fams.values())) else {}

    def __call__(self, sid: str, item: str):
        from kpca_ref import variants

        if item in self.table:
            family = self.mod.ITEMS[item][0]
            return self.table[item][variants.draw(family, self.ps, sid, len(self.fams[family]))]
        return variants.variant(self.ps, sid).answers[item]


def key_index(ps: str, ids, keys: Keys | None = None) -> dict[str, dict]:
    """``{item: {fingerprint: [id, ...]}}`` of the keys of ``ids``' numbers in ``ps``."""
    items = _items(ps)
    ids = list(ids)
    keys = keys or Keys(ps, len(ids))
    index: dict[str, dict] = {item: {} for item in items}
    seen: dict = {}  # students sharing a candidate share its key object: fingerprinted once
    for sid in ids:
        for item, signless in items.items():
            key = keys(sid, item)
            if (id(key), signless) not in seen:
                seen[id(key), signless] = (key, fingerprint(key, signless))
            fp = seen[id(key), signless][1]
            if fp is not None:
                index[item].setdefault(fp, []).append(sid)
    return index


def _holders(value, ids, key_of, signless: bool) -> list[str]:
    """The ``ids`` whose key ``value`` equals (one comparison per distinct key object)."""
    verdicts: dict = {}
    found = []
    for sid in ids:
        key = key_of(sid)
        if id(key) not in verdicts:
            verdicts[id(key)] = (key, _same(value, key, signless))
        if verdicts[id(key)][1]:
            found.append(sid)
    return found


def copied_keys(ps: str, handed_in: dict[str, dict], roster) -> list[KeyMatch]:
    """The answers of ``handed_in`` (``{student: {item: wire data}}``) that are another
    student's key (``roster``: every student whose numbers count) and not their own."""
    from kpca_probe.wire import decode

    items = _items(ps)
    roster = sorted(set(roster) | set(handed_in))
    keys = Keys(ps, len(roster) + SAMPLE)
    index = key_index(ps, roster, keys)
    sample = None
    found = []
    for student in sorted(handed_in):
        for item, data in sorted(handed_in[student].items()):
            if item not in items:
                continue
            signless = items[item]
            try:
                value = decode(data)
            except Exception:  # noqa: BLE001 - data the judge could not read either
                value = None
            fp = fingerprint(value, signless) if value is not None else None
            others = [s for s in index[item].get(fp, []) if s != student] if fp else []
            if not others or fp == fingerprint(keys(student, item), signless):
                continue  # the student's own key (equal to double precision: the right answer)
            others = _holders(value, others, lambda s, item=item: keys(s, item), signless)
            if not others:
                continue
            if sample is None:
                sample = key_index(ps, [f"~share-{i}" for i in range(SAMPLE)], keys)
            holders = len(index[item].get(fp, [])) + len(sample[item].get(fp, []))
            share = holders / (len(roster) + SAMPLE)
            if share < DISTINCTIVE:
                found.append(KeyMatch(ps, item, student, tuple(others), share))
    return found


def class_answers(course: Course, ps: str, students) -> tuple[dict[str, dict], list[str]]:
    """``({student: {item: wire data}}, [students graded without a record of answers])``
    of the graded notebooks of ``ps``."""
    found, unrecorded = {}, []
    for student in students:
        path = course.notebook("autograded", ps, student)
        if not path.exists():
            continue
        answers = recorded_answers(path)
        if answers is None:
            unrecorded.append(student)
        else:
            found[student] = answers
    return found, unrecorded
