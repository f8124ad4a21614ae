"""A JupyterHub-style course for the browser tests: a temporary exchange, a TA, students.

:func:`make_hub` copies the course (``ps1_circle_lift`` released), points its
``nbgrader_config.py`` at a temporary exchange (through ``KPCA_EXCHANGE``, as the README's
JupyterHub workflow does), releases the problem set there and gives each student a home
folder holding the ``nbgrader_config.py`` a hub's admin would provide (the exchange root
and the student's id). The TA's Jupyter server runs in the course directory; each student's
runs in their home, with ``JUPYTERHUB_USER`` set as on the hub.

:mod:`tests.browser.lab` drives those servers' pages.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from kit.course import Course, copy_course
from kit.release import release

PS = "ps1_circle_lift"
COURSE_ID = "kernel_pca"


@dataclass
class Hub:
    """The course, its exchange, and the students' home folders."""

    course: Course
    exchange: Path
    homes: dict[str, Path]

    def ta_env(self) -> dict:
        """Environment of the TA's commands and server: the course's exchange."""
        return {"KPCA_EXCHANGE": str(self.exchange)}

    def student_env(self, student: str) -> dict:
        """A student's server on the hub: their HOME and JUPYTERHUB_USER, nothing of the
        course; no MPLBACKEND, so their kernels draw inline as Jupyter's do by default."""
        return {"HOME": str(self.homes[student]), "JUPYTERHUB_USER": student,
                "KPCA_EXCHANGE": None, "MPLBACKEND": None, "KPCA_STUDENT_ID": None}

    def nbgrader(self, *args: str, student: str | None = None) -> str:
        """Run one nbgrader command as the TA (or as ``student`` in their home)."""
        env = {**os.environ,
               "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]}
        changes = self.student_env(student) if student else self.ta_env()
        env.update({k: v for k, v in changes.items() if v is not None})
        for key in [k for k, v in changes.items() if v is None]:
            env.pop(key, None)
        cwd = self.homes[student] if student else self.course.root
        done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0, (f"nbgrader {' '.join(args)} failed:\n"
                                      f"{done.stdout[-2000:]}{done.stderr[-3000:]}")
        return done.stdout + done.stderr


def make_hub(tmp: Path, students: tuple[str, ...], released=None) -> Hub:
    """Course with ``ps1_circle_lift`` released to a fresh exchange, and empty homes
    (``released``: the session's ``released_ps1`` factory, a copy of its course)."""
    if released is not None:
        course = released(tmp / "course")
    else:
        course = copy_course(tmp / "course", [PS])
        assert not release(course, [PS])
    hub = Hub(course, tmp / "exchange", {s: tmp / "home" / s for s in students})
    hub.nbgrader("release_assignment", PS)
    for student, home in hub.homes.items():
        home.mkdir(parents=True)
        # what the hub's admin puts in /etc/jupyter/nbgrader_config.py, and the student's id
        # (nbgrader takes the OS user's name otherwise; these tests run as one OS user)
        (home / "nbgrader_config.py").write_text(
            "c = get_config()\n"
            f"c.Exchange.root = {str(hub.exchange)!r}\n"
            f"c.CourseDirectory.student_id = {student!r}\n")
    return hub
