"""Whether ``multiprocessing``'s fork server is private to this user, on this Python.

A fork server runs any pickle sent to its socket, as the user it runs as. CPython 3.9 to
3.10.8 (and 3.11's release candidates) put that socket in Linux's abstract namespace, which
has no permissions: any local user could reach it and run code as the grader
(CVE-2022-42919). Later versions put it in a folder of the grader's own, mode 0700. The
kit's fork servers (the grading processes, :mod:`kit.engines.processes`; the check service's
judges, :mod:`kit.checks.judges`) are used only where the socket is such a file; elsewhere
each process is spawned, as before the fork servers (slower, as private).
"""

from __future__ import annotations

import multiprocessing
from multiprocessing import connection, util


def private() -> bool:
    """Whether a fork server started now would listen on a file, not an abstract socket."""
    try:
        address = connection.arbitrary_address("AF_UNIX")
    except Exception:  # noqa: BLE001 - unknown: not private
        return False
    return isinstance(address, str) and not util.is_abstract_socket_namespace(address)


def context(preload: list[str]):
    """The fork server's context with ``preload`` added to what it preloads (another user of
    the one fork server of this process keeps its own), or the spawn context where the fork
    server would not be private."""
    if not private():
        return multiprocessing.get_context("spawn")
    from multiprocessing import forkserver

    ctx = multiprocessing.get_context("forkserver")
    wanted = list(forkserver._forkserver._preload_modules)
    missing = [m for m in preload if m not in wanted]
    if missing:
        ctx.set_forkserver_preload([*wanted, *missing])
    return ctx
