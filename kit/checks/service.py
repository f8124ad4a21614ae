"""The ``kpca-check`` JupyterHub service: instant checks of exact answers (tornado).

``POST <prefix>check`` with ``Authorization: token <the student's hub API token>`` and the
JSON body ``{"item": "ps1_lift_point", "answer": <wire format>}`` (what the numbers cell's
``check`` sends) answers ``{"verdict", "message", "attempts_left", "counted"}``; a judged
check adds ``"judging_seconds"`` and ``"queued_seconds"``. Every answer, refusals and
failures included, is such a JSON reply (never an HTML error page, never a 500).

Who is checking comes from the token only (:mod:`kit.checks.access`: a student of the
course, never staff). In order, before anything is judged: the student's requests per
minute, the body's size (read up to :data:`~kit.checks.judging.MAX_BODY`, the rest drained
unread up to :data:`DRAIN_BODY`, then a 413), the item and its limit, the answer's size and
form (:func:`~kit.checks.judging.read_answer`), the student's cool-down; each refusal uses
no attempt. Then the check waits its turn: behind the same student's earlier check (one
judgement per student at a time) and for a free judge, at most ``queue_seconds``. Only then
is an attempt reserved (:mod:`kit.checks.store`), and the judgement runs in a judging
process that serves that check alone (:class:`~kit.checks.judges.Judges`) within
``judge_seconds`` of judging time. An
answer that runs out of time (or of memory) costs its sender: the attempt is spent and
their checks pause for ``cooldown_seconds``; nobody else's judgement is touched. On every
path out the reservation is settled or given back.

``GET <prefix>overview/`` is the logged-in student's own overview of the term, behind the
hub's login (:mod:`kit.checks.overview_web`).

Run by the hub (``make hub``, README) as ``python -m kit.checks.service``: it listens where
``JUPYTERHUB_SERVICE_URL`` says, under ``JUPYTERHUB_SERVICE_PREFIX``, and asks the hub at
``JUPYTERHUB_API_URL``; ``--port``/``--api-url``/``--course`` set them by hand. SIGINT or
SIGTERM (the hub's stop) ends it at once, with its judging processes; killed outright, those
leave on their own within seconds.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from pathlib import Path
from urllib.parse import urlsplit

from tornado import ioloop, web

from kit.checks.access import Identities
from kit.checks.due import DueHandler
from kit.checks.gate import DRAIN_BODY, CheckHandler, JsonErrors
from kit.checks.judges import Judges
from kit.checks.policy import Policy
from kit.checks.practice_gate import PracticeHandler
from kit.checks.store import Store

__all__ = ["DRAIN_BODY", "listen", "main", "make_app"]

class HealthHandler(JsonErrors):
    """``GET <prefix>health``: up, and whether the judges are warm."""

    def initialize(self, state):
        self.state = state

    def get(self):
        self.finish({"ok": True, "judges_ready": self.state["judges"].ready.is_set()})


class NotFound(JsonErrors):
    def prepare(self):
        self.reply(404, "refused", "no such page of the check service: checks are posted "
                   "to <prefix>check by check() in your notebook")


def make_app(course: Path, api_url: str, prefix: str = "/services/kpca-check/",
             overrides: dict | None = None, service: str | None = None,
             hub_auth=None) -> web.Application:
    """The service's tornado application for the course at ``course``; ``service`` is its
    name on the hub (default ``JUPYTERHUB_SERVICE_NAME``, else ``kpca-check``);
    ``hub_auth``: the students' overview's hub login (default
    :func:`kit.checks.overview_web.hub_oauth`, from the hub's environment)."""
    from kit.checks.overview_web import hub_oauth, routes

    policy = Policy(course, overrides)
    settings = policy.settings
    state = {"policy": policy, "store": Store(policy.db_url), "identities": Identities(api_url),
             "judges": Judges(settings.workers, settings.judge_seconds,
                              warm=settings.warm_judges),
             "service": service or os.environ.get("JUPYTERHUB_SERVICE_NAME", "kpca-check"),
             "recent": {}, "busy": {}, "cooling": {}}
    prefix = "/" + prefix.strip("/") + "/"
    state["hub_auth"] = hub_auth or hub_oauth(api_url, prefix, state["service"])
    app = web.Application([(prefix + "check", CheckHandler, {"state": state}),
                           (prefix + "health", HealthHandler, {"state": state}),
                           (prefix + "due", DueHandler, {"state": state}),
                           (prefix + "practice", PracticeHandler, {"state": state}),
                           *routes(prefix, state)],
                          default_handler_class=NotFound, cookie_secret=os.urandom(32))
    app.kpca_state = state
    return app


def listen(app: web.Application, port: int, ip: str = "127.0.0.1"):
    """Serve ``app`` on ``ip:port`` with the body limit its 413 needs (:data:`DRAIN_BODY`)."""
    return app.listen(port, ip, max_body_size=DRAIN_BODY)


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
    listen(app, args.port, args.ip)
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
