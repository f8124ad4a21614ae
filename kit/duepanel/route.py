"""``GET <base_url>kpca/due?ps=...``: the Assignments panel's due dates, from the student's
own Jupyter server.

The panel's plugin (``labextension/``) asks its own server for the problem sets its rows
name; :class:`DueForwarder` asks the check service's ``POST <prefix>due``
(:mod:`kit.checks.due`) for each, with the server's own hub token
(``JUPYTERHUB_API_TOKEN``): the service learns who asks from that token alone, so the
date is always the server's owner's. The browser sends names, nothing else: no student,
no token. Off the hub (no token or no ``KPCA_CHECK_URL``) the route says so and asks
nothing; a slow or absent check service costs at most :data:`UPSTREAM_SECONDS`, after
which the problem set reads "unavailable".
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import unicodedata
from collections import OrderedDict, deque

from jupyter_server.base.handlers import APIHandler
from tornado import web

__all__ = ["DueForwarder", "DueRoute", "checked_names", "entry_of"]

#: a problem set's name as the route accepts it (nbgrader's ids of this course match)
NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: most problem sets one request may name (the course has seven)
MOST_NAMES = 16
#: how long one question to the check service may take, connecting included
UPSTREAM_SECONDS = 5.0
#: how long an answer is reused: a panel refreshed in a burst asks the service once
FRESH_SECONDS = 10.0
#: most questions to the check service per minute (the rest read "unavailable"), and most
#: problem sets remembered
UPSTREAM_PER_MINUTE = 20
MOST_REMEMBERED = 64
#: largest reply of the check service read
MAX_REPLY = 64 << 10
#: what the panel shows when the service cannot say
UNAVAILABLE = ("Your due date: the course's hub cannot say right now (refresh the list "
               "in a minute).")
OFF_HUB = "due dates show in this panel on the course's JupyterHub only"


def clean(text: str, most: int = 400) -> str:
    """``text`` without control or format characters, spaces collapsed, at most ``most``."""
    kept = "".join(" " if unicodedata.category(c).startswith(("C", "Zl", "Zp")) else c
                   for c in str(text))
    return " ".join(kept.split())[:most]


def checked_names(names: list[str]) -> list[str]:
    """The distinct problem-set names of a request, in order; ``ValueError`` naming what is
    wrong (none, too many, or a name that is not a problem set's)."""
    distinct = list(dict.fromkeys(names))
    if not distinct:
        raise ValueError("name the problem sets: ?ps=<problem set>, got none")
    if len(distinct) > MOST_NAMES:
        raise ValueError(f"at most {MOST_NAMES} problem sets at once, got {len(distinct)}")
    for name in distinct:
        if not NAME.fullmatch(name):
            raise ValueError("a problem set's name is letters, digits, '_' and '-' (at most "
                             f"64), got {clean(repr(name), 80)}")
    return distinct


def entry_of(ps: str, status: int, body: bytes) -> dict:
    """What the panel gets for ``ps`` from the check service's reply (``status``, ``body``):
    ``state`` (``due``, ``unknown``: not the course's, ``refused``: not a student of it,
    ``unavailable``) and ``shown``, the line to show (None: nothing)."""
    entry = {"state": "unavailable", "shown": UNAVAILABLE, "due": None, "extended": False,
             "exempt": False}
    try:
        reply = json.loads(body) if len(body) <= MAX_REPLY else None
    except (ValueError, RecursionError):
        reply = None
    if not isinstance(reply, dict):
        return entry
    if status in (401, 403, 400):
        return {**entry, "state": "refused", "shown": None}
    if status == 404:
        return {**entry, "state": "unknown", "shown": None}
    message = reply.get("message")
    if status != 200 or reply.get("verdict") != "due" or not isinstance(message, str):
        return entry
    line = clean(message)
    for said, shown in ((f"Your due date for {ps}: ", "Your due date: "),
                        (f"{ps} has no due date yet.", "No due date yet.")):
        if line.startswith(said):
            line = shown + line[len(said):]
    due = reply.get("due")
    return {"state": "due", "shown": line or None,
            "due": clean(due, 64) if isinstance(due, str) else None,
            "extended": reply.get("extended") is True, "exempt": reply.get("exempt") is True}


async def tornado_post(url: str, body: bytes, headers: dict, timeout: float) -> tuple[int, bytes]:
    """POST with tornado's client: (status, body); 599 when nothing came in ``timeout``."""
    from tornado.httpclient import AsyncHTTPClient, HTTPRequest

    client = AsyncHTTPClient(force_instance=True, max_body_size=MAX_REPLY)
    try:
        reply = await client.fetch(HTTPRequest(
            url, method="POST", body=body, headers=headers, follow_redirects=False,
            connect_timeout=timeout, request_timeout=timeout), raise_error=False)
        return reply.code, reply.body or b""
    finally:
        client.close()


class DueForwarder:
    """Asks the check service for the server's owner's due dates, one problem set at a
    time, each answer reused for :data:`FRESH_SECONDS` and one question in flight per name.

    Parameters
    ----------
    url : str
        The check service's prefix (``KPCA_CHECK_URL``).
    token : str
        The server's hub token (``JUPYTERHUB_API_TOKEN``).
    course : str or None
        The course whose rows the panel marks (``KPCA_COURSE_ID``; None: every row).
    post : coroutine function, optional
        ``post(url, body, headers, timeout) -> (status, body)`` (tests give their own).
    clock : callable, optional
        Seconds, monotonic.
    """

    def __init__(self, url: str, token: str, course: str | None = None, post=tornado_post,
                 clock=time.monotonic):
        self.url, self.token, self.course = url.rstrip("/") + "/due", token, course
        self.post, self.clock = post, clock
        self.known: OrderedDict[str, tuple[float, dict]] = OrderedDict()
        self.asking: dict[str, asyncio.Future] = {}
        self.asked: deque[float] = deque()

    async def entries(self, names: list[str]) -> dict:
        """``{ps: entry}`` for checked names (:func:`checked_names`)."""
        found = await asyncio.gather(*(self.entry(ps) for ps in names))
        return dict(zip(names, found))

    async def entry(self, ps: str) -> dict:
        now = self.clock()
        kept = self.known.get(ps)
        if kept and now - kept[0] < FRESH_SECONDS:
            return kept[1]
        if ps not in self.asking:
            self.asking[ps] = asyncio.ensure_future(self._ask(ps))
        return await asyncio.shield(self.asking[ps])

    async def _ask(self, ps: str) -> dict:
        try:
            return await self._asked(ps)
        finally:
            self.asking.pop(ps, None)

    async def _asked(self, ps: str) -> dict:
        now = self.clock()
        while self.asked and self.asked[0] < now - 60:
            self.asked.popleft()
        if len(self.asked) >= UPSTREAM_PER_MINUTE:
            return entry_of(ps, 429, b"{}")  # not remembered: asked again once the minute passes
        self.asked.append(now)
        try:
            status, body = await asyncio.wait_for(self.post(
                self.url, json.dumps({"problem_set": ps}).encode(),
                {"Authorization": f"token {self.token}", "Content-Type": "application/json"},
                UPSTREAM_SECONDS), UPSTREAM_SECONDS + 1)
        except Exception:  # noqa: BLE001 - whatever the client raises, the panel gets a line
            status, body = 599, b""
        entry = entry_of(ps, status, body)
        self.known[ps] = (self.clock(), entry)
        self.known.move_to_end(ps)
        while len(self.known) > MOST_REMEMBERED:
            self.known.popitem(last=False)
        return entry


class DueRoute(APIHandler):
    """``GET <base_url>kpca/due?ps=<problem set>&ps=...``: the owner's due dates."""

    @web.authenticated
    async def get(self):
        forwarder = self.settings.get("kpca_due_forwarder")
        self.set_header("Cache-Control", "no-store")
        if forwarder is None:  # a plain answer: the browser's console stays quiet off the hub
            return self.finish({"off_hub": True, "message": OFF_HUB})
        try:
            names = checked_names(self.get_query_arguments("ps", strip=False))
        except ValueError as exc:
            self.set_status(400)
            return self.finish({"message": f"ValueError: {exc}"})
        self.finish({"course": forwarder.course, "due": await forwarder.entries(names)})
