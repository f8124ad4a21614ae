"""The split of ``make test`` (tests/run_groups.py): a session fixture that grades a class must
be built once per run, so every test module using it sits in one group; a folder the groups
share is made once per run (tests/support/once.py)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.run_groups import ALONE, GRADING, GROUPS, NICE, ROOT, alone_command, commands
from tests.support.once import RUN_DIR, made_once

#: the session fixtures that grade a whole class; a second group using one grades it again
ONCE = ("demo_run",)
#: the class graded for the report tests (tests/support/graded_class.py), once per process
GRADED_CLASS = "graded_class"


def _group_of(path: Path) -> str:
    rel = path.relative_to(ROOT).as_posix()
    for group, paths in GROUPS.items():
        if any(rel == p or rel.startswith(p.rstrip("/") + "/") for p in paths):
            return group
    return "rest"


def _test_files():
    return [p for p in (ROOT / "tests").rglob("*.py")
            if p.name.startswith("test_") or p.name == "conftest.py"]


def test_every_user_of_the_demo_run_is_in_the_grading_group():
    users = [p for p in _test_files()
             if any(re.search(rf"def test_\w*\([^)]*\b{name}\b", p.read_text()) for name in ONCE)]
    assert users, "no test uses the demo run: the pattern above no longer finds them"
    outside = [str(p.relative_to(ROOT)) for p in users if _group_of(p) != "grading"]
    assert outside == [], f"these would grade the demo class a second time: add them to GRADING: {outside}"


def test_every_user_of_the_graded_class_is_in_one_group():
    users = [p for p in _test_files()  # this file names it too, and uses it not
             if GRADED_CLASS in p.read_text() and p.resolve() != Path(__file__).resolve()]
    assert len(users) > 1, "no test uses the graded class: the pattern above no longer finds them"
    groups = {str(p.relative_to(ROOT)): _group_of(p) for p in users}
    assert len(set(groups.values())) == 1, f"the graded class would be graded once per group: {groups}"


def test_the_rest_group_leaves_out_exactly_the_named_groups(tmp_path):
    argv = commands([], tmp_path)
    assert list(argv) == [*GROUPS, "rest"]
    ignored = {a.split("=", 1)[1] for a in argv["rest"] if a.startswith("--ignore=")}
    named = [p for paths in GROUPS.values() for p in paths]
    assert len(named) == len(set(named)), "a path sits in two groups: its tests would run twice"
    assert {p for p in named if p.startswith("tests/")} <= ignored
    assert ignored - set(named) == {"tests/check"}, ignored
    for path in named:
        assert (ROOT / path).exists(), f"GROUPS names {path}, which does not exist"
    assert GRADING == GROUPS["grading"]
    assert set(NICE) <= set(argv), f"a lower priority for a group that does not exist: {NICE}"


def test_the_tests_run_alone_run_once_after_the_groups_and_exist(tmp_path):
    """Each of :data:`ALONE` is left out of ``rest`` and run by the last command, once."""
    rest = commands([], tmp_path)["rest"]
    alone = alone_command(["-x"], tmp_path)
    for test in ALONE:
        path, name = test.split("::")
        assert f"--deselect={test}" in rest and test in alone
        assert not any(path in paths for paths in GROUPS.values()), test  # else it runs twice
        assert f"def {name}(" in (ROOT / path).read_text(), f"ALONE names {test}: not found"
    assert "-x" in alone


#: one process asking for the shared folder: it counts its builds in ``built``
ASK = """
import sys, time
from pathlib import Path
from tests.support.once import made_once

def build(folder):
    with open(sys.argv[1], "a") as built:
        built.write("x")
    time.sleep(0.5)  # the others ask meanwhile
    (folder / "made").write_text("yes")

folder = made_once("thing", None, build)
print((folder / "made").read_text())
"""


def test_a_shared_folder_is_made_once_by_processes_asking_together(tmp_path):
    shared, built = tmp_path / "shared", tmp_path / "built"
    shared.mkdir()
    env = {**os.environ, RUN_DIR: str(shared)}
    procs = [subprocess.Popen([sys.executable, "-c", ASK, str(built)], cwd=ROOT, env=env,
                              stdout=subprocess.PIPE, text=True) for _ in range(4)]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert [p.returncode for p in procs] == [0] * 4
    assert outs == ["yes\n"] * 4
    assert built.read_text() == "x", "the folder was built more than once"


def test_a_failed_build_is_not_taken_for_made(tmp_path, monkeypatch):
    monkeypatch.setenv(RUN_DIR, str(tmp_path))

    def broken(folder):
        (folder / "half").write_text("")
        raise RuntimeError("broken build")

    try:
        made_once("thing", None, broken)
    except RuntimeError:
        pass
    else:
        raise AssertionError("the build's error was swallowed")
    folder = made_once("thing", None, lambda f: (f / "whole").write_text(""))
    assert sorted(p.name for p in folder.iterdir()) == ["whole"]


def test_without_a_shared_folder_each_session_builds_its_own(tmp_path_factory, monkeypatch):
    monkeypatch.delenv(RUN_DIR, raising=False)
    one = made_once("thing", tmp_path_factory, lambda f: (f / "a").write_text(""))
    two = made_once("thing", tmp_path_factory, lambda f: (f / "a").write_text(""))
    assert one != two and (one / "a").exists() and (two / "a").exists()
