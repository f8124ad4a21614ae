"""Imported once by the check service's fork server before it forks any judge.

:class:`kit.checks.judges.Judges` names this module as the fork server's preload
(``multiprocessing``'s ``set_forkserver_preload``): importing it imports the grader and
computes a key of every problem set, so that each judging process, forked from that
server, starts warm. A failure here only leaves the judges cold.
"""

try:
    from kit.checks.judging import warm_up

    warm_up()
except Exception:  # noqa: BLE001, S110 - a cold judge is still a judge
    pass
