"""Hidden case groups of ps5 (kernel PCA), and :data:`BUILDERS` of ps4 and ps5.

ps4's groups (centring in feature space) are :mod:`kpca_ref.grading.cases_centring`'s;
:data:`BUILDERS` here holds both, as before.

Centred matrices for the eigen-problems are built either from kernels on random
points or with a prescribed spectrum, so that every group knows whether its
eigenvalues are well separated, repeated or zero. ``kpca_scores`` and
``kpca_transform`` receive the reference's coefficient vectors, so their results
are compared without any sign freedom.

>>> [case.expect_error for case in BUILDERS["kpca_fit"]()[-2].cases]
[<class 'ValueError'>, <class 'ValueError'>]
"""

from __future__ import annotations

import numpy as np

from kpca_ref.grading import cases_centring
from kpca_ref.grading.case_parts import Case, Group, centred, poly, rbf, rng, with_spectrum
from kpca_ref.grading.cases_centring import ENTRYWISE
from kpca_ref.tolerances import GRADING_ATOL_SCALE

__all__ = ["BUILDERS"]


def _rbf_centred(r, n, d=2, gamma=0.5, scale=1.0):
    X = r.standard_normal((n, d))
    return centred(scale * rbf(X, X, gamma))


def kpca_fit():
    r = rng(205)
    low = r.standard_normal((10, 3))
    flat = r.standard_normal((8, 2))
    indefinite = with_spectrum(r, [3.0, 1.0], 6) - 0.5 * with_spectrum(r, [1.0], 6)
    return [
        Group("small centred kernels", [Case((_rbf_centred(r, 5), 2)),
                                        Case((_rbf_centred(r, 6, 3, 0.3), 3))]),
        Group("n up to 300", [Case((_rbf_centred(r, 300, 2, 0.5), 5))]),
        Group("kernel entries of size 1e6", [Case((1e6 * centred(poly(low, low, 2)), 3))]),
        Group("repeated eigenvalues", [Case((with_spectrum(r, [5.0, 3.0, 3.0, 1.0], 7), 3)),
                                       Case((centred(np.eye(5)), 4))]),
        Group("rank-deficient (l equal to the rank)", [Case((centred(low @ low.T), 3))]),
        Group("impossible requests raise ValueError", [
            Case((centred(flat @ flat.T), 3), expect_error=ValueError),
            Case((indefinite, 1), expect_error=ValueError)]),
        Group("invalid input raises ValueError (not square, not symmetric, l < 1)", [
            Case((centred(flat @ flat.T)[:, :5], 1), expect_error=ValueError),
            Case((_asymmetric(r, 5), 1), expect_error=ValueError),
            Case((centred(flat @ flat.T), 0), expect_error=ValueError)]),
    ]


def _asymmetric(r, n):
    """A matrix far from symmetric (so no tolerance can take it for a kernel matrix)."""
    A = r.standard_normal((n, n))
    return A @ A.T + np.triu(np.ones((n, n)), 1)


def _fitted(r, n, l, d=2, gamma=0.6, scale=1.0):
    """(K_train, Kc, alpha) with the reference's alpha."""
    from kpca_ref import centre_kernel, kpca_fit

    X = r.standard_normal((n, d))
    K = scale * rbf(X, X, gamma)
    Kc = np.asarray(centre_kernel(K), dtype=float)
    return X, K, Kc, np.asarray(kpca_fit(Kc, l)[1], dtype=float)


def kpca_scores():
    r = rng(206)
    cases = [_fitted(r, 6, 2), _fitted(r, 10, 3), _fitted(r, 300, 4), _fitted(r, 9, 2, scale=1e6)]
    Kc = cases[0][2]
    return [
        Group("coefficients from kpca_fit", [Case((c[2], c[3])) for c in cases[:2]]),
        Group("n up to 300", [Case((cases[2][2], cases[2][3]))]),
        Group("kernel entries of size 1e6", [Case((cases[3][2], cases[3][3]))]),
        Group("coefficient vectors not from an eigen-decomposition",
              [Case((Kc, r.standard_normal((6, 3))))]),
        Group("shapes that do not fit raise ValueError", [
            Case((Kc, r.standard_normal((5, 2))), expect_error=ValueError),
            Case((Kc[:, :5], r.standard_normal((6, 2))), expect_error=ValueError)]),
    ]


def _transform_case(r, n, m, l, scale=1.0, same=False):
    X, K, _, alpha = _fitted(r, n, l, scale=scale)
    Xn = X.copy() if same else r.standard_normal((m, X.shape[1]))
    return Case((scale * rbf(Xn, X, 0.6), K, alpha))


def kpca_transform():
    r = rng(207)
    return [
        Group("new points, coefficients from kpca_fit", [_transform_case(r, 7, 4, 2),
                                                         _transform_case(r, 9, 3, 3)]),
        Group("the training points themselves", [_transform_case(r, 6, 6, 2, same=True)]),
        Group("a single new point", [_transform_case(r, 8, 1, 2)]),
        Group("n up to 300", [_transform_case(r, 300, 40, 3)]),
        Group("kernel entries of size 1e6", [_transform_case(r, 8, 3, 2, scale=1e6)]),
        Group("shapes that do not fit raise ValueError", _transform_errors(r)),
    ]


def _transform_errors(r):
    _, K, _, alpha = _fitted(r, 6, 2)
    K_new = r.uniform(0.1, 1.0, (3, 6))
    return [Case((K_new[:, :5], K, alpha), expect_error=ValueError),
            Case((K_new, K, alpha[:5]), expect_error=ValueError)]


def _ratio_case(mu):
    # mu / sum(mu): entry by entry, so that shares of 1e-5 and 1e-6 count in full
    return Case((mu,), **ENTRYWISE)


def explained_ratio():
    r = rng(208)
    many = np.sort(np.exp(-0.05 * np.arange(300)) * r.uniform(0.5, 1.5, 300))[::-1]

    def falling(k, low, high):
        return np.sort(r.uniform(low, high, k))[::-1]

    equal = float(r.uniform(0.5, 5.0))
    return [
        Group("a few eigenvalues", [_ratio_case(np.array([8.5, 2.1, 0.4])),
                                    _ratio_case(falling(int(r.integers(3, 7)), 0.2, 9.0))]),
        Group("one dominant eigenvalue", [_ratio_case(np.concatenate([
            [float(r.uniform(5e2, 5e3))], falling(2, 1e-3, 1e-2)]))]),
        Group("equal eigenvalues", [_ratio_case(np.full(int(r.integers(2, 7)), equal)),
                                    _ratio_case(np.array([equal] * 3 + [equal / 4]))]),
        Group("many eigenvalues", [_ratio_case(many)]),
        Group("eigenvalues of size 1e6 and a zero",
              [_ratio_case(1e6 * np.concatenate([falling(2, 0.5, 4.0), [0.0]]))]),
        Group("a negative eigenvalue or no positive sum raises ValueError", [
            Case((np.array([3.0, -1.0]),), expect_error=ValueError),
            Case((np.zeros(3),), expect_error=ValueError)]),
    ]


def feature_variances():
    r = rng(209)
    mu = np.sort(r.uniform(0.1, 9.0, 4))[::-1]

    def case(mu, n, **kwargs):  # mu / (n - ddof): entry by entry
        return Case((mu, n), kwargs, **ENTRYWISE)

    return [
        Group("ddof = 0 (the lectures' eta / n)", [case(mu, 5, ddof=0), case(mu[:2], 3, ddof=0)]),
        Group("ddof = 1 (the sample variance)", [case(mu, 6, ddof=1), case(mu[:3], 4, ddof=1)]),
        Group("the default ddof", [case(mu, 7)]),
        Group("large n and scale", [case(1e6 * mu, 300, ddof=1), case(1e6 * mu, 300)]),
        Group("n - ddof not positive raises ValueError", [
            Case((mu, 1), {"ddof": 1}, expect_error=ValueError),
            Case((mu, 2), {"ddof": 3}, expect_error=ValueError)]),
    ]


def _error_case(Kc, l):
    # trace(Kc) minus eigenvalues cancels (to 0 when l is the rank): the floor is
    # relative to the trace, the size of the numbers subtracted
    return Case((Kc, l), atol=GRADING_ATOL_SCALE * float(np.trace(Kc)))


def reconstruction_error():
    r = rng(210)
    low = r.standard_normal((9, 2))
    return [
        Group("small centred kernels", [_error_case(_rbf_centred(r, 5), 1),
                                        _error_case(_rbf_centred(r, 7, 3, 0.3), 2)]),
        Group("n up to 300", [_error_case(_rbf_centred(r, 300), 6)]),
        Group("l equal to the rank (no error), and one below it", [
            _error_case(centred(low @ low.T), 2), _error_case(centred(low @ low.T), 1)]),
        Group("kernel entries of size 1e6", [_error_case(_rbf_centred(r, 8, scale=1e6), 3)]),
        Group("repeated eigenvalues", [_error_case(with_spectrum(r, [4.0, 2.0, 2.0], 6), 1)]),
        Group("not square, or l above n, raises ValueError", [
            Case((_rbf_centred(r, 5)[:, :4], 1), expect_error=ValueError),
            Case((_rbf_centred(r, 4), 5), expect_error=ValueError)]),
    ]


BUILDERS = {
    **cases_centring.BUILDERS,
    "kpca_fit": kpca_fit,
    "kpca_scores": kpca_scores,
    "kpca_transform": kpca_transform,
    "explained_ratio": explained_ratio,
    "feature_variances": feature_variances,
    "reconstruction_error": reconstruction_error,
}
