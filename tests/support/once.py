"""A session fixture's folder made once per run of the whole suite, whichever group asks first.

``make test`` (tests/run_groups.py) runs the suite as several pytest processes side by side
and gives them one shared folder (:data:`RUN_DIR` in the environment). A session fixture that
builds a folder (a released course, say) and is used by tests of several groups builds it
there once, under a file lock: the first process to ask builds it, the others wait for it and
read it. Under a plain ``pytest`` run (no shared folder) each session builds its own.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

#: the environment variable naming the run's shared folder (set by tests/run_groups.py)
RUN_DIR = "KPCA_TEST_RUN_DIR"


def made_once(name: str, tmp_path_factory, build: Callable[[Path], None]) -> Path:
    """The folder ``name``, filled by ``build(folder)`` once per run of the whole suite.

    Parameters
    ----------
    name : str
        The folder's name, unique among the run's shared folders.
    tmp_path_factory : pytest.TempPathFactory
        Where the folder goes when no run shares its folders.
    build : callable
        Fills the (empty) folder it is given; it must leave nothing else behind.

    Returns
    -------
    pathlib.Path
        The folder, complete: a build that failed is not taken for made (the next process
        that asks builds it afresh, and fails with its own error).
    """
    shared = os.environ.get(RUN_DIR)
    if not shared:
        folder = tmp_path_factory.mktemp(name)
        build(folder)
        return folder
    root = Path(shared)
    folder, done = root / name, root / f"{name}.done"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or the process dies
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)  # what a failed build left
            folder.mkdir()
            build(folder)
            done.touch()
    return folder
