"""Headless chromium opens a feedback page and a class report with the XSS catalogue in every
field, and no student script runs.

The feedback page is rendered by the course's own exporter, template and steps from a notebook
carrying every payload of :mod:`tests.html.xss_payloads` in every field the template prints
(:mod:`tests.html.hostile_feedback`: part labels, the issue's ``## Part 2 `<img onerror>```
heading before a graded cell among them, grade ids, comments, the notebook's name, title,
authors and kernel metadata, cell tags, outputs of every type, written answers, attachments);
the class report from a class whose ids, reasons, codes and titles are the field payloads
(:mod:`tests.html.test_report_fields`). One page each, many payloads on each: no dialog, no
``window.__pwned``, no title change, no navigation, no request a payload asked for, and in the
DOM no event handler, script link, frame, form, ``<base>``, ``<meta>`` refresh or script at
all (the pages' maths is MathML written at export, :mod:`kit.html.maths`: inside ``<math>``
only the elements and attributes its check allows).
"""

from __future__ import annotations

import pytest

from kit.html.maths import MATHML_ATTRIBUTES, MATHML_TAGS
from tests.html.hostile_feedback import NOTEBOOK_NAME, render_feedback
from tests.html.test_report_fields import write_hostile_report

pytestmark = pytest.mark.filterwarnings("ignore:Your element with mimetype", "ignore:No lexer found")

#: what is active in a page, read from chromium's DOM: handlers, script URLs, frames, forms,
#: scripts, and inside maths any element or attribute the MathML check does not allow
ACTIVE_IN_DOM = r"""() => {
  const mathTags = new Set(MATH_TAGS), mathAttributes = new Set(MATH_ATTRIBUTES);
  const found = [];
  const urls = ['href', 'src', 'action', 'formaction', 'data', 'xlink:href', 'poster',
                'background', 'srcset', 'ping', 'codebase', 'manifest'];
  const image = /^data:image\/(png|jpeg|gif);base64,/;
  for (const el of document.querySelectorAll('*')) {
    const tag = el.tagName.toLowerCase();
    const inMath = el.closest('math') !== null;
    if (inMath && !mathTags.has(tag)) found.push(`<${tag}> in math`);
    for (const a of el.attributes) {
      const name = a.name.toLowerCase();
      if (inMath && !mathAttributes.has(name)) found.push(`${tag} ${name} in math`);
      const value = a.value.replace(/[\u0000-\u0020]/g, '').toLowerCase();
      if (name.startsWith('on') || name === 'srcdoc' || name === 'autofocus') {
        found.push(`${tag} ${name}`);
      }
      if (name === 'style' && /url\(|expression|@import|behavior/.test(value)) {
        found.push(`${tag} style=${value}`);
      }
      if (urls.includes(name) && /^[a-z][a-z0-9+.-]*:/.test(value)
          && !/^(https?|mailto|file):/.test(value) && !(tag === 'img' && image.test(value))) {
        found.push(`${tag} ${name}=${value.slice(0, 60)}`);
      }
    }
    if (['iframe', 'frame', 'object', 'embed', 'applet', 'base', 'form', 'svg',
         'link', 'template', 'input', 'button', 'video', 'audio'].includes(tag)
        && !(tag === 'link' && el.closest('head') && el.rel === 'stylesheet' && !el.href)) {
      found.push(`<${tag}>`);
    }
    if (tag === 'meta' && (el.httpEquiv || '').toLowerCase() === 'refresh') found.push('meta refresh');
  }
  for (const s of document.scripts) found.push(`script ${s.type} ${s.src} ${s.text.slice(0, 60)}`);
  return found;
}""".replace("MATH_TAGS", repr(sorted(MATHML_TAGS))).replace(
    "MATH_ATTRIBUTES", repr(sorted(MATHML_ATTRIBUTES)))


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile-pages")
    feedback = folder / "feedback.html"
    feedback.write_text(render_feedback(), encoding="utf-8")
    return {"feedback": (feedback, NOTEBOOK_NAME), "report": (write_hostile_report(folder),
                                                              "Class report")}


def _nothing_ran(page, url: str, title: str) -> None:
    page.wait_for_timeout(1000)  # timers, refreshes, requests
    log = page.kpca_log
    assert log.dialogs == []
    assert page.evaluate("window.__pwned") is None
    assert page.title() == title
    assert page.url == url
    asked = [u for u in log.requests + log.refused if "PWN" in u or ":9/" in u]
    assert asked == []
    assert page.evaluate(ACTIVE_IN_DOM) == []


@pytest.mark.parametrize("name", ["feedback", "report"])
def test_no_student_script_runs(page, pages, name):
    path, title = pages[name]
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    for element in page.locator("a, [tabindex]").all()[:400]:  # focus what can be focused
        element.focus()
    _nothing_ran(page, path.as_uri(), title)
    if name == "feedback":  # the course's hostile heading is a label, shown as the text it is
        label = page.locator("span.nbgrader-label", has_text="Part 3 —").first
        assert label.is_visible() and "onerror=" in label.inner_text()
        assert page.get_by_text("My written answer about random directions").first.is_visible()
    else:
        assert page.locator("section#students").is_visible()
        assert "onerror=" in page.locator("section#students").inner_text()
