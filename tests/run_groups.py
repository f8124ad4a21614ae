"""Run the whole test suite as several pytest processes side by side (``make test``).

Much of the suite waits rather than computes (kernels starting, a browser, a hub, a database,
stock nbgrader grading one notebook at a time): with two pytest processes on 2 cores the
suite kept 1.25 cores busy on average. It runs in :data:`GROUPS`, all at once, more processes
than cores, so that one group's waits are another's computing; no group holds so much
computing that one process (one core) alone would outlast the rest:

- ``grading``: everything that reads the demo class or the prepared hand-ins (the session
  fixtures ``demo_run`` and ``graded``, which grade each of them once per run), and
  nbgrader's own tests run with the kit's changes (the group that ends first);
- ``variants``: the variants (about 200 CPU s), and ``tables``: the grading tables, the
  reference implementation and its doctests (about 180 CPU s; together they were one
  process of 377 CPU s). They only compute: they run at a lower priority, :data:`NICE`,
  taking what the others leave while those wait;
- ``attacks``: the integrity and sandbox tests (the attack catalogues, their own courses);
- ``browser``: the browser and hub tests, with the report tests (they share the session's
  graded class, :mod:`tests.support.graded_class`);
- ``rest``: every other test (``tests/`` without the paths above), so that nothing is left
  out when a test file is added: the check service, engines, intake, the term;
- :data:`ALONE`: the few tests whose claims are wall-clock windows of their own concurrency,
  run after all the groups have finished, alone on the machine.

A session fixture whose users sit in one group is made once per run by that group's process
(tests/test_run_groups.py holds the users of the fixtures that grade a class in one group);
one whose users sit in several groups makes its folder once in the run's shared folder, under
a file lock (:mod:`tests.support.once`). Each group has its own temporary directory; each
group's output is printed when it finishes, and the exit status is non-zero if any failed.
Extra arguments go to every process (``python -m tests.run_groups -x``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.support.once import RUN_DIR

ROOT = Path(__file__).resolve().parent.parent

#: the groups but ``rest`` (which is ``tests/`` without them); a group that only computes
#: uses one core at most, so none of them holds much more than the variants' 200 CPU s
GROUPS = {
    "grading": ["tests/notebooks", "tests/pipeline/test_pipeline.py",
                "tests/pipeline/test_demo_term.py",
                # nbgrader's own tests in a pytest of their own: this group ends first
                "tests/engines/test_nbgrader_own_tests.py"],
    "variants": ["tests/variants"],
    "tables": ["tests/grading", "tests/ref", "tests/sklearn_dropin", "kpca_ref", "kpca_probe"],
    "attacks": ["tests/integrity", "tests/sandbox"],
    # the browsers and the hub, with the report tests that share their graded class: as one
    # with the rest they were the last group to end, alone on the machine for its last 100 s
    "browser": ["tests/browser", "tests/report"],
}

#: groups that only compute, run at a lower priority: they take what the others leave while
#: those wait, and do not stretch the waits (a hub's reply, a kernel's start) that the
#: others' tests time
NICE = {"variants": 5, "tables": 5}

#: the ``grading`` group: every user of the demo run must sit here (tests/test_run_groups.py)
GRADING = GROUPS["grading"]

#: tests whose claims are wall-clock windows of their own concurrency: run after the groups,
#: alone on the machine. With the suite beside it, the flood test's windows (an honest check
#: under way while the attacker's judgement is killed, each check within its bound) failed
#: four ways on four loaded runs; alone, its baseline and its windows see the same machine
ALONE = [("tests/checks/test_service_abuse.py::"
          "test_one_student_flooding_slow_answers_costs_only_that_student")]

#: ``make check``'s own end-to-end step: it grades one problem set that the ``grading`` group
#: grades anyway (tests/notebooks), so ``make test`` leaves it out
CHECK_ONLY = "tests/check"


def _pytest(extra: list[str]) -> list[str]:
    """The start of every group's pytest command line."""
    # the slowest tests of each group are listed at its end: where the suite's time goes
    return [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--durations=15",
            *extra]


def commands(extra: list[str], tmp: Path) -> dict[str, list[str]]:
    """The pytest command line of each group, ``{group: argv}``, ``rest`` last."""
    base = _pytest(extra)
    named = [p for paths in GROUPS.values() for p in paths]
    ignore = [f"--ignore={p}" for p in [*named, CHECK_ONLY] if p.startswith("tests/")]
    argv = {group: [*base, f"--basetemp={tmp / group}", *paths] for group, paths in GROUPS.items()}
    alone = [f"--deselect={test}" for test in ALONE]
    argv["rest"] = [*base, f"--basetemp={tmp / 'rest'}", "tests", *ignore, *alone]
    return argv


def alone_command(extra: list[str], tmp: Path) -> list[str]:
    """The pytest command line of :data:`ALONE`, run once every group has finished."""
    return [*_pytest(extra), f"--basetemp={tmp / 'alone'}", *ALONE]


def main(argv=None) -> int:
    extra = list(sys.argv[1:] if argv is None else argv)
    with tempfile.TemporaryDirectory(prefix="kpca-tests-") as tmp:
        tmp = Path(tmp)
        (tmp / "shared").mkdir()
        env = {**os.environ, RUN_DIR: str(tmp / "shared")}
        start = time.monotonic()
        running = {}
        for group, argv_ in commands(extra, tmp).items():
            log = open(tmp / f"{group}.log", "w+")  # noqa: SIM115 - closed below
            if group in NICE:
                argv_ = ["nice", "-n", str(NICE[group]), *argv_]
            running[group] = (subprocess.Popen(argv_, cwd=ROOT, env=env, stdout=log,
                                               stderr=subprocess.STDOUT), log)
        print(f"running the test suite in {len(running)} groups side by side: "
              f"{', '.join(running)}", flush=True)
        failed, left = [], dict(running)
        try:
            while left:  # each group's output as soon as it is done
                for group, (proc, log) in list(left.items()):
                    code = proc.poll()
                    if code is None:
                        continue
                    del left[group]
                    log.seek(0)
                    print(f"\n===== {group}: exit {code} after {time.monotonic() - start:.0f} s "
                          "=====")
                    sys.stdout.write(log.read())
                    sys.stdout.flush()
                    log.close()
                    if code != 0:
                        failed.append(group)
                time.sleep(0.5)
        except KeyboardInterrupt:
            for proc, _ in running.values():
                proc.terminate()
            raise
        print("\n===== alone (tests that time their own concurrency) =====", flush=True)
        code = subprocess.run(alone_command(extra, tmp), cwd=ROOT, env=env, check=False).returncode
        print(f"===== alone: exit {code} after {time.monotonic() - start:.0f} s =====")
        if code != 0:
            failed.append("alone")
        print(f"\nwhole suite: {time.monotonic() - start:.0f} s; "
              + (f"FAILED: {', '.join(failed)}" if failed else "every group passed"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
