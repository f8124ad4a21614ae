"""Every whole number and comparison a notebook's prose states is accounted for, and each holds.

The tokens are :mod:`tests.notebooks.stated_numbers`' (numbers, number words, comparisons,
outside formulas and code); :data:`tests.notebooks.stated_claims.CLAIMS` says what each phrase
holding them is: a setting the code must use, a quote of the notes, a claim another test file
checks, or a claim a function here checks, on every student's numbers where it is about them.
A token no phrase covers fails, so a number the text gains is checked when it is written.
A formula that is whole-number arithmetic (``$1+4+6+4=15$``) must hold exactly; other
formulas are worked examples, computed by the cells beside them.
Decimals are :mod:`tests.notebooks.test_stated_decimals`'.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from kit.course import ASSIGNMENTS, REPO_ROOT
from kpca_ref import variants
from tests.notebooks.attributions import SEEDS, load
from tests.notebooks.stated_claims import CLAIMS, Checked, CheckedIn, Notes, Setting, phrases_for
from tests.notebooks.stated_numbers import markdown, tokens, uncovered

SHORT = {ps[:3]: ps for ps in ASSIGNMENTS}


def _where(key) -> list[str]:
    where, _ = key
    return list(ASSIGNMENTS) if where == "*" else [SHORT[where]]


def _matches(ps: str, phrase: str) -> list[str]:
    return [m[0] for m in re.finditer(phrase, markdown(ps))]


def _source(ps: str) -> dict:
    return load(REPO_ROOT / "source" / ps / f"{ps}.ipynb")


def _code(ps: str) -> str:
    return "\n".join("".join(c["source"]) for c in _source(ps)["cells"] if c["cell_type"] == "code")


@pytest.mark.parametrize("ps", ASSIGNMENTS)
def test_every_stated_number_and_comparison_is_accounted_for(ps):
    left = uncovered(ps, phrases_for(ps))
    assert not left, f"{ps} states numbers or comparisons nothing accounts for:\n" + "\n".join(
        f"  {t.text!r} in ...{t.around}..." for t in left)


@pytest.mark.parametrize("key", list(CLAIMS), ids=lambda k: f"{k[0]}:{k[1][:40]}")
def test_every_phrase_is_still_stated(key):
    found = [ps for ps in _where(key) if _matches(ps, key[1])]
    assert found, f"{key}: the text no longer states it; update the list"
    assert all(tokens(ps, " ".join(_matches(ps, key[1]))) for ps in found), (
        f"{key}: holds no number or comparison, so it accounts for nothing")


def test_a_number_or_comparison_the_text_gains_fails():
    text = markdown("ps6_kernel_regression")
    phrases = phrases_for("ps6_kernel_regression")
    assert not uncovered("ps6_kernel_regression", phrases, text)
    for planted in ("the error reaches the line after about 20,000 steps",
                    "`N.K` is the kernel matrix of three points",
                    "the step is larger than the bound", "at least twice as fast"):
        gained = text.replace("The cell below also computes", f"{planted}. The cell below also computes")
        assert uncovered("ps6_kernel_regression", phrases, gained), planted
    # a number changed inside a phrase that is allowed breaks the phrase, and is found too
    changed = text.replace("15 points on a line has rank 4", "15 points on a line has rank 5")
    assert uncovered("ps6_kernel_regression", phrases, changed)


@pytest.mark.parametrize("key", [k for k, v in CLAIMS.items() if isinstance(v, Setting) and v.code],
                         ids=lambda k: f"{k[0]}:{k[1][:40]}")
def test_each_setting_is_the_codes(key):
    path, pattern = CLAIMS[key].code
    for ps in _where(key):
        code = _code(ps) if path == "notebook" else (REPO_ROOT / path).read_text(encoding="utf-8")
        assert re.search(pattern, code), f"{key}: {path} does not hold {pattern!r}"


@pytest.mark.parametrize("key", [k for k, v in CLAIMS.items() if isinstance(v, Notes)],
                         ids=lambda k: f"{k[0]}:{k[1][:40]}")
def test_each_quote_of_the_notes_is_in_them(key):
    if not SEEDS.is_dir():
        pytest.skip("the lecture notes are not beside the repository")
    [path] = SEEDS.glob(f"{CLAIMS[key].seed}_*.txt")
    assert CLAIMS[key].quote in " ".join(path.read_text(encoding="utf-8").split()), key


@pytest.mark.parametrize("key", [k for k, v in CLAIMS.items() if isinstance(v, CheckedIn)],
                         ids=lambda k: f"{k[0]}:{k[1][:40]}")
def test_the_files_that_check_the_other_claims_still_do(key):
    path, needle = CLAIMS[key].path, CLAIMS[key].needle
    assert needle in (REPO_ROOT / path).read_text(encoding="utf-8"), (key, path, needle)


def arithmetic(text: str) -> list[tuple[str, bool]]:
    """``(formula, holds)`` for each formula of ``text`` that is whole-number arithmetic with
    an ``=`` (``$1+4+6+4=15$``, ``$9/(6-1) = 9/5$``): every side the same exact number."""
    found = []
    for match in re.finditer(r"\$\$(.*?)\$\$|\$([^$\n]*)\$", text, re.DOTALL):
        body = match[1] or match[2]
        if "=" in body and re.search(r"\d", body) and re.fullmatch(r"[\d\s+\-*/().=]+", body):
            sides = [sp.sympify(side.strip()) for side in body.split("=")]
            found.append((body, all(side == sides[0] for side in sides)))
    return found


@pytest.mark.parametrize("ps", ASSIGNMENTS)
def test_every_arithmetic_equation_in_a_formula_holds(ps):
    wrong = [body for body, holds in arithmetic(markdown(ps)) if not holds]
    assert not wrong, f"{ps}: {wrong}"


def test_the_arithmetic_reader_finds_the_equations_and_a_wrong_one():
    assert sum(len(arithmetic(markdown(ps))) for ps in ASSIGNMENTS) >= 5
    assert arithmetic("this is $1+4+6+4=15$ and $9/(6-1) = 9/5$") == [("1+4+6+4=15", True), ("9/(6-1) = 9/5", True)]
    assert arithmetic("this is $1+4+6+4=16$") == [("1+4+6+4=16", False)]


# -- the checks of the claims listed as Checked(name) -------------------------------------------

def _parts(ps: str) -> dict[int, list[tuple[float, bool, str]]]:
    """``{part: [(points, written, source), ...]}`` of the graded cells under each ``## Part``."""
    parts, current = {}, None
    for cell in _source(ps)["cells"]:
        text = "".join(cell["source"])
        heading = re.search(r"^## Part (\d+)\b", text, re.MULTILINE) if cell["cell_type"] == "markdown" else None
        if heading:
            current = int(heading[1])
            parts[current] = []
        meta = cell["metadata"].get("nbgrader", {})
        if meta.get("grade") and current is not None:
            parts[current].append((float(meta["points"]), bool(meta.get("solution")), text))
    return parts


def _grade_calls(ps: str) -> dict[str, float]:
    calls = re.findall(r'grade(?:_exact)?\("[^"]+",\s*([A-Za-z_]\w*),\s*points=([\d.]+)\)', _code(ps))
    return {name: float(points) for name, points in calls}


def points_lines(ps, said):
    parts = _parts(ps)
    total = {p: sum(c[0] for c in cells) for p, cells in parts.items()}
    auto = sum(c[0] for cells in parts.values() for c in cells if not c[1])
    hand = sum(c[0] for cells in parts.values() for c in cells if c[1])
    for text in said:
        for n in re.findall(r"(\d+) (?:auto-graded|points are graded automatically)", text):
            assert float(n) == auto, (ps, text, auto)
        for n in re.findall(r"\+ (\d+) for the written|automatically(?: \([^)]*\))? and (\d+) \(", text):
            assert float("".join(n)) == hand, (ps, text, hand)
        for n in re.findall(r"(\d+) in all", text):
            assert float(n) == auto + hand, (ps, text)
        for n in re.findall(r"\((\d+) test cells\)", text):
            assert int(n) == sum(not c[1] for cells in parts.values() for c in cells), (ps, text)
        listed = [(int(m[1]), [float(x) for x in (m[2] or m[4]).split(" + ")], m[3] or "") for m in re.finditer(
            r"Part (\d+)(?:, [^()·]*?)? ?(?:\(([\d.]+(?: \+ [\d.]+)*?)((?:,| \+ [\d.]+)? written)?\)"
            r"|: ([\d.]+(?: \+ [\d.]+)*))", text)]
        marks_written = any(written for _, _, written in listed)
        for part, terms, written in listed:
            extra = [float(x) for x in re.findall(r"[\d.]+", written)]
            assert sum(terms + extra) == total[part], (ps, text, part)
            manual = sum(c[0] for c in parts[part] if c[1])
            if marks_written:  # a list that marks what is written marks every written answer
                assert manual == (sum(extra) if extra else sum(terms) if written else 0), (ps, text, part)
        if len(listed) >= 3:  # a list of the parts names each once, in order
            assert [p[0] for p in listed] == sorted(parts), (ps, text)
        for part, count, each in re.findall(r"Part (\d+)'s (\w+) cells ([\d.]+) points each", text):
            assert [c[0] for c in parts[int(part)]] == [float(each)] * {"three": 3}[count], (ps, text)
        for n, each, whole in re.findall(r"\((\d+) × ([\d.]+) = (\d+)\)", text):
            assert int(n) * float(each) == float(whole) == total[7], (ps, text)
        for name, n in re.findall(r"`(\w+)` \((\d+) points?", text):
            assert _grade_calls(ps)[name] == float(n), (ps, text)
        for part, n in re.findall(r"Part (\d+) has (\d+) points", text):
            assert total[int(part)] == float(n), (ps, text)
        for n, name in re.findall(r"(\d+) for `(\w+)`", text):
            [cell] = [c for c in parts[6] if f'"{name}"' in c[2] and "grade(" in c[2]]
            assert cell[0] == float(n), (ps, text)


def functions_to_write(ps, said):
    words = {"five": 5, "six": 6, "seven": 7, "nine": 9}
    defined = set()
    for cell in _source(ps)["cells"]:
        meta = cell["metadata"].get("nbgrader", {})
        if cell["cell_type"] == "code" and meta.get("solution") and not meta.get("grade"):
            defined |= set(re.findall(r"^def (\w+)\(", "".join(cell["source"]), re.MULTILINE))
    graded = {name for name in defined if re.search(rf'grade\("{name}"', _code(ps))}
    for text in said:
        [word] = re.findall(r"five|six|seven|nine", text, re.IGNORECASE)
        assert len(graded) == words[word.lower()], (ps, text, sorted(graded))


def random_angles_near_90(ps, said):
    [centre] = {int(n) for text in said for n in re.findall(r"at (\d+) degrees", text)}
    rng = np.random.default_rng(1)  # fixed: 40,000 pairs put the mean within 0.3 degrees
    spread = []
    for m in (2, 30, 300):
        u, v = rng.normal(size=(2, 40000, m))
        cos = np.sum(u * v, axis=1) / np.linalg.norm(u, axis=1) / np.linalg.norm(v, axis=1)
        angles = np.degrees(np.arccos(np.clip(cos, -1, 1)))
        assert abs(angles.mean() - centre) < 0.5
        spread.append(angles.std())
    assert spread[0] > spread[1] > spread[2] and spread[2] < 5


def shares_of_the_card_on_curves(ps, said):
    """The card's eigenvalues (3.41 and 1.73, then 7.04 and 0.11) as shares of their sum."""
    [(before, after)] = {m for text in said for m in re.findall(r"about (\d+)%.*?about (\d+)%", text)}
    assert round(100 * 3.41 / (3.41 + 1.73)) == int(before) and round(100 * 7.04 / (7.04 + 0.11)) == int(after)


def ps1_q_near_its_circle(ps, said):
    [near] = {int(n) for text in said for n in re.findall(r"within (\d+) of", text)}
    farthest = 0
    for c in variants.families(ps)["circle"]:
        (qx, qy), a, b, r = c["Q"][0], c["a"], c["b"], c["r"]
        farthest = max(farthest, abs(qx - a), abs(qy - b))
        assert max(abs(qx - a), abs(qy - b)) <= near and (qx - a) ** 2 + (qy - b) ** 2 != r**2, c
    assert farthest == near


def thousand_features_cubic(ps, said):
    [power] = {int(n) for text in said for n in re.findall(r"\$10\^(\d+)\$", text)}
    assert sum(math.comb(1000, i) for i in range(4)) > 10**power and math.comb(1003, 3) > 10**power


def exact_answers_count(ps, said):
    assert len(re.findall(r"grade_exact\(", _code(ps))) == 10


def tally_stops_at_4(ps, said):
    [stop] = {int(n) for text in said for n in re.findall(r"stops at (\d+)", text)}
    assert all(sum(math.comb(2, i) for i in range(p + 1)) == stop for p in range(2, 9))
    assert all(math.comb(2 + p + 1, p + 1) > math.comb(2 + p, p) for p in range(2, 9))


def ps3_plan_table(ps, said):
    total = {p: sum(c[0] for c in cells) for p, cells in _parts(ps).items()}
    [table] = said
    rows = re.findall(r"^\| (\d+)(?:–(\d+))? \|[^|]*\| ([^|]*) \| \d+ min \|$", table, re.MULTILINE)
    assert len(rows) == 8
    for first, last, points in rows:
        whole = re.match(r"(\d+)(?: \((.*)\))?$", points.strip()) or re.match(r"()(.*)", points.strip())
        terms = [float(x) for x in re.findall(r"\d+(?:\.\d+)?", whole[2] or "")]
        stated = float(whole[1]) if whole[1] else sum(terms)
        parts = range(int(first), int(last or first) + 1)
        assert stated == sum(total[p] for p in parts), (first, last, points)
        if whole[2] and "each" not in whole[2]:
            assert sum(terms) == stated, points


def ps3_point_dimensions(ps, said):
    [stated] = {frozenset(map(int, re.findall(r"\d+", text))) for text in said}
    dims = {len(c[k][0]) for c in variants.families(ps)["pair"] for k in ("x1", "x2")}
    assert dims == stated, dims


def ps3_certificate_limits(ps, said):
    from kpca_ref.variants import ps3_language, ps3_reading

    [text] = said
    rules, depth, p_low, p_high, features, nodes, power, degree, example, example_degree = map(
        int, re.findall(r"(?<!\w)\d+", text))
    assert (ps3_language._MAX_RULES, ps3_language._MAX_DEPTH, ps3_language._MAX_FEATURES,
            ps3_language.MAX_DEGREE) == (rules, depth, features, degree)
    assert (ps3_reading._MAX_NODES, ps3_reading._MAX_POWER) == (nodes, power)
    language = (REPO_ROOT / "kpca_ref/variants/ps3_language.py").read_text(encoding="utf-8")
    assert f"not {p_low} <= p <= {p_high}" in language, (p_low, p_high)
    x1, x2 = sp.symbols("x1 x2")
    assert sp.Poly((x1 + x2) ** example, x1, x2).total_degree() == example_degree


def ps5_k_hat_is_centred_3x3(ps, said):
    for c in variants.families(ps)["khat"]:
        k = sp.Matrix(c["K_hat"])
        assert k.shape == (3, 3) and k == k.T and k * sp.ones(3, 1) == sp.zeros(3, 1), c


def four_points_on_a_line_cubic(ps, said):
    from kpca_ref.variants.ps6 import cubic_kernel

    [most] = {int(n) for text in said for n in re.findall(r"at most (\d+) distinct", text)}
    points = [sp.Integer(v) for v in (-2, -1, 0, 1, 3, 5)]
    for n in range(1, most + 2):
        x = sp.Matrix(points[:n])
        k = sp.Matrix(cubic_kernel(x, x))
        definite = all(k[:i, :i].det() > 0 for i in range(1, n + 1))  # Sylvester's criterion
        assert definite == (n <= most) and (n <= most or k.det() == 0), n


def ps6_k_is_a_gram_matrix(ps, said):
    [(count, dim)] = {m for text in said for m in re.findall(r"of (three) points of \$\\mathbb R\^(\d)\$", text)}
    assert count == "three" and int(dim) == 3
    for c in variants.families(ps)["system"]:
        k = sp.Matrix(c["K"])
        assert k.shape == (3, 3) and k == k.T and all(k[:i, :i].det() > 0 for i in (1, 2, 3)), c
        assert sp.Matrix(k.cholesky(hermitian=False)).shape == (3, 3)  # K = L L^T: rows of L in R^3


def ps6_denominators_at_most_100(ps, said):
    from kpca_ref.variants import ps6

    [most] = {int(n) for text in said for n in re.findall(r"at most\s*(\d+)", text)}
    n = variants.lecture(ps)
    for c in variants.families(ps)["system"]:
        for name, value in c.items():
            setattr(n, name, variants.decode(value))
        for name, answer in ps6.answers(n).items():
            if name in ("ps6_beta_two_steps", "ps6_beta_limit", "ps6_predict_new", "ps6_ridge_beta"):
                for entry in sp.Matrix([answer]) if not isinstance(answer, sp.MatrixBase) else answer:
                    assert Fraction(str(sp.nsimplify(entry))).denominator <= most, (c, name, entry)
    assert ps6.NICE == {"denominator": most}


CHECKS = {f.__name__: f for f in (
    points_lines, functions_to_write, random_angles_near_90, shares_of_the_card_on_curves,
    ps1_q_near_its_circle, thousand_features_cubic, exact_answers_count, tally_stops_at_4,
    ps3_plan_table, ps3_point_dimensions, ps3_certificate_limits, ps5_k_hat_is_centred_3x3,
    four_points_on_a_line_cubic, ps6_k_is_a_gram_matrix, ps6_denominators_at_most_100)}


def _checked() -> list[tuple[str, str]]:
    pairs = {(ps, v.check) for k, v in CLAIMS.items() if isinstance(v, Checked) for ps in _where(k)}
    return sorted(p for p in pairs if any(_matches(p[0], k[1]) for k, v in CLAIMS.items()
                                          if v == Checked(p[1]) and p[0] in _where(k)))


@pytest.mark.parametrize(("ps", "check"), _checked())
def test_each_checked_claim_holds(ps, check):
    said = [m for k, v in CLAIMS.items() if v == Checked(check) and ps in _where(k) for m in _matches(ps, k[1])]
    CHECKS[check](ps, said)


def test_every_check_named_exists_and_is_used():
    named = {v.check for v in CLAIMS.values() if isinstance(v, Checked)}
    assert named == set(CHECKS), (named ^ set(CHECKS))
