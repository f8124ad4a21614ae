"""Release worked solutions: check each student's time, build, run, guard, write, hand out.

:func:`release_solutions` is what ``python -m kit.solutions`` and the demo call. Per student:
the calendar says whether anything may go out yet and which form (:mod:`.schedule`); the
notebook is built and run on their numbers (:mod:`.notebook`); :func:`leaks` checks the files
hold no line of the hidden tests and nothing of the grading secret before anything is written;
then the files go to ``solutions/<student>/<ps>/`` and, on a hub course, to the exchange
(:mod:`.handout`).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from kit.course import ASSIGNMENTS, Course
from kit.inert import inert
from kit.solutions import handout, notebook
from kit.solutions.schedule import ANSWERS, FULL, SolutionRefused, decide, schedule
from kit.term import load
from kit.term import now as term_now

__all__ = ["Outcome", "check_student_id", "leaks", "release_solutions"]

_HIDDEN = re.compile(r"### BEGIN HIDDEN TESTS\n?(.*?)### END HIDDEN TESTS", re.DOTALL)
#: what a student id may not hold: it names a folder and is printed on a TA's terminal
_UNSAFE_ID = re.compile(r"[/\\\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]")


@dataclass
class Outcome:
    """What happened for one student: ``form`` (full, answers) or ``refused``, and the lines."""

    student: str
    form: str
    message: str
    files: list = field(default_factory=list)
    hub: str = ""


def check_student_id(student: str) -> str:
    """``student`` when it can name a folder of the course; ValueError naming it otherwise."""
    if (not isinstance(student, str) or not student.strip() or student.strip() != student
            or student.startswith(".") or _UNSAFE_ID.search(student) or len(student) > 128):
        raise ValueError(f"student id {inert(student)!r} cannot name a folder of the course "
                         "(empty, a leading dot or space, a slash, a control character, or over 128 characters)")
    return student


def _hidden_lines(source_nb) -> set[str]:
    """Lines of the hidden tests found nowhere else in the source (the release drops them)."""
    hidden, shown = set(), []
    for cell in source_nb.cells:
        for block in _HIDDEN.findall(cell.source):
            hidden |= {line.strip() for line in block.splitlines() if len(line.strip()) > 12}
        shown.append(_HIDDEN.sub("", cell.source))
    visible = "\n".join(shown)
    return {line for line in hidden if line not in visible}


def _secret_words(root: Path) -> list[str]:
    from kit.roster import course_salt
    from kit.secret import secret_path

    path = secret_path(root)
    if not path.is_file():
        return []
    secret = path.read_text(encoding="ascii").strip()
    if not secret:
        return []
    salt = course_salt(secret.encode("ascii")).hex()
    return [secret, secret[:16], secret[-16:], salt]


def leaks(texts: list[str], root: Path, source_nb) -> list[str]:
    """What of the grader's ``texts`` hold: hidden test lines, the grading secret or its salt."""
    import html as html_module

    found = []
    joined = "\n".join(texts + [html_module.unescape(t) for t in texts])
    for line in sorted(_hidden_lines(source_nb)):
        if line in joined:
            found.append(f"a hidden test line: {line[:60]!r}")
    for word in _secret_words(root):
        if word and word in joined:
            found.append("the grading secret (or the roster salt made from it)")
    return found


def _students(course: Course, wanted, roster: Path | None) -> list[str]:
    """The students named (each checked, and known to the course), else every one it knows."""
    from nbgrader.api import Gradebook

    from kit.course import quiet_gradebook
    from kit.term.gradebook import known_students

    wanted = [check_student_id(s) for s in dict.fromkeys(wanted or ())]
    quiet_gradebook()
    with Gradebook(course.db_url) as gb:
        known = known_students(course, gb, roster)
    unknown = [s for s in wanted if s not in known]
    if unknown:
        raise ValueError(f"unknown student {inert(unknown[0])!r}: not in the gradebook, submitted/ "
                         "or the roster (add --roster students.csv)")
    return wanted or sorted(known)


def _page(nb, ps: str) -> str:
    """The solution's page: the course's ``kpca_solution`` template (its maths MathML, no
    script, so it reads the same offline; :mod:`kit.html.maths`)."""
    from kit.feedback_labels import template_dirs
    from kit.handback.exporter import FeedbackExporter

    exporter = FeedbackExporter(template_name="kpca_solution", extra_template_basedirs=template_dirs())
    page, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": f"{ps}: worked solution"}})
    return page


def _build(course: Course, ps: str, student: str, form: str, sched, when, source_nb, release_nb,
           kernel: str | None) -> tuple[Outcome, str]:
    """One student's solution, run, checked and written: ``(outcome, page)``."""
    with notebook.PARSING:  # one thread parses at a time (CPython 3.11's ast, gh-106905)
        nb, kinds = notebook.solution_notebook(source_nb, student)
    nb = notebook.run(nb, student, kernel=kernel)
    if form == ANSWERS:
        if release_nb is None:
            raise ValueError(f"{ps} has no release to take the code cells from: "
                             f"python -m kit.release {ps}")
        with notebook.PARSING:
            nb = notebook.answers_only(nb, kinds, release_nb)
    text, page = nbformat.writes(nb), _page(nb, ps)
    found = leaks([text, page], course.root, source_nb)
    if found:
        raise ValueError(f"{inert(student)}'s solution of {ps} was not written: it holds "
                         + "; ".join(found))
    record = {"problem_set": ps, "student": student, "form": form,
              "released": when.isoformat(), "due": sched.due.isoformat(),
              "code_solutions_from": sched.code_at and sched.code_at.isoformat()}
    files = handout.write_files(course.root / handout.FOLDER / student / ps, ps, text, page, record)
    later = (f"code solutions from {sched.shown(sched.code_at)}" if sched.code_at else
             f"code solutions not while {inert(sched.exempt)} is exempt: --late-open")
    what = ("the whole worked solution" if form == FULL else
            f"the exact answers on their numbers ({later})")
    return Outcome(student, form, f"{inert(student)}: {what}", files), page


def release_solutions(course, ps: str, students=None, now: dt.datetime | None = None,
                      code_now: bool = False, late_open: bool = False, hub: bool = False,
                      roster: Path | None = None, workers: int = 2,
                      kernel: str | None = None) -> list[Outcome]:
    """Build and hand out the worked solutions of ``ps`` for ``students`` (default: every
    student the course knows) at ``now`` (default :func:`kit.term.now`).

    A student before their own due date gets nothing (an :class:`Outcome` ``refused`` saying
    until when); past it, the exact answers worked on their numbers; once the class's last
    extension has passed (or with ``code_now``), the whole solution. ``hub``: also release
    to the exchange for ``nbgrader fetch_feedback``. ``roster``: a CSV naming students the
    gradebook does not know yet. ``workers``: solutions built at once (each runs a sandboxed
    kernel). ``kernel``: run in another kernelspec than the grading sandbox (tests of the
    build only). Outcomes come in the order of the students.
    """
    from concurrent.futures import ThreadPoolExecutor

    course = course if isinstance(course, Course) else Course(Path(course))
    if ps not in ASSIGNMENTS:
        raise ValueError(f"unknown problem set {inert(ps)!r}: one of {', '.join(ASSIGNMENTS)}")
    if not 1 <= int(workers) <= 64:
        raise ValueError(f"workers must be 1 to 64, got {workers!r}")
    when = now or term_now()
    cal = load(course)
    source_nb = nbformat.read(course.notebook("source", ps), as_version=4)
    release_path = course.notebook("release", ps)
    release_nb = nbformat.read(release_path, as_version=4) if release_path.is_file() else None
    outcomes, due, names = {}, [], _students(course, students, roster)
    for student in names:
        try:
            check_student_id(student)  # the course knows it, but it cannot name a folder
        except ValueError as exc:
            outcomes[student] = Outcome(student, "refused", str(exc))
            continue
        sched = schedule(cal, ps, student, code_now=code_now, late_open=late_open)  # class-wide refusals stop it all
        try:
            due.append((student, decide(sched, when), sched))
        except SolutionRefused as exc:
            outcomes[student] = Outcome(student, "refused", str(exc))
    with ThreadPoolExecutor(max_workers=int(workers)) as pool:
        built = [(student, pool.submit(_build, course, ps, student, form, sched, when, source_nb,
                                       release_nb, kernel)) for student, form, sched in due]
        pages = {}
        for student, future in built:
            outcomes[student], pages[student] = future.result()
    staged = False
    for student in pages if hub else ():
        heading = f"Worked solution of {ps} on your numbers"
        outcomes[student].hub = handout.stage_for_hub(course.root, ps, student, pages[student], heading)
        staged = staged or not outcomes[student].hub
    if staged:
        handout.release_to_exchange(course, ps)
    return [outcomes[s] for s in names]
