"""The ``kpca-check`` JupyterHub service: instant checks of exact answers (tornado).

``POST <prefix>check`` with ``Authorization: token <the student's hub API token>`` and the
JSON body ``{"item": "ps1_lift_point", "answer": <wire format>}`` (what the numbers cell's
``check`` sends) answers ``{"verdict", "message", "attempts_left", "counted"}``.

Who is checking comes from the token only: the service asks the hub's ``/hub/api/user``
with it (answers kept :data:`TOKEN_SECONDS`); a user name anywhere in the body is never
read. The key is that user's, computed in a judging process (:mod:`kit.checks.judging`);
attempts are reserved in the course database before judging (:mod:`kit.checks.store`) and
limited by :mod:`kit.checks.policy`. Refusals (no or unknown token, unreadable request,
unknown item, closed problem set, too large, not exact) use no attempt; neither does a
judgement that could not finish.

Run by the hub (``make hub``, README) as ``python -m kit.checks.service``: it listens where
``JUPYTERHUB_SERVICE_URL`` says, under ``JUPYTERHUB_SERVICE_PREFIX``, and asks the hub at
``JUPYTERHUB_API_URL``; ``--port``/``--api-url``/``--course`` set them by hand. SIGINT or
SIGTERM (the hub's stop) ends it at once, with its judging processes; killed outright, those
leave on their own within a second or two.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import sys
import threading
import time
from collections import defaultdict, deque
from pathlib import Path
from urllib.parse import urlsplit

from tornado import httpclient, ioloop, web

from kit.checks.judging import MAX_BODY, Judges, read_answer
from kit.checks.policy import Policy, item_problem_set
from kit.checks.store import Store

__all__ = ["TOKEN_SECONDS", "main", "make_app"]

#: how long the hub's answer about a token is kept (a refused token: a tenth of it)
TOKEN_SECONDS = 60.0


class HubDown(Exception):
    """The hub could not be asked who a token belongs to."""


class Identities:
    """Who a hub token belongs to, asked of the hub's API and kept for a short while."""

    def __init__(self, api_url: str):
        self.api_url = api_url.rstrip("/")
        self.known: dict[str, tuple[str | None, float]] = {}

    async def user(self, token: str) -> str | None:
        key = hashlib.sha256(token.encode()).hexdigest()  # no token kept in memory as such
        found = self.known.get(key)
        if found and found[1] > time.monotonic():
            return found[0]
        try:
            reply = await httpclient.AsyncHTTPClient().fetch(
                f"{self.api_url}/user", headers={"Authorization": f"token {token}"},
                request_timeout=5, raise_error=False)
        except OSError as exc:
            raise HubDown(str(exc)) from exc
        if reply.code in (401, 403, 404):
            name = None
        elif reply.code == 200:
            name = json.loads(reply.body).get("name")
            name = name if isinstance(name, str) and name else None
        else:
            raise HubDown(f"the hub answered {reply.code}")
        if len(self.known) > 10_000:
            self.known.clear()
        self.known[key] = (name, time.monotonic() + (TOKEN_SECONDS if name else TOKEN_SECONDS / 10))
        return name


class CheckHandler(web.RequestHandler):
    """``POST <prefix>check``: one check of one exact answer."""

    def initialize(self, state):
        self.state = state

    def reply(self, status: int, verdict: str, message: str, left=None, counted=False):
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.set_header("Cache-Control", "no-store")
        self.finish(json.dumps({"verdict": verdict, "message": message,
                                "attempts_left": left, "counted": counted}))

    async def post(self):
        s = self.state
        auth = self.request.headers.get("Authorization", "")
        scheme, _, token = auth.partition(" ")
        if scheme.lower() not in ("token", "bearer") or not token.strip():
            return self.reply(401, "refused", "no hub login came with this check: checks work "
                              "from a notebook on the course's JupyterHub")
        try:
            student = await s["identities"].user(token.strip())
        except HubDown:
            return self.reply(503, "refused", "the hub cannot say who you are right now; "
                              "try again in a minute")
        if student is None:
            return self.reply(403, "refused", "this hub token is not valid (log in to the "
                              "course's JupyterHub again)")
        recent = s["recent"][student]
        now = time.monotonic()
        while recent and recent[0] < now - 60:
            recent.popleft()
        if len(recent) >= s["policy"].settings.per_minute:
            return self.reply(429, "refused", "too many checks in a minute: wait a little")
        recent.append(now)
        if len(self.request.body) > MAX_BODY:
            return self.reply(413, "refused", "this answer is too large to check (an exact "
                              "answer is a short expression)")
        try:
            body = json.loads(self.request.body)
            item, data = body["item"], body["answer"]
            if not isinstance(item, str):
                raise TypeError
        except (ValueError, KeyError, TypeError, RecursionError):
            return self.reply(400, "refused", "this check could not be read: call "
                              "check(\"<item>\", answer) from your notebook")
        ps = item_problem_set(item)
        if ps is None:
            return self.reply(404, "refused", f"there is no exact item {item[:100]!r} to "
                              "check: use the name in the notebook, e.g. check(\"ps1_lift_point\", "
                              "phi_Q)")
        limit, why = s["policy"].limit(item)
        if limit == 0:
            return self.reply(403, "refused", why)
        _, problem = read_answer(data)
        if problem is not None:
            s["store"].note(student, item, ps, "form")
            left = limit - s["store"].used(student, item)
            return self.reply(200, "form", f"not checked: {problem} (no check used; "
                              f"{max(left, 0)} left)", max(left, 0))
        row, used = s["store"].reserve(student, item, ps, limit)
        if row is None:
            return self.reply(429, "refused", f"no checks left for {item} (you had {limit}); "
                              "your answer is still graded when you hand in", 0)
        kind, message, code = await s["judges"].judge(item, student, data)
        s["store"].finish(row, kind, code)
        counted = kind in ("right", "wrong", "mistake")
        left = limit - (used if counted else used - 1)
        note = f"{left} check{'s' if left != 1 else ''} left" if counted else (
            f"no check used; {left} left")
        return self.reply(200, kind, f"{message} ({note})", left, counted)


class HealthHandler(web.RequestHandler):
    def get(self):
        self.finish({"ok": True})


def make_app(course: Path, api_url: str, prefix: str = "/services/kpca-check/",
             overrides: dict | None = None) -> web.Application:
    """The service's tornado application for the course at ``course``."""
    policy = Policy(course, overrides)
    settings = policy.settings
    state = {"policy": policy, "store": Store(policy.db_url), "identities": Identities(api_url),
             "judges": Judges(settings.workers, settings.judge_seconds),
             "recent": defaultdict(deque)}
    prefix = "/" + prefix.strip("/") + "/"
    app = web.Application([(prefix + "check", CheckHandler, {"state": state}),
                           (prefix + "health", HealthHandler)])
    app.kpca_state = state
    return app


def _warm_limits(policy: Policy) -> None:
    """Each item's default limit once, beside the loop (a key per problem set: seconds)."""
    from kit.checks.policy import default_limit
    from kpca_ref import variants

    for ps in variants.PROBLEM_SETS:
        for item in getattr(variants.module(ps), "ITEMS", {}):
            default_limit(item, policy.settings.attempts)


def main(argv=None) -> int:
    from kit.course import REPO_ROOT

    parser = argparse.ArgumentParser(prog="python -m kit.checks.service",
                                     description=__doc__.split("\n\n")[0])
    service = urlsplit(os.environ.get("JUPYTERHUB_SERVICE_URL", "http://127.0.0.1:10101"))
    parser.add_argument("--ip", default=service.hostname or "127.0.0.1")
    parser.add_argument("--port", type=int, default=service.port or 10101)
    parser.add_argument("--api-url", default=os.environ.get("JUPYTERHUB_API_URL",
                                                            "http://127.0.0.1:8081/hub/api"))
    parser.add_argument("--prefix", default=os.environ.get("JUPYTERHUB_SERVICE_PREFIX",
                                                           "/services/kpca-check/"))
    parser.add_argument("--course", type=Path, default=Path(os.environ.get(
        "KPCA_COURSE_DIR", REPO_ROOT)))
    args = parser.parse_args(argv)
    app = make_app(args.course, args.api_url, args.prefix)
    app.listen(args.port, args.ip, max_body_size=4 * MAX_BODY)
    print(f"kpca-check: http://{args.ip}:{args.port}{args.prefix} (course {args.course}, "
          f"attempts in {Policy(args.course).db_url.split('@')[-1]})", flush=True)
    loop = ioloop.IOLoop.current()
    # a daemon thread: a stop does not wait for it
    threading.Thread(target=_warm_limits, args=(app.kpca_state["policy"],), daemon=True).start()
    # The hub stops its services with SIGINT, then SIGTERM, then SIGKILL. The handlers go
    # through the event loop, which they wake: a plain signal.signal handler may run only
    # at the next request (the signal can land on another thread while the loop sleeps), so
    # the hub killed the service and its judging processes were left behind.
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.asyncio_loop.add_signal_handler(sig, loop.stop)
    loop.start()
    app.kpca_state["judges"].close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
