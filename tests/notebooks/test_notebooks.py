"""The problem sets: hygiene, execution, release freshness and auto-grading.

Grading runs through the kit's grading (nbgrader's own API) in temporary copies of the
course: the reference solution must earn every auto-graded point, the blank release none,
and each submission in ``tests/submissions/`` exactly what its entry there says. The
submissions the demo class hands in are graded once, by the session's demo run.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from kit.course import ASSIGNMENTS, REPO_ROOT, copy_course
from tests.support.nbgrading import (
    LINES,
    auto_points,
    graded_submissions,
    manual_points,
    nb_meta,
    read_source,
    variants,
)


@pytest.fixture(params=ASSIGNMENTS)
def ps(request):
    return request.param


@pytest.fixture(scope="session")
def graded(demo_run, tmp_path_factory):
    """``{ps: {name: {grade_id: score}}}`` for the solution, the blank and every submission."""
    return graded_submissions(demo_run, tmp_path_factory.mktemp("submissions"))


def test_source_is_stored_clean(ps):
    nb = read_source(ps)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, "source stored with outputs"
        meta = nb_meta(cell)
        assert meta.get("schema_version") == 3, f"cell without nbgrader schema 3: {cell.source[:60]!r}"
    ids = [nb_meta(c)["grade_id"] for c in nb.cells if "grade_id" in nb_meta(c)]
    assert len(ids) == len(set(ids)), "grade_ids must be unique"
    assert all(re.fullmatch(r"[a-z0-9_]+", i) for i in ids), "grade_ids must be snake_case"


def test_every_answer_cell_is_followed_by_its_test(ps):
    nb = read_source(ps)
    cells = nb.cells
    for i, cell in enumerate(cells):
        meta = nb_meta(cell)
        if cell.cell_type == "code" and meta.get("solution"):
            following = [nb_meta(c) for c in cells[i + 1 :] if nb_meta(c).get("grade") or nb_meta(c).get("solution")]
            assert following and following[0].get("grade") and not following[0].get("solution"), (
                f"answer cell {meta['grade_id']} is not followed by a test cell"
            )


def test_points_in_headings_match_cells(ps):
    """A heading '(N points)' announces the points of the graded cells until the next heading."""
    nb = read_source(ps)
    announced, counted, current = {}, {}, None
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            m = re.search(r"^#+ .*\((\d+(?:\.\d+)?) points?\)", cell.source, re.MULTILINE)
            if m:
                current = cell.source.splitlines()[0]
                announced[current] = float(m.group(1))
                counted[current] = 0.0
        meta = nb_meta(cell)
        if meta.get("grade") and current is not None:
            counted[current] += float(meta["points"])
    assert announced, "no part heading announces its points"
    assert announced == counted


def test_auto_points_in_range(ps):
    total = sum(auto_points(read_source(ps)).values())
    assert 20 <= total <= 40, f"{ps} has {total} auto-graded points"
    assert manual_points(read_source(ps)), f"{ps} has no written (manually graded) answer"


#: appended to the notebook: the CPU seconds its kernel used, start-up and children included
KERNEL_CPU = (
    "import resource as _r\n"
    "_s, _c = _r.getrusage(_r.RUSAGE_SELF), _r.getrusage(_r.RUSAGE_CHILDREN)\n"
    "print(_s.ru_utime + _s.ru_stime + _c.ru_utime + _c.ru_stime)"
)


def test_source_executes_quickly(ps):
    """The whole notebook costs its kernel under 15 s of CPU.

    CPU, not wall time: on a student's idle machine they are about equal, but here the suite
    shares two cores between two test processes and wall time measures the neighbours (a
    loose wall limit still catches a notebook that waits).
    """
    nb = read_source(ps)
    nb.cells.append(nbformat.v4.new_code_cell(KERNEL_CPU))
    start = time.perf_counter()
    NotebookClient(nb, timeout=60, kernel_name="python3", resources={"metadata": {"path": "/tmp"}}).execute()
    elapsed = time.perf_counter() - start
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors, errors[0]["evalue"] if errors else ""
    stderr = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "stream" and o.name == "stderr"]
    assert not stderr, f"a cell wrote to stderr: {stderr[0]['text'][:200]}"
    cpu = float(nb.cells[-1].outputs[0]["text"])
    assert 0 < cpu < 15, f"{ps} took {cpu:.1f} s of kernel CPU ({elapsed:.1f} s wall)"
    # and no waiting that CPU time would not see (three times the CPU limit: a loaded machine)
    assert elapsed < 45, f"{ps} took {elapsed:.1f} s wall, {cpu:.1f} s of kernel CPU"


def test_release_is_current_and_clean(ps, tmp_path):
    from kit.course import copy_course

    course = copy_course(tmp_path, [ps])
    result = course.api().generate_assignment(ps, force=True)
    assert result["success"], result.get("log")
    fresh = course.notebook("release", ps).read_bytes()
    committed = REPO_ROOT / "release" / ps / f"{ps}.ipynb"
    assert committed.read_bytes() == fresh, f"release/{ps} is stale: run `make release`"
    text = fresh.decode()
    for forbidden in ("BEGIN SOLUTION", "BEGIN HIDDEN TESTS", "kpca_ref", "_grading"):
        assert forbidden not in text, f"release/{ps} contains {forbidden!r}"
    assert sorted(p.name for p in (REPO_ROOT / "release" / ps).iterdir()) == [f"{ps}.ipynb"]


def test_solution_earns_every_point(ps, graded):
    scores = graded[ps]["solution"]
    expected = auto_points(read_source(ps))
    assert {k: scores[k] for k in expected} == expected


def test_blank_release_earns_nothing(ps, graded):
    scores = graded[ps]["blank"]
    assert {k: scores[k] for k in auto_points(read_source(ps))} == dict.fromkeys(auto_points(read_source(ps)), 0.0)


def test_submissions_earn_what_they_should(ps, graded):
    points = auto_points(read_source(ps))
    all_scores = graded[ps]
    assert variants(ps), f"tests/submissions/{ps}.py has no submissions"
    mismatches = {}
    for name, variant in variants(ps).items():
        unknown = set(variant["lost"]) - set(points)
        assert not unknown, f"{name}: unknown test cells {unknown}"
        expected = {gid: round(p - variant["lost"].get(gid, 0.0), 2) for gid, p in points.items()}
        got = {gid: round(all_scores[name][gid], 2) for gid in points}
        if got != expected:
            mismatches[name] = {g: (got[g], expected[g]) for g in points if got[g] != expected[g]}
    assert not mismatches, f"(got, expected) per cell: {mismatches}"


def test_named_mistakes_are_diagnosed_in_the_feedback(ps, graded):
    """A submission's ``diagnoses`` ({test cell: code}) show up in that cell's judge lines."""
    missing = {}
    for name, variant in variants(ps).items():
        for key, code in variant.get("diagnoses", {}).items():
            # keyed by a test cell's grade_id, or by the exact answer's name (its line)
            lines = LINES[ps][name]
            text = lines.get(key) or "\n".join(
                line for t in lines.values() for line in t.splitlines()
                if line.startswith(f"✗ {key}:"))
            gid = key
            if f"[diagnosis: {code}]" not in text:
                missing[f"{name}/{gid}"] = (code, text[-300:])
    assert not missing, missing


def test_variants_include_a_correct_rewrite_and_a_mistake(ps):
    kinds = [bool(v["lost"]) for v in variants(ps).values()]
    assert False in kinds, "no correct-but-different submission"
    assert True in kinds, "no classic-mistake submission"


def test_release_notebooks_list_matches_assignments():
    assert sorted(p.name for p in (REPO_ROOT / "release").iterdir() if p.is_dir()) == sorted(ASSIGNMENTS)
    assert Path(REPO_ROOT / "nbgrader_config.py").exists()


def test_nbgrader_validate_passes_every_source_notebook(tmp_path):
    """What an instructor sees from `nbgrader validate` in the course directory (with its
    nbgrader_config.py): every hidden test of every source notebook passes."""
    course = copy_course(tmp_path)
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    paths = [str(course.notebook("source", ps)) for ps in ASSIGNMENTS]
    run = subprocess.run([sys.executable, "-m", "nbgrader", "validate", *paths], cwd=course.root,
                         env=env, capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.count("Success! Your notebook passes all the tests.") == len(ASSIGNMENTS), run.stdout[-3000:]


def test_nbgrader_validate_inverted_fails_the_blank_release(ps, tmp_path):
    """The blank release (inverted validation) passes none of the auto-graded cells."""
    from nbgrader.validator import Validator

    (tmp_path / f"{ps}.ipynb").write_bytes((REPO_ROOT / "release" / ps / f"{ps}.ipynb").read_bytes())
    inverted = Validator(invert=True).validate(str(tmp_path / f"{ps}.ipynb"))
    assert "passed" not in inverted, [c["source"][:80] for c in inverted["passed"]]
