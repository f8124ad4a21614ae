"""What ps0, ps5 and ps6 teach from the notes holds, for every student's numbers where it is
about them (notes files 000-004: the unit ball's volume, the exam card's check of squared
coordinates, Gram eigenvalues as squared singular values, the eigen-costs, the cost of a
prediction, and why a centred kernel matrix may not simply be cancelled)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import sympy as sp

from kit.course import REPO_ROOT
from kpca_ref import variants
from kpca_ref.variants import ps5
from tests.notebooks.attributions import SEEDS, load


def _text(ps: str, grade_id: str) -> str:
    nb = load(REPO_ROOT / "source" / ps / f"{ps}.ipynb")
    [cell] = [c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == grade_id]
    return re.sub(r"\s+", " ", "".join(cell["source"]))


def _seed(prefix: str) -> str:
    [path] = SEEDS.glob(f"{prefix}_*.txt")
    return path.read_text(encoding="utf-8")


def test_the_unit_balls_volume_as_ps0_states_it():
    text = _text("ps0_high_dimensions", "lesson")
    assert "volume of the unit hypersphere decays to zero" in _seed("001")

    def volume(m):
        return math.pi ** (m / 2) / math.gamma(m / 2 + 1)

    assert "is $2$ at $m = 1$" in text and volume(1) == pytest.approx(2)
    largest = max(range(1, 60), key=volume)
    assert "about $5.26$, at $m = 5$" in text and largest == 5 and round(volume(5), 2) == 5.26
    for m, shown in ((10, "2.55"), (20, "0.026")):
        assert f"about ${shown}$ at $m = {m}$" in text or f"${shown}$ at $m = {m}$" in text
        assert f"{volume(m):.{len(shown.split('.')[1])}f}" == shown
    assert "$2 \\times 10^{-5}$ at $m = 30$" in text and round(volume(30), 5) == 2e-5
    assert all(volume(m + 1) < volume(m) for m in range(5, 60))  # falls for good after m = 5


def test_squared_coordinates_add_up_to_the_diagonal_for_every_khat():
    assert "\\hat K_{jj}" in _seed("001") and "z_{i1}^2 + z_{i2}^2 = \\tilde K_{ii}" in _text(
        "ps5_kernel_pca", "part3")
    for candidate in variants.families("ps5_kernel_pca")["khat"]:
        k_hat = sp.Matrix(candidate["K_hat"])
        n = variants.lecture("ps5_kernel_pca")
        n.K_hat = k_hat
        z = ps5.answers(n)["ps5_3pt_scores"]
        for i in range(3):
            assert sp.expand(z[i, 0] ** 2 + z[i, 1] ** 2) == k_hat[i, i], candidate


def test_l_exceeds_d_on_every_students_poly_numbers():
    assert "$l = 2 > d$" in _text("ps5_kernel_pca", "more_components_text")
    n = variants.lecture("ps5_kernel_pca")
    for candidate in variants.families("ps5_kernel_pca")["poly"]:
        for name, value in candidate.items():
            setattr(n, name, variants.decode(value))
        assert sp.Matrix(n.X).shape[1] == 1  # numbers: points on a line, d = 1
        assert all(mu > 0 for mu in ps5.answers(n)["ps5_poly_eigenvalues"]), candidate


def test_gram_eigenvalues_are_squared_singular_values_and_a_centred_k_is_singular():
    text = _text("ps5_kernel_pca", "lesson")
    assert "squared singular values" in text and "already equal squared singular values" in _seed("002")
    assert "\\tilde K \\mathbf 1 = \\mathbf 0" in text and "可逆" in _seed("004")
    rng = np.random.default_rng(0)
    for n, p in ((5, 3), (4, 9), (6, 6)):
        features = rng.normal(size=(n, p))
        centred = features - features.mean(axis=0)
        k = centred @ centred.T
        mu = np.sort(np.linalg.eigvalsh(k))[::-1]
        sigma = np.linalg.svd(centred, compute_uv=False)
        assert np.allclose(mu[: len(sigma)], sigma**2, atol=1e-9)
        assert np.allclose(k @ np.ones(n), 0, atol=1e-9)  # never invertible
        # a null-space part of alpha adds nothing to the direction sum_i alpha_i phi~(x_i)
        assert np.allclose(centred.T @ np.ones(n), 0, atol=1e-9)


def test_the_costs_are_the_notes():
    assert "Eigencost\\(O(d^3)\\)\\(O(n^3)\\)" in _seed("000").replace(" ", "")
    assert "about $O(d^3)$" in _text("ps5_kernel_pca", "lesson")
    assert "about $O(n^3)$" in _text("ps5_kernel_pca", "lesson")
    assert "takes O\\left(nd\\right) time" in _seed("003")
    assert "$O(nd)$ per new point" in _text("ps6_kernel_regression", "lesson")


class _Counted(float):
    """A float that counts the products it takes part in (the cost item's convention)."""

    products = 0

    def __mul__(self, other):
        _Counted.products += 1
        return _Counted(float(self) * float(other))

    __rmul__ = __mul__

    def __sub__(self, other):
        return _Counted(float(self) - float(other))

    def __add__(self, other):
        return _Counted(float(self) + float(other))

    __radd__ = __add__


def _project_one_point_counted(size: int, kept: int) -> tuple[int, int]:
    """(kernel evaluations, products) of projecting one new point with stored row means and
    coefficients, the shortcut z*_j = alpha_j^T (k* - m_row), counted as it runs."""
    rng = np.random.default_rng(size * 10 + kept)
    xs, x_new = rng.normal(size=size), float(rng.normal())
    row_means = [_Counted(v) for v in rng.normal(size=size)]       # stored by the fit
    alpha = [[_Counted(v) for v in row] for row in rng.normal(size=(kept, size))]
    calls = []

    def kernel(x, y):
        calls.append((x, y))
        return _Counted(math.exp(-(x - y) ** 2))

    _Counted.products = 0
    shifted = [kernel(x, x_new) - m for x, m in zip(xs, row_means)]
    scores = [sum((a * s for a, s in zip(alpha_j, shifted)), _Counted(0.0)) for alpha_j in alpha]
    assert len(scores) == kept
    return len(calls), _Counted.products


def test_the_cost_of_one_new_point_is_counted_as_ps5_states_it():
    text = _text("ps5_kernel_pca", "cost_yours")
    assert "$n = 3$ training points, $l = 2$ components) takes $3$ kernel evaluations and $2 \\cdot 3 = 6$" in text
    assert "Count every product of two numbers outside the kernel evaluations" in text
    assert "kernel PCA expensive" in _text("ps5_kernel_pca", "shortcut_trap_cost")
    lecture = variants.lecture("ps5_kernel_pca")
    assert _project_one_point_counted(3, 2) == (3, 6)
    assert list(ps5.answers(lecture)["ps5_new_point_cost"]) == [3, 6]
    for candidate in variants.families("ps5_kernel_pca")["cost"][::23]:
        counted = _project_one_point_counted(candidate["n_train"], candidate["l_keep"])
        n = variants.lecture("ps5_kernel_pca")
        n.n_train, n.l_keep = sp.Integer(candidate["n_train"]), sp.Integer(candidate["l_keep"])
        assert tuple(ps5.answers(n)["ps5_new_point_cost"]) == counted, candidate
