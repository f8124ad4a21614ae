"""``python -m kit.solutions``: release the worked solutions of a problem set.

    python -m kit.solutions ps1_circle_lift                      # every student whose time has come
    python -m kit.solutions ps1_circle_lift --students ada,bob   # these students only
    python -m kit.solutions ps1_circle_lift --hub                # and to the exchange (fetch_feedback)
    python -m kit.solutions ps1_circle_lift --code-now           # code too at each own due date

Each student gets nothing before their own due date (extension included), the exact answers
on their numbers from then on, and the whole solution once the class's last extension has
passed. ``--late-open``: release even though the late policy lets a hand-in count however
late. Named students who must still wait, and errors: one line each, exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kit.course import REPO_ROOT
from kit.inert import inert


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m kit.solutions", description="Release each student's worked solution of a "
        "problem set, on their own numbers, once their due date has passed.")
    parser.add_argument("ps", help="the problem set, e.g. ps1_circle_lift")
    parser.add_argument("--students", help="comma-separated student ids (default: every student)")
    parser.add_argument("--roster", type=Path, help="a roster CSV naming students not yet in the gradebook")
    parser.add_argument("--hub", action="store_true",
                        help="also release to the exchange: students fetch it with their feedback")
    parser.add_argument("--code-now", action="store_true",
                        help="code solutions at each student's own due date, not the class's last")
    parser.add_argument("--late-open", action="store_true",
                        help="release although the late policy lets a hand-in count however late")
    parser.add_argument("--workers", type=int, default=2,
                        help="solutions built at once, each in a sandboxed kernel (default 2)")
    parser.add_argument("--course", type=Path, default=REPO_ROOT, help="the course directory")
    return parser


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    from kit.solutions import release_solutions

    named = [s.strip() for s in args.students.split(",")] if args.students else None
    try:
        outcomes = release_solutions(args.course.resolve(), args.ps, named, code_now=args.code_now,
                                     late_open=args.late_open, hub=args.hub, roster=args.roster,
                                     workers=args.workers)
    except ValueError as exc:
        print(f"kit.solutions: error: {inert(str(exc).splitlines()[0])}", file=sys.stderr)
        return 2
    waiting = 0
    for outcome in outcomes:
        if outcome.form == "refused":
            waiting += 1
            print(f"not yet: {outcome.message}", file=sys.stderr)
            continue
        print(f"released: {outcome.message} -> solutions/{inert(outcome.student)}/{args.ps}/")
        if outcome.hub:
            print(f"  not on the hub: {inert(outcome.student)}: {outcome.hub}")
    if not outcomes:
        print("no students: name them with --students or --roster")
    return 2 if waiting and named else 0


if __name__ == "__main__":
    sys.exit(main())
