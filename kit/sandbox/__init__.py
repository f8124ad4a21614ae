"""The sandbox: how a student's notebook runs, in a bubblewrap box with capped output.

In: a submitted notebook, at nbgrader autograde's Execute step
(:class:`.execute.SandboxedExecute`, named in ``nbgrader_config.py``). Out: the notebook
with its outputs, run in the ``kpca-sandbox`` kernel (:mod:`.kernelspec`, started as
``python -m kit.sandbox -f {connection_file}``: :mod:`.wrapper`, whose ``bwrap`` command
line is :mod:`.command`; as root, forked from a warm template instead, :mod:`.warm` and
:mod:`.template`), with the kernel environment's Python and packages only
(:mod:`.kernelenv`, :mod:`.offered`), outputs capped as they arrive
(:mod:`.output_limits`), and nothing of the grader's in reach but its sockets and a capped,
escaped pipe for its own output (:mod:`.channels`). ``python -m kit.sandbox --install`` writes the kernelspec.
"""
