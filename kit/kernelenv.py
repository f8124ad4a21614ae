"""``python -m kit.kernelenv``: build or check the grading kernels' environment (:mod:`kit.sandbox.kernelenv`)."""

import sys

from kit.sandbox.kernelenv import main

if __name__ == "__main__":
    sys.exit(main())
