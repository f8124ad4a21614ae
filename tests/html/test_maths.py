"""TeX to MathML at export (kit/html/maths.py): every formula of the notebooks converts, a
student's TeX becomes nothing but checked MathML or text, and nothing makes it slow or ends
the process.

The pages themselves, opened in chromium with the network off: tests/browser/test_maths_offline.py.
"""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from kit.course import ASSIGNMENTS, REPO_ROOT
from kit.html.maths import (
    MAX_DEPTH,
    MAX_TEX,
    inert_mathml,
    latex_output,
    maths_text,
    nesting,
    tex_to_mathml,
)
from tests.support.nbgrading import read_source

FALLBACK = '<code class="kpca-tex"'


def notebook_formulas():
    """Every formula of every problem set's markdown, as nbconvert's parser finds it."""
    from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

    found = []

    class Collect(IPythonRenderer):
        def inline_math(self, body):
            found.append((body, False))
            return ""

        def block_math(self, body):
            found.append((body, True))
            return ""

        def latex_environment(self, name, body):
            found.append((f"\\begin{{{name}}}{body}\\end{{{name}}}", True))
            return ""

    for ps in ASSIGNMENTS:
        for cell in read_source(ps).cells:
            if cell.cell_type == "markdown":
                MarkdownWithMath(renderer=Collect(escape=False)).render(cell.source)
    return found


def test_every_formula_of_the_notebooks_converts():
    """\\mathbf, \\top, \\phi, sums, fractions, matrices, \\mathbb, \\binom, \\operatorname,
    \\underbrace ... (about 1,600 formulas): none falls back to its TeX."""
    found = notebook_formulas()
    assert len(found) > 1000
    failed = [tex for tex, display in found if tex_to_mathml(tex, display).startswith(FALLBACK)]
    assert failed == []
    assert max(len(t) for t, _ in found) < MAX_TEX / 4
    assert max(nesting(t) for t, _ in found) < MAX_DEPTH / 4


@pytest.mark.parametrize("tex", [
    r"\mathcal{H}", r"\begin{align} a &= b \\ c &= d \end{align}",
    r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}", r"\sum_{i=1}^n \frac{a_i}{b}",
    r"\mathbf{x}^\top \phi(\mathbf{x})", r"\tilde K = HKH",
])
def test_the_tex_the_course_writes_is_mathml(tex):
    markup = tex_to_mathml(tex, display=True)
    assert markup.startswith('<math display="block">') and inert_mathml(markup)


@pytest.mark.parametrize("tex", [
    r"\href{javascript:alert(1)}{x}", r"\url{javascript:alert(1)}", r"\unicode{x41}",
    r"\require{action}", r"\class{navbar}{x}", r"\cssId{top}{x}",
    r"\style{background:url(http://127.0.0.1:9/x)}{x}", r"\html{data-x}{y}",
    r"\bbox[url(http://127.0.0.1:9/x)]{x}", r"\color{red;background:url(http://127.0.0.1:9/c)}{x}",
    r"\newcommand{\h}[1]{\href{#1}{x}}\h{javascript:alert(1)}", r"\label{top}x",
    r"\eqref{javascript:alert(1)}",  # math-core writes it as an HTML link
])
def test_macros_that_make_links_styles_or_ids_are_never_converted(tex):
    """MathJax's active macros, even reached through \\newcommand: shown as the TeX typed."""
    out = tex_to_mathml(tex, source=f"${tex}$")
    assert out.startswith(FALLBACK) and "<math" not in out
    assert "<" not in out[len(FALLBACK):].split(">", 1)[1].rsplit("</code>", 1)[0]


@pytest.mark.parametrize("markup", [
    '<math><mi href="javascript:alert(1)">x</mi></math>',
    '<math><mi xlink:href="javascript:alert(1)">x</mi></math>',
    '<math><maction actiontype="statusline">x</maction></math>',
    '<math><mi onclick="alert(1)">x</mi></math>', '<math><mi id="top">x</mi></math>',
    '<math><mrow style="background:url(http://127.0.0.1:9/x)"><mi>x</mi></mrow></math>',
    '<math><mrow style="color:red\\;x"><mi>x</mi></mrow></math>',
    '<math><mtext><img src=x onerror=alert(1)></mtext></math>', "<math><!-- x --></math>",
    '<math><annotation-xml encoding="text/html"><script>alert(1)</script></annotation-xml></math>',
    "<svg></svg>",
])
def test_the_check_refuses_any_mathml_that_could_act(markup):
    assert not inert_mathml(markup)


def test_nested_tex_is_bounded_and_never_ends_the_process():
    """The converter recurses on nesting: about 10,000 nested braces overflow its stack and
    end the process (a segmentation fault, no exception). In a child process: the bound
    shows them as text, and the child lives."""
    code = ("from kit.html.maths import tex_to_mathml\n"
            "for n in (40, 12000, 50000):\n"
            "    print(tex_to_mathml('{' * n + 'x' + '}' * n)[:30])\n"
            "print(tex_to_mathml('\\\\sqrt' * 390 + ' x')[:30])\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-500:]
    lines = done.stdout.splitlines()
    assert len(lines) == 4 and all(line.startswith(FALLBACK[:20]) for line in lines[:3])
    assert lines[3].startswith("<math")  # 390 square roots in 2,000 characters: drawn


@pytest.mark.parametrize("text", [
    "\\begin{align}" * 4_000, "$$x" * 20_000, "\\($" * 20_000, "\\[ " * 20_000,
    "$\\begin{a}\\(\\[" * 4_000, "$" * 60_000, "\\$" * 30_000,
])
def test_a_latex_output_is_read_in_one_pass(text):
    """Openers that nothing closes cost no rescan (a regex with lazy bodies took 15 to 35 s
    on 64 kB of these)."""
    started = time.perf_counter()
    out = latex_output(text)
    assert time.perf_counter() - started < 3
    assert "<script" not in out and "<img" not in out


def test_a_latex_output_keeps_its_text_and_draws_its_maths():
    out = latex_output(r"costs \$5 <b>, $\frac{1}{2}$ and \[x\] \(y\) \begin{align}z\end{align}")
    assert out.startswith("costs $5 &lt;b&gt;, <math><mfrac>")
    assert out.count("<math") == 4 and out.count('display="block"') == 2
    assert latex_output("x" * 70_000).startswith(FALLBACK)


def test_a_label_is_escaped_text_with_its_maths_drawn():
    label = maths_text(r"Part 5 — The lift $\phi$ <img src=x onerror=f()> \$3")
    assert label.startswith("Part 5 — The lift <math><mi>ϕ</mi></math> &lt;img src=x")
    assert label.endswith("$3")
    assert maths_text(r"$\href{javascript:f()}{x}$").startswith(FALLBACK)
