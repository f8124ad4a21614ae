"""The feedback page's exporter: nbconvert's HTML, made accessible without parsing it again.

nbconvert's ``HTMLExporter`` renders the page, then parses all of it with BeautifulSoup
(``html.parser``) to give images without a description an ``alt`` text and to make each cell's
input and output focusable (``tabindex="0"``), and writes it out again. On a feedback page,
where every code token is a ``<span>``, that pass took about 60% of the page's CPU (about 1 s
per notebook on 2 cores: more than the student's own cells). :class:`FeedbackExporter` makes
the same three changes to the rendered text directly. It may: every tag it edits is written by
nbconvert's templates, and student content reaches the page only through
:class:`kit.html.sanitize.SanitizeStudentContent`, which leaves no ``class`` attribute and
escapes every other ``<``. ``nbgrader_config.py`` makes it ``GenerateFeedback``'s exporter;
formgrader's pages keep nbconvert's own.

Its maths is MathML, written here (:mod:`kit.html.maths`): markdown through
:class:`~kit.html.maths.MathMLRenderer`, and the templates' filters ``latex_output`` (a
``text/latex`` output) and ``maths_text`` (a label: escaped text, inline maths drawn), so the
page loads no MathJax and reads the same offline. The solutions' page uses it too.
"""

from __future__ import annotations

import re
from collections import OrderedDict

from jinja2 import BytecodeCache, pass_context
from nbconvert.exporters import HTMLExporter, TemplateExporter
from nbconvert.exporters.html import WidgetsDataTypeFilter
from nbconvert.filters.highlight import Highlight2HTML
from nbconvert.filters.markdown_mistune import MarkdownWithMath

from kit.html.maths import MathMLRenderer, latex_output, maths_text

#: characters (sources and pages together) the highlighted-code cache of a process may hold
HIGHLIGHT_CACHE_CHARS = 16_000_000
#: ``{(source, language, magics language, formatter options): html}``, least recently used first
_HIGHLIGHTED: OrderedDict = OrderedDict()
_HIGHLIGHTED_CHARS = [0]

NO_DESCRIPTION = "No description has been provided for this image"
_IMG = re.compile(r"<img\b([^>]*?)(\s*/?)>")
_HAS_ALT = re.compile(r"\salt\s*=", re.IGNORECASE)
_FOCUSABLE = re.compile(
    r'<div\b([^>]*\sclass="(?:[^"]*\s)?(?:jp-Cell-inputWrapper|jp-OutputArea-output)(?:\s[^"]*)?"'
    r'[^>]*?)(\s*/?)>')


def accessible(html: str) -> tuple[str, int]:
    """``html`` with the alt texts and focusable cells nbconvert adds; and how many images
    had no description."""
    missing = 0

    def describe(match: re.Match) -> str:
        nonlocal missing
        if _HAS_ALT.search(match.group(1)):
            return match.group(0)
        missing += 1
        return f'<img{match.group(1)} alt="{NO_DESCRIPTION}"{match.group(2)}>'

    def focus(match: re.Match) -> str:
        attrs = re.sub(r'\stabindex="[^"]*"', "", match.group(1))
        return f'<div{attrs} tabindex="0"{match.group(2)}>'

    html = _IMG.sub(describe, html)
    return _FOCUSABLE.sub(focus, html), missing


class CachedHighlight(Highlight2HTML):
    """nbconvert's code highlighting, each distinct cell highlighted once per process.

    A feedback page highlights every code cell with pygments, about half of the page's CPU;
    most cells are the problem set's own (its numbers cell alone is 13 to 68 kB), the same in
    every student's page. The result depends on the source, the language, the cell's
    ``magics_language`` and the formatter's options only, which are the cache's key; the
    cache keeps the most recently used results within :data:`HIGHLIGHT_CACHE_CHARS`."""

    def __call__(self, source, language=None, metadata=None):
        magics = metadata.get("magics_language") if isinstance(metadata, dict) else None
        key = (source, language or self.pygments_lexer, magics,
               repr(sorted(self.extra_formatter_options.items())))
        cache = _HIGHLIGHTED
        if key in cache:
            cache.move_to_end(key)
            return cache[key]
        html = super().__call__(source, language, metadata)
        size = len(source) + len(html)
        if size <= HIGHLIGHT_CACHE_CHARS // 8:
            cache[key] = html
            _HIGHLIGHTED_CHARS[0] += size
            while _HIGHLIGHTED_CHARS[0] > HIGHLIGHT_CACHE_CHARS:
                (old, *_), dropped = cache.popitem(last=False)
                _HIGHLIGHTED_CHARS[0] -= len(old) + len(dropped)
        return html


class _TemplateCode(BytecodeCache):
    """Jinja's compiled templates kept in memory: each exporter (nbgrader makes one per page)
    has its own Jinja environment, which parsed and compiled the page's nine templates again,
    about a fifth of the page's CPU. Jinja checks each template's source against the code's
    checksum before using it."""

    def __init__(self):
        self._code: dict[str, bytes] = {}

    def get_bucket(self, environment, name, filename, source):
        # code compiled for another kind of environment (async, other extensions) is not kept
        kind = f"{name}|{environment.is_async}|{','.join(sorted(environment.extensions))}"
        return super().get_bucket(environment, kind, filename, source)

    def load_bytecode(self, bucket):
        code = self._code.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket):
        self._code[bucket.key] = bucket.bytecode_to_string()


_TEMPLATE_CODE = _TemplateCode()


class FeedbackExporter(HTMLExporter):
    """``HTMLExporter`` whose accessibility pass works on the text (:func:`accessible`) and
    whose maths is MathML (:mod:`kit.html.maths`)."""

    @pass_context
    def markdown2html(self, context, source):
        """nbconvert's markdown filter, with :class:`~kit.html.maths.MathMLRenderer`."""
        cell = context.get("cell", {})
        renderer = MathMLRenderer(
            escape=False,
            attachments=cell.get("attachments", {}),
            embed_images=self.embed_images,
            path=context.get("resources", {}).get("metadata", {}).get("path", ""),
            anchor_link_text=self.anchor_link_text,
            exclude_anchor_links=self.exclude_anchor_links,
            **self.lexer_options,
        )
        return MarkdownWithMath(renderer=renderer).render(source)

    def _create_environment(self):
        environment = super()._create_environment()
        environment.bytecode_cache = _TEMPLATE_CODE
        return environment

    def default_filters(self):
        yield from super().default_filters()
        yield ("latex_output", latex_output)
        yield ("maths_text", maths_text)

    def from_notebook_node(self, nb, resources=None, **kw):
        langinfo = nb.metadata.get("language_info", {})
        lexer = langinfo.get("pygments_lexer", langinfo.get("name", None))
        highlight_code = self.filters.get(
            "highlight_code", CachedHighlight(pygments_lexer=lexer, parent=self))
        resources = self._init_resources(resources)
        filter_data_type = WidgetsDataTypeFilter(
            notebook_metadata=self._nb_metadata, parent=self, resources=resources)
        self.register_filter("highlight_code", highlight_code)
        self.register_filter("filter_data_type", filter_data_type)
        html, resources = TemplateExporter.from_notebook_node(self, nb, resources, **kw)
        html, missing = accessible(html)
        if missing:
            self.log.warning("Alternative text is missing on %s image(s).", missing)
        return html, resources
