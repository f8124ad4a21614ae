"""What grading skips of a notebook's overhead, and what it keeps doing (issue 28).

- a grading process probes bubblewrap once, not before every notebook, and never takes a
  broken one for working;
- the judge's child leaves the grader's objects out of its garbage collector (collecting
  them copied every page of the grader's heap);
- nbconvert validates each pass's notebook once, after its last step, and an invalid
  notebook still fails there;
- the judge compares with the cases WriteCases built for the kernel, and the number families
  are drawn in the grader (its forked child inherits them);
- a probe result is kept as the kernel sent it, within the output caps;
- a feedback page highlights each distinct cell, and compiles each template, once per process.
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
from tests.support import aio


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


# --- the judge builds a notebook's hidden cases once, and its families in the grader --------

def _test_cell(source: str):
    cell = new_code_cell(f"### BEGIN HIDDEN TESTS\nimport kpca_probe as _grading\n{source}\n"
                         "### END HIDDEN TESTS")
    cell.metadata["nbgrader"] = {"solution": False, "grade": True, "locked": True,
                                 "points": 2, "grade_id": "test_c"}
    return cell


def test_the_judge_compares_with_the_cases_the_kernel_was_given():
    from kit.judge.score import judge_cell
    from kpca_probe import MIME
    from kpca_probe.wire import encode
    from kpca_ref import centring_matrix
    from kpca_ref.grading.case_parts import Case, Group

    cell = _test_cell("_grading.grade('centring_matrix', centring_matrix, points=2)")
    cell.outputs = [nbformat.v4.new_output("display_data", {MIME: {
        "kind": "grade", "name": "centring_matrix",
        "groups": [[{"ok": [encode(centring_matrix(3))]}]]}})]
    given = {"centring_matrix": [Group("the one group the kernel ran", [Case((3,))])]}
    assert judge_cell(cell, groups=given) == 2.0
    assert "the one group the kernel ran" in cell.outputs[0].text
    assert "1 of 1 case groups passed" in cell.outputs[0].text


def test_write_cases_builds_each_case_once_and_draws_the_families_in_the_grader(
        tmp_path, monkeypatch):
    from kit.judge.preprocessors import JudgeHiddenTests, WriteCases
    from kpca_ref import variants
    from kpca_ref.grading import cases

    nb = new_notebook(cells=[
        _test_cell("_grading.grade('centring_matrix', centring_matrix, points=1)\n"
                   "_grading.grade_exact('ps4_centre_3x3', x, points=1)")])
    resources = {"metadata": {"path": str(tmp_path)}}
    variants.families.cache_clear()
    nb, resources = WriteCases().preprocess(nb, resources)
    # the families the exact items draw from, computed here: the judge's child inherits them
    assert variants.families.cache_info().currsize == 1
    assert [g.label for g in resources["kpca_case_groups"]["centring_matrix"]] == [
        g.label for g in cases.groups("centring_matrix")]

    def rebuilt(name):
        raise AssertionError("the judge built the cases again")

    monkeypatch.setattr(cases, "groups", rebuilt)  # the judge's child inherits this too
    from kpca_probe import MIME

    nb.cells[0].outputs = [nbformat.v4.new_output("display_data", {MIME: {  # as from a kernel
        "kind": "grade", "name": "centring_matrix", "groups": []}})]
    nb, resources = JudgeHiddenTests().preprocess(nb, resources)
    text = nb.cells[0].outputs[0].text
    assert "case groups passed" in text and "could not be graded" not in text
    assert "kpca_case_groups" not in resources


# --- a probe result is kept as it came, never rebuilt into NotebookNodes ------------------------

def test_a_probe_result_skips_nbformats_rebuilding_and_keeps_the_caps():
    from nbformat.notebooknode import NotebookNode

    from kit.sandbox.execute import SandboxedExecute
    from kit.sandbox.output_limits import OutputCaps
    from kpca_probe import MIME

    step = SandboxedExecute()
    step.reset_execution_trackers()
    step.clear_before_next_output = False  # as nbclient sets it before each cell
    step.nb = new_notebook(cells=[_test_cell("_grading.grade('lift', lift, points=2)")])
    step._caps, step._planned, step._originals = OutputCaps(10**6, 10**7, 10**6, 10**7), {}, {}
    payload = {"kind": "grade", "name": "lift", "groups": [[{"ok": [[1.0, 2.0]]}]]}
    msg = {"msg_type": "display_data", "parent_header": {"msg_id": "m"},
           "header": {"msg_type": "display_data"},
           "content": {"data": {MIME: payload, "text/plain": "probe"}, "metadata": {}}}
    outs = []
    step.output(outs, msg, None, 0)
    assert len(outs) == 1 and outs[0].data["text/plain"] == "probe"
    assert outs[0].data[MIME] == payload and type(outs[0].data[MIME]) is dict
    assert isinstance(outs[0].data, NotebookNode)
    step._caps = OutputCaps(10**6, 10**7, 10, 10**7)  # over the probe's cap: dropped, with a note
    outs = []
    step.output(outs, msg, None, 0)
    assert all(MIME not in o.get("data", {}) for o in outs)


# --- a feedback page highlights a cell and compiles a template once per process -----------------

def test_each_distinct_cell_is_highlighted_once_and_as_nbconvert_does(monkeypatch):
    from nbconvert.filters import highlight
    from nbconvert.filters.highlight import Highlight2HTML

    from kit.handback import exporter

    source = "def f(x):\n    return x ** 2  # a comment\n"
    plain = Highlight2HTML(pygments_lexer="ipython3")(source)
    calls = []
    real = highlight._pygments_highlight
    monkeypatch.setattr(highlight, "_pygments_highlight",
                        lambda *a, **k: calls.append(a) or real(*a, **k))
    cached = exporter.CachedHighlight(pygments_lexer="ipython3")
    assert [cached(source), cached(source), cached(source, metadata={})] == [plain] * 3
    assert len(calls) == 1
    assert cached(source, "python") != plain or len(calls) == 2  # another language: its own
    assert len(calls) == 2


def test_the_highlight_cache_stays_within_its_size(monkeypatch):
    from kit.handback import exporter

    monkeypatch.setattr(exporter, "HIGHLIGHT_CACHE_CHARS", 20_000)
    cached = exporter.CachedHighlight(pygments_lexer="ipython3")
    for i in range(300):
        cached(f"x_{i} = {i}\n")
    assert exporter._HIGHLIGHTED_CHARS[0] <= 20_000
    assert 0 < len(exporter._HIGHLIGHTED) < 300
    assert sum(len(k[0]) + len(v) for k, v in exporter._HIGHLIGHTED.items()) == \
        exporter._HIGHLIGHTED_CHARS[0]


def test_a_second_feedback_page_compiles_no_template(monkeypatch):
    import jinja2

    from kit.handback.exporter import FeedbackExporter

    config = Course(REPO_ROOT).config()
    nb = new_notebook(cells=[new_code_cell("1 + 1")])
    compiled = []
    real = jinja2.Environment.compile
    monkeypatch.setattr(jinja2.Environment, "compile",
                        lambda self, *a, **k: compiled.append(1) or real(self, *a, **k))
    first, _ = FeedbackExporter(config=config).from_notebook_node(nb)
    before = len(compiled)
    second, _ = FeedbackExporter(config=config).from_notebook_node(nb)
    assert len(compiled) == before and first == second


def test_kept_template_code_serves_only_its_own_kind_of_environment():
    import jinja2

    from kit.handback import exporter

    loader = jinja2.DictLoader({"t.html": "{% for x in xs %}{{ x }},{% endfor %}"})
    kept = exporter._TemplateCode()
    pages = []
    for is_async in (False, True, False):
        env = jinja2.Environment(loader=loader, bytecode_cache=kept, enable_async=is_async)
        # an async environment's render runs its own loop: not in a thread that runs one
        pages.append(aio.in_thread(env.get_template("t.html").render, xs=[1, 2]))
    assert pages == ["1,2,"] * 3 and len(kept._code) == 2
