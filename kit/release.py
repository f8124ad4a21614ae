"""Step 1 of the pipeline: generate ``release/`` (the student versions) from ``source/``.

``python -m kit.release`` regenerates every problem set; nbgrader's output is
byte-identical across runs, so ``release/`` is committed and a test checks it is current.
``python -m kit.release --roster students.csv [ps ...]`` (LMS courses) also writes
``release_roster/<ps>/``: the release whose numbers cell knows the roster's salted hashes
(:mod:`kit.roster`); ``release/`` itself is the same as without it.
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
from pathlib import Path

from kit.course import ASSIGNMENTS, REPO_ROOT, Course

#: nbgrader's words when graded cells change after submissions were graded.
_GRADED_BEFORE = "Cannot add or remove cells"


def failure_reason(result: dict) -> str:
    """The one line that says why nbgrader's generate_assignment failed."""
    text = (result.get("log") or "") + "\n" + (result.get("error") or "")
    found = [m.group(1) for m in re.finditer(r"^\s*(\w+(?:Error|Exception): .+)$", text, re.MULTILINE)
             if not m.group(1).startswith("NbGraderException")]
    reason = found[-1] if found else "see nbgrader's log above"  # printed by release()
    if _GRADED_BEFORE in reason:
        reason += (".\n  The gradebook holds graded submissions of the old version, and nbgrader"
                   " will not add or remove graded cells under them. For a new term, start from"
                   " a fresh gradebook (move gradebook.db away); to drop this problem set's"
                   " grades: nbgrader db assignment remove <ps> --force")
    return reason


def release(course: Course, assignments=ASSIGNMENTS) -> list[str]:
    """Generate the release of each assignment; return the names that failed.

    A failed generation leaves ``release/<ps>/`` as it was (nbgrader deletes it first).
    """
    api = course.api()
    failed = []
    for name in assignments:
        folder = course.root / "release" / name
        with tempfile.TemporaryDirectory() as keep:
            kept = Path(keep) / name
            if folder.is_dir():
                shutil.copytree(folder, kept)
            result = api.generate_assignment(name, force=True)
            if not result["success"]:
                shutil.rmtree(folder, ignore_errors=True)
                if kept.is_dir():
                    shutil.copytree(kept, folder)
        if not result["success"]:
            print(result.get("log") or result.get("error") or "", file=sys.stderr)
            failed.append(name)
        status = "ok" if result["success"] else f"FAILED: {failure_reason(result)}"
        print(f"release {name}: {status}", flush=True)
    return failed


def main(argv=None) -> int:
    names = list(argv if argv is not None else sys.argv[1:])
    roster = None
    if "--roster" in names:
        at = names.index("--roster")
        if at + 1 >= len(names):
            print("--roster needs a CSV file with a student_id column", file=sys.stderr)
            return 2
        roster = Path(names[at + 1])
        del names[at:at + 2]
    names = names or list(ASSIGNMENTS)
    unknown = sorted(set(names) - set(ASSIGNMENTS))
    if unknown:
        print(f"unknown problem sets {unknown}; known: {', '.join(ASSIGNMENTS)}", file=sys.stderr)
        return 2
    ids = None
    if roster is not None:
        from kit.roster import read_roster

        ids = read_roster(roster)  # before releasing: a bad roster changes nothing
    course = Course(REPO_ROOT)
    if release(course, names):
        return 1
    if ids is not None:
        from kit.roster import write_roster_release
        from kit.secret import course_secret

        for path in write_roster_release(course.root, names, ids, course_secret(course.root)):
            print(f"roster release ({len(ids)} ids, salted hashes only): {path}")
    return 0

if __name__ == "__main__":
    sys.exit(main())
