"""The pages' maths renders in chromium with the network off (kit/html/maths.py).

Every request but a ``file:`` or ``data:`` one is aborted and recorded. Opened: the feedback
page of ada's graded ps1 (the session's graded class, ``tests/support/graded_class.py``), a
worked solution's page (:func:`kit.solutions.build._page`, the one the solutions command
writes) of ps2 with a sympy output, and the class report of that class. On each, the
formulas of its source (found by nbconvert's own markdown parser, independent of the kit's
scanner) are counted against the ``<math>`` elements the browser laid out with a size, none
is left as TeX (no ``$...$``, no ``\\command`` in the text a reader sees) and nothing was
requested. Before the change each page loaded MathJax from a CDN: here every formula stayed
raw TeX.

A student's hostile TeX (MathJax's ``\\href``, ``\\unicode``, ``\\require``, ``\\class``,
``\\style``; a macro bomb; 12,000 nested braces, which end the converter's process without
the kit's bound; a 30 kB formula; 4,000 formulas in one answer; the same in a ``text/latex``
output) renders quickly, runs nothing, requests nothing, and leaves the page responsive.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_output

from kit.handback.feedback import feedback_page
from tests.support.graded_class import PS, graded_class

pytestmark = pytest.mark.filterwarnings("ignore:Your element with mimetype", "ignore:No lexer found")

#: what a reader must not see outside code: a formula in dollars, or a TeX command
RAW_TEX = re.compile(r"\$[^$\n]+\$|\\(?:frac|mathbf|phi|top|sum|begin|mathbb|tilde|sqrt)\b")
#: the text a reader sees, without code, preformatted output, maths and the page's style
VISIBLE_TEXT = """(root) => {
  const body = root.cloneNode(true);
  body.querySelectorAll('pre, code, math, style, script').forEach(e => e.remove());
  return body.innerText;
}"""
#: each <math> element: [MathML namespace, width, height, has a fraction taller than a letter]
MATH_BOXES = """() => [...document.querySelectorAll('math')].map(m => {
  const r = m.getBoundingClientRect();
  return [m.namespaceURI === 'http://www.w3.org/1998/Math/MathML', r.width, r.height];
})"""


def offline(page) -> list[str]:
    """Abort every request that is not a local file or inline data; return the list of them."""
    asked: list[str] = []

    def route(route_):
        url = route_.request.url
        if url.startswith(("file:", "data:", "about:")):
            route_.continue_()
        else:
            asked.append(url)
            route_.abort()

    page.route("**/*", route)
    return asked


def formulas_in_markdown(sources) -> int:
    """How many formulas nbconvert's markdown parser finds in ``sources``."""
    from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

    found = []

    class Count(IPythonRenderer):
        def inline_math(self, body):
            found.append(body)
            return ""

        def block_math(self, body):
            found.append(body)
            return ""

        def latex_environment(self, name, body):
            found.append(body)
            return ""

    for source in sources:
        MarkdownWithMath(renderer=Count(escape=False)).render(source)
    return len(found)


def assert_all_maths_rendered(page, expected: int, asked: list[str]) -> None:
    boxes = page.evaluate(MATH_BOXES)
    laid_out = [b for b in boxes if b[0] and b[1] > 0 and b[2] > 0]
    assert len(laid_out) == len(boxes) >= expected > 0, (len(laid_out), len(boxes), expected)
    assert page.locator("code.kpca-tex").count() == 0  # no formula fell back to its TeX
    raw = RAW_TEX.findall(page.locator("body").evaluate(VISIBLE_TEXT))
    assert raw == [], raw[:10]
    # a fraction is laid out as one: its two rows are taller than a letter
    frac, letter = page.evaluate("""() => {
        const h = s => [...document.querySelectorAll(s)].map(e => e.getBoundingClientRect().height);
        const letters = h('mi').sort((a, b) => a - b);
        return [Math.max(0, ...h('mfrac')), letters[Math.floor(letters.length / 2)] || 0] }""")
    assert frac > 1.5 * letter > 0, (frac, letter)
    assert asked == []
    assert page.locator("script").count() == 0


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    return graded_class(tmp_path_factory)


def test_a_feedback_page_renders_every_formula_offline(page, graded):
    course = graded.course
    asked = offline(page)
    nb = nbformat.read(course.notebook("autograded", PS, "ada"), as_version=4)
    in_markdown = formulas_in_markdown(c.source for c in nb.cells if c.cell_type == "markdown")
    started = time.monotonic()
    page.goto(feedback_page(course, PS, "ada").as_uri())
    page.wait_for_load_state("load")
    assert time.monotonic() - started < 10
    assert_all_maths_rendered(page, in_markdown, asked)
    # the labels' maths ("Part 5 — The lift $\phi$") too, in the list and the cells' headings
    assert page.locator("#toc math").count() >= 1
    assert page.locator("span.nbgrader-label math").count() >= 1


def test_a_worked_solution_renders_every_formula_offline(page, tmp_path):
    from kit.course import REPO_ROOT
    from kit.solutions.build import _page

    ps = "ps2_feature_maps"
    nb = nbformat.read(REPO_ROOT / "source" / ps / f"{ps}.ipynb", as_version=4)
    sympy_like = {"text/latex": r"$\displaystyle \frac{165}{4}$", "text/plain": "165/4"}
    nb.cells.append(new_code_cell("x", outputs=[new_output("execute_result", data=sympy_like,
                                                           execution_count=1)]))
    path = tmp_path / f"{ps}_solution.html"
    path.write_text(_page(nb, ps), encoding="utf-8")
    asked = offline(page)
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    in_markdown = formulas_in_markdown(c.source for c in nb.cells if c.cell_type == "markdown")
    assert_all_maths_rendered(page, in_markdown + 1, asked)
    assert page.locator(".jp-RenderedLatex math mfrac").count() == 1  # the sympy output


def test_the_class_report_renders_its_headings_maths_offline(page, graded):
    from kit.report.data import parts_of

    report = graded.course.root / "reports" / "class_report.html"
    with_tex = [p for p in parts_of(graded.course, PS) if "$" in p.heading]
    assert with_tex  # ps1's Part 5 (the lift $\phi$) and Part 6 ($\mathbf{u}$)
    asked = offline(page)
    page.goto(report.as_uri())
    page.wait_for_load_state("load")
    boxes = page.evaluate(MATH_BOXES)
    assert len(boxes) >= len(with_tex) and all(ok and w > 0 and h > 0 for ok, w, h in boxes)
    assert page.locator("table.parts math").count() == len(with_tex)
    assert RAW_TEX.findall(page.locator("body").evaluate(VISIBLE_TEXT)) == []  # nowhere
    assert asked == [] and page.locator("script").count() == 0


# -- a student's hostile TeX ----------------------------------------------------------------

JS = "window.__pwned='PWN';document.title='PWN';fetch('http://127.0.0.1:9/PWN')"
HOSTILE_TEX = [
    f"$\\href{{javascript:{JS}}}{{click me}}$",
    "$\\unicode{<img src=x onerror=alert(1)>}$ and $\\unicode{x41}$",
    "$\\require{action}\\toggle{a}{b}\\endtoggle$ and $\\require{http://127.0.0.1:9/x.js}$",
    "$\\class{navbar}{x}$ $\\cssId{top}{x}$ $\\html{data-x}{y}$",
    "$\\style{background:url(http://127.0.0.1:9/PWN)}{x}$ $\\bbox[url(http://127.0.0.1:9/b)]{x}$",
    "$\\color{red;background:url(http://127.0.0.1:9/c)}{x}$",
    "$\\text{<img src=x onerror=alert(2)>}$ $\\mathrm{<script>alert(3)</script>}$",
    "$\\newcommand{\\h}[1]{\\href{#1}{x}}\\h{javascript:alert(4)}$",
    # a macro bomb: each level doubles the last one
    "$" + "".join(f"\\newcommand{{\\m{chr(97 + i)}}}{{\\m{chr(98 + i)}\\m{chr(98 + i)}}}"
                  for i in range(20)) + "\\mu\\ma$",
]
DEEP = "$" + "{" * 12_000 + "x" + "}" * 12_000 + "$"  # the converter's stack: 10,000 crash it
LONG = "$" + "x+" * 15_000 + "x$"  # 30 kB in one formula
MANY = " ".join(["$x_1$"] * 4_000)  # 4,000 formulas in one answer


def hostile_notebook():
    from tests.support.nbgrading import read_source

    nb = read_source("ps0_high_dimensions")
    nb.cells += [new_markdown_cell("\n\n".join(HOSTILE_TEX)), new_markdown_cell(DEEP),
                 new_markdown_cell(LONG), new_markdown_cell(MANY)]
    latex = ["\n".join(HOSTILE_TEX), DEEP, "\\begin{align}" * 5_000, "$" * 60_000,
             "\\[" + "\\frac{" * 300 + "x" + "}{y}" * 300 + "\\]"]
    nb.cells.append(new_code_cell("show()", outputs=[
        new_output("display_data", data={"text/latex": text, "text/plain": "latex"})
        for text in latex]))
    return nb


def test_a_students_hostile_tex_runs_nothing_and_the_page_stays_responsive(page, tmp_path):
    from tests.html.hostile_feedback import NOTEBOOK_NAME, render_feedback

    started = time.monotonic()
    html = render_feedback(hostile_notebook())
    rendered = time.monotonic() - started
    assert rendered < 30, rendered  # the whole page, steps and all (about 8 s of it is ps0)
    path = tmp_path / "hostile.html"
    path.write_text(html, encoding="utf-8")
    asked = offline(page)
    started = time.monotonic()
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    page.wait_for_timeout(500)
    assert time.monotonic() - started < 15
    started = time.monotonic()
    assert page.evaluate("document.body.getBoundingClientRect().height") > 0  # laid out
    assert page.evaluate("1 + 1") == 2 and time.monotonic() - started < 5  # responsive
    log = page.kpca_log
    assert log.dialogs == [] and page.evaluate("window.__pwned") is None
    assert page.title() == NOTEBOOK_NAME and asked == []  # the title is the escaped name
    link = page.locator("a", has_text="click me")
    assert link.count() == 0  # \href made no link
    assert page.locator("math [href], math [style*=url], math [id], math a").count() == 0
    # what could not be typeset is shown as the TeX the student typed, as text
    shown = page.locator("code.kpca-tex").all_inner_texts()
    assert any("{{{{" in t for t in shown) and any("x+x+x+" in t for t in shown)
    assert page.locator("math").count() > 4_000  # the honest formulas still render
    assert page.evaluate("window.__pwned") is None and log.dialogs == [] and asked == []


def test_the_pages_load_no_mathjax_and_no_script():
    """The templates themselves: no MathJax, no script tag, a policy that runs none."""
    from kit.course import REPO_ROOT

    for name in ("feedback", "kpca_solution"):
        text = (REPO_ROOT / "kit" / "templates" / name / "index.html.j2").read_text()
        body = re.sub(r"\{#.*?#\}", "", text, flags=re.DOTALL)
        assert "mathjax(" not in body and "<script" not in body, name
        assert "Content-Security-Policy" in body and "default-src 'none'" in body, name
    assert Path(REPO_ROOT / "kit" / "html" / "maths.py").is_file()
