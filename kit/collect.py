"""``python -m kit.collect``: import an LMS's zip of submissions (:mod:`kit.intake.collect`),
taking each student's hand-in by their own due date in the course's calendar
(:func:`kit.term.intake.due_of`)."""

import sys

from kit.intake.collect import main
from kit.term.intake import due_of

if __name__ == "__main__":
    sys.exit(main(due_of=due_of))
