"""Imported once by the grading processes' fork server before it forks any of them.

:func:`kit.engines.processes.run_jobs` starts its grading processes from a
``multiprocessing`` fork server that names this module as its preload: importing it imports
the grader (nbgrader, nbconvert, the gradebook's ORM, the judge, the reference's comparisons,
the feedback page's sanitiser and maths), about 2.5 CPU seconds that each grading process
used to pay again when it was started afresh. Nothing here reads the environment or the
working folder; each process takes the grader's own when it starts. A failed import only
leaves the processes to import it themselves.
"""

import importlib

#: the modules a grading process needs, heaviest first
MODULES = (
    "kit.engines.local",
    "kit.handback.feedback",
    "kit.judge.preprocessors",
    "kpca_ref.grading.cases",
    "kpca_ref.grading.compare",
    "IPython.paths",
    "math_core",
)

for _name in MODULES:
    try:
        importlib.import_module(_name)
    except Exception:  # noqa: BLE001, S112 - the grading process imports it itself
        continue
