"""Copying evidence (kit.copying) on synthetic hand-ins: no notebook is graded here."""

from __future__ import annotations

import csv
from collections import Counter

import nbformat

from kit.copying import code, evidence, keys
from kit.copying.keys import KeyMatch, copied_keys, fingerprint
from kit.course import JUDGE_KEY
from kit.html.sanitize import _judge_record
from kit.judge.score import _judge_metadata
from kpca_probe.wire import encode
from kpca_ref import variants

PS = "ps4_centering"


def _answers(ps, student):
    return {k: encode(v) for k, v in variants.variant(ps, student).answers.items()}


def test_a_classmates_key_is_listed_with_the_classmate_and_own_answers_are_not():
    found = copied_keys("ps1_circle_lift", {"ray": _answers("ps1_circle_lift", "ada"),
                                            "ben": _answers("ps1_circle_lift", "ben")},
                        ["ada", "ben", "ray", "cleo"])
    assert found and {m.student for m in found} == {"ray"}
    assert all(m.others == ("ada",) and m.share < keys.DISTINCTIVE for m in found)


def test_a_key_many_variants_share_is_never_listed():
    # the commonest key of an item over ids drawn for nobody: a wrong answer equal to it
    # is no evidence, even when a classmate holds it
    item = "ps4_poly_grand_mean"
    ids = [f"~c{i}" for i in range(60)]
    counts = Counter(fingerprint(variants.variant(PS, s).answers[item]) for s in ids)
    common, n = counts.most_common(1)[0]
    assert n / len(ids) >= 1.5 * keys.DISTINCTIVE
    holder = next(s for s in ids if fingerprint(variants.variant(PS, s).answers[item]) == common)
    other = next(s for s in ids if fingerprint(variants.variant(PS, s).answers[item]) != common)
    handed = {other: {item: encode(variants.variant(PS, holder).answers[item])}}
    assert copied_keys(PS, handed, [holder, other]) == []


def test_the_judge_record_keeps_answers_bounded_through_the_sanitiser():
    meta = _judge_metadata([None], None, {"ps1_circle_u": {"i": "3"}, "big": {"i": "9" * 5000}})
    assert meta["answers"] == {"ps1_circle_u": {"i": "3"}, "big": None}
    kept = _judge_record({JUDGE_KEY: {"diagnoses": [], "answers": {
        "ok_item": {"i": "1"}, "<script>": {"i": "1"}, "huge": ["x" * 5000],
        **{f"i{n}": {"i": "1"} for n in range(100)}}}})
    assert kept["answers"]["ok_item"] == {"i": "1"} and kept["answers"]["huge"] is None
    assert "<script>" not in kept["answers"] and len(kept["answers"]) <= 40


def test_code_normal_form_ignores_names_comments_and_spacing_but_not_structure():
    a = "def f(K):\n    # centre it\n    n = K.shape[0]\n    return K - K.mean(axis=0)\n"
    b = "def g(M):\n    rows = M.shape[0]   # rows\n\n    return M-M.mean(axis=0)\n"
    assert code.normalise(a) == code.normalise(b)
    assert code.normalise(a) != code.normalise(a.replace("K - K", "K + K"))
    assert code.normalise("x = (") == ["x", "="] + ["("]  # unfinished code still compares


def _course_with_cells(tmp_path, cells_by_student):
    from kit.course import Course

    for student, sources in cells_by_student.items():
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
        folder = tmp_path / "submitted" / student / PS
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / f"{PS}.ipynb")
    return Course(tmp_path)


LONG = ("def centre(K):\n    n = K.shape[0]\n    one = np.ones((n, n)) / n\n"
        "    return K - one @ K - K @ one + one @ K @ one\n")


def test_identical_cells_form_a_group_and_short_or_unique_cells_do_not(tmp_path):
    renamed = ("def c(G):  # mine\n    m = G.shape[0]\n\n    J = np.ones((m, m))/m\n"
               "    return G - J @ G - G @ J + J @ G @ J\n")
    course = _course_with_cells(tmp_path, {"ann": [LONG, "x = 1"], "bob": [renamed, "x = 1"],
                                           "cat": [LONG.replace("- K @", "+ K @")]})
    groups = code.same_code(course, PS, ["ann", "bob", "cat"])
    assert [g.students for g in groups] == [("ann", "bob")]


def test_student_text_is_escaped_in_the_page_and_inert_in_the_csv(tmp_path):
    nasty = "=HYPERLINK(\"http://x\")<script>alert(1)</script>\x1b]0;t\x07"
    found = evidence.Evidence(
        keys=[KeyMatch(PS, "ps4_poly_K", nasty, ("+cmd|' /C calc'!A0",), 0.01)],
        code=[code.CodeGroup(PS, ("-2+3",), (nasty, "@SUM(1)"), 40, "d")])
    page = evidence.section(found)
    assert "<script>" not in page and "\x1b" not in page and "&lt;script&gt;" in page
    path = evidence.write_csv(found, tmp_path / "copying.csv")
    with open(path, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            for value in row.values():
                assert value[:1] not in "=+-@" and "\x1b" not in value


def test_a_flood_of_huge_cells_is_read_bounded_and_quickly(tmp_path):
    import time

    huge = "x = [" + ", ".join(["1"] * 60_000) + "]\n"  # far over a cell's 20,000 characters
    flood = [huge] * 8 + ["y = 1"] * 500  # cells past the 300th are not read
    course = _course_with_cells(tmp_path, {"ann": flood, "bob": flood})
    start = time.process_time()
    groups = code.same_code(course, PS, ["ann", "bob"])
    assert time.process_time() - start < 10
    assert [g.students for g in groups] == [("ann", "bob")]  # one form, read once per cell
    many = evidence.Evidence(code=[code.CodeGroup(PS, ("c",), tuple(f"s{i}" for i in range(50)),
                                                  30, str(i)) for i in range(evidence.MAX_ROWS + 5)])
    page = evidence.section(many)
    assert "5 more groups not listed" in page and "and 30 more" in page


def test_keys_from_the_candidate_table_are_each_students_own():
    # a large class reads single-family keys from one table per family's candidates
    ids = [f"~t{i}" for i in range(30)]
    for ps in ("ps0_high_dimensions", "ps1_circle_lift", PS):
        table = keys.Keys(ps, many=10_000)
        assert table.table  # the large-class path is the one compared
        for sid in ids:
            own = variants.variant(ps, sid).answers
            for item in keys._items(ps):
                assert fingerprint(table(sid, item)) == fingerprint(own[item]), (ps, sid, item)
