"""The exact answers that ``grading.grade_exact`` compares with.

Every problem set's exact answers differ per student: :func:`answer` looks them up in
:mod:`kpca_ref.variants` (the answer key of the student's own numbers), and
:func:`mistaken_values` lists what the classic mistakes give on those numbers.

Answers that are the same for everyone can still be registered here with the decorator
:func:`register_answer` (a function of no argument that *computes* the value with
``kpca_ref``, so no key holds a hand-typed number)::

    @register_answer("fixed_centred_pair")
    def centred_pair():
        return centre_kernel(sp.Matrix([[2, 1], [1, 2]]))

``register_answer(name, up_to_sign=True)`` marks answers whose sign is free
(eigenvectors, coordinates): ``grade_exact`` then accepts each column of a
Matrix, each element of a list or tuple, or a scalar, with either sign.
Looking up a name that is neither a variant's answer nor registered raises
``KeyError`` listing the known names.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["ANSWERS", "UP_TO_SIGN", "answer", "checked_verdict", "mistaken_values",
           "register_answer"]


class _Registry(dict):
    """A dict whose failed lookups name every registered answer."""

    def __missing__(self, key):
        known = ", ".join(sorted(self)) or "(none)"
        raise KeyError(f"no exact answer is registered under {key!r}; known answers: {known}")


#: answer name -> function of no argument computing the exact value
ANSWERS: dict[str, Callable[[], object]] = _Registry()

#: names of the answers whose sign is free (per column / element)
UP_TO_SIGN: set[str] = set()


def register_answer(name: str, *, up_to_sign: bool = False):
    """Decorator registering a function of no argument as the exact answer ``name``.

    Parameters
    ----------
    name : str
        The name the notebook's hidden test passes to ``grade_exact``.
    up_to_sign : bool, default False
        Accept the value with either sign (each Matrix column, each list or
        tuple element, or the scalar, independently).

    Returns
    -------
    callable
        The decorator; it returns the function unchanged.

    Raises
    ------
    ValueError
        When a different function is already registered under ``name``.

    Examples
    --------
    >>> @register_answer("doc_example_half")
    ... def half():
    ...     import sympy as sp
    ...     return sp.Rational(1, 2)
    >>> ANSWERS["doc_example_half"]()
    1/2
    >>> _ = ANSWERS.pop("doc_example_half")
    """

    def decorator(fn):
        old = ANSWERS.get(name)
        same = old is not None and (old.__module__, old.__qualname__) == (
            fn.__module__,
            fn.__qualname__,
        )
        if old is not None and not same:
            raise ValueError(
                f"the exact answer {name!r} is already registered by "
                f"{old.__module__}.{old.__qualname__}"
            )
        ANSWERS[name] = fn
        if up_to_sign:
            UP_TO_SIGN.add(name)
        else:
            UP_TO_SIGN.discard(name)
        return fn

    return decorator


def _variant_items(name: str):
    """The variants module that owns ``name``, or None for a registered fixed answer."""
    from kpca_ref import variants

    try:
        ps = variants.problem_set_of(name)
        mod = variants.module(ps)
    except (KeyError, ValueError, ModuleNotFoundError):
        return None
    return ps if name in mod.ITEMS else None


def answer(name: str, student_id: str | None = None):
    """The exact answer ``name`` (of ``student_id``'s numbers); ``KeyError`` lists known names.

    Returns
    -------
    tuple
        ``(value, up_to_sign)``.

    Examples
    --------
    >>> answer("no_such_answer")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    KeyError: "no exact answer is registered under 'no_such_answer'; known answers: ..."
    """
    if _variant_items(name) is not None:
        from kpca_ref import variants

        if not student_id:
            raise ValueError(f"the exact answer {name!r} differs per student: a student id "
                             "is needed to grade it")
        return variants.answer(name, student_id)
    fn = ANSWERS[name]
    if fn not in _COMPUTED:  # answers are fixed: each is worked out once per process
        _COMPUTED[fn] = fn()
    value = _COMPUTED[fn]
    # sympy's Matrix is mutable: hand out a copy, never the cached object
    return (value.copy() if getattr(value, "is_Matrix", False) else value), name in UP_TO_SIGN


def checked_verdict(name: str, value, student_id: str | None):
    """The verdict on an item that is judged by a check rather than compared with a key
    (ps3's witnesses and certificates: ``CHECKED`` and ``judge`` of its variants module),
    or None for every other item. A check may draw points from the submission's salt (the
    grader's secret): it is passed on, so a student cannot predict them."""
    ps = _variant_items(name)
    if ps is None:
        return None
    from kpca_ref import variants

    mod = variants.module(ps)
    if name not in getattr(mod, "CHECKED", ()):
        return None
    if not student_id:
        raise ValueError(f"the answer {name!r} differs per student: a student id is needed "
                         "to grade it")
    return mod.judge(name, value, variants.numbers(ps, student_id), student_id, _grading_salt())


def _grading_salt() -> tuple[int, ...]:
    """The salt of the submission being judged: ``kit.judge`` sets it (from the grader's
    secret, :mod:`kit.secret`) around all judging with ``cases.salted``; () outside grading."""
    from kpca_ref.grading import case_parts

    return case_parts._SALT[-1]


def mistaken_values(name: str, student_id: str) -> list:
    """``[(code, message, wrong value), ...]`` the classic mistakes give for ``name``."""
    ps = _variant_items(name)
    if ps is None:
        return []
    from kpca_ref import variants

    return list(variants.variant(ps, student_id).mistakes.get(name, []))


_COMPUTED: dict = {}
