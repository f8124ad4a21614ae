"""Hidden test cases: for each contract function, its groups of concrete inputs.

A :class:`Group` is what earns partial credit: a label the student sees ("n up to
300", "exact sympy input", ...) and a few :class:`Case` objects built
deterministically from numpy generators whose seeds appear in no notebook. A
case carries its arguments and how to compare (tolerances, an expected
``ValueError``). Groups are built fresh on every call of :func:`groups`, so
nothing a notebook does to a previous result can leak into the next grading.

The builders live in :mod:`.cases_dimensions` (ps0), :mod:`.cases_circle` (ps1),
:mod:`.cases_features` (ps2), :mod:`.cases_mercer` (ps3), :mod:`.cases_kpca` (ps4, ps5)
and :mod:`.cases_regression` (ps6); they are made of
:mod:`.case_parts` (the types and the shared input makers), which this module re-exports;
this module is the registry.
"""

from __future__ import annotations

from kpca_ref.grading import (
    cases_circle,
    cases_dimensions,
    cases_features,
    cases_kpca,
    cases_mercer,
    cases_regression,
)
from kpca_ref.grading.case_parts import (  # noqa: F401  (re-exported: the cases' API)
    PARAMS,
    Case,
    Group,
    centred,
    k_linear,
    k_poly,
    k_rbf,
    on_circle,
    poly,
    rbf,
    rng,
    salted,
    with_spectrum,
)

__all__ = ["PARAMS", "Case", "Group", "groups", "names", "salted"]  # plus the input makers


def _registry() -> dict:
    table = {**cases_dimensions.BUILDERS, **cases_circle.BUILDERS, **cases_features.BUILDERS,
             **cases_mercer.BUILDERS, **cases_kpca.BUILDERS, **cases_regression.BUILDERS}
    missing = set(PARAMS) - set(table)
    if missing:  # pragma: no cover - guards the two builder modules
        raise RuntimeError(f"no hidden cases for {sorted(missing)}")
    return table


def names() -> list[str]:
    """The contract function names, in problem-set order."""
    return list(PARAMS)


def groups(name: str) -> list[Group]:
    """Freshly built case groups of the contract function ``name``.

    >>> [g.label for g in groups("centring_matrix")][:3]
    ['the smallest case n = 2, beside a larger n', 'small n', 'n up to 300']
    """
    if name not in PARAMS:
        raise KeyError(f"{name!r} is not a contract function; known: {', '.join(PARAMS)}")
    return _registry()[name]()
