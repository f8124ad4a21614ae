"""Fairness across variants: is one family's candidate (a student's numbers) harder?

A student is *right* on a family of numbers (:mod:`kpca_ref.variants`) when they earned full
points on every graded cell whose exact items are built on that family. Two tests, each
with Holm's correction over every test of its kind in the report, flag (thresholds below):

``family``
    do the family's candidates differ at all? The chi-square statistic of the candidates x
    (right, not right) table, its p-value from :data:`PERMUTATIONS` random reassignments of
    the candidates to the same students (a permutation test: exact for small counts, where
    the chi-square distribution is not); a family needs :data:`MIN_FAMILY` students.
``candidate``
    is this candidate harder than the family's others? Fisher's exact test, one-sided:
    the chance that a candidate with this many students would show this few right if it
    were as hard as the rest (the hypergeometric distribution). Only for candidates drawn
    by at least :data:`MIN_CANDIDATE` students; fewer: "too few students".

Thresholds: :data:`ALPHA` (1 %) for the families, :data:`ALPHA_CANDIDATE` (0.1 %) for the
candidates. On a class with no harder variant a report flags a family with probability at
most 1 % and a candidate at most 0.1 % (Holm keeps the family-wise error rate; both tests
are conservative with small counts).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
from scipy.stats import hypergeom

from kit.itemstats.items import ALPHA, holm
from kit.itemstats.table import Sheet

MIN_FAMILY = 10
MIN_CANDIDATE = 10
PERMUTATIONS = 4999
#: the candidates' threshold, stricter than :data:`ALPHA`: a class of 1,000 has hundreds of
#: candidates to test, and a flagged one is what an instructor retires
ALPHA_CANDIDATE = 0.001


@dataclass
class Result:
    """One row of ``fairness.csv``: a family (``candidate is None``) or one candidate."""

    assignment: str
    family: str
    candidate: int | None
    students: int
    right: int
    share_right: float
    rest_share_right: float | None = None
    p_value: float | None = None
    p_holm: float | None = None
    flagged: bool = False
    note: str = ""


def right_on(sheet: Sheet, cells: set[str]) -> tuple[np.ndarray, np.ndarray]:
    """``(right, graded)`` per student of ``sheet``: full points on every one of ``cells``."""
    columns = [j for j, gid in enumerate(sheet.cells) if gid in cells]
    shares = sheet.shares()[:, columns]
    graded = ~np.isnan(shares).any(axis=1) if columns else np.zeros(len(sheet.students), bool)
    return (np.nan_to_num(shares) >= 1.0 - 1e-9).all(axis=1) & graded, graded


def _seed(*names: str) -> int:
    return int.from_bytes(hashlib.sha256("\x1f".join(names).encode()).digest()[:8], "big")


def chi_square_permutation(right: np.ndarray, labels: np.ndarray, seed: int,
                           permutations: int = PERMUTATIONS) -> float:
    """Permutation p-value of the chi-square statistic of ``labels`` x ``right``.

    With the margins fixed the statistic is an increasing function of ``sum_c R_c**2 / n_c``
    (``R_c`` right among the ``n_c`` students of candidate c), which is what is compared.
    Reassigning the candidates at random deals the K right answers out over the candidates
    as a multivariate hypergeometric draw, which is how they are drawn."""
    _, codes = np.unique(labels, return_inverse=True)
    sizes = np.bincount(codes)
    y = right.astype(np.int64)
    total = int(y.sum())
    if total in (0, len(y)):
        return 1.0
    observed = (np.bincount(codes, weights=y, minlength=len(sizes)) ** 2 / sizes).sum()
    rng = np.random.default_rng(seed)
    dealt = rng.multivariate_hypergeometric(sizes, total, size=permutations, method="count")
    exceed = int(((dealt ** 2 / sizes).sum(axis=1) >= observed - 1e-9).sum())
    return (1 + exceed) / (1 + permutations)


def family_results(sheet: Sheet, family: str, cells: set[str], drawn: dict[str, int]
                   ) -> list[Result]:
    """The family's row and its candidates' rows (p-values raw; :func:`correct` adjusts).
    ``drawn``: ``{student: candidate index}``."""
    right, graded = right_on(sheet, cells)
    keep = [i for i, s in enumerate(sheet.students) if graded[i] and s in drawn]
    y = right[keep]
    labels = np.array([drawn[sheet.students[i]] for i in keep], dtype=int)
    n, k = len(keep), int(y.sum())
    top = Result(sheet.assignment, family, None, n, k, k / n if n else float("nan"))
    if n < MIN_FAMILY:
        top.note = f"too few students (fewer than {MIN_FAMILY})"
        return [top]
    if len(set(labels.tolist())) > 1:
        top.p_value = chi_square_permutation(y, labels, _seed(sheet.assignment, family))
    found = [top]
    for c in sorted(set(labels.tolist())):
        mine = labels == c
        nc, kc = int(mine.sum()), int(y[mine].sum())
        row = Result(sheet.assignment, family, c, nc, kc, kc / nc,
                     (k - kc) / (n - nc) if n > nc else None)
        if nc < MIN_CANDIDATE:
            row.note = f"too few students (fewer than {MIN_CANDIDATE})"
        elif n > nc:
            row.p_value = float(hypergeom.cdf(kc, n, k, nc))
        found.append(row)
    return found


def correct(results: list[Result]) -> list[Result]:
    """Holm's correction over the families' tests and, apart, over the candidates'; flags
    families below :data:`ALPHA` and candidates below :data:`ALPHA_CANDIDATE` that did
    worse than the rest."""
    for is_family in (True, False):
        tested = [r for r in results if (r.candidate is None) == is_family and r.p_value is not None]
        for r, p in zip(tested, holm([r.p_value for r in tested])):
            r.p_holm = p
            r.flagged = (p < ALPHA if is_family else
                         p < ALPHA_CANDIDATE and r.share_right < (r.rest_share_right or 0))
    return results
