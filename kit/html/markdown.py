"""Markdown a student wrote, made inert for every HTML view of a graded notebook.

Formgrader and the feedback page render markdown with nbconvert (mistune), which passes raw
HTML through and keeps ``javascript:`` links; MathJax then typesets the page and would follow
``\\href{javascript:...}``. :func:`sanitize_markdown` rewrites a markdown source so that none
of that can happen, while the text and the maths of a written answer still read the same:

- outside code and maths, ``<`` becomes ``&lt;`` (raw HTML shows as the text the student
  typed), and an image ``![..](..)`` becomes a link to its address (nothing is fetched; an
  ``attachment:`` image stays);
- everywhere but code, ``&`` that starts an entity other than ``&lt;``/``&gt;`` gets a
  zero-width space after it, so it shows as typed and no entity (even decoded twice, as
  mistune does in link addresses) can spell a scheme such as ``javascript:``;
- inside maths, ``<`` becomes ``\\lt `` (MathJax draws the same sign);
- the schemes ``javascript``/``vbscript``/``livescript``/``data`` get a zero-width space
  before their colon, so a link or image with them is a harmless relative address;
- the MathJax macros that make links, load extensions or set styles and ids (``\\href``,
  ``\\url``, ``\\require``, ``\\class``, ``\\cssId``, ``\\style``, ``\\html``,
  ``\\bbox``) are shown as text.

- inside code spans and fenced code, a ``<`` that could open a tag, a comment or a
  declaration (``<`` before a letter, ``!``, ``/`` or ``?``) gets a zero-width space after
  it: the code reads the same, and the source holds no tag opener anywhere, so text taken
  from it without a markdown renderer (a heading made a label, a title) is inert too.

If rendering the result with nbconvert still yields active HTML (a parser reading the
markdown differently than this module), every ``<`` of code is escaped as in text; if even
that is not inert, the cell is shown as a code block. :func:`active_html` is that check; the
tests use it too.

Every step is linear in the source's length: code and maths are found by
:func:`kit.html.markdown_spans.protected_spans`, images by a search that never reads a line
twice, a ``\\begin{env}`` that nothing closes is broken with a zero-width space (nbconvert's
maths pattern would search the rest of the text from it), and a source over
:data:`MARKDOWN_LIMIT` is shown as a code block without being parsed as markdown.
"""

from __future__ import annotations

import functools
import re
from html.parser import HTMLParser

from kit.html.markdown_spans import Finder, protected_spans

# What nbconvert's markdown renderer itself emits, and the attributes it sets.
SAFE_TAGS = frozenset([
    "a", "abbr", "b", "blockquote", "br", "caption", "code", "dd", "del", "div", "dl", "dt",
    "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "ins", "kbd", "li", "mark",
    "ol", "p", "pre", "q", "s", "samp", "small", "span", "strike", "strong", "sub", "sup",
    "table", "tbody", "td", "tfoot", "th", "thead", "tr", "tt", "u", "ul", "var", "wbr",
    "details", "summary", "figure", "figcaption", "cite", "dfn", "time",
])
SAFE_ATTRIBUTES = frozenset([
    "href", "src", "alt", "title", "id", "class", "align", "start", "colspan", "rowspan",
    "rel", "width", "height", "lang", "dir", "cite", "datetime", "open", "scope", "abbr",
])
SAFE_SCHEMES = ("http", "https", "mailto")
SAFE_IMAGE_DATA = re.compile(r"^data:image/(png|jpeg|gif);base64,[A-Za-z0-9+/=\s]*$",
                             re.IGNORECASE)

_SCHEME = re.compile(r"^([a-z][a-z0-9+.\-]*):", re.IGNORECASE)
_CONTROL = re.compile(r"[\x00-\x20\x7f-\x9f\u200b\ufeff]+")
_DANGEROUS_SCHEME = re.compile(r"(?i)(javascript|vbscript|livescript|data)(\s*\\?):")
_MATHJAX_ACTIVE = re.compile(r"\\(href|url|require|class|cssId|style|html|bbox)(?![A-Za-z])")
_ENTITY = re.compile(r"&(?!(?:lt|gt);)(?=#|[A-Za-z][A-Za-z0-9]*;)")
_ANY_BEGIN = re.compile(r"\\begin\{([^{}\n]{0,64})\}")
_ANY_END = re.compile(r"\\end\{([^{}\n]{0,64})\}")
#: a markdown source longer than this (characters) is shown as a code block: an honest cell
#: is a few kB (the notebooks' longest is 5.5 kB), and a renderer's cost on crafted markup
#: grows faster than its length
MARKDOWN_LIMIT = 32_000
_IMAGE_OPEN = re.compile(r"(?<!\\)((?:\\\\)*)!\[")
_ATTACHMENT = re.compile(r"\]\(\s*attachment:")
#: a ``<`` that an HTML parser reads as the start of markup: a tag, end tag, comment,
#: declaration or processing instruction
TAG_OPENER = re.compile(r"<(?=[A-Za-z!/?])")


def sanitize_markdown(source: str) -> str:
    """Return ``source`` with raw HTML, script links and active MathJax macros made inert.

    Parameters
    ----------
    source : str
        Markdown as written in a notebook cell (or a ``text/markdown`` output).

    Returns
    -------
    str
        Markdown whose rendering by nbconvert contains no script, event handler, active tag
        or script link. Applying it twice gives the same result as applying it once.

    Examples
    --------
    >>> sanitize_markdown("Since $a<b$, <b>yes</b> & no")
    'Since $a\\\\lt b$, &lt;b>yes&lt;/b> & no'
    """
    if isinstance(source, str) and len(source) <= CACHED_LENGTH:
        return _sanitize_known(source)
    return _sanitize(source)


#: markdown sources up to this length (characters) are remembered with their result: the
#: lesson's cells are the same in every hand-in of a problem set, and sanitising them anew
#: cost a grading process about 0.1 CPU s a notebook (at most 1,024 kept: ~16 MB)
CACHED_LENGTH = 8_000


@functools.lru_cache(maxsize=1024)
def _sanitize_known(source: str) -> str:
    return _sanitize(source)


def _sanitize(source: str) -> str:
    source = neutralise_mathjax(source)
    source = _DANGEROUS_SCHEME.sub(lambda m: m.group(1) + "\u200b" + m.group(2) + ":", source)
    source = _unclosed_environments(source)
    if len(source) > MARKDOWN_LIMIT:  # checked too: rendering a code block is linear
        block = _code_block(break_tags(source))
        return block if _inert(block) else _code_block(source.replace("<", "&lt;"))
    for keep_code in (True, False):
        result = _escape(source, keep_code=keep_code)
        if _inert(result):
            return result
    # Last resort, never met by the payload catalogue: the whole cell as a code block.
    return _code_block(result)


def _code_block(text: str) -> str:
    if text.startswith("\n    ") and all(line.startswith("    ") for line in text.splitlines()[1:]):
        return text  # already one (sanitising twice changes nothing more)
    return "\n" + "\n".join("    " + line for line in text.splitlines()) + "\n"


def _unclosed_environments(text: str) -> str:
    """A zero-width space after the ``\\begin`` of every environment that no ``\\end``
    closes further on: nbconvert's maths pattern would search the rest of the text from each
    of them (time in the square of the length); MathJax draws none of them anyway."""
    last_end = {m.group(1): m.start() for m in _ANY_END.finditer(text)}
    return _ANY_BEGIN.sub(lambda m: m.group() if last_end.get(m.group(1), -1) > m.start()
                          else "\\begin\u200b{" + m.group(1) + "}", text)


def neutralise_mathjax(text: str) -> str:
    r"""Show MathJax's link, extension and style macros (``\href``, ...) as text.

    Examples
    --------
    >>> print(neutralise_mathjax(r"$\href{javascript:alert(1)}{x}$"))
    $\backslash\mathtt{href}{javascript:alert(1)}{x}$
    """
    return _MATHJAX_ACTIVE.sub(lambda m: r"\backslash\mathtt{" + m.group(1) + "}", text)


def _escape(source: str, keep_code: bool) -> str:
    out, pos = [], 0
    for kind, start, end in protected_spans(source):
        out.append(_escape_text(source[pos:start]))
        span = source[start:end]
        if kind == "math":
            out.append(_ENTITY.sub("&\u200b", span.replace("<", r"\lt ")))
        else:
            out.append(break_tags(span) if keep_code else _escape_text(span))
        pos = end
    out.append(_escape_text(source[pos:]))
    return "".join(out)


def break_tags(text: str) -> str:
    """``text`` with a zero-width space after every ``<`` that could open markup.

    Examples
    --------
    >>> break_tags("if a<b or n < 2: <img src=x>") == "if a<\u200bb or n < 2: <\u200bimg src=x>"
    True
    """
    return TAG_OPENER.sub("<\u200b", text)


def _escape_text(text: str) -> str:
    return _ENTITY.sub("&\u200b", _unimage(text)).replace("<", "&lt;")


def _unimage(text: str) -> str:
    """Every image ``![..](..)`` but an ``attachment:`` one becomes a link (``\\![``).

    Whether an image is an attachment is read at the first ``]`` after its ``![`` on the
    same line; that position is looked up once however many ``![`` lead to it."""
    out, pos, attached, finder = [], 0, {}, Finder(text)
    for m in _IMAGE_OPEN.finditer(text):
        close, newline = finder.find("]", m.end()), finder.find("\n", m.end())
        if close >= 0 and (newline < 0 or close < newline):
            if close not in attached:
                attached[close] = _ATTACHMENT.match(text, close) is not None
            if attached[close]:
                continue
        out += [text[pos:m.start()], m.group(1), "\\!["]
        pos = m.end()
    out.append(text[pos:])
    return "".join(out)


class _AnyAttachment(dict):
    """Every ``attachment:`` name resolves (to an empty PNG): the check needs no real ones."""

    def __contains__(self, name):
        return True

    def __getitem__(self, name):
        return {"image/png": ""}


def _inert(markdown: str) -> bool:
    """Whether nbconvert renders ``markdown`` (as formgrader and feedback do) to inert HTML."""
    from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

    try:
        renderer = IPythonRenderer(escape=False, attachments=_AnyAttachment())
        return not active_html(str(MarkdownWithMath(renderer=renderer).render(markdown)))
    except Exception:  # noqa: BLE001  (a source the renderer rejects is not known inert)
        return False


def safe_url(value: str, image: bool = False) -> bool:
    """Whether an ``href`` (or, with ``image``, an ``img`` ``src``) can run nothing.

    Relative addresses and http(s)/mailto are safe; an image may also be inline PNG, JPEG or
    GIF data. Browsers ignore control characters and spaces inside a scheme, so they are
    ignored here too.

    Examples
    --------
    >>> safe_url("https://example.org"), safe_url(" java\\tscript:alert(1)")
    (True, False)
    """
    squeezed = _CONTROL.sub("", value)
    scheme = _SCHEME.match(squeezed)
    if scheme is None:
        return True
    if image and SAFE_IMAGE_DATA.match(value.strip()):
        return True
    return scheme.group(1).lower() in SAFE_SCHEMES


class _ActiveFinder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag not in SAFE_TAGS:
            self.problems.append(f"<{tag}>")
        for name, value in attrs:
            if name not in SAFE_ATTRIBUTES:
                self.problems.append(f"<{tag} {name}=...>")
            elif (name == "href" and not safe_url(value or "")
                  or name == "src" and not SAFE_IMAGE_DATA.match((value or "").strip())):
                self.problems.append(f"<{tag} {name}={value!r}>")

    handle_startendtag = handle_starttag


def active_html(html: str) -> list[str]:
    """List what in ``html`` could run script or act on its own (empty: inert HTML).

    Every tag outside :data:`SAFE_TAGS`, attribute outside :data:`SAFE_ATTRIBUTES` (event
    handlers, ``style``, ``srcdoc``, ...), link that is not :func:`safe_url` and ``src``
    that is not inline PNG/JPEG/GIF data (the browser would fetch it) is one entry.

    Examples
    --------
    >>> active_html('<p><a href="javascript:alert(1)">x</a><img src=x onerror=alert(1)></p>')
    ["<a href='javascript:alert(1)'>", "<img src='x'>", '<img onerror=...>']
    """
    finder = _ActiveFinder()
    finder.feed(html)
    finder.close()
    return finder.problems
