"""kit.intake.metadata.CheckCellMetadata accepts and rejects exactly what nbgrader's own check does."""

from __future__ import annotations

import copy

import nbformat
import pytest
from nbgrader.nbgraderformat import MetadataValidator
from nbgrader.preprocessors import CheckCellMetadata as Stock

from kit.course import ASSIGNMENTS, REPO_ROOT
from kit.intake.metadata import CheckCellMetadata, OnceCheckedValidator

MUTATIONS = {
    "points not a number": lambda m: m.update(points="x"),
    "grade_id with a space": lambda m: m.update(grade_id="bad id!"),
    "old schema": lambda m: m.update(schema_version=2),
    "new schema": lambda m: m.update(schema_version=9),
    "missing key": lambda m: m.pop("locked"),
    "points missing on a graded cell": lambda m: m.update(points=None),
    "unknown key": lambda m: m.update(extra=1),
    "unchanged": lambda m: None,
}


def _outcome(validator, nb) -> str:
    try:
        validator().validate_nb(copy.deepcopy(nb))
    except Exception as exc:  # noqa: BLE001 - the comparison is of what each raises
        return f"{type(exc).__name__}: {exc}"
    return "valid"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
@pytest.mark.parametrize("mutation", list(MUTATIONS))
def test_same_verdict_as_stock(assignment, mutation):
    nb = nbformat.read(REPO_ROOT / "source" / assignment / f"{assignment}.ipynb", as_version=4)
    graded = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade"))
    MUTATIONS[mutation](graded.metadata.nbgrader)
    stock = _outcome(MetadataValidator, nb)
    assert (stock == "valid") == (mutation == "unchanged")
    assert _outcome(OnceCheckedValidator, nb) == stock


def test_preprocessor_raises_like_stock():
    nb = nbformat.read(REPO_ROOT / "release" / ASSIGNMENTS[0] / f"{ASSIGNMENTS[0]}.ipynb", as_version=4)
    assert CheckCellMetadata().preprocess(nb, {})[0] is nb
    next(c for c in nb.cells if "nbgrader" in c.metadata).metadata.nbgrader["points"] = "x"
    for pp in (Stock(), CheckCellMetadata()):
        with pytest.raises(Exception, match="nbgrader metadata may be corrupted") as info:
            pp.preprocess(copy.deepcopy(nb), {})
        assert type(info.value).__name__ == "ValidationError"


def test_configured_in_both_autograde_steps():
    text = (REPO_ROOT / "nbgrader_config.py").read_text()
    assert text.count('"kit.intake.metadata.CheckCellMetadata"') == 2
    assert '"nbgrader.preprocessors.CheckCellMetadata"' not in text
