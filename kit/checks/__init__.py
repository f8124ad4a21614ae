"""Instant checks of exact answers on the course's JupyterHub (the ``kpca-check`` service).

A student calls ``check("ps1_lift_point", phi_Q)`` in their notebook (the numbers cell
defines it, :mod:`kpca_ref.variants.cell_extras`); the service (:mod:`kit.checks.service`,
its gates in :mod:`kit.checks.gate`) learns who they are from their hub token and lets
students only check (:mod:`kit.checks.access`), judges the answer against their own key
with the grader's exact comparison and mistake rules (:mod:`kit.checks.judging`) in a
judging process that serves that check alone (:mod:`kit.checks.judges`), counts the
attempt in the course database (:mod:`kit.checks.store`) within the instructor's limits
(:mod:`kit.checks.policy`) and answers right, wrong (with the named mistake's hint), or not
exact / wrong shape. It never sends the key. Grading stays nbgrader's, on hand-in.

The same service shows each student, behind the hub's login, her own overview of the term
(:mod:`kit.checks.overview_web`): each problem set's dates, her status, score, checks used,
feedback and solutions, read from the course's records (:mod:`kit.checks.overview`) and
made into a page without script (:mod:`kit.checks.overview_page`, which also writes one
student's page to a file).

Practice (:mod:`kit.checks.practice_gate`, ``POST <prefix>practice``): after a student's due
date (earlier when the calendar says so, :mod:`kit.term.practice`), ``practice(k)`` in the
notebook draws fresh numbers from an id only the service computes, never in the class of
the student's own graded key nor, where it can be helped, of a classmate still working
(:mod:`kit.checks.practice`, :mod:`kit.checks.practice_keys`); its checks are judged as the
graded ones and counted apart, where grading never reads.
"""
