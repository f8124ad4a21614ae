"""How each classic mistake would answer: the rules behind :func:`.mistakes.diagnose`.

Every rule recomputes, from the case's arguments, the result of one or more
classic mistakes and returns the code of the first the student's result
matches. Mistakes are computed here with plain numpy, independently of the
reference implementation; exact (sympy) arguments are read as floats.

>>> K = np.array([[2.0, 1.0], [1.0, 2.0]])
>>> RULES["centre_kernel"]((K,), K), RULES["centre_kernel"]((K,), np.zeros((2, 2)))
('not_centred', None)
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import sympy as sp

from kpca_ref.grading.compare import allclose, allclose_up_to_sign, as_bool, as_int
from kpca_ref.grading.mistake_match import first_match as _first
from kpca_ref.grading.mistake_match import floats as _f
from kpca_ref.grading.mistake_rules_regression import RULES as _REGRESSION

__all__ = ["RULES"]


def _h(n: int) -> np.ndarray:
    return np.eye(n) - np.full((n, n), 1.0 / n)


def _same_int(actual, value) -> bool:
    return as_int(actual) == value


def _same_bool(actual, value) -> bool:
    return as_bool(actual) == value


def _eig_desc(K):
    K = _f(K)
    w, V = np.linalg.eigh((K + K.T) / 2)
    return w[::-1], V[:, ::-1]


def _variance_shares(X, actual):
    X = _f(X)

    def shares(centred=True, power=2, ascending=False):
        s = np.linalg.svd(X - X.mean(axis=0) if centred else X, compute_uv=False) ** power
        s = np.sort(s / s.sum())
        return s if ascending else s[::-1]

    return _first(actual, [
        ("not_centred", lambda: shares(centred=False)),
        ("ascending_order", lambda: shares(ascending=True)),
        ("singular_values_not_squared", lambda: shares(power=1)),
    ])


def _components_needed(shares, threshold=0.95, *, actual=None):
    total, k = 0.0, 0
    for k, s in enumerate(_f(shares).tolist(), start=1):
        total += s
        if total > threshold:
            break
    return _first(actual, [("strict_threshold", lambda: k)], _same_int)


def _lift(X, actual):
    X = _f(X)
    f1, f2 = X[:, 0], X[:, 1]
    good = np.column_stack([np.ones_like(f1), f1**2, f2**2, f1 * f2, f1, f2])
    got = _f(actual)
    if got.shape != good.shape or allclose(got, good, per_column=True):
        return None
    match = [[allclose(got[:, i], good[:, j]) for j in range(6)] for i in range(6)]
    for perm in itertools.permutations(range(6)):
        if all(match[i][perm[i]] for i in range(6)):
            return "lift_column_order"
    return None


def _quadratic_map(x, actual):
    a, b = _f(x).ravel().tolist()

    def sorted_map(w):
        return sorted([a * a, b * b, 1.0, w * a * b, w * a, w * b])

    got = _f(actual).ravel()
    if got.size != 6:
        return None
    got_sorted = sorted(got.tolist())
    if allclose(got_sorted, sorted_map(math.sqrt(2.0))):
        return "feature_order"
    return _first(got_sorted, [("missing_sqrt2", lambda: sorted_map(1.0)),
                               ("missing_sqrt2", lambda: sorted_map(2.0))])


def _rbf_kernel(X, Y, gamma, actual):
    X, Y = _f(X), _f(Y)
    dist = np.sqrt(np.maximum(((X[:, None, :] - Y[None, :, :]) ** 2).sum(axis=2), 0.0))
    return _first(actual, [("rbf_unsquared_distance", lambda: np.exp(-float(gamma) * dist))])


def _gram(k, X, actual):
    X = _f(X)
    n = X.shape[0]
    G = np.array([[float(k(X[i], X[j])) for j in range(n)] for i in range(n)])
    upper, lower = np.triu(G) + np.triu(G, 1).T, np.tril(G) + np.tril(G, -1).T
    return _first(actual, [("assumed_symmetric", lambda: upper),
                           ("assumed_symmetric", lambda: lower),
                           ("gram_transposed", lambda: G.T)])


def _is_psd_numeric(K, tol, relative=True, symmetric=True):
    K = _f(K)
    if symmetric and np.abs(K - K.T).max() > tol * (max(1.0, np.abs(K).max()) if relative else 1):
        return False
    w = np.linalg.eigvalsh((K + K.T) / 2)
    return bool(w.min() >= -tol * (max(1.0, np.abs(w).max()) if relative else 1.0))


def _is_psd_exact(K, actual):
    M = sp.Matrix(K)
    minors = [M[:i, :i].det() for i in range(1, M.rows + 1)]
    return _first(actual, [
        ("leading_minors_only", lambda: all(m >= 0 for m in minors) and M == M.T),
        ("leading_minors_only", lambda: all(m > 0 for m in minors) and M == M.T),
        ("rounded_to_floats", lambda: _is_psd_numeric(K, 1e-10)),
        ("psd_without_symmetry", lambda: M != M.T and all(
            v >= 0 for v in ((M + M.T) / 2).eigenvals(multiple=True))),
    ], _same_bool)


def _centre_new_variants(K_new, K_train):
    Kn, Kt = _f(K_new), _f(K_train)
    m, n = Kn.shape
    rows, grand = Kt.mean(axis=1), Kt.mean()
    return [
        ("new_point_not_centred", lambda: Kn),
        ("new_point_own_mean", lambda: Kn @ _h(n)),
        ("new_point_own_mean", lambda: _h(m) @ Kn @ _h(n)),
        ("centred_one_side", lambda: Kn - rows[None, :]),
        ("centred_one_side", lambda: Kn - rows[None, :] + grand),
    ]


def _kpca_fit(Kc, l, actual):
    mu_desc, V = _eig_desc(Kc)
    l, n = int(l), len(mu_desc)
    mu, a = mu_desc[:l], V[:, :l]
    got_mu, got_alpha = actual
    code = _first(got_mu, [("ascending_order", lambda: mu_desc[::-1][:l]),
                           ("ascending_order", lambda: mu[::-1])])
    return code or _first(got_alpha, [
        ("alpha_not_scaled", lambda: a),
        ("alpha_wrong_scale", lambda: a / mu),
        ("alpha_wrong_scale", lambda: a * np.sqrt(mu)),
        ("alpha_wrong_scale", lambda: a / np.sqrt(n * mu)),
        ("alpha_wrong_scale", lambda: a * mu),
    ], allclose_up_to_sign)


def _feature_variances(mu, n, ddof=0, *, actual=None):
    mu, n = _f(mu), int(n)
    other = n if int(ddof) else n - 1
    return _first(actual, [("variance_divisor", lambda: mu / other)])


def _kernel_rules():
    """name -> rule(args, actual) -> code or None."""
    f = _f
    return {
        "variance_shares": lambda a, r: _variance_shares(*a, r),
        "components_needed": lambda a, r: _components_needed(*a, actual=r),
        "lift": lambda a, r: _lift(*a, r),
        "quadratic_map": lambda a, r: _quadratic_map(*a, r),
        "count_distinct_products": lambda a, r: _first(r, [
            ("counted_all_monomials", lambda: math.comb(a[0] + a[1], a[1])),
            ("ordered_products", lambda: a[0] ** a[1])], _same_int),
        "count_monomials": lambda a, r: _first(r, [
            ("counted_distinct_only", lambda: sum(math.comb(a[0], i) for i in range(a[1] + 1))),
            ("ordered_products", lambda: a[0] ** a[1])], _same_int),
        "rbf_kernel": lambda a, r: _rbf_kernel(*a, r),
        "gamma_for_similarity": lambda a, r: _first(r, [
            ("rbf_unsquared_distance", lambda: -math.log(float(a[1])) / float(a[0]))]),
        "feature_distance": lambda a, r: _first(r, [("squared_distance", lambda: float(
            a[0](f(a[1]), f(a[1])) + a[0](f(a[2]), f(a[2])) - 2 * a[0](f(a[1]), f(a[2]))))]),
        "gram": lambda a, r: _gram(*a, r),
        "is_symmetric": lambda a, r: _first(r, [("tolerance_not_relative", lambda: bool(
            np.abs(f(a[0]) - f(a[0]).T).max() <= (a[1] if len(a) > 1 else 1e-10)))], _same_bool),
        "is_psd": lambda a, r: _first(r, [
            ("tolerance_not_relative", lambda: _is_psd_numeric(
                a[0], a[1] if len(a) > 1 else 1e-10, relative=False)),
            ("psd_without_symmetry", lambda: _is_psd_numeric(
                a[0], a[1] if len(a) > 1 else 1e-10, symmetric=False))], _same_bool),
        "is_psd_exact": lambda a, r: _is_psd_exact(a[0], r),
        "centre_kernel": lambda a, r: _first(r, [
            ("not_centred", lambda: f(a[0])),
            ("centred_one_side", lambda: _h(len(f(a[0]))) @ f(a[0])),
            ("centred_one_side", lambda: f(a[0]) @ _h(len(f(a[0]))))]),
        "centre_new": lambda a, r: _first(r, _centre_new_variants(*a)),
        "feature_mean_sq_norm": lambda a, r: _first(r, [
            ("mean_divisor", lambda: f(a[0]).sum() / len(f(a[0]))),
            ("mean_divisor", lambda: f(a[0]).sum())]),
        "distances_to_mean": lambda a, r: _first(r, [("squared_distance", lambda: np.diag(
            f(a[0])) - 2 * f(a[0]).mean(axis=1) + f(a[0]).mean())]),
        "kpca_fit": lambda a, r: _kpca_fit(*a, r),
        "kpca_transform": lambda a, r: _first(r, [
            (code, lambda make=make: make() @ f(a[2]))
            for code, make in _centre_new_variants(a[0], a[1])]),
        "explained_ratio": lambda a, r: _first(r, [
            ("squared_eigenvalues", lambda: f(a[0]) ** 2 / (f(a[0]) ** 2).sum())]),
        "feature_variances": lambda a, r: _feature_variances(*a, actual=r),
        "reconstruction_error": lambda a, r: _first(r, [("ascending_order", lambda: float(
            np.trace(f(a[0])) - np.sort(_eig_desc(a[0])[0])[: int(a[1])].sum()))]),
    }


def _all_rules():
    from kpca_ref.grading import cases_dimensions

    return {**cases_dimensions.rules(), **_kernel_rules()}


#: contract name -> rule(args, actual) -> diagnosis code or None
RULES = _all_rules()
RULES.update(_REGRESSION)  # ps6
