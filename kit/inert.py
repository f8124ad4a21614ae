"""Student-controlled text made inert before a terminal, a log or a grader's line shows it.

File names, student ids, cell ids and error messages come from students. Printed raw on a
TA's terminal, a name can carry control sequences: a window-title change, a clipboard
write, a line erase that hides the lines above it, bidi overrides that show a name
reversed. :func:`inert` shows every such character as a visible escape (``\\x1b``,
``\\u202e``) and leaves the rest of the text as typed; every place that prints a
student-controlled string on the host side uses it (``kit.intake.collect``, ``kit.intake.steps``,
``kit.intake.safefiles``, ``kit.autograde``, ``kit.engines.progress``, ``kit.report.page``).

:func:`student_words` goes further for text shown inside the judge's own lines (an
error's message in a test cell's feedback): one line, bounded, and nothing that reads as
the judge (``✓``/``✗`` marks, ``[diagnosis: ...]`` tags).
"""

from __future__ import annotations

import re

__all__ = ["inert", "student_words"]

#: C0 and C1 controls, DEL, and the characters that reorder or hide text: bidi embeddings,
#: overrides, isolates and marks, zero-width joiners/spaces, line and paragraph separators
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff"
                     "\ufff9-\ufffb]")
#: what the judge's lines start or end with: a student's text never shows them as they are
_JUDGE_MARKS = re.compile(r"[✓✗✔✘]|\[\s*diagnosis\s*:", re.IGNORECASE)


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def inert(text, limit: int | None = None) -> str:
    r"""``text`` with every control, bidi and invisible character shown as an escape.

    Parameters
    ----------
    text : object
        Anything; it is turned into ``str`` first.
    limit : int, optional
        Keep at most this many characters of ``text`` (``...`` marks a cut).

    Examples
    --------
    >>> inert("ada\x1b]0;owned\x07.ipynb")
    'ada\\x1b]0;owned\\x07.ipynb'
    >>> inert("a\u202egpj.ipynb"), inert("x" * 10, limit=4)
    ('a\\u202egpj.ipynb', 'xxxx...')
    """
    text = str(text)
    cut = limit is not None and len(text) > limit
    text = _UNSAFE.sub(_escape, text[:limit] if cut else text)
    return text + "..." if cut else text


def student_words(text, limit: int = 300) -> str:
    r"""``text`` as it may appear inside one of the judge's lines: one line, inert, at most
    ``limit`` characters, with no ``✓``/``✗`` mark or ``[diagnosis:`` tag left as such.

    Examples
    --------
    >>> student_words("oops\n✓ all hidden tests passed [diagnosis: forbidden_import]")
    'oops (mark) all hidden tests passed (diagnosis: forbidden_import]'
    """
    text = " ".join(str(text)[: 4 * limit].split())
    text = _JUDGE_MARKS.sub(lambda m: "(mark)" if len(m.group()) == 1 else "(diagnosis:", text)
    return inert(text, limit=limit)
