"""Retiring a harder candidate for the next release moves its students only.

``kpca_ref.variants.RETIRED`` (``retired.json``, written by ``python -m kit.variants PS
--retire FAMILY:INDEX``): a student whose draw falls on a retired candidate gets another of
the family's; everyone else keeps every number they had, and the notebook's numbers cell
draws exactly what the grader keys.
"""

from __future__ import annotations

import json

import pytest

from kit import variants as kit_variants
from kpca_ref import variants
from kpca_ref.variants.cell import numbers_cell

PS, FAMILY = "ps1_circle_lift", "circle"
IDS = [f"student{i:04d}" for i in range(3000)]


@pytest.fixture
def retired(monkeypatch):
    """Retire ``{family: (index, ...)}`` of PS in this process only."""
    def set_(gone):
        monkeypatch.setitem(variants.RETIRED, PS, {f: tuple(i) for f, i in gone.items()})
        variants.variant.cache_clear()
    yield set_
    variants.variant.cache_clear()


def _most_drawn(family):
    count = len(variants.families(PS)[family])
    draws = [variants.draw(family, PS, s, count) for s in IDS]
    return max(set(draws), key=draws.count), draws


def test_only_the_retired_candidates_students_move(retired):
    index, draws = _most_drawn(FAMILY)
    before = {s: vars(variants.numbers(PS, s)) for s in IDS}
    retired({FAMILY: [index]})
    moved = [s for s, d in zip(IDS, draws) if d == index]
    assert len(moved) >= 10
    count = len(variants.families(PS)[FAMILY])
    others = set(variants.families(PS)) - {FAMILY}
    for s, d in zip(IDS, draws):
        after = vars(variants.numbers(PS, s))
        now = variants.candidate_of(FAMILY, PS, s, count)
        if s in moved:
            assert now != index and after != before[s]
            assert all(after[n] == before[s][n] for f in others
                       for n in variants.families(PS)[f][0])  # other families unchanged
        else:
            assert now == d and after == before[s]
    # the moved students spread over the other candidates, not onto one
    assert len({variants.candidate_of(FAMILY, PS, s, count) for s in moved}) > len(moved) // 3


def test_the_numbers_cell_draws_what_the_grader_keys(retired):
    index, draws = _most_drawn(FAMILY)
    assert "_RETIRED" not in numbers_cell(PS)  # nothing retired: the cell as it always was
    retired({FAMILY: [index, (index + 1) % len(variants.families(PS)[FAMILY])]})
    source = numbers_cell(PS)
    namespace: dict = {}
    exec(source[:source.index("def _whose_numbers")], namespace)  # noqa: S102 - the cell's own draw
    moved = [s for s, d in zip(IDS, draws) if d == index][:20] + IDS[:20]
    for s in moved:
        assert vars(namespace["your_numbers"](s)) == vars(variants.numbers(PS, s))
        assert variants.variant(PS, s).answers  # the key follows the new numbers


def test_retire_writes_the_table_and_refuses_what_cannot_be(tmp_path):
    path = tmp_path / "retired.json"
    table = kit_variants.retire(PS, FAMILY, 3, path)
    kit_variants.retire(PS, FAMILY, 7, path)
    assert table == {PS: {FAMILY: [3]}}
    assert json.loads(path.read_text()) == {PS: {FAMILY: [3, 7]}}
    count = len(variants.families(PS)[FAMILY])
    with pytest.raises(ValueError, match="no family 'nope'"):
        kit_variants.retire(PS, "nope", 1, path)
    with pytest.raises(ValueError, match=f"candidates 0 to {count - 1}, got {count}"):
        kit_variants.retire(PS, FAMILY, count, path)
    with pytest.raises(ValueError, match="every candidate"):
        variants.candidate_of(FAMILY, PS, IDS[0], 2,
                              gone=(0, 1))
    path.write_text('{"ps1_circle_lift": {"circle": ["3"]}}')
    with pytest.raises(ValueError, match="must map problem set"):
        variants._read_retired(path)


def test_the_command_line_names_a_bad_retire(capsys):
    with pytest.raises(SystemExit):
        kit_variants.main([PS, "--retire", "circle"])
    assert "FAMILY:INDEX" in capsys.readouterr().err
