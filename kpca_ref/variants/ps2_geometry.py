"""ps2_feature_maps: lengths and angles of mapped points, and gamma under a change of units.

Two more exact items on families of :mod:`kpca_ref.variants.ps2`:

``pair`` (the points ``N.x``, ``N.xp`` of the quadratic kernel ``k = (x.x' + 1)^2``)
    the cosine ``k(x, x') / sqrt(k(x, x) k(x', x'))`` of the angle between ``phi(x)`` and
    ``phi(x')``, from the lengths ``||phi(x)|| = sqrt(k(x, x)) = x.x + 1``: the exam card's
    "norm, distance and cosine in feature space", each from kernel values. The cosine is a
    fraction with denominator at most ``(x.x + 1)(x'.x' + 1) <= 19^2``. The length alone is
    not asked: it takes 6 values only, one of them the lecture pair's 6. And the squared
    length of the mean ``(phi(x) + phi(x')) / 2`` of the two mapped points: the exam card's
    "mean in feature space and its length", the average of the four entries of the 2 x 2
    kernel matrix, ``(k(x, x) + 2 k(x, x') + k(x', x')) / 4`` (a quarter of an integer).
``gamma`` (the similarity ``N.similarity`` wanted at input distance ``N.distance``)
    the textbook's units identity: multiplying every input coordinate by ``b`` multiplies
    squared distances by ``b^2``, so ``gamma / b^2`` gives the same kernel matrix. The
    notebook fixes ``b = SCALE`` (inputs re-measured in a unit half as large), so the
    answer's denominator stays within the lecture's (4 D^2 <= 256).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from kpca_ref.kernels import gamma_for_similarity, poly_kernel

__all__ = ["ITEMS", "SCALE", "answers", "float_answers", "gamma_answers", "mistakes",
           "pair_answers"]

ITEMS = {
    "ps2_feature_cosine": ("pair",),
    "ps2_mean_sq_length": ("pair",),
    "ps2_gamma_rescaled": ("gamma",),
}
#: every input coordinate is multiplied by this factor (a unit half as large)
SCALE = 2


def _k(a: sp.Matrix, b: sp.Matrix):
    return poly_kernel(a.T, b.T, 2)[0, 0]


def pair_answers(n) -> dict:
    """The cosine and the mean's squared length, from the ``pair`` family's numbers."""
    kxx, kyy, kxy = _k(n.x, n.x), _k(n.xp, n.xp), _k(n.x, n.xp)
    return {"ps2_feature_cosine": sp.nsimplify(kxy / sp.sqrt(kxx * kyy)),
            # the mean of the 2 x 2 kernel matrix's entries: ||(phi(x) + phi(x')) / 2||^2
            "ps2_mean_sq_length": (kxx + 2 * kxy + kyy) / sp.Integer(4)}


def gamma_answers(n) -> dict:
    """gamma for inputs multiplied by ``SCALE``, from the ``gamma`` family's numbers."""
    return {"ps2_gamma_rescaled": gamma_for_similarity(n.distance, n.similarity) / SCALE**2}


def answers(n) -> dict:
    """The exact answers of the three items on one student's numbers ``n``."""
    return {**pair_answers(n), **gamma_answers(n)}


def float_answers(n) -> dict:
    """The same by floating point, from the explicit quadratic map (no kernel values)."""
    from kpca_ref.feature_maps import quadratic_map

    phi_x = np.asarray(quadratic_map(np.array([float(v) for v in n.x])))
    phi_y = np.asarray(quadratic_map(np.array([float(v) for v in n.xp])))
    mean = (phi_x + phi_y) / 2.0
    return {"ps2_feature_cosine": float(phi_x @ phi_y / np.linalg.norm(phi_x)
                                        / np.linalg.norm(phi_y)),
            "ps2_mean_sq_length": float(mean @ mean),
            # the gamma that gives the original similarity at the scaled distance
            "ps2_gamma_rescaled": -np.log(float(n.similarity))
            / (SCALE * float(n.distance)) ** 2}


_INPUT_COSINE = ("this is the cosine of the angle between x and x' in the input space: in "
                 "the feature space, replace each dot product by a kernel value")
_COSINE_NOT_ROOTED = ("this divides by k(x, x) k(x', x'), the product of the squared lengths: "
                      "divide by the lengths, sqrt(k(x, x) k(x', x'))")
_MAPPED_THE_MEAN = ("this is k(m, m) for the mean point m = (x + x') / 2: the map is not linear, "
                    "so the mean of phi(x) and phi(x') is not phi(m); average the four kernel "
                    "values instead")
_NO_CROSS_TERM = ("this leaves out the cross term: the squared length of phi(x) + phi(x') is "
                  "k(x, x) + 2 k(x, x') + k(x', x')")
_SUM_NOT_MEAN = ("this is the squared length of the sum phi(x) + phi(x'): the mean is half the "
                 "sum, so its squared length is a quarter of it")
_SCALED_UP = ("this multiplies gamma by b^2: the distances grew by b, so gamma must shrink by "
              "b^2 to keep the same kernel values")
_NOT_SQUARED = ("this divides gamma by b: the kernel uses squared distances, which grow by "
                "b^2")


def mistakes(n) -> dict:
    """Values the classic slips give on these numbers (each differs from the answer)."""
    kxx, kyy, kxy = _k(n.x, n.x), _k(n.xp, n.xp), _k(n.x, n.xp)
    gamma = gamma_for_similarity(n.distance, n.similarity)
    cos_input = n.x.dot(n.xp) / sp.sqrt(n.x.dot(n.x) * n.xp.dot(n.xp))
    m = (n.x + n.xp) / 2
    return {
        "ps2_feature_cosine": [("input_space_cosine", _INPUT_COSINE, sp.radsimp(cos_input)),
                               ("cosine_not_rooted", _COSINE_NOT_ROOTED, kxy / (kxx * kyy))],
        "ps2_mean_sq_length": [("mapped_the_mean", _MAPPED_THE_MEAN, _k(m, m)),
                               ("mean_without_cross_term", _NO_CROSS_TERM,
                                (kxx + kyy) / sp.Integer(4)),
                               ("sum_not_mean", _SUM_NOT_MEAN, kxx + 2 * kxy + kyy)],
        "ps2_gamma_rescaled": [("gamma_scaled_up", _SCALED_UP, gamma * SCALE**2),
                               ("scale_not_squared", _NOT_SQUARED, gamma / SCALE)],
    }
