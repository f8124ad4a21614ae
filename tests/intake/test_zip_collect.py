"""The LMS course: a zip of submissions as the LMS exports it, imported with zip_collect."""

from __future__ import annotations

import subprocess
import sys
import zipfile

import nbformat
import pytest

from kit.autograde import autograde_student
from kit.course import REPO_ROOT, Course
from kit.intake.collect import CollectError, import_zip, main, name_pattern, plan, report
from kit.intake.received import received_time
from kit.intake.submitted import build_submission
from tests.support.nbgrading import auto_points, read_source, variants

PS = "ps1_circle_lift"
PATTERN = name_pattern(Course(REPO_ROOT))

#: file name in the LMS zip -> (student it belongs to, what they handed in)
EXPORT = {
    f"ada_reference_4417_90210_{PS}.ipynb": ("ada_reference", "solution"),
    # handed in late, and the LMS renamed the re-submitted file
    f"bob_not_centred_late_4418_90211_{PS}-1.ipynb": ("bob_not_centred", "not_centred"),
    f"cy_2_4419_90212_{PS}.ipynb": ("cy_2", "solution"),  # a student id ending in a number
}
NOT_IN_PATTERN = f"{PS}.ipynb"  # a file the LMS did not name: no student to file it under
OTHER_NOTEBOOK = "dan_4420_90213_ps2_feature_maps.ipynb"  # handed in to the wrong problem set


def write_export(course, path, handed_in=None, extra=(NOT_IN_PATTERN, OTHER_NOTEBOOK)):
    """The LMS's zip: ``EXPORT`` (``handed_in`` overrides what a student handed in), plus ``extra``."""
    with zipfile.ZipFile(path, "w") as archive:
        for name, (student, what) in EXPORT.items():
            what = (handed_in or {}).get(student, what)
            cells = None if what == "solution" else variants(PS)[what]["cells"]
            archive.writestr(name, nbformat.writes(build_submission(course, PS, cells)))
        for name in extra:
            archive.writestr(name, nbformat.writes(build_submission(course, PS)))
    return path


def test_the_pattern_files_lms_names_under_the_right_student():
    names = [*EXPORT, NOT_IN_PATTERN, OTHER_NOTEBOOK, "readme.txt", "export/"]
    got = plan(names, PATTERN, PS, where="/course/downloaded/ps1_circle_lift/extracted/export")
    assert got.students == {student: name for name, (student, _) in EXPORT.items()}
    assert got.ignored == [NOT_IN_PATTERN, "readme.txt"]
    assert got.other_notebook == [OTHER_NOTEBOOK]


def test_two_files_for_one_student_are_named_and_only_that_student_is_left_out():
    names = [f"ada_1_2_{PS}.ipynb", f"ada_late_1_3_{PS}-1.ipynb", f"bob_4_5_{PS}.ipynb"]
    got = plan(names, PATTERN, PS)
    assert got.twice == {"ada": names[:2]}
    assert got.students == {"bob": names[2]}
    line = report(got, PS)
    assert "imported 1 submissions" in line and "bob" in line
    assert f"2 {PS} notebooks for ada" in line and all(name in line for name in names[:2])


def test_a_student_with_two_files_is_skipped_and_the_class_imported(tmp_path, released_ps1, capsys):
    """Through kit.intake.collect, then plain `nbgrader zip_collect`: ada's two files are named, the
    rest of the class lands in submitted/."""
    course = released_ps1(tmp_path / "course")
    second = f"ada_reference_late_4417_90299_{PS}-1.ipynb"
    export = write_export(course, tmp_path / "export.zip", extra=(second,))
    result = import_zip(course, PS, export)
    assert result.twice == {"ada_reference": sorted([second, *[n for n in EXPORT if n.startswith("ada")]])}
    imported = sorted(s for s, _ in EXPORT.values() if s != "ada_reference")
    assert sorted(result.students) == imported
    assert _submitted(course) == imported

    again = released_ps1(tmp_path / "plain")
    archive = again.root / "downloaded" / PS / "archive"
    archive.mkdir(parents=True)
    write_export(again, archive / "export.zip", extra=(second,))
    done = subprocess.run([sys.executable, "-m", "nbgrader", "zip_collect", "--strict", PS],
                          cwd=again.root, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "not imported: ada_reference: 2 files for one notebook" in done.stderr
    assert second in done.stderr
    assert _submitted(again) == imported


def _submitted(course) -> list[str]:
    folder = course.root / "submitted"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_wrapper_names_what_is_wrong_before_touching_the_course(tmp_path, capsys):
    assert main(["--zip", str(tmp_path / "missing.zip"), PS]) == 2
    assert "no such zip file" in capsys.readouterr().err
    assert main(["--zip", str(tmp_path / "missing.zip"), "ps9_nothing"]) == 2
    assert "unknown problem set 'ps9_nothing'" in capsys.readouterr().err
    (tmp_path / "notes.zip").write_text("not a zip")
    assert main(["--zip", str(tmp_path / "notes.zip"), PS]) == 2
    assert "is not a zip archive" in capsys.readouterr().err
    with zipfile.ZipFile(tmp_path / "wrong.zip", "w") as archive:
        archive.writestr("ada_reference.ipynb", "{}")
        archive.writestr(OTHER_NOTEBOOK, "{}")
    assert main(["--zip", str(tmp_path / "wrong.zip"), PS]) == 2
    err = capsys.readouterr().err
    assert f"no file in wrong.zip is a {PS} notebook" in err
    assert "ada_reference.ipynb" in err and OTHER_NOTEBOOK in err


def test_import_files_each_student_grades_and_is_replaced_only_with_force(tmp_path, released_ps1):
    course = released_ps1(tmp_path / "course")
    export = write_export(course, tmp_path / "export.zip")
    result = import_zip(course, PS, export)
    assert sorted(result.students) == sorted(s for s, _ in EXPORT.values())
    assert result.ignored == [NOT_IN_PATTERN] and result.other_notebook == [OTHER_NOTEBOOK]
    submitted = sorted(str(p.relative_to(course.root / "submitted"))
                       for p in (course.root / "submitted").rglob("*") if p.is_file())
    # the notebook, and the time the course received it in nbgrader's timestamp.txt
    assert submitted == sorted(f"{s}/{PS}/{name}" for s, _ in EXPORT.values()
                               for name in (f"{PS}.ipynb", "timestamp.txt"))
    for student, _ in EXPORT.values():
        stamp = (course.root / "submitted" / student / PS / "timestamp.txt").read_text()
        assert stamp == f"{received_time(course, student, PS):%Y-%m-%d %H:%M:%S.%f} UTC"

    # the late, renamed file with the classic mistake: it loses what the variant says
    scores = autograde_student(course, PS, "bob_not_centred")
    auto_ids = auto_points(read_source(PS))
    lost = sum(variants(PS)["not_centred"]["lost"].values())
    assert sum(v for k, v in scores.items() if k in auto_ids) == sum(auto_ids.values()) - lost

    # the LMS's next export, where bob has handed in a corrected notebook
    again = write_export(course, tmp_path / "again.zip", {"bob_not_centred": "solution"}, extra=())
    with pytest.raises(CollectError, match="--force replaces it") as err:
        import_zip(course, PS, again)
    assert f"submitted/ada_reference/{PS}" in str(err.value)
    import_zip(course, PS, again, force=True)
    assert [p.name for p in (course.root / "downloaded" / PS / "archive").iterdir()] == ["again.zip"]
    with zipfile.ZipFile(again) as archive:
        for name, (student, _) in EXPORT.items():
            assert course.notebook("submitted", PS, student).read_bytes() == archive.read(name)
