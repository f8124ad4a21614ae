"""What a graded notebook may import, and the message an import of anything else gets.

Grading kernels run in an environment of their own (:mod:`kit.sandbox.kernelenv`) that holds
Python's standard library and :data:`OFFERED` with what they need, and nothing else.
This file is copied into that environment as ``kpca_offered.py`` and started by a ``.pth``
line there, so in every grading kernel an ``import`` of a top-level module that is not
installed fails with a ``ModuleNotFoundError`` naming the offered packages (the feedback
page shows that one line) instead of a bare "No module named ...".

Only ``import`` statements and ``importlib.import_module`` get the message; probes such as
``importlib.util.find_spec("x")`` still get ``None``, as libraries expect. It changes no
outcome: a module that is not installed cannot be imported either way.

>>> "numpy" in OFFERED and "sklearn" not in OFFERED
True
"""

from __future__ import annotations

import sys

#: The packages the course offers students (with Python's standard library).
OFFERED = ("numpy", "scipy", "sympy", "matplotlib", "IPython")

#: The sentence that says so (the README and each notebook say the same).
NOTE = ("The grader runs your notebook with Python's standard library and "
        + ", ".join(OFFERED[:-1]) + f" and {OFFERED[-1]} only: any other import fails "
        "when your notebook is graded.")


def message(name: str) -> str:
    """The error message of an import of ``name``, a module that is not offered."""
    return (f"No module named {name!r}: the grader offers only Python's standard library and "
            + ", ".join(OFFERED) + "; use those")


class NotOffered:
    """Last finder of ``sys.meta_path``: names what is offered when nothing found a module."""

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if path is not None or "." in name:
            return None  # submodules keep Python's own message
        later = sys.meta_path[sys.meta_path.index(cls) + 1:] if cls in sys.meta_path else []
        for finder in later:  # finders added after this one still get their turn
            find = getattr(finder, "find_spec", None)
            spec = find(name, path, target) if find else None
            if spec is not None:
                return spec
        try:
            caller = sys._getframe(2).f_code.co_name
        except ValueError:
            return None
        if caller != "_find_and_load_unlocked":  # importlib.util.find_spec and other probes
            return None
        raise ModuleNotFoundError(message(name), name=name)


def install() -> None:
    """Append :class:`NotOffered` to ``sys.meta_path`` (once)."""
    if NotOffered not in sys.meta_path:
        sys.meta_path.append(NotOffered)
