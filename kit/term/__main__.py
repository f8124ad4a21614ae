"""``python -m kit.term``: set and list the term's calendar.

    python -m kit.term set ps1_circle_lift --opens "2026-12-03 09:00 Europe/Berlin" \\
        --due "2026-12-10 17:00 Europe/Berlin" --late "grace 15m; 10% per day; cap 50%"
    python -m kit.term extend ada ps1_circle_lift --days 3 --reason "ill, note seen"
    python -m kit.term extend ada ps1_circle_lift --until "2026-12-14 12:00 Europe/Berlin" --reason ...
    python -m kit.term exempt bob ps1_circle_lift --reason "joined the course late"
    python -m kit.term set ps1_circle_lift --practice "early; 5 checks; 20 draws"
    python -m kit.term show [--student ada]

Every time names its zone. ``--late none``: no late hand-ins (a hand-in after the due date and
its grace scores 0); ``--late off``: lateness is shown, nothing is taken. Changing what a graded
hand-in is judged by (its extension, exemption, the due date or policy) needs ``--regrade``,
which recomputes the late penalty of the graded hand-ins in the gradebook at once.
``--practice``: when students may draw practice numbers (``after`` their due date, the
default, ``early`` or ``off``), checks per item and draw, draws (:mod:`kit.term.practice`).
Errors: one line naming the problem, exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from kit.course import ASSIGNMENTS, REPO_ROOT, Course, quiet_gradebook
from kit.inert import inert
from kit.term.calendar import Calendar, Entry, Extension, load, save
from kit.term.gradebook import check_ps, graded, known_students, sync
from kit.term.practice import parse_practice
from kit.term.times import MAX_DAYS, Policy, format_duration, parse_policy, parse_time, show_time


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m kit.term", description="Set and list the term's calendar: each problem "
        "set's opening, due date and late policy, students' extensions and exemptions.")
    parser.add_argument("--course", type=Path, default=REPO_ROOT, help="the course directory")
    where = argparse.ArgumentParser(add_help=False)  # --course after the command works too
    where.add_argument("--course", type=Path, default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("set", parents=[where], help="a problem set's opening, due date and late policy")
    p.add_argument("ps")
    p.add_argument("--opens", help='e.g. "2026-12-03 09:00 Europe/Berlin"')
    p.add_argument("--due", help='e.g. "2026-12-10 17:00 Europe/Berlin"')
    p.add_argument("--late", help='"grace 15m; 10%% per day; cap 50%%", "none" or "off"')
    p.add_argument("--practice", help='"after; 5 checks; 20 draws" (the default), "early; ..." '
                   'or "off"')
    p.add_argument("--regrade", action="store_true", help="recompute graded hand-ins' penalties")
    for name, what in (("extend", "give a student more time"), ("exempt", "excuse a student")):
        p = sub.add_parser(name, parents=[where], help=what)
        p.add_argument("student")
        p.add_argument("ps")
        if name == "extend":
            how = p.add_mutually_exclusive_group(required=True)
            how.add_argument("--days", type=float, help="days after the problem set's due date")
            how.add_argument("--until", help='a new due date, e.g. "2026-12-14 12:00 Europe/Berlin"')
        p.add_argument("--reason", required=True)
        p.add_argument("--regrade", action="store_true",
                       help="allowed on a graded hand-in: its late penalty is recomputed")
        p.add_argument("--roster", type=Path, help="a roster CSV naming students not yet in the gradebook")
    p = sub.add_parser("show", parents=[where], help="list the calendar")
    p.add_argument("--student")
    return parser


def _set(course: Course, cal: Calendar, gb, args) -> str:
    ps = check_ps(args.ps)
    old = cal.entry(ps) or Entry(None, None, "UTC", Policy())
    opens, due, name = old.opens, old.due, old.zone
    if args.opens:
        opens, name = parse_time(args.opens)
    if args.due:
        due, name = parse_time(args.due)
    late = parse_policy(args.late) if args.late is not None else old.late
    practice = parse_practice(args.practice) if args.practice is not None else old.practice
    if opens and due and due <= opens:
        raise ValueError(f"{ps}: the due date {show_time(due, name)} is not after its opening "
                         f"{show_time(opens, name)}")
    for student, ext in cal.extensions.get(ps, {}).items():
        if due is None or (ext.until is not None and ext.until <= due):
            raise ValueError(f"{ps}: {student}'s extension would end before the due date: "
                             "extend it again first")
    entry = Entry(opens, due, name, late, practice)
    touched = (entry.due, entry.late) != (old.due, old.late)
    _guard_graded(gb, ps, None, touched and not args.regrade)
    cal.entries[ps] = entry
    return ps


def _guard_graded(gb, ps: str, student: str | None, refuse: bool) -> None:
    from nbgrader.api import Assignment, SubmittedAssignment

    if not refuse:
        return
    query = gb.db.query(SubmittedAssignment.student_id).join(Assignment).filter(Assignment.name == ps)
    if student is not None:
        if graded(gb, student, ps):
            raise ValueError(f"{student}'s hand-in of {ps} is already graded: add --regrade to "
                             "change it and recompute its late penalty")
    elif query.count():
        raise ValueError(f"{ps} has {query.count()} graded hand-ins: add --regrade to change its "
                         "due date or late policy and recompute their late penalties")


def _student(course: Course, cal: Calendar, gb, args) -> str:
    ps = check_ps(args.ps)
    if args.student not in known_students(course, gb, args.roster):
        raise ValueError(f"unknown student {args.student!r}: not in the gradebook, submitted/ "
                         "or the roster (add --roster students.csv)")
    entry = cal.entry(ps)
    if args.command == "extend":
        if entry is None or entry.due is None:
            raise ValueError(f"{ps} has no due date to extend: set it first (kit.term set {ps} --due ...)")
        if args.days is not None:
            if not 0 < args.days <= MAX_DAYS:
                raise ValueError(f"an extension of {args.days:g} days is not an extension: "
                                 f"give a positive number of days, at most {MAX_DAYS}")
            ext = Extension(args.reason, days=args.days)
        else:
            until, _ = parse_time(args.until)
            if until <= entry.due:
                raise ValueError(f"{args.until} is not after {ps}'s due date "
                                 f"{show_time(entry.due, entry.zone)}: an extension cannot shorten it")
            ext = Extension(args.reason, until=until)
    if not args.reason.strip():
        raise ValueError("--reason is empty: say why")
    _guard_graded(gb, ps, args.student, not args.regrade)
    if args.command == "extend":
        cal.extensions.setdefault(ps, {})[args.student] = ext
    else:
        cal.exemptions.setdefault(ps, {})[args.student] = args.reason
    return ps


def _known_to_show(course: Course, cal: Calendar, student: str) -> None:
    """ValueError unless ``student`` is known (the gradebook, ``submitted/``, the calendar):
    a mistyped name must not print the class's dates as if they were that student's."""
    from nbgrader.api import Gradebook

    named = {s for by in (*cal.extensions.values(), *cal.exemptions.values()) for s in by}
    if student in named:
        return
    with Gradebook(course.db_url) as gb:
        if student not in known_students(course, gb):
            raise ValueError(f"unknown student {student!r}: not in the gradebook, submitted/ "
                             "or the calendar")


def show(cal: Calendar, student: str | None = None) -> list[str]:
    """The calendar as lines: per problem set its dates and policy, or ``student``'s own."""
    lines = []
    for ps in ASSIGNMENTS:
        entry = cal.entry(ps)
        if entry is None:
            continue

        def when(t, zone=entry.zone):
            return show_time(t, zone) if t else "-"

        if student is None:
            lines.append(f"{ps}: opens {when(entry.opens)}, due {when(entry.due)}, "
                         f"late: {describe(entry.late)}; practice: {entry.practice.describe()}")
            for s, ext in sorted(cal.extensions.get(ps, {}).items()):
                how = f"{ext.days:g} days" if ext.days else "until"
                lines.append(f"  extension {inert(s)}: {how} -> {when(ext.due(entry.due))} ({inert(ext.reason)})")
            for s, reason in sorted(cal.exemptions.get(ps, {}).items()):
                lines.append(f"  exempt {inert(s)} ({inert(reason)})")
        else:
            own, note = cal.due_for(student, ps), ""
            if cal.exemption(student, ps) is not None:
                note = f" (exempt: {inert(cal.exemption(student, ps))})"
            elif cal.extension(student, ps):
                note = f" (extension: {inert(cal.extension(student, ps).reason)})"
            lines.append(f"{ps}: opens {when(entry.opens)}, due {when(own)}{note}")
    return lines or ["no calendar yet: python -m kit.term set <ps> --due \"...\""]


def describe(policy: Policy) -> str:
    """A late policy in words."""
    parts = [f"grace {format_duration(policy.grace)}"] if policy.grace else []
    if policy.zero:
        parts.append("no late hand-ins (scores 0)")
    elif policy.rate:
        unit = "day" if policy.step == 86400 else format_duration(policy.step)
        parts.append(f"{policy.rate:.4g} of the score per {unit}"
                     + (f", at most {policy.cap:.4g}" if policy.cap < 1 else ""))
    else:
        parts.append("no penalty")
    return "; ".join(parts)


def _whole_solutions_out(course: Course, ps: str) -> int:
    """How many students ``python -m kit.solutions`` handed the whole worked solution of ``ps``
    (its ``solutions/<student>/<ps>/released.json``, form ``full``)."""
    count = 0
    for record in (course.root / "solutions").glob(f"*/{ps}/released.json"):
        try:
            count += json.loads(record.read_text(encoding="utf-8")).get("form") == "full"
        except (OSError, ValueError, AttributeError):
            continue
    return count


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    course = Course(args.course.resolve())
    try:
        cal = load(course)
        quiet_gradebook()
        from nbgrader.api import Gradebook

        if args.command == "show":
            if args.student is not None:
                _known_to_show(course, cal, args.student)
            print("\n".join(show(cal, args.student)))
            return 0

        from kit.term.late import apply

        with Gradebook(course.db_url) as gb:
            ps = (_set if args.command == "set" else _student)(course, cal, gb, args)
            save(course, cal)
            sync(gb, cal, ps)
            out = _whole_solutions_out(course, ps) if args.command != "set" else 0
            if out:  # the code is the same for everyone: it cannot be called back
                print(f"kit.term: note: the whole worked solution of {ps} already went out to "
                      f"{out} student{'s' if out != 1 else ''}: {inert(args.student)} can read a "
                      "classmate's before handing in", file=sys.stderr)
            if args.regrade:
                who = [args.student] if args.command != "set" else [
                    s.student_id for s in gb.find_assignment(ps).submissions]
                for (_, s), verdict in sorted(apply(gb, course, [(ps, w) for w in who], cal).items()):
                    print(f"{inert(s)} / {ps}: late penalty {verdict.penalty:.4g}"
                          + (f" ({verdict.why})" if verdict.why else ""))
                print("feedback pages already written show the old penalty: generate them again")
    except ValueError as exc:
        print(f"kit.term: error: {inert(str(exc).splitlines()[0])}", file=sys.stderr)
        return 2
    print("\n".join(show(cal, getattr(args, "student", None) if args.command != "set" else None)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
