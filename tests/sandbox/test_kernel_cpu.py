"""A warm kernel stopped at its notebook's end is reaped, so its CPU time is counted.

nbgrader stops each kernel at once (``c.Execute.shutdown_kernel = "immediate"``). The keeper
used to SIGKILL the notebook's init, and the kernel died unreaped with its pid namespace:
its CPU reached no process above it, and ``make bench-scale``'s process trees counted about
half of what the machine spent. Now init kills its kernel and reaps it
(kit/sandbox/template.py, ``_stop``); the status the grader sees is still a SIGKILL's.
The template reaps its finished keepers once a second, so a grading process that exits
within a second of its last kernel's end still loses that kernel's CPU.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from kit.sandbox import warm
from kit.sandbox import wrapper as sandbox

pytestmark = pytest.mark.skipif(sandbox.unavailable() != "" or not warm.enabled(),
                                reason="warm kernels need bubblewrap and root")

#: one warm kernel burns argv[1] CPU seconds, then is stopped at once, as nbgrader stops it
SCRIPT = r"""
import os, sys, time
from jupyter_client.manager import KernelManager
from kit.sandbox.wrapper import KERNEL_NAME

km = KernelManager(kernel_name=KERNEL_NAME)
km.start_kernel(cwd=sys.argv[2], env={**os.environ, "KPCA_SANDBOX_WARM": "1"})
kc = km.client()
kc.start_channels()
kc.wait_for_ready(timeout=120)
kc.execute_interactive("import time\nt = time.process_time()\n"
                       f"while time.process_time() - t < {float(sys.argv[1])}: pass\n",
                       timeout=120)
kc.stop_channels()
km.shutdown_kernel(now=True)
time.sleep(1.5)  # the template reaps its finished keepers each second; at once, on its exit
"""


def _counted(tmp_path, seconds: float) -> float:
    report = tmp_path / f"report-{seconds}.json"
    folder = tmp_path / f"work-{seconds}"
    folder.mkdir()
    done = subprocess.run([sys.executable, "-m", "kit.engines.cputime", "--report", str(report),
                           "--", sys.executable, "-c", SCRIPT, str(seconds), str(folder)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(report.read_text())["cpu_seconds"]


def test_a_stopped_warm_kernels_cpu_reaches_the_tree(tmp_path):
    idle, busy = _counted(tmp_path, 0.0), _counted(tmp_path, 3.0)
    assert busy - idle >= 2.7, (idle, busy)  # the kernel's 3 s; before: about 0
