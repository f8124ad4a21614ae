"""The worker's side of grading on a Dask cluster (:mod:`kit.engines.dask_client` is the client's side).

A worker needs no course directory: the client sends it once the course's files
(:func:`course_bundle`: ``nbgrader_config.py``, ``source/<ps>/`` and the grading secret,
which the worker keeps in memory only),
and with each job one student's hand-in. :func:`grade_job` grades it with the kit's own
per-notebook grading (:func:`kit.engines.job.autograde_student`, in the sandbox) in a course
directory of its own under the worker's temporary folder, released once per problem set,
with its own sqlite gradebook; it returns the autograded folder's files, the feedback page
and every cell's grade and comment, which the client records in the real gradebook.

A worker must run the same kit as the client (:func:`kit_fingerprint`: a hash of the kit's
code) and must be able to start the grading sandbox (:func:`worker_report`).
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import socket
import tempfile
import threading
from datetime import datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from kit.course import REPO_ROOT, Course

#: Packages whose code must be the same on the client and every worker.
PACKAGES = ("kit", "kpca_ref", "kpca_probe")

_LOCK = threading.Lock()  # one grading job at a time per worker process
_COURSES: dict[str, tuple[Course, object]] = {}  # bundle hash -> (course, NbGraderAPI)
_FINGERPRINT: list[str] = []
#: A worker's course copy: ``<temp>/kpca-worker-<pid>-<bundle hash>-<random>``.
WORK_PREFIX = "kpca-worker-"


def kit_version() -> str:
    try:
        return version("kernel-pca-course-kit")
    except PackageNotFoundError:
        return "not installed"


def kit_fingerprint() -> str:
    """Version and SHA-256 of the kit's Python files (same kit, same fingerprint)."""
    if not _FINGERPRINT:
        digest = hashlib.sha256()
        for package in PACKAGES:
            for path in sorted((REPO_ROOT / package).rglob("*.py")):
                digest.update(str(path.relative_to(REPO_ROOT)).encode() + b"\0")
                digest.update(path.read_bytes())
        _FINGERPRINT.append(f"{kit_version()}+{digest.hexdigest()[:12]}")
    return _FINGERPRINT[0]


def worker_report() -> dict:
    """What the client checks on each worker before grading: kit fingerprint and sandbox."""
    from kit.sandbox import wrapper as sandbox
    from kit.sandbox.execute import kernel_env_refusal

    why = sandbox.unavailable() or kernel_env_refusal()
    return {"host": socket.gethostname(), "kit": kit_fingerprint(), "sandbox": why or ""}


def course_bundle(course: Course, assignments) -> dict[str, bytes]:
    """The course files a worker needs to grade ``assignments``: ``{relative path: bytes}``."""
    from kit.secret import course_secret

    files = {"nbgrader_config.py": (course.root / "nbgrader_config.py").read_bytes(),
             ".grading_secret": course_secret(course.root)}
    if (course.root / "term.json").is_file():  # the calendar: the worker's late penalty
        files["term.json"] = (course.root / "term.json").read_bytes()
    for name in assignments:
        folder = course.root / "source" / name
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not path.is_symlink() and ".ipynb_checkpoints" not in path.parts:
                files[str(path.relative_to(course.root))] = path.read_bytes()
    return files


def _bundle_key(bundle: dict[str, bytes]) -> str:
    digest = hashlib.sha256()
    for name in sorted(bundle):
        digest.update(name.encode() + b"\0" + hashlib.sha256(bundle[name]).digest())
    return digest.hexdigest()[:16]


def _course(bundle: dict[str, bytes], assignment: str):
    """This worker's course for ``bundle``, with ``assignment`` released (made once)."""
    from kit.release import release
    from kit.secret import FILE_NAME, hold

    key = _bundle_key(bundle)
    if key not in _COURSES:
        remove_orphaned_courses()
        root = Path(tempfile.mkdtemp(prefix=f"{WORK_PREFIX}{os.getpid()}-{key}-"))
        atexit.register(shutil.rmtree, root, True)  # a worker that stops removes its course
        for name, data in bundle.items():
            if name == FILE_NAME:  # kept in memory only: a killed worker leaves it nowhere
                hold(root, data)
                continue
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        course = Course(root, database=f"sqlite:///{root / 'gradebook.db'}")
        from kit.engines.job import grading_api

        _COURSES[key] = (course, grading_api(course))
    course, api = _COURSES[key]
    if not course.notebook("release", assignment).exists():
        failed = release(course, [assignment])
        if failed:
            raise RuntimeError(f"the worker could not release {assignment}: {failed}")
    return course, api


def remove_orphaned_courses() -> list[Path]:
    """Remove the course copies of workers of this user that are gone (killed with ``kill -9``:
    no ``atexit``); return them. They hold the course's source (hidden tests), never its
    secret."""
    removed = []
    for folder in Path(tempfile.gettempdir()).glob(f"{WORK_PREFIX}*"):
        pid = folder.name[len(WORK_PREFIX):].split("-", 1)[0]
        try:
            if not pid.isdigit() or folder.stat().st_uid != os.getuid():
                continue
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
        except OSError:
            continue
    return removed


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file() and not p.is_symlink()}


def _modes(folder: Path) -> dict[str, int]:
    """Permission bits of each file (nbgrader leaves the graded notebook read-only)."""
    return {str(p.relative_to(folder)): p.stat().st_mode & 0o777
            for p in sorted(folder.rglob("*")) if p.is_file() and not p.is_symlink()}


def _cells(course: Course, assignment: str, student: str) -> dict:
    from nbgrader.api import Gradebook

    from kpca_ref.variants import current_name

    with Gradebook(course.db_url) as gb:
        sub = gb.find_submission_notebook(assignment, assignment, student)
        return {"grades": {g.name: g.auto_score for g in sub.grades},
                "comments": {c.name: c.auto_comment for c in sub.comments},
                # an old gradebook's renamed cells under their current names (the report's)
                "scores": {current_name(g.name): float(g.score) for g in sub.grades}}


def grade_job(job: dict, bundle: dict[str, bytes]) -> dict:
    """Grade one hand-in; ``job``: ``assignment``, ``student``, ``files``, ``received`` (the
    time the client's course received it, :mod:`kit.intake.received`), ``feedback``, ``kit``.

    Returns ``{"status": "graded" | "failed" | "refused", "message", "worker"}`` and, when
    graded, ``files`` and ``modes`` (the autograded folder), ``feedback`` (page bytes or None), ``grades``
    and ``comments`` (auto score and auto comment per cell) and ``scores``.
    """
    from kit.engines.job import GradingError, autograde_student
    from kit.intake.received import record_received

    me = f"{socket.gethostname()}:{os.getpid()}"
    if job.get("kit") != kit_fingerprint():
        return {"status": "refused", "worker": me, "message": (
            f"worker {me} runs kit {kit_fingerprint()}, the client {job.get('kit')}: "
            "install the same kit on every worker")}
    assignment, student = job["assignment"], job["student"]
    with _LOCK:
        course, api = _course(bundle, assignment)
        folders = [course.root / step / student / assignment
                   for step in ("submitted", "autograded", "feedback")]
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)
        for name, data in job["files"].items():
            path = folders[0] / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        when, source = job["received"]  # the client's record: the time every rule reads
        record_received(course, student, assignment, datetime.fromisoformat(when), source)
        try:
            try:
                autograde_student(course, assignment, student, api=api)
            except GradingError as exc:
                return {"status": "failed", "worker": me, "message": str(exc)}
            result = {"status": "graded", "worker": me, "message": "", "feedback": None,
                      **_cells(course, assignment, student), "files": _files(folders[1]),
                      "modes": _modes(folders[1])}
            if job.get("feedback"):
                from kit.handback.feedback import feedback_page, write_feedback

                result["message"] = write_feedback(course, assignment, student, api=api)
                page = feedback_page(course, assignment, student)
                result["feedback"] = page.read_bytes() if page.exists() else None
            return result
        finally:
            for folder in folders:
                shutil.rmtree(folder, ignore_errors=True)


def stop_kernels() -> int:
    """Kill the grading kernels (sandboxes) this worker process started; return how many.

    The client calls it on every worker when it is interrupted: the job that was running
    then ends at once (its kernel died) and its result is dropped.
    """
    import psutil

    killed = 0
    for child in psutil.Process().children(recursive=True):
        try:
            if any("kit.sandbox" in part or "bwrap" in part for part in child.cmdline()):
                child.kill()
                killed += 1
        except psutil.Error:
            continue
    return killed
