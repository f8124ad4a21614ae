"""The judge's pieces that need no kernel: the wire format and the forbidden-import scan."""

from __future__ import annotations

import math

import nbformat
import numpy as np
import sympy as sp

from kit.judge.forbidden import forbidden_parts
from kit.judge.identity import Identity
from kit.judge.plan import planned_calls
from kit.judge.score import judge_cell
from kpca_probe import MIME
from kpca_probe.wire import Unreadable, decode, decode_error, encode, encode_error
from kpca_ref import variants


def test_values_survive_the_wire():
    values = [np.arange(6.0).reshape(2, 3), np.float32(1.5), np.array([1, 2], dtype=np.int64),
              (True, None, 3), sp.Matrix([[sp.Rational(1, 2), sp.sqrt(2) / 2]]),
              sp.pi * sp.exp(-sp.Rational(3, 2)), [1.0, math.nan, -math.inf], 2**80]
    back = decode(encode(values))
    assert np.array_equal(back[0], values[0]) and back[0].dtype == np.float64
    assert back[1] == np.float32(1.5) and back[1].dtype == np.float32
    assert back[2].dtype == np.int64 and back[3] == (True, None, 3)
    assert back[4] == values[4] and back[5] == values[5]
    assert math.isnan(back[6][1]) and back[6][2] == -math.inf and back[7] == 2**80


def test_a_subclass_arrives_as_its_plain_numbers():
    class Agreeable(np.ndarray):
        def __eq__(self, other):
            return True

    back = decode(encode(np.zeros(3).view(Agreeable)))
    assert type(back) is np.ndarray and back.tolist() == [0.0, 0.0, 0.0]


def test_unknown_and_malformed_data_is_unreadable():
    assert isinstance(decode(encode(object())), Unreadable)
    assert isinstance(decode({"op": "Eval", "a": []}), Unreadable)
    assert isinstance(decode({"f": "__import__", "a": []}), Unreadable)
    assert isinstance(decode("not a dict"), Unreadable)
    assert Unreadable("x") != Unreadable("x")


def test_exceptions_keep_their_builtin_base():
    class MyError(ValueError):
        pass

    data = encode_error(MyError("K must be square"))
    assert data["raised"] == "MyError"
    rebuilt = decode_error(data)
    assert type(rebuilt) is ValueError and str(rebuilt) == "K must be square"


def _nb(*cells):
    nb = nbformat.v4.new_notebook()
    for kind, source in cells:
        cell = nbformat.v4.new_code_cell(source)
        if kind == "answer":
            cell.metadata["nbgrader"] = {"solution": True, "grade": False, "locked": False}
        elif kind == "test":
            cell.metadata["nbgrader"] = {"solution": False, "grade": True, "locked": True,
                                         "points": 2}
        nb.cells.append(cell)
    return nb


def test_forbidden_imports_taint_the_parts_that_use_them():
    nb = _nb(("answer", "import kpca_ref as R\ndef f(x):\n    return x"), ("test", "t1"),
             ("answer", "def g(K):\n    return R.centre_kernel(K)"), ("test", "t2"),
             ("answer", "h = lambda K: g(K)"), ("test", "t3"),
             ("answer", "def k(x):\n    return x"), ("test", "t4"),
             (None, "%matplotlib inline\nfrom sklearn.decomposition import KernelPCA"),
             ("answer", "m = 1"), ("test", "t5"))
    assert forbidden_parts(nb) == {1, 3, 5, 10}


def test_planned_calls_and_a_missing_payload():
    source = ("assert True\n### BEGIN HIDDEN TESTS\nimport kpca_probe as _grading\n"
              "(_grading.grade_exact('ps4_centre_3x3', x, points=1)\n"
              " + _grading.grade_exact('ps4_poly_K', y, points=1))\n### END HIDDEN TESTS")
    assert planned_calls(source) == [("grade_exact", "ps4_centre_3x3", 1.0),
                                     ("grade_exact", "ps4_poly_K", 1.0)]
    cell = _nb(("test", source)).cells[0]
    right = {"kind": "grade_exact", "name": "ps4_centre_3x3",
             "value": encode(variants.answer("ps4_centre_3x3", "ada")[0])}
    cell.outputs = [nbformat.v4.new_output("display_data", {MIME: right}),
                    nbformat.v4.new_output("execute_result", {"text/plain": "2.0"}),
                    nbformat.v4.new_output("stream", name="stderr", text="a warning\n")]
    assert judge_cell(cell, who=Identity("ada", set())) == 1.0
    kinds = [(o.output_type, o.get("name")) for o in cell.outputs]
    # the kernel's own stdout/stderr of a test cell is dropped: only the judge's lines remain
    assert kinds == [("stream", "stdout"), ("execute_result", None)]
    assert "a warning" not in cell.outputs[0].text
    assert "did not run" in cell.outputs[0].text and cell.outputs[1].data["text/plain"] == "1.0"


def _exact_cell(name, value, points=2):
    source = (f"### BEGIN HIDDEN TESTS\nimport kpca_probe as _grading\n"
              f"_grading.grade_exact('{name}', x, points={points})\n### END HIDDEN TESTS")
    cell = _nb(("test", source)).cells[0]
    payload = {"kind": "grade_exact", "name": name, "value": encode(value)}
    cell.outputs = [nbformat.v4.new_output("display_data", {MIME: payload})]
    return cell


def test_exact_items_are_judged_on_the_submitting_student_s_numbers():
    from kit.judge.identity import Identity
    from kpca_ref import variants

    mine = variants.variant("ps1_circle_lift", "ada").answers["ps1_circle_u"]
    theirs = variants.variant("ps1_circle_lift", "bob").answers["ps1_circle_u"]
    assert mine != theirs
    assert judge_cell(_exact_cell("ps1_circle_u", mine), who=Identity("ada", set())) == 2.0
    cell = _exact_cell("ps1_circle_u", theirs)
    assert judge_cell(cell, who=Identity("ada", set())) == 0.0
    text = cell.outputs[0].text
    assert "Your numbers (variant for 'ada')" in text and "N.a = " in text
    assert "; expected" not in text, "the key stays hidden unless show_expected is set"
    cell = _exact_cell("ps1_circle_u", theirs)
    judge_cell(cell, who=Identity("ada", set()), show_expected=True)
    assert f"expected {list(mine)}" in cell.outputs[0].text


def test_a_typed_id_of_someone_else_zeroes_exact_items_with_a_line():
    from kit.judge.identity import Identity, typed_ids
    from kpca_ref import variants

    nb = _nb((None, 'STUDENT_ID = " bob "'), (None, "STUDENT_ID = name_from_elsewhere"))
    assert typed_ids(nb) == {"bob"}
    bobs = variants.variant("ps1_circle_lift", "bob").answers["ps1_circle_u"]
    cell = _exact_cell("ps1_circle_u", bobs)
    assert judge_cell(cell, who=Identity("ada", typed_ids(nb))) == 0.0
    assert "[diagnosis: wrong_student_id]" in cell.outputs[0].text
    assert "'bob'" in cell.outputs[0].text and "'ada'" in cell.outputs[0].text
    adas = variants.variant("ps1_circle_lift", "ada").answers["ps1_circle_u"]
    assert judge_cell(_exact_cell("ps1_circle_u", adas), who=Identity("ada", {"ada", ""})) == 2.0


def test_a_test_cell_shows_only_its_own_check_messages():
    from kit.judge.cells import visible_error

    source = ('assert f(1) == 2, "f(1) should be 2"\nassert g(3), f"g({3}) failed for {n}"\n'
              '### BEGIN HIDDEN TESTS\nassert h(), "hidden message"\n### END HIDDEN TESTS')

    def shown(ename, evalue):
        return visible_error({"ename": ename, "evalue": evalue}, source)["evalue"]

    assert shown("AssertionError", "f(1) should be 2") == "f(1) should be 2"
    assert shown("AssertionError", "g(3) failed for 12") == "g(3) failed for 12"
    assert "not shown" in shown("AssertionError", "hidden message")
    assert "not shown" in shown("AssertionError", "stash: [[0.12, 3.4]]")
    assert "not shown" in shown("ValueError", "f(1) should be 2")


def test_hidden_code_is_replaced_by_one_probe_call():
    from kit.judge.plan import planned_entries, without_hidden_code

    source = ("x = 1\n### BEGIN HIDDEN TESTS\nimport kpca_probe as _grading\n"
              "(_grading.grade('lift', lift, points=3)\n"
              " + _grading.grade_exact('ps1_circle_u', answers[0], points=2))\n"
              "### END HIDDEN TESTS")
    assert planned_entries(source) == [("grade", "lift", "lift", 3.0),
                                       ("grade_exact", "ps1_circle_u", "answers[0]", 2.0)]
    run = without_hidden_code(source, "lift_test")
    assert run == "x = 1\n__import__('kpca_probe').run_hidden('lift_test')\n"
    assert "_grading" not in run and "points" not in run
