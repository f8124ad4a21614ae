"""The feedback page's exporter (kit/handback/exporter.py) gives nbconvert's page, cheaper.

nbconvert's ``HTMLExporter`` parses the rendered page with BeautifulSoup to add alt texts and
focusable cells; ``FeedbackExporter`` makes those edits on the text. Both pages, parsed the
same way, must be the same document: on crafted HTML, and on the real feedback page of a
graded notebook with figures (both with the course's maths, MathML: :class:`NbconvertPass`).
"""

from __future__ import annotations

from bs4 import BeautifulSoup
from nbformat.v4 import new_code_cell, new_markdown_cell

from kit.autograde import autograde_student
from kit.course import copy_course
from kit.handback.exporter import NO_DESCRIPTION, FeedbackExporter, accessible
from kit.handback.feedback import feedback_page
from kit.intake.submitted import build_submission, lay
from kit.release import release

PAGE = """<html><body><main class="jp-Notebook">
<div class="jp-Cell jp-CodeCell"><div class="jp-Cell-inputWrapper" tabindex="-1">in</div>
<div class="jp-OutputArea-child"><div class="jp-RenderedImage jp-OutputArea-output">
<img src="data:image/png;base64,iVBORw0KGgo="></div></div>
<div class="a jp-OutputArea-output b" id="x"><img src="data:image/png;base64,AA==" /></div>
<div class="jp-Cell-inputWrapperX">not a wrapper</div>
<div data-x="1" class="jp-Cell-inputWrapper">second</div>
<img alt="a plot" src="data:image/png;base64,AA=="><IMG ALT="upper" src="x.png">
<pre>&lt;img src=x&gt; &lt;div class="jp-OutputArea-output"&gt;</pre></div>
</main></body></html>"""


#: A student's attempts to get a '>' into a tag, where a text edit looking for the end of an
#: <img> would stop and let what follows run: outputs and markdown are sanitised before the
#: page is rendered, so every '<' and '>' inside an attribute arrives escaped.
PNG = "data:image/png;base64,iVBORw0KGgo="
HOSTILE_OUTPUT = f"""from IPython.display import HTML, Markdown, display
display(HTML('<img title="a><script>alert(1)</script>" src="{PNG}">'
             '<p title="<img src=x><script>alert(2)</script>">t</p>'))
display(Markdown('![x><script>alert(3)</script>]({PNG} "t><img src=x onerror=alert(4)>")'))
"""
HOSTILE_MARKDOWN = (f'<img title="b><script>alert(5)</script>" src="{PNG}"> '
                    f'![y>]({PNG} "<img src=x onerror=alert(6)>")')


class NbconvertPass(FeedbackExporter):
    """The course's page (its MathML maths, its filters) with nbconvert's own accessibility
    pass (``HTMLExporter.from_notebook_node``: BeautifulSoup) instead of the text edits."""

    def from_notebook_node(self, nb, resources=None, **kw):
        from nbconvert.exporters import HTMLExporter

        return HTMLExporter.from_notebook_node(self, nb, resources, **kw)


def nbconvert_way(html: str) -> str:
    """What nbconvert's HTMLExporter does to a rendered page (nbconvert/exporters/html.py)."""
    soup = BeautifulSoup(html, features="html.parser")
    for elem in soup.select("img:not([alt])"):
        elem.attrs["alt"] = NO_DESCRIPTION
    for elem in soup.select(".jp-Notebook div.jp-Cell-inputWrapper"):
        elem.attrs["tabindex"] = "0"
    for elem in soup.select(".jp-Notebook div.jp-OutputArea-output"):
        elem.attrs["tabindex"] = "0"
    return str(soup)


def same_document(a: str, b: str) -> bool:
    return str(BeautifulSoup(a, "html.parser")) == str(BeautifulSoup(b, "html.parser"))


def test_the_text_edits_are_nbconverts():
    mine, missing = accessible(PAGE)
    assert missing == 2
    assert same_document(mine, nbconvert_way(PAGE))
    assert mine.count('tabindex="0"') == 4 and "&lt;img src=x&gt;" in mine


#: a problem set with figures: images without a description
HOSTILE_PS = "ps0_high_dimensions"


def graded_hostile_handin(tmp_path):
    """A course where ada's :data:`HOSTILE_PS`, with the hostile output and markdown cells
    above, is autograded."""
    course = copy_course(tmp_path, [HOSTILE_PS])
    assert not release(course, [HOSTILE_PS])
    nb = build_submission(course, HOSTILE_PS)
    nb.cells += [new_code_cell(HOSTILE_OUTPUT), new_markdown_cell(HOSTILE_MARKDOWN)]
    lay(course, HOSTILE_PS, "ada", nb)
    assert autograde_student(course, HOSTILE_PS, "ada")
    return course


def test_a_real_feedback_page_is_the_same_document(tmp_path):
    ps = HOSTILE_PS
    course = graded_hostile_handin(tmp_path)
    pages = {}
    for exporter in (f"{__name__}.NbconvertPass", "kit.handback.exporter.FeedbackExporter"):
        api = course.api()
        api.config.GenerateFeedback.exporter_class = exporter
        assert api.generate_feedback(ps, "ada", force=True)["success"]
        pages[exporter] = feedback_page(course, ps, "ada").read_text(encoding="utf-8")
    stock, mine = pages.values()
    assert stock.count(NO_DESCRIPTION) == mine.count(NO_DESCRIPTION) > 0
    assert mine != stock and same_document(mine, stock)
    for page in (stock, mine):  # no '>' of a student's ended a tag early: nothing of theirs runs
        soup = BeautifulSoup(page, "html.parser")
        assert not [t for t in soup.find_all("script") if "alert(" in t.get_text()]
        assert not [t for t in soup.find_all(True) if any(a.startswith("on") for a in t.attrs)]
        assert [t for t in soup.find_all("img") if "<script>" in t.get("title", "")]
    assert course.api().config.GenerateFeedback.exporter_class == (
        "kit.handback.exporter.FeedbackExporter")  # the course's own setting
