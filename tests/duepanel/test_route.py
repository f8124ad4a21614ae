"""The Assignments panel's route (:mod:`kit.duepanel.route`): what a student's own browser
may ask of it, and what it makes of the check service's replies.

The browser sends problem-set names only: forged, too many or hostile names are refused
with a line; the check service is asked with the server's own hub token and the name,
nothing the browser sent besides; a burst asks it once, a flood of names at most
``UPSTREAM_PER_MINUTE`` times a minute; a slow, absent or broken service gives the panel
"cannot say right now" within the timeout; its refusals show nothing; markup in a reason
stays text, control characters go.
"""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from kit.duepanel import route
from kit.duepanel.route import UNAVAILABLE, DueForwarder, checked_names, entry_of
from tests.support import aio

PS = "ps1_circle_lift"
URL = "http://127.0.0.1:9/services/kpca-check/"
REASON = '<img src=x onerror="window.__pwned=1">travel'
LINE = (f"Your due date for {PS}: 2026-12-13 17:00 Europe/Berlin (an extension of 2 days: "
        f"{REASON}). Late: 0.1 of the score per day.")


def due_reply(message: str = LINE, **more) -> bytes:
    return json.dumps({"verdict": "due", "message": message, "due": "2026-12-13T16:00:00+00:00",
                       "extended": True, "exempt": False, **more}).encode()


class Upstream:
    """A stand-in for the check service: records each question, answers with ``answer``."""

    def __init__(self, answer=None, delay: float = 0.0):
        self.asked: list[tuple[str, dict, dict]] = []
        self.answer = answer or (lambda ps: (200, due_reply(LINE.replace(PS, ps))))
        self.delay = delay

    async def __call__(self, url, body, headers, timeout):
        self.asked.append((url, json.loads(body), dict(headers)))
        await asyncio.sleep(self.delay)
        return self.answer(json.loads(body)["problem_set"])


def run(coro):
    return aio.run(coro)


@pytest.mark.parametrize(("names", "said"), [
    ([], "got none"),
    ([f"ps{i}" for i in range(17)], "at most 16 problem sets at once, got 17"),
    (["<img src=x onerror=alert(1)>"], "got '<img src=x onerror=alert(1)>'"),
    (["../../hub/api/users"], "got '../../hub/api/users'"),
    (["ps1 circle"], "got 'ps1 circle'"),
    (["ps1\x1b[31m"], "got 'ps1\\x1b[31m'"),
    (["psé"], "got 'psé'"),
    (["p" * 65], "(at most 64)"),
])
def test_names_a_student_cannot_ask(names, said):
    with pytest.raises(ValueError, match="^(name the problem sets|at most|a problem set's)") as no:
        checked_names(names)
    assert said in str(no.value), str(no.value)
    assert "\x1b" not in str(no.value)


def test_names_are_asked_once_each_in_order():
    assert checked_names(["ps2_x", PS, "ps2_x"]) == ["ps2_x", PS]


def test_the_service_is_asked_with_the_servers_token_and_the_name_only():
    up = Upstream()
    found = run(DueForwarder(URL, "server-token", "kernel_pca", post=up).entries([PS]))
    assert up.asked == [(URL + "due", {"problem_set": PS},
                         {"Authorization": "token server-token",
                          "Content-Type": "application/json"})]
    assert found[PS] == {"state": "due", "due": "2026-12-13T16:00:00+00:00", "extended": True,
                         "exempt": False, "shown": LINE.replace(f"Your due date for {PS}: ",
                                                                "Your due date: ")}


def test_a_reason_keeps_its_markup_as_text_and_loses_control_characters():
    hostile = LINE.replace("travel", "travel\x1b[2J\u202eevil\r\nmore")
    shown = entry_of(PS, 200, due_reply(hostile))["shown"]
    assert REASON.replace("travel", "travel") in shown  # text: the panel writes textContent
    assert not any(c in shown for c in "\x1b\u202e\r\n"), repr(shown)
    assert shown.startswith("Your due date: 2026-12-13 17:00 Europe/Berlin")
    assert len(entry_of(PS, 200, due_reply("x" * 10_000))["shown"]) <= 400


def test_no_due_date_and_exemption_read_as_the_service_says():
    assert entry_of(PS, 200, due_reply(f"{PS} has no due date yet."))["shown"] == \
        "No due date yet."
    exempt = f"You are exempt from {PS}'s due date (ill)."
    assert entry_of(PS, 200, due_reply(exempt, exempt=True))["shown"] == exempt


@pytest.mark.parametrize(("status", "state"), [(401, "refused"), (403, "refused"),
                                               (400, "refused"), (404, "unknown")])
def test_a_refusal_shows_nothing(status, state):
    """Not a student of the course (a TA's server), no hub login, another course's problem
    set: the row stays as nbgrader drew it."""
    body = json.dumps({"verdict": "refused", "message": "there is no such problem set"})
    entry = entry_of(PS, status, body.encode())
    assert (entry["state"], entry["shown"]) == (state, None)


@pytest.mark.parametrize(("status", "body"), [
    (503, b'{"verdict": "refused", "message": "the calendar cannot be read"}'),
    (429, b'{"verdict": "refused", "message": "too many requests in a minute"}'),
    (502, b"<html>Bad Gateway</html>"),
    (599, b""),
    (200, b"[1, 2]"),
    (200, b'{"verdict": "right", "message": "not a due date"}'),
    (200, b'{"verdict": "due", "message": 7}'),
    (200, b"[" * 100_000),
    (200, due_reply(LINE) + b" " * (1 << 20) + b"x"),
])
def test_a_broken_or_busy_service_reads_cannot_say_right_now(status, body):
    assert entry_of(PS, status, body) == {"state": "unavailable", "shown": UNAVAILABLE,
                                          "due": None, "extended": False, "exempt": False}


def test_a_slow_service_costs_the_panel_at_most_the_timeout(monkeypatch):
    monkeypatch.setattr(route, "UPSTREAM_SECONDS", 0.2)
    up = Upstream(delay=30)
    started = time.monotonic()
    found = run(DueForwarder(URL, "t", post=up).entries([PS, "ps2_x"]))
    assert time.monotonic() - started < 3
    assert {ps: e["shown"] for ps, e in found.items()} == {PS: UNAVAILABLE, "ps2_x": UNAVAILABLE}


@pytest.mark.parametrize("error", [ConnectionRefusedError(111, "refused"), RuntimeError("bug")])
def test_an_absent_service_reads_cannot_say_right_now(error):
    async def post(*args):
        raise error

    assert run(DueForwarder(URL, "t", post=post).entry(PS))["shown"] == UNAVAILABLE


def test_a_burst_asks_the_service_once_and_a_later_refresh_again():
    clock = [1000.0]
    up = Upstream(delay=0.05)
    forwarder = DueForwarder(URL, "t", post=up, clock=lambda: clock[0])

    async def burst():
        return await asyncio.gather(*(forwarder.entries([PS]) for _ in range(25)))

    found = run(burst())
    assert len(up.asked) == 1 and all(f[PS]["state"] == "due" for f in found)
    run(forwarder.entries([PS]))
    assert len(up.asked) == 1  # still fresh
    clock[0] += route.FRESH_SECONDS + 1
    run(forwarder.entries([PS]))
    assert len(up.asked) == 2  # an extension granted since shows after a refresh


def test_a_flood_of_names_asks_the_service_a_bounded_number_of_times():
    clock = [1000.0]
    up = Upstream(answer=lambda ps: (404, b'{"verdict": "refused", "message": "no such"}'))
    forwarder = DueForwarder(URL, "t", post=up, clock=lambda: clock[0])
    names = [f"forged_{i}" for i in range(160)]
    found = {}
    for start in range(0, len(names), 16):
        found.update(run(forwarder.entries(checked_names(names[start:start + 16]))))
    assert len(up.asked) == route.UPSTREAM_PER_MINUTE
    assert sum(e["state"] == "unavailable" for e in found.values()) == 160 - len(up.asked)
    assert len(forwarder.known) <= route.MOST_REMEMBERED
    clock[0] += 61  # a minute later it asks again
    run(forwarder.entries([PS]))
    assert len(up.asked) == route.UPSTREAM_PER_MINUTE + 1
