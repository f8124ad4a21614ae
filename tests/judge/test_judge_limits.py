"""The judge is bounded: decoding never evaluates, sizes are checked, judging has limits.

Unit tests of ``kpca_probe.wire.decode``'s size limits and unevaluated rebuild, and of
``kit.judge.limits.run_bounded`` (a forked child per notebook, under a wall clock and
``RLIMIT_AS``). The attacks ``slow_to_judge`` and ``huge_power`` of
``tests/integrity/attacks.py`` go through the real pipeline in ``test_attacks.py``.
"""

from __future__ import annotations

import time

import pytest
import sympy as sp
from nbformat.v4 import new_code_cell, new_output

from kit.judge.limits import run_bounded
from kpca_probe.wire import MAX_DEPTH, MAX_NODES, Unreadable, decode, encode
from kpca_ref.grading import answers, harness


def too_large(value) -> bool:
    return isinstance(value, Unreadable) and "too large" in value.what


def nested(levels):
    data = {"Z": "1"}
    for _ in range(levels):
        data = {"op": "Add", "a": [data, {"s": "x"}]}
    return data


@pytest.mark.parametrize("data", [
    {"Z": "9" * 5000},
    {"Q": ["1", "7" * 2000]},
    {"op": "Pow", "a": [{"Z": "10"}, {"Z": str(10**8)}]},
    {"op": "Pow", "a": [{"op": "Pow", "a": [{"Z": "10"}, {"Z": "1000"}]}, {"Z": "1000"}]},
    {"f": "exp", "a": [{"Z": str(10**6)}]},
    {"M": [300, 300], "d": [{"Z": "1"}] * 90_000},
    {"op": "Add", "a": [{"op": "Mul", "a": [{"Z": str(i)}, {"s": "x"}]} for i in range(MAX_NODES)]},
    {"list": [{"op": "Add", "a": [{"s": "x"}, {"Z": "1"}] * 1000}] * 20},
], ids=["long-integer", "long-denominator", "huge-power", "tower", "huge-exp", "big-matrix",
        "many-nodes", "many-values"])
def test_oversized_exact_values_are_refused_before_any_arithmetic(data):
    start = time.process_time()
    value = decode(data)
    if isinstance(value, list):
        assert any(too_large(v) for v in value)
    else:
        assert too_large(value), value
    assert time.process_time() - start < 1.0


def test_too_deep_values_are_unreadable():
    assert isinstance(decode(nested(MAX_DEPTH + 5)), Unreadable)
    assert isinstance(decode(nested(MAX_DEPTH - 2)), sp.Add)


def test_decoding_rebuilds_without_evaluating():
    value = decode({"op": "Add", "a": [{"Z": "2"}, {"Z": "3"}]})
    assert isinstance(value, sp.Add) and value.args == (2, 3)  # not 5: nothing was computed
    power = decode({"op": "Pow", "a": [{"Z": "2"}, {"Z": "10"}]})
    assert isinstance(power, sp.Pow)


def test_every_registered_answer_still_decodes_and_passes():
    for name in answers.ANSWERS:
        value, _ = answers.answer(name)
        assert harness.judge_exact(name, decode(encode(value))).ok, name


def test_a_refused_answer_gets_a_clear_line():
    verdict = harness.judge_exact("ps4_poly_K", decode(
        {"M": [3, 3], "d": [{"op": "Pow", "a": [{"Z": "10"}, {"Z": str(10**8)}]}] + [{"Z": "0"}] * 8}),
        "ada")
    assert not verdict.ok and "too large to grade" in verdict.message


# ------------------------------------------------------------------ run_bounded
def cell(text="kernel said hi\n"):
    c = new_code_cell("x")
    c.outputs = [new_output("stream", name="stdout", text=text)]
    return c


def judged(c):
    c.outputs = [new_output("stream", name="stdout", text="judged\n"),
                 new_output("execute_result", data={"text/plain": "2.0"}, execution_count=1)]
    return 2.0


def sleeper(c):
    time.sleep(60)


def hog(c):
    b"x" * (8 << 30)


def dies(c):
    import os

    os._exit(3)


def score(c) -> str:
    return next(o for o in c.outputs if o.output_type == "execute_result").data["text/plain"]


def lines(c) -> str:
    return "".join(o.get("text", "") for o in c.outputs if o.output_type == "stream")


@pytest.fixture
def limits(monkeypatch):
    monkeypatch.setenv("KPCA_JUDGE_CELL_SECONDS", "1")
    monkeypatch.setenv("KPCA_JUDGE_NOTEBOOK_SECONDS", "3")
    monkeypatch.setenv("KPCA_JUDGE_MEMORY_MB", "512")


def test_results_come_back_from_the_child(limits):
    cells = [cell(), cell()]
    run_bounded([(c, judged) for c in cells])
    assert [score(c) for c in cells] == ["2.0", "2.0"]


@pytest.mark.parametrize("bad, why", [(sleeper, "took over 1 s"), (hog, "needed over 512 MB"),
                                      (dies, "stopped the judge")])
def test_a_cell_over_a_limit_scores_zero_and_the_others_are_judged(limits, bad, why):
    cells = [cell(), cell(), cell()]
    start = time.monotonic()
    run_bounded([(cells[0], judged), (cells[1], bad), (cells[2], judged)])
    assert time.monotonic() - start < 2.5
    assert [score(c) for c in cells] == ["2.0", "0.0", "2.0"]
    # what the kernel printed is dropped, as the judge drops it: it could forge the judge's lines
    assert why in lines(cells[1]) and "kernel said hi" not in lines(cells[1])


def test_the_notebook_limit_bounds_the_delay(limits):
    cells = [cell() for _ in range(6)]
    start = time.monotonic()
    run_bounded([(c, sleeper) for c in cells])
    # the notebook's 3 s, plus room for a busy machine; cell limits alone would take 6 s
    assert time.monotonic() - start < 4.5
    assert all(score(c) == "0.0" for c in cells)
    assert "judging this notebook took over 3 s" in lines(cells[-1])
