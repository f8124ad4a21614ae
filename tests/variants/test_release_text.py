"""No released notebook states a graded exact answer, whoever's it is.

The text of every cell of ``release/<ps>/<ps>.ipynb`` (markdown, code, comments, messages of
visible checks, plot labels) is searched for every exact answer of every candidate of every
family, and for the lecture's own answers: a vector or matrix as its entries in order (plain
or LaTeX, separated by commas, ``&``, ``\\\\`` or semicolons), a fraction or radical as
``p/q``, ``\\frac{p}{q}`` or its sympy text. Integers alone, pairs of integers and triples
of integers of size at most 2 are not searched: they are everywhere (``(3, 1)``, ``x = -1, 0,
1``), and such a short answer tells nothing about whose it is.
"""

from __future__ import annotations

import functools
import re

import pytest
import sympy as sp

from kpca_ref import variants
from kpca_ref.variants.cell import NUMBERS_ID
from tests.support.nbgrading import read_release
from tests.variants.test_variants import PORTED, candidate_answers


@functools.cache
def every_answer(ps: str) -> dict[str, list]:
    mod = variants.module(ps)
    found = {name: [value] for name, value in mod.answers(variants.lecture(ps)).items()}
    for family, pairs in candidate_answers(ps).items():
        for _, answers in pairs:
            for name, value in answers.items():
                if family in mod.ITEMS[name]:
                    found[name].append(value)
    return found


def _forms(entry) -> set[str]:
    entry = sp.sympify(entry)
    forms = {str(entry).replace(" ", ""), sp.latex(entry).replace(" ", "")}
    if isinstance(entry, sp.Rational) and entry.q != 1:
        forms |= {f"\\frac{{{entry.p}}}{{{entry.q}}}", f"\\tfrac{{{entry.p}}}{{{entry.q}}}",
                  f"Rational({entry.p},{entry.q})"}
    return forms


def patterns(value) -> set[str]:
    """Texts that would state ``value`` (whitespace removed)."""
    if isinstance(value, (bool, sp.logic.boolalg.BooleanAtom, str)):
        return set()
    entries = list(value) if isinstance(value, (sp.MatrixBase, list, tuple)) else [value]
    if len(entries) == 1:
        entry = sp.sympify(entries[0])
        return set() if entry.is_Integer else _forms(entry)
    if all(sp.sympify(e).is_Integer for e in entries) and (
            len(entries) == 2 or len(entries) == 3 and max(abs(int(e)) for e in entries) <= 2):
        return set()  # "(3, 1)" or "-1, 0, 1" is an argument list or data as often as an answer
    found = set()
    for kind in (str, sp.latex):
        texts = [kind(sp.sympify(e)).replace(" ", "") for e in entries]
        found |= {sep.join(texts) for sep in (",", "&", "\\\\", ";")}
    return found


def release_text(ps: str) -> str:
    """Every cell's text but the numbers cell's table (inputs, which small answers resemble)."""
    cells = [c.source for c in read_release(ps).cells
             if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") != NUMBERS_ID]
    return re.sub(r"\s", "", "\n".join(cells))


def stated(pattern: str, text: str) -> bool:
    """``pattern`` occurs in ``text`` as a whole (no digit, point or slash runs on)."""
    if pattern not in text:  # the search below needs it as it is: most patterns stop here
        return False
    return re.search(r"(?<![\d./])" + re.escape(pattern) + r"(?![\d/])", text) is not None


@pytest.mark.parametrize("ps", PORTED)
def test_release_states_no_graded_exact_answer(ps):
    text = release_text(ps)
    found = {}
    for name, values in every_answer(ps).items():
        for value in values:
            hits = [p for p in patterns(value) if p and stated(p, text)]
            if hits:
                found.setdefault(name, set()).update(hits)
    assert not found, f"{ps} states graded answers: {found}"


def test_the_search_finds_a_stated_answer():
    """The check can fail: an answer written into a page's text is found."""
    ps = PORTED[0]
    name, values = next((n, v) for n, v in every_answer(ps).items() if patterns(v[-1]))
    value = values[-1]
    shown = sp.latex(value) if not isinstance(value, sp.MatrixBase) else ", ".join(
        str(v) for v in value)
    assert patterns(value), f"pick an answer with a searchable form ({name})"
    assert any(stated(p, re.sub(r"\s", "", f"the answer is {shown}.")) for p in patterns(value))
