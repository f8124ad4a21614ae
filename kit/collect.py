"""``python -m kit.collect``: import an LMS's zip of submissions (:mod:`kit.intake.collect`)."""

import sys

from kit.intake.collect import main

if __name__ == "__main__":
    sys.exit(main())
