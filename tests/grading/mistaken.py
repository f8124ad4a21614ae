"""Implementations that make one classic mistake each, and one wrong version per function.

``MISTAKEN`` lists ``(contract name, diagnosis code, implementation)``: grading
must fail the implementation and print ``[diagnosis: code]``. ``WRONG`` maps every
contract name to an implementation that must lose points.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from tests.grading import alternatives as alt
from tests.grading import dimensions_alternatives as _ps0


def _f(x):
    return np.asarray(x, dtype=float)


def _h(n):
    return np.eye(n) - np.full((n, n), 1.0 / n)


def _eig_desc(K):
    w, V = np.linalg.eigh(_f(K))
    return w[::-1], V[:, ::-1]


def _shares(X, centre=True, power=2, ascending=False):
    X = _f(X)
    s = np.linalg.svd(X - X.mean(axis=0) if centre else X, compute_uv=False) ** power
    s = np.sort(s / s.sum())
    return s if ascending else s[::-1]


def _strict(shares, threshold=0.95):
    return int(np.argmax(np.cumsum(shares) > threshold)) + 1


def _lift_shuffled(X):
    return np.asarray(alt.lift(X))[:, [0, 4, 5, 1, 2, 3]]


def _quad(x, w=None, order=(0, 1, 2, 3, 4, 5)):
    a, b = _f(x)
    w = math.sqrt(2) if w is None else w
    full = [a * a, b * b, 1.0, w * a * b, w * a, w * b]
    return np.array([full[i] for i in order])


def _rbf_unsquared(X, Y, gamma):
    d = np.sqrt(((_f(X)[:, None, :] - _f(Y)[None, :, :]) ** 2).sum(axis=2))
    return np.exp(-gamma * d)


def _gram_mirrored(k, X):
    X = _f(X)
    n = len(X)
    K = np.zeros((n, n))
    for i in range(n):
        for j in range(i, n):
            K[i, j] = K[j, i] = k(X[i], X[j])
    return K


def _gram_transposed(k, X):
    return np.asarray(alt.gram(k, X)).T


def _is_symmetric_abs(K, tol=1e-10):
    return bool(np.abs(_f(K) - _f(K).T).max() <= tol)


def _is_psd_abs(K, tol=1e-10):
    return _is_symmetric_abs(K, tol) and bool(np.linalg.eigvalsh(_f(K)).min() >= -tol)


def _is_psd_no_symmetry(K, tol=1e-10):
    return bool(np.linalg.eigvalsh(_f(K)).min() >= -tol * max(1.0, np.abs(_f(K)).max()))


def _leading_minors(K):
    K = sp.Matrix(K)
    return all(K[:i, :i].det() >= 0 for i in range(1, K.rows + 1))


def _psd_by_floats(K):
    w = np.linalg.eigvalsh(np.array(sp.Matrix(K).tolist(), dtype=float))
    return bool(w.min() >= -1e-10 * max(1.0, np.abs(w).max()))


def _one_side(K):
    return _h(len(_f(K))) @ _f(K)


def _centre_exact_float(K):
    return np.asarray(alt.centre_kernel(_f(K)))


def _new_own_mean(K_new, K_train):
    return _f(K_new) - _f(K_new).mean(axis=1, keepdims=True)


def _new_one_side(K_new, K_train):
    return _f(K_new) - _f(K_train).mean(axis=1)[None, :]


def _fit_unscaled(Kc, l):
    w, V = _eig_desc(Kc)
    return w[:l], V[:, :l]


def _fit_by_mu(Kc, l):
    w, V = _eig_desc(Kc)
    return w[:l], V[:, :l] / w[:l]


def _fit_general_eig(Kc, l):
    # np.linalg.eig: unit eigenvectors, but not orthogonal inside a repeated eigenvalue
    w, V = np.linalg.eig(_f(Kc))
    order = np.argsort(-w.real)[:l]
    return w.real[order], V.real[:, order] / np.sqrt(w.real[order])


def _fit_ascending(Kc, l):
    w, V = np.linalg.eigh(_f(Kc))
    keep = w > 1e-9 * np.abs(w).max()
    w, V = w[keep][:l], V[:, keep][:, :l]
    return w, V / np.sqrt(w)


def _transform_own_mean(K_new, K_train, alpha):
    m, n = _f(K_new).shape
    return _h(m) @ _f(K_new) @ _h(n) @ _f(alpha)


def _transform_raw(K_new, K_train, alpha):
    return _f(K_new) @ _f(alpha)


def _variances_swapped(mu, n, ddof=0):
    return _f(mu) / (n - 1 + ddof)


def _error_smallest(Kc, l):
    w = np.sort(np.linalg.eigvalsh(_f(Kc)))
    return float(np.trace(_f(Kc)) - w[:l].sum())


#: (contract name, diagnosis code, implementation making that mistake)
def _dual_sequential(K, y, alpha, steps):
    K, y = _f(K), _f(y)
    if K.shape != (len(y), len(y)) or alpha <= 0 or steps < 0:
        raise ValueError("bad input")
    beta = np.zeros(len(y))
    for _ in range(steps):
        for i in range(len(y)):
            beta[i] += alpha * (y[i] - K[i] @ beta)
    return beta


def _primal_minus(Phi, y, alpha, steps):
    Phi, y = _f(Phi), _f(y)
    if len(y) != len(Phi) or alpha <= 0 or steps < 0:
        raise ValueError("bad input")
    theta = np.zeros(Phi.shape[1])
    for _ in range(steps):
        theta = theta - alpha * (Phi.T @ (y - Phi @ theta))
    return theta


MISTAKEN = [
    ("variance_shares", "not_centred", lambda X: _shares(X, centre=False)),
    ("variance_shares", "ascending_order", lambda X: _shares(X, ascending=True)),
    ("variance_shares", "singular_values_not_squared", lambda X: _shares(X, power=1)),
    ("components_needed", "strict_threshold", _strict),
    ("lift", "lift_column_order", _lift_shuffled),
    ("quadratic_map", "feature_order", lambda x: _quad(x, order=(2, 4, 5, 0, 3, 1))),
    ("quadratic_map", "missing_sqrt2", lambda x: _quad(x, w=1.0)),
    ("count_distinct_products", "counted_all_monomials", lambda d, p: math.comb(d + p, p)),
    ("count_distinct_products", "ordered_products", lambda d, p: d**p),
    ("count_monomials", "counted_distinct_only",
     lambda d, p: sum(math.comb(d, i) for i in range(p + 1))),
    ("rbf_kernel", "rbf_unsquared_distance", _rbf_unsquared),
    ("gamma_for_similarity", "rbf_unsquared_distance", lambda dist, s: -math.log(s) / dist),
    ("feature_distance", "squared_distance", lambda k, x, y: k(x, x) + k(y, y) - 2 * k(x, y)),
    ("gram", "assumed_symmetric", _gram_mirrored),
    ("gram", "gram_transposed", _gram_transposed),
    ("is_symmetric", "tolerance_not_relative", _is_symmetric_abs),
    ("is_psd", "tolerance_not_relative", _is_psd_abs),
    ("is_psd", "psd_without_symmetry", _is_psd_no_symmetry),
    ("is_psd_exact", "leading_minors_only", _leading_minors),
    ("is_psd_exact", "rounded_to_floats", _psd_by_floats),
    ("is_psd_exact", "psd_without_symmetry", lambda K: K.is_positive_semidefinite),
    ("centre_kernel", "not_centred", lambda K: _f(K)),
    ("centre_kernel", "centred_one_side", _one_side),
    ("centre_kernel", "float_not_exact", _centre_exact_float),
    ("centre_new", "new_point_not_centred", lambda K_new, K_train: _f(K_new)),
    ("centre_new", "new_point_own_mean", _new_own_mean),
    ("centre_new", "centred_one_side", _new_one_side),
    ("feature_mean_sq_norm", "mean_divisor", lambda K: _f(K).sum() / len(_f(K))),
    ("distances_to_mean", "squared_distance",
     lambda K: np.diag(_f(K)) - 2 * _f(K).mean(axis=1) + _f(K).mean()),
    ("kpca_fit", "alpha_not_scaled", _fit_unscaled),
    ("kpca_fit", "alpha_wrong_scale", _fit_by_mu),
    ("kpca_fit", "ascending_order", _fit_ascending),
    ("kpca_fit", "eigenvectors_not_orthogonal", _fit_general_eig),
    ("kpca_transform", "new_point_own_mean", _transform_own_mean),
    ("kpca_transform", "new_point_not_centred", _transform_raw),
    ("explained_ratio", "squared_eigenvalues", lambda mu: _f(mu) ** 2 / (_f(mu) ** 2).sum()),
    ("feature_variances", "variance_divisor", _variances_swapped),
    ("reconstruction_error", "ascending_order", _error_smallest),
    ("gd_dual_fit", "sequential_update", _dual_sequential),
    ("gd_dual_fit", "off_by_one_step", lambda K, y, alpha, steps: alt.gd_dual_fit(
        K, y, alpha, steps + 1)),
    ("gd_primal_fit", "update_sign", _primal_minus),
    ("cubic_kernel", "kernel_without_constant", lambda X, Z: alt.cubic_kernel(X, Z) - 1.0),
    ("max_step_size", "bound_not_doubled", lambda K: alt.max_step_size(K) / 2),
    ("max_step_size", "bound_from_trace", lambda K: 2.0 / np.trace(_f(K))),
    ("kernel_ridge", "ridge_without_lambda", lambda K, y, lam: np.linalg.solve(_f(K), _f(y))),
    ("kernel_ridge", "ridge_all_entries", lambda K, y, lam: alt.kernel_ridge(_f(K) + lam, y, 0)),
    *_ps0.MISTAKEN,
]

#: contract name -> an implementation that is wrong somewhere (must lose points)
WRONG = {name: fn for name, _, fn in reversed(MISTAKEN)}
WRONG.update({
    "circle_normal": lambda a, b, r: np.array([a * a + b * b - r * r, 1, 1, 0, 2 * a, 2 * b]),
    "recover_circle": lambda X: (float(np.mean(_f(X)[:, 0])), float(np.mean(_f(X)[:, 1])), 1.0),
    "poly_feature_map": lambda x, p, c=1.0: np.concatenate(
        [[1.0], _f(x), np.zeros(math.comb(len(x) + p, p) - len(x) - 1)]),
    "rbf_features_1d": lambda x, terms, gamma=0.5: np.array(
        [math.exp(-gamma * x * x) * (2 * gamma) ** m / math.factorial(m) * x**m
         for m in range(terms)]),
    "poly_kernel": lambda X, Y, p, c=1.0: (_f(X) @ _f(Y).T) ** p + c,
    "find_counterexample": lambda k, d, max_points=6, seed=0: None,
    "centring_matrix": lambda n: np.eye(n) - 1.0 / (n - 1 if n > 1 else 1),
    "kpca_scores": lambda Kc, alpha: _f(alpha) * 2.0,
    "cubic_features": lambda X: np.hstack([np.ones((len(X), 1)), _f(X), _f(X) ** 2]),
    "kernel_predict": lambda K_new, beta: _f(K_new).sum(axis=1),  # beta forgotten
})
