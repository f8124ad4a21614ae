"""The autograde step that runs the student's notebook: nbgrader's Execute, sandboxed.

``nbgrader_config.py`` lists :class:`SandboxedExecute` in ``c.Autograde.autograde_preprocessors``
in place of nbgrader's ``Execute``: the same step, with the ``kpca-sandbox`` kernel
(kit/sandbox.py) as its kernel. Only autograding uses it. ``nbgrader validate`` keeps the
plain ``Execute`` and the notebook's own kernel, so an instructor validating a source
notebook runs its hidden tests with ``kpca_ref`` at hand, and students validate as usual.

Before the first notebook of a grading process, it checks that the kernel environment
(kit/kernelenv.py) cannot import scikit-learn, ``kpca_ref``, nbgrader or the test tools,
and refuses to run any notebook otherwise.
"""

from __future__ import annotations

from nbgrader.preprocessors import Execute
from traitlets import Unicode

from kit import kernelenv
from kit.sandbox import KERNEL_NAME, probe_dir


class KernelEnvironmentError(RuntimeError):
    """The grading kernels' environment is missing or reaches what students must not use."""


def kernel_env_refusal(root=None) -> str:
    """Empty string when grading kernels may start, else why not (checked once per process)."""
    from pathlib import Path

    return kernelenv.refusal(probe_dir(Path(root) if root else None))


class SandboxedExecute(Execute):
    """nbgrader's ``Execute``, in the ``kpca-sandbox`` kernel unless configured otherwise."""

    kernel_name = Unicode(
        KERNEL_NAME,
        help="Kernel every graded notebook runs in (default: the kpca-sandbox kernelspec).",
    ).tag(config=True)

    def preprocess(self, nb, resources=None, km=None):
        if self.kernel_name == KERNEL_NAME:
            root = self.config.CourseDirectory.get("root") if "CourseDirectory" in self.config else None
            why = kernel_env_refusal(root if isinstance(root, str) else None)
            if why:
                raise KernelEnvironmentError(f"kpca-sandbox: grading refused: {why}")
        return super().preprocess(nb, resources, km=km)
