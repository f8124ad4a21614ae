"""The split of ``make test`` (tests/run_groups.py): a session fixture that grades the demo
class must be built once per run, so every test module using it sits in the grading group."""

from __future__ import annotations

import re
from pathlib import Path

from tests.run_groups import GRADING, ROOT, commands

#: the session fixtures that grade a whole class; a second group using one grades it again
ONCE = ("demo_run",)


def _in_grading(path: Path) -> bool:
    rel = path.relative_to(ROOT).as_posix()
    return any(rel == p or rel.startswith(p.rstrip("/") + "/") for p in GRADING)


def test_every_user_of_the_demo_run_is_in_the_grading_group():
    users = [p for p in (ROOT / "tests").rglob("*.py")
             if p.name.startswith("test_")
             and any(re.search(rf"def test_\w*\([^)]*\b{name}\b", p.read_text()) for name in ONCE)]
    assert users, "no test uses the demo run: the pattern above no longer finds them"
    outside = [str(p.relative_to(ROOT)) for p in users if not _in_grading(p)]
    assert outside == [], f"these would grade the demo class a second time: add them to GRADING: {outside}"


def test_the_rest_group_leaves_out_exactly_the_grading_group(tmp_path):
    argv = commands([], tmp_path)
    ignored = {a.split("=", 1)[1] for a in argv["rest"] if a.startswith("--ignore=")}
    assert {p for p in GRADING if p.startswith("tests/")} <= ignored
    for path in GRADING:
        assert (ROOT / path).exists(), f"GRADING names {path}, which does not exist"
