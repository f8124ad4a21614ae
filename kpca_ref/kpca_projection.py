"""ps5: scores of kernel PCA, for the training points and for new points.

With the coefficients ``alpha`` of :func:`kpca_ref.kpca.kpca_fit` (``alpha_j = a_j /
sqrt(mu_j)``), the training scores are ``Kc alpha`` (column j is ``sqrt(mu_j) a_j``). A new
point is scored with its kernel values centred by the TRAINING means
(:func:`kpca_ref.centring.centre_new`), never by its own.

Numeric route: float64. Exact route (sympy input): exact sympy matrices.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from kpca_ref import _validation as v
from kpca_ref.centring import centre_new
from kpca_ref.exact import tidy

__all__ = ["kpca_scores", "kpca_transform"]


def _check_alpha(alpha, n: int, exact: bool):
    name = "alpha"
    if exact:
        column = not isinstance(alpha, sp.MatrixBase) and np.ndim(np.array(alpha, dtype=object)) == 1
        alpha = v.check_exact_finite(v.as_exact_matrix(alpha, name), name)
        alpha = alpha.T if column else alpha
        rows = alpha.rows
    else:
        alpha = v.as_float_array(alpha, name)
        if alpha.ndim not in (1, 2):
            raise ValueError(f"alpha must be 1-D or 2-D (n, l), got shape {alpha.shape}")
        rows = alpha.shape[0]
    if rows != n:
        raise ValueError(f"alpha must have n = {n} rows (one per training point), got {rows} rows")
    return alpha


def kpca_scores(Kc, alpha):
    """Training scores ``Kc @ alpha``: entry (i, j) is point i's coordinate on component j.

    Parameters
    ----------
    Kc : array_like of shape (n, n)
        The centred kernel matrix the coefficients came from.
    alpha : array_like of shape (n, l) (or (n,) for one component)

    Returns
    -------
    ndarray of shape (n, l) (or (n,)); sympy Matrix (n, l) on the exact route.

    Examples
    --------
    >>> from kpca_ref.kpca import kpca_fit
    >>> Kc = sp.Matrix([[5, -3, -2], [-3, 5, -2], [-2, -2, 4]])
    >>> kpca_scores(Kc, kpca_fit(Kc, 2)[1]).T
    Matrix([
    [ 2, -2, 0],
    [-1, -1, 2]])
    """
    if v.is_exact(Kc, alpha):
        Kc = v.check_exact_finite(v.as_exact_matrix(Kc, "Kc", square=True), "Kc")
        return (Kc * _check_alpha(alpha, Kc.rows, True)).applyfunc(tidy)
    Kc = v.as_square_float(Kc, "Kc")
    return Kc @ _check_alpha(alpha, Kc.shape[0], False)


def kpca_transform(K_new, K_train, alpha):
    """Scores of new points: their kernel values centred with the training means, times alpha.

    Parameters
    ----------
    K_new : array_like of shape (m, n), or (n,) for one new point
        Raw kernel values between new points (rows) and training points (columns).
    K_train : array_like of shape (n, n)
        Raw (uncentred) training kernel matrix.
    alpha : array_like of shape (n, l)
        Coefficients from :func:`kpca_fit` on ``centre_kernel(K_train)``.

    Returns
    -------
    ndarray of shape (m, l), or (l,) for 1-D ``K_new``. Exact route: sympy Matrix (m, l);
    a sympy column ``K_new`` (one point) gives a column (l, 1).

    Examples
    --------
    >>> K = sp.Matrix([[2, 0, 0], [0, 0, 0], [0, 0, 2]])
    >>> alpha = sp.Matrix([[-1, 1], [0, -2], [1, 1]]) / 2
    >>> kpca_transform(sp.Matrix([2, 0, 6]), K, alpha).T
    Matrix([[2, 10/3]])
    """
    centred = centre_new(K_new, K_train)
    if not isinstance(centred, sp.MatrixBase):
        return centred @ _check_alpha(alpha, centred.shape[-1], False)
    # centre_new accepted it, so a sympy column K_new is one point (n >= 2 rows)
    if isinstance(K_new, sp.MatrixBase) and K_new.cols == 1:
        return (_check_alpha(alpha, centred.rows, True).T * centred).applyfunc(tidy)
    return (centred * _check_alpha(alpha, centred.cols, True)).applyfunc(tidy)
