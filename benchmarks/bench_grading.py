"""Grading throughput: stock serial ``nbgrader autograde`` against the kit's parallel grading.

A class of STUDENTS students hands in all five problem sets (the instructor's answers, as
a student would submit them). Both runs grade the same submissions in the same temporary
course, in the same run of this script:

- stock: ``nbgrader autograde <ps>`` once per problem set, one after another;
- kit:   ``kit.autograde.grade_class``, one grading process per core and one more.

Usage: ``.venv/bin/python benchmarks/bench_grading.py [--students 40] [--keep DIR]``
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kit.autograde import grade_class
from kit.course import ASSIGNMENTS, copy_course
from kit.release import release
from kit.submitted import build_submission, lay


def cpu_seconds() -> float:
    """CPU time the whole machine has spent busy so far (every process, from /proc/stat)."""
    try:
        fields = [int(v) for v in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    except OSError:
        return float("nan")
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument("--workers", type=int, default=(os.cpu_count() or 1) + 1,
                        help="grading processes of the kit (default: cores + 1, as kit.autograde)")
    parser.add_argument("--keep", type=Path, default=None, help="course folder to keep")
    args = parser.parse_args()

    root = args.keep or Path(tempfile.mkdtemp(prefix="bench_grading_"))
    course = copy_course(root)
    if release(course):
        return 1
    students = [f"student{i:03d}" for i in range(args.students)]
    for assignment in ASSIGNMENTS:
        nb = build_submission(course, assignment)
        for student in students:
            lay(course, assignment, student, nb)
    notebooks = len(students) * len(ASSIGNMENTS)
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")

    start, cpu = time.perf_counter(), cpu_seconds()
    for assignment in ASSIGNMENTS:
        subprocess.run([sys.executable, "-m", "nbgrader", "autograde", assignment, "--force"],
                       cwd=course.root, env=env, check=True, capture_output=True)
    stock, stock_cpu = time.perf_counter() - start, cpu_seconds() - cpu

    shutil.rmtree(course.root / "autograded")
    start, cpu = time.perf_counter(), cpu_seconds()
    outcomes = grade_class(course, workers=args.workers, progress=False)
    kit, kit_cpu = time.perf_counter() - start, cpu_seconds() - cpu
    failed = [o for o in outcomes if o.status != "graded"]

    load = os.getloadavg()[0]
    print(f"{args.students} students x {len(ASSIGNMENTS)} problem sets = {notebooks} notebooks, "
          f"{os.cpu_count()} cores, load average {load:.2f} at the end")
    print(f"{'grader':<34}{'wall s':>8}{'s / notebook':>14}{'speed-up':>10}"
          f"{'CPU s / notebook':>18}{'cores busy':>12}")
    for name, wall, cpu in (("stock nbgrader autograde (serial)", stock, stock_cpu),
                            (f"kit.autograde ({args.workers} processes)", kit, kit_cpu)):
        print(f"{name:<34}{wall:>8.1f}{wall / notebooks:>14.2f}{stock / wall:>10.2f}"
              f"{cpu / notebooks:>18.2f}{cpu / wall:>12.2f}")
    print(f"goals: speed-up {stock / kit:.2f} (>= 1.8: {'met' if stock / kit >= 1.8 else 'MISSED'}), "
          f"{kit / notebooks:.2f} s per notebook (<= 1.5: {'met' if kit / notebooks <= 1.5 else 'MISSED'})")
    if failed:
        print(f"{len(failed)} submissions were not graded: {failed[:3]}")
    if args.keep is None:
        shutil.rmtree(root, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
