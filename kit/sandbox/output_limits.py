"""Byte caps on what a graded notebook may output, applied as the outputs arrive.

nbgrader's ``LimitOutput`` trims lines of stdout after the notebook has run, when the
grader already holds every byte, and leaves display data alone. Here each output message
is measured as it arrives from the kernel (:meth:`OutputCaps.admit`), before it is stored:
stdout, stderr, display data, execute results and errors of a cell share one budget, and
all cells share a notebook budget. Past a cap, streams are cut at the cap, display data is
dropped, errors are kept but shortened (an error decides a test cell's score), and one
visible note per cell says what happened. The kernel still sends the rest, but the grader
drops it at once: its memory and the autograded notebook stay small.

Probe results (display outputs of MIME type ``kpca_probe.MIME``, emitted by the hidden
tests, read by :func:`kit.judge.plan.payloads`) are not charged to these budgets, so a
flood before them cannot push them out; to stop a student forging them to get around the
caps, one is kept only in a test cell, only for a grading call the cell's hidden part
makes, only the first per call (the one the judge reads), and only up to its own size cap;
every other output carrying that MIME type is dropped on arrival.
"""

from __future__ import annotations

import json

import kpca_probe

#: Defaults, in bytes (characters of text). The largest honest outputs of the problem
#: sets: see the README's threat model section.
CELL_BYTES = 2 << 20
NOTEBOOK_BYTES = 8 << 20
PROBE_BYTES = 8 << 20
PROBE_NOTEBOOK_BYTES = 32 << 20
#: what is left of an error past the caps
ERROR_CHARS = 2000

NOTE = ("[output truncated by the grader: {what} is over its limit of {limit}; "
        "the rest of this cell's output was dropped]\n")

LOST = ("[output lost: this cell sent an output message over {limit}, which the grader does "
        "not read; the cell's outputs after it were lost]\n")


def _mb(n: int) -> str:
    return f"{n / (1 << 20):g} MB"


def _size(value) -> int:
    if isinstance(value, str):
        return len(value)
    try:
        return len(json.dumps(value))
    except (TypeError, ValueError):
        return len(repr(value))


def message_size(kind: str, content: dict) -> int:
    """Characters an output message would add to the notebook."""
    if kind == "stream":
        return _size(content.get("text", ""))
    if kind == "error":
        return _size(content.get("evalue", "")) + sum(map(_size, content.get("traceback", [])))
    return sum(map(_size, (content.get("data") or {}).values())) + _size(content.get("metadata", {}))


def shorten_error(content: dict, chars: int = ERROR_CHARS) -> dict:
    """The error with its value and traceback cut to about ``chars`` characters."""
    tb = [str(line)[: chars // 4] for line in list(content.get("traceback", []))[:3]]
    return {**content, "evalue": str(content.get("evalue", ""))[:chars // 2],
            "traceback": [*tb, "... (traceback cut by the grader)"]}


class OutputCaps:
    """The byte budgets of one notebook's run.

    Parameters
    ----------
    cell_bytes, notebook_bytes : int
        Caps on the outputs of each cell and of the whole notebook.
    probe_bytes, probe_notebook_bytes : int
        Caps on each probe result and on all of them together.
    """

    def __init__(self, cell_bytes: int, notebook_bytes: int, probe_bytes: int = PROBE_BYTES,
                 probe_notebook_bytes: int = PROBE_NOTEBOOK_BYTES):
        self.cell_bytes, self.notebook_bytes = cell_bytes, notebook_bytes
        self.probe_bytes, self.probe_notebook_bytes = probe_bytes, probe_notebook_bytes
        self.used_probes = 0
        self.used_notebook = 0
        self.used_cell: dict[int, int] = {}
        self.probes: dict[int, set] = {}
        self.noted: set[int] = set()
        self.errors_over: set[int] = set()

    def left(self, cell_index: int) -> int:
        """Characters the cell may still output."""
        return max(0, min(self.cell_bytes - self.used_cell.get(cell_index, 0),
                          self.notebook_bytes - self.used_notebook))

    def _charge(self, cell_index: int, size: int) -> None:
        self.used_cell[cell_index] = self.used_cell.get(cell_index, 0) + size
        self.used_notebook += size

    def _note(self, cell_index: int) -> str:
        if self.cell_bytes - self.used_cell.get(cell_index, 0) <= self.notebook_bytes - self.used_notebook:
            return NOTE.format(what="this cell's output", limit=_mb(self.cell_bytes))
        return NOTE.format(what="the notebook's output", limit=_mb(self.notebook_bytes))

    def keep_probe(self, cell_index: int, content: dict, planned) -> bool:
        """Whether a probe result is the first of a planned grading call, within its cap."""
        payload = (content.get("data") or {}).get(kpca_probe.MIME)
        if not isinstance(payload, dict):
            return False
        key = (payload.get("kind"), payload.get("name"))
        seen = self.probes.setdefault(cell_index, set())
        if key in seen or key not in planned:
            return False
        seen.add(key)  # only the first counts, kept or not: a later one is never read
        size = message_size("display_data", content)
        if size > self.probe_bytes or self.used_probes + size > self.probe_notebook_bytes:
            return False
        self.used_probes += size
        return True

    def admit(self, cell_index: int, kind: str, content: dict, planned=()):
        """``(content to store or None, note or "")`` for one output message of a cell.

        ``planned`` holds the ``(kind, name)`` grading calls of the cell (empty for a cell
        that is not a test cell).
        """
        data = content.get("data") or {}
        if kind in ("display_data", "execute_result") and kpca_probe.MIME in data:
            # kept uncharged, or dropped: the judge reads no other probe result
            return (content if self.keep_probe(cell_index, content, planned) else None), ""
        size = message_size(kind, content)
        left = self.left(cell_index)
        if size <= left:
            self._charge(cell_index, size)
            return content, ""
        note = "" if cell_index in self.noted else self._note(cell_index)
        self.noted.add(cell_index)
        kept = None
        if kind == "error" and cell_index not in self.errors_over:  # one: it zeroes a test cell
            self.errors_over.add(cell_index)
            kept = shorten_error(content)
        elif kind == "stream" and left > 0:
            kept = {**content, "text": str(content.get("text", ""))[:left]}
        self._charge(cell_index, left)
        return kept, note


#: Largest single message the grader reads from a kernel (more than any cap above).
MESSAGE_BYTES = 12 << 20


def capped_client(max_message_bytes: int):
    """A kernel client class whose sockets never read a message over ``max_message_bytes``.

    ZeroMQ checks the size before reading the message (``ZMQ_MAXMSGSIZE``) and drops the
    connection of a peer that sends a bigger one; it reconnects at once, and whatever the
    kernel sent meanwhile is lost. So a single huge output (one long ``print``) never
    enters the grader's memory; it costs only the flooding notebook its own results.
    """
    import zmq
    import zmq.asyncio
    from jupyter_client.asynchronous import AsyncKernelClient

    class CappedKernelClient(AsyncKernelClient):
        def _context_default(self):
            self._created_context = True
            context = zmq.asyncio.Context()
            context.setsockopt(zmq.MAXMSGSIZE, int(max_message_bytes))
            return context

    return CappedKernelClient
