"""What grading skips of a notebook's overhead, and what it keeps doing (issue 28).

- a grading process probes bubblewrap once, not before every notebook, and never takes a
  broken one for working;
- the judge's child leaves the grader's objects out of its garbage collector (collecting
  them copied every page of the grader's heap);
- nbconvert validates each pass's notebook once, after its last step, and an invalid
  notebook still fails there.
"""

from __future__ import annotations

import gc

import nbformat
import pytest
from nbconvert.exporters import NotebookExporter
from nbconvert.preprocessors import Preprocessor
from nbformat.v4 import new_code_cell, new_notebook

from kit.course import REPO_ROOT, Course
from kit.judge import limits
from kit.sandbox import wrapper


def _count_probes(monkeypatch) -> list:
    calls = []
    real = wrapper.subprocess.run

    def counted(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(wrapper.subprocess, "run", counted)
    monkeypatch.setattr(wrapper, "_WORKED", set())
    return calls


@pytest.mark.skipif(wrapper.unavailable() != "", reason="bubblewrap unavailable")
def test_a_grading_process_probes_bubblewrap_once(monkeypatch):
    calls = _count_probes(monkeypatch)
    assert [wrapper.unavailable(cached=True) for _ in range(5)] == [""] * 5
    assert len(calls) == 1
    assert wrapper.unavailable() == "" and len(calls) == 2  # asked plainly, it probes again


@pytest.mark.parametrize("bwrap", ["/bin/false", "/nonexistent/bwrap"])
def test_a_broken_bubblewrap_is_never_taken_for_working(monkeypatch, bwrap):
    calls = _count_probes(monkeypatch)
    monkeypatch.setenv("KPCA_SANDBOX_BWRAP", bwrap)
    assert wrapper.unavailable(cached=True) and wrapper.unavailable(cached=True)
    assert len(calls) == (2 if bwrap == "/bin/false" else 0)
    assert not wrapper._WORKED


def test_the_judges_child_leaves_the_graders_objects_out_of_its_collector():
    cell = new_code_cell("")

    def judge(c):
        c.outputs = [nbformat.v4.new_output("stream", name="stdout",
                                            text=f"{gc.get_freeze_count()}\n")]

    limits.run_bounded([(cell, judge)])
    frozen = int(cell.outputs[0]["text"])
    assert frozen > 1000  # this process's objects (the child's own are collected as usual)
    assert gc.get_freeze_count() == 0  # the grader itself still collects everything


class _Breaks(Preprocessor):
    """A step that leaves the notebook invalid (a code cell without outputs)."""

    def preprocess(self, nb, resources):
        del nb.cells[0]["outputs"]
        return nb, resources


class _Counts(Preprocessor):
    def preprocess(self, nb, resources):
        return nb, resources


def _exporter(steps) -> NotebookExporter:
    exporter = NotebookExporter(config=Course(REPO_ROOT).config())
    for step in steps:
        exporter.register_preprocessor(step, enabled=True)
    return exporter


def test_the_course_validates_each_pass_once(monkeypatch):
    nb = new_notebook(cells=[new_code_cell("1")])
    exporter = _exporter([_Counts() for _ in range(13)])  # as many as autograde's second pass
    validated = []
    real = nbformat.validate
    monkeypatch.setattr(nbformat, "validate", lambda nb, *a, **k: validated.append(1) or real(nb, *a, **k))
    exporter.from_notebook_node(nb)
    # once after the last step, and once more as the notebook is written (as before)
    assert len(validated) == 2


def test_an_invalid_notebook_still_fails_after_the_last_step():
    nb = new_notebook(cells=[new_code_cell("1")])
    with pytest.raises(nbformat.ValidationError):
        _exporter([_Counts(), _Breaks(), _Counts()]).from_notebook_node(nb)
