"""What a guess is worth: the share of students whose answer is among an item's commonest values.

Each exact item is built on a few families of numbers (:mod:`kpca_ref.variants`); a student's
candidate of each family is drawn uniformly, so every combination of the item's candidates is
equally likely. Different combinations can share an answer: ``ps1_lift_dot_u`` has 139
circles but 25 different values, the commonest of them 10% of all students'. A student who
checks the ``k`` commonest values of an item is right for the share of students those values
cover, whatever their own numbers; the default number of checks
(:func:`kit.checks.policy.default_limit`) is the largest ``k`` whose share stays within
:data:`GUESS_SHARE`.

The counts are computed once by ``python -m kit.checks.guessing --write`` (about a minute:
every combination of every item's candidates is answered) into ``guess_shares.json`` beside
this module, with a fingerprint of each problem set's candidates and answer code; a test
checks that the fingerprints are current. An item whose stored counts are missing or stale
is counted when first asked for (the service warms every item at start).
"""

from __future__ import annotations

import argparse
import collections
import functools
import hashlib
import inspect
import itertools
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path

__all__ = ["GUESS_SHARE", "guess_limit", "item_counts", "stored_counts", "yes_no"]

#: the most a student's checks may be worth by guessing alone: a tenth of the class
GUESS_SHARE = 0.10
#: commonest values kept per item (enough for any sensible number of checks)
TOP = 25
#: combinations answered exhaustively up to this many; a fixed sample of as many beyond
MAX_COMBINATIONS = 5000
STORE = Path(__file__).with_name("guess_shares.json")


def _key(value, signed: bool) -> str:
    """A value as text; for an item whose sign is free, its entries' absolute values (a
    guess then covers every sign pattern, so fewer, larger groups: the cautious side)."""
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_key(v, signed) for v in value) + "]"
    if getattr(value, "is_Matrix", False):
        entries = [abs(v) for v in value] if signed else list(value)
        return f"{value.shape}{entries}"
    return str(abs(value) if signed else value)


def yes_no(item: str) -> bool:
    """Whether ``item`` is answered yes or no (ps3's verdicts, judged by a witness or a
    certificate: its problem set's ``CHECKED``): one check of it would give it away."""
    from kpca_ref import variants

    return item in getattr(variants.module(variants.problem_set_of(item)), "CHECKED", ())


def fingerprint(ps: str) -> str:
    """SHA-256 of the problem set's candidates, items and answer code."""
    from kpca_ref import variants

    mod = variants.module(ps)
    text = json.dumps([variants.families(ps), mod.ITEMS, sorted(mod.UP_TO_SIGN)],
                      sort_keys=True, default=str) + inspect.getsource(mod)
    return hashlib.sha256(text.encode()).hexdigest()


def answer_keys(ps: str, fams: tuple[str, ...], combos, items) -> Iterator[dict[str, str]]:
    """For each combination of candidate indices of the families ``fams`` (every other
    family at its first candidate), ``{item: its answer as text}`` (:func:`_key`)."""
    from kpca_ref import variants
    from kpca_ref.variants import _namespace

    mod, options = variants.module(ps), variants.families(ps)
    for combo in combos:
        chosen = {f: candidates[0] for f, candidates in options.items()}
        chosen.update({f: options[f][i] for f, i in zip(fams, combo)})
        found = mod.answers(_namespace(chosen))
        yield {item: _key(found[item], item in mod.UP_TO_SIGN) for item in items}


@functools.cache
def _group_counts(ps: str, fams: tuple[str, ...]) -> dict[str, tuple[int, list[int]]]:
    """``{item: (combinations, counts of its commonest values)}`` for the items built on
    exactly the families ``fams``."""
    from kpca_ref import variants

    mod, options = variants.module(ps), variants.families(ps)
    items = [i for i, f in mod.ITEMS.items() if tuple(f) == fams]
    combos = itertools.product(*[range(len(options[f])) for f in fams])
    total = 1
    for family in fams:
        total *= len(options[family])
    if total > MAX_COMBINATIONS:
        pick = random.Random(f"{ps}/{fams}")  # the same sample every run
        combos = [tuple(pick.randrange(len(options[f])) for f in fams)
                  for _ in range(MAX_COMBINATIONS)]
    counts = {item: collections.Counter() for item in items}
    seen = 0
    for keys in answer_keys(ps, fams, combos, items):
        seen += 1
        for item in items:
            counts[item][keys[item]] += 1
    return {item: (seen, [c for _, c in counts[item].most_common(TOP)]) for item in items}


def item_counts(item: str) -> tuple[int, list[int]]:
    """``(combinations, counts of the commonest values)`` of ``item``, freshly counted."""
    from kpca_ref import variants

    ps = variants.problem_set_of(item)
    return _group_counts(ps, tuple(variants.module(ps).ITEMS[item]))[item]


@functools.cache
def stored_counts() -> dict:
    """``guess_shares.json``: ``{ps: {"fingerprint": ..., "items": {item: [n, counts]}}}``."""
    try:
        return json.loads(STORE.read_text())
    except (OSError, ValueError):
        return {}


@functools.cache
def _counts(item: str) -> tuple[int, list[int]]:
    from kpca_ref import variants

    ps = variants.problem_set_of(item)
    stored = stored_counts().get(ps, {})
    if item in stored.get("items", {}) and stored.get("fingerprint") == fingerprint(ps):
        total, counts = stored["items"][item]
        return total, counts
    return item_counts(item)


def guess_limit(item: str, attempts: int, share: float = GUESS_SHARE) -> int:
    """The most checks, up to ``attempts``, whose best guesses cover at most ``share`` of
    the students (0 when the commonest value alone covers more)."""
    total, counts = _counts(item)
    covered, limit = 0, 0
    for count in counts[:max(attempts, 0)]:
        if (covered + count) / total > share:
            break
        covered, limit = covered + count, limit + 1
    return limit


def layout(store: dict) -> str:
    """``store`` (``{ps: {"fingerprint": ..., "items": {item: value}}}``) as JSON with one
    line per item (reviewable in a diff)."""
    blocks = []
    for ps in sorted(store):
        items = store[ps]["items"]
        lines = ",\n".join(f"   {json.dumps(i)}: {json.dumps(items[i])}" for i in sorted(items))
        blocks.append(f' {json.dumps(ps)}: {{\n  "fingerprint": '
                      f'{json.dumps(store[ps]["fingerprint"])},\n  "items": {{\n{lines}\n  }}\n }}')
    return "{\n" + ",\n".join(blocks) + "\n}\n"


def write(problem_sets=None) -> dict:
    """Count every item of ``problem_sets`` (default: all) and store the counts."""
    from kpca_ref import variants

    store = dict(stored_counts())
    for ps in problem_sets or variants.PROBLEM_SETS:
        items = {item: list(item_counts(item)) for item in variants.module(ps).ITEMS
                 if not yes_no(item)}  # yes/no verdicts are never checked
        store[ps] = {"fingerprint": fingerprint(ps), "items": items}
        print(f"{ps}: {len(items)} items counted", flush=True)
    STORE.write_text(layout(store))
    stored_counts.cache_clear()
    _counts.cache_clear()
    return store


def store_main(argv, *, prog: str, doc: str, write_help: str, write, stored, name: str) -> int:
    """The command line of a stored table of problem sets: ``--write [ps ...]`` rebuilds it,
    else it says which problem sets' fingerprints are stale (exit 1) or that it is current."""
    parser = argparse.ArgumentParser(prog=prog, description=doc.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=write_help)
    parser.add_argument("problem_sets", nargs="*")
    args = parser.parse_args(argv)
    if args.write:
        write(args.problem_sets or None)
        return 0
    from kpca_ref import variants

    stale = [ps for ps in variants.PROBLEM_SETS
             if stored().get(ps, {}).get("fingerprint") != fingerprint(ps)]
    print("stale: " + ", ".join(stale) if stale else f"{name} is current")
    return 1 if stale else 0


def main(argv=None) -> int:
    return store_main(argv, prog="python -m kit.checks.guessing", doc=__doc__,
                      write_help="count and store every item", write=write,
                      stored=stored_counts, name=STORE.name)


if __name__ == "__main__":
    sys.exit(main())
