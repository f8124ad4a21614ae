"""Exact symmetric eigen-decomposition (kpca_ref.exact) and its agreement with numpy."""

import numpy as np
import pytest
import sympy as sp

from kpca_ref.centring import centre_kernel
from kpca_ref.exact import (
    MAX_EXACT_SIZE,
    eigh_exact,
    eigvals_exact,
    sign_exact,
    tidy,
)
from kpca_ref.kpca import kpca_fit
from kpca_ref.signs import canonical_signs
from kpca_ref.tolerances import REPEATED_EIGENVALUE_RTOL

M = sp.Matrix
R = sp.Rational


def as_float(mat):
    return np.array(sp.Matrix(mat).evalf(40), dtype=float)


def residual(K, values, vectors, digits=40):
    """max |K V - V diag(values)| and max |V^T V - I|, evaluated to ``digits`` digits."""
    K, V = sp.Matrix(K), sp.Matrix(vectors).evalf(digits)
    lam = sp.diag(*sp.Matrix(values).evalf(digits))
    lhs = K * V - V * lam
    gram = V.T * V - sp.eye(V.cols)
    return max(abs(e) for e in lhs), max(abs(e) for e in gram)


def is_zero(expr):
    """Exact zero test for algebraic numbers: the minimal polynomial of 0 is x."""
    x = sp.Symbol("x")
    return expr == 0 or sp.minimal_polynomial(expr, x) == x


def all_zero(mat):
    return all(is_zero(e) for e in mat)


def groups(values, rtol=REPEATED_EIGENVALUE_RTOL):
    """Index groups of (numerically) equal eigenvalues, values sorted descending."""
    values = np.asarray(values, dtype=float)
    scale = max(np.abs(values).max(), 1e-300)
    out = [[0]]
    for i in range(1, len(values)):
        if values[out[-1][-1]] - values[i] <= rtol * scale:
            out[-1].append(i)
        else:
            out.append([i])
    return out


# ------------------------------------------------------------------ radicals and CRootOf
def test_eigenvalues_with_square_roots():
    # no rational 2 x 2 symmetric matrix has these eigenvalues (201 is not a sum of two
    # rational squares), so the example is 3 x 3 with a third eigenvalue 0
    K = M([[9, -5, -5], [-5, 5, 5], [-5, 5, 5]])
    values, vectors = eigh_exact(K)
    assert list(values) == [R(19, 2) + sp.sqrt(201) / 2, R(19, 2) - sp.sqrt(201) / 2, 0]
    assert all_zero(K * vectors - vectors * sp.diag(*values))
    assert all_zero(vectors.T * vectors - sp.eye(3))
    assert vectors[:, 2] == M([0, sp.sqrt(2) / 2, -sp.sqrt(2) / 2])
    assert not any(e.has(sp.Float) for e in vectors)


def test_kpca_fit_with_radical_eigenvalues_is_normalised_exactly():
    K = M([[9, -5, -5], [-5, 5, 5], [-5, 5, 5]])
    mu, alpha = kpca_fit(K, 2)
    assert list(mu) == [R(19, 2) + sp.sqrt(201) / 2, R(19, 2) - sp.sqrt(201) / 2]
    assert all_zero(alpha.T * K * alpha - sp.eye(2))


def test_cubic_factor_gives_exact_real_roots():
    K = M([[2, 1, 0], [1, 1, 1], [0, 1, 3]])  # characteristic polynomial irreducible cubic
    values, vectors = eigh_exact(K)
    assert all(isinstance(v, sp.CRootOf) for v in values)
    assert np.allclose(as_float(values).ravel(), np.linalg.eigvalsh(as_float(K))[::-1])
    assert max(residual(K, values, vectors)) < 1e-35


def test_irrational_entries_use_the_general_route():
    s2 = sp.sqrt(2)
    values, vectors = eigh_exact(M([[s2, 1], [1, s2]]))
    assert list(values) == [s2 + 1, s2 - 1]
    assert vectors == M([[1, 1], [1, -1]]) * s2 / 2


# ------------------------------------------------------------------ repeated eigenvalues
@pytest.mark.parametrize("n", [3, 4, 6])
def test_centred_identity_repeated_eigenvalue_is_orthonormalised(n):
    H = centre_kernel(sp.eye(n))
    values, vectors = eigh_exact(H)
    assert list(values) == [1] * (n - 1) + [0]
    assert vectors.T * vectors == sp.eye(n)
    assert H * vectors == vectors * sp.diag(*values)
    assert vectors[:, -1] == sp.ones(n, 1) / sp.sqrt(n)


def test_two_repeated_blocks():
    B = M([[2, 1], [1, 2]])
    K = sp.diag(B, B, B)  # eigenvalues 3, 3, 3, 1, 1, 1
    values, vectors = eigh_exact(K)
    assert list(values) == [3, 3, 3, 1, 1, 1]
    assert vectors.T * vectors == sp.eye(6)
    assert K * vectors == vectors * sp.diag(*values)


# ------------------------------------------------------------------ exact vs numeric
def random_centred(seed, n, d, quadratic):
    rng = np.random.default_rng(seed)
    X = sp.Matrix(rng.integers(-3, 4, size=(n, d)))
    G = X * X.T
    K = G.applyfunc(lambda g: (g + 1) ** 2) if quadratic else G
    return centre_kernel(K)


CASES = [(seed, n, 2, False) for n in range(2, 7) for seed in (0, 1)]  # rank <= 2: radicals
CASES += [(7, 3, 3, True), (8, 4, 4, True), (9, 5, 5, True)]  # full rank: CRootOf
CASES += [(10, 6, 1, True)]  # (x y + 1)^2 on 1-D points: rank <= 3, cubic factor


@pytest.mark.parametrize("seed, n, d, quadratic", CASES)
def test_exact_and_numeric_kernel_pca_agree(seed, n, d, quadratic):
    Kc = random_centred(seed, n, d, quadratic)
    Kf = np.array(Kc, dtype=float)
    exact_values = eigvals_exact(Kc)
    numeric_values = np.linalg.eigvalsh(Kf)[::-1]
    assert np.allclose(as_float(exact_values).ravel(), numeric_values, atol=1e-9)
    positive = sum(1 for v in exact_values if sign_exact(v) > 0)
    if positive == 0:
        with pytest.raises(ValueError, match="only 0 positive"):
            kpca_fit(Kf, 1)
        return
    mu_e, alpha_e = kpca_fit(Kc, positive)
    mu_n, alpha_n = kpca_fit(Kf, positive)
    assert np.allclose(as_float(mu_e).ravel(), mu_n)
    A_e = as_float(alpha_e)
    for group in groups(mu_n):
        if len(group) == 1:  # same canonical sign rule on both routes
            assert np.allclose(A_e[:, group], alpha_n[:, group], atol=1e-9)
        else:  # a repeated eigenvalue: compare the spanned subspaces
            P_e = A_e[:, group] @ A_e[:, group].T
            P_n = alpha_n[:, group] @ alpha_n[:, group].T
            assert np.allclose(P_e, P_n, atol=1e-9)


SYMMETRIC_POINTS = {
    "square corners": [[1, 0], [0, 1], [-1, 0], [0, -1]],  # eigenvalues 2, 2, 0, 0
    "tetrahedron": [[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]],  # 4, 4, 4, 0
}


@pytest.mark.parametrize("name", sorted(SYMMETRIC_POINTS))
def test_repeated_positive_eigenvalues_exact_vs_numeric(name):
    X = sp.Matrix(SYMMETRIC_POINTS[name])
    Kc = centre_kernel(X * X.T)
    positive = sum(1 for v in eigvals_exact(Kc) if v > 0)
    mu_e, alpha_e = kpca_fit(Kc, positive)
    mu_n, alpha_n = kpca_fit(np.array(Kc, dtype=float), positive)
    assert len(set(mu_e)) == 1 and positive > 1  # one repeated eigenvalue
    assert np.allclose(as_float(mu_e).ravel(), mu_n)
    A_e = as_float(alpha_e)
    assert np.allclose(A_e @ A_e.T, alpha_n @ alpha_n.T)
    assert alpha_e.T * Kc * alpha_e == sp.eye(positive)


def test_exact_canonical_signs_match_numeric_rule():
    Kc = random_centred(3, 4, 2, True)
    _values, vectors = eigh_exact(Kc)
    V = as_float(vectors)
    assert np.allclose(canonical_signs(V), V)


def test_repeated_eigenvalue_subspace_matches_numeric():
    # a centred kernel with the eigenvalue 2 of multiplicity 2 and the eigenvalue 6 once
    u = M([1, -1, 0, 0]) / sp.sqrt(2)
    v = M([1, 1, -2, 0]) / sp.sqrt(6)
    w = M([1, 1, 1, -3]) / sp.sqrt(12)
    Kc = 2 * u * u.T + 2 * v * v.T + 6 * w * w.T
    values, vectors = eigh_exact(Kc)
    assert list(values) == [6, 2, 2, 0]
    P_exact = as_float(vectors[:, 1:3] * vectors[:, 1:3].T)
    _lam, U = np.linalg.eigh(np.array(Kc, dtype=float))
    assert np.allclose(P_exact, U[:, 1:3] @ U[:, 1:3].T)
    assert vectors[:, 1:3].T * vectors[:, 1:3] == sp.eye(2)


# ------------------------------------------------------------------ helpers and errors
def test_tidy_and_sign_exact():
    assert tidy(1 / sp.sqrt(8)) == sp.sqrt(2) / 4
    assert sign_exact(sp.sqrt(201) / 2 - 7) == 1
    assert sign_exact(sp.sqrt(2) * sp.sqrt(8) - 4) == 0
    assert sign_exact(sp.CRootOf(sp.Symbol("x") ** 3 - 3 * sp.Symbol("x") + 1, 0)) == -1


def test_too_large_names_the_numeric_route():
    n = MAX_EXACT_SIZE + 1
    with pytest.raises(ValueError, match=rf"K is {n} x {n}.*numeric route"):
        eigh_exact(sp.eye(n))


@pytest.mark.parametrize(
    "K, exc, pattern",
    [
        (M([[1, sp.Float(0.5)], [sp.Float(0.5), 1]]), TypeError, "numeric route"),
        (M([[1, 2], [3, 1]]), ValueError, r"K must be symmetric, got K\[0, 1\] = 2"),
        (M([[1, 2, 3], [2, 1, 3]]), ValueError, r"K must be square, got shape \(2, 3\)"),
        (M([[1, sp.oo], [sp.oo, 1]]), ValueError, "K contains oo"),
        (M([[1, sp.Symbol("a")], [sp.Symbol("a"), 1]]), TypeError, "symbolic entry a"),
    ],
)
def test_bad_input_messages(K, exc, pattern):
    with pytest.raises(exc, match=pattern):
        eigh_exact(K)
    with pytest.raises(exc, match=pattern):
        eigvals_exact(K)
