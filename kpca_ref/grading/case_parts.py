"""What every hidden-case builder is made of: the cases' types and the shared input makers.

:data:`PARAMS` names each contract function's parameters; a :class:`Case` is one call with
its arguments and how to compare, a :class:`Group` the cases that earn one share of the
points. :func:`rng` gives each builder its generator (salted per student inside
:func:`salted`); :func:`rbf`, :func:`poly`, :func:`centred`, :func:`with_spectrum` and
:func:`on_circle` make inputs. The builders (:mod:`.cases_dimensions` ... :mod:`.cases_regression`)
import from here, and :mod:`.cases` gathers them: nothing here imports a builder.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

import numpy as np

from kpca_probe.functions import k_linear, k_poly, k_rbf
from kpca_ref.tolerances import FLOAT32_UNDERFLOW, GRADING_ATOL_SCALE, GRADING_RTOL

__all__ = ["PARAMS", "Case", "Group", "centred", "k_linear", "k_poly", "k_rbf", "on_circle", "poly",
           "rbf", "rng", "salted", "with_spectrum"]

#: every contract function and its parameter names, in signature order
PARAMS: dict[str, tuple[str, ...]] = {
    "ball_cube_ratio": ("m",),
    "shell_fraction": ("m", "eps"),
    "inside_fraction": ("X",),
    "angles_deg": ("U", "v"),
    "cap_fraction": ("m", "angle"),
    "variance_shares": ("X",),
    "components_needed": ("shares", "threshold"),
    "lift": ("X",),
    "circle_normal": ("a", "b", "r"),
    "recover_circle": ("X",),
    "count_distinct_products": ("d", "p"),
    "count_monomials": ("d", "p"),
    "quadratic_map": ("x",),
    "poly_feature_map": ("x", "p", "c"),
    "rbf_features_1d": ("x", "terms", "gamma"),
    "poly_kernel": ("X", "Y", "p", "c"),
    "rbf_kernel": ("X", "Y", "gamma"),
    "feature_distance": ("k", "x", "y"),
    "gamma_for_similarity": ("distance", "similarity"),
    "gram": ("k", "X"),
    "is_symmetric": ("K", "tol"),
    "is_psd": ("K", "tol"),
    "is_psd_exact": ("K",),
    "find_counterexample": ("k", "d", "max_points", "seed"),
    "centring_matrix": ("n",),
    "centre_kernel": ("K",),
    "centre_new": ("K_new", "K_train"),
    "feature_mean_sq_norm": ("K",),
    "distances_to_mean": ("K",),
    "kpca_fit": ("Kc", "l"),
    "kpca_scores": ("Kc", "alpha"),
    "kpca_transform": ("K_new", "K_train", "alpha"),
    "explained_ratio": ("mu",),
    "feature_variances": ("mu", "n", "ddof"),
    "reconstruction_error": ("Kc", "l"),
    "cubic_kernel": ("X", "Z"),
    "cubic_features": ("X",),
    "gd_dual_fit": ("K", "y", "alpha", "steps"),
    "gd_primal_fit": ("Phi", "y", "alpha", "steps"),
    "kernel_predict": ("K_new", "beta"),
    "max_step_size": ("K",),
    "kernel_ridge": ("K", "y", "lam"),
}


@dataclass
class Case:
    """One call of the student's function and how to judge its result.

    Attributes
    ----------
    args, kwargs
        The call. Optional contract parameters are passed by keyword.
    rtol, atol, atol_scale, per_column
        Passed to :func:`kpca_ref.grading.compare.allclose` for float results.
    float32_floor
        The absolute floor a float32 result gets on top (see
        :func:`kpca_ref.grading.compare.underflow_floor`); float64 results get none.
    expect_error
        The reference raises this exception type here; the student must too.
    batch
        Several calls ``[(args, kwargs), ...]`` judged together (poly_feature_map).
    """

    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    rtol: float = GRADING_RTOL
    atol: object = None
    atol_scale: float = GRADING_ATOL_SCALE
    per_column: bool = False
    float32_floor: float = FLOAT32_UNDERFLOW
    expect_error: type | None = None
    batch: list = field(default_factory=list)

    def calls(self) -> list:
        """The calls to make: ``[(args, kwargs), ...]``."""
        return self.batch or [(self.args, self.kwargs)]

    def positional(self, name: str) -> tuple:
        """All arguments in signature order (defaults left out), for :func:`diagnose`."""
        values = list(self.args)
        for param in PARAMS[name][len(values):]:
            if param not in self.kwargs:
                break
            values.append(self.kwargs[param])
        return tuple(values)


@dataclass
class Group:
    """A labelled group of cases; it passes when every case passes."""

    label: str
    cases: list


#: extra seed words for every builder's generator (see :func:`salted`); empty: the fixed cases
_SALT: list[tuple[int, ...]] = [()]


@contextlib.contextmanager
def salted(words):
    """Build every case inside the block from generators salted with ``words`` (ints).

    The grader salts each submission's cases with words derived from a secret only it holds
    and the student's id (``kit.secret``), so the hidden inputs differ per student: inputs
    one student's code prints are worthless to every other student. Without a salt the
    cases are the fixed ones the tests and the source notebooks use.

    >>> with salted((1, 2)):
    ...     a = rng(7).integers(1000)
    >>> b = rng(7).integers(1000)
    >>> with salted((1, 2)):
    ...     c = rng(7).integers(1000)
    >>> int(a) == int(c) != int(b)
    True
    """
    words = tuple(int(w) for w in words)
    if any(w < 0 for w in words):
        raise ValueError(f"salt words must be non-negative integers, got {words}")
    _SALT.append(words)
    try:
        yield
    finally:
        _SALT.pop()


def rng(key: int) -> np.random.Generator:
    """The generator of one builder; the fixed prefix keeps seeds apart from notebooks'."""
    return np.random.default_rng([0x6B_70_63_61, 2025, key, *_SALT[-1]])


def rbf(X, Y, gamma):
    """RBF kernel matrix by direct differences (inputs for the cases, not the answer)."""
    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
    return np.exp(-gamma * ((X[:, None, :] - Y[None, :, :]) ** 2).sum(axis=2))


def poly(X, Y, p, c=1.0):
    """Polynomial kernel matrix ``(X Y^T + c)^p``."""
    return (np.asarray(X, dtype=float) @ np.asarray(Y, dtype=float).T + c) ** p


def centred(K):
    """``H K H`` made exactly symmetric."""
    n = len(K)
    H = np.eye(n) - np.full((n, n), 1.0 / n)
    M = H @ np.asarray(K, dtype=float) @ H
    return (M + M.T) / 2


def with_spectrum(r: np.random.Generator, mus, n: int) -> np.ndarray:
    """A centred PSD (n, n) matrix with the positive eigenvalues ``mus`` (rest zero)."""
    A = np.column_stack([np.ones(n), r.standard_normal((n, n - 1))])
    Q = np.linalg.qr(A)[0][:, 1 : len(mus) + 1]
    M = (Q * np.asarray(mus, dtype=float)) @ Q.T
    return (M + M.T) / 2


def on_circle(r: np.random.Generator, a, b, radius, n: int) -> np.ndarray:
    """``n`` points of a circle at well-spread random angles."""
    t = (np.arange(n) + r.uniform(0.1, 0.9, n)) * (2 * np.pi / n)
    return np.column_stack([a + radius * np.cos(t), b + radius * np.sin(t)])
