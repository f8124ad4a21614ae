"""Check what the notebooks attribute to the notes against the notes themselves.

Every sentence of a notebook that names a source ("the lecture('s)", "the notes", "the exam
card", "the textbook", "in class", ...) may only quote numbers that the README's table of
worked examples lists, for that problem set, with a source of the named kind; and every
table row's numbers must be found in its seed file, after the row's anchor. Signs are not
compared (the seeds write minus signs in several ways); everything else is.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

#: the lecture notes: ``KPCA_SEEDS``, or ``shared/seeds/`` beside the repository
SEEDS = Path(os.environ.get("KPCA_SEEDS") or Path(__file__).resolve().parents[3] / "shared" / "seeds")
#: text searched after a row's last anchor for its numbers
EXCERPT = 3000

#: attribution phrase -> the seed files (by prefix) it may refer to
FAMILIES = [
    (r"\bin class\b|\bthe self-test\b|\bthe lectures?(?:'s|s'|')?(?! notes)\b", {"000"}),
    (r"\bthe exam cards?(?:'s|s'|')?|\bthe card(?:'s|s')?\b|\bthe cards'", {"001"}),
    (r"\bthe textbook(?:'s)?\b", {"002"}),
    (r"\bthe (?:lecture )?notes(?:')?\b", {"000", "001", "002", "003", "004"}),
]
PHRASE = re.compile("|".join(f"(?:{p})" for p, _ in FAMILIES), re.IGNORECASE)
#: a phrase naming one of the source's examples
EXAMPLE = re.compile(r"(?:lectures?|notes|exam cards?|card|textbook)(?:'s|s'|')\s+(?:own\s+)?(?:\w+[- ])?"
                     r"(?:example|list|points?|pair|circle|matrix|candidates|counterexample|table|"
                     r"figure|picture|ratios)\b", re.IGNORECASE)

#: references that hold digits but quote no number of an example
_REFERENCES = [
    r"\bTest[- ]yourself Q\d+", r"\bQ\d+\b", r"\bParts? \d+(?:\s*(?:and|,|to|-|–)\s*\d+)*",
    r"\b[Ll]ectures? \d+(?:\s*(?:–|-|to)\s*\d+)?", r"\b[Pp]roblem sets? \d+", r"\b[Ss]ections? \d+",
    r"\(\d+(?:\.\d+)? points?\)", r"\bps\d\b", r"\bL\d+\b", r"\b\d+:\d\d\b",
    r"\bExample \d+\b", r"\b\d+-D\b", r"\bfiles? 00\d\b",  # a seed file's name: 000 ... 004
]
_FRACTIONS = [
    re.compile(r"\\t?frac\{(\d+)\}\{(\d+)\}"), re.compile(r"\\t?frac\{(\d+)\}(\d)"),
    re.compile(r"\\t?frac(\d)(\d)"), re.compile(r"(?<![\d.])(\d+)/(\d+)(?!\d|\.\d)"),
]
#: a number, but not a subscript or a name's digits (x_1, S_2, N.k10, eig_3pt)
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\d])")


def numbers(text: str) -> set[str]:
    """The numbers written in ``text``: a fraction as ``p/q``, ``p`` and ``q``; signs dropped."""
    text = text.replace("{,}", ",").replace("\\,", "")
    text = re.sub(r"(?<![\d.])(\d{1,3})((?:,\d{3})+)(?![\d])", lambda m: m[1] + m[2].replace(",", ""), text)
    for ref in _REFERENCES:
        text = re.sub(ref, " ", text)
    found = set()
    for pattern in _FRACTIONS:
        for match in pattern.finditer(text):
            found |= {f"{int(match[1])}/{int(match[2])}", str(int(match[1])), str(int(match[2]))}
        text = pattern.sub(" ", text)
    for token in _NUMBER.findall(text):
        found.add(_normal(token))
    return found


def _normal(token: str) -> str:
    if "." in token:
        token = token.rstrip("0").rstrip(".")
    return token if token.startswith("0.") else (token.lstrip("0") or "0")


def _families(sentence: str) -> list[set[str]]:
    found = []
    for match in PHRASE.finditer(sentence):
        for pattern, files in FAMILIES:
            if re.fullmatch(pattern, match[0], re.IGNORECASE):
                found.append(files)
                break
    return found


@dataclass
class Row:
    """One row of the README's table of worked examples."""

    example: str
    numbers: set[str]
    problem_sets: set[str]
    source: str  # "000" ... "004", or "own"
    anchors: list[str]


def parse_table(readme: str) -> list[Row]:
    """Rows of the table under the heading ``### Worked examples and where they come from``."""
    part = readme.split("### Worked examples and where they come from", 1)[1]
    rows = []
    for line in part.splitlines()[1:]:
        if line.startswith("#"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not line.startswith("|") or set(cells[0]) <= set("-: "):
            continue
        if cells[0] == "example":
            continue
        example, nums, sets, source = cells
        own = "kit's own" in source
        seed = re.search(r"`(\d{3})`", source)
        rows.append(Row(example, numbers(nums), set(re.findall(r"ps\d", sets)),
                        "own" if own or not seed else seed[1], re.findall(r'"([^"]+)"', source)))
    return rows


def seed_text(prefix: str) -> str:
    (path,) = SEEDS.glob(f"{prefix}_*.txt")
    return " ".join(path.read_text(encoding="utf-8").split())


def row_problems(row: Row) -> list[str]:
    """What is wrong with one row: anchors missing from its seed, numbers missing after them."""
    if row.source == "own":
        return []
    if not row.anchors:
        return [f"{row.example}: no anchor to find in {row.source}"]
    text, at = seed_text(row.source), 0
    for anchor in row.anchors:
        found = text.find(" ".join(anchor.split()), at)
        if found < 0:
            return [f"{row.example}: anchor {anchor!r} not found in {row.source} (in order)"]
        at = found
    excerpt = text[at:at + EXCERPT]
    question = re.fullmatch(r"Q(\d+)", row.anchors[-1])
    if question:  # a Test-yourself question ends where the next one starts
        excerpt = excerpt.split(f"Q{int(question[1]) + 1}", 1)[0]
    missing = row.numbers - numbers(excerpt)
    return [f"{row.example}: {sorted(missing)} not in {row.source} after {row.anchors[-1]!r}"] if missing else []


def sentences(notebook: dict) -> list[str]:
    """Markdown sentences and code comments of a notebook, one string each."""
    out = []
    for cell in notebook["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            out += _split(source)
        else:
            code = _code_numbers_text(source)
            for line in source.splitlines():
                if "#" in line:  # a comment naming a worked example speaks for its cell's code
                    comment = line.split("#", 1)[1]
                    named = EXAMPLE.search(comment) and not numbers(comment)
                    out.append(f"{comment} {code}" if named else comment)
            for docstring in re.findall(r'"""(.*?)"""', source, re.DOTALL):
                out += _split(docstring)
    return out


def _code_numbers_text(source: str) -> str:
    """The code of a cell without comments, strings and indexes: the numbers it computes with."""
    source = re.sub(r'""".*?"""|f?"[^"\n]*"|f?\'[^\'\n]*\'', " ", source, flags=re.DOTALL)
    source = "\n".join(line.split("#", 1)[0] for line in source.splitlines())
    return re.sub(r"\[[-:\d]*\]", " ", source)


def _split(text: str) -> list[str]:
    out = []
    for paragraph in re.split(r"\n\s*\n|\n(?=\s*(?:[*-] |\d+\. |\|))", text):
        if paragraph.lstrip().startswith("|"):  # a table row: each cell on its own
            out += paragraph.strip().strip("|").split("|")
            continue
        parts = re.split(r"(?:(?<=[.;!?])|(?<=\$\$))\s+(?=[A-Z*(])", " ".join(paragraph.split()))
        while len(parts) > 1 and parts[0].startswith("**") and len(parts[0].split()) < 8:
            parts[:2] = [f"{parts[0]} {parts[1]}"]  # a bold lead-in belongs to what follows
        out += parts
    return out


def attribution_problems(ps: str, notebook: dict, rows: list[Row]) -> list[str]:
    """Attributed sentences of ``ps`` that no seed row of the named kind holds.

    A sentence's numbers must all belong to one row (of the problem set, from a seed file
    the phrase may name); a sentence that names an example of a source ("the lecture's
    example", "the textbook's new point", ...) must quote its numbers or cite its Test-yourself
    question, and a cited question must be a row of the table for the problem set.
    """
    problems = []
    for sentence in sentences(notebook):
        families = _families(sentence)
        if not families:
            continue
        allowed = set().union(*families)
        quoted = numbers(sentence)
        candidates = [r for r in rows if ps[:3] in r.problem_sets and r.source in allowed]
        if quoted and not any(quoted <= r.numbers for r in candidates):
            near = max(candidates, key=lambda r: len(quoted & r.numbers), default=None)
            missing = sorted(quoted - near.numbers) if near else sorted(quoted)
            problems.append(f"{ps}: {missing} of {sorted(quoted)} attributed to {sorted(allowed)}"
                            f" in: {sentence[:160]!r}")
        cited = set(re.findall(r"\bQ(\d)\b", sentence))
        for q in sorted(cited - {r.anchors[-1][1:] for r in candidates if re.fullmatch(r"Q\d", r.anchors[-1])}):
            problems.append(f"{ps}: cites Q{q}, which no row of the table gives for it: {sentence[:160]!r}")
        if not quoted and not cited and EXAMPLE.search(sentence):
            problems.append(f"{ps}: names an example of {sorted(allowed)} without its numbers:"
                            f" {sentence[:160]!r}")
    return problems


def usage_problems(rows: list[Row], notebooks: dict[str, dict]) -> list[str]:
    """Rows whose numbers a listed problem set never writes (the table is out of date)."""
    problems = []
    for row in rows:
        for ps in row.problem_sets:
            (name,) = [n for n in notebooks if n.startswith(ps)]
            text = " ".join("".join(c["source"]) for c in notebooks[name]["cells"])
            missing = row.numbers - numbers(text)
            if missing:
                problems.append(f"{row.example}: {sorted(missing)} not in {name}")
    return problems


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))
