"""Lists of yes/no answers (ps3's kernel-or-not verdicts) are scored as one list."""

from __future__ import annotations

__all__ = ["VERDICT_MIN", "verdict_lists"]


#: a cell's list of yes/no answers earns its points when all are right, half of them when
#: one is wrong, and nothing otherwise: a yes/no answer is right half the time by chance,
#: so counting them one by one would pay for guessing and for pasting someone else's list
VERDICT_MIN = 4


def _is_verdict(name: str, who) -> bool:
    from kpca_ref import variants
    from kpca_ref.grading import answers

    if who is None or answers._variant_items(name) is None:
        return False
    value = variants.variant(variants.problem_set_of(name), who.student).answers.get(name)
    return isinstance(value, bool) or getattr(value, "is_Boolean", False)


def verdict_lists(results, who, score: float) -> tuple[float, list[str]]:
    """Re-score a cell's yes/no answers as one list (see :data:`VERDICT_MIN`)."""
    verdicts = [(n, p, e) for n, p, e in results if _is_verdict(n, who)]
    if len(verdicts) < VERDICT_MIN:
        return score, []
    total = sum(p for _, p, _ in verdicts)
    right = sum(1 for _, p, e in verdicts if e >= p)
    wrong = len(verdicts) - right
    share = 1.0 if wrong == 0 else 0.5 if wrong == 1 else 0.0
    earned = round(total * share, 2)
    line = (f"verdicts: {right} of {len(verdicts)} right, {earned:g} of {total:g} points "
            "(a list of yes/no answers earns all its points when every answer is right, "
            "half when one is wrong, none otherwise)")
    return score - sum(e for _, _, e in verdicts) + earned, [line]
