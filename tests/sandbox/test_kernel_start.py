"""Every graded kernel, warm or cold, transforms a cell's text once (kit/sandbox/kernel_start.py).

ipykernel transforms each cell twice; the kernels keep the first result for the second call
only when nothing could make the two differ. A notebook with transformers of its own, state
and hooks prints what it prints under stock ipykernel (the venv's ``python3`` kernel, run
beside); IPython's magics and syntax errors are as before; cold and warm kernels agree.
"""

from __future__ import annotations

import os

import pytest
from jupyter_client.manager import KernelManager

from kit.sandbox import warm
from kit.sandbox import wrapper as sandbox
from kit.sandbox.wrapper import KERNEL_NAME

pytestmark = pytest.mark.skipif(sandbox.unavailable() != "", reason="needs bubblewrap")

KINDS = ["cold"] + (["warm"] if warm.enabled() else [])

COUNT = """
calls = []
manager = get_ipython().input_transformer_manager
plain = type(manager).transform_cell
manager.transform_cell = lambda cell: (calls.append(cell), plain(manager, cell))[1]
"""

#: a transformer of the student's that counts its calls and changes with a hook's state
STATEFUL = """
seen, state = [], {"on": False}
def shout(lines):
    seen.append(1)
    return [line.replace("quiet", "LOUD") for line in lines] if state["on"] else lines
get_ipython().input_transformers_post.append(shout)
get_ipython().events.register("pre_run_cell", lambda info: state.update(on=True))
"""
STATEFUL_CELLS = [STATEFUL, 'word = "quiet"\nprint(word)\n', "a = 1\nprint(len(seen))\n",
                  "print(len(seen))"]


def _cells(kind: str, cells: list[str], cwd) -> list[str]:
    """Each cell's printed text (and error), run one after another in one graded kernel
    (``kind`` cold or warm) or in stock ipykernel (``stock``, the venv's own kernel)."""
    env = {**os.environ, "KPCA_SANDBOX_WARM": "1" if kind == "warm" else "0"}
    km = KernelManager(kernel_name="python3" if kind == "stock" else KERNEL_NAME)
    km.start_kernel(cwd=str(cwd), env=env)
    try:
        kc = km.client()
        kc.start_channels()
        kc.wait_for_ready(timeout=120)
        printed = []
        for code in cells:
            out: list[str] = []

            def keep(msg, out=out):
                if msg["msg_type"] == "stream":
                    out.append(msg["content"]["text"])
                elif msg["msg_type"] == "error":
                    out.append(msg["content"]["ename"] + ": " + msg["content"]["evalue"])

            kc.execute_interactive(code, output_hook=keep, timeout=120)
            printed.append("".join(out))
        kc.stop_channels()
        return printed
    finally:
        km.shutdown_kernel(now=True)


@pytest.mark.parametrize("kind", KINDS)
def test_each_cell_of_several_lines_is_transformed_once(kind, tmp_path):
    printed = _cells(kind, [COUNT, "x = 1\ny = 2\n", "n = len(calls)\nprint(n)\n",
                            "print(len(calls))"], tmp_path)
    assert printed[2].strip() == "2", printed  # stock ipykernel: 4 (each cell twice)
    assert printed[3].strip() == "4", printed  # a one-line cell: transformed twice, as before


@pytest.fixture(scope="module")
def stock(tmp_path_factory):
    return _cells("stock", STATEFUL_CELLS, tmp_path_factory.mktemp("stock"))


@pytest.mark.parametrize("kind", KINDS)
def test_a_students_own_transformer_runs_as_under_stock_ipykernel(kind, tmp_path, stock):
    assert stock[1:] == ["quiet\n", "4\n", "6\n"]  # twice a cell; the hook: from the next cell
    assert _cells(kind, STATEFUL_CELLS, tmp_path) == stock


@pytest.mark.parametrize("kind", KINDS)
def test_magics_and_errors_are_transformed_as_before(kind, tmp_path):
    printed = _cells(kind, ["names = %who_ls\nprint('magic', type(names).__name__)\n",
                            "a = 1\n  b = 2\n", "def f(:\n    pass\n"], tmp_path)
    assert printed[0].strip() == "magic list"
    assert printed[1].startswith("IndentationError"), printed
    assert printed[2].startswith("SyntaxError"), printed


def test_cold_and_warm_kernels_start_the_same_way():
    from kit.sandbox import kernel_start

    source = warm.template_source()
    assert kernel_start.__doc__.splitlines()[0] in source  # the template holds its text
    assert "def transform_once" in kernel_start.program()
    compile(kernel_start.program(), "<kernel>", "exec")
