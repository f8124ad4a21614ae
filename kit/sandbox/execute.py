"""The autograde step that runs the student's notebook: nbgrader's Execute, sandboxed and capped.

``nbgrader_config.py`` lists :class:`SandboxedExecute` in ``c.Autograde.autograde_preprocessors``
in place of nbgrader's ``Execute``: the same step, with the ``kpca-sandbox`` kernel
(kit/sandbox/wrapper.py) as its kernel, and byte caps on the outputs applied as they arrive
(kit/sandbox/output_limits.py). Only autograding uses it. ``nbgrader validate`` keeps the
plain ``Execute`` and the notebook's own kernel, so an instructor validating a source
notebook runs its hidden tests with ``kpca_ref`` at hand, and students validate as usual.

Figures: the kernel draws with matplotlib's inline backend (:data:`INLINE_BACKEND`), so each
figure a cell shows (or leaves open) becomes a PNG output of that cell, kept in the autograded
notebook and shown on the feedback page. ``SandboxedExecute.figures = False`` (or
``KPCA_GRADING_FIGURES=0``) draws with Agg and keeps no figure, as before.

Before the first notebook of a grading process, it checks that the kernel environment
(kit/sandbox/kernelenv.py) cannot import scikit-learn, ``kpca_ref``, nbgrader or the test tools,
and refuses to run any notebook otherwise.
"""

from __future__ import annotations

import os
import time

from nbclient.util import run_sync
from nbformat.v4 import new_output
from nbgrader.preprocessors import Execute
from traitlets import Bool, Integer, Unicode, default

import kpca_probe
from kit.sandbox import kernelenv, output_limits
from kit.sandbox.kernelenv import probe_dir
from kit.sandbox.wrapper import KERNEL_NAME

#: matplotlib backend of graded kernels that keeps figures as PNG outputs (matplotlib-inline
#: comes with ipykernel, so the kernel environment has it).
INLINE_BACKEND = "module://matplotlib_inline.backend_inline"


class KernelEnvironmentError(RuntimeError):
    """The grading kernels' environment is missing or reaches what students must not use."""


def kernel_env_refusal(root=None) -> str:
    """Empty string when grading kernels may start, else why not (checked once per process)."""
    from pathlib import Path

    return kernelenv.refusal(probe_dir(Path(root) if root else None))


def _without_probe_payload(content: dict) -> tuple[dict, object]:
    """``(content without the probe's result, the result or None)``.

    nbformat's ``new_output`` turns every list and dict of an output into a ``NotebookNode``
    and validates it all against the notebook schema: for a probe result (arrays of case
    results, up to ``max_probe_bytes``) that cost about a tenth of a CPU second a notebook.
    The result is put back as it came: only the judge reads it, as data it does not trust
    (:mod:`kit.judge.plan`, :mod:`kpca_probe.wire`), and it drops every probe result before the
    notebook is written (:class:`kit.judge.preprocessors.JudgeHiddenTests`)."""
    data = content.get("data")
    if not isinstance(data, dict) or kpca_probe.MIME not in data:
        return content, None
    rest = {k: v for k, v in data.items() if k != kpca_probe.MIME}
    return {**content, "data": rest}, data[kpca_probe.MIME]


class SandboxedExecute(Execute):
    """nbgrader's ``Execute``, in the ``kpca-sandbox`` kernel, with output caps.

    Each cell's stdout, stderr, display data, results and errors share
    ``max_cell_output_bytes``; the notebook's share ``max_notebook_output_bytes``; a probe
    result (the hidden tests' data for the judge) may take ``max_probe_bytes``, all of them
    ``max_probe_notebook_bytes``; no single message over ``max_message_bytes`` is read. Past a cap
    the output is cut or dropped as it arrives, with a note in the cell. Widget messages
    are ignored, and a display update may not grow an output.
    """

    kernel_name = Unicode(
        KERNEL_NAME,
        help="Kernel every graded notebook runs in (default: the kpca-sandbox kernelspec).",
    ).tag(config=True)

    max_cell_output_bytes = Integer(
        output_limits.CELL_BYTES,
        help="Characters of output (streams, display data, errors) one cell may produce.",
    ).tag(config=True)

    max_notebook_output_bytes = Integer(
        output_limits.NOTEBOOK_BYTES,
        help="Characters of output the whole notebook may produce.",
    ).tag(config=True)

    max_probe_bytes = Integer(
        output_limits.PROBE_BYTES,
        help="Characters of one hidden-test result the probe sends to the judge.",
    ).tag(config=True)

    max_probe_notebook_bytes = Integer(
        output_limits.PROBE_NOTEBOOK_BYTES,
        help="Characters of all hidden-test results of a notebook together.",
    ).tag(config=True)

    max_message_bytes = Integer(
        output_limits.MESSAGE_BYTES,
        help="Largest single message read from the kernel; a bigger one is never read.",
    ).tag(config=True)

    raise_on_iopub_timeout = Bool(
        False,
        help="Fail the whole notebook when a cell's last output never arrives. Off: a "
             "message over max_message_bytes is dropped with the connection, and only "
             "that cell loses its outputs (with a note).",
    ).tag(config=True)

    figures = Bool(
        help="Keep the figures a graded notebook draws as PNG outputs (matplotlib's inline "
             "backend in the kernel); off: Agg, no figure kept. Default: on, unless the "
             "environment variable KPCA_GRADING_FIGURES is 0.",
    ).tag(config=True)

    warm_kernels = Bool(
        help="Fork each notebook's kernel from a template that has already imported numpy, "
             "scipy, sympy, matplotlib and ipykernel (kit/sandbox/warm.py; root only), "
             "instead of starting it cold. Default: on, unless the environment variable "
             "KPCA_SANDBOX_WARM is 0.",
    ).tag(config=True)

    @default("warm_kernels")
    def _warm_default(self):
        return os.environ.get("KPCA_SANDBOX_WARM", "1").strip() != "0"

    @default("figures")
    def _figures_default(self):
        return os.environ.get("KPCA_GRADING_FIGURES", "1").strip() != "0"

    async def async_start_new_kernel(self, **kwargs):
        """Start the kernel with the matplotlib backend :attr:`figures` asks for.

        The sandbox passes ``MPLBACKEND`` on to the kernel (kit/sandbox/command.py ``PASS_ENV``).
        """
        env = dict(kwargs.pop("env", None) or os.environ)
        env["MPLBACKEND"] = INLINE_BACKEND if self.figures else "Agg"
        env["KPCA_SANDBOX_WARM"] = "1" if self.warm_kernels else "0"  # read by the provisioner
        return await super().async_start_new_kernel(env=env, **kwargs)

    start_new_kernel = run_sync(async_start_new_kernel)  # the synchronous path, same start

    def create_kernel_manager(self):
        km = super().create_kernel_manager()
        km.client_factory = output_limits.capped_client(self.max_message_bytes)
        return km

    def preprocess(self, nb, resources=None, km=None):
        if self.kernel_name == KERNEL_NAME:
            root = self.config.CourseDirectory.get("root") if "CourseDirectory" in self.config else None
            why = kernel_env_refusal(root if isinstance(root, str) else None)
            if why:
                raise KernelEnvironmentError(f"kpca-sandbox: grading refused: {why}")
        self._caps = output_limits.OutputCaps(
            self.max_cell_output_bytes, self.max_notebook_output_bytes, self.max_probe_bytes,
            self.max_probe_notebook_bytes)
        self._planned = {}
        self._finished = set()
        # kit.judge.preprocessors.WriteCases took the hidden tests out of the cells the kernel runs: what
        # each test cell plans to send is read from the instructor's source it kept aside
        self._originals = dict((resources or {}).get("kpca_hidden_sources", {}))
        return super().preprocess(nb, resources, km=km)

    def process_message(self, msg, cell, cell_index):
        content = msg.get("content") or {}
        if msg.get("msg_type") == "status" and content.get("execution_state") == "idle":
            self._finished.add(cell_index)  # its last output arrived
        return super().process_message(msg, cell, cell_index)

    def _planned_calls(self, cell_index: int) -> set:
        if cell_index not in self._planned:
            from kit.judge.cells import is_test_cell
            from kit.judge.plan import planned_calls

            cell = self.nb.cells[cell_index]
            source = self._originals.get(cell_index, cell.source)
            try:
                calls = planned_calls(source) if is_test_cell(cell) else []
            except (SyntaxError, ValueError):
                calls = []
            self._planned[cell_index] = {(kind, name) for kind, name, _ in calls}
        return self._planned[cell_index]

    def output(self, outs, msg, display_id, cell_index):
        kind = msg["msg_type"]
        if kind not in ("stream", "display_data", "execute_result", "error"):
            return super().output(outs, msg, display_id, cell_index)
        content, note = self._caps.admit(cell_index, kind, msg["content"],
                                         self._planned_calls(cell_index))
        out = None
        if content is not None:
            content, payload = _without_probe_payload(content)
            out = super().output(outs, {**msg, "content": content}, display_id, cell_index)
            if payload is not None and out is not None and isinstance(out.get("data"), dict):
                dict.__setitem__(out.data, kpca_probe.MIME, payload)  # as it came, see below
        if note:
            outs.append(new_output("stream", name="stderr", text=note))
        return out

    def _update_display_id(self, display_id, msg):
        """Apply a display update only where it does not make an output bigger."""
        size = output_limits.message_size("display_data", msg["content"])
        for cell_map in self._display_id_map.get(display_id, {}).items():
            cell_idx, indices = cell_map
            outputs = self.nb.cells[cell_idx].outputs
            for i in indices:
                if i < len(outputs) and output_limits.message_size("display_data", outputs[i]) < size:
                    return
        super()._update_display_id(display_id, msg)

    def _reconnect(self):
        """Connect the output and reply channels again.

        After an oversized message ZeroMQ drops the connection for good; a cell whose last
        output or reply never came may have been the cause.
        """
        kc = self.kc
        if kc is None:
            return
        for name in ("_iopub_channel", "_shell_channel"):
            old = getattr(kc, name, None)
            setattr(kc, name, None)
            if old is not None:
                old.close()
        kc.iopub_channel, kc.shell_channel  # noqa: B018 - the properties connect afresh
        time.sleep(0.5)  # the subscription reaches the kernel before the next cell runs

    def handle_comm_msg(self, outs, msg, cell_index):
        """Widgets have no place in a graded notebook: their messages are ignored."""

    def on_cell_executed(self, **kwargs):
        index = kwargs.get("cell_index")
        reply = kwargs.get("execute_reply") or {}
        content = reply.get("content") or {}
        lost_output = index is not None and index not in self._finished
        no_reply = content.get("ename") == self.error_on_timeout.get("ename")
        if lost_output and kwargs.get("cell") is not None:
            kwargs["cell"].outputs.append(new_output("stream", name="stderr", text=(
                output_limits.LOST.format(limit=output_limits._mb(self.max_message_bytes)))))
        if lost_output or no_reply:
            self._reconnect()
        if content.get("status") == "error" and (
                output_limits.message_size("error", content) > self.max_cell_output_bytes):
            reply["content"] = output_limits.shorten_error(content)
        return super().on_cell_executed(**kwargs)
