"""``POST <prefix>check``: one check of one exact answer, from the token to the verdict.

The order of the gates, each a JSON refusal that uses no attempt, and why each check
settles its reservation on every path, are in :mod:`kit.checks.service`'s docstring.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
import unicodedata
from collections import deque

from tornado import ioloop, web

from kit.checks.access import HubDown, refusal
from kit.checks.judging import MAX_BODY, Outcome, read_answer
from kit.checks.policy import item_problem_set
from kpca_ref.variants import current_name

__all__ = ["DRAIN_BODY", "CheckHandler", "JsonErrors", "clean"]

#: largest body the service reads to its end (beyond MAX_BODY it is drained unread, so a
#: 413 reaches the client, through the hub's proxy too); larger: the connection is closed
DRAIN_BODY = 64 << 20
#: how long after a failed write of a verdict it is written again (five times at most)
SETTLE_RETRY_SECONDS = 5.0
_LOG = logging.getLogger("kit.checks")
_ITEM_NAME = re.compile(r"[a-z0-9_]{1,100}")
_STATUS_WORDS = {400: "this request could not be read", 405: "checks are posted, not fetched",
                 413: "this request is too large to read"}


def clean(text: str, most: int = 400) -> str:
    """``text`` without control, format or unassigned characters (no terminal escapes, no
    bidi overrides), spaces collapsed, at most ``most`` characters."""
    kept = "".join(c if not unicodedata.category(c).startswith(("C", "Zl", "Zp")) else " "
                   for c in str(text))
    return " ".join(kept.split())[:most]


class JsonErrors(web.RequestHandler):
    """A handler whose every reply, tornado's own errors included, is JSON (no 500)."""

    def set_default_headers(self):
        self.set_header("Content-Type", "application/json")
        self.set_header("Cache-Control", "no-store")
        self.set_header("X-Content-Type-Options", "nosniff")

    def reply(self, status: int, verdict: str, message: str, left=None, counted=False, **more):
        body = json.dumps({"verdict": verdict, "message": clean(message),
                           "attempts_left": left, "counted": counted, **more})
        self.set_status(status)  # no markup in the bytes, whatever a message quotes
        self.finish(body.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))

    def write_error(self, status_code: int, **kwargs):
        status = 503 if status_code >= 500 else status_code
        self.reply(status, "refused", _STATUS_WORDS.get(status_code, "the check service "
                   "could not answer this check; no check was used: try again in a minute"))


def _checks_left(n: int) -> str:
    return f"{n} check{'s' if n != 1 else ''} left"


@web.stream_request_body
class CheckHandler(JsonErrors):
    """``POST <prefix>check``: one check of one exact answer."""

    def initialize(self, state):
        self.state = state

    def prepare(self):
        self.chunks, self.size = [], 0
        length = self.request.headers.get("Content-Length", "")
        if length.isdigit() and int(length) > DRAIN_BODY:  # not worth reading: say so now
            self.too_large()

    def data_received(self, chunk: bytes):
        self.size += len(chunk)
        if self.size <= MAX_BODY:
            self.chunks.append(chunk)

    def too_large(self):
        self.reply(413, "refused", "this answer is too large to check (an exact answer is a "
                   "short expression): no check used")

    async def post(self):
        try:
            await self.check()
        except Exception:  # noqa: BLE001 - a bug or a broken database: a JSON reply, no 500
            _LOG.exception("kpca-check: a check failed")
            if not self._finished:
                self.reply(503, "refused", "the check service failed on this check; no "
                           "check was used: try again in a minute")

    async def hub_student(self, no_login: str, window: str = "recent",
                          too_many: str = "too many checks in a minute: wait a little") -> str | None:
        """The asking student, or None once refused: the hub token (``no_login`` when none
        came), the course's groups, then the per-minute limit counted in ``state[window]``
        (graded and practice checks share ``recent``; other requests keep their own)."""
        s = self.state
        scheme, _, token = self.request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() not in ("token", "bearer") or not token.strip():
            return self.reply(401, "refused", no_login)
        try:
            who = await s["identities"].user(token.strip())
        except HubDown:
            return self.reply(503, "refused", "the hub cannot say who you are right now; "
                              "try again in a minute")
        if who is None:
            return self.reply(403, "refused", "this hub token is not valid (log in to the "
                              "course's JupyterHub again)")
        why = refusal(who, s["service"], *s["policy"].groups())
        if why:
            return self.reply(403, "refused", why)
        now, recent = time.monotonic(), s.setdefault(window, {}).setdefault(who.name, deque())
        while recent and recent[0] < now - 60:
            recent.popleft()
        if len(recent) >= s["policy"].settings.per_minute:
            return self.reply(429, "refused", too_many)
        recent.append(now)
        return who.name

    async def check(self):
        s = self.state
        student = await self.hub_student("no hub login came with this check: checks work "
                                         "from a notebook on the course's JupyterHub")
        if student is None:
            return
        policy = s["policy"]
        if self.size > MAX_BODY:
            return self.too_large()
        try:
            body = json.loads(b"".join(self.chunks))
            item, data = body["item"], body["answer"]
            if not isinstance(item, str):
                raise TypeError
        except (ValueError, KeyError, TypeError, RecursionError):
            return self.reply(400, "refused", "this check could not be read: call "
                              "check(\"<item>\", answer) from your notebook")
        item = current_name(item)  # a notebook released before an item was renamed
        ps = item_problem_set(item)
        if ps is None:
            named = repr(item) if _ITEM_NAME.fullmatch(item) else "of that name"
            return self.reply(404, "refused", f"there is no exact item {named} to check: use "
                              "the name in the notebook, e.g. check(\"ps1_lift_point\", phi_Q)")
        limit, why = policy.limit(item)
        if limit == 0:
            return self.reply(403, "refused", why)
        from kit.term import checks_closed  # the student's own due date, extension included

        closed = checks_closed(policy.root, student, ps)
        if closed:
            return self.reply(403, "refused", closed)
        store = s["store"]
        _, problem = read_answer(data)
        if problem is not None:
            store.note(student, item, ps, "form")
            left = max(limit - store.used(student, item), 0)
            return self.reply(200, "form", f"not checked: {problem} (no check used; {left} "
                              "left)", left)
        if self.cooling(student):
            return
        if store.used(student, item) >= limit:
            return self.no_checks_left(item, limit)
        await self.judged(student, item, ps, data, limit)

    def cooling(self, student: str) -> bool:
        """Refuse (and say True) while ``student``'s checks pause after a costly one."""
        wait = self.state["cooling"].get(student, 0) - time.monotonic()
        if wait > 0:
            self.reply(429, "refused", f"your checks pause for {wait:.0f} s more: your last "
                       "answer cost the judge too much (no check used)")
        return wait > 0

    def no_checks_left(self, item: str, limit: int):
        self.reply(429, "refused", f"no checks left for {item} (you had {limit}); your answer "
                   "is still graded when you hand in", 0)

    async def judged(self, student: str, item: str, ps: str, data, limit: int):
        """Wait behind the student's earlier check and for a free judge, reserve, judge."""
        s, settings = self.state, self.state["policy"].settings
        queued = time.monotonic()
        lock = s["busy"].setdefault(student, asyncio.Lock())
        try:
            await asyncio.wait_for(lock.acquire(), settings.queue_seconds)
        except asyncio.TimeoutError:
            return self.reply(429, "refused", "your earlier check is still being judged: wait "
                              "for its answer (no check used)")
        try:
            if self.cooling(student):
                return
            waited = time.monotonic() - queued
            async with s["judges"].worker(student, max(settings.queue_seconds - waited, 0.1)
                                          ) as worker:
                if worker is None:
                    return self.reply(503, "refused", "every judge is busy right now: try "
                                      "again in a minute (no check used)")
                await self.reserved(worker, student, item, ps, data, limit,
                                    time.monotonic() - queued)
        finally:
            lock.release()

    async def reserved(self, worker, student, item, ps, data, limit, queued: float):
        s, settings = self.state, self.state["policy"].settings
        row, used = s["store"].reserve(student, item, ps, limit)
        if row is None:
            return self.no_checks_left(item, limit)
        outcome = Outcome("error", "the check service failed while judging")
        try:
            outcome = await s["judges"].judge(worker, item, student, data)
        finally:  # settled on every path: a verdict, or the slot given back
            self.settle(row, outcome.kind, outcome.code)
        times = {"judging_seconds": round(outcome.seconds, 3), "queued_seconds": round(queued, 3)}
        kind = outcome.kind
        if kind in ("right", "wrong", "mistake"):
            return self.reply(200, kind, f"{outcome.message} ({_checks_left(limit - used)})",
                              limit - used, True, **times)
        if kind == "form":
            left = limit - used + 1
            return self.reply(200, kind, f"{outcome.message} (no check used; {left} left)",
                              left, False, **times)
        if kind == "error":
            return self.reply(503, "error", f"not checked: {outcome.message}; no check was "
                              "used: try again in a minute", limit - used + 1, False, **times)
        pause = settings.cooldown_seconds
        s["cooling"][student] = time.monotonic() + pause
        if kind == "crash":
            return self.reply(200, "error", f"not checked: {outcome.message}; no check was "
                              f"used ({limit - used + 1} left), and your checks pause for "
                              f"{pause:g} s", limit - used + 1, False, **times)
        return self.reply(200, "timeout", f"not checked: {outcome.message}; simplify it (an "
                          "exact answer is a short expression). This used a check "
                          f"({_checks_left(limit - used)}), and your checks pause for "
                          f"{pause:g} s", limit - used, True, **times)

    def settle(self, row: int, kind: str, code, tries: int = 5) -> None:
        """Record ``kind`` for the reservation ``row`` (an unknown kind gives the slot
        back); a database that fails is asked again later, so no slot stays pending."""
        try:
            self.state["store"].finish(row, kind, code)
        except Exception:  # noqa: BLE001 - logged; retried from the loop
            _LOG.exception("kpca-check: attempt %s could not be settled", row)
            if tries > 1:
                ioloop.IOLoop.current().call_later(SETTLE_RETRY_SECONDS, self.settle, row, kind, code, tries - 1)
