"""The sanitiser (``kit/html/sanitize.py``) against a catalogue of script payloads.

A notebook carrying every payload of :mod:`tests.html.xss_payloads` (in written answers,
HTML, markdown, JavaScript, SVG, widget, LaTeX and image outputs, raw cells, attachments and
notebook metadata) is rendered by nbconvert's HTML exporter as formgrader and the feedback
page render it. Without the sanitiser each payload is live in the page (the catalogue has
teeth); with it none is, and an honest written answer still reads the same.
"""

from __future__ import annotations

import base64
import copy
import html as html_module
import re
from html.parser import HTMLParser

import nbformat
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output, new_raw_cell

from kit.html.markdown import (
    _MATHJAX_ACTIVE,
    TAG_OPENER,
    active_html,
    safe_url,
    sanitize_markdown,
)
from kit.html.sanitize import SanitizeStudentContent, sanitize_html, sanitize_output
from tests.html.xss_payloads import HONEST_ANSWER, HONEST_WORDS, HTML, MARKDOWN

# nbconvert warns that it cannot draw the widget output: that is the point.
pytestmark = pytest.mark.filterwarnings("ignore:Your element with mimetype")

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(40))).decode()
ACTIVE_TAGS = {
    "script", "style", "iframe", "frame", "frameset", "object", "embed", "applet", "meta",
    "base", "link", "form", "input", "button", "textarea", "select", "svg", "math", "template",
    "noscript", "title", "body", "video", "audio", "source", "marquee",
}
CONTENT_ACTIVE = {"script", "style", "title", "noscript", "template", "svg", "math", "iframe",
                  "object"}  # tags whose text the browser runs, styles or parses again
URL_ATTRIBUTES = {"href", "src", "data", "action", "formaction", "xlink:href", "background"}

# Outputs that run script in stock nbconvert, with the marker each carries.
EXTRA_OUTPUTS = {
    "javascript": {"application/javascript": "window.__pwned='PWN-js'"},
    "svg_output": {"image/svg+xml": "<svg xmlns='http://www.w3.org/2000/svg' "
                                    "onload=\"window.__pwned='PWN-svgout'\"><script>"
                                    "window.__pwned='PWN-svgscript'</script></svg>",
                   "text/plain": "<Figure PWN-svg-text>"},
    "widget": {"application/vnd.jupyter.widget-view+json":
               {"model_id": "PWN-widget", "version_major": 2, "version_minor": 0}},
}


class _Activity(HTMLParser):
    """Collect every part of a page that a browser acts on: scripts, handlers, URLs."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.active: list[str] = []
        self._inside: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in ACTIVE_TAGS:
            self.active.append(f"<{tag} {attrs}>")
        if tag in CONTENT_ACTIVE:
            self._inside.append(tag)
        for name, value in attrs:
            value = value or ""
            if tag in ("iframe", "object", "embed") and ";base64," in value:  # a page of its own
                self.active.append(base64.b64decode(value.split(";base64,", 1)[1]).decode())
            if name.startswith("on") or name in ("style", "srcdoc") or name in URL_ATTRIBUTES and (
                not safe_url(value, image=tag == "img")
                or (tag == "img" and not value.startswith("data:"))
            ):
                self.active.append(f"{tag}.{name}={value}")

    def handle_endtag(self, tag):
        if tag in self._inside:
            self._inside.remove(tag)

    def handle_data(self, data):
        if self._inside:
            self.active.append(data)


def live_markers(page: str) -> set[str]:
    """The ``PWN-...`` markers found in active parts of ``page``."""
    finder = _Activity()
    finder.feed(page)
    return set(re.findall(r"PWN-[a-z]+", " ".join(finder.active)))


def payload_notebook():
    cells = [new_markdown_cell(f"**{name}**\n\n{md}") for name, md in MARKDOWN.items()]
    outputs = [new_output("display_data", data={"text/html": html, "text/plain": name})
               for name, html in HTML.items()]
    outputs += [new_output("display_data", data={"text/markdown": md}) for md in MARKDOWN.values()]
    outputs += [new_output("display_data", data=data) for data in EXTRA_OUTPUTS.values()]
    outputs += [
        new_output("display_data",
                   data={"text/html": "<script>window.__pwned='PWN-isolated'</script>"},
                   metadata={"text/html": {"isolated": True}}),
        new_output("display_data", data={"image/png": PNG},
                   metadata={"image/png": {"width": "1 onerror=window.__pwned='PWN-width'"}}),
        new_output("display_data", data={"image/png": "x\" onerror=\"window.__pwned='PWN-png'"}),
        new_output("execute_result", execution_count=1,
                   data={"text/latex": "$\\href{javascript:window.__pwned='PWN-latex'}{x}$"}),
    ]
    outputs += [  # escaped by nbconvert already; must stay so
        new_output("stream", name="stdout", text="<script>window.__pwned='PWN-stream'</script>"),
        new_output("error", ename="ValueError", evalue="<script>window.__pwned='PWN-error'</script>",
                   traceback=["<img src=x onerror=\"window.__pwned='PWN-traceback'\">"]),
    ]
    cells.append(new_code_cell("show()", outputs=outputs, execution_count=1))
    cells.append(new_raw_cell("<script>window.__pwned='PWN-raw'</script>",
                              metadata={"raw_mimetype": "text/html"}))
    attached = new_markdown_cell("![a](attachment:a.html)")
    attached["attachments"] = {"a.html": {"text/html": "<script>PWN-attach</script>"}}
    cells.append(attached)
    nb = new_notebook(cells=cells)
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {
        "state": {"PWN-state": {}}, "version_major": 2, "version_minor": 0}}
    return nb


def render(nb, sanitise: bool) -> str:
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name="classic")
    if sanitise:
        exporter.register_preprocessor(SanitizeStudentContent, enabled=True)
    return exporter.from_notebook_node(copy.deepcopy(nb))[0]


@pytest.fixture(scope="module")
def pages():
    """The payload notebook rendered as stock nbconvert would, and after the sanitiser.

    Stock nbconvert cannot render an attachment without an image at all (the last cell), so
    the stock page leaves that cell out.
    """
    nb = payload_notebook()
    sanitised = render(nb, sanitise=True)
    nb.cells.pop()
    return render(nb, sanitise=False), sanitised


def _markers(text: str) -> set[str]:
    return set(re.findall(r"PWN-[a-z]+", text))


# Inert in stock nbconvert 7 with chromium already (escaped, base64-encoded into an <img>, not
# rendered, only live once MathJax typesets the page, a scheme only old browsers run, a second
# <title>); the sanitiser must keep them inert.
INERT_IN_STOCK = {"PWN-class", "PWN-comment", "PWN-data", "PWN-dollar", "PWN-entity", "PWN-fence",
                  "PWN-mjhref", "PWN-noscript", "PWN-raw", "PWN-require", "PWN-svgout",
                  "PWN-svgscript", "PWN-widget", "PWN-attach", "PWN-latex", "PWN-bbox",
                  "PWN-stream", "PWN-error", "PWN-traceback", "PWN-png", "PWN-vb", "PWN-title",
                  # code rendered as markdown (mistune escapes it; as a label it ran:
                  # tests/html/test_feedback_fields.py), text with quotes, link titles
                  "PWN-codedouble", "PWN-codespan", "PWN-fenced", "PWN-fencehtml",
                  "PWN-indented", "PWN-tilde", "PWN-labelcode", "PWN-labelsvg",
                  "PWN-labelquote", "PWN-mdtitle", "PWN-mdimgtitle",
                  # TeX: live only once MathJax typesets the page
                  "PWN-labeltex", "PWN-newcommand", "PWN-texdef", "PWN-texenv", "PWN-texuni"}
ALL_MARKERS = sorted(_markers(repr(HTML) + repr(MARKDOWN) + repr(EXTRA_OUTPUTS))
                     | {"PWN-raw", "PWN-state", "PWN-png", "PWN-width", "PWN-isolated",
                        "PWN-latex", "PWN-attach", "PWN-stream", "PWN-error",
                        "PWN-traceback"})


@pytest.mark.parametrize("marker", sorted(set(ALL_MARKERS) - INERT_IN_STOCK))
def test_payload_is_live_without_the_sanitiser(pages, marker):
    assert marker in live_markers(pages[0])


@pytest.mark.parametrize("marker", ALL_MARKERS)
def test_payload_is_inert_after_the_sanitiser(pages, marker):
    assert marker not in live_markers(pages[1])


def test_the_catalogue_is_broad():
    assert len(set(ALL_MARKERS) - INERT_IN_STOCK) >= 20


@pytest.mark.parametrize("name", sorted(MARKDOWN))
def test_markdown_renders_to_inert_html(name):
    from nbconvert.filters.markdown import markdown2html

    html = markdown2html(sanitize_markdown(MARKDOWN[name]))
    assert active_html(html) == [], html
    assert not _MATHJAX_ACTIVE.search(html), html  # MathJax's link and style macros


def test_sanitising_twice_changes_nothing_more():
    once = SanitizeStudentContent().preprocess(payload_notebook(), {})[0]
    twice = SanitizeStudentContent().preprocess(copy.deepcopy(once), {})[0]
    assert nbformat.writes(once) == nbformat.writes(twice)


def test_honest_written_answer_stays_readable():
    from nbconvert.filters.markdown import markdown2html

    html = markdown2html(sanitize_markdown(HONEST_ANSWER))
    text = re.sub(r"<[^>]+>", "", html).replace("&lt;", "<").replace("&gt;", ">")
    text = text.replace("&amp;", "&")
    for words in HONEST_WORDS:
        assert words in text, (words, text)
    assert re.search(r"\$0 \\lt\s+\\lambda_i\$", text)  # the sign, written the MathJax way
    assert sanitize_markdown("YOUR ANSWER HERE") == "YOUR ANSWER HERE"


def test_images_and_text_are_kept_and_dropped_types_are_named():
    png = sanitize_output(new_output("display_data", data={"image/png": PNG, "text/plain": "fig"},
                                     metadata={"image/png": {"width": 300, "height": "x"}}))
    assert png["data"] == {"image/png": PNG, "text/plain": "fig"}
    assert png["metadata"] == {"image/png": {"width": 300}}
    svg = sanitize_output(new_output("display_data", data=EXTRA_OUTPUTS["svg_output"]))
    assert svg["data"] == {"text/plain": "<Figure PWN-svg-text>"}
    js = sanitize_output(new_output("display_data", data=EXTRA_OUTPUTS["javascript"]))
    assert list(js["data"]) == ["text/plain"]
    assert "application/javascript removed by the grader" in js["data"]["text/plain"]
    html = sanitize_output(new_output("display_data", data={
        "text/html": "<table><tr><td>1.5</td></tr></table><img src=\"data:image/png;base64,"
                     + PNG + "\">"}))
    assert "<td>1.5</td>" in html["data"]["text/html"]
    assert f'src="data:image/png;base64,{PNG}"' in html["data"]["text/html"]
    stream = new_output("stream", name="stdout", text="<script>x</script>")
    assert sanitize_output(copy.deepcopy(stream)) == stream  # escaped by every view


def test_config_runs_the_sanitiser_wherever_a_notebook_is_shown():
    from kit.course import REPO_ROOT, Course

    cfg = Course(REPO_ROOT).config()
    steps = cfg.Autograde.autograde_preprocessors
    name = "kit.html.sanitize.SanitizeStudentContent"
    assert steps.index(name) == steps.index("nbgrader.preprocessors.SaveAutoGrades") + 1
    assert name in cfg.GenerateFeedback.preprocessors
    assert name in cfg.HTMLExporter.preprocessors  # formgrader renders with an HTMLExporter


# Pieces an attacker combines; hypothesis strings them together in any order.
MARKDOWN_PIECES = [
    "<", ">", "`", "``", "```", "~~~", "$", "$$", "\\", "\\(", "\\)", "\\[", "\\]", "&#97;",
    "&amp;", "&#x3C;", "&lt;", "[x](", "](", ")", "![y](", "javascript:", "JaVaScript\\:",
    "java&#115;cript:", "<img src=x onerror=alert(1)>", "<script>alert(1)</script>", "\n",
    "\n\n", "    ", "> ", "- ", "<!--", "-->", "]", "(", "!", "*", "a", " ", "[r]: ",
    "\\href{javascript:alert(1)}{x}", "\\begin{align}", "\\end{align}", '"', "mermaid",
    "<svg/onload=alert(1)>", "http://127.0.0.1:9/x.png", "data:text/html,<b>", "&", "#", ";",
]
HTML_PIECES = [
    "<", ">", "/", "=", '"', "'", " ", "script", "img", "src", "onerror", "alert(1)", "a",
    "href", "javascript:", "jav&#x61;script:", "style", "svg", "onload", "iframe", "srcdoc",
    "math", "<!--", "-->", "<![CDATA[", "]]>", "noscript", "title", "data:image/png;base64,AAAA",
    "data:text/html,x", "table", "td", "&", "#", "\n", "\t", "form", "action", "base", "meta",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(MARKDOWN_PIECES), min_size=1, max_size=25).map("".join))
def test_any_markdown_renders_inert_and_sanitising_is_stable(source):
    from nbconvert.filters.markdown import markdown2html

    clean = sanitize_markdown(source)
    html = markdown2html(clean)
    assert active_html(html) == [] and not _MATHJAX_ACTIVE.search(html), (source, clean, html)
    assert sanitize_markdown(clean) == clean
    # no tag opener anywhere in the source, code included: text taken from it without a
    # markdown renderer (a heading made a label) is inert too
    assert not TAG_OPENER.search(clean), (source, clean)


@pytest.mark.parametrize("name", ["code_span", "code_span_double", "fence", "fence_html",
                                  "fence_tilde", "label_code"])
def test_code_is_escaped_in_the_source_and_reads_as_typed(name):
    """Code spans and fences hold no tag opener after sanitising, and still show what the
    student typed (the zero-width space after ``<`` is invisible). (An indented code block
    is read as text: its ``<`` shows as ``&lt;``.)"""
    from nbconvert.filters.markdown import markdown2html

    clean = sanitize_markdown(MARKDOWN[name])
    assert not TAG_OPENER.search(clean), clean
    shown = html_module.unescape(re.sub(r"<[^>]+>", "", markdown2html(clean))).replace("\u200b", "")
    typed = re.search(r"<(img|script|svg)[^\n`]*", MARKDOWN[name]).group()
    assert typed in shown, (typed, shown)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(HTML_PIECES), min_size=1, max_size=30).map("".join))
def test_any_html_output_is_cleaned_to_inert_html(html):
    clean = sanitize_html(html)
    assert active_html(clean) == [], (html, clean)
    assert sanitize_html(clean) == clean
