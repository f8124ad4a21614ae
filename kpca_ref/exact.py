"""Exact eigen-decomposition of small symmetric sympy matrices.

The exact answers of the problem sets (the 3-point example, the x = -1, 0, 1
example) need eigenvalues and unit eigenvectors with no rounding at all. For a
matrix with rational entries this module factors the characteristic polynomial
over the rationals. Each irreducible factor gives eigenvalues that are

* rational numbers (a linear factor),
* square-root radicals such as ``19/2 + sqrt(201)/2`` (a quadratic factor),
* for higher degree, a short real radical form when sympy finds one, otherwise
  ``CRootOf`` objects (a cubic with three real roots has no real radical form).
  ``CRootOf`` is an exact real algebraic number that sympy can compare, evaluate
  to any precision and use in further exact arithmetic.

Eigenvectors are found by exact Gaussian elimination in the number field of the
eigenvalue, so the test "is this pivot zero?" is never a rounding question.
Within a repeated eigenvalue the basis is made orthogonal by Gram-Schmidt; every
vector is then scaled to unit length and given the canonical sign of
:mod:`kpca_ref.signs`. Matrices whose entries are themselves irrational (e.g.
``sqrt(2)``) go through sympy's general eigen-solver instead.

Exact work grows fast with the size, so matrices larger than
``MAX_EXACT_SIZE`` are refused: use the numeric route (a float array) there.
"""

from __future__ import annotations

import sympy as sp

from kpca_ref._validation import as_exact_matrix, check_exact_finite
from kpca_ref.signs import canonical_sign_exact

__all__ = ["MAX_EXACT_SIZE", "eigh_exact", "eigvals_exact", "prepare_exact_symmetric",
           "sign_exact", "tidy"]

#: Largest n for which the exact route is offered.
MAX_EXACT_SIZE = 6

#: Digits used only to ORDER distinct exact eigenvalues (equality is decided exactly).
_SORT_DIGITS = 50

_T = sp.Dummy("t")


def tidy(expr):
    """Return the shorter of ``expr`` and its rationalised forms (never a float).

    Expressions with ``CRootOf`` or nested square roots are returned as they are: their
    construction (a polynomial in the eigenvalue over a square root) is already the
    readable form, and rewriting them is slow.

    >>> tidy(1 / (1 + sp.sqrt(2)))
    -1 + sqrt(2)
    >>> tidy((1 + sp.sqrt(3)) ** 2)
    2*sqrt(3) + 4
    """
    expr = sp.sympify(expr)
    if expr.is_Atom or expr.has(sp.CRootOf) or _has_nested_root(expr):
        return expr
    candidates = [expr, sp.expand(expr), sp.radsimp(expr)]
    return min(candidates, key=lambda e: (sp.count_ops(e), len(str(e))))


def _has_nested_root(expr) -> bool:
    return any(
        not p.exp.is_Integer and not p.base.is_Rational for p in expr.atoms(sp.Pow)
    )


def prepare_exact_symmetric(K, name: str = "K") -> sp.Matrix:
    """Validate an exact symmetric matrix for this module (square, finite, symmetric, n <= 6).

    >>> prepare_exact_symmetric([[1, 2], [3, 1]], "Kc")
    Traceback (most recent call last):
    ...
    ValueError: Kc must be symmetric, got Kc[0, 1] = 2 but Kc[1, 0] = 3
    """
    K = as_exact_matrix(K, name, square=True)
    check_exact_finite(K, name)
    n = K.rows
    if n > MAX_EXACT_SIZE:
        raise ValueError(
            f"{name} is {n} x {n}; the exact route handles n <= {MAX_EXACT_SIZE} only. "
            "Pass a numpy float array to use the numeric route (numpy.linalg.eigh) instead."
        )
    asym = (K - K.T).applyfunc(sp.simplify)
    if any(e != 0 for e in asym):
        i, j = next((i, j) for i in range(n) for j in range(n) if asym[i, j] != 0)
        raise ValueError(
            f"{name} must be symmetric, got {name}[{i}, {j}] = {K[i, j]} "
            f"but {name}[{j}, {i}] = {K[j, i]}"
        )
    return K


def _factor_roots(K: sp.Matrix):
    """[(root expression, irreducible factor Poly, multiplicity)] for a rational K."""
    _, factors = K.charpoly(_T).factor_list()
    out = []
    for factor, mult in factors:
        poly = sp.Poly(factor.all_coeffs(), _T, domain=sp.QQ)
        if poly.degree() <= 2:
            roots = poly.all_roots()  # rationals or square-root radicals
        else:
            found = sp.roots(poly, filter=None)
            if len(found) == poly.degree() and all(
                not r.has(sp.I) and sp.count_ops(r) <= 30 for r in found
            ):
                roots = list(found)
            else:
                roots = poly.all_roots()  # CRootOf: exact real roots without radicals
        out.extend((root, poly, mult) for root in roots)
    return out


def sign_exact(value) -> int:
    """Exact sign (-1, 0 or 1) of a real algebraic number such as ``sqrt(201)/2 - 7``.

    Zero is decided exactly; a nonzero value's sign is then read from 50 digits.

    >>> sign_exact(sp.sqrt(201) / 2 - 7), sign_exact(sp.sqrt(2) * sp.sqrt(8) - 4)
    (1, 0)
    """
    value = sp.sympify(value)
    if value.is_zero or (value.is_zero is None and sp.simplify(value) == 0):
        return 0
    if value.is_positive is not None:
        return 1 if value.is_positive else -1
    return 1 if sp.N(value, _SORT_DIGITS) > 0 else -1


def _sorted_desc(items, key):
    return sorted(items, key=lambda it: sp.N(key(it), _SORT_DIGITS), reverse=True)


def eigvals_exact(K, *, name: str = "K") -> sp.Matrix:
    """Exact eigenvalues of a symmetric sympy matrix, descending, repeated by multiplicity.

    Parameters
    ----------
    K : sympy Matrix (or nested list of sympy numbers), symmetric, n x n, n <= 6.
    name : str
        How error messages call ``K``.

    Returns
    -------
    sympy Matrix of shape (n, 1)

    >>> eigvals_exact(sp.Matrix([[9, -5, -5], [-5, 5, 5], [-5, 5, 5]])).T
    Matrix([[sqrt(201)/2 + 19/2, 19/2 - sqrt(201)/2, 0]])
    """
    K = prepare_exact_symmetric(K, name)
    if all(e.is_Rational for e in K):
        values = [root for root, _, mult in _factor_roots(K) for _ in range(mult)]
    else:
        values = [tidy(v) for v, mult in K.eigenvals().items() for _ in range(mult)]
    return sp.Matrix(_sorted_desc(values, key=lambda v: v))


# --- exact linear algebra in the number field Q[t]/(f) --------------------------------


def _field_nullspace(K: sp.Matrix, f: sp.Poly):
    """Basis of the null space of K - t I over the field Q[t]/(f), f irreducible."""
    n = K.rows
    zero = sp.Poly(0, _T, domain=sp.QQ)
    rows = [
        [sp.Poly(K[i, j] - (_T if i == j else 0), _T, domain=sp.QQ).rem(f) for j in range(n)]
        for i in range(n)
    ]
    pivots, r = [], 0
    for c in range(n):
        p = next((i for i in range(r, n) if not rows[i][c].is_zero), None)
        if p is None:
            continue
        rows[r], rows[p] = rows[p], rows[r]
        inv = rows[r][c].invert(f)
        rows[r] = [(x * inv).rem(f) for x in rows[r]]
        for i in range(n):
            if i != r and not rows[i][c].is_zero:
                factor = rows[i][c]
                rows[i] = [(a - factor * b).rem(f) for a, b in zip(rows[i], rows[r])]
        pivots.append(c)
        r += 1
    basis = []
    for free in (c for c in range(n) if c not in pivots):
        vec = [zero] * n
        vec[free] = sp.Poly(1, _T, domain=sp.QQ)
        for row, c in zip(rows, pivots):
            vec[c] = -row[free]
        basis.append(vec)
    return basis


def _gram_schmidt(basis, f: sp.Poly):
    """Orthogonalise field vectors; returns (vectors, squared norms), still in Q[t]/(f)."""

    def dot(u, v):
        return sum((a * b for a, b in zip(u, v)), sp.Poly(0, _T, domain=sp.QQ)).rem(f)

    done, norms = [], []
    for v in basis:
        for u, nu in zip(done, norms):
            coef = (dot(v, u) * nu.invert(f)).rem(f)
            v = [(a - coef * b).rem(f) for a, b in zip(v, u)]
        done.append(v)
        norms.append(dot(v, v))
    return done, norms


def _integer_scaled(vec, norm):
    """Rescale a field vector by a positive rational so all its coefficients are coprime integers.

    The direction is unchanged; the printed unit vector gets smaller numbers.
    """
    coeffs = [c for p in vec for c in p.all_coeffs() if c != 0]
    scale = sp.ilcm(*[sp.Rational(c).q for c in coeffs], 1)
    scale = sp.Rational(scale, sp.igcd(*[sp.Rational(c * scale).p for c in coeffs], 0) or 1)
    return [p * scale for p in vec], norm * scale**2


def _unit_columns_rational(K: sp.Matrix):
    pairs = []
    for root, poly, mult in _factor_roots(K):  # each distinct eigenvalue once
        vectors, norms = _gram_schmidt(_field_nullspace(K, poly), poly)
        if len(vectors) != mult:  # cannot happen for a symmetric matrix
            raise ArithmeticError(f"eigenspace of {root} has dimension {len(vectors)} != {mult}")
        for vec, norm in zip(vectors, norms):
            vec, norm = _integer_scaled(vec, norm)
            length = sp.sqrt(sp.expand(norm.as_expr().subs(_T, root)))
            pairs.append((root, [sp.expand(p.as_expr().subs(_T, root)) for p in vec], length))
    return pairs


def _unit_columns_general(K: sp.Matrix):
    pairs = []
    for value, _, basis in K.eigenvects(simplify=True):
        value = tidy(value)
        ortho = sp.GramSchmidt([b.applyfunc(sp.simplify) for b in basis], orthonormal=True)
        pairs.extend((value, [tidy(sp.simplify(e)) for e in col], 1) for col in ortho)
    return pairs


def _signed_column(numerators, length) -> sp.Matrix:
    """Unit column numerators / length with the canonical sign; a flip negates numerators."""
    col = sp.Matrix([num / length for num in numerators])
    if canonical_sign_exact(col) == col:
        return col
    return sp.Matrix([sp.expand(-num) / length for num in numerators])


def eigh_exact(K, *, name: str = "K"):
    """Exact eigenvalues (descending) and orthonormal eigenvectors of a symmetric sympy matrix.

    Parameters
    ----------
    K : sympy Matrix (or nested list of sympy numbers)
        Symmetric, n x n with n <= 6, exact entries (no floats).
    name : str
        How error messages call ``K``.

    Returns
    -------
    values : sympy Matrix, shape (n, 1)
        Eigenvalues in decreasing order, repeated by multiplicity.
    vectors : sympy Matrix, shape (n, n)
        Column j is a unit eigenvector for ``values[j]``; columns are orthonormal and
        each has the canonical sign (largest-magnitude entry positive, first on ties).

    Raises
    ------
    ValueError
        K not square or not symmetric, or n > 6 (use the numeric route).
    TypeError
        K holds a float (use the numeric route) or a symbol.

    Examples
    --------
    >>> values, vectors = eigh_exact(sp.Matrix([[5, -3, -2], [-3, 5, -2], [-2, -2, 4]]))
    >>> values.T
    Matrix([[8, 6, 0]])
    >>> vectors[:, 0].T
    Matrix([[sqrt(2)/2, -sqrt(2)/2, 0]])
    """
    K = prepare_exact_symmetric(K, name)
    if all(e.is_Rational for e in K):
        pairs = _unit_columns_rational(K)
    else:
        pairs = _unit_columns_general(K)
        if len(pairs) != K.rows:
            raise ValueError(
                "sympy could not find every eigenvector of K exactly; "
                "pass a numpy float array to use the numeric route instead"
            )
    pairs = _sorted_desc(pairs, key=lambda p: p[0])
    values = sp.Matrix([p[0] for p in pairs])
    vectors = sp.Matrix.hstack(*[_signed_column(p[1], p[2]) for p in pairs])
    return values, vectors
