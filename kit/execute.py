"""The autograde step that runs the student's notebook: nbgrader's Execute, sandboxed.

``nbgrader_config.py`` lists :class:`SandboxedExecute` in ``c.Autograde.autograde_preprocessors``
in place of nbgrader's ``Execute``: the same step, with the ``kpca-sandbox`` kernel
(kit/sandbox.py) as its kernel. Only autograding uses it. ``nbgrader validate`` keeps the
plain ``Execute`` and the notebook's own kernel, so an instructor validating a source
notebook runs its hidden tests with ``kpca_ref`` at hand, and students validate as usual.
"""

from __future__ import annotations

from nbgrader.preprocessors import Execute
from traitlets import Unicode

from kit.sandbox import KERNEL_NAME


class SandboxedExecute(Execute):
    """nbgrader's ``Execute``, in the ``kpca-sandbox`` kernel unless configured otherwise."""

    kernel_name = Unicode(
        KERNEL_NAME,
        help="Kernel every graded notebook runs in (default: the kpca-sandbox kernelspec).",
    ).tag(config=True)
