"""Judging one checked answer: the grader's exact comparison and mistake rules.

:func:`read_answer` runs in the service's own loop and costs little whatever it is sent: the
request's size is capped before it is parsed (:data:`MAX_BODY`), the answer's tree is walked
with a node and depth budget (:data:`MAX_PARTS`), and every integer and text in it is
measured (:data:`~kpca_probe.wire_limits.MAX_DIGITS` digits, :data:`MAX_TEXT` characters)
before :func:`kpca_probe.wire.decode` (itself bounded as in the judge) rebuilds it; a float,
an over-long integer or an unreadable value is refused there without using an attempt.

:func:`judge` (the student's key from :mod:`kpca_ref.variants` and
:func:`kpca_ref.grading.harness.judge_exact`, as grading does) runs in a judging process
(:mod:`kit.checks.judges`), never in the service. The key never leaves it: only the
verdict's kind and message do.
"""

from __future__ import annotations

from typing import NamedTuple

from kpca_probe.wire_limits import MAX_DIGITS

__all__ = ["MAX_BODY", "MAX_PARTS", "MAX_TEXT", "Outcome", "judge", "read_answer", "warm_up"]

#: largest request body read (bytes); honest answers take well under 2 KB
MAX_BODY = 32_768
#: largest answer tree (dicts and lists) walked; honest answers have under 200 parts
MAX_PARTS = 2_000
#: longest text in an answer (a symbol's name, a word); integers: MAX_DIGITS digits
MAX_TEXT = 200

_NOT_EQUAL = "not equal to the expected exact value"
_NUMBERS = ("i", "Z", "Q")  # the wire's integer fields ({"Q": [p, q]}: two of them)


class Outcome(NamedTuple):
    """What became of one judgement: ``kind`` is right, wrong, mistake or form (judged),
    timeout or toolarge (it cost too much: the student's doing), crash or error (the
    judge failed); ``seconds`` is the judging time, waiting excluded."""

    kind: str
    message: str
    code: str | None = None
    seconds: float = 0.0


def _integer_text(text, key: str) -> None:
    if not isinstance(text, str) or len(text.lstrip("+-").strip()) > MAX_DIGITS:
        raise ValueError(f"an integer of more than {MAX_DIGITS} digits" if isinstance(
            text, str) else f"{key!r} holds no integer")


def _parts(data, budget: list[int], depth: int = 0) -> None:
    """Walks ``data`` with a node budget; raises ValueError naming what is too large."""
    if depth > 40:
        raise ValueError("nested too deeply")
    budget[0] -= 1
    if budget[0] < 0:
        raise ValueError(f"more than {MAX_PARTS} parts")
    if isinstance(data, dict):
        for key, value in data.items():
            if len(key) > MAX_TEXT:
                raise ValueError(f"a name of more than {MAX_TEXT} characters")
            if key in _NUMBERS:
                for text in (value if key == "Q" and isinstance(value, list) else [value])[:2]:
                    _integer_text(text, key)
            _parts(value, budget, depth + 1)
    elif isinstance(data, list):
        for value in data:
            _parts(value, budget, depth + 1)
    elif isinstance(data, str) and len(data) > max(MAX_TEXT, MAX_DIGITS + 1):
        raise ValueError(f"a text of more than {MAX_TEXT} characters")
    elif isinstance(data, int) and not isinstance(data, bool) and (
            data.bit_length() > MAX_DIGITS * 3.33):
        raise ValueError(f"an integer of more than {MAX_DIGITS} digits")


def read_answer(data):
    """``(value, None)`` for an answer worth judging, else ``(None, why not)``.

    >>> read_answer({"Q": ["1", "3"]})[0], read_answer({"f": 0.5})[1]
    (1/3, 'not exact: exact value expected, got a float')
    >>> read_answer({"i": "7" * 2000})[1]
    'this answer is too large to check (an integer of more than 1000 digits)'
    """
    from kpca_probe.wire import decode
    from kpca_ref.grading.compare_exact import FloatNotExact, as_exact

    try:
        _parts(data, [MAX_PARTS])
    except (ValueError, RecursionError) as exc:
        return None, f"this answer is too large to check ({exc})"
    value = decode(data)
    try:
        as_exact(value)
    except FloatNotExact:
        return None, "not exact: exact value expected, got a float"
    except (AssertionError, TypeError, ValueError) as exc:
        return None, f"not exact: {' '.join(str(exc).split())[:200]}"
    symbol = _a_symbol(value)
    if symbol is not None:  # no key holds one: such an answer is never right
        return None, (f"not exact: it holds the symbol {symbol[:40]!r}, and an exact answer "
                      "is made of numbers")
    return value, None


def _a_symbol(value) -> str | None:
    """The name of a free symbol somewhere in ``value``, else None."""
    if isinstance(value, (list, tuple)):
        return next((s for s in map(_a_symbol, value) if s is not None), None)
    symbols = getattr(value, "free_symbols", None)
    return min(str(s) for s in symbols) if symbols else None


def judge(item: str, student: str, data) -> tuple[str, str, str | None]:
    """``(kind, message, diagnosis code)`` of the answer ``data`` (wire format, read by
    :func:`read_answer` first); kind is right, wrong, mistake or form."""
    from kpca_probe.wire import decode
    from kpca_ref.grading import harness
    from kpca_ref.grading.answers import mistaken_values

    value = decode(data)
    with harness._silenced():
        verdict = harness.judge_exact(item, value, student)
    if verdict.ok:
        return "right", "right: this is the exact answer on your numbers", None
    named = {code for code, _, _ in mistaken_values(item, student)}
    if verdict.code in named:
        return "mistake", f"not right: {verdict.message}", verdict.code
    if verdict.code is None and verdict.message == _NOT_EQUAL:
        return "wrong", "not right: not equal to the exact answer on your numbers", None
    return "form", f"not checked: {verdict.message}", verdict.code


def warm_up() -> None:
    """Import the grader and compute a key of every problem set (for a made-up student), so
    that processes forked afterwards judge warm (:mod:`kit.checks.warm`)."""
    from kpca_ref import variants
    from kpca_ref.grading import harness  # noqa: F401

    for ps in variants.PROBLEM_SETS:  # the first key of a problem set is the costly one
        for item in list(getattr(variants.module(ps), "ITEMS", {}))[:1]:
            try:
                variants.answer(item, "kpca-check-warm-up")
            except Exception:  # noqa: BLE001, S112 - a key that cannot be drawn is not warmed
                continue
