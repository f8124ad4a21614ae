"""Where a notebook's grading overhead goes: CPU per part, graded one after another in this process.

:func:`measure` grades the given hand-ins serially through the kit's own path
(:func:`kit.engines.job.autograde_student`, then the feedback page) in this process, with
every nbconvert preprocessor's ``__call__`` timed, and splits the CPU into parts:

- ``converter``: nbgrader's converter and the kit's job around it (the app and its config,
  reading and writing the notebooks, the sanitising steps, the kernel's client side);
- ``judge``: the hidden tests' case inputs (WriteCases) and the judging (JudgeHiddenTests),
  its forked child or judge process included;
- ``wrapper``: the processes the grader starts and reaps around each kernel (the sandbox
  wrapper's Python, bubblewrap probes);
- ``gradebook``: the steps that write the gradebook (SaveAutoGrades, the received time, the
  calendar and late penalties) and reading the scores back;
- ``feedback``: the feedback page;
- ``kernel``: the kernel's own CPU (reported by a last cell added to each hand-in, see
  ``KERNEL_CPU_CELL`` in bench_grading.py) less the floor: its start and the probe.

CPU is ``getrusage`` of this process and of the children it reaped; a warm kernel is the
template's child, not ours, hence its own report. ``warm`` hand-ins are graded first and not
counted: a grading process grades many notebooks, and what it computes once per process
(nbgrader's converter set up, a problem set's release notebook read, its number families
drawn) is then paid for as often as in a class's run, not once per notebook measured.
"""

from __future__ import annotations

import resource
import time
from collections import defaultdict

from nbconvert.preprocessors.base import Preprocessor

#: Preprocessor classes by part (everything else is the converter's).
PARTS = {
    "WriteCases": "judge", "JudgeHiddenTests": "judge",
    "SaveAutoGrades": "gradebook", "StampReceivedTime": "gradebook", "SyncCalendar": "gradebook",
    "AssignLatePenalties": "gradebook",
}
ORDER = ("converter", "judge", "wrapper", "gradebook", "feedback", "kernel")


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime


def measure(course, jobs, kernel_cpu, warm=()) -> dict[str, float]:
    """CPU seconds per notebook of each part of :data:`ORDER` for grading ``jobs``
    ((assignment, student) pairs) serially here, after grading ``warm`` ones uncounted;
    ``kernel_cpu()`` sums the kernels' reports."""
    from kit.engines.job import autograde_student, cell_scores, grading_api
    from kit.engines.local import add_students
    from kit.handback.feedback import write_feedback

    spent: dict[str, float] = defaultdict(float)
    original = Preprocessor.__call__

    def timed(self, nb, resources):
        name = type(self).__name__
        own0, kids0 = _cpu()
        try:
            return original(self, nb, resources)
        finally:
            own1, kids1 = _cpu()
            if name.endswith("Execute"):  # the kernel's client is the converter's; the
                spent["wrapper"] += kids1 - kids0  # wrapper is reaped here
            elif name in PARTS:
                spent[PARTS[name]] += own1 - own0 + kids1 - kids0

    add_students(course, [s for _, s in list(warm) + list(jobs)])
    api = grading_api(course)
    for assignment, student in warm:
        autograde_student(course, assignment, student, api=api)
        write_feedback(course, assignment, student, api=api)
    before_kernels = kernel_cpu()
    Preprocessor.__call__ = timed
    try:
        for assignment, student in jobs:
            own0, kids0 = _cpu()
            autograde_student(course, assignment, student, api=api)
            scored = time.process_time()
            cell_scores(course, assignment, student)
            spent["gradebook"] += time.process_time() - scored
            own1, kids1 = _cpu()
            spent["job"] += own1 - own0 + kids1 - kids0
            own0, kids0 = _cpu()
            write_feedback(course, assignment, student, api=api)
            own1, kids1 = _cpu()
            spent["feedback"] += own1 - own0 + kids1 - kids0
    finally:
        Preprocessor.__call__ = original
    n = max(1, len(jobs))
    # the job's CPU less what the timed steps of other parts took is the converter's
    others = sum(v for p, v in spent.items() if p not in ("job", "feedback"))
    parts = {"converter": (spent["job"] - others) / n, "judge": spent["judge"] / n,
             "wrapper": spent["wrapper"] / n, "gradebook": spent["gradebook"] / n,
             "feedback": spent["feedback"] / n,
             "kernel": (kernel_cpu() - before_kernels) / n}
    parts.update({p: v / n for p, v in spent.items() if p not in parts and p != "job"})
    return parts
