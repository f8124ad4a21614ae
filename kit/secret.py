"""``python -m kit.secret``: make the grader's secret (:mod:`kit.judge.secret`)."""

import sys

from kit.judge.secret import main

if __name__ == "__main__":
    sys.exit(main())
