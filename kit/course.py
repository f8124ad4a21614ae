"""Where a course lives on disk and how nbgrader is driven for it."""

from __future__ import annotations

import functools
import os
import shutil
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

#: The problem sets, in teaching order (the names are fixed by the course contract).
ASSIGNMENTS = (
    "ps0_high_dimensions",
    "ps1_circle_lift",
    "ps2_feature_maps",
    "ps3_mercer",
    "ps4_centering",
    "ps5_kernel_pca",
    "ps6_kernel_regression",
)

#: The repository root is itself the course directory.
REPO_ROOT = Path(__file__).resolve().parent.parent


#: Environment variable naming the gradebook database (SQLAlchemy URL, e.g.
#: ``postgresql://grader@dbhost/kernel_pca``); unset: ``gradebook.db`` (sqlite) in the course.
DB_URL_VAR = "KPCA_DB_URL"


#: Grading kernels run one per core side by side: a multi-threaded BLAS in each of them
#: only fights the others (a 300 x 300 eigh went from 0.05 s to seconds under load).
SINGLE_THREADED = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


#: The key under which the judge records, in a graded test cell's score output, the
#: diagnoses it made (the report counts only these, never text a student's code printed).
JUDGE_KEY = "kpca_judge"

def prepare_environment() -> None:
    """Environment every grading kernel inherits.

    nbgrader runs the ``alembic`` executable, so the interpreter's bin must be on PATH;
    BLAS runs single-threaded (see :data:`SINGLE_THREADED`).
    """
    bin_dir = str(Path(sys.executable).parent)
    if bin_dir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")
    for key, value in SINGLE_THREADED.items():
        os.environ.setdefault(key, value)
    os.environ.setdefault("MPLBACKEND", "Agg")


@dataclass(frozen=True)
class Course:
    """An nbgrader course directory (``source/``, ``release/``, ``submitted/``, ...).

    Its gradebook is ``database`` when given, else the database the environment variable
    :data:`DB_URL_VAR` names (e.g. a shared PostgreSQL server), else ``gradebook.db`` in
    ``root`` (sqlite), as in ``nbgrader_config.py``.
    """

    root: Path
    database: str = ""

    @property
    def db_url(self) -> str:
        return (self.database or os.environ.get(DB_URL_VAR)
                or f"sqlite:///{self.root / 'gradebook.db'}")

    def config(self):
        """The course's ``nbgrader_config.py``, with the root pinned to this directory."""
        from traitlets.config.loader import PyFileConfigLoader

        cfg = PyFileConfigLoader("nbgrader_config.py", path=str(self.root)).load_config()
        cfg.CourseDirectory.root = str(self.root)
        cfg.CourseDirectory.db_url = self.db_url
        return cfg

    def api(self, coursedir=None):
        """An ``NbGraderAPI`` for this course (it does not read the config file by itself).

        ``coursedir``: the class of nbgrader's course directory; grading passes
        :class:`kit.intake.received.ReceivedTimeDirectory`, whose hand-in time is the course's
        record, never the hand-in's ``timestamp.txt``.
        """
        prepare_environment()
        quiet_gradebook()
        read_alembic_head_in_process()
        from nbgrader.apps import NbGraderAPI

        config = self.config()
        if coursedir is None:
            return NbGraderAPI(config=config)
        return NbGraderAPI(coursedir=coursedir(config=config), config=config)

    def notebook(self, step: str, assignment: str, student: str | None = None) -> Path:
        """Path of one notebook at a pipeline step (``source``, ``release``, ``submitted``, ...)."""
        base = self.root / step
        if student is not None:
            base = base / student
        return base / assignment / f"{assignment}.ipynb"


def quiet_gradebook() -> None:
    """Keep SQLAlchemy's warnings about nbgrader's own gradebook code off the TA's terminal.

    nbgrader's ``update_or_create_submission`` makes SQLAlchemy warn (``SAWarning: Object of
    type <SubmittedAssignment> not in session``) for every new student: harmless, and not
    the TA's to fix.
    """
    warnings.filterwarnings("ignore", module="nbgrader")
    warnings.filterwarnings("ignore", message=".*SAWarning.*")


def _alembic_head() -> str:
    from alembic.config import Config
    from alembic.script import ScriptDirectory
    from nbgrader.dbutil import _temp_alembic_ini

    with _temp_alembic_ini("sqlite:////tmp/gradebook.db") as ini:  # nbgrader's own settings
        (head,) = ScriptDirectory.from_config(Config(ini)).get_heads()
    return head


def read_alembic_head_in_process() -> None:
    """Let nbgrader read its gradebook schema's version in this process, once.

    nbgrader stamps each new gradebook with the head of its alembic migrations, which it
    asks of an ``alembic heads`` subprocess every time: about 1.5 CPU seconds per gradebook,
    and an error if ``alembic`` is not on the PATH. alembic's own Python API reads the same
    head from the same migration scripts in about 0.1 s; it is read once per process.
    Idempotent; the function replaced stays reachable as ``__wrapped__``.
    """
    from nbgrader import api

    if getattr(api.get_alembic_version, "_kpca_in_process", False):
        return
    original = api.get_alembic_version
    head = functools.cache(_alembic_head)

    @functools.wraps(original)
    def get_alembic_version() -> str:
        return head()

    get_alembic_version._kpca_in_process = True
    api.get_alembic_version = get_alembic_version


def copy_course(dest: Path, assignments=ASSIGNMENTS, src: Path = REPO_ROOT) -> Course:
    """Lay a fresh course at ``dest`` holding the config and the source of ``assignments``."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy2(src / "nbgrader_config.py", dest / "nbgrader_config.py")
    for name in assignments:
        shutil.copytree(src / "source" / name, dest / "source" / name, dirs_exist_ok=True)
    return Course(dest)


def shown(url: str) -> str:
    """``url`` with its password hidden, for messages."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - an unparsable URL is shown as it is
        return url
