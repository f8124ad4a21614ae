"""What ps6 teaches about rank, least squares and ridge is true for the numbers it uses.

The source notebook's own cells (the 12 points in 2-D of Part 3 and Part 5, the 15 points on
a line of the early-stopping picture) are run here with the reference functions, and every
claim the notebook's text makes about them is checked on the numbers they produce.
"""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest

import kpca_ref
from tests.support.nbgrading import nb_meta, read_source

matplotlib.use("Agg")


def _run_cells(*grade_ids: str) -> dict:
    import matplotlib.pyplot as plt

    cells = {nb_meta(c).get("grade_id"): c.source for c in read_source("ps6_kernel_regression").cells}
    namespace = {"np": np, "plt": plt, **{name: getattr(kpca_ref, name) for name in (
        "cubic_kernel", "cubic_features", "gd_dual_fit", "gd_primal_fit", "kernel_predict",
        "max_step_size", "kernel_ridge")}}
    for gid in grade_ids:
        exec(compile(cells[gid], gid, "exec"), namespace)  # noqa: S102 - the kit's own cells
    plt.close("all")
    return namespace


@pytest.fixture(scope="module")
def line_picture():
    return _run_cells("plot_early")


@pytest.fixture(scope="module")
def plane_demo():
    return _run_cells("demo3")


def test_fifteen_points_on_a_line_give_rank_four(line_picture):
    K = line_picture["K_1d"]
    values = np.linalg.eigvalsh(K)
    assert np.linalg.matrix_rank(K) == 4
    assert np.abs(values[:11]).max() < 1e-12 * values[-1]  # "11 of them are zero"
    assert values[-4] > 0.3  # the 4 others are clearly not


def test_both_routes_end_at_the_least_squares_cubic_not_the_interpolant(line_picture):
    ns = line_picture
    K, y, x = ns["K_1d"], ns["y_1d"], ns["x_1d"][:, 0]
    fit = np.polyval(ns["least_squares"], x)
    assert np.abs(y - fit).max() == pytest.approx(0.26, abs=0.005)  # "about 0.26"
    beta = kpca_ref.gd_dual_fit(K, y, ns["step"], 2000)
    assert np.abs(K @ beta - fit).max() < 1e-8  # 2000 steps: the least-squares cubic
    grid_fit = np.polyval(ns["least_squares"], ns["grid"][:, 0])
    assert np.abs(ns["K_grid"] @ beta - grid_fit).max() < 1e-6  # on the whole grid too
    gaps = [np.abs(K @ kpca_ref.kernel_ridge(K, y, lam) - fit).max() for lam in (3.0, 0.1, 0.001)]
    assert gaps[0] > gaps[1] > gaps[2] and gaps[2] < 0.01  # smaller lambda: closer to it
    with pytest.raises(ValueError, match="singular"):
        kpca_ref.kernel_ridge(K, y, 0.0)
    # and what a solve without the check would have returned: round-off of size 1e15 or more
    assert np.abs(np.linalg.solve(K, y)).max() > 1e12


def test_the_smallest_solved_ridge_matrix_is_far_from_singular(line_picture):
    K = line_picture["K_1d"]
    values = np.linalg.svd(K + 0.001 * np.eye(len(K)), compute_uv=False)
    assert values[-1] / values[0] >= 5e-5  # "5 x 10^-5 or more"


def test_twelve_points_in_the_plane_give_rank_ten_and_a_least_squares_floor(plane_demo):
    ns = plane_demo
    K, Phi, y = ns["K_tr"], ns["Phi_tr"], ns["y_tr"]
    assert Phi.shape == (12, 15) and np.linalg.matrix_rank(K) == 10
    positive = np.sort(np.linalg.eigvalsh(K))[2:]
    assert positive[0] == pytest.approx(0.013, abs=0.001)  # "the smallest non-zero, 0.013"
    theta_ls = np.linalg.lstsq(Phi, y, rcond=None)[0]
    floor = np.linalg.norm(y - Phi @ theta_ls)
    assert floor > 1e-3  # no beta interpolates
    bound = kpca_ref.max_step_size(K)
    for factor in (0.5, 0.95):
        errors = [np.linalg.norm(y - K @ kpca_ref.gd_dual_fit(K, y, factor * bound, t))
                  for t in (60, 20000)]
        assert errors[0] > floor and errors[1] == pytest.approx(floor, rel=0.05)
    # theta = Phi^T beta converges to the minimum-norm least-squares theta
    # "within 1% of that line after about 3,600 steps at 0.95 times the bound and 6,800 at half"
    for factor, stated in ((0.95, 3600), (0.5, 6800)):
        K_step, beta, steps = factor * bound, np.zeros_like(y), 0
        while np.linalg.norm(y - K @ beta) > 1.01 * floor:
            beta, steps = beta + K_step * (y - K @ beta), steps + 1
        assert steps == pytest.approx(stated, rel=0.03), (factor, steps)
    theta = kpca_ref.gd_primal_fit(Phi, y, 0.95 * bound, 20000)
    assert np.allclose(theta, np.linalg.pinv(Phi) @ y, atol=1e-8)
    assert np.abs(np.linalg.norm(y - K @ kpca_ref.gd_dual_fit(K, y, 1.05 * bound, 60))) > 10
