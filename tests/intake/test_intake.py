"""Links never carry anything in (kit/intake/safefiles.py, kit/intake/steps.py).

A student can write into the exchange's ``inbound/``, and whatever collect copies is read
with the TA's rights. Each route into ``submitted/`` (``nbgrader collect``, ``nbgrader
zip_collect``, files laid in ``submitted/`` by hand and then graded by ``nbgrader
autograde`` or ``kit.autograde``) is given hand-ins holding a symbolic link to the
instructor's source notebook or to ``gradebook.db``, a hard link, a FIFO that would stall a
naive copy, next to an honest hand-in: the honest one goes through, each other one is
refused with one line naming the student and the file, and nothing of the course is copied.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

import nbformat
import pytest

from kit.autograde import grade_class
from kit.course import Course, copy_course
from kit.intake import safefiles
from kit.intake.submitted import build_submission, lay
from kit.release import release
from tests.intake.test_exchange import COURSE_ID, student_env

PS = "ps1_circle_lift"
NB = f"{PS}.ipynb"


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """A released ps1_circle_lift course with its gradebook, copied by each test."""
    course = copy_course(tmp_path_factory.mktemp("intake"), [PS])
    assert not release(course, [PS])
    return course


@pytest.fixture
def course(tmp_path, template):
    shutil.copytree(template.root, tmp_path / "course")
    return Course(tmp_path / "course")


def nbgrader(*args, cwd, env=None, timeout=600):
    """One nbgrader command; its completed process (the test checks the outcome)."""
    return subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=cwd, timeout=timeout,
                          env=env or os.environ, capture_output=True, text=True, check=False)


def _attack_tree(folder: Path, course, kind: str) -> None:
    """Lay a hand-in of ``kind`` in ``folder`` (created), aimed at ``course``."""
    source = course.notebook("source", PS)
    folder.mkdir(parents=True)
    if kind == "honest":
        nbformat.write(build_submission(course, PS), folder / NB)
    elif kind == "link_to_source":
        (folder / NB).symlink_to(source)
    elif kind == "link_to_gradebook":
        nbformat.write(build_submission(course, PS), folder / NB)
        (folder / "notes.db").symlink_to(course.root / "gradebook.db")
    elif kind == "hard_link":
        os.link(source, folder / NB)
    elif kind == "fifo":
        nbformat.write(build_submission(course, PS), folder / NB)
        os.mkfifo(folder / "data.bin")
    elif kind == "link_in_subfolder":
        nbformat.write(build_submission(course, PS), folder / NB)
        (folder / "extra").mkdir()
        (folder / "extra" / "answers.ipynb").symlink_to(source)
    else:
        raise ValueError(kind)


ATTACKS = {"link_to_source": NB, "link_to_gradebook": "notes.db", "hard_link": NB,
           "fifo": "data.bin", "link_in_subfolder": "extra/answers.ipynb"}


def _no_course_file_copied(course) -> None:
    """Nothing under submitted/ is the source notebook or the gradebook."""
    secrets = {course.notebook("source", PS).read_bytes(), (course.root / "gradebook.db").read_bytes()}
    for path in (course.root / "submitted").rglob("*"):
        assert path.is_dir() or not path.is_symlink() and path.read_bytes() not in secrets, path


# ------------------------------------------------------------------ the primitives
def test_problems_names_every_kind_and_copy_tree_refuses_them(tmp_path, course):
    for kind in ["honest", *ATTACKS]:
        folder = tmp_path / "hand-ins" / kind
        _attack_tree(folder, course, kind)
        found = safefiles.problems(folder)
        dest = tmp_path / "copies" / kind
        if kind == "honest":
            assert found == []
            safefiles.copy_tree(folder, dest)
            assert (dest / NB).read_bytes() == (folder / NB).read_bytes()
            continue
        assert len(found) == 1 and found[0].startswith(ATTACKS[kind] + " is a"), found
        with pytest.raises(safefiles.UnsafeFiles, match="is a"):  # a FIFO must not hang it
            safefiles.copy_tree(folder, dest)
    link = tmp_path / "hand-ins" / "whole_folder"
    link.symlink_to(course.root / "source" / PS, target_is_directory=True)
    assert safefiles.problems(link) == ["whole_folder is a symbolic link"]
    with pytest.raises(safefiles.UnsafeFiles, match="symbolic link"):
        safefiles.copy_tree(link, tmp_path / "copies" / "whole_folder")


def test_copy_tree_refuses_a_link_swapped_in_after_the_check(tmp_path, course, monkeypatch):
    """The student replaces a checked file by a link to the source notebook just before it is
    opened: the open does not follow it, and nothing of the source is copied."""
    folder = tmp_path / "hand-in"
    _attack_tree(folder, course, "honest")
    real_open = os.open

    def swapping_open(path, flags, *args, **kwargs):
        if path == NB and not (folder / NB).is_symlink():
            (folder / NB).unlink()
            (folder / NB).symlink_to(course.notebook("source", PS))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(safefiles.os, "open", swapping_open)
    with pytest.raises(safefiles.UnsafeFiles, match=f"{NB} changed while it was copied"):
        safefiles.copy_tree(folder, tmp_path / "copy")
    assert not (tmp_path / "copy" / NB).exists()


@pytest.mark.skipif(os.getuid() != 0 or not shutil.which("setpriv"),
                    reason="needs root to act as another user")
def test_a_folder_the_ta_cannot_read_is_refused_not_a_crash():
    """A student's folder with mode 000 inside the hand-in: named, refused, no traceback."""
    with tempfile.TemporaryDirectory() as tmp:  # pytest's own folders are private to root
        os.chmod(tmp, 0o1777)  # the other user writes the copy there
        try:
            _run_unreadable(Path(tmp))
        finally:
            os.chmod(Path(tmp) / "hand-in" / "secret", 0o700)


def _run_unreadable(tmp_path: Path) -> None:
    folder = tmp_path / "hand-in"
    (folder / "secret").mkdir(parents=True)
    (folder / NB).write_text("{}")
    os.chmod(folder / "secret", 0)
    code = ("from kit.intake import safefiles\n"
            f"print(safefiles.problems({str(folder)!r}))\n"
            f"try:\n    safefiles.copy_tree({str(folder)!r}, {str(tmp_path / 'copy')!r})\n"
            "except safefiles.UnsafeFiles as exc:\n    print(exc.found)\n")
    run = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                          sys.executable, "-c", code], capture_output=True, text=True,
                         cwd="/", env={"PYTHONPATH": str(Path(safefiles.__file__).parents[1])},
                         check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["['secret cannot be read (Permission denied)']"] * 2


# ------------------------------------------------------------------ nbgrader collect
def test_collect_takes_only_plain_hand_ins_from_the_exchange(tmp_path, course):
    exchange = tmp_path / "exchange"
    env = {**os.environ, "KPCA_EXCHANGE": str(exchange)}
    assert nbgrader("release_assignment", PS, cwd=course.root, env=env).returncode == 0
    home = tmp_path / "home" / "honest"
    home.mkdir(parents=True)
    student = student_env(home, "honest")
    extra = [f"--Exchange.root={exchange}"]
    assert nbgrader("fetch_assignment", PS, "--course", COURSE_ID, *extra, cwd=home,
                    env=student).returncode == 0
    nbformat.write(build_submission(course, PS), home / PS / NB)
    assert nbgrader("submit", PS, "--course", COURSE_ID, "--student=honest", *extra, cwd=home,
                    env=student).returncode == 0
    # what the other students write straight into inbound/ (it is theirs to write)
    inbound = exchange / COURSE_ID / "inbound"
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    for kind in ATTACKS:
        _attack_tree(inbound / f"{kind}+{PS}+{stamp}+x", course, kind)
    (inbound / f"whole_folder+{PS}+{stamp}+x").symlink_to(course.root / "source" / PS)

    run = nbgrader("collect", PS, cwd=course.root, env=env, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    assert sorted(p.name for p in (course.root / "submitted").iterdir()) == ["honest"]
    for kind, name in {**ATTACKS, "whole_folder": "whole_folder"}.items():
        lines = [line for line in run.stderr.splitlines() if f"not collected: {kind}:" in line]
        assert len(lines) == 1 and name in lines[0], (kind, run.stderr[-3000:])
    _no_course_file_copied(course)


# ------------------------------------------------------------------ nbgrader zip_collect
def test_zip_collect_files_only_plain_files(tmp_path, course):
    extracted = course.root / "downloaded" / PS / "extracted" / "export"
    extracted.mkdir(parents=True)
    nbformat.write(build_submission(course, PS), extracted / f"honest_1_1_{NB}")
    (extracted / f"linked_2_2_{NB}").symlink_to(course.notebook("source", PS))
    os.link(course.notebook("source", PS), extracted / f"hardlinked_3_3_{NB}")
    os.mkfifo(extracted / f"piped_4_4_{NB}")
    run = nbgrader("zip_collect", "--strict", PS, cwd=course.root, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    assert sorted(p.name for p in (course.root / "submitted").iterdir()) == ["honest"]
    for student, what in (("linked", "symbolic link"), ("hardlinked", "hard link"),
                          ("piped", "FIFO")):
        assert f"not imported: {student}: {student}_" in run.stderr and what in run.stderr
    _no_course_file_copied(course)


# ------------------------------------------------------------------ files laid in submitted/
@pytest.fixture
def laid(course):
    """A course whose submitted/ holds an honest hand-in and the attacks, laid by hand."""
    lay(course, PS, "honest", build_submission(course, PS))
    for kind in ("link_to_source", "link_to_gradebook", "hard_link", "link_in_subfolder", "fifo"):
        _attack_tree(course.root / "submitted" / kind / PS, course, kind)
    (course.root / "submitted" / "whole_folder").mkdir()
    (course.root / "submitted" / "whole_folder" / PS).symlink_to(course.root / "source" / PS)
    return course


def test_plain_autograde_grades_no_linked_submission(laid):
    run = nbgrader("autograde", PS, cwd=laid.root, timeout=900)
    assert run.returncode == 1  # nbgrader reports the refused ones as errors
    graded = sorted(p.parent.parent.name for p in (laid.root / "autograded").glob(f"*/{PS}/{NB}"))
    assert graded == ["honest"]  # the FIFO stops nbgrader's own copy of that folder
    for student in ("link_to_source", "link_to_gradebook", "hard_link", "link_in_subfolder",
                    "whole_folder"):
        assert f"not graded: {student}:" in run.stderr, (student, run.stderr[-3000:])


def test_kit_autograde_checks_before_nbgrader_reads_anything(laid):
    zero = laid.root / "submitted" / "endless" / PS
    zero.mkdir(parents=True)
    (zero / NB).symlink_to("/dev/zero")  # read through, it would never end
    os.mkfifo(laid.root / "submitted" / "link_to_gradebook" / PS / "pipe")
    outcomes = grade_class(laid, [PS], workers=1, progress=False)
    by = {o.student: o for o in outcomes}
    assert by["honest"].status == "graded"
    for student, name in (("link_to_source", NB), ("hard_link", NB), ("endless", NB),
                          ("fifo", "data.bin is a FIFO"),
                          ("link_in_subfolder", "extra/answers.ipynb"), ("whole_folder", PS)):
        assert by[student].status == "failed" and name in by[student].message, by[student]
    assert "pipe is a FIFO" in by["link_to_gradebook"].message
    assert "notes.db is a symbolic link" in by["link_to_gradebook"].message
