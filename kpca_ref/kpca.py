"""ps5: kernel PCA from a centred kernel matrix.

Kc a_j = mu_j a_j with unit a_j (mu_j is the lectures' eta_j = n lambda_j). The unit
feature-space direction v_j = sum_i alpha_ji (phi(x_i) - phi_bar) needs the coefficients
alpha_j = a_j / sqrt(mu_j), so that alpha_j^T Kc alpha_j = 1. Training scores are
Kc alpha_j = sqrt(mu_j) a_j; scoring training and new points is
:mod:`kpca_ref.kpca_projection`. Variances along the directions are mu_j / n (lectures
000/001) or mu_j / (n - 1) (textbook 002); shares are mu_j / sum mu.

Numeric route: float64; eigenvalues descending; |mu| <= ZERO_EIGENVALUE_RTOL * max |mu|
counts as zero and mu < -NEGATIVE_EIGENVALUE_RTOL * max |mu| means "not PSD" (ValueError);
eigenvector signs follow :mod:`kpca_ref.signs`. Exact route (sympy input, n <= 6): exact
rationals, radicals or CRootOf (:mod:`kpca_ref.exact`); vectors of eigenvalues are sympy
column matrices.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from kpca_ref import _validation as v
from kpca_ref.exact import eigh_exact, eigvals_exact, prepare_exact_symmetric, sign_exact, tidy
from kpca_ref.signs import canonical_signs
from kpca_ref.tolerances import NEGATIVE_EIGENVALUE_RTOL, SYMMETRY_RTOL, ZERO_EIGENVALUE_RTOL

__all__ = ["explained_ratio", "feature_variances", "kpca_fit", "reconstruction_error"]


def _symmetric_eigvals(Kc, name: str, *, vectors: bool):
    """Validated symmetric PSD ``Kc``: eigenvalues descending (and unit eigenvectors)."""
    Kc = v.as_square_float(Kc, name)
    scale = np.abs(Kc).max()
    gap = np.abs(Kc - Kc.T).max()
    if gap > SYMMETRY_RTOL * scale:
        raise ValueError(
            f"{name} must be symmetric: max |{name} - {name}.T| = {gap:.3g}, "
            f"{gap / scale:.3g} times max |{name}| (tolerance {SYMMETRY_RTOL:g})"
        )
    Kc = (Kc + Kc.T) / 2
    if vectors:
        values, vecs = np.linalg.eigh(Kc)
        values, vecs = values[::-1], vecs[:, ::-1]
    else:
        values, vecs = np.linalg.eigvalsh(Kc)[::-1], None
    top = np.abs(values).max()
    if values[-1] < -NEGATIVE_EIGENVALUE_RTOL * top:
        raise ValueError(
            f"{name} is not positive semidefinite: its smallest eigenvalue {values[-1]:.6g} is "
            f"{values[-1] / top:.3g} times its largest |eigenvalue| {top:.6g} "
            f"(tolerance {NEGATIVE_EIGENVALUE_RTOL:g}); centre a valid kernel matrix"
        )
    return values, vecs, int(np.sum(values > ZERO_EIGENVALUE_RTOL * top))


def _check_psd_exact(values: sp.Matrix, name: str) -> int:
    """Raise for a negative exact eigenvalue; return the number of positive ones."""
    signs = [sign_exact(x) for x in values]
    if signs[-1] < 0:
        top = max(abs(values[0]), abs(values[-1]), key=lambda x: sp.N(x))
        raise ValueError(
            f"{name} is not positive semidefinite: it has the eigenvalue {values[-1]}, "
            f"{float(sp.N(values[-1] / top)):.3g} times its largest |eigenvalue| {top}"
        )
    return signs.count(1)


def _too_many(l: int, positive: int, name: str) -> ValueError:
    return ValueError(
        f"l = {l} components requested but {name} has only {positive} positive "
        f"eigenvalue{'s' if positive != 1 else ''} (|mu| <= {ZERO_EIGENVALUE_RTOL:g} x the "
        "largest counts as zero); a zero eigenvalue gives no direction"
    )


def _eigenvalue_vector(mu, name: str = "mu"):
    """(validated vector of non-negative eigenvalues, exact?) for the variance helpers."""
    exact = v.is_exact(mu)
    if exact:
        mat = v.check_exact_finite(v.as_exact_matrix(mu, name), name)
        if min(mat.shape) > 1:
            raise ValueError(f"{name} must be 1-D (a vector), got shape ({mat.rows}, {mat.cols})")
        mu = sp.Matrix(list(mat))
        bad = next((i for i, x in enumerate(mu) if sign_exact(x) < 0), None)
    else:
        mu = v.as_float_array(mu, name, ndim=1)
        if mu.size == 0:
            raise ValueError(f"{name} must hold at least one eigenvalue, got shape (0,)")
        floor = -NEGATIVE_EIGENVALUE_RTOL * np.abs(mu).max()
        bad = next((i for i, x in enumerate(mu) if x < floor), None)
    if bad is not None:
        raise ValueError(f"{name} must hold non-negative eigenvalues, got {name}[{bad}] = {mu[bad]}")
    return mu, exact


def kpca_fit(Kc, l):
    """Top ``l`` eigenvalues of a centred kernel matrix and the scaled coefficient vectors.

    Parameters
    ----------
    Kc : array_like of shape (n, n)
        Centred kernel matrix: symmetric positive semidefinite.
    l : int
        Number of components, 1 <= l <= number of positive eigenvalues.

    Returns
    -------
    mu : ndarray of shape (l,)
        Eigenvalues in decreasing order. Exact route: sympy column Matrix (l, 1).
    alpha : ndarray of shape (n, l)
        ``alpha[:, j] = a_j / sqrt(mu_j)`` with a_j the unit eigenvector (canonical sign).
        Exact route: sympy Matrix (n, l).

    Raises
    ------
    ValueError
        Kc not square or symmetric, clearly not PSD, or fewer than l positive eigenvalues.
    TypeError
        l not an integer, or a float inside a sympy Kc (use the numeric route).

    Examples
    --------
    >>> mu, alpha = kpca_fit(sp.Matrix([[5, -3, -2], [-3, 5, -2], [-2, -2, 4]]), 2)
    >>> mu.T, alpha.T
    (Matrix([[8, 6]]), Matrix([
    [ 1/4, -1/4,   0],
    [-1/6, -1/6, 1/3]]))
    >>> mu, alpha = kpca_fit(np.array([[5., -3, -2], [-3, 5, -2], [-2, -2, 4]]), 1)
    >>> mu, alpha.ravel().round(12) + 0.0
    (array([8.]), array([ 0.25, -0.25,  0.  ]))
    """
    l = v.check_int(l, "l", minimum=1)
    if v.is_exact(Kc):
        values, vectors = eigh_exact(Kc, name="Kc")
        positive = _check_psd_exact(values, "Kc")
        if l > positive:
            raise _too_many(l, positive, "Kc")
        mu = values[:l, :]
        alpha = sp.Matrix(vectors.rows, l, lambda i, j: tidy(vectors[i, j] / sp.sqrt(mu[j])))
        return mu, alpha
    values, vectors, positive = _symmetric_eigvals(Kc, "Kc", vectors=True)
    if l > positive:
        raise _too_many(l, positive, "Kc")
    units = canonical_signs(vectors[:, :l])
    return values[:l].copy(), units / np.sqrt(values[:l])


def explained_ratio(mu):
    """Share of each eigenvalue in their sum: ``mu / sum(mu)``.

    Parameters
    ----------
    mu : array_like of shape (l,), non-negative with a positive sum

    Returns
    -------
    ndarray of shape (l,); sympy column Matrix (l, 1) of exact fractions for sympy input.

    Examples
    --------
    >>> explained_ratio([sp.Integer(8), sp.Integer(6)]).T
    Matrix([[4/7, 3/7]])
    >>> explained_ratio(np.array([2.0, 2.0 / 3.0]))
    array([0.75, 0.25])
    """
    mu, exact = _eigenvalue_vector(mu)
    total = sum(mu) if exact else mu.sum()
    if (sign_exact(total) if exact else total) <= 0:
        raise ValueError(f"mu must have a positive sum, got sum {total}")
    return mu.applyfunc(lambda x: tidy(x / total)) if exact else mu / total


def feature_variances(mu, n, ddof=0):
    """Variances along the feature-space directions: ``mu / (n - ddof)``.

    Parameters
    ----------
    mu : array_like of shape (l,)
        Eigenvalues of the centred kernel matrix (non-negative), at most n of them.
    n : int
        Number of training points.
    ddof : int, default 0
        0 gives the lectures' eta / n; 1 gives the textbook's sample variance mu / (n - 1).
        Must satisfy 0 <= ddof < n.

    Returns
    -------
    ndarray of shape (l,); sympy column Matrix (l, 1) for sympy ``mu``.

    Examples
    --------
    >>> feature_variances([sp.Integer(8), sp.Integer(6)], 3).T
    Matrix([[8/3, 2]])
    >>> feature_variances(np.array([2.0, 2.0 / 3.0]), 3, ddof=1)
    array([1.        , 0.33333333])
    """
    n = v.check_int(n, "n", minimum=1)
    ddof = v.check_int(ddof, "ddof", minimum=0)
    if ddof >= n:
        raise ValueError(f"ddof must be < n (the divisor n - ddof must be positive), "
                         f"got ddof = {ddof} with n = {n}")
    mu, exact = _eigenvalue_vector(mu)
    if len(mu) > n:
        raise ValueError(f"mu has {len(mu)} eigenvalues but n = {n} points give at most {n}")
    return mu / (n - ddof) if exact else mu / float(n - ddof)


def reconstruction_error(Kc, l):
    """Feature-space squared reconstruction error with l components: trace(Kc) - sum of top l mu.

    Parameters
    ----------
    Kc : array_like of shape (n, n)
        Centred kernel matrix (symmetric PSD).
    l : int
        Number of kept components, 0 <= l <= n.

    Returns
    -------
    float (the sum of the discarded eigenvalues, round-off negatives dropped), or an
    exact sympy number for sympy input.

    Examples
    --------
    >>> reconstruction_error(sp.Matrix([[10, -2, -8], [-2, 4, -2], [-8, -2, 10]]) / 9, 1)
    2/3
    >>> round(reconstruction_error(np.array([[5., -3, -2], [-3, 5, -2], [-2, -2, 4]]), 1), 12)
    6.0
    """
    l = v.check_int(l, "l", minimum=0)
    if v.is_exact(Kc):
        Kc = prepare_exact_symmetric(Kc, "Kc")
        values = eigvals_exact(Kc, name="Kc")
        _check_psd_exact(values, "Kc")
    else:
        values = _symmetric_eigvals(Kc, "Kc", vectors=False)[0]
    if l > len(values):
        raise ValueError(f"l must be <= n = {len(values)} (the number of eigenvalues), got {l}")
    if isinstance(values, sp.MatrixBase):
        return tidy(Kc.trace() - sum(values[:l]))
    return float(np.clip(values[l:], 0.0, None).sum())
