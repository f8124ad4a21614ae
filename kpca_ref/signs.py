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

#: Exact route: magnitudes are first compared at this many digits; only entries that
#: agree with the largest to ``_EXACT_TIE_RTOL`` are then compared exactly.
_EXACT_SCREEN_DIGITS = 30
_EXACT_TIE_RTOL = 1e-20


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
    # nsimplify turns Floats into Rationals; exact entries are used as they are.
    mags = [sp.Abs(sp.nsimplify(e) if e.has(sp.Float) else e) for e in vector]
    # Screen with 30-digit values first: only entries that agree with the largest to
    # 20 digits can tie, so the slow exact test runs on those few (radicals, CRootOf).
    approx = [sp.N(m, _EXACT_SCREEN_DIGITS) for m in mags]
    near = max(approx, default=0)
    close = [i for i, a in enumerate(approx) if abs(a - near) <= _EXACT_TIE_RTOL * abs(near)]
    top = max((mags[i] for i in close), key=lambda m: (m, 0)) if close else 0
    if top == 0:
        return vector
    first = next(i for i in close if sp.simplify(mags[i] - top) == 0)
    lead = vector[first]
    negative = lead.is_negative
    if negative is None:  # e.g. a polynomial in CRootOf: its (nonzero) value decides
        negative = sp.N(lead, _EXACT_SCREEN_DIGITS) < 0
    return -vector if negative else vector
