"""``python -m kit.report``: the class report (:mod:`kit.report.page`)."""

import sys

from kit.report.page import main

if __name__ == "__main__":
    sys.exit(main())
