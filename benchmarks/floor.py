"""The floor of grading a notebook: the CPU of its own cells, run once in a warm interpreter.

A grading kernel pays for its start, its imports, the judge's probe and nbgrader's own work
on top of what the notebook's cells compute. The floor is that last part alone: a child
Python process imports numpy, scipy, sympy, matplotlib and IPython first (not counted), then
runs the submission's code cells in an IPython shell, with figures rendered as PNG as the
inline backend does while grading, and reports the CPU time of the cells
(``time.process_time``). ``benchmarks/bench_grading.py`` divides the kit's CPU per notebook
by it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

__all__ = ["floor_seconds"]

_CHILD = r'''
import json, os, sys, time, warnings
warnings.filterwarnings("ignore")
import numpy, scipy.integrate, scipy.special, sympy, matplotlib
matplotlib.use("module://matplotlib_inline.backend_inline")
import matplotlib.pyplot
import nbformat
from IPython.core.interactiveshell import InteractiveShell

shell = InteractiveShell.instance()
shell.display_formatter.formatters["image/png"].enabled = True
nb = nbformat.read(sys.argv[1], as_version=4)
os.chdir(os.path.dirname(sys.argv[1]))
start = time.process_time()
failed = 0
for cell in nb.cells:
    if cell.cell_type == "code":
        failed += not shell.run_cell(cell.source, silent=True).success
print(json.dumps({"cpu": time.process_time() - start, "failed": failed}))
'''


def floor_seconds(notebook: Path, student: str) -> float:
    """CPU seconds of ``notebook``'s code cells in a warm interpreter (numbers of ``student``).

    Raises ``RuntimeError`` when a cell fails: the floor of a notebook that does not run
    through is no floor.
    """
    env = {**os.environ, "KPCA_STUDENT_ID": student, "MPLBACKEND": "Agg"}
    done = subprocess.run([sys.executable, "-c", _CHILD, str(Path(notebook).resolve())],
                          capture_output=True, text=True, env=env, check=False)
    try:
        result = json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        raise RuntimeError(f"the floor of {notebook} could not be measured:\n"
                           f"{done.stderr[-2000:]}") from None
    if result["failed"]:
        raise RuntimeError(f"{result['failed']} cells of {notebook} failed; no floor measured")
    return float(result["cpu"])
