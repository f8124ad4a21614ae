"""What a notebook says about floating-point sums holds in IEEE doubles.

A lesson that warns of rounding must show a sum that rounds. Two forms are read from every
notebook's markdown and checked in Python floats:

* ```a + b` is not exactly `c``: the float sum differs from the float ``c``;
* ```a`, `b` and `c` add up to `s``: summed left to right, the floats give exactly ``s``'s
  float, and where the text then says "below" or "above" ``t``, the sum is on that side.
"""

from __future__ import annotations

import re

import pytest

from kit.course import ASSIGNMENTS, REPO_ROOT
from tests.notebooks.attributions import load

NUMBER = r"`(-?\d+(?:\.\d+)?(?:e-?\d+)?)`"
NOT_EXACTLY = re.compile(r"`([\d.+ -]+)` is not exactly " + NUMBER)
ADD_UP = re.compile(r"((?:" + NUMBER + r",?\s+(?:and\s+)?)+)add up to " + NUMBER
                    + r"(?:[^.`]*?(below|above) " + NUMBER + ")?")


def claims(text: str) -> list[tuple]:
    """``(kind, terms, stated, side, threshold)`` for each float claim in ``text``."""
    text = re.sub(r"\s+", " ", text)
    found = [("not exactly", [float(t) for t in re.split(r"\s*\+\s*", m[1])], float(m[2]), None, None)
             for m in NOT_EXACTLY.finditer(text)]
    for m in ADD_UP.finditer(text):
        terms = [float(t) for t in re.findall(NUMBER, m[1])]
        found.append(("add up", terms, m[3], m[4], m[5] and float(m[5])))
    return found


def holds(kind, terms, stated, side, threshold) -> bool:
    total = 0.0
    for t in terms:
        total += t
    if kind == "not exactly":
        return total != stated
    if repr(total) != stated:
        return False
    return side is None or (total < threshold if side == "below" else total > threshold)


def test_the_reader_finds_both_forms_and_judges_them():
    old = "Adding floats is not exact (`0.6 + 0.35` is not exactly `0.95` in floating point)"
    assert [holds(*c) for c in claims(old)] == [False]  # 0.6 + 0.35 == 0.95 in doubles
    new = "shares `0.57`, `0.29` and `0.09` add up to `0.9499999999999998` in floating\npoint, just below `0.95`"
    assert [holds(*c) for c in claims(new)] == [True]
    assert [holds(*c) for c in claims(new.replace("below", "above"))] == [False]


@pytest.mark.parametrize("ps", ASSIGNMENTS)
def test_float_claims_hold(ps):
    nb = load(REPO_ROOT / "release" / ps / f"{ps}.ipynb")
    text = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    wrong = [c for c in claims(text) if not holds(*c)]
    assert not wrong, f"{ps}: float claims that do not hold in IEEE doubles: {wrong}"
