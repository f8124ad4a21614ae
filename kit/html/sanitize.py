"""No student content runs in a browser: the graded notebook is made inert before anyone views it.

Everything in an autograded notebook came through the student's kernel or the student's
editor: every output, every markdown cell (lesson cells can be edited and new cells added),
raw cells, attachments and the notebook's metadata. Formgrader shows that notebook to a TA
and the feedback page to the student, both rendered by nbconvert, which passes HTML and
JavaScript through; script there runs with the Jupyter server's origin and could change grades
through formgrader's API. :class:`SanitizeStudentContent` keeps what a person needs to read:

- outputs: ``text/plain``; ``image/png``/``image/jpeg``/``image/gif`` when they are plain
  base64; ``text/html`` cleaned by an allow-list sanitiser (nh3: no script, style, iframe,
  form, object, embed, meta, svg, event handlers or script links; images only as inline
  PNG/JPEG/GIF data, so nothing is fetched); ``text/markdown`` through
  :func:`kit.html.markdown.sanitize_markdown`; ``text/latex`` with MathJax's link and
  style macros shown as text. Every other type (JavaScript, SVG, widgets, PDF, ...) is
  dropped; an output left with nothing to show says what was removed. Output metadata keeps
  only numeric image sizes, and the judge's record of diagnoses on a score output
  (``kit.course.JUDGE_KEY``: short codes only, with the exact answers as wire data for
  :mod:`kit.copying`, bounded and never rendered).
- markdown and raw cells: :func:`~kit.html.markdown.sanitize_markdown` (raw HTML shows
  as text, maths stays maths); raw cells are cleaned like HTML; attachments keep only
  PNG/JPEG/GIF images.
- the notebook's ``widgets`` metadata (widget state nbconvert would load) is removed.
- the fields of a cell that pages print beside its content (:func:`sanitize_cell_fields`):
  an execution count is a number or nothing, a ``grade_id`` keeps only the characters
  nbgrader's schema allows, a grader's comment is sanitised markdown, the feedback page's
  label (:mod:`kit.feedback_labels`) is one line of plain text. In ``GenerateFeedback`` the
  step runs last, after nbgrader's ``GetGrades`` has added the comments and the labels are
  made, so everything the feedback template prints has been through it.

It runs in autograde after ``SaveAutoGrades`` (nbgrader compares a written answer with its
release checksum there to tell "no response"; a changed source must not look like an answer),
in ``GenerateFeedback`` and in every ``HTMLExporter`` (formgrader renders with one), so
notebooks autograded before this step existed are shown cleaned too. Applying it twice
changes nothing more.
"""

from __future__ import annotations

import re

import nh3
from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

from kit.course import JUDGE_KEY
from kit.html.markdown import (
    SAFE_IMAGE_DATA,
    break_tags,
    neutralise_mathjax,
    safe_url,
    sanitize_markdown,
)
from kit.inert import inert

KEPT_IMAGES = ("image/png", "image/jpeg", "image/gif")
# Stands in for an attachment with no image left: nbconvert fails on an empty one.
BLANK_PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAAC0lEQVR4nGNgAAIAAAUAAXpeqz8AAAAASUVO"
             "RK5CYII=")
_BASE64 = re.compile(r"^[A-Za-z0-9+/=\s]*$")
_IMG_WITHOUT_SRC = re.compile(r"<img(?![^>]*\ssrc=)[^>]*>")  # its address was refused

# nh3's default tags without those that pull in content or draw outside their box.
HTML_TAGS = set(nh3.ALLOWED_TAGS) - {"area", "map"}
HTML_ATTRIBUTES = {
    "*": {"title", "lang", "dir"},
    "a": {"href"},
    "img": {"src", "alt", "width", "height"},
    "td": {"colspan", "rowspan", "align"},
    "th": {"colspan", "rowspan", "align", "scope"},
    "ol": {"start"},
    "details": {"open"},
}


def _attribute_filter(tag: str, attribute: str, value: str):
    if attribute == "href":
        return value if safe_url(value) else None
    if attribute == "src":
        return value if tag == "img" and SAFE_IMAGE_DATA.match(value.strip()) else None
    return value


def sanitize_html(html: str) -> str:
    """Return ``html`` reduced to inert markup (allow-list; script and style content dropped).

    Examples
    --------
    >>> sanitize_html('<b onclick="x()">bold</b><script>alert(1)</script>')
    '<b>bold</b>'
    """
    cleaned = nh3.clean(
        html,
        tags=HTML_TAGS,
        clean_content_tags={"script", "style", "template", "noscript", "title", "textarea"},
        attributes=HTML_ATTRIBUTES,
        attribute_filter=_attribute_filter,
        url_schemes={"http", "https", "mailto", "data"},
        link_rel="noopener noreferrer nofollow",
        strip_comments=True,
    )
    return neutralise_mathjax(_IMG_WITHOUT_SRC.sub("", cleaned))


def _joined(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def sanitize_output(output: dict) -> dict:
    """Return ``output`` (one cell output) with only inert data and metadata left.

    Streams and errors are kept (every view escapes them). ``display_data`` and
    ``execute_result`` keep only the types listed in the module docstring, cleaned.
    """
    if output.get("output_type") not in ("display_data", "execute_result"):
        return output
    data, kept, removed = output.get("data", {}), {}, []
    for mime, value in data.items():
        value = _joined(value)
        if mime == "text/plain" or mime in KEPT_IMAGES and _BASE64.match(value):
            kept[mime] = value
        elif mime == "text/html":
            kept[mime] = sanitize_html(value)
        elif mime == "text/markdown":
            kept[mime] = sanitize_markdown(value)
        elif mime == "text/latex":
            kept[mime] = neutralise_mathjax(value)
        else:
            removed.append(mime)
    if removed and not kept:
        kept["text/plain"] = (
            f"[output of type {', '.join(sorted(removed))} removed by the grader: "
            "it could run script in the viewer's browser]"
        )
    output["data"] = kept
    judged = _judge_record(output.get("metadata", {}))
    output["metadata"] = _image_sizes(output.get("metadata", {}), kept)
    if judged:
        output["metadata"][JUDGE_KEY] = judged
    return output


_CODE = re.compile(r"[a-z_]{1,40}")


def _judge_record(metadata) -> dict:
    """The judge's record on its score output (``kit.course.JUDGE_KEY``), if well formed:
    diagnosis codes and ids as short plain strings (the report reads it on test cells only,
    whose outputs only the judge writes)."""
    record = metadata.get(JUDGE_KEY) if isinstance(metadata, dict) else None
    if not isinstance(record, dict) or not isinstance(record.get("diagnoses"), list):
        return {}
    kept = {"diagnoses": [c for c in record["diagnoses"][:20]
                          if isinstance(c, str) and _CODE.fullmatch(c)]}
    if isinstance(record.get("other_ids"), list):
        kept["other_ids"] = [str(i)[:200] for i in record["other_ids"][:20] if isinstance(i, str)]
    if isinstance(record.get("answers"), dict):  # exact answers as wire data, for kit.copying
        kept["answers"] = _answers(record["answers"])
    return kept


_ITEM = re.compile(r"[A-Za-z0-9_]{1,80}")


def _answers(answers: dict) -> dict:
    """The judge's copy of a test cell's exact answers (:mod:`kpca_probe.wire` data, never
    shown on a page): at most 40 items named like exact items, each at most 4,000 characters
    of JSON (a longer one kept as ``None``)."""
    import json

    kept = {}
    for name, value in list(answers.items())[:40]:
        if isinstance(name, str) and _ITEM.fullmatch(name):
            try:
                fits = len(json.dumps(value)) <= 4000
            except (TypeError, ValueError, RecursionError):
                fits = False
            kept[name] = value if fits else None
    return kept


def _image_sizes(metadata: dict, kept: dict) -> dict:
    sizes = {}
    for mime in KEPT_IMAGES:
        entry = metadata.get(mime) if mime in kept else None
        if isinstance(entry, dict):
            size = {k: v for k in ("width", "height")
                    if isinstance(v := entry.get(k), (int, float)) and not isinstance(v, bool)}
            if size:
                sizes[mime] = size
    return sizes


class SanitizeStudentContent(Preprocessor):
    """nbconvert/nbgrader preprocessor: make every student-controlled part of a notebook inert."""

    # nbconvert preprocessors are off unless enabled; nbgrader registers them as they are
    enabled = Bool(True).tag(config=True)

    def preprocess(self, nb, resources):
        nb.metadata.pop("widgets", None)
        return super().preprocess(nb, resources)

    def preprocess_cell(self, cell, resources, index):
        sanitize_cell_fields(cell)
        if cell.cell_type == "code":
            cell.outputs = [sanitize_output(o) for o in cell.get("outputs", [])]
        elif cell.cell_type == "markdown":
            cell.source = sanitize_markdown(cell.source)
        elif cell.cell_type == "raw":
            cell.source = sanitize_html(cell.source)
        if "attachments" in cell:
            cell.attachments = {name: _image_only(bundle)
                                for name, bundle in cell.attachments.items()}
        return cell, resources


_GRADE_ID_UNSAFE = re.compile(r"[^A-Za-z0-9_\-]")  # nbgrader's schema: ^[a-zA-Z0-9_\-]*$


def _count(value):
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def plain_text(text, limit: int = 200) -> str:
    r"""``text`` as a field a page prints as text (and escapes): one line, at most ``limit``
    characters, no control or invisible character (:func:`kit.inert.inert`), no tag opener,
    and MathJax's link and style macros shown as text (MathJax typesets every text node).

    Examples
    --------
    >>> label = plain_text("Part 2 `<img src=x onerror=f()>`\n $\\href{javascript:f()}{x}$")
    >>> label == "Part 2 `<\u200bimg src=x onerror=f()>` $\\backslash\\mathtt{href}{javascript:f()}{x}$"
    True
    """
    text = " ".join(str(text).replace("\u200b", "").split())
    return break_tags(neutralise_mathjax(inert(text, limit=limit)))


def sanitize_cell_fields(cell) -> None:
    """Make the fields a page prints beside a cell's content inert, in place.

    ``execution_count`` (of the cell and of its results) becomes an ``int`` or ``None``
    (nbclient copies it from the kernel's reply); the cell's ``nbgrader`` ``grade_id`` keeps
    only the characters nbgrader's schema allows (formgrader prints it unescaped into ids);
    its ``comment`` (a grader's, added by ``GetGrades``) goes through
    :func:`~kit.html.markdown.sanitize_markdown`, as every page renders it as markdown; the
    feedback label ``kit_label`` becomes :func:`plain_text`.
    """
    if "execution_count" in cell:
        cell["execution_count"] = _count(cell["execution_count"])
    for output in cell.get("outputs", []):
        if "execution_count" in output:
            output["execution_count"] = _count(output["execution_count"])
    if "kit_label" in cell.get("metadata", {}):
        cell.metadata["kit_label"] = plain_text(cell.metadata["kit_label"])
    meta = cell.get("metadata", {}).get("nbgrader")
    if not isinstance(meta, dict):
        return
    if "grade_id" in meta:
        meta["grade_id"] = _GRADE_ID_UNSAFE.sub("_", str(meta["grade_id"]))
    if isinstance(meta.get("comment"), str):
        meta["comment"] = sanitize_markdown(meta["comment"])
    elif meta.get("comment") is not None:
        meta["comment"] = None


def _image_only(bundle: dict) -> dict:
    kept = {m: _joined(v) for m, v in bundle.items()
            if m in KEPT_IMAGES and _BASE64.match(_joined(v))}
    return kept or {"image/png": BLANK_PNG}
