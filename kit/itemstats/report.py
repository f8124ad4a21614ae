"""The class report's hook (:func:`kit.report.page.write_report`): statistics, CSVs, sections."""

from __future__ import annotations

from pathlib import Path

from kit.course import ASSIGNMENTS
from kit.itemstats.gather import gather
from kit.itemstats.output import sections, write_all
from kit.itemstats.stats import analyse


def report_sections(course, outcomes, folder) -> str:
    """Compute the statistics of ``outcomes``, write the two CSVs into ``folder`` and return
    the class report's sections (the hook of :func:`kit.report.page.write_report`)."""
    found = {o.assignment for o in outcomes}
    stats = analyse(**gather(course, outcomes, [a for a in ASSIGNMENTS if a in found]
                             + sorted(found - set(ASSIGNMENTS))))
    write_all(stats, Path(folder))
    return sections(stats)
