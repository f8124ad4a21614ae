"""Judging one case: coerce the student's result, compare it with the reference's.

:func:`check` picks the comparison from the reference's result (sympy -> exact
equality, bool, int, tuple or array of floats) unless the function needs its own
rule: ``poly_feature_map`` and ``cubic_features`` (coordinate order is free: compare
the Gram matrix of the mapped points), ``kpca_fit`` (each coefficient vector's sign is free; a
repeated eigenvalue only fixes a subspace) and ``find_counterexample`` (any
valid counterexample passes). Messages never contain expected values.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from kpca_ref.grading.compare import (
    FloatNotExact,
    allclose,
    allclose_up_to_sign,
    as_bool,
    as_exact,
    as_float_array,
    as_int,
    exact_equal,
    mismatch_report,
    same_subspace,
    shape_text,
    underflow_floor,
)
from kpca_ref.tolerances import NEGATIVE_EIGENVALUE_RTOL, REPEATED_EIGENVALUE_RTOL
from kpca_ref.verdict import PASS, Verdict

__all__ = ["Verdict", "check"]




def _tol(case) -> dict:
    return {"rtol": case.rtol, "atol": case.atol, "per_column": case.per_column,
            "atol_scale": case.atol_scale}


def _check_exact(result, expected) -> Verdict:
    try:
        got = as_exact(result, name="result")
    except FloatNotExact:
        return Verdict(False, "exact input, so an exact result is expected, got a float",
                       "float_not_exact")
    want = as_exact(expected, name="expected")
    vector = isinstance(got, list) or isinstance(got, sp.MatrixBase) and 1 in got.shape
    if isinstance(want, sp.MatrixBase) and 1 in want.shape and vector and len(got) == len(want):
        got = sp.ImmutableMatrix(want.rows, want.cols, list(got))  # any layout of a vector
    if isinstance(want, sp.MatrixBase):
        if not isinstance(got, sp.MatrixBase):
            return Verdict(False, f"a sympy Matrix is expected, got {type(result).__name__}")
        if got.shape != want.shape:
            return Verdict(False, f"result has shape {shape_text(got.shape)}, "
                                  f"expected {shape_text(want.shape)}")
        bad = sum(not exact_equal(a, b) for a, b in zip(got, want))
        if bad:
            return Verdict(False, f"{bad} of {len(want)} entries differ from the exact values")
        return PASS
    return PASS if exact_equal(got, want) else Verdict(False, "not equal to the exact value")


def _check_plain(result, expected, case) -> Verdict:
    if isinstance(expected, (sp.Basic, sp.MatrixBase)):
        return _check_exact(result, expected)
    if isinstance(expected, (bool, np.bool_)):
        got = as_bool(result)
        return PASS if got == bool(expected) else Verdict(False, f"wrong verdict ({got})")
    if isinstance(expected, (int, np.integer)):
        got = as_int(result)
        return PASS if got == int(expected) else Verdict(False, f"wrong count ({got})")
    want = np.array(expected, dtype=np.float64)
    got = as_float_array(result, want.shape)
    tol = {**_tol(case), "floor": underflow_floor(result, case.float32_floor)}
    if allclose(got, want, **tol):
        return PASS
    return Verdict(False, mismatch_report(got, want, **tol))


def _check_poly_map(results, expected, case) -> Verdict:
    length = len(np.ravel(np.array(expected[0], dtype=np.float64)))
    rows = [as_float_array(res, (length,)) for res in results]
    want = np.array([np.ravel(np.array(e, dtype=np.float64)) for e in expected])
    got_gram = [[float(sum(x * y for x, y in zip(a.tolist(), b.tolist()))) for b in rows]
                for a in rows]
    if allclose(got_gram, want @ want.T, rtol=case.rtol):
        return PASS
    return Verdict(False, "dot products of your mapped points do not reproduce the kernel "
                          "values (x @ y + c)**p")


def _check_cubic_features(result, expected, case) -> Verdict:
    want = np.array(expected, dtype=np.float64)
    got = as_float_array(result, want.shape)
    if allclose(got @ got.T, want @ want.T, rtol=case.rtol):
        return PASS
    return Verdict(False, "dot products of your feature rows do not reproduce the kernel "
                          "1 + <x, z> + <x, z>^2 + <x, z>^3")


def _clusters(mu: list[float]) -> list[list[int]]:
    """Runs of (relatively) equal eigenvalues, as lists of column indices."""
    top = max([abs(m) for m in mu] + [0.0])
    runs: list[list[int]] = []
    for j, m in enumerate(mu):
        if runs and abs(mu[runs[-1][-1]] - m) <= REPEATED_EIGENVALUE_RTOL * top:
            runs[-1].append(j)
        else:
            runs.append([j])
    return runs


def _check_kpca_fit(result, expected, case) -> Verdict:
    mu_ref, alpha_ref = (np.array(v, dtype=np.float64) for v in expected)
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        return Verdict(False, f"kpca_fit should return a pair (mu, alpha), got "
                              f"{type(result).__name__}")
    mu = as_float_array(result[0], mu_ref.shape, name="mu")
    alpha = as_float_array(result[1], alpha_ref.shape, name="alpha")
    if not allclose(mu, mu_ref, rtol=case.rtol):
        return Verdict(False, "eigenvalues mu: " + mismatch_report(mu, mu_ref, rtol=case.rtol))
    for run in _clusters(mu_ref.tolist()):
        got, want = alpha[:, run], alpha_ref[:, run]
        if len(run) == 1:
            if not allclose_up_to_sign(got, want, rtol=case.rtol):
                return Verdict(False, f"coefficient vector alpha[:, {run[0]}] differs from the "
                                      "expected one (either sign is accepted)")
        elif not same_subspace(got, want, rtol=case.rtol):
            return Verdict(False, f"coefficient vectors alpha[:, {run[0]}:{run[-1] + 1}] (a "
                                  "repeated eigenvalue) do not span its eigenvectors")
        elif not allclose(got.T @ got, want.T @ want, rtol=case.rtol):
            return _not_orthonormal(got, want, run, case)
    return PASS


def _not_orthonormal(got, want, run, case) -> Verdict:
    """Right eigenspace of a repeated eigenvalue, wrong Gram matrix: name the cause."""
    where = f"coefficient vectors alpha[:, {run[0]}:{run[-1] + 1}] (a repeated eigenvalue)"
    lengths_right = allclose(np.diag(got.T @ got), np.diag(want.T @ want), rtol=case.rtol)
    if lengths_right:  # unit eigenvectors that are not orthogonal: np.linalg.eig's result
        return Verdict(False, f"{where} span its eigenvectors with the right lengths but are "
                              "not orthogonal: np.linalg.eig does not orthogonalise them, "
                              "np.linalg.eigh does", "eigenvectors_not_orthogonal")
    return Verdict(False, f"{where} span its eigenvectors with the wrong scale")


def gram_is_counterexample(k, X) -> bool:
    """True when the Gram matrix of ``k`` on the rows of ``X`` is clearly not a kernel's."""
    pts = np.array(X, dtype=np.float64).view(np.ndarray)
    n = pts.shape[0]
    K = [[float(k(pts[i].copy(), pts[j].copy())) for j in range(n)] for i in range(n)]
    top = max(abs(v) for row in K for v in row)
    if not np.isfinite(top) or top == 0.0:
        return False
    asym = max(abs(K[i][j] - K[j][i]) for i in range(n) for j in range(n))
    if asym > NEGATIVE_EIGENVALUE_RTOL * top:
        return True
    eig = np.linalg.eigvalsh(np.array(K)).tolist()
    return min(eig) < -NEGATIVE_EIGENVALUE_RTOL * max(abs(v) for v in eig)


def _check_counterexample(result, expected, case) -> Verdict:
    k, d = case.args[0], int(case.args[1])
    budget = int(case.kwargs.get("max_points", 6))
    if result is None:
        if expected is None:
            return PASS
        return Verdict(False, "returned None, but this function is not a kernel and a "
                              "counterexample exists within the budget")
    X = as_float_array(result)
    if X.ndim != 2 or X.shape[1] != d or not 1 <= X.shape[0] <= budget:
        return Verdict(False, f"result has shape {shape_text(X.shape)}, expected (n, {d}) with "
                              f"1 <= n <= max_points = {budget}")
    if gram_is_counterexample(k, X):
        return PASS
    return Verdict(False, "the points returned are no counterexample: their Gram matrix is "
                          "symmetric and positive semidefinite to working accuracy")


_SPECIAL = {
    "kpca_fit": _check_kpca_fit,
    "find_counterexample": _check_counterexample,
    "cubic_features": _check_cubic_features,
}


def check(name: str, case, results: list, expected: list) -> Verdict:
    """Judge the student's ``results`` of ``case`` against the reference's ``expected``.

    Both are lists with one entry per call of ``case.calls()``. Coercion failures
    (wrong shape, NaN, wrong type) become failed verdicts with their message.

    >>> from kpca_ref.grading.cases import Case
    >>> check("explained_ratio", Case(), [[0.5, 0.5]], [np.array([0.75, 0.25])])
    Verdict(ok=False, message='2 of 2 entries differ from the expected values (the first at index (0,))', code=None)
    >>> check("explained_ratio", Case(), [np.zeros(3)], [np.array([0.75, 0.25])]).message
    'result has shape (3,), expected (2,)'
    """
    try:
        if name == "poly_feature_map":
            return _check_poly_map(results, expected, case)
        rule = _SPECIAL.get(name)
        if rule is not None:
            return rule(results[0], expected[0], case)
        return _check_plain(results[0], expected[0], case)
    except FloatNotExact:
        return Verdict(False, "exact value expected, got a float", "float_not_exact")
    except AssertionError as exc:
        return Verdict(False, str(exc))
