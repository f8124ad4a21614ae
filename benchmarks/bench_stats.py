"""Time of the class report's item statistics and fairness tests on a synthetic class.

Builds a gradebook-like table (:func:`kit.itemstats.synthetic.synthetic_class`: per-part
rows of ``--students`` students x ``--sets`` problem sets of 8 graded cells, two families
of numbers per set, 20 and 100 candidates), times :func:`kit.itemstats.stats.analyse` and
the two CSVs, and checks a planted harder candidate and a negatively discriminating cell are
found. Then, over ``--null`` classes without any effect (seeds 0, 1, ...), counts the
classes where anything was flagged: the report's false-flag rate (Holm keeps it at most
1 % per report)::

    python benchmarks/bench_stats.py [--students 1000] [--sets 7] [--null 20]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kit.itemstats.output import write_all
from kit.itemstats.stats import analyse
from kit.itemstats.synthetic import synthetic_class

GOAL = 60.0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=1000)
    parser.add_argument("--sets", type=int, default=7)
    parser.add_argument("--null", type=int, default=20, help="classes without an effect")
    args = parser.parse_args(argv)
    c = synthetic_class(args.students, args.sets, seed=101, harder=("ps1", "small", 4, 2.0),
                        negative=(f"ps{args.sets - 1}", f"ps{args.sets - 1}_cell6"))
    start = time.perf_counter()
    stats = analyse(c.rows, c.cells_of, c.drawn)
    with tempfile.TemporaryDirectory() as folder:
        write_all(stats, Path(folder))
    seconds = time.perf_counter() - start
    items = [(i.assignment, i.name) for i in stats.flagged_items()]
    variants = [(r.assignment, r.family, r.candidate) for r in stats.flagged_variants()]
    print(f"{args.students} students x {args.sets} problem sets ({len(c.rows)} per-part rows, "
          f"{len(stats.items)} items, {len(stats.fairness)} fairness rows): {seconds:.1f} s "
          f"(goal < {GOAL:.0f} s)")
    print(f"  flagged items: {items}\n  flagged variants: {variants}")
    found = (("ps1", "small", 4) in variants
             and (f"ps{args.sets - 1}", f"ps{args.sets - 1}_cell6") in items)
    kinds = {"an item": 0, "a family": 0, "a candidate": 0}
    for seed in range(args.null):
        clean = synthetic_class(args.students, args.sets, seed=seed)
        s = analyse(clean.rows, clean.cells_of, clean.drawn)
        kinds["an item"] += bool(s.flagged_items())
        kinds["a family"] += any(r.candidate is None for r in s.flagged_variants())
        kinds["a candidate"] += any(r.candidate is not None for r in s.flagged_variants())
    if args.null:
        print(f"of {args.null} classes without an effect, flagged "
              + ", ".join(f"{kind}: {n}" for kind, n in kinds.items())
              + " (at most 1 %, 1 % and 0.1 % of classes expected)")
    ok = found and seconds < GOAL
    print("planted effects found" if found else "*** a planted effect was missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
