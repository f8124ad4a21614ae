"""The plots of the class report: one PNG per problem set, embedded in the HTML page.

Left: the distribution of the auto-graded score over the graded notebooks (students who did
not hand in, and hand-ins that could not be graded, are not in it: the title counts them).
Right: the share of graded notebooks with full points on each auto-graded part, hardest first.
"""

from __future__ import annotations

import io

from kit.report.data import ProblemSet

#: Longest part title shown on the plot's axis (the table beside it has the whole title).
TITLE_CHARS = 38


def _short(title: str) -> str:
    return title if len(title) <= TITLE_CHARS else title[: TITLE_CHARS - 1] + "…"


def problem_set_png(ps: ProblemSet) -> bytes:
    """The PNG of ``ps``: score histogram and part pass rates."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (hist, bars) = plt.subplots(1, 2, figsize=(11, max(3.2, 0.32 * len(ps.parts) + 1.2)),
                                     gridspec_kw={"width_ratios": [1, 1.4]})
    scores = [m.auto for m in ps.graded.values()]
    top = max(ps.auto_max, 1)
    hist.hist(scores, bins=min(12, max(int(top), 1)), range=(0, top), color="#4c72b0",
              edgecolor="white")
    hist.set_title(f"auto-graded score of the {len(scores)} graded notebooks (max {ps.auto_max:g})\n"
                   f"not in it: {len(ps.missing)} not submitted, {len(ps.failed)} could not be graded",
                   fontsize=9)
    hist.set_xlabel("points")
    hist.set_ylabel("notebooks")
    hist.yaxis.get_major_locator().set_params(integer=True)
    labels = [f"{_short(p.title)} [{p.grade_id}]" for p in ps.parts]
    bars.barh(range(len(ps.parts)), [100 * p.full for p in ps.parts], color="#55a868")
    bars.set_yticks(range(len(ps.parts)), labels, fontsize=7)
    bars.set_xlim(0, 100)
    bars.invert_yaxis()
    bars.set_xlabel("% of graded notebooks with full points (hardest part first)")
    fig.suptitle(ps.name, fontsize=11)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=80)
    plt.close(fig)
    return buf.getvalue()
