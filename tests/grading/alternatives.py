"""Correct implementations written differently from kpca_ref: each must earn full points.

Loops instead of matrix products, ``numpy.linalg.eig`` with flipped signs instead
of ``eigh``, float32 arithmetic inside, another coordinate order, other return
types (lists, tuples, numpy integers, integral floats) and other algorithms
(Kasa circle fit, principal minors, Cholesky, sums of discarded eigenvalues).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import sympy as sp

from tests.grading import dimensions_alternatives as _ps0


def variance_shares(X):
    cov = np.cov(np.asarray(X, dtype=float).T)  # ddof=1: the shares do not care
    w = np.sort(np.linalg.eigvalsh(cov))[::-1]
    return list(w / w.sum())


def components_needed(shares, threshold=0.95):
    total = 0.0
    for k, s in enumerate(shares, start=1):
        total += s
        if total >= threshold:
            return np.int64(k)
    return np.int64(len(shares))


def lift(X):
    return [[1.0, f1 * f1, f2 * f2, f1 * f2, f1, f2] for f1, f2 in np.asarray(X).tolist()]


def circle_normal(a, b, r):
    return [a * a + b * b - r * r, 1, 1, 0, -2 * a, -2 * b]


def recover_circle(X):
    """Kasa fit: least squares for f1^2 + f2^2 = 2a f1 + 2b f2 + c, around the mean."""
    X = np.asarray(X, dtype=float)
    m = X.mean(axis=0)
    Y = X - m
    A = np.column_stack([2 * Y, np.ones(len(Y))])
    (a, b, c), *_ = np.linalg.lstsq(A, (Y**2).sum(axis=1), rcond=None)
    return (a + m[0], b + m[1], math.sqrt(c + a * a + b * b))


def count_distinct_products(d, p):
    return float(sum(math.comb(d, i) for i in range(min(d, p) + 1)))


def count_monomials(d, p):
    value = 1
    for i in range(1, p + 1):
        value = value * (d + i) // i
    return np.int64(value)


def quadratic_map(x):
    a, b = (float(v) for v in x)
    s = math.sqrt(2)
    return (a**2, b**2, 1.0, s * a * b, s * a, s * b)


def poly_feature_map(x, p, c=1.0):
    """Monomials enumerated by exponent tuples, then listed in reverse order."""
    x = [float(v) for v in x]
    out = []
    for alpha in itertools.product(range(p + 1), repeat=len(x)):
        rest = p - sum(alpha)
        if rest < 0:
            continue
        coef = math.factorial(p) / math.factorial(rest)
        for a in alpha:
            coef /= math.factorial(a)
        out.append(math.sqrt(coef * c**rest) * math.prod(v**a for v, a in zip(x, alpha)))
    return np.array(out[::-1])


def rbf_features_1d(x, terms, gamma=0.5):
    return [math.exp(-gamma * x * x) * math.sqrt((2 * gamma) ** m / math.factorial(m)) * x**m
            for m in range(terms)]


def poly_kernel(X, Y, p, c=1.0):
    return [[(sum(a * b for a, b in zip(x, y)) + c) ** p for y in np.asarray(Y).tolist()]
            for x in np.asarray(X).tolist()]


def rbf_kernel(X, Y, gamma):
    """float32 throughout, squared distances from direct differences."""
    X, Y = np.asarray(X, dtype=np.float32), np.asarray(Y, dtype=np.float32)
    d2 = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(axis=2)
    return np.exp(-np.float32(gamma) * d2)


def feature_distance(k, x, y):
    return math.sqrt(abs(k(x, x) - 2 * k(x, y) + k(y, y)))


def gamma_for_similarity(distance, similarity):
    if distance <= 0 or not 0 < similarity < 1:
        raise ValueError("no positive gamma gives this similarity at this distance")
    return math.log(1 / similarity) / distance / distance


def gram(k, X):
    X = np.asarray(X)
    n = len(X)
    cols = [[k(X[i], X[j]) for i in range(n)] for j in range(n)]
    return np.array(cols).T


def is_symmetric(K, tol=1e-10):
    K = np.asarray(K, dtype=float)
    return bool(np.max(np.abs(K - K.T)) <= tol * max(1.0, np.linalg.norm(K)))


def is_psd(K, tol=1e-10):
    K = np.asarray(K, dtype=float)
    if not is_symmetric(K, tol):
        return False
    shift = tol * max(1.0, np.linalg.norm(K, 2))
    try:
        np.linalg.cholesky(K + shift * np.eye(len(K)))
    except np.linalg.LinAlgError:
        return False
    return True


def is_psd_exact(K):
    """Every principal minor is non-negative (exact, for symmetric K)."""
    K = sp.Matrix(K)
    if K != K.T:
        return False
    n = K.rows
    for size in range(1, n + 1):
        for idx in itertools.combinations(range(n), size):
            if K.extract(list(idx), list(idx)).det() < 0:
                return False
    return True


def find_counterexample(k, d, max_points=6, seed=0):
    rng = np.random.default_rng(seed + 1000)
    for _ in range(60):
        for n in range(1, max_points + 1):
            X = rng.uniform(-3, 3, (n, d))
            K = np.array([[k(a, b) for b in X] for a in X], dtype=float)
            top = np.abs(K).max()
            if top == 0:
                continue
            if np.abs(K - K.T).max() > 1e-6 * top:
                return X
            w = np.linalg.eigvalsh(K)
            if w.min() < -1e-6 * np.abs(w).max():
                return X
    return None


def centring_matrix(n):
    if type(n) is not int:
        raise TypeError(f"n must be an int, got {type(n).__name__}")
    if n < 2:
        raise ValueError("n must be at least 2")
    return [[(1.0 if i == j else 0.0) - 1.0 / n for j in range(n)] for i in range(n)]


def _rows(K, columns=None):
    """The rows of K as lists; ValueError unless every row has ``columns`` entries
    (default: as many as there are rows, a square K)."""
    rows = K.tolist()
    want = len(rows) if columns is None else columns
    if any(len(row) != want for row in rows):
        raise ValueError(f"expected rows of {want} entries")
    return rows


def centre_kernel(K):
    """The four-term formula with loops; sympy in, sympy out."""
    exact = isinstance(K, sp.MatrixBase)
    rows = _rows(K)
    n = len(rows)
    r = [sum(row) / n for row in rows]
    g = sum(r) / n
    out = [[rows[i][j] - r[i] - r[j] + g for j in range(n)] for i in range(n)]
    return sp.Matrix(out) if exact else np.array(out)


def centre_new(K_new, K_train):
    exact = isinstance(K_new, sp.MatrixBase)
    train = _rows(K_train)
    n = len(train)
    new = _rows(K_new, n)
    r = [sum(row) / n for row in train]
    g = sum(r) / n
    out = [[row[i] - r[i] - sum(row) / n + g for i in range(n)] for row in new]
    return sp.Matrix(out) if exact else np.array(out)


def feature_mean_sq_norm(K):
    rows = _rows(K if isinstance(K, sp.MatrixBase) else np.asarray(K, dtype=float))
    return sum(sum(row) for row in rows) / len(rows) ** 2


def distances_to_mean(K):
    """The diagonal of the centred matrix; exact square roots for sympy input."""
    Kc = centre_kernel(K if isinstance(K, sp.MatrixBase) else np.asarray(K, dtype=float))
    if isinstance(K, sp.MatrixBase):
        return [sp.sqrt(Kc[i, i]) for i in range(Kc.rows)]
    return np.sqrt(np.clip(np.diag(Kc), 0, None))


def kpca_fit(Kc, l):
    """numpy.linalg.svd (Kc symmetric: the singular vectors are eigenvectors, the signs of
    the eigenvalues come from u_i . v_i), every sign flipped. (numpy.linalg.eig is no
    correct route: for a repeated eigenvalue it can return one eigenvector twice.)"""
    Kc = np.asarray(Kc, dtype=float)
    if Kc.ndim != 2 or Kc.shape[0] != Kc.shape[1] or not np.allclose(Kc, Kc.T) or l < 1:
        raise ValueError("Kc must be a symmetric square matrix and l a positive integer")
    U, s, Vt = np.linalg.svd(Kc)
    w = s * np.sign(np.sum(U * Vt.T, axis=0))
    order = np.argsort(-w, kind="stable")
    w, V = w[order], U[:, order]
    top = np.abs(w).max()
    if w.min() < -1e-8 * top:
        raise ValueError("Kc is not positive semidefinite")
    if np.sum(w > 1e-9 * top) < l:
        raise ValueError(f"fewer than {l} positive eigenvalues")
    mu, a = w[:l], -V[:, :l]
    return list(mu), a / np.sqrt(mu)


def kpca_scores(Kc, alpha):
    return np.einsum("ij,jk->ik", np.asarray(Kc, dtype=float), np.asarray(alpha, dtype=float))


def kpca_transform(K_new, K_train, alpha):
    """The zero-sum shortcut of the textbook: alpha^T (k_new - training row means)."""
    K_new, K_train = np.asarray(K_new, dtype=float), np.asarray(K_train, dtype=float)
    return (K_new - K_train.mean(axis=1)) @ np.asarray(alpha, dtype=float)


def explained_ratio(mu):
    total = sum(float(m) for m in mu)
    if min(float(m) for m in mu) < 0 or total <= 0:
        raise ValueError("eigenvalues must be non-negative with a positive sum")
    return [float(m) / total for m in mu]


def feature_variances(mu, n, ddof=0):
    if n - ddof <= 0:
        raise ValueError("n - ddof must be positive")
    return [float(m) / (n - ddof) for m in mu]


def reconstruction_error(Kc, l):
    w = np.sort(np.linalg.eigvalsh(np.asarray(Kc, dtype=float)))[::-1]
    if not 1 <= l <= len(w):
        raise ValueError(f"l must be between 1 and {len(w)}")
    return float(np.sum(w[l:]))


def cubic_kernel(X, Z):
    # the explicit map's dot products, summed degree by degree with loops over points
    X, Z = np.asarray(X, dtype=float), np.asarray(Z, dtype=float)
    if X.shape[1] != Z.shape[1]:
        raise ValueError("X and Z need the same number of columns")
    out = np.empty((len(X), len(Z)))
    for i, x in enumerate(X):
        for j, z in enumerate(Z):
            s = float(x @ z)
            out[i, j] = sum(s**k for k in range(4))
    return out


def cubic_features(X):
    # another coordinate order: degree 3, then 2, then 1, then the constant
    rows = []
    for x in np.asarray(X, dtype=float).tolist():
        three = [a * b * c for a, b, c in itertools.product(x, repeat=3)]
        two = [a * b for a, b in itertools.product(x, repeat=2)]
        rows.append(three + two + x + [1.0])
    return rows


def gd_dual_fit(K, y, alpha, steps):
    K, y = np.asarray(K, dtype=float), np.asarray(y, dtype=float)
    if K.ndim != 2 or K.shape != (len(y), len(y)):
        raise ValueError("K must be square with one row per target")
    if alpha <= 0 or steps < 0:
        raise ValueError("alpha must be positive and steps >= 0")
    beta = [0.0] * len(y)
    for _ in range(steps):
        residual = [y[i] - sum(beta[j] * K[i, j] for j in range(len(y))) for i in range(len(y))]
        beta = [b + alpha * r for b, r in zip(beta, residual)]
    return tuple(beta)


def gd_primal_fit(Phi, y, alpha, steps):
    Phi, y = np.asarray(Phi, dtype=float), np.asarray(y, dtype=float)
    if Phi.ndim != 2 or len(y) != Phi.shape[0] or alpha <= 0 or steps < 0:
        raise ValueError("bad input")
    # the dual route, mapped back: theta = Phi^T beta
    return Phi.T @ np.asarray(gd_dual_fit(Phi @ Phi.T, y, alpha, steps))


def kernel_predict(K_new, beta):
    K_new = np.asarray(K_new, dtype=float)
    if K_new.ndim != 2 or K_new.shape[1] != len(beta):
        raise ValueError("K_new needs one column per coefficient")
    return [sum(k * b for k, b in zip(row, beta)) for row in K_new.tolist()]


def max_step_size(K):
    K = np.asarray(K, dtype=float)
    if not np.allclose(K, K.T, rtol=0, atol=1e-10 * max(1.0, np.abs(K).max())):
        raise ValueError("K must be symmetric")
    w = np.linalg.eig(K)[0].real
    if w.min() < -1e-8 * w.max():
        raise ValueError("K is not positive semidefinite")
    return np.float64(2 / w.max())


def kernel_ridge(K, y, lam):
    K, y = np.asarray(K, dtype=float), np.asarray(y, dtype=float)
    if K.ndim != 2 or K.shape != (len(y), len(y)) or lam < 0:
        raise ValueError("bad input")
    w, V = np.linalg.eigh(K)                      # (K + lam I)^-1 by the spectrum
    shifted = w + lam
    if np.abs(shifted).min() <= 1e-13 * np.abs(shifted).max():  # its own threshold
        raise ValueError("K + lam I is singular")
    return V @ ((V.T @ y) / shifted)


NAMES = [
    "variance_shares", "components_needed", "lift", "circle_normal", "recover_circle",
    "count_distinct_products", "count_monomials", "quadratic_map", "poly_feature_map",
    "rbf_features_1d", "poly_kernel", "rbf_kernel", "feature_distance", "gamma_for_similarity",
    "gram", "is_symmetric", "is_psd", "is_psd_exact", "find_counterexample", "centring_matrix",
    "centre_kernel", "centre_new", "feature_mean_sq_norm", "distances_to_mean", "kpca_fit",
    "kpca_scores", "kpca_transform", "explained_ratio", "feature_variances",
    "reconstruction_error", "cubic_kernel", "cubic_features", "gd_dual_fit", "gd_primal_fit",
    "kernel_predict", "max_step_size", "kernel_ridge",
]

#: contract name -> alternative implementation
ALTERNATIVES = {name: globals()[name] for name in NAMES}
ALTERNATIVES.update(_ps0.ALTERNATIVES)
