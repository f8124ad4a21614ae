"""What ps3 says about the RBF form's parameter holds: a kernel for gamma > 0, the constant
kernel (still valid) at gamma = 0, and no kernel for a negative gamma; the text never says
the form "needs" gamma > 0."""

from __future__ import annotations

import sympy as sp

from kit.course import REPO_ROOT
from kpca_ref.mercer import is_psd_exact
from tests.notebooks.attributions import load


def _gram(gamma, points):
    return sp.Matrix(len(points), len(points), lambda i, j: sp.exp(-gamma * (points[i] - points[j]) ** 2))


def test_the_rbf_form_at_gamma_zero_is_the_constant_kernel_and_a_negative_gamma_breaks_it():
    points = [sp.Integer(0), sp.Integer(1), sp.Rational(5, 2)]
    assert _gram(0, points) == sp.ones(3, 3) and is_psd_exact(_gram(0, points))
    assert is_psd_exact(_gram(sp.Rational(1, 3), points))
    assert not is_psd_exact(_gram(-1, points[:2]))  # the notebook's worked example: t = 0, 1


def test_ps3_does_not_say_the_rbf_form_needs_a_positive_gamma():
    nb = load(REPO_ROOT / "release" / "ps3_mercer" / "ps3_mercer.ipynb")
    text = " ".join("\n".join("".join(c["source"]) for c in nb["cells"]).split())
    assert "needs $\\gamma>0$" not in text
    assert "constant kernel" in text
