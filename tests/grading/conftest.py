"""Shared helpers of the grading tests."""

from __future__ import annotations

import kpca_ref
from kpca_ref import grading


def reference(name: str):
    """The kpca_ref function ``name``."""
    return getattr(kpca_ref, name)


def run_grade(name: str, fn, points: float = 3) -> float:
    """``grading.grade`` of ``fn`` as the contract function ``name``."""
    return grading.grade(name, fn, points)
