"""``python -m kit.gradebook_move``: move the gradebook to another database (:mod:`kit.gradebook.move`)."""

import sys

from kit.gradebook.move import main

if __name__ == "__main__":
    sys.exit(main())
