"""The provisioner's old place: venvs installed before ``make venv`` reran still name it here.

Their entry point reads ``kit.kernelspec:SandboxProvisioner``; ``make venv`` (rerun because
``pyproject.toml`` changed) registers :class:`kit.sandbox.kernelspec.SandboxProvisioner`.
"""

from kit.sandbox.kernelspec import SandboxProvisioner  # noqa: F401
