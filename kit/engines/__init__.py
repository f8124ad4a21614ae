"""Grading engines: where the (problem set, student) jobs of ``python -m kit.autograde`` run.

In: a course and a list of jobs. Out: one :class:`.job.Outcome` per job, handed to a
callback as it finishes, the autograded notebooks and the gradebook's grades. Every engine
runs the same job (:mod:`.job`: check the hand-in, run nbgrader's autograde, optionally
its generate_feedback) and offers the same entry, ``grade(course, jobs, feedback,
on_result, bar, where) -> str``, from which :mod:`kit.autograde` chooses:

- :mod:`.local`: processes on this machine (:mod:`.processes`: none lost when one dies; each
  forked from a fork server that imported the grader once, :mod:`.warm`);
- :mod:`.dask_client`: the workers of a Dask cluster (their side: :mod:`.dask_worker`).

:mod:`.ledger` records what was graded so that a rerun skips it; :mod:`.progress` shows it.
:mod:`.cputime` counts a process tree's CPU, kernels included (``make bench-scale``).
"""
