"""Grading throughput: stock serial ``nbgrader autograde`` against the kit's parallel grading.

A class of STUDENTS students hands in every problem set (the instructor's answers, as
a student would submit them). Both runs grade the same submissions in the same temporary
course, in the same run of this script:

- stock: ``nbgrader autograde <ps>`` once per problem set, one after another;
- kit:   ``kit.autograde.grade_class``, one grading process per core and one more, twice:
  with every kernel started cold (``KPCA_SANDBOX_WARM=0``), then forked from the warm
  template (the default, kit/sandbox/warm.py); every notebook must get the same scores.

The floor (:mod:`floor`): the CPU of each problem set's cells alone, run once in a warm
interpreter; the kit's CPU per notebook is printed against it (goal: within 1.5x).

The overhead: each run's own CPU per notebook (``getrusage`` of this script's children:
the graders, their wrappers, judges, templates and kernels, whatever else runs on the
machine) less the floor, stock nbgrader's beside the kit's (goal: the kit's at most 1.0 CPU
s). Then ``--parts`` students' hand-ins are graded once more, one after another in this
process with their feedback pages (after one more student's, uncounted: a grading process
has graded others before), to split it into its parts (:mod:`overhead_parts`:
converter, judge, wrapper, gradebook, feedback, and the kernel's start and probe); their
scores must be the parallel runs'.

``--figures compare`` measures what keeping the figures costs instead: no stock run, the
kit's grading twice, with Agg (no figure kept) and with the inline backend (every figure a
PNG output, the default), and the extra CPU per notebook. CPU is counted twice: the whole
machine's busy time (``/proc/stat``; other work on the machine adds to it) and the grading
processes' own (``getrusage``) plus the kernels' own, which each kernel prints in a last
cell added to every submission for this measurement.

Usage: ``.venv/bin/python benchmarks/bench_grading.py [--students 40] [--parts 1] [--keep DIR]
[--figures {on,off,compare}]``
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import nbformat
from nbformat.v4 import new_code_cell

from kit.autograde import grade_class
from kit.course import ASSIGNMENTS, copy_course
from kit.engines import cputime
from kit.engines.cputime import machine_seconds as cpu_seconds
from kit.engines.processes import stop_fork_server
from kit.intake.submitted import build_submission, lay
from kit.release import release

sys.path.insert(0, str(Path(__file__).resolve().parent))
from floor import floor_seconds

#: Added as the last cell of each submission by ``--figures compare``: the kernel's own CPU
#: time (a sandboxed kernel is not a child this script can account for; it dies killed).
KERNEL_CPU_MARK = "KPCA-KERNEL-CPU"
KERNEL_CPU_CELL = (f"import resource as _r\n_u = _r.getrusage(_r.RUSAGE_SELF)\n"
                   f"print('{KERNEL_CPU_MARK}', _u.ru_utime + _u.ru_stime)")


def kernel_cpu_seconds(course) -> float:
    """Sum of the CPU the graded kernels report in their last cell (``--figures compare``)."""
    total = 0.0
    for path in course.root.glob("autograded/*/*/*.ipynb"):
        for cell in nbformat.read(path, as_version=4).cells:
            # the line may arrive in more than one stream output: read the cell's text whole
            text = "".join(out.get("text", "") for out in cell.get("outputs", []))
            for line in text.splitlines():
                if line.startswith(KERNEL_CPU_MARK):
                    total += float(line.split()[1])
    return total


def own_cpu_seconds() -> float:
    """CPU time of this process's finished children and theirs (workers, kernels).

    This script is a child subreaper (``main``): a cold kernel's sandbox killed under its
    wrapper becomes its child instead of PID 1's, and is reaped here first, so its CPU counts.
    """
    stop_fork_server()  # it reaped the kit's grading processes: reaped here, their CPU counts
    deadline = time.monotonic() + 3.0
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:  # no child left
            break
        if pid == 0:  # children alive: a dying orphan gets a moment, nothing else is waited for
            if time.monotonic() > deadline:
                break
            time.sleep(0.05)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def grade_kit(course, workers: int, figures: bool):
    """Grade the class the kit's way; (wall s, machine CPU s, own CPU s, failed outcomes).

    Own CPU: the grading processes' (from ``getrusage``) and, with ``--figures compare``,
    the kernels' (from their last cell)."""
    os.environ["KPCA_GRADING_FIGURES"] = "1" if figures else "0"
    shutil.rmtree(course.root / "autograded", ignore_errors=True)
    start, cpu, own = time.perf_counter(), cpu_seconds(), own_cpu_seconds()
    outcomes = grade_class(course, workers=workers, progress=False)
    wall = time.perf_counter() - start
    return (wall, cpu_seconds() - cpu, own_cpu_seconds() - own + kernel_cpu_seconds(course),
            [o for o in outcomes if o.status != "graded"])


def compare_figures(course, workers: int, notebooks: int) -> int:
    """Print the cost of keeping figures: the kit's grading without, then with them."""
    runs = {figures: grade_kit(course, workers, figures) for figures in (False, True)}
    pngs = sum(1 for nb in course.root.glob("autograded/*/*/*.ipynb")
               for cell in nbformat.read(nb, as_version=4).cells
               for out in cell.get("outputs", []) if "image/png" in out.get("data", {}))
    print(f"{notebooks} notebooks, {workers} processes, load average {os.getloadavg()[0]:.2f}")
    print(f"{'kit.autograde':<28}{'wall s':>8}{'s / notebook':>14}{'machine CPU s / nb':>20}"
          f"{'own CPU s / nb':>16}")
    for figures, (wall, cpu, own, _) in runs.items():
        name = "figures kept (inline)" if figures else "no figures (Agg)"
        print(f"{name:<28}{wall:>8.1f}{wall / notebooks:>14.2f}{cpu / notebooks:>20.2f}"
              f"{own / notebooks:>16.2f}")
    (_, _, off, _), (_, _, on, _) = runs[False], runs[True]
    extra = (on - off) / off if off else float("nan")
    print(f"figures kept: {pngs} PNG outputs; extra own CPU per notebook "
          f"{(on - off) / notebooks:+.2f} s ({extra:+.1%}; goal <= +10%: "
          f"{'met' if extra <= 0.10 else 'MISSED'})")
    failed = runs[False][3] + runs[True][3]
    if failed:
        print(f"{len(failed)} submissions were not graded: {failed[:3]}")
    return 1 if failed else 0


def parts_of_overhead(course, students, floors, scores, warm=()) -> list:
    """Grade ``students``' hand-ins once more, one after another in this process, with a
    last cell reporting the kernel's CPU, and print the overhead's parts
    (:mod:`overhead_parts`; with the feedback page, which the runs above do not write).
    The hand-ins of the ``warm`` students are graded first, uncounted, as a grading process
    of a class's run has graded others before. Returns the outcomes whose scores differ from
    ``scores``."""
    from overhead_parts import ORDER, measure

    from kit.engines.job import cell_scores

    if not students:
        return []
    for assignment in ASSIGNMENTS:
        for student in students:
            path = course.notebook("submitted", assignment, student)
            nb = nbformat.read(path, as_version=4)
            nb.cells.append(new_code_cell(KERNEL_CPU_CELL))
            nbformat.write(nb, path)
    jobs = [(a, s) for s in students for a in ASSIGNMENTS]
    warmed = [(a, s) for s in warm for a in ASSIGNMENTS]
    parts = measure(course, jobs, lambda: kernel_cpu_seconds(course), warmed)
    parts["kernel"] -= sum(floors[a] for a, _ in jobs) / len(jobs)  # its start and the probe
    print(f"the overhead's parts, CPU s per notebook ({len(jobs)} notebooks graded one after "
          "another in one process, feedback pages written): "
          + ", ".join(f"{p} {parts[p]:.2f}" for p in ORDER)
          + f"; total {sum(parts[p] for p in ORDER):.2f}"
          + (f" ({len(warmed)} notebooks graded before, uncounted)" if warmed else ""))
    overhead = sum(parts[p] for p in ORDER if p != "feedback")
    print(f"goal: the kit's overhead per notebook (everything but the cells' own CPU; no feedback "
          f"page, as stock autograde) at most 1.0 CPU s: {overhead:.2f} "
          f"({'met' if overhead <= 1.0 else 'MISSED'})")
    differ = []
    for assignment, student in warmed + jobs:
        got = {k: v for k, v in cell_scores(course, assignment, student).items()}
        if got != scores.get((student, assignment)):
            differ.append((student, assignment))
    if differ:
        print(f"scores that differ from the parallel runs': {differ[:5]}")
    return differ


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument("--workers", type=int, default=(os.cpu_count() or 1) + 1,
                        help="grading processes of the kit (default: cores + 1, as kit.autograde)")
    parser.add_argument("--keep", type=Path, default=None, help="course folder to keep")
    parser.add_argument("--parts", type=int, default=1,
                        help="students whose hand-ins are graded once more to split the "
                             "overhead into its parts (0: not)")
    parser.add_argument("--figures", choices=("on", "off", "compare"), default="on",
                        help="keep figures as PNG outputs (on, the default), not (off), or "
                             "measure the kit's grading both ways without the stock run")
    args = parser.parse_args()
    cputime.become_subreaper()  # own CPU counts the graders' orphans too (own_cpu_seconds)
    if args.figures != "compare":
        os.environ["KPCA_GRADING_FIGURES"] = "1" if args.figures == "on" else "0"

    root = args.keep or Path(tempfile.mkdtemp(prefix="bench_grading_"))
    course = copy_course(root)
    if release(course):
        return 1
    students = [f"student{i:03d}" for i in range(args.students)]
    for assignment in ASSIGNMENTS:
        nb = build_submission(course, assignment)
        if args.figures == "compare":
            nb.cells.append(new_code_cell(KERNEL_CPU_CELL))
        for student in students:
            lay(course, assignment, student, nb)
    notebooks = len(students) * len(ASSIGNMENTS)
    if args.figures == "compare":
        status = compare_figures(course, args.workers, notebooks)
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
        return status
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")

    start, cpu, own = time.perf_counter(), cpu_seconds(), own_cpu_seconds()
    for assignment in ASSIGNMENTS:
        subprocess.run([sys.executable, "-m", "nbgrader", "autograde", assignment, "--force"],
                       cwd=course.root, env=env, check=True, capture_output=True)
    stock, stock_cpu = time.perf_counter() - start, cpu_seconds() - cpu
    stock_own = own_cpu_seconds() - own

    runs = {}  # kernels started cold (as before the template), then forked warm (the default)
    for warm in (False, True):
        os.environ["KPCA_SANDBOX_WARM"] = "1" if warm else "0"
        shutil.rmtree(course.root / "autograded", ignore_errors=True)
        start, cpu, own = time.perf_counter(), cpu_seconds(), own_cpu_seconds()
        outcomes = grade_class(course, workers=args.workers, progress=False)
        runs[warm] = (time.perf_counter() - start, cpu_seconds() - cpu, outcomes,
                      own_cpu_seconds() - own)
    del os.environ["KPCA_SANDBOX_WARM"]
    kit, kit_cpu, outcomes, kit_own = runs[True]
    cold, cold_cpu, cold_outcomes, cold_own = runs[False]
    failed = [o for o in outcomes + cold_outcomes if o.status != "graded"]
    scores = {(o.student, o.assignment): o.scores for o in cold_outcomes}
    differ = [o for o in outcomes if scores.get((o.student, o.assignment)) != o.scores]

    load = os.getloadavg()[0]
    print(f"{args.students} students x {len(ASSIGNMENTS)} problem sets = {notebooks} notebooks, "
          f"{os.cpu_count()} cores, load average {load:.2f} at the end")
    print(f"{'grader':<34}{'wall s':>8}{'s / notebook':>14}{'speed-up':>10}"
          f"{'CPU s / notebook':>18}{'cores busy':>12}")
    for name, wall, cpu in (("stock nbgrader autograde (serial)", stock, stock_cpu),
                            (f"kit, cold kernels ({args.workers} proc.)", cold, cold_cpu),
                            (f"kit, warm kernels ({args.workers} proc.)", kit, kit_cpu)):
        print(f"{name:<34}{wall:>8.1f}{wall / notebooks:>14.2f}{stock / wall:>10.2f}"
              f"{cpu / notebooks:>18.2f}{cpu / wall:>12.2f}")
    print(f"goals: speed-up {stock / kit:.2f} (>= 1.8: {'met' if stock / kit >= 1.8 else 'MISSED'}), "
          f"{kit / notebooks:.2f} s per notebook (<= 1.5: {'met' if kit / notebooks <= 1.5 else 'MISSED'})")
    half = kit_cpu / cold_cpu
    print(f"goal: warm kernels at most half the CPU per notebook of cold ones: {half:.2f}x "
          f"({'met' if half <= 0.5 else 'MISSED'}); scores that differ between the two: "
          f"{len(differ)} of {len(outcomes)}")
    if failed:
        print(f"{len(failed)} submissions were not graded: {failed[:3]}")
    floors = {a: floor_seconds(course.notebook("submitted", a, students[0]), students[0])
              for a in ASSIGNMENTS}
    floor = sum(floors.values()) / len(floors)
    print("floor, CPU s of the cells alone in a warm interpreter: "
          + ", ".join(f"{a.split('_')[0]} {f:.2f}" for a, f in floors.items())
          + f"; mean {floor:.2f} per notebook")
    for name, cpu in (("stock", stock_cpu), ("kit, cold", cold_cpu), ("kit, warm", kit_cpu)):
        print(f"  {name}: {cpu / notebooks:.2f} CPU s per notebook = "
              f"{cpu / notebooks / floor:.2f}x the floor")
    ratio = kit_cpu / notebooks / floor
    print(f"goal: the kit within 1.5x the floor: {ratio:.2f}x "
          f"({'met' if ratio <= 1.5 else 'MISSED'})")
    print("own CPU (everything this script's graders ran, their orphans included, and nothing "
          "else the machine does):")
    for name, own in (("stock", stock_own), ("kit, cold", cold_own), ("kit, warm", kit_own)):
        print(f"  {name}: {own / notebooks:.2f} CPU s per notebook, over the floor "
              f"{own / notebooks - floor:.2f} s")
    differ += parts_of_overhead(course, students[:args.parts], floors, scores,
                                students[args.parts:args.parts + 1])
    if args.keep is None:
        shutil.rmtree(root, ignore_errors=True)
    return 1 if failed or differ else 0


if __name__ == "__main__":
    sys.exit(main())
