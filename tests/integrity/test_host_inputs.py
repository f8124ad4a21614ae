"""Student-controlled text on the grader's side: linear time, inert on a terminal, never the
judge's words.

The fuzz tests time each pathological input against a linear baseline measured in the same
test (honest text of the same size, or the same input at a quarter of the size), never
against a fixed number of seconds: the bounds hold on a loaded two-core machine, while an
input that costs time in the square of its length misses them by far.
"""

from __future__ import annotations

import time

import pytest
from nbformat.v4 import new_code_cell, new_notebook

from kit.engines.progress import Progress
from kit.html.markdown import MARKDOWN_LIMIT, active_html, sanitize_markdown
from kit.html.markdown_spans import protected_spans
from kit.inert import inert, student_words
from kit.intake import collect
from kit.intake.safefiles import refusal_line
from kit.judge.cells import visible_error
from kit.judge.forbidden import forbidden_parts, ipython_source
from kit.judge.identity import Identity, kernel_ids
from kit.judge.score import own_line
from tests.html.xss_payloads import HONEST_ANSWER

#: one unit of each markup character and of the nestings that cost regex scanners most
UNITS = ["`", "``a", "`a", "```\n", "~~~\n", "$", "$$", "$a", "$a\n", "\\(", "\\[", "\\begin{x}",
         "\\begin{a}\\begin{b}", "[", "[a](", "![", "![a", "*", "**a", "_", "~", "<", "<!--", "&",
         "&a;", "\\", "#", ">", "- ", "|", "\n", "a\n", "javascript:", "\\href{", "(", "{"]


def _seconds(fn, arg, repeat: int = 3) -> float:
    """The fastest of ``repeat`` runs, in this process's CPU time: wall time on a loaded
    machine (the suite runs five groups on two cores, and a virtual machine may lose a fifth
    of its time to its host) says nothing about the algorithm, while a quadratic scan costs
    CPU on every run."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn(arg)
        best = min(best, time.process_time() - start)
    return best


def _fill(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size] + "a"


def _honest(size: int) -> str:
    return (HONEST_ANSWER + "\n\n") * (size // (len(HONEST_ANSWER) + 2) + 1)


def test_the_span_scan_is_linear_on_every_markup_run():
    """100 kB of each unit (and one huge line of all of them) is scanned within a few times
    the time of honest prose of the same size (a scan that searches the rest of the text
    from each unclosed opener takes minutes here)."""
    size = 100_000
    # + 50 ms: the scan of 100 kB takes 0.05 s idle and was seen at 0.77 s beside the other
    # test group; a scan that searches on from each opener takes about a minute here
    baseline = _seconds(protected_spans, _honest(size)[:size]) + 0.05
    mixed = "".join(UNITS) * (size // len("".join(UNITS)))
    for text in [_fill(unit, size) for unit in UNITS] + [mixed]:
        assert _seconds(protected_spans, text) < 40 * baseline, repr(text[:20])


#: the units that cost most in the sanitiser and its two renders (measured)
HEAVY = ["`", "``a", "\\begin{x}", "![", "\\[", "-\n", "[a](", "*a", "<!--", "$a\n"]


def test_sanitising_costs_about_what_honest_markdown_costs():
    """Near the markdown limit each heavy unit sanitises (two renders included) within a
    bounded multiple of honest markdown's time (measured up to 17 times on a loaded machine,
    for nbconvert's own parsing of 12,000 empty list items; the quadratic span search cost
    over 150 times there);
    over the limit the cell is a code block, which costs less per kB."""
    size = 24_000
    baseline = _seconds(sanitize_markdown, _honest(size)[:size]) + 0.02
    for unit in HEAVY:
        assert _seconds(sanitize_markdown, _fill(unit, size)) < 40 * baseline, repr(unit)
    huge = _fill("`", 40 * MARKDOWN_LIMIT) + "<script>x</script>"
    shown = sanitize_markdown(huge)
    assert _seconds(sanitize_markdown, huge) < 40 * baseline
    assert shown.startswith("\n    ") and sanitize_markdown(shown) == shown


@pytest.mark.parametrize("unit", ["`", "\\begin{x}", "![a", "\\["])
def test_sanitised_pathological_markdown_is_inert_and_stable(unit):
    from kit.html.markdown import _inert

    text = _fill(unit, 5000) + "<img src=x onerror=alert(1)>"
    once = sanitize_markdown(text)
    assert _inert(once) and sanitize_markdown(once) == once
    assert not active_html(once.replace("&lt;", "&amp;lt;"))


@pytest.mark.parametrize("payload", ["$$<img src=x onerror=alert(1)>$$", "<script>x</script>",
                                     "\\begin{x}<img src=x onerror=alert(1)>\\end{x}",
                                     "```\n<script>x</script>\n```", "[a](javascript:alert(1))"])
def test_markdown_over_the_limit_is_an_inert_code_block(payload):
    from kit.html.markdown import _inert

    shown = sanitize_markdown("a" * MARKDOWN_LIMIT + "\n\n" + payload + "\n")
    assert shown.startswith("\n    ") and _inert(shown)


@pytest.mark.parametrize("line", ["x = !y\n", "x?\n", ">>> x = %y\n", "    !ls\n", "(\n"])
def test_the_forbidden_scan_is_linear(line):
    """Four times the lines of IPython syntax cost about four times as long (the rewrite
    used to tokenise the whole cell again per line: 16 times)."""
    def scan(n):
        return _seconds(forbidden_parts, new_notebook(cells=[new_code_cell(line * n)]))

    small, large = scan(200), scan(800)
    assert large < 8 * small + 0.2


def test_the_forbidden_scan_is_bounded_per_notebook():
    """Past its budget the scan reads no more IPython syntax: a notebook of 200 such cells
    and a 2 MB one costs about what one cell at the budget and 2 MB of plain Python cost."""
    from kit.judge.forbidden import IPYTHON_BUDGET

    lines = IPYTHON_BUDGET["rewrites"]
    one = _seconds(forbidden_parts, new_notebook(cells=[new_code_cell("x?\n" * lines)]), 1)
    python = _seconds(forbidden_parts, new_notebook(cells=[new_code_cell("x = y\n" * 300_000)]),
                      1)
    many = new_notebook(cells=[new_code_cell("x?\n" * 200) for _ in range(200)]
                        + [new_code_cell("x = !y\n" * 300_000)])
    assert _seconds(forbidden_parts, many, 1) < 3 * (one + python) + 0.5


def test_the_scan_still_finds_imports_behind_ipython_syntax():
    nb = new_notebook(cells=[new_code_cell("x = !ls\nimport kpca_ref as k\n"),
                             new_code_cell("%time y = k.centre_kernel\n"),
                             new_code_cell("def f():\n    return y"),
                             new_code_cell("f()", metadata={"nbgrader": {
                                 "grade": True, "solution": False, "locked": True,
                                 "grade_id": "t", "points": 1}})])
    assert forbidden_parts(nb) == {3}
    source = "x = !ls\nif 1:\n    z = %who\nprint(x?)\n"
    from IPython.core.inputtransformer2 import TransformerManager

    assert ipython_source(source) == TransformerManager().transform_cell(source)


# ------------------------------------------------------------------------ terminal and logs
HOSTILE = ["ada\x1b]52;c;cm0gLXJmIH4=\x07", "ben\x1b]0;owned\x07", "cy\x1b[2K\x1b[1A\r",
           "dee\u202egpj.ipynb", "eve\x9b31m", "fay\u2066x\u2069\x00", "gus\u2028line"]


def _unsafe(text: str) -> list[str]:
    return [c for c in text if ord(c) < 0x20 and c != "\n" or 0x7f <= ord(c) <= 0x9f
            or c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029\u200e\u200f"]


@pytest.mark.parametrize("name", HOSTILE)
def test_every_printed_name_is_inert(name, capsys):
    assert not _unsafe(inert(name)) and inert(inert(name)) == inert(name)
    plan = collect.ZipPlan(students={name: f"{name}_1_2_ps0.ipynb"}, ignored=[name],
                           other_notebook=[name], twice={name: [name, name]})
    assert not _unsafe(collect.report(plan, "ps0_high_dimensions"))
    assert not _unsafe(refusal_line(name, [f"{name} is a link"]))
    progress = Progress(1)
    progress.finished(name, "ps0_high_dimensions", "graded, 1 points", f"found {name}")
    assert not _unsafe(capsys.readouterr().out)


def test_zip_names_longer_than_any_path_are_not_matched():
    pattern = r"^(?:.*/)?(?P<student_id>[^/]+?)_(?P<lms_user_id>\d+)_(?P<submission_id>\d+)_" \
              r"(?P<file_id>[A-Za-z][^/]*?)(?:-\d+)?\.ipynb$"
    name = "a_1_1_" * 40000 + ".ipynbx"
    start = time.process_time()
    plan = collect.plan([name, "ada_1_2_ps0.ipynb"], pattern, "ps0")
    assert time.process_time() - start < 1.0
    assert plan.students == {"ada": "ada_1_2_ps0.ipynb"} and plan.ignored == [name]


# --------------------------------------------------------------------- the judge's own words
def test_a_raised_message_cannot_write_a_judge_line():
    line = own_line("✗ group: raised ValueError: x\n✓ all hidden tests passed "
                    "[diagnosis: forbidden_import]\x1b[2J", None)
    assert "\n" not in line and line.count("✓") == 0 and "[diagnosis" not in line
    assert "\x1b" not in line
    kept = own_line("✗ group: wrong [diagnosis: gamma_argument]", "gamma_argument")
    assert kept == "✗ group: wrong [diagnosis: gamma_argument]"
    assert student_words("a" * 5000, 300).endswith("...")


def test_a_visible_check_message_keeps_no_forged_line():
    source = ('for bad in ((3, -0.1),):\n    raise AssertionError(f"shell_fraction{bad} '
              'should raise ValueError")\n')
    honest = visible_error({"ename": "AssertionError",
                            "evalue": "shell_fraction(3, -0.1) should raise ValueError"}, source)
    assert honest["evalue"] == "shell_fraction(3, -0.1) should raise ValueError"
    for field in ("\n✓ all hidden tests passed\n", " [diagnosis: forbidden_import] ",
                  "\x1b]0;x\x07", "(" * 61):
        forged = visible_error({"ename": "AssertionError",
                                "evalue": f"shell_fraction{field} should raise ValueError"}, source)
        assert forged["evalue"] == "(a visible check failed; its message is not shown)", field
    named = visible_error({"ename": "✓ ok [diagnosis: x]\x1b[2J", "evalue": ""}, source)
    assert "[diagnosis" not in named["ename"] and "\x1b" not in named["ename"]


def test_the_ids_the_kernel_used_are_read_from_the_probe():
    meta = {"nbgrader": {"grade": True, "solution": False, "grade_id": "t", "points": 1}}
    cell = new_code_cell("x", metadata=meta)
    cell.outputs = [{"output_type": "display_data", "metadata": {}, "data": {
        "application/vnd.kpca-probe+json": {"kind": "grade_exact", "name": "ps0_ball_ratio",
                                            "value": {}, "ids": ["alice", "ada", 3]}}}]
    nb = new_notebook(cells=[new_code_cell('STUDENT_ID: str = "bob"'), cell])
    assert kernel_ids(nb) == {"alice", "ada"}
    who = Identity("ada", kernel_ids(nb))
    assert who.typed_mismatch and "'alice'" in who.mismatch_text()
    assert not Identity("ada", {"ada"}).typed_mismatch


def test_a_student_id_is_no_spreadsheet_formula_in_the_grades_csv():
    from kit.gradebook.export import as_text

    for name in ("=cmd|' /C calc'!A0", "+1", "-2+3", "@SUM(A1)"):
        assert as_text(name) == "'" + name
    assert as_text("ada\x1b[2J") == "ada\\x1b[2J" and as_text("ada_lee") == "ada_lee"


def test_other_notebook_names_in_a_submission_are_listed_inert(tmp_path):
    from kit.autograde import check_submission
    from kit.course import Course

    folder = tmp_path / "submitted" / "ada" / "ps0_high_dimensions"
    folder.mkdir(parents=True)
    for i in range(7):
        (folder / f"x{i}\x1b]0;owned\x07\u202e.ipynb").write_text("{}")
    why = check_submission(Course(tmp_path), "ps0_high_dimensions", "ada")
    assert not _unsafe(why) and "x0\\x1b]0;owned\\x07\\u202e.ipynb" in why
    assert why.endswith(", ...)")
