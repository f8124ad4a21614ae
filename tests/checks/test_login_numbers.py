"""Numbers bound to the login (on a hub) and to the course roster (an LMS release)."""

from __future__ import annotations

import shutil

import nbformat
import pytest

from kit.course import REPO_ROOT
from kit.roster import course_salt, id_hash, roster_line, with_roster, write_roster_release
from kpca_ref import variants
from kpca_ref.variants.cell import NUMBERS_ID, numbers_cell

PS = "ps1_circle_lift"


def run_cell(source: str, typed: str, monkeypatch, env: dict) -> dict:
    for key in ("JUPYTERHUB_USER", "KPCA_STUDENT_ID", "KPCA_NUMBERS_FROM_LOGIN"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    scope = {"STUDENT_ID": typed}
    exec(source, scope)  # noqa: S102 - the cell a student runs
    return scope


def test_on_the_hub_the_login_wins_and_a_typed_id_is_ignored_with_a_warning(monkeypatch, capsys):
    scope = run_cell(numbers_cell(PS), "ada", monkeypatch, {"JUPYTERHUB_USER": "bob"})
    assert scope["VARIANT_ID"] == "bob"
    assert vars(scope["N"]) == vars(variants.numbers(PS, "bob"))
    err = capsys.readouterr().err
    assert "STUDENT_ID = 'ada' is ignored" in err and "'bob'" in err


def test_on_the_hub_an_empty_or_equal_id_gives_no_warning(monkeypatch, capsys):
    for typed in ("", "bob", " bob "):
        assert run_cell(numbers_cell(PS), typed, monkeypatch,
                        {"JUPYTERHUB_USER": "bob"})["VARIANT_ID"] == "bob"
    assert "ignored" not in capsys.readouterr().err


def test_the_grader_still_runs_the_typed_id_it_detects(monkeypatch):
    # grading sets KPCA_STUDENT_ID (kit/judge/preprocessors.py); a TA's hub server sets JUPYTERHUB_USER too
    scope = run_cell(numbers_cell(PS), "ada", monkeypatch,
                     {"JUPYTERHUB_USER": "ta_tom", "KPCA_STUDENT_ID": "bob"})
    assert scope["VARIANT_ID"] == "ada"
    scope = run_cell(numbers_cell(PS), "", monkeypatch,
                     {"JUPYTERHUB_USER": "ta_tom", "KPCA_STUDENT_ID": "bob"})
    assert scope["VARIANT_ID"] == "bob"


def test_grading_a_hub_course_keeps_the_login_as_the_hub_did(monkeypatch, capsys):
    # c.WriteCases.numbers_from_login: the grader adds KPCA_NUMBERS_FROM_LOGIN=1
    graded = {"KPCA_STUDENT_ID": "bob", "KPCA_NUMBERS_FROM_LOGIN": "1"}
    for typed in ("ada", "", "bob"):
        scope = run_cell(numbers_cell(PS), typed, monkeypatch, graded)
        assert scope["VARIANT_ID"] == "bob"
        assert vars(scope["N"]) == vars(variants.numbers(PS, "bob"))
    assert capsys.readouterr().err.count("STUDENT_ID = 'ada' is ignored") == 1
    # any other value of the variable is not the switch
    assert run_cell(numbers_cell(PS), "ada", monkeypatch,
                    {**graded, "KPCA_NUMBERS_FROM_LOGIN": "yes"})["VARIANT_ID"] == "ada"


def released_cell_with(line: str) -> str:
    nb = nbformat.read(REPO_ROOT / "release" / PS / f"{PS}.ipynb", as_version=4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == NUMBERS_ID)
    cell.source = numbers_cell(PS)  # the current template (the committed release may lag)
    return next(c for c in with_roster(nb, line).cells
                if c.metadata.get("nbgrader", {}).get("grade_id") == NUMBERS_ID).source


def test_a_roster_release_stops_a_misspelt_id_at_once(monkeypatch):
    source = released_cell_with(roster_line(["ada_lee", "bob_ray"], course_salt(b"s" * 64)))
    assert run_cell(source, "ada_lee", monkeypatch, {})["VARIANT_ID"] == "ada_lee"
    with pytest.raises(RuntimeError, match="not on the course roster: check its spelling"):
        run_cell(source, "ada_le", monkeypatch, {})
    # the grader (KPCA_STUDENT_ID) and the hub never consult the roster
    assert run_cell(source, "ada_le", monkeypatch, {"KPCA_STUDENT_ID": "x"})["VARIANT_ID"] == "ada_le"
    assert run_cell(source, "", monkeypatch, {"JUPYTERHUB_USER": "zed"})["VARIANT_ID"] == "zed"


def test_without_a_roster_any_id_draws_numbers_as_before(monkeypatch):
    assert run_cell(numbers_cell(PS), "ada_le", monkeypatch, {})["VARIANT_ID"] == "ada_le"


def test_the_roster_line_holds_salted_hashes_only_and_the_salt_is_per_course():
    secret = b"k" * 64
    line = roster_line(["ada_lee", "bob_ray"], course_salt(secret))
    assert "ada" not in line and "bob" not in line
    assert id_hash("ada_lee", course_salt(secret)) in line
    other = course_salt(secret, "another_course")
    assert other != course_salt(secret) and id_hash("ada_lee", other) not in line
    assert line == roster_line(["bob_ray", "ada_lee", "ada_lee"], course_salt(secret))
    with pytest.raises(ValueError, match="no ids"):
        roster_line([], course_salt(secret))


def test_the_roster_release_is_a_copy_beside_release_and_reruns_byte_identical(tmp_path):
    (tmp_path / "release").mkdir()
    shutil.copytree(REPO_ROOT / "release" / PS, tmp_path / "release" / PS)
    path = tmp_path / "release" / PS / f"{PS}.ipynb"
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == NUMBERS_ID:
            cell.source = numbers_cell(PS)
    nbformat.write(nb, path)
    before = path.read_bytes()
    first = write_roster_release(tmp_path, [PS], ["zq_unseen_9"], b"k" * 64)
    data = first[0].read_bytes()
    assert write_roster_release(tmp_path, [PS], ["zq_unseen_9"], b"k" * 64)[0].read_bytes() == data
    assert path.read_bytes() == before and first[0].parent.parent.name == "release_roster"
    assert b"zq_unseen_9" not in data and b"_ROSTER = {" in data
