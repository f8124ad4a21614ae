"""Run the whole test suite as two pytest processes side by side (``make test``).

Much of the suite waits rather than computes (kernels starting, a browser, a database, stock
nbgrader grading one notebook at a time), so on 2 cores one pytest process leaves a core idle
for most of its run. The suite is split in two groups that share no session fixture:

- ``grading``: everything that grades the demo class and the prepared submissions (the
  session fixtures ``demo_run`` and ``graded``), the variants, the grading tables, the
  reference implementation and its doctests, and the catalogue of in-kernel attacks;
- ``rest``: every other test (``tests/`` without the paths above), so that nothing is left
  out when a test file is added.

Each group runs in its own pytest process with its own temporary directory; their outputs
are printed one after the other when both have finished, and the exit status is non-zero if
either failed. Extra arguments go to both processes (``python -m tests.run_groups -x``).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: the ``grading`` group; ``rest`` is ``tests/`` without these. The catalogue of in-kernel
#: attacks (its own course) sits here to even out the groups: on a fresh clone here the
#: grading group took 15.0 min and the rest 18.3 min with it in the rest.
GRADING = ["tests/notebooks", "tests/pipeline/test_pipeline.py", "tests/pipeline/test_demo_term.py",
           "tests/variants",
           "tests/grading", "tests/ref", "tests/sklearn_dropin", "kpca_ref", "kpca_probe",
           "tests/integrity/test_attacks.py"]

#: ``make check``'s own end-to-end step: it grades one problem set that the ``grading`` group
#: grades anyway (tests/notebooks), so ``make test`` leaves it out
CHECK_ONLY = "tests/check"


def commands(extra: list[str], tmp: Path) -> dict[str, list[str]]:
    """The two pytest command lines, ``{group: argv}``."""
    # the slowest tests of each group are listed at its end: where the suite's time goes
    base = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--durations=15",
            *extra]
    ignore = [f"--ignore={p}" for p in [*GRADING, CHECK_ONLY] if p.startswith("tests/")]
    return {
        "grading": [*base, f"--basetemp={tmp / 'grading'}", *GRADING],
        "rest": [*base, f"--basetemp={tmp / 'rest'}", "tests", *ignore],
    }


def main(argv=None) -> int:
    extra = list(sys.argv[1:] if argv is None else argv)
    with tempfile.TemporaryDirectory(prefix="kpca-tests-") as tmp:
        tmp = Path(tmp)
        start = time.monotonic()
        running = {}
        for group, argv_ in commands(extra, tmp).items():
            log = open(tmp / f"{group}.log", "w+")  # noqa: SIM115 - closed below
            running[group] = (subprocess.Popen(argv_, cwd=ROOT, stdout=log,
                                               stderr=subprocess.STDOUT), log)
        print(f"running the test suite in {len(running)} groups side by side: "
              f"{', '.join(running)}", flush=True)
        failed = []
        try:
            for group, (proc, log) in running.items():
                code = proc.wait()
                log.seek(0)
                print(f"\n===== {group}: exit {code} after {time.monotonic() - start:.0f} s =====")
                sys.stdout.write(log.read())
                log.close()
                if code != 0:
                    failed.append(group)
        except KeyboardInterrupt:
            for proc, _ in running.values():
                proc.terminate()
            raise
        print(f"\nwhole suite: {time.monotonic() - start:.0f} s; "
              + (f"FAILED: {', '.join(failed)}" if failed else "both groups passed"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
