"""The outcome of one check of a student's answer: passed or not, why, and the mistake's code.

Shared by the hidden tests (:mod:`kpca_ref.grading`) and the checks of proofs that the
per-student items accept (:mod:`kpca_ref.variants.ps3_certify`), so it sits below both.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["PASS", "Verdict"]


class Verdict(NamedTuple):
    """The outcome of one case: ``ok``, a message when not ok, and a diagnosis code."""

    ok: bool
    message: str = ""
    code: str | None = None


PASS = Verdict(True)
