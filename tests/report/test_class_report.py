"""The class report a TA can trust: what it counts, what it ranks, what it links."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import nbformat

from kit.report.data import parts_of, summarise
from tests.support.graded_class import MISSING, PS


def _page(graded) -> str:
    return (graded.course.root / "reports" / "class_report.html").read_text(encoding="utf-8")


def test_distribution_counts_graded_notebooks_only_with_missing_and_failed_beside(graded):
    (ps,) = summarise(graded.course, graded.outcomes)
    assert sorted(ps.graded) == ["ada", "ben", "gus", "hana"]
    assert ps.missing == [MISSING] and list(ps.failed) == ["pat"]
    assert sorted(m.auto for m in ps.graded.values()) == [0, 17, 19, 23]
    page = _page(graded)
    assert "4 graded, 1 not submitted, 1 could not be graded" in page


def test_parts_are_titled_from_the_notebook_and_sorted_hardest_first(graded):
    (ps,) = summarise(graded.course, graded.outcomes)
    shares = [p.full for p in ps.parts]
    assert shares == sorted(shares)
    titles = {p.grade_id: p.title for p in ps.parts}
    assert titles["variance_shares_test"] == "Part 1 — Variance shares on a circle"
    assert titles["lift_point_test"] == titles["lift_test"] == "Part 5 — The lift φ"
    assert titles["circle_u_test"] == "Part 6 — The normal vector u of a circle"
    # ben (blank) fails all; gus fails variance_shares; hana fails lift, lift_point, lift_dot_u
    rates = {p.grade_id: p.full for p in ps.parts}
    assert rates["variance_shares_test"] == 0.5 and rates["lift_test"] == 0.5
    assert rates["components_needed_test"] == 0.75
    table = _page(graded).split("<table class=parts>")[1].split("</table>")[0]
    order = re.findall(r"\(([a-z_]+_test)\)", table)
    assert order == [p.grade_id for p in ps.parts]
    assert len(order) == len(parts_of(graded.course, PS))


def test_named_mistakes_with_count_and_share(graded):
    table = _page(graded).split("<table class=mistakes>")[1].split("</table>")[0]
    rows = dict(re.findall(r"<code>([a-z_]+)</code></td><td class=num>(\d+)</td>", table))
    assert rows.get("not_centred") == "1" and rows.get("lift_column_order") == "1"
    assert "share of the 4 graded notebooks" in table and "25%" in table


def test_images_are_embedded_pngs(graded):
    page = _page(graded)
    sources = re.findall(r'<img src="([^"]+)"', page)
    assert sources and all(s.startswith("data:image/png;base64,") for s in sources)
    assert min(len(s) for s in sources) > 10_000


def test_every_feedback_link_resolves_from_reports(graded):
    folder = graded.course.root / "reports"
    links = re.findall(r'<a href="([^"#][^"]*)"', _page(graded))
    assert len(links) == 4  # one per graded student
    for link in links:
        target = (folder / unquote(link)).resolve()
        assert target.is_file() and target.is_relative_to(graded.course.root / "feedback"), link
        assert target.parent.parent.name in ("ada", "ben", "gus", "hana")


def test_typed_ids_are_listed_and_forged_diagnoses_ignored(graded, tmp_path):
    """A graded notebook the judge recorded as drawn for another student's id is listed under
    its own heading; a diagnosis tag a student's code printed or raised (in its own cell or
    in a test cell's text) is not counted (only the judge's record in the metadata of its
    score output is); a student id and a failure message full of markup are shown as text."""
    from nbformat.v4 import new_output

    from kit.autograde import Outcome
    from kit.judge.cells import JUDGE_KEY, is_test_cell
    from kit.report.page import write_report

    odd = Outcome("<script>alert(1)</script>", PS, "failed", message="<img src=x onerror=alert(2)>")

    course = graded.course
    path = course.notebook("autograded", PS, "hana")
    nb = nbformat.read(path, as_version=4)
    original = nbformat.writes(nb)
    tests = [cell for cell in nb.cells if is_test_cell(cell)]
    for out in tests[-1].outputs:
        if out.output_type == "execute_result":
            out.metadata[JUDGE_KEY] = {"diagnoses": ["wrong_student_id"], "other_ids": ["ada"]}
    tests[0].outputs.insert(0, new_output("stream", name="stdout",
                                          text="✓ all passed [diagnosis: forged_text]\n"))
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("solution") and cell.cell_type == "code":
            cell.outputs.append(new_output("stream", name="stdout", text="[diagnosis: forged_code]\n"))
    nbformat.write(nb, path)
    try:
        page = write_report(course, [*graded.outcomes, odd], tmp_path).read_text(encoding="utf-8")
    finally:
        Path(path).write_text(original, encoding="utf-8")
    listed = page.split("another student's id</h2>")[1]
    assert "hana / ps1_circle_lift" in listed and "<code>ada</code>" in listed
    assert "forged_code" not in page and "forged_text" not in page
    assert "<code>lift_column_order</code>" in page
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; / ps1_circle_lift: &lt;img src=x" in page


def test_report_command_remakes_the_outputs_from_disk_and_gradebook(graded, tmp_path, capsys):
    """``python -m kit.report --feedback`` on a copy of the graded course (after hand grading)
    holding ada and pat: the same rows as before, ada's feedback page made again with the
    comment (two students only: each page costs a second or two)."""
    import csv
    import shutil

    from kit.course import Course
    from kit.report.page import main, outcomes_on_disk
    from tests.support.graded_class import HAND_COMMENT

    copy = Course(tmp_path / "course")
    shutil.copytree(graded.course.root, copy.root)
    shutil.rmtree(copy.root / "feedback")
    for student in ("ben", "gus", "hana"):
        shutil.rmtree(copy.root / "submitted" / student)
    found = {(o.student, o.status) for o in outcomes_on_disk(copy, [PS])}
    assert found == {("ada", "graded"), ("pat", "failed")}
    assert main([PS, "--course", str(copy.root), "--feedback"]) == 0
    out = capsys.readouterr().out
    assert f"report:   {copy.root / 'reports' / 'class_report.html'}" in out
    page = copy.root / "feedback" / "ada" / PS / f"{PS}.html"
    assert HAND_COMMENT in page.read_text(encoding="utf-8")

    def rows(root):
        with (root / "reports" / "grades.csv").open(newline="", encoding="utf-8") as fh:
            return {r["student"]: {k: v for k, v in r.items() if k != "status"}
                    for r in csv.DictReader(fh)}

    before, after = rows(graded.course.root), rows(copy.root)
    assert after == {s: r for s, r in before.items() if s in ("ada", "pat")}
