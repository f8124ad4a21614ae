"""Where code and maths are in a markdown source, found in time linear in its length.

:func:`protected_spans` lists the fenced code blocks, code spans and maths of a markdown
source, left to right, without overlaps, for :mod:`kit.html.markdown`. A regular
expression with lazy ``.*?`` bodies would search the rest of the text again from every
opener that never closes (a long run of backticks, many ``\\[``, many ``\\begin{x}``),
which costs time in the square of the length. Here every closer is found from tables built
in one pass over the text (backtick runs by length, fence lines by fence, ``\\end{env}``
by environment) or by a search that resumes where the previous search for the same closer
stopped, so each character is looked at a bounded number of times.

What counts as a span:

- a fence: a line starting with up to 3 spaces and at least 3 backticks or tildes, to the
  next line holding only the same fence (or to the end of the text);
- a code span: a run of backticks, to the next run of exactly as many (a run that never
  closes is text, as in CommonMark);
- maths: ``$$...$$``, ``\\[...\\]``, ``\\(...\\)``, ``\\begin{env}...\\end{env}`` and
  ``$...$`` on one line (no space after the opening or before the closing ``$``).
"""

from __future__ import annotations

import bisect
import re

__all__ = ["Finder", "protected_spans"]

_OPENER = re.compile(r"^[ ]{0,3}(?:`{3,}|~{3,})|`+|\$|\\[\[(]|\\begin\{[A-Za-z*]{1,64}\}",
                     re.MULTILINE)
_RUN = re.compile(r"`+")
_FENCE_LINE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})[ \t]*$", re.MULTILINE)
_END = re.compile(r"\\end\{([A-Za-z*]{1,64})\}")


class Finder:
    """``text.find(needle, start)`` for non-decreasing ``start``: a search resumes from the
    last answer, so all the searches for one needle read the text about once."""

    def __init__(self, text: str):
        self.text, self.last = text, {}

    def find(self, needle: str, start: int) -> int:
        before = self.last.get(needle)
        if before is not None and before[0] <= start and (before[1] < 0 or before[1] >= start):
            return before[1]
        found = self.text.find(needle, start)
        self.last[needle] = (start, found)
        return found


def _table(pattern: re.Pattern, text: str, key) -> dict:
    table: dict = {}
    for m in pattern.finditer(text):
        table.setdefault(key(m), []).append(m)
    return table


def _next(matches: list, after: int):
    """The first match of ``matches`` (in text order) that starts at ``after`` or later."""
    i = bisect.bisect_left(matches, after, key=lambda m: m.start())
    return matches[i] if i < len(matches) else None


class _Spans:
    def __init__(self, text: str):
        self.text, self.finder = text, Finder(text)
        self.runs = _table(_RUN, text, lambda m: len(m.group()))
        self.fences = _table(_FENCE_LINE, text, lambda m: m.group(1))
        self.ends = _table(_END, text, lambda m: m.group(1))

    def fence(self, m: re.Match) -> int | None:
        text, fch = self.text, m.group().lstrip(" ")
        newline = self.finder.find("\n", m.end())
        if newline < 0:
            return None
        closing = _next(self.fences.get(fch, []), newline + 1)
        return closing.end() if closing is not None else len(text)

    def code(self, start: int) -> tuple[int, int | None]:
        """(end of the opening run, end of the span or None)."""
        run = _RUN.match(self.text, start)
        closing = _next(self.runs.get(len(run.group()), []), run.end() + 1)
        return run.end(), closing.end() if closing is not None and run.end() < len(
            self.text) else None

    def math(self, start: int, token: str) -> int | None:
        text, find = self.text, self.finder.find
        if token == "$":
            if text.startswith("$$", start):
                end = find("$$", start + 3)
                return end + 2 if end >= 0 else None
            if start + 1 >= len(text) or text[start + 1].isspace():
                return None
            end, newline = find("$", start + 2), find("\n", start + 1)
            if end < 0 or 0 <= newline < end or text[end - 1].isspace() or text[end - 1] == "\\":
                return None
            return end + 1
        if token in ("\\[", "\\("):
            end = find("\\]" if token == "\\[" else "\\)", start + 3)
            return end + 2 if end >= 0 else None
        env = token[len("\\begin{"):-1]
        closing = _next(self.ends.get(env, []), start + len(token))
        return closing.end() if closing is not None else None


def protected_spans(text: str) -> list[tuple[str, int, int]]:
    r"""``[(kind, start, end), ...]``: the fences and code spans (kind ``"code"``) and the
    maths (``"math"``) of a markdown source, in order.

    Examples
    --------
    >>> s = "a `<b>` and $x<y$ then ``` `` ``` and \\[z\\]"
    >>> [(k, s[i:j]) for k, i, j in protected_spans(s)]
    [('code', '`<b>`'), ('math', '$x<y$'), ('code', '``` `` ```'), ('math', '\\[z\\]')]
    """
    spans, scan, pos = [], _Spans(text), 0
    while (m := _OPENER.search(text, pos)) is not None:
        token, start = m.group(), m.start()
        bare = token.lstrip(" ")
        if bare[0] in "`~" and len(bare) >= 3 and (start == 0 or text[start - 1] == "\n"):
            end = scan.fence(m)
            if end is not None:
                spans.append(("code", start, end))
                pos = end
                continue
        if bare[0] == "~":
            pos = m.end()
            continue
        if bare[0] == "`":
            run_end, end = scan.code(start + len(token) - len(bare))
            if end is not None:
                spans.append(("code", start + len(token) - len(bare), end))
            pos = end if end is not None else run_end
            continue
        end = scan.math(start, token)
        if end is not None:
            spans.append(("math", start, end))
            pos = end
        else:
            pos = start + 1
    return spans
