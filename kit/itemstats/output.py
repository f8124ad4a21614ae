"""``reports/item_stats.csv``, ``reports/fairness.csv`` and the class report's two sections.

Every text that reaches a page is escaped (``html.escape`` after :func:`kit.inert.inert`; a
part's heading through :func:`kit.html.maths.maths_text`, its TeX drawn as MathML:
grade ids and headings are the instructor's, mistake codes are checked by the gatherer, but
nothing here relies on that), and every CSV cell goes through
:func:`kit.gradebook.export.not_a_formula`, so a spreadsheet never reads one as a formula.
"""

from __future__ import annotations

import csv
import html
import math
import re
from pathlib import Path

from kit.gradebook.export import not_a_formula
from kit.html.maths import maths_text
from kit.inert import inert
from kit.itemstats import fairness, items
from kit.itemstats.stats import Stats

ITEM_COLUMNS = ("assignment", "level", "part", "item", "max_points", "students", "mean_share",
                "difficulty", "discrimination", "p_negative", "named_mistakes",
                "checks_students", "checks_attempts", "checks_first_try_right", "flags")
FAIRNESS_COLUMNS = ("assignment", "family", "candidate", "students", "right", "share_right",
                    "rest_share_right", "test", "p_value", "p_holm", "flagged", "note")


def _num(x, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return f"{x:.{digits}g}" if isinstance(x, float) and abs(x) < 1e-3 and x else f"{round(x, digits):g}"


def _mistakes(item: items.Item) -> str:
    return "; ".join(f"{code} ({n})" for code, n in item.mistakes[:3])


def item_rows(stats: Stats) -> list[dict]:
    out = []
    for i in stats.items:
        c = list(i.checks.values())
        out.append({
            "assignment": i.assignment, "level": i.level, "part": i.part,
            "item": i.name, "max_points": _num(i.max_points), "students": i.students,
            "mean_share": _num(i.mean_share), "difficulty": _num(i.difficulty),
            "discrimination": _num(i.discrimination), "p_negative": _num(i.p_negative),
            "named_mistakes": _mistakes(i),
            "checks_students": sum(x["students"] for x in c) if c else "",
            "checks_attempts": sum(x["attempts"] for x in c) if c else "",
            "checks_first_try_right": "; ".join(f"{k}: {_num(x['first_try'])}"
                                                for k, x in i.checks.items()),
            "flags": "; ".join(i.flags)})
    return out


def fairness_rows(stats: Stats) -> list[dict]:
    return [{"assignment": r.assignment, "family": r.family,
             "candidate": "all" if r.candidate is None else r.candidate,
             "students": r.students, "right": r.right, "share_right": _num(r.share_right),
             "rest_share_right": _num(r.rest_share_right),
             "test": ("" if r.p_value is None else "permutation chi-square" if r.candidate is None
                      else "Fisher exact, one-sided"),
             "p_value": _num(r.p_value), "p_holm": _num(r.p_holm),
             "flagged": "yes" if r.flagged else "", "note": r.note} for r in stats.fairness]


_NUMBER = re.compile(r"-?\d+(\.\d+)?(e-?\d+)?")


def _cell(value) -> str:
    """A number as it is (``-0.3`` is a number to a spreadsheet), any text inert and with a
    ``'`` in front when it starts like a formula."""
    text = str(value)
    return text if _NUMBER.fullmatch(text) else not_a_formula(inert(text))


def write(rows: list[dict], columns, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        writer.writerows({k: _cell(v) for k, v in row.items()} for row in rows)
    return path


def e(value) -> str:
    return html.escape(inert(str(value)))


def _item_table(stats: Stats, assignment: str) -> str:
    head = ("<tr><th>item</th><th>students</th><th>mean share</th><th>difficulty "
            "(full points)</th><th>discrimination</th><th>named mistakes</th>"
            "<th>instant checks: students, right at first try</th><th>flags</th></tr>")
    body = []
    for i, row in zip(stats.items, item_rows(stats)):
        if i.assignment != assignment:
            continue
        label = (f"<b>{maths_text(inert(i.name))}</b>" if i.level == "part"
                 else f"&nbsp;&nbsp;<code>{e(i.name)}</code>")
        checks = ", ".join(f"<code>{e(k)}</code> {x['students']}, {100 * x['first_try']:.0f}%"
                           for k, x in i.checks.items()) or "-"
        body.append(f"<tr><td>{label}</td><td class=num>{i.students}</td>"
                    f"<td class=num>{e(row['mean_share'])}</td><td class=num>{e(row['difficulty'])}</td>"
                    f"<td class=num>{e(row['discrimination']) or '-'}</td>"
                    f"<td>{e(row['named_mistakes']) or '-'}</td><td>{checks}</td>"
                    f"<td>{e(row['flags'])}</td></tr>")
    return f"<table class=itemstats>{head}{''.join(body)}</table>"


def _fairness_table(stats: Stats) -> str:
    head = ("<tr><th>problem set</th><th>family</th><th>students</th><th>candidates drawn</th>"
            "<th>share right</th><th>p (Holm)</th><th>hardest candidate tested</th><th></th></tr>")
    body = []
    for r in (r for r in stats.fairness if r.candidate is None):
        mine = [c for c in stats.fairness if c.candidate is not None
                and (c.assignment, c.family) == (r.assignment, r.family)]
        tested = sorted((c for c in mine if c.p_value is not None), key=lambda c: c.share_right)
        hardest = (f"#{tested[0].candidate}: {tested[0].right} of {tested[0].students} right, "
                   f"p (Holm) {_num(tested[0].p_holm)}" if tested else
                   f"none: {fairness.MIN_CANDIDATE} students per candidate needed")
        body.append(f"<tr><td>{e(r.assignment)}</td><td>{e(r.family)}</td><td class=num>"
                    f"{r.students}</td><td class=num>{len(mine)}</td><td class=num>"
                    f"{_num(r.share_right)}</td><td class=num>{_num(r.p_holm) or e(r.note) or '-'}"
                    f"</td><td>{e(hardest)}</td><td>{'flagged' if r.flagged else ''}</td></tr>")
    return f"<table class=fairness>{head}{''.join(body)}</table>"


def sections(stats: Stats) -> str:
    """The report's "Item statistics" and "Fairness across variants" sections."""
    flagged = "".join(f"<li>{e(i.assignment)} / {maths_text(inert(i.name))}: "
                      f"{e('; '.join(i.flags))}</li>"
                      for i in stats.flagged_items()) or "<li>none</li>"
    variants = "".join(
        f"<li>{e(r.assignment)} / {e(r.family)}"
        + ("" if r.candidate is None else f" candidate #{r.candidate}")
        + f": {r.right} of {r.students} right ({_num(r.share_right)}"
        + ("" if r.rest_share_right is None else f" against {_num(r.rest_share_right)}")
        + f"), p (Holm) {_num(r.p_holm)}</li>" for r in stats.flagged_variants()) or "<li>none</li>"
    sets = list(dict.fromkeys(i.assignment for i in stats.items))
    tables = "".join(f"<h3>{e(a)}</h3>{_item_table(stats, a)}" for a in sets)
    return (f"<section id=itemstats><h2>Item statistics</h2><p>Per graded part (bold) and "
            f"graded cell: difficulty is the share with full points, discrimination the "
            f"point-biserial correlation with the rest of the problem set's points; fewer than "
            f"{items.MIN_STUDENTS} students: no discrimination nor flag. Flags at a "
            f"family-wise error of {items.ALPHA:g} (Holm). Also in "
            f"<code>reports/item_stats.csv</code>.</p><h3>Flagged items</h3>"
            f"<ul class=flagged-items>{flagged}</ul>{tables}</section>"
            f"<section id=fairness><h2>Fairness across variants</h2><p>Right: full points on "
            f"every cell built on the family. Family: permutation chi-square test "
            f"({fairness.PERMUTATIONS} permutations) of its candidates; candidate: Fisher's "
            f"exact test, one-sided, against the family's other candidates; Holm's "
            f"correction, a family flagged below {items.ALPHA:g}, a candidate below "
            f"{fairness.ALPHA_CANDIDATE:g}. Every candidate in "
            f"<code>reports/fairness.csv</code>.</p><h3>Flagged variants</h3>"
            f"<ul class=flagged-variants>{variants}</ul>{_fairness_table(stats)}</section>")


def write_all(stats: Stats, folder: Path) -> tuple[Path, Path]:
    """Write ``item_stats.csv`` and ``fairness.csv`` into ``folder``."""
    return (write(item_rows(stats), ITEM_COLUMNS, folder / "item_stats.csv"),
            write(fairness_rows(stats), FAIRNESS_COLUMNS, folder / "fairness.csv"))
