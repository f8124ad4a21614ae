"""TeX drawn as MathML when a page is written: maths reads the same offline, with no script.

The feedback pages, the worked solutions and the class report used to load MathJax from a
CDN, so a page opened offline (or on a campus network that blocks the CDN) showed raw TeX.
Here each formula is converted once, at export, by ``math-core`` (a compiled LaTeX to
MathML Core converter, PyPI ``math-core``), and the browser draws the ``<math>`` itself
(Chromium, Firefox and Safari all do). The page needs no script and no other file, so it
still works as the single file nbgrader's ``release_feedback`` copies into the exchange.

A student writes some of this TeX (a written answer's ``$...$``, a ``text/latex`` output), so
the conversion is bounded and its result checked:

- a formula over :data:`MAX_TEX` characters or nesting groups (``{``, ``\\left``,
  ``\\begin``) deeper than :data:`MAX_DEPTH` is not converted (the converter recurses on
  nesting; about 10,000 nested braces overflow its stack and end the process);
- ``math-core`` knows no ``\\href``, ``\\url``, ``\\unicode``, ``\\require``, ``\\class``,
  ``\\style`` or ``\\html`` (it refuses them), caps macro expansion (``\\newcommand``
  bombs), and the course's sanitiser has shown the first of those as text already;
- its output is read back (:func:`mathml_problems`): only MathML presentation elements
  (and ``code``, ``b``, ``i``, ``em``, ``span`` for ``\\texttt`` and its kin), only layout
  attributes, a ``style`` only of ``property: plain value`` pairs (no ``url(``,
  no quotes, no backslash); anything else (a link, an id, an event handler) is refused;
- what is not converted is shown as the TeX it is, escaped, in ``<code class="kpca-tex">``.

:func:`tex_to_mathml` converts one formula, :func:`maths_text` a line of text with inline
``$...$`` (labels, headings), :func:`latex_output` a ``text/latex`` output, and
:class:`MathMLRenderer` is nbconvert's markdown renderer drawing its maths this way.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache

from nbconvert.filters.markdown_mistune import IPythonRenderer

__all__ = ["MAX_DEPTH", "MAX_TEX", "MathMLRenderer", "latex_output", "maths_text", "tex_to_mathml"]

#: the longest formula converted (characters): the notebooks' longest is about 220
MAX_TEX = 2_000
#: the deepest nesting of groups converted: the notebooks' deepest is 3
MAX_DEPTH = 32
#: a ``text/latex`` output longer than this is shown as text, not searched for maths
MAX_LATEX_OUTPUT = 64_000

MATHML_TAGS = frozenset([
    "math", "mi", "mn", "mo", "ms", "mtext", "mspace", "mrow", "mfrac", "msqrt", "mroot",
    "mstyle", "merror", "mpadded", "mphantom", "msub", "msup", "msubsup", "munder", "mover",
    "munderover", "mmultiscripts", "mprescripts", "none", "mtable", "mtr", "mtd", "menclose",
    # inside <mtext>: \texttt, \textbf, \textit, \emph, \textsf (never a link: \eqref's <a> is refused)
    "code", "b", "i", "em", "span",
])
MATHML_ATTRIBUTES = frozenset([
    "display", "displaystyle", "scriptlevel", "mathvariant", "stretchy", "form", "lspace",
    "rspace", "minsize", "maxsize", "symmetric", "largeop", "movablelimits", "accent",
    "accentunder", "linethickness", "width", "height", "depth", "voffset", "columnspan",
    "rowspan", "columnalign", "rowalign", "style", "notation", "class",
])
#: the classes math-core sets (fonts of \textsf and \textrm, \cancel's strike)
_CLASS = re.compile(r"(?:math-core|menclose)-[a-z\-]{1,40}")
_ATTRIBUTE_VALUE = re.compile(r"[A-Za-z0-9 .%#+\-]*")
_STYLE = re.compile(r"(?:\s*[a-z\-]+\s*:\s*[A-Za-z0-9 .%#\-]*;?)*\s*")
_GROUP = re.compile(r"\\left(?![A-Za-z])|\\right(?![A-Za-z])|\\begin\s*\{|\\end\s*\{|(?<!\\)[{}]")
#: what opens or closes maths in a ``text/latex`` output or a heading (and what does neither:
#: an escaped backslash or dollar)
_TOKEN = re.compile(r"\\\\|\\\$|\$\$|\$|\\[\[\]()]|\\(begin|end)\{([A-Za-z]{1,32}\*?)\}")
_CLOSER = {"$$": "$$", "$": "$", "\\[": "\\]", "\\(": "\\)"}
_DISPLAY = ("$$", "\\[")

_converter = None


def _convert(tex: str, display: bool) -> str:
    global _converter
    if _converter is None:
        from math_core import LatexToMathML

        _converter = LatexToMathML(fancy_error=False)
    return _converter.convert_with_local_state(tex, displaystyle=display)


def nesting(tex: str) -> int:
    """The deepest nesting of ``{``, ``\\left`` and ``\\begin`` groups in ``tex`` (linear)."""
    depth = deepest = 0
    for m in _GROUP.finditer(tex):
        if m.group() in ("{", "\\left") or m.group().startswith("\\begin"):
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth = max(depth - 1, 0)
    return deepest


#: one tag of the converter's output, as it writes them: lower-case names, double-quoted values
_TAG = re.compile(r'<(/?)([a-z][a-z0-9\-]*)((?:\s+[a-z][a-z\-:]*="[^"<>&]*")*)\s*(/?)>')
_ATTRIBUTE = re.compile(r'\s+([a-z][a-z\-:]*)="([^"<>&]*)"')


def mathml_problems(markup: str) -> list[str]:
    """Every tag, attribute or stray ``<``/``>`` of ``markup`` that the allow-list refuses.

    The markup is read as the converter writes it (``<name attr="value">``, text without
    ``<`` or ``>``); anything else, a comment or a declaration among them, is a problem.
    """
    problems, pos = [], 0
    for m in _TAG.finditer(markup):
        if "<" in markup[pos:m.start()] or ">" in markup[pos:m.start()]:
            problems.append(f"markup outside a tag at {pos}")
        pos = m.end()
        tag = m.group(2)
        if tag not in MATHML_TAGS:
            problems.append(f"<{tag}>")
        for name, value in _ATTRIBUTE.findall(m.group(3)):
            if name not in MATHML_ATTRIBUTES:
                problems.append(f"<{tag} {name}=...>")
            elif not {"style": _STYLE, "class": _CLASS}.get(name, _ATTRIBUTE_VALUE).fullmatch(value):
                problems.append(f"<{tag} {name}={value!r}>")
    if "<" in markup[pos:] or ">" in markup[pos:]:
        problems.append(f"markup outside a tag at {pos}")
    return problems


def inert_mathml(markup: str) -> bool:
    """Whether ``markup`` is made only of allowed MathML elements and attributes.

    Examples
    --------
    >>> inert_mathml('<math><mi>x</mi></math>'), inert_mathml('<math href="javascript:f()"/>')
    (True, False)
    """
    return (markup.startswith("<math") and markup.endswith("</math>")
            and not mathml_problems(markup))


def _as_text(source: str) -> str:
    return f'<code class="kpca-tex" title="TeX not typeset">{html.escape(source)}</code>'


@lru_cache(maxsize=4096)
def _checked(tex: str, display: bool) -> str | None:
    """The checked MathML of one formula, or None (a page's repeated formulas convert once)."""
    if len(tex) > MAX_TEX or nesting(tex) > MAX_DEPTH:
        return None
    try:
        markup = _convert(tex.replace("\u200b", ""), display)
    except Exception:  # noqa: BLE001  (LatexError, or anything the converter raises: shown as text)
        return None
    return markup if inert_mathml(markup) else None


def tex_to_mathml(tex: str, display: bool = False, source: str | None = None) -> str:
    r"""``tex`` as one ``<math>`` element, or, when it cannot be, ``source`` (default ``tex``)
    shown as escaped text in ``<code class="kpca-tex">``.

    Parameters
    ----------
    tex : str
        One formula, without its delimiters.
    display : bool
        Display (block) maths rather than inline.
    source : str, optional
        What to show when the formula is not converted (the formula with its delimiters).

    Examples
    --------
    >>> tex_to_mathml(r"\frac{1}{2}")
    '<math><mfrac><mn>1</mn><mn>2</mn></mfrac></math>'
    >>> tex_to_mathml(r"\href{javascript:alert(1)}{x}", source="$...$")
    '<code class="kpca-tex" title="TeX not typeset">$...$</code>'
    """
    markup = _checked(tex, bool(display))
    return _as_text(tex if source is None else source) if markup is None else markup


def _spans(text: str):
    """The maths of ``text``: ``(start, end, tex, display)`` in order, found in one pass.

    An opener (``$$``, ``$``, ``\\[``, ``\\(``, ``\\begin{env}``) closes at the next closer of
    its kind, looked up in a sorted list (so an opener nothing closes costs no rescan of the
    rest: the time is ``n log n`` in the length, whatever the text); ``\\$`` is a dollar."""
    from bisect import bisect_left

    tokens = [t for t in _TOKEN.finditer(text) if t.group() not in ("\\\\", "\\$")]
    starts = [t.start() for t in tokens]
    where: dict[str, list[int]] = {}
    for i, t in enumerate(tokens):
        key = "\\end" + t.group(2) if t.group(1) == "end" else t.group()
        where.setdefault(key, []).append(i)
    found, i = [], 0
    while i < len(tokens):
        t = tokens[i]
        closer = "\\end" + t.group(2) if t.group(1) == "begin" else _CLOSER.get(t.group())
        later = where.get(closer, [])
        j = later[bisect_left(later, i + 1)] if closer and bisect_left(later, i + 1) < len(later) else None
        if j is None or t.group(1) is None and tokens[j].start() == t.end():
            i += 1  # nothing closes it (or it is empty): text
            continue
        end = tokens[j].end()
        if t.group(1) == "begin":
            found.append((t.start(), end, text[t.start():end], True))
        else:
            found.append((t.start(), end, text[t.end():tokens[j].start()], t.group() in _DISPLAY))
        i = bisect_left(starts, end)
    return found


def _plain(text: str) -> str:
    return html.escape(text.replace("\\$", "$"))


def _render(text: str, inline_only: bool) -> str:
    out, pos = [], 0
    for start, end, tex, display in _spans(text):
        out += [_plain(text[pos:start]),
                tex_to_mathml(tex, display=display and not inline_only, source=text[start:end])]
        pos = end
    out.append(_plain(text[pos:]))
    return "".join(out)


def maths_text(text) -> str:
    r"""``text`` escaped, with its maths drawn inline as MathML (a heading, a label).

    Examples
    --------
    >>> maths_text(r"Part 5 <b> $\phi$")
    'Part 5 &lt;b&gt; <math><mi>ϕ</mi></math>'
    """
    return _render(str(text), inline_only=True)


def latex_output(text) -> str:
    r"""A ``text/latex`` output as HTML: its ``$$..$$``, ``\[..\]``, ``$..$``, ``\(..\)`` and
    ``\begin{env}..\end{env}`` drawn as MathML, the rest escaped (as MathJax read it).

    Examples
    --------
    >>> latex_output(r"$\displaystyle 3$")
    '<math><mrow displaystyle="true" scriptlevel="0"><mn>3</mn></mrow></math>'
    """
    text = "".join(text) if isinstance(text, list) else str(text)
    if len(text) > MAX_LATEX_OUTPUT:
        return _as_text(text)
    return _render(text, inline_only=False)


class MathMLRenderer(IPythonRenderer):
    """nbconvert's markdown renderer (``IPythonRenderer``) with its maths drawn as MathML
    by :func:`tex_to_mathml` instead of left as TeX for MathJax."""

    def inline_math(self, body: str) -> str:
        return tex_to_mathml(body, source=f"${body}$")

    def block_math(self, body: str) -> str:
        return tex_to_mathml(body, display=True, source=f"$${body}$$")

    def latex_environment(self, name: str, body: str) -> str:
        tex = f"\\begin{{{name}}}{body}\\end{{{name}}}"
        return tex_to_mathml(tex, display=True)

    def multiline_math(self, text: str) -> str:
        return text
