"""Every classic mistake is recognised and named in the printed line."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from kpca_ref import grading
from tests.grading.conftest import run_grade
from tests.grading.mistaken import MISTAKEN

#: the codes the course design fixes
DESIGN_CODES = {
    "not_centred", "centred_one_side", "alpha_not_scaled", "ascending_order",
    "new_point_own_mean", "new_point_not_centred", "variance_divisor",
    "rbf_unsquared_distance", "lift_column_order", "float_not_exact",
    "wrong_sign_convention_not_an_error",
}


@pytest.mark.parametrize("name, code, fn", MISTAKEN, ids=[f"{n}-{c}" for n, c, _ in MISTAKEN])
def test_mistake_is_diagnosed(name, code, fn, capsys):
    earned = run_grade(name, fn, 2)
    out = capsys.readouterr().out
    assert earned < 2.0
    assert f"[diagnosis: {code}]" in out, out
    for line in out.splitlines():
        if "[diagnosis:" in line:
            assert line.startswith("✗ ") and line.endswith("]")


def test_codes_cover_the_design_and_are_all_exercised():
    assert DESIGN_CODES <= set(grading.MISTAKES)
    exercised = {code for _, code, _ in MISTAKEN}
    assert set(grading.MISTAKES) - exercised == {"wrong_sign_convention_not_an_error"}


@pytest.mark.parametrize("code", sorted(grading.MISTAKES))
def test_messages_are_single_student_lines(code):
    message = grading.MISTAKES[code]
    assert "\n" not in message and 20 < len(message) <= 140
    assert message == message.strip()


def test_float_not_exact_message_matches_the_design():
    assert grading.MISTAKES["float_not_exact"] == "exact value expected, got a float"


def test_diagnose_centring_mistakes():
    K = np.array([[3.0, 1.0, 0.5], [1.0, 2.0, 0.2], [0.5, 0.2, 1.5]])
    H = np.eye(3) - 1 / 3
    assert grading.diagnose("centre_kernel", (K,), K) == ("not_centred",
                                                         grading.MISTAKES["not_centred"])
    assert grading.diagnose("centre_kernel", (K,), K @ H).code == "centred_one_side"
    assert grading.diagnose("centre_kernel", (K,), H @ K @ H + 1.0) is None


def test_diagnose_respects_sign_freedom():
    rng = np.random.default_rng(8)
    A = rng.standard_normal((5, 5))
    H = np.eye(5) - 0.2
    Kc = H @ A @ A.T @ H
    w, V = np.linalg.eigh(Kc)
    unit = V[:, ::-1][:, :2] * np.array([1.0, -1.0])
    got = grading.diagnose("kpca_fit", (Kc, 2), (w[::-1][:2], unit))
    assert got.code == "alpha_not_scaled"


def test_diagnose_float_for_exact_input():
    K = sp.Matrix([[2, 1], [1, 2]])
    assert grading.diagnose("centre_kernel", (K,), np.array([[0.5, -0.5], [-0.5, 0.5]])).code \
        == "float_not_exact"


@pytest.mark.parametrize("actual", [None, "text", object(), (1, 2, 3), np.zeros((7, 7))])
def test_diagnose_never_raises(actual):
    K = np.eye(3)
    for name in ("centre_kernel", "kpca_fit", "lift", "gram", "is_psd_exact", "no_such_name"):
        args = (K, 2) if name == "kpca_fit" else (K,)
        assert grading.diagnose(name, args, actual) is None
