"""Every decimal number a notebook's text states is accounted for, and each claim holds.

A decimal in the text is one of three things:

* a float beside the exact value it stands for (`0.75` is not `Rational(3, 4)`): checked here
  to be that value, rounded to the digits shown;
* a claim about a computation: checked here (:func:`test_ps0s_float_reduction_claims`) or by
  the test file :data:`CHECKED_ELSEWHERE` names, which must still state the number;
* a setting, not a claim (a default argument, a share of points): listed in :data:`SETTINGS`
  with what it is.

A decimal the text gains that is none of these fails the first test, so a new number is
checked when it is written. Whole numbers and comparisons are
:mod:`tests.notebooks.test_stated_numbers`'.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import sympy as sp

from kit.course import ASSIGNMENTS, REPO_ROOT
from tests.notebooks.attributions import load, numbers

#: (problem set prefix, decimal) -> the test file whose checks hold it
CHECKED_ELSEWHERE = {
    ("ps0", "0.026"): "tests/notebooks/test_taught_claims.py",
    ("ps0", "2.55"): "tests/notebooks/test_taught_claims.py",
    ("ps0", "5.26"): "tests/notebooks/test_taught_claims.py",
    ("ps0", "52.4"): "tests/ref/test_high_dimensions.py",
    ("ps0", "78.5"): "tests/ref/test_high_dimensions.py",
    ("ps1", "0.09"): "tests/notebooks/test_float_claims.py",
    ("ps1", "0.29"): "tests/notebooks/test_float_claims.py",
    ("ps1", "0.57"): "tests/notebooks/test_float_claims.py",
    ("ps1", "0.95"): "tests/notebooks/test_float_claims.py",
    ("ps1", "0.9499999999999998"): "tests/notebooks/test_float_claims.py",
    ("ps1", "0.11"): "tests/ref/test_high_dimensions.py",
    ("ps1", "1.73"): "tests/ref/test_high_dimensions.py",
    ("ps1", "3.41"): "tests/ref/test_high_dimensions.py",
    ("ps1", "7.04"): "tests/ref/test_high_dimensions.py",
    ("ps6", "0.013"): "tests/ref/test_regression_lessons.py",
    ("ps6", "0.26"): "tests/ref/test_regression_lessons.py",
    ("ps6", "0.95"): "tests/ref/test_regression_lessons.py",
}
#: (problem set prefix, decimal) -> what it is (no claim to check)
SETTINGS = {
    ("ps2", "0.5"): "gamma=0.5, rbf_features_1d's default argument",
    ("ps3", "0.1"): "the scales Part 6's search may try, 0.1 to 10",
    ("ps3", "0.5"): "the points each candidate of Part 7 earns, and the decimal ('rbf', 0.5) refused",
    ("ps5", "0.5"): "a gamma to try after the problem set",
    ("ps6", "0.001"): "the picture's smallest ridge parameter",
}
#: a float written beside the exact value it is not: (pattern, the exact value of its groups)
EXACT_BESIDE = [
    (r"`(\d+\.\d+)` is not `Rational\((\d+), (\d+)\)`", lambda d, p, q: (d, sp.Rational(int(p), int(q)))),
    (r"`Rational\((\d+), (\d+)\)`, not `(\d+\.\d+)`", lambda p, q, d: (d, sp.Rational(int(p), int(q)))),
    (r"`(\d+\.\d+)` is not `sp\.log\((\d+)\)`", lambda d, a: (d, sp.log(int(a)))),
    (r"`sqrt\((\d+)\)` rather than `(\d+\.\d+)`", lambda a, d: (d, sp.sqrt(int(a)))),
    (r"`np\.sqrt\((\d+)\)` and `(\d+\.\d+)`", lambda a, d: (d, sp.sqrt(int(a)))),
]
#: decimals this file checks by computation (test_ps0s_float_reduction_claims and the
#: float after 1)
CHECKED_HERE = {("ps0", "1.6"), ("ps0", "1.3"), ("ps0", "1.0000000000000002")}


def _text(ps: str) -> str:
    nb = load(REPO_ROOT / "source" / ps / f"{ps}.ipynb")
    return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"
                     and not c["metadata"].get("nbgrader", {}).get("solution"))


def _beside(text: str) -> dict[str, object]:
    found = {}
    for pattern, value in EXACT_BESIDE:
        for match in re.finditer(pattern, re.sub(r"\s+", " ", text)):
            decimal, exact = value(*match.groups())
            found[decimal] = exact
    return found


@pytest.mark.parametrize("ps", ASSIGNMENTS)
def test_every_decimal_the_text_states_is_accounted_for(ps):
    short = ps.split("_")[0]
    text = _text(ps)
    stated = {n for n in numbers(text) if "." in n}
    beside = _beside(text)
    known = ({d for p, d in CHECKED_ELSEWHERE if p == short} | {d for p, d in SETTINGS if p == short}
             | {d for p, d in CHECKED_HERE if p == short} | set(beside))
    assert not stated - known, f"{ps} states decimals nothing checks: {sorted(stated - known)}"
    listed = {d for p, d in (*CHECKED_ELSEWHERE, *SETTINGS, *CHECKED_HERE) if p == short}
    assert not listed - stated, f"{ps}: listed but no longer stated: {sorted(listed - stated)}"


@pytest.mark.parametrize("ps", ASSIGNMENTS)
def test_each_float_beside_its_exact_value_is_that_value_rounded(ps):
    for decimal, exact in _beside(_text(ps)).items():
        digits = len(decimal.split(".")[1])
        assert round(float(exact), digits) == float(decimal), (ps, decimal, exact)


def test_the_files_that_check_the_other_decimals_still_state_them():
    for (short, decimal), path in CHECKED_ELSEWHERE.items():
        assert decimal in (REPO_ROOT / path).read_text(encoding="utf-8"), (short, decimal, path)


def _cap_by_float_reduction(m: int, degrees: float) -> float:
    """The cap's share by the reduction formula run upwards in floats (what ps0 warns of)."""
    a, k = math.radians(degrees), m - 2
    part, whole = [a, 1 - math.cos(a)], [math.pi, 2.0]
    for j in range(2, k + 1):
        part.append(-math.sin(a) ** (j - 1) * math.cos(a) / j + (j - 1) / j * part[j - 2])
        whole.append((j - 1) / j * whole[j - 2])
    return part[k] / whole[k]


def _cap_exact(m: int, degrees: int) -> float:
    t = sp.symbols("t")
    a = sp.pi * degrees / 180
    return float(sp.integrate(sp.sin(t) ** (m - 2), (t, 0, a)) / sp.integrate(sp.sin(t) ** (m - 2),
                                                                                (t, 0, sp.pi)))


def test_ps0s_float_reduction_claims():
    text = re.sub(r"\s+", " ", _text("ps0_high_dimensions"))
    assert ("for $m = 30$ at $30^\\circ$ (a cap of $1.6 \\times 10^{-10}$) it is right to 8 digits, "
            "for $m = 40$ ($1.3 \\times 10^{-13}$) to 5, and for $m = 100$ it gives $4 \\times 10^{-19}$ "
            "instead of $7 \\times 10^{-32}$") in text
    for m, shown, digits in ((30, 1.6e-10, 8), (40, 1.3e-13, 5)):
        exact, floats = _cap_exact(m, 30), _cap_by_float_reduction(m, 30)
        assert float(f"{exact:.1e}") == shown
        assert math.floor(-math.log10(abs(floats - exact) / exact)) == digits
    assert float(f"{_cap_exact(100, 30):.0e}") == 7e-32
    assert float(f"{_cap_by_float_reduction(100, 30):.0e}") == 4e-19
    assert "1.0000000000000002" in text and float("1.0000000000000002") == np.nextafter(1.0, 2.0)
