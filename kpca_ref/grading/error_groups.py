"""Stated-error groups earn their points only beside a function that works.

A hidden group whose every case must raise (``"bad input raises ValueError"``) tests the
checks of a working function. Code that raises ``ValueError`` on every input passes such
groups while computing nothing: a ps0 hand-in returning the visible checks' values and
raising on everything else earned 3.7 of ps0's 20 function points that way. So
:func:`counted` keeps a passed error group only when at least one value group of the same
function passed, and says so in the group's feedback line otherwise.

That is only worth something if no value group can be passed without computing. The case
builders (:mod:`.cases_dimensions` ... :mod:`.cases_regression`) see to it: every value group
holds a case of the student's own draw whose answer is no constant of the result's shape, no
argument handed back and no answer to an input known beforehand (a visible check's, a fixed
hidden one), and a group of yes-or-no answers holds both. A degenerate case (n = 2,
eps = 0, zero steps, an error of 0) never stands alone in its group, since the constant it
answers would open the error groups. ``tests/grading/test_computes_nothing.py`` checks both
for every function of the seven problem sets.

>>> from kpca_ref.grading.cases import Case, Group
>>> from kpca_ref.grading.checks import Verdict
>>> groups = [Group("values", [Case((1,))]), Group("raises", [Case((0,), expect_error=ValueError)])]
>>> [v.ok for v in counted("f", groups, [Verdict(False, "wrong"), Verdict(True)])]
[False, False]
>>> counted("f", groups, [Verdict(False, "wrong"), Verdict(True)])[1].message
'error group not counted: no value group of f passed'
>>> [v.ok for v in counted("f", groups, [Verdict(True), Verdict(True)])]
[True, True]
"""

from __future__ import annotations

__all__ = ["NOT_COUNTED", "counted", "stated_error"]

#: the start of the feedback of a passed error group that is not counted
NOT_COUNTED = "error group not counted"


def stated_error(group) -> bool:
    """True for a group whose every case must raise (a "raises ValueError" group)."""
    return bool(group.cases) and all(case.expect_error is not None for case in group.cases)


def counted(name: str, groups, verdicts) -> list:
    """``verdicts`` (one per group) with passed error groups failed when no value group passed.

    A function without value groups keeps its verdicts (no contract function has none).
    """
    values = [v for g, v in zip(groups, verdicts) if not stated_error(g)]
    if not values or any(v.ok for v in values):
        return list(verdicts)
    text = f"{NOT_COUNTED}: no value group of {name} passed"
    return [v._replace(ok=False, message=text, code=None) if v.ok and stated_error(g) else v
            for g, v in zip(groups, verdicts)]
