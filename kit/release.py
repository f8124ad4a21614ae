"""Step 1 of the pipeline: generate ``release/`` (the student versions) from ``source/``.

``python -m kit.release`` regenerates every problem set; nbgrader's output is
byte-identical across runs, so ``release/`` is committed and a test checks it is current.
"""

from __future__ import annotations

import sys

from kit.course import ASSIGNMENTS, REPO_ROOT, Course


def release(course: Course, assignments=ASSIGNMENTS) -> list[str]:
    """Generate the release of each assignment; return the names that failed."""
    api = course.api()
    failed = []
    for name in assignments:
        result = api.generate_assignment(name, force=True)
        status = "ok" if result["success"] else "FAILED"
        print(f"release {name}: {status}")
        if not result["success"]:
            print(result.get("error") or result.get("log"), file=sys.stderr)
            failed.append(name)
    return failed


def main(argv=None) -> int:
    names = (argv if argv is not None else sys.argv[1:]) or list(ASSIGNMENTS)
    unknown = sorted(set(names) - set(ASSIGNMENTS))
    if unknown:
        print(f"unknown problem sets {unknown}; known: {', '.join(ASSIGNMENTS)}", file=sys.stderr)
        return 2
    return 1 if release(Course(REPO_ROOT), names) else 0


if __name__ == "__main__":
    sys.exit(main())
