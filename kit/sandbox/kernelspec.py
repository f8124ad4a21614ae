"""The ``kpca-sandbox`` kernelspec: how Jupyter starts a grading kernel in the sandbox.

:func:`install_kernelspec` (``python -m kit.sandbox --install``, run by ``make venv``)
writes ``<venv>/share/jupyter/kernels/kpca-sandbox/kernel.json``, whose command is the
sandbox wrapper ``python -m kit.sandbox -f {connection_file}`` (kit/sandbox/wrapper.py); the kernel
itself runs the kernel environment's Python (kit/sandbox/kernelenv.py). The kernelspec names
:class:`SandboxProvisioner` (registered as an entry point in ``pyproject.toml``), which
switches these kernels, and only these, to ipc sockets in a private directory: inside the
sandbox there is no network, not even to 127.0.0.1 outside it.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from jupyter_client.provisioning import LocalProvisioner

from kit.sandbox import warm
from kit.sandbox.wrapper import KERNEL_NAME, PROVISIONER_NAME, bwrap_path


class SandboxProvisioner(LocalProvisioner):
    """Launches ``kpca-sandbox`` kernels over ipc sockets in a private directory."""

    socket_dir = None

    async def pre_launch(self, **kwargs):
        km = self.parent
        if km is not None:
            env = dict(kwargs.get("env") or os.environ)
            root = _config_root(km)
            if root:
                env["KPCA_SANDBOX_COURSE_ROOT"] = root
            env.pop(warm.ADDRESS_ENV, None)
            bwrap = bwrap_path()
            if warm.enabled(env) and bwrap:
                cwd = Path(kwargs.get("cwd") or os.getcwd()).resolve()
                env[warm.ADDRESS_ENV] = warm.template_for(bwrap, cwd, env)
            if self.socket_dir is None:  # the kernel's sockets are linked in there
                self.socket_dir = os.path.realpath(tempfile.mkdtemp(prefix="kpca-sandbox-"))
            km.transport = "ipc"
            km.ip = os.path.join(self.socket_dir, "k")
            km.cache_ports = False
            kwargs["env"] = env
        return await super().pre_launch(**kwargs)

    async def cleanup(self, restart: bool = False) -> None:
        await super().cleanup(restart=restart)
        if not restart and self.socket_dir:
            shutil.rmtree(self.socket_dir, ignore_errors=True)
            self.socket_dir = None


def _config_root(km) -> str | None:
    try:
        root = km.config.CourseDirectory.root
    except AttributeError:
        return None
    return str(root) if isinstance(root, str) and root else None


def kernelspec() -> dict:
    """The ``kernel.json`` of the ``kpca-sandbox`` kernelspec for this venv."""
    return {
        "argv": [str(Path(sys.prefix) / "bin" / "python"), "-m", "kit.sandbox",
                 "-f", "{connection_file}"],
        "display_name": "Python 3 (kpca grading sandbox)",
        "language": "python",
        "interrupt_mode": "message",
        "metadata": {"kernel_provisioner": {"provisioner_name": PROVISIONER_NAME}},
    }


def install_kernelspec(prefix: str | None = None) -> Path:
    """Write the kernelspec into ``<prefix>/share/jupyter/kernels/kpca-sandbox/``."""
    folder = Path(prefix or sys.prefix) / "share" / "jupyter" / "kernels" / KERNEL_NAME
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "kernel.json").write_text(json.dumps(kernelspec(), indent=1) + "\n")
    return folder
