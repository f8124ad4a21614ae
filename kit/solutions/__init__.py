"""Worked solutions on each student's own numbers, released per student after their due date.

``python -m kit.solutions <ps>`` (:mod:`.__main__`) builds, for each student whose time has
come by the course calendar (:mod:`kit.term`), the source notebook run on their numbers in the
grading sandbox: the lesson, the solution code, every exact answer worked and printed, their
own figures; no hidden test, nothing of the grading secret, nothing of another student
(:mod:`.notebook`). When (:mod:`.schedule`): never before the student's own due date
(extension included); the exact answers from then on, the code solutions (the same for
everyone) once the class's last extension has passed. Out (:mod:`.handout`):
``solutions/<student>/<ps>/`` (notebook, page, zip) for every course, and on a hub course the
feedback page with the solution appended, fetched with ``nbgrader fetch_feedback``.
:func:`release_solutions` (:mod:`.build`) is the one call, for the command and the demo.
"""

from kit.solutions.build import Outcome, release_solutions
from kit.solutions.schedule import SolutionRefused

__all__ = ["Outcome", "SolutionRefused", "release_solutions"]
