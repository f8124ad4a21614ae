"""Which candidates of a family share an answer: the key classes practice draws avoid.

Every exact item is built on one family of numbers (:mod:`kpca_ref.variants`), and different
candidates can give one answer: ``ps1_lift_point`` depends on the point ``Q`` alone, so two
circles with one ``Q`` share it, and ``ps2_quad_kernel_direct`` takes 15 values over 172
pairs. A practice draw that only differs from a graded draw in its numbers could still hold
its key. :func:`key_class` names each candidate's class for an item: the first candidate
with the same answer (for an item whose sign is free, the same answer up to the signs of its
entries, so classes are larger: the cautious side). Practice compares classes, never raw
numbers (:mod:`kit.checks.practice`).

``python -m kit.checks.practice_keys --write`` answers every candidate once (about a minute)
into ``practice_classes.json`` beside this module, with each problem set's fingerprint
(:func:`kit.checks.guessing.fingerprint`); a test checks they are current. A problem set
whose stored classes are missing or stale is answered when first asked for.
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

__all__ = ["STORE", "classes", "key_class", "write"]

STORE = Path(__file__).with_name("practice_classes.json")


def compute(ps: str) -> dict[str, list[int]]:
    """``{item: [class of candidate 0, 1, ...]}`` of every item of ``ps`` but yes/no ones."""
    from kit.checks.guessing import answer_keys, yes_no
    from kpca_ref import variants

    mod, options = variants.module(ps), variants.families(ps)
    found: dict[str, list[int]] = {}
    for family, candidates in options.items():
        items = [i for i, f in mod.ITEMS.items() if tuple(f) == (family,) and not yes_no(i)]
        if not items:
            continue
        first: dict[str, dict[str, int]] = {item: {} for item in items}
        for item in items:
            found[item] = []
        combos = ((index,) for index in range(len(candidates)))
        for index, keys in enumerate(answer_keys(ps, (family,), combos, items)):
            for item in items:
                found[item].append(first[item].setdefault(keys[item], index))
    return found


@functools.cache
def _stored() -> dict:
    try:
        return json.loads(STORE.read_text())
    except (OSError, ValueError):
        return {}


@functools.cache
def classes(ps: str) -> dict[str, list[int]]:
    """The key classes of ``ps``'s items: stored when current, else computed now."""
    from kit.checks.guessing import fingerprint

    stored = _stored().get(ps, {})
    if stored.get("fingerprint") == fingerprint(ps):
        return stored["items"]
    return compute(ps)


def key_class(item: str, candidate: int) -> int:
    """The class of ``item``'s answer on its family's candidate ``candidate``."""
    from kpca_ref import variants

    return classes(variants.problem_set_of(item))[item][candidate]


def write(problem_sets=None) -> None:
    """Answer every candidate of ``problem_sets`` (default: all) and store the classes."""
    from kit.checks.guessing import fingerprint, layout
    from kpca_ref import variants

    store = dict(_stored())
    for ps in problem_sets or variants.PROBLEM_SETS:
        store[ps] = {"fingerprint": fingerprint(ps), "items": compute(ps)}
        print(f"{ps}: {len(store[ps]['items'])} items", flush=True)
    STORE.write_text(layout(store))
    _stored.cache_clear()
    classes.cache_clear()


def main(argv=None) -> int:
    from kit.checks.guessing import store_main

    return store_main(argv, prog="python -m kit.checks.practice_keys", doc=__doc__,
                      write_help="answer and store every item", write=write,
                      stored=_stored, name=STORE.name)


if __name__ == "__main__":
    sys.exit(main())
