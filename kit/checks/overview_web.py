"""``GET <prefix>overview/``: the logged-in student's own overview, behind the hub's login.

The check service (:mod:`kit.checks.service`) serves, under its prefix on the hub:

* ``overview/``: the page of :func:`kit.checks.overview_page.render` for the student the
  hub says is logged in, and nobody else: there is no student in the address, and no query
  argument, header or body is read for one;
* ``overview/feedback/<ps>`` and ``overview/solutions/<ps>``: her own course feedback page
  of ``<ps>`` (a problem set of the course) once released, and her worked solutions once her
  own due date has passed (:func:`kit.checks.overview.her_page`); served under a sandbox policy (an opaque origin: even a script
  left in a page could not act with the hub's cookies);
* ``oauth_callback``: the end of the hub's OAuth login (JupyterHub's own handler).

Who: the hub's OAuth (:class:`jupyterhub.services.auth.HubOAuth`): the browser's signed
cookie holds a hub token of this service, or a request brings one (``Authorization``); the
hub answers who it belongs to. No login: a redirect to the hub's login. A forged or
altered cookie is no login. Only a student of the course (one of the students' groups, no
staff group, :meth:`kit.checks.policy.Policy.groups`) with access to this service gets a
page; anyone else a 403 page saying why.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os

from tornado import web

from kit.checks.overview import exchange_of, her_page, overview, student_folder
from kit.checks.overview_page import CSP, render
from kit.course import ASSIGNMENTS
from kit.html.escape import text

__all__ = ["MAX_PAGE", "hub_oauth", "routes"]

_LOG = logging.getLogger("kit.checks")
#: the largest feedback or solution page served (a page with its plots is a few MB)
MAX_PAGE = 64 << 20
#: how a course page (feedback, solutions) is served: an opaque origin, nothing submitted
PAGE_CSP = "sandbox allow-scripts allow-popups; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"


def hub_oauth(api_url: str, prefix: str, service: str):
    """The service's :class:`~jupyterhub.services.auth.HubOAuth` from the environment the
    hub gives a managed service (``JUPYTERHUB_API_TOKEN``, ``JUPYTERHUB_CLIENT_ID``, ...);
    None when the service runs without a hub (no token): the overview then says so."""
    token = os.environ.get("JUPYTERHUB_API_TOKEN", "")
    if not token or HubOAuthenticated is None:
        return None
    from jupyterhub.services.auth import HubOAuth

    scopes = os.environ.get("JUPYTERHUB_OAUTH_ACCESS_SCOPES")
    return HubOAuth(api_url=api_url, api_token=token, base_url=prefix, cache_max_age=60,
                    allow_token_in_url=False,  # a link carrying a token logs nobody in
                    oauth_client_id=os.environ.get("JUPYTERHUB_CLIENT_ID") or f"service-{service}",
                    **({} if scopes else {"access_scopes": {f"access:services!service={service}"}}))


def _page(title: str, message: str) -> str:
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{text(title)}'
            f"</title></head><body><main><h1>{text(title)}</h1><p>{text(message)}</p></main>"
            "</body></html>")


try:  # JupyterHub is the hub extra; without it the overview answers 503
    from jupyterhub.services.auth import HubOAuthCallbackHandler, HubOAuthenticated, UserNotAllowed
except ImportError:  # pragma: no cover - the kit's test extra installs it
    HubOAuthCallbackHandler = HubOAuthenticated = None

    class UserNotAllowed(Exception):
        pass


_BASES = (HubOAuthenticated, web.RequestHandler) if HubOAuthenticated else (web.RequestHandler,)


class _Base(*_BASES):
    """A page behind the hub's login, for the course's students only."""

    def initialize(self, state):
        self.state = state
        if state.get("hub_auth") is not None:
            self.hub_auth = state["hub_auth"]

    def set_default_headers(self):
        self.set_header("Cache-Control", "no-store")
        self.set_header("X-Content-Type-Options", "nosniff")
        self.set_header("Referrer-Policy", "no-referrer")
        self.set_header("Content-Security-Policy", CSP)

    def say(self, status: int, title: str, message: str) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(_page(title, message))

    def write_error(self, status_code: int, **kwargs):
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(_page("Not available", "this page could not be shown; try again in a minute"))

    async def student(self) -> str | None:
        """The logged-in student's id, or None having answered (login, refusal)."""
        if self.state.get("hub_auth") is None:
            self.say(503, "Not available", "the overview needs the course's JupyterHub login")
            return None
        try:
            model = await self.hub_auth.get_user(self, sync=False)
        except Exception:  # noqa: BLE001 - the hub cannot be asked: no page, no traceback
            _LOG.exception("kpca-check: the hub could not say who is asking")
            self.say(503, "Not available", "the hub cannot say who you are right now; "
                     "try again in a minute")
            return None
        if not model:
            self.redirect(self.get_login_url())
            return None
        try:
            model = self.check_hub_user(model)
        except UserNotAllowed:
            model = None
        students, staff = self.state["policy"].groups()
        groups = set(model.get("groups") or []) if model else set()
        name = model.get("name") if model and model.get("kind", "user") == "user" else None
        if not isinstance(name, str) or not students or groups & set(staff) or not (
                groups & set(students)):
            self.say(403, "Not a student's login",
                     "the overview shows a student of the course their own problem sets; "
                     "this login is not a student's (TAs and instructors: use formgrader)")
            return None
        try:
            return student_folder(name)
        except ValueError:
            self.say(403, "Not a student's login", "this login's name cannot be a student id")
            return None


class OverviewHandler(_Base):
    """``GET <prefix>overview/``: her own overview."""

    async def get(self):
        who = await self.student()
        if who is None:
            return
        from kit.term import CalendarError
        from kit.term import now as term_now

        when = term_now()
        try:
            rows = await asyncio.get_running_loop().run_in_executor(None, functools.partial(
                overview, self.state["policy"].root, who, when, engine=self.state["store"].engine))
        except CalendarError:
            return self.say(503, "Not available", "the course calendar (term.json) cannot be "
                            "read right now: ask your instructor")
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(render(who, rows, when, lambda kind, ps: f"{kind}/{ps}"))


class CoursePageHandler(_Base):
    """``GET <prefix>overview/(feedback|solutions)/<ps>``: her own page of ``ps``."""

    async def get(self, kind: str, ps: str):
        who = await self.student()
        if who is None:
            return
        from kit.term import CalendarError, load
        from kit.term import now as term_now

        root = self.state["policy"].root
        try:
            due = load(root).due_for(who, ps) if ps in ASSIGNMENTS else None
            page = await asyncio.get_running_loop().run_in_executor(None, functools.partial(
                her_page, root, kind, who, ps, due, term_now(), exchange_of(root)))
        except CalendarError:
            page = None
        if page is None:
            what = ps if ps in ASSIGNMENTS else "that problem set"
            return self.say(404, "Not available", f"there is no {kind} page of {what} for you yet")
        loop = asyncio.get_running_loop()
        try:
            fd = await loop.run_in_executor(None, os.open, page, os.O_RDONLY | os.O_NOFOLLOW)
            fh = os.fdopen(fd, "rb")
        except OSError:
            return self.say(404, "Not available", f"your {kind} page of {ps} cannot be shown")
        with fh:
            size = os.fstat(fh.fileno()).st_size
            if not 0 < size <= MAX_PAGE:
                return self.say(404, "Not available", f"your {kind} page of {ps} cannot be shown")
            self.set_header("Content-Security-Policy", PAGE_CSP)
            self.set_header("Content-Type", "text/html; charset=utf-8")
            sent = 0
            while sent < size:
                chunk = await loop.run_in_executor(None, fh.read, min(1 << 20, size - sent))
                if not chunk:
                    break
                sent += len(chunk)
                self.write(chunk)
                await self.flush()
        self.finish()


def routes(prefix: str, state: dict) -> list:
    """The overview's routes under ``prefix`` (with its trailing ``/``)."""
    out = [(prefix + "overview", web.RedirectHandler, {"url": prefix + "overview/"}),
           (prefix + "overview/", OverviewHandler, {"state": state}),
           (prefix + r"overview/(feedback|solutions)/([a-z0-9_]{1,100})", CoursePageHandler,
            {"state": state})]
    if HubOAuthCallbackHandler is not None and state.get("hub_auth") is not None:
        out.append((prefix + "oauth_callback", OAuthCallback, {"state": state}))
    return out


if HubOAuthCallbackHandler is not None:
    class OAuthCallback(HubOAuthCallbackHandler):
        """JupyterHub's end of the OAuth login, with this service's :class:`HubOAuth`."""

        def initialize(self, state):
            self.hub_auth = state["hub_auth"]
