"""All of the report's statistics from plain inputs: per-part rows, the cells each family's
exact items sit in, each student's candidates, and (when known) the named mistakes and the
instant checks per cell. The course's inputs come from :mod:`kit.itemstats.gather`, the
benchmark's and the tests' from :mod:`kit.itemstats.synthetic`."""

from __future__ import annotations

from dataclasses import dataclass, field

from kit.itemstats import fairness, items
from kit.itemstats.table import by_part, sheets


@dataclass
class Stats:
    """The report's item statistics (parts and cells, in each problem set's order) and its
    fairness rows (each family, then its candidates)."""

    items: list[items.Item] = field(default_factory=list)
    fairness: list[fairness.Result] = field(default_factory=list)

    def flagged_items(self) -> list[items.Item]:
        return [i for i in self.items if set(i.flags) - {items.TOO_FEW}]

    def flagged_variants(self) -> list[fairness.Result]:
        return [r for r in self.fairness if r.flagged]


def analyse(rows, cells_of: dict, drawn: dict, mistakes: dict | None = None,
            checks: dict | None = None, order=None) -> Stats:
    """:class:`Stats` of per-part ``rows``.

    ``cells_of``: ``{(assignment, family): {grade_id, ...}}``; ``drawn``: ``{(assignment,
    family): {student: candidate}}``; ``mistakes``: ``{(assignment, grade_id): [(code, n)]}``;
    ``checks``: ``{(assignment, grade_id): {exact item: figures}}``; ``order``: the problem
    sets' order (default: as the rows give them)."""
    found = Stats()
    tables = sheets(rows)
    names = [a for a in (order or []) if a in tables] + [a for a in tables if a not in (order or [])]
    for a in names:
        sheet = tables[a]
        found.items += items.describe(by_part(sheet), "part")
        for item in items.describe(sheet, "cell"):
            item.mistakes = (mistakes or {}).get((a, item.name), [])
            item.checks = (checks or {}).get((a, item.name), {})
            found.items.append(item)
        for (assignment, family), cells in sorted(cells_of.items()):
            if assignment == a and cells & set(sheet.cells):
                found.fairness += fairness.family_results(sheet, family, cells,
                                                          drawn.get((a, family), {}))
    items.flag(found.items)
    fairness.correct(found.fairness)
    return found

