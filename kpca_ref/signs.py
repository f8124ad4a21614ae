"""The one sign rule for eigenvectors, numeric and exact.

An eigenvector is only defined up to sign. ``kpca_ref`` fixes it: the entry of
largest magnitude is made positive; when several entries tie for largest
magnitude, the first of them decides. Numeric ties are judged relative to the
largest magnitude, so rounding cannot flip the verdict.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

#: Entries within this relative distance of the column's largest magnitude tie.
SIGN_TIE_RTOL = 1e-9


def canonical_signs(vectors: np.ndarray) -> np.ndarray:
    """Return a copy of ``vectors`` with each column's sign fixed by the rule above.

    >>> canonical_signs(np.array([[-1.0, 0.5], [0.0, -2.0], [1.0, 1.0]]))
    array([[ 1. , -0.5],
           [-0. ,  2. ],
           [-1. , -1. ]])
    """
    out = np.array(vectors, dtype=np.float64, copy=True)
    if out.ndim == 1:
        return canonical_signs(out[:, None])[:, 0]
    for j in range(out.shape[1]):
        mags = np.abs(out[:, j])
        top = mags.max(initial=0.0)
        if top == 0.0:
            continue
        first = int(np.argmax(mags >= top * (1.0 - SIGN_TIE_RTOL)))
        if out[first, j] < 0:
            out[:, j] = -out[:, j]
    return out


def canonical_sign_exact(vector: sp.Matrix) -> sp.Matrix:
    """Exact twin of :func:`canonical_signs` for one sympy column vector.

    >>> canonical_sign_exact(sp.Matrix([-1, 0, 1]))
    Matrix([
    [ 1],
    [ 0],
    [-1]])
    """
    vector = sp.Matrix(vector)
    mags = [sp.Abs(sp.nsimplify(e)) for e in vector]
    top = max(mags, key=lambda m: (m, 0)) if mags else 0
    if top == 0:
        return vector
    first = next(i for i, m in enumerate(mags) if sp.simplify(m - top) == 0)
    return -vector if vector[first].is_negative or sp.simplify(vector[first]) < 0 else vector
