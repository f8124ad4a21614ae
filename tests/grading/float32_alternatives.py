"""Correct implementations that compute in float32 throughout: each must earn full points.

Every contract function whose result is made of floats has a version here that turns
its numeric inputs into ``numpy.float32`` at once, runs the usual algorithm in single
precision (``eigh`` of a float32 matrix calls LAPACK's single-precision solver) and
returns float32 values. The rounding errors are therefore those of float32 arithmetic
(``eps32 = 2**-23``, about 1.2e-7, relative to the size of the numbers combined), not
merely those of storing a float64 result in float32. Exact (sympy) input keeps its
exact route, as the contract asks.

Where the reference decides "zero", "negative" or "symmetric" with a float64 tolerance,
these versions use the float32 counterpart (a few hundred ``eps32``): a noise eigenvalue
of a float32 eigen-solver is about ``eps32 * largest``, far above the float64 cut-offs.
The functions returning bools or integers (``is_symmetric``, ``is_psd``,
``is_psd_exact``, ``components_needed``, the two counts) are left out: their verdicts
are no matter of tolerance.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from tests.grading import dimensions_alternatives as _ps0

F32 = np.float32

#: relative cut-off of the float32 versions: a few hundred float32 round-offs
CUT32 = 1e-5


def _f32(x) -> np.ndarray:
    return np.asarray(x, dtype=F32)


def _exact(*values) -> bool:
    return any(isinstance(v, sp.MatrixBase) for v in values)


# ------------------------------------------------------------------------------ ps1
def variance_shares(X):
    X = _f32(X)
    centred = X - X.mean(axis=0, dtype=F32)
    s = np.linalg.svd(centred, compute_uv=False) ** 2
    return s / s.sum(dtype=F32)


def lift(X):
    X = _f32(X)
    f1, f2 = X[:, 0], X[:, 1]
    return np.column_stack([np.ones_like(f1), f1 * f1, f2 * f2, f1 * f2, f1, f2])


def circle_normal(a, b, r):
    a, b, r = F32(a), F32(b), F32(r)
    return np.array([a * a + b * b - r * r, 1, 1, 0, -2 * a, -2 * b], dtype=F32)


def recover_circle(X):
    """The contract's algorithm as it stands: the least right singular vector of the
    float32 lift of the raw points (ill-conditioned for a circle far from the origin)."""
    u = np.linalg.svd(lift(X))[2][-1]
    u = u / u[1]
    a, b = -u[4] / 2, -u[5] / 2
    return (a, b, np.sqrt(a * a + b * b - u[0]))


# ------------------------------------------------------------------------------ ps2
def quadratic_map(x):
    a, b = _f32(x).ravel()
    s = F32(math.sqrt(2.0))
    return np.array([a * a, b * b, 1, s * a * b, s * a, s * b], dtype=F32)


def poly_feature_map(x, p, c=1.0):
    """sqrt(multinomial(p; k0, k) c^k0) x^k over exponent vectors k with |k| <= p."""
    x, c = _f32(x).ravel(), F32(c)
    coords = []

    def walk(prefix, left):
        if len(prefix) == len(x):
            k0 = p - sum(prefix)
            coef = math.factorial(p) // math.factorial(k0)
            for k in prefix:
                coef //= math.factorial(k)
            monomial = np.prod([xi**k for xi, k in zip(x, prefix)], dtype=F32)
            coords.append(np.sqrt(F32(coef) * c**k0) * monomial)
            return
        for k in range(left + 1):
            walk(prefix + [k], left - k)

    walk([], p)
    return np.array(coords, dtype=F32)


def rbf_features_1d(x, terms, gamma=0.5):
    """The recurrence phi_{m+1} = phi_m * x * sqrt(2 gamma / (m + 1)), in float32."""
    x, gamma = F32(x), F32(gamma)
    out = np.empty(terms, dtype=F32)
    value = np.exp(-gamma * x * x)
    for m in range(terms):
        out[m] = value
        value = value * x * np.sqrt(F32(2) * gamma / F32(m + 1))
    return out


def poly_kernel(X, Y, p, c=1.0):
    return (_f32(X) @ _f32(Y).T + F32(c)) ** p


def rbf_kernel(X, Y, gamma):
    """The expansion ||x||^2 + ||y||^2 - 2 x.y in float32, clipped at zero."""
    X, Y = _f32(X), _f32(Y)
    sq = (X * X).sum(axis=1)[:, None] + (Y * Y).sum(axis=1)[None, :] - 2 * X @ Y.T
    return np.exp(-F32(gamma) * np.maximum(sq, 0))


def feature_distance(k, x, y):
    kxx, kyy, kxy = F32(k(x, x)), F32(k(y, y)), F32(k(x, y))
    return np.sqrt(np.maximum(kxx + kyy - 2 * kxy, 0))


def gamma_for_similarity(distance, similarity):
    d, s = F32(distance), F32(similarity)
    if not (d > 0 and 0 < s < 1):
        raise ValueError("need distance > 0 and 0 < similarity < 1")
    return -np.log(s) / (d * d)


# ------------------------------------------------------------------------------ ps3
def gram(k, X):
    X = np.asarray(X, dtype=float)
    n = len(X)
    K = np.empty((n, n), dtype=F32)
    for i in range(n):
        for j in range(n):
            K[i, j] = k(X[i], X[j])
    return K


def find_counterexample(k, d, max_points=6, seed=0):
    """Random points; float32 Gram matrices judged with float32-sized tolerances."""
    rng = np.random.default_rng(seed)
    for _ in range(200):
        for n in range(1, max_points + 1):
            X = rng.uniform(-2, 2, (n, d)).astype(F32)
            K = np.array([[k(a, b) for b in X] for a in X], dtype=F32)
            top = np.abs(K).max()
            if top == 0 or not np.isfinite(top):
                continue
            if np.abs(K - K.T).max() > 1e-3 * top:
                return X
            if np.linalg.eigvalsh(K).min() < -1e-3 * top:
                return X
    return None


# ------------------------------------------------------------------------------ ps4
def centring_matrix(n):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"n must be an integer, got {type(n).__name__}")
    if n < 2:
        raise ValueError(f"n must be >= 2, got {n}")
    return np.eye(n, dtype=F32) - np.full((n, n), F32(1) / F32(n), dtype=F32)


def _square(K):
    """K itself, after a ValueError for a K that is not square (sympy or numpy)."""
    if np.ndim(K) != 2 or np.shape(K)[0] != np.shape(K)[1]:
        raise ValueError(f"K must be square, got shape {np.shape(K)}")
    return K


def centre_kernel(K):
    K = _square(K)
    if _exact(K):
        n = K.rows
        H = sp.eye(n) - sp.ones(n, n) / n
        return H * K * H
    K = _f32(K)
    H = centring_matrix(len(K))
    return H @ K @ H


def centre_new(K_new, K_train):
    n = np.shape(_square(K_train))[0]
    if np.ndim(K_new) != 2 or np.shape(K_new)[1] != n:
        raise ValueError(f"K_new must have {n} columns, got shape {np.shape(K_new)}")
    if _exact(K_new, K_train):
        K_new, K_train = sp.Matrix(K_new), sp.Matrix(K_train)
        n, m = K_train.rows, K_new.rows
        J = sp.ones(n, n) / n
        return (K_new - sp.ones(m, n) * K_train / n) * (sp.eye(n) - J)
    K_new, K_train = _f32(K_new), _f32(K_train)
    return (K_new - K_train.mean(axis=1, dtype=F32)[None, :]
            - K_new.mean(axis=1, keepdims=True, dtype=F32) + K_train.mean(dtype=F32))


def feature_mean_sq_norm(K):
    return _f32(_square(K)).mean(dtype=F32)


def distances_to_mean(K):
    K = _f32(_square(K))
    sq = np.diag(K) - 2 * K.mean(axis=1, dtype=F32) + K.mean(dtype=F32)
    return np.sqrt(np.maximum(sq, 0))


# ------------------------------------------------------------------------------ ps5
def _eigh32(Kc, name="Kc"):
    """Eigenvalues descending and unit eigenvectors of a float32 copy of ``Kc``."""
    Kc = _f32(Kc)
    if Kc.ndim != 2 or Kc.shape[0] != Kc.shape[1]:
        raise ValueError(f"{name} must be square, got shape {Kc.shape}")
    top = np.abs(Kc).max()
    if np.abs(Kc - Kc.T).max() > CUT32 * top:
        raise ValueError(f"{name} must be symmetric")
    w, V = np.linalg.eigh(Kc)
    return w[::-1], V[:, ::-1]


def kpca_fit(Kc, l):
    if l < 1:
        raise ValueError(f"l must be a positive integer, got {l}")
    w, V = _eigh32(Kc)
    top = np.abs(w).max()
    if w[-1] < -CUT32 * top:
        raise ValueError(f"Kc is not positive semidefinite (eigenvalue {w[-1]:.3g})")
    positive = int(np.sum(w > CUT32 * top))
    if positive < l:
        raise ValueError(f"only {positive} positive eigenvalues, {l} components requested")
    mu = w[:l]
    return mu, V[:, :l] / np.sqrt(mu)


def kpca_scores(Kc, alpha):
    return _f32(Kc) @ _f32(alpha)


def kpca_transform(K_new, K_train, alpha):
    return centre_new(_f32(K_new), _f32(K_train)) @ _f32(alpha)


def explained_ratio(mu):
    mu = _f32(mu)
    if mu.min() < 0 or mu.sum(dtype=F32) <= 0:
        raise ValueError("mu must be non-negative with a positive sum")
    return mu / mu.sum(dtype=F32)


def feature_variances(mu, n, ddof=0):
    if n - ddof <= 0:
        raise ValueError("n - ddof must be positive")
    return _f32(mu) / F32(n - ddof)


def reconstruction_error(Kc, l):
    """trace(Kc) minus the l largest float32 eigenvalues."""
    w, _ = _eigh32(Kc)
    if not 1 <= l <= len(w):
        raise ValueError(f"l must be between 1 and {len(w)}")
    return np.trace(_f32(Kc), dtype=F32) - w[:l].sum(dtype=F32)


# ------------------------------------------------------------------------------ ps6
def cubic_kernel(X, Z):
    X, Z = _f32(X), _f32(Z)
    if X.shape[1] != Z.shape[1]:
        raise ValueError("X and Z need the same number of columns")
    S = X @ Z.T
    return F32(1) + S + S * S + S * S * S


def cubic_features(X):
    X = _f32(X)
    n, d = X.shape
    two = (X[:, :, None] * X[:, None, :]).reshape(n, d * d)
    three = (two[:, :, None] * X[:, None, :]).reshape(n, d**3)
    return np.hstack([np.ones((n, 1), dtype=F32), X, two, three])


def _rate_steps(alpha, steps):
    if alpha <= 0 or steps < 0:
        raise ValueError("alpha must be positive and steps >= 0")


def gd_dual_fit(K, y, alpha, steps):
    K, y = _f32(K), _f32(y)
    if K.shape != (len(y), len(y)):
        raise ValueError("K must be square with one row per target")
    _rate_steps(alpha, steps)
    beta = np.zeros(len(y), dtype=F32)
    for _ in range(steps):
        beta = beta + F32(alpha) * (y - K @ beta)
    return beta


def gd_primal_fit(Phi, y, alpha, steps):
    Phi, y = _f32(Phi), _f32(y)
    if len(y) != len(Phi):
        raise ValueError("y needs one entry per row of Phi")
    _rate_steps(alpha, steps)
    theta = np.zeros(Phi.shape[1], dtype=F32)
    for _ in range(steps):
        theta = theta + F32(alpha) * (Phi.T @ (y - Phi @ theta))
    return theta


def kernel_predict(K_new, beta):
    K_new, beta = _f32(K_new), _f32(beta)
    if K_new.ndim != 2 or K_new.shape[1] != len(beta):
        raise ValueError("K_new needs one column per coefficient")
    return K_new @ beta


def max_step_size(K):
    K = _f32(K)
    if np.abs(K - K.T).max() > CUT32 * max(1.0, float(np.abs(K).max())):
        raise ValueError("K must be symmetric")
    w = np.linalg.eigvalsh(K)
    if w[0] < -CUT32 * w[-1]:
        raise ValueError("K is not positive semidefinite")
    return F32(2) / w[-1]


def kernel_ridge(K, y, lam):
    K, y = _f32(K), _f32(y)
    if K.shape != (len(y), len(y)) or lam < 0:
        raise ValueError("bad input")
    try:                                          # LAPACK's exact zero pivot as the check
        return np.linalg.solve(K + F32(lam) * np.eye(len(y), dtype=F32), y)
    except np.linalg.LinAlgError as exc:
        raise ValueError("K + lam I is singular") from exc


#: contract name -> float32 implementation
FLOAT32 = {
    name: globals()[name]
    for name in (
        "variance_shares", "lift", "circle_normal", "recover_circle", "quadratic_map",
        "poly_feature_map", "rbf_features_1d", "poly_kernel", "rbf_kernel", "feature_distance",
        "gamma_for_similarity", "gram", "find_counterexample", "centring_matrix",
        "centre_kernel", "centre_new", "feature_mean_sq_norm", "distances_to_mean", "kpca_fit",
        "kpca_scores", "kpca_transform", "explained_ratio", "feature_variances",
        "reconstruction_error", "cubic_kernel", "cubic_features", "gd_dual_fit",
        "gd_primal_fit", "kernel_predict", "max_step_size", "kernel_ridge",
    )
}
FLOAT32.update(_ps0.FLOAT32)

