"""Run a coroutine to its end from a test, whatever loop the test process already runs.

The browser tests' session-wide Playwright keeps an event loop running in the main thread
until the session ends, so a later test's ``asyncio.run`` there raises "cannot be called
from a running event loop". :func:`run` gives each coroutine a thread of its own, with no
loop running in it.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor


def in_thread(function, *args, **kwargs):
    """``function(*args, **kwargs)`` called in a thread of its own; its result or exception."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(function, *args, **kwargs).result()


def run(coro):
    """``asyncio.run(coro)`` in a thread of its own, so a loop running here does not refuse it."""
    return in_thread(asyncio.run, coro)
