"""Output caps (kit/sandbox/output_limits.py): budgets per cell and notebook, probe results kept.

Unit tests of :class:`kit.sandbox.output_limits.OutputCaps` on kernel messages as nbclient hands
them over; the floods of ``tests/integrity/attacks.py`` go through the real pipeline in
``test_attacks.py``, and one of them is graded here in a fresh process to measure the
grader's peak memory.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kit.sandbox.output_limits import ERROR_CHARS, OutputCaps, message_size
from kpca_probe import MIME

PLANNED = {("grade", "centring_matrix")}


def stream(text, name="stdout"):
    return {"name": name, "text": text}


def probe(name="centring_matrix", pad=""):
    return {"data": {MIME: {"kind": "grade", "name": name, "groups": [], "pad": pad}},
            "metadata": {}}


def test_small_outputs_pass_untouched():
    caps = OutputCaps(100, 1000)
    content = stream("hello\n")
    assert caps.admit(0, "stream", content) == (content, "")


def test_a_stream_is_cut_at_the_cell_cap_with_one_note():
    caps = OutputCaps(100, 1000)
    caps.admit(0, "stream", stream("a" * 60))
    kept, note = caps.admit(0, "stream", stream("b" * 60))
    assert kept["text"] == "b" * 40
    assert "this cell's output is over its limit" in note
    assert caps.admit(0, "stream", stream("c")) == (None, "")  # dropped, no second note
    assert caps.admit(1, "stream", stream("d" * 10))[0]["text"] == "d" * 10  # next cell


def test_the_notebook_cap_spans_cells():
    caps = OutputCaps(100, 150)
    caps.admit(0, "stream", stream("a" * 100))
    kept, note = caps.admit(1, "stream", stream("b" * 100))
    assert kept["text"] == "b" * 50 and "the notebook's output" in note
    assert caps.admit(2, "display_data", {"data": {"text/plain": "x"}, "metadata": {}})[0] is None


def test_display_data_over_the_cap_is_dropped():
    caps = OutputCaps(100, 1000)
    kept, note = caps.admit(0, "display_data", {"data": {"image/png": "i" * 500}, "metadata": {}})
    assert kept is None and note


def test_an_error_over_the_cap_is_kept_but_short():
    caps = OutputCaps(100, 1000)
    caps.admit(0, "stream", stream("a" * 100))
    error = {"ename": "ValueError", "evalue": "e" * 10**6, "traceback": ["t" * 10**6] * 50}
    kept, _ = caps.admit(0, "error", error)
    assert kept["ename"] == "ValueError" and message_size("error", kept) < 2 * ERROR_CHARS
    assert caps.admit(0, "error", error)[0] is None  # only one per cell


def test_probe_results_survive_a_flood_before_them():
    caps = OutputCaps(100, 100)
    caps.admit(0, "stream", stream("a" * 10**4))
    content = probe()
    assert caps.admit(3, "display_data", content, PLANNED) == (content, "")


def test_probe_results_cannot_be_forged_to_get_around_the_caps():
    caps = OutputCaps(10**6, 10**6, probe_bytes=1000, probe_notebook_bytes=1500)
    assert caps.admit(0, "display_data", probe(), set())[0] is None  # not a test cell
    assert caps.admit(1, "display_data", probe("other"), PLANNED)[0] is None  # not planned
    assert caps.admit(1, "display_data", probe(), PLANNED)[0] is not None  # the first
    assert caps.admit(1, "display_data", probe(), PLANNED)[0] is None  # never read: dropped
    assert caps.admit(2, "display_data", probe(pad="p" * 2000), PLANNED)[0] is None  # too big
    assert caps.admit(3, "display_data", probe(pad="p" * 900), PLANNED)[0] is not None
    assert caps.admit(4, "display_data", probe(pad="p" * 900), PLANNED)[0] is None  # all probes
    assert caps.used_notebook == 0  # none of this was charged to the output budgets


MEASURE = """
import json, sys
from pathlib import Path
from kit.autograde import autograde_student
from kit.course import Course
scores = autograde_student(Course(Path(sys.argv[1])), sys.argv[2], sys.argv[3])
peak = next(l for l in open("/proc/self/status") if l.startswith("VmHWM")).split()[1]
print(json.dumps({"total": sum(scores.values()), "peak_mb": int(peak) / 1024}))
"""


def test_a_flood_leaves_the_graders_memory_small(graded_floods):
    course, ps, points = graded_floods
    env = {**os.environ, "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]}
    run = subprocess.run([sys.executable, "-c", MEASURE, str(course.root), ps, "flood_one_line"],
                         capture_output=True, text=True, env=env, timeout=300, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["total"] == points - 2  # only the wrong answer's points are lost
    # a single 100 MB line read whole costs the grader about 300 MB more than this (measured)
    assert result["peak_mb"] < 300, result


@pytest.fixture(scope="module")
def graded_floods(tmp_path_factory):
    from kit.course import copy_course
    from kit.intake.submitted import build_submission, lay
    from kit.release import release
    from tests.integrity.attacks import ATTACKS, PS
    from tests.support.nbgrading import auto_points, read_source

    course = copy_course(tmp_path_factory.mktemp("floods"), [PS])
    assert not release(course, [PS])
    lay(course, PS, "flood_one_line", build_submission(course, PS, ATTACKS["flood_one_line"]["cells"]))
    return course, PS, sum(auto_points(read_source(PS)).values())
