"""``python -m kit.duepanel --install``: place the panel's due dates in this environment.

::

    python -m kit.duepanel --install [--prefix PREFIX]   # make venv and kit.hub run it
    python -m kit.duepanel --build                       # after editing src/remoteEntry.js

``--install`` copies the pre-built lab extension to
``<prefix>/share/jupyter/labextensions/kpca-due-panel/`` and the file that enables the
server extension to ``<prefix>/etc/jupyter/jupyter_server_config.d/`` (``prefix``: this
Python's ``sys.prefix``), so ``jupyter labextension list`` and ``jupyter server extension
list`` show both enabled. An editable install (``pip install -e``) places no data files,
hence this step; a wheel places the same files itself (pyproject's data-files).

``--build`` copies ``labextension/src/remoteEntry.js`` to
``labextension/static/remoteEntry.<hash>.js`` (the hash of its text, so a browser never
keeps an old copy) and points ``package.json`` at it. Neither needs Node.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kit.duepanel.install import HERE, build, install


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kit.duepanel",
                                     description=__doc__.split("\n\n")[0])
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--install", action="store_true", help="place both extensions")
    what.add_argument("--build", action="store_true", help="rebuild the lab extension")
    parser.add_argument("--prefix", type=Path, default=Path(sys.prefix))
    args = parser.parse_args(argv)
    if args.build:
        print(f"built {build().relative_to(HERE)}")
        return 0
    try:
        written = install(args.prefix)
    except ValueError as exc:
        parser.exit(2, f"python -m kit.duepanel: ValueError: {exc}\n")
    print(f"the Assignments panel's due dates and formgrader's pages: {len(written)} files under {args.prefix}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
