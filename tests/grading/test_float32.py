"""float32 arithmetic earns full points; the classic mistakes still lose theirs.

The grading tolerances (kpca_ref.tolerances: GRADING_RTOL, GRADING_ATOL_SCALE and the
per-case floors built from them) must lie between float32 round-off and the smallest
classic mistake. Besides the verdicts at the chosen tolerances, two margin tests scale
every tolerance of every hidden case: float32 must still pass with all of them ten times
tighter, and each classic mistake must still fail the same case groups with all of them
ten times looser.
"""

from __future__ import annotations

import copy
import io
from contextlib import redirect_stdout

import numpy as np
import pytest

from kpca_ref.grading import cases as cases_module
from kpca_ref.grading import compare
from kpca_ref.grading.cases import groups
from kpca_ref.tolerances import GRADING_ATOL_SCALE
from tests.grading.conftest import reference, run_grade
from tests.grading.float32_alternatives import FLOAT32
from tests.grading.mistaken import MISTAKEN

EPS32 = float(np.finfo(np.float32).eps)

#: case groups a float32 computation cannot pass at any sensible tolerance: none now.
#: gamma = -ln(s) / d^2 has condition number 1 / |ln s| = 1e6 at s = 0.999999, so storing s
#: in float32 moves it by up to 6%; a float32 result is also judged at the inputs float32
#: holds (kpca_ref.grading.precision). The ball's share of the cube, below float32's
#: smallest number past m = 60, and angles of parallel rows, where arccos magnifies
#: float32's round-off, pass too: kpca_ref.tolerances.FLOAT32_UNDERFLOW, ANGLE_ROUNDOFF_DEG.
FLOAT32_LIMITS: dict[str, set[str]] = {}

#: how much tighter (float32) or looser (mistakes) the tolerances may get
MARGIN = 10.0


def _failed_groups(name, fn) -> set[str]:
    buf = io.StringIO()
    with redirect_stdout(buf):
        run_grade(name, fn, 1)
    return {line[2:].split(":")[0] for line in buf.getvalue().splitlines()
            if line.startswith("✗ ")}


@pytest.fixture
def scaled_tolerances(monkeypatch):
    """``scale(f)``: multiply every grading tolerance by ``f`` for the rest of the test."""

    def scale(f: float):
        original = cases_module.groups

        def scaled(name):
            out = original(name)
            for group in out:
                for case in group.cases:
                    case.rtol *= f
                    case.atol_scale *= f
                    if case.atol is not None:
                        case.atol = np.asarray(case.atol, dtype=float) * f
            return out

        monkeypatch.setattr(cases_module, "groups", scaled)
        defaults = copy.copy(compare.allclose.__kwdefaults__)
        monkeypatch.setitem(compare.allclose.__kwdefaults__, "rtol", defaults["rtol"] * f)
        monkeypatch.setitem(compare.allclose.__kwdefaults__, "atol_scale",
                            defaults["atol_scale"] * f)

    return scale


@pytest.mark.parametrize("name", sorted(FLOAT32))
def test_float32_earns_full_points(name):
    reference(name)
    assert _failed_groups(name, FLOAT32[name]) == FLOAT32_LIMITS.get(name, set())


def test_float32_covers_every_float_result():
    """Every contract function whose result holds floats has a float32 version."""
    not_floats = {"components_needed", "count_distinct_products", "count_monomials",
                  "is_symmetric", "is_psd", "is_psd_exact"}
    assert set(FLOAT32) == set(cases_module.names()) - not_floats


@pytest.mark.parametrize("name", sorted(FLOAT32))
def test_float32_passes_with_tolerances_ten_times_tighter(name, scaled_tolerances):
    reference(name)
    scaled_tolerances(1 / MARGIN)
    assert _failed_groups(name, FLOAT32[name]) == FLOAT32_LIMITS.get(name, set())


@pytest.mark.parametrize("name, code, fn", MISTAKEN, ids=[f"{n}-{c}" for n, c, _ in MISTAKEN])
def test_mistake_fails_the_same_groups_with_tolerances_ten_times_looser(
        name, code, fn, scaled_tolerances):
    reference(name)
    failed = _failed_groups(name, fn)
    assert failed
    scaled_tolerances(MARGIN)
    assert _failed_groups(name, fn) == failed


def test_float32_eigenvectors_are_resolved_by_the_cases():
    """Every gap between kept, distinct eigenvalues of the kpca_fit cases is wide enough
    that float32 eigenvectors (perturbed by about eps32 * |mu_1| / gap) stay below the
    grading floor."""
    for group in groups("kpca_fit"):
        for case in group.cases:
            if case.expect_error:
                continue
            Kc, l = case.args
            w = np.sort(np.linalg.eigvalsh(Kc))[::-1]
            for j in range(l):
                gap = abs(w[j] - w[j + 1]) / w[0]
                assert gap < 1e-9 or EPS32 / gap < GRADING_ATOL_SCALE, (group.label, j, gap)


def test_complex_float32_round_off_counts_as_real():
    ref = reference("kpca_fit")

    def complex64(noise):
        def fit(Kc, l):
            mu, alpha = ref(Kc, l)
            alpha = np.asarray(alpha, dtype=np.complex64)
            return mu, alpha + 1j * noise * np.abs(alpha).max()

        return fit

    assert run_grade("kpca_fit", complex64(EPS32), 1) == 1.0
    assert run_grade("kpca_fit", complex64(1e-2), 1) < 1.0
