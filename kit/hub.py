"""``make hub``: the course on a real JupyterHub, for a demo class, on 127.0.0.1 only.

::

    python -m kit.hub [--dir .hub] [--port 8000] [ps ...]

lays out ``<dir>/`` (git ignores ``.hub/``): a copy of the course (``course/``, its
problem sets generated and released to ``exchange/``), a home folder per user, and starts
JupyterHub with :mod:`kit.hub_config`: three students (``ada``, ``bob``, ``cy``), a TA
(``ta_tom``) and an instructor (``prof_kim``), who all log in at
``http://127.0.0.1:<port>/`` with the password printed once at the start (new each run).
Students find the problem sets in Nbgrader > Assignment List, and their numbers come from
their login; the TA and instructor open formgrader at ``/services/kernel_pca/formgrader``;
the check service answers at ``/services/kpca-check/``, students and only students
(their servers get its address, ``KPCA_CHECK_URL``, under the hub's public URL:
``KPCA_HUB_PUBLIC_URL`` in the environment sets one). Ctrl-C (or SIGTERM) stops it all.

It needs JupyterHub (``pip install -e '.[hub]'``, which ``make venv`` does) and Debian's
``configurable-http-proxy`` (``apt-get install node-configurable-http-proxy
node-commander``; ``make venv`` does it as root), run with ``NODE_PATH=/usr/share/nodejs``.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from kit.course import ASSIGNMENTS, REPO_ROOT, Course, copy_course

__all__ = ["GRADERS", "STUDENTS", "hub_command", "prepare"]

STUDENTS = ("ada", "bob", "cy")
GRADERS = ("ta_tom", "prof_kim")  # the formgrade group: the TA and the instructor


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _nbgrader(course: Course, env: dict, *args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course.root, env=env,
                          capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"nbgrader {' '.join(args)} failed:\n{done.stdout[-2000:]}"
                         f"{done.stderr[-2000:]}")


def prepare(folder: Path, assignments=ASSIGNMENTS, port: int = 8000) -> dict:
    """Lay out the demo course under ``folder``; returns the environment of ``jupyterhub``."""
    from kit.duepanel.install import install
    from kit.release import release

    try:  # the Assignments panel's due dates, in this environment (an editable install
        install()  # places no data files; make venv does the same)
    except OSError as exc:  # an environment this user may not write: the hub runs without
        print(f"the Assignments panel will show no due dates: {exc} (python -m "
              "kit.duepanel --install, as the environment's owner)", file=sys.stderr)
    folder = Path(folder).resolve()
    course = copy_course(folder / "course", assignments)
    with open(course.root / "nbgrader_config.py", "a") as config:  # a hub course (README)
        config.write("\n# kit.hub: this course runs on JupyterHub\n"
                     "c.WriteCases.numbers_from_login = True\n")
    exchange = folder / "exchange"
    exchange.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "KPCA_EXCHANGE": str(exchange),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    if release(course, assignments):
        raise SystemExit("the problem sets could not be generated (see above)")
    for ps in assignments:
        _nbgrader(course, env, "release_assignment", ps, "--force")
    for user in STUDENTS + GRADERS:
        home = folder / "home" / user
        home.mkdir(parents=True, exist_ok=True)
        # what a hub's admin puts in /etc/jupyter/nbgrader_config.py (one OS user here, so
        # each student's id is named too: nbgrader would take the OS user's name otherwise)
        lines = ["c = get_config()", f"c.Exchange.root = {str(exchange)!r}"]
        if user in STUDENTS:
            lines.append(f"c.CourseDirectory.student_id = {user!r}")
        (home / "nbgrader_config.py").write_text("\n".join(lines) + "\n")
    pythonpath = os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH")) if p)
    return {**env, "KPCA_HUB_DIR": str(folder), "KPCA_HUB_COURSE": str(course.root),
            "KPCA_HUB_STUDENTS": ",".join(STUDENTS), "KPCA_HUB_GRADERS": ",".join(GRADERS),
            "KPCA_HUB_PORT": str(port), "KPCA_HUB_PASSWORD": secrets.token_urlsafe(12),
            "KPCA_HUB_PORTS": ",".join(str(_free_port()) for _ in range(4)),
            "NODE_PATH": os.environ.get("NODE_PATH", "/usr/share/nodejs"),
            "PYTHONPATH": pythonpath}


def hub_command() -> list[str]:
    """``jupyterhub -f kit/hub_config.py``, refused with a line when something is missing."""
    jupyterhub = Path(sys.executable).parent / "jupyterhub"
    if not jupyterhub.exists():
        raise SystemExit("JupyterHub is not installed: pip install -e '.[hub]' (make venv)")
    if shutil.which("configurable-http-proxy") is None:
        raise SystemExit("configurable-http-proxy is missing: as root, apt-get install "
                         "node-configurable-http-proxy node-commander (make venv does it)")
    return [str(jupyterhub), "-f", str(Path(__file__).with_name("hub_config.py"))]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kit.hub", description=__doc__.split(
        "\n\n")[0])
    parser.add_argument("assignments", nargs="*", help="problem sets (default: all)")
    parser.add_argument("--dir", type=Path, default=REPO_ROOT / ".hub")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    unknown = sorted(set(args.assignments) - set(ASSIGNMENTS))
    if unknown:
        parser.error(f"unknown problem sets {unknown}")
    command = hub_command()
    env = prepare(args.dir, args.assignments or ASSIGNMENTS, args.port)
    print(f"JupyterHub for the demo class: http://127.0.0.1:{args.port}/\n"
          f"  students: {', '.join(STUDENTS)}; TA and instructor: {', '.join(GRADERS)}\n"
          f"  password (every user, this run only): {env['KPCA_HUB_PASSWORD']}\n"
          f"  formgrader: http://127.0.0.1:{args.port}/services/kernel_pca/formgrader\n"
          "  Ctrl-C stops the hub.", flush=True)
    hub = subprocess.Popen(command, cwd=args.dir, env=env)
    # a plain `kill` stops the hub as Ctrl-C does: JupyterHub then stops its services and
    # the users' servers (a hub killed outright leaves them running)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        return hub.wait()
    except KeyboardInterrupt:
        hub.send_signal(signal.SIGINT)
        return hub.wait()


if __name__ == "__main__":
    sys.exit(main())
