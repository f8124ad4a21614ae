"""Who is checking, and whether they may: the hub says who a token belongs to, the course
says who may check.

:class:`Identities` asks the hub's ``/hub/api/user`` with the request's token (the answer
kept :data:`TOKEN_SECONDS`): the user's name, groups and the token's own scopes. A body's
user name is never read. :func:`refusal` then admits only a token that was granted access
to this service (``access:services!service=<name>``, which the hub gives the students'
role and, through ``Spawner.server_token_scopes``, their servers' tokens) held by a member
of one of the course's students' groups and of no staff group (:meth:`Policy.groups
<kit.checks.policy.Policy.groups>`): a TA's, an instructor's or a scope-less token is
refused, and nothing is recorded for it.
"""

from __future__ import annotations

import hashlib
import json
import time
from typing import NamedTuple

from tornado import httpclient

__all__ = ["TOKEN_SECONDS", "HubDown", "Identities", "Who", "group_members", "refusal"]

#: how long the hub's answer about a token is kept (a refused token: a tenth of it)
TOKEN_SECONDS = 60.0
#: answers kept of each kind (known tokens, refused ones): a flood of made-up tokens fills
#: the refused ones only, never pushing out the class's own
MAX_KEPT = 10_000


class HubDown(Exception):
    """The hub could not be asked who a token belongs to."""


class Who(NamedTuple):
    """A hub user as a token shows them: name, groups, and the token's scopes."""

    name: str
    groups: frozenset[str]
    scopes: frozenset[str]


def _who(model) -> Who | None:
    if not isinstance(model, dict) or model.get("kind", "user") != "user":
        return None  # a service's token, or no model at all
    name, groups, scopes = model.get("name"), model.get("groups"), model.get("scopes")
    if not isinstance(name, str) or not name or len(name) > 255:
        return None
    texts = (lambda v: frozenset(x for x in v if isinstance(x, str))
             if isinstance(v, list) else frozenset())
    return Who(name, texts(groups), texts(scopes))


class Identities:
    """Who a hub token belongs to, asked of the hub's API and kept for a short while."""

    def __init__(self, api_url: str):
        self.api_url = api_url.rstrip("/")
        self.known: dict[str, tuple[Who | None, float]] = {}  # tokens the hub knows
        self.refused: dict[str, tuple[Who | None, float]] = {}  # tokens it does not

    async def user(self, token: str) -> Who | None:
        """The token's user, or None when the hub does not know the token."""
        key = hashlib.sha256(token.encode()).hexdigest()  # no token kept in memory as such
        found = self.known.get(key) or self.refused.get(key)
        if found and found[1] > time.monotonic():
            return found[0]
        try:
            reply = await httpclient.AsyncHTTPClient().fetch(
                f"{self.api_url}/user", headers={"Authorization": f"token {token}"},
                request_timeout=5, raise_error=False)
        except (OSError, httpclient.HTTPError) as exc:
            raise HubDown(str(exc)) from exc
        if reply.code in (401, 403, 404):
            who = None
        elif reply.code == 200:
            try:
                who = _who(json.loads(reply.body))
            except ValueError as exc:
                raise HubDown("the hub's answer could not be read") from exc
        else:
            raise HubDown(f"the hub answered {reply.code}")
        kept = self.known if who else self.refused
        if len(kept) >= MAX_KEPT:
            kept.clear()
        kept[key] = (who, time.monotonic() + (TOKEN_SECONDS if who else TOKEN_SECONDS / 10))
        return who


def refusal(who: Who, service: str, students: list[str], staff: list[str]) -> str | None:
    """Why ``who`` may not check (None: they may). ``service`` is this service's hub name;
    ``students`` and ``staff`` are the course's groups."""
    if not students:
        return ("the check service knows no students' group (c.KpcaCheck.student_groups or "
                "the course id): ask your instructor")
    if who.groups & set(staff):
        return ("checks are for the course's students; you are in a staff group "
                f"({', '.join(sorted(who.groups & set(staff)))}): nothing was recorded")
    if not ({"access:services", f"access:services!service={service}"} & who.scopes):
        return ("this hub token was not given access to the check service: check from a "
                "notebook on your own server of the course's JupyterHub")
    if not who.groups & set(students):
        return ("checks are for the course's students (the hub group "
                f"{' or '.join(students)}), and you are not in it")
    return None


def group_members(groups, api_url: str | None = None, token: str | None = None) -> set[str]:
    """The users of the hub's ``groups`` (the course's students' groups), asked of the hub's
    API (default ``JUPYTERHUB_API_URL``) with the service's own token (default
    ``JUPYTERHUB_API_TOKEN``; its role holds ``read:groups`` of them): the class, those who
    never checked or handed in too. Empty without a hub, or when the hub does not say."""
    import os
    import urllib.parse
    import urllib.request

    api_url = api_url or os.environ.get("JUPYTERHUB_API_URL", "")
    token = token or os.environ.get("JUPYTERHUB_API_TOKEN", "")
    names: set[str] = set()
    if not api_url or not token:
        return names
    for group in groups:
        request = urllib.request.Request(
            f"{api_url.rstrip('/')}/groups/{urllib.parse.quote(group, safe='')}",
            headers={"Authorization": f"token {token}"})
        try:
            with urllib.request.urlopen(request, timeout=5) as reply:
                model = json.loads(reply.read(16 << 20))
        except (OSError, ValueError):
            continue
        users = model.get("users") if isinstance(model, dict) else None
        if isinstance(users, list):
            names |= {u for u in users if isinstance(u, str) and 0 < len(u) <= 255}
    return names
