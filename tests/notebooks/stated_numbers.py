"""Find every number and comparison a notebook's text states, outside formulas and code.

A *stated token* is, in the markdown of a source notebook (answer cells left out):

* a whole number written in the prose (``20``, ``3,600``) or a number word from three up
  (``three``, ``twice``, ``half``, ``a hundred``; "one" and "two" are mostly articles and pairs);
* a comparison (``larger than``, ``at least``, ``fewer than``, ``exceeds``, ``below 1`` ...).

Formulas (``$...$``: worked examples, each computed by the cell beside it), code spans and the references of
:data:`tests.notebooks.attributions._REFERENCES` (``Part 3``, ``Q6``, ``(2 points)``, ``ps2``,
``file 001`` ...) are not tokens; nor are a numbered list's or heading's own numbers (``1.``,
``### 2.``) or a table row's label (``| 3 |``). :func:`tokens` gives each token with the text around it, and :func:`uncovered`
the tokens no allowed phrase covers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kit.course import REPO_ROOT
from tests.notebooks.attributions import _REFERENCES, load

WORDS = (r"three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|hundred|"
         r"thousand|million|twice|half")
#: comparisons; below, above, under, over, within and up to only before a number or a formula
COMPARISONS = (r"(?:larger|smaller|greater|fewer|less|more|bigger) than|at least|at most|exceeds?|"
               r"(?:below|above|under|over|within|up to)(?= [$`\d])")
_MATHS = re.compile(r"\$\$.*?\$\$|\$[^$\n]*\$", re.DOTALL)
_TOKEN = re.compile(rf"(?<![\w.,])\d{{1,3}}(?:,\d{{3}})+(?![\d])|(?<![\w.])\d+(?![\w.]|\.\d)"
                    rf"|\b(?:{WORDS})\b(?!-)|\b(?:{COMPARISONS})\b", re.IGNORECASE)
#: a numbered list's or heading's own number, and a table row's label in its first column
_SYNTAX = re.compile(r"^(?:#+ )?\d+\.(?= |$)|^\s*\d+\.(?= )|^\| \d+ (?=\|)", re.MULTILINE)


@dataclass(frozen=True)
class Token:
    """One stated number or comparison: its text, where it starts in the notebook's text."""

    ps: str
    text: str
    start: int
    end: int
    around: str


def markdown(ps: str) -> str:
    """The markdown a student reads in ``ps``'s source, cells joined, whitespace as one space."""
    nb = load(REPO_ROOT / "source" / ps / f"{ps}.ipynb")
    cells = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"
             and not c["metadata"].get("nbgrader", {}).get("solution")]
    text = "\n\n".join(cells)
    return re.sub(r"[ \t]*\n[ \t]*(?![\n#*|>-]|\d+\. )", " ", text)  # a soft line break is a space


def _blank(text: str, pattern: re.Pattern | str, keep=None) -> str:
    def spaces(match):
        if keep and keep(match):
            return match[0]
        return re.sub(r"[^\n]", " ", match[0])
    return re.sub(pattern, spaces, text)


def tokens(ps: str, text: str | None = None) -> list[Token]:
    """Every stated token of ``ps`` (or of ``text``, read as ``ps``'s markdown)."""
    text = markdown(ps) if text is None else text
    masked = _blank(text, _SYNTAX)
    masked = _blank(masked, _MATHS)
    masked = _blank(masked, r"`[^`\n]*`")
    for ref in _REFERENCES:
        masked = _blank(masked, ref)
    found = [(m.start(), m.end()) for m in _TOKEN.finditer(masked)]
    return [Token(ps, text[a:b], a, b, " ".join(text[max(0, a - 60):b + 60].split()))
            for a, b in sorted(found)]


def covered(text: str, phrases: list[str]) -> list[tuple[int, int]]:
    """The spans of ``text`` that the allowed ``phrases`` (regular expressions) match."""
    spans = []
    for phrase in phrases:
        spans += [(m.start(), m.end()) for m in re.finditer(phrase, text)]
    return spans


def uncovered(ps: str, phrases: list[str], text: str | None = None) -> list[Token]:
    """The tokens of ``ps`` that lie in no match of an allowed phrase."""
    text = markdown(ps) if text is None else text
    spans = covered(text, phrases)
    return [t for t in tokens(ps, text) if not any(a <= t.start and t.end <= b for a, b in spans)]
