"""The kpca-check service under abuse: costly answers, crashes, floods, staff and stray tokens.

A slow answer here is a product of 14 factors ``1 + sqrt(p)`` (about 1.2 KB on the wire):
comparing it with a key takes the grader's ``simplify`` minutes, far over the judging limit
of :func:`abuse_service`. That limit is a few times what honest checks take on this machine
right now (measured first, at least 3 s: the machine may be loaded), and what a check costs
beyond its own judging there is measured too; the flood test measures it again just before
the flood, as the baseline of "delayed by the flood", and the tests wait for judgements to
start rather than for a fixed time.
Every reply must be JSON; none may be a 5xx but the service's own failure (503), and a
check that is refused or fails uses no attempt.
"""

from __future__ import annotations

import concurrent.futures as cf
import itertools
import json
import os
import signal
import sqlite3
import threading
import time

import pytest
import sympy as sp

from kit.checks import gate
from kpca_probe.wire import encode
from kpca_ref import variants
from tests.checks.conftest import start_service

with sp.evaluate(False):
    SLOW = encode(sp.Mul(*[sp.Add(1, sp.sqrt(p)) for p in list(sp.primerange(2, 50))[:14]]))
SCALARS = ["ps0_ball_ratio", "ps0_corner_length", "ps0_shell_fraction"]
RIGHTS = ["ps1_lift_point", "ps1_circle_u", "ps1_three_point_variances"]
SHAPE = {"item": "ps1_circle_u", "answer": encode(sp.Matrix([1, 2]))}  # judged, uses no check
#: the abuse service's per-minute limit of requests per student
PER_MINUTE = 1000


@pytest.fixture(scope="module")
def abuse_service(tmp_path_factory):
    service, stop = start_service(tmp_path_factory.mktemp("course"), {
        "judge_seconds": 30.0, "workers": 4, "per_minute": PER_MINUTE, "cooldown_seconds": 60.0,
        "queue_seconds": 30.0})
    done = [timed(service, right(item, "lu"), "tok-lu") for item in RIGHTS]
    done += [timed(service, SHAPE, "tok-lu") for _ in range(3)]
    assert [r["verdict"] for *_, r in done] == ["right"] * 3 + ["form"] * 3, done
    judging = max(r["judging_seconds"] for *_, r in done)
    service.overhead = max(end - start - r["judging_seconds"] for start, end, _, r in done)
    # the slow answers' judgements last this long: at least 6 s, so that one (the flood
    # test's window for an honest check from start to end) holds a whole check on a machine
    # as loaded as the suite makes it; a 1.5 s window was once outlasted there
    service.judge_seconds = min(max(6.0, 4 * judging), 20.0)
    service.app.kpca_state["judges"].seconds = service.judge_seconds
    yield service
    stop()


def rows(service, student: str) -> list[tuple]:
    with sqlite3.connect(service.db) as db:
        return db.execute("SELECT item, slot, verdict FROM kpca_check_attempts WHERE student = ?"
                          " ORDER BY id", (student,)).fetchall()


def pending(service) -> list[tuple]:
    with sqlite3.connect(service.db) as db:
        return db.execute("SELECT student, item FROM kpca_check_attempts WHERE verdict = "
                          "'pending'").fetchall()


def timed(service, body, token):
    start = time.monotonic()
    status, reply = service.post(body, token=token)
    return start, time.monotonic(), status, reply


def right(item: str, student: str) -> dict:
    return {"item": item, "answer": encode(variants.answer(item, student)[0])}


def delays(done) -> list[float]:
    """What each check of ``done`` (from :func:`timed`) cost beyond its own judging."""
    return [end - start - reply["judging_seconds"] for start, end, _, reply in done]


def judging_started(svc, deadline: float = 30.0) -> float:
    """Wait until one of the service's judges is judging; the time it was seen doing so."""
    judges, until = svc.app.kpca_state["judges"], time.monotonic() + deadline
    while not judges.running:
        assert time.monotonic() < until, "no judgement started"
        time.sleep(0.01)
    return time.monotonic()


def test_one_student_flooding_slow_answers_costs_only_that_student(abuse_service):
    svc, honest = abuse_service, ["hal", "ivy", "jo"]
    attack, attack_over = [], threading.Event()
    bodies = {name: [right(item, name) for item in RIGHTS] for name in honest}

    # the baseline: the same three checking side by side, as they will through the attack,
    # just before it (the machine's load now, and the cost of three checks at once)
    with cf.ThreadPoolExecutor(3) as pool:
        before = [check for done in pool.map(lambda name: [timed(svc, SHAPE, f"tok-{name}")
                                                            for _ in range(5)], honest)
                  for check in done]
    assert all(s == 200 and r["verdict"] == "form" for _, _, s, r in before), before
    quiet = delays(before)
    usual = max(svc.overhead, *quiet)
    # delayed by the flood: by more than two seconds, or (on a loaded machine) than double
    # what a check cost without it, and never by half the attacker's judgement; waiting for
    # it would cost up to all of it (one second over the baseline was once outlasted by a
    # right answer's check while the host took a third of the machine's time, CI on ae77643)
    bound = min(usual + max(2.0, usual), svc.judge_seconds / 2)

    def attacker():
        with cf.ThreadPoolExecutor(6) as pool:  # three rounds of six at once
            for _ in range(3):
                attack.extend(pool.map(lambda item: timed(svc, {"item": item, "answer": SLOW},
                                                          "tok-gus"), SCALARS * 2))
        attack_over.set()

    def relay(checks: dict) -> None:
        """The three check one after another, back to back, all through the attack, then
        each once more: one honest check is in flight at every moment of the attack, and
        each student stays under the fixture's per-minute limit (else she waits first)."""
        deadline, after = time.monotonic() + 120, set()
        for name in itertools.cycle(honest):
            if after == set(honest) or time.monotonic() > deadline:
                return
            done = checks[name]
            room = [start for start, *_ in done if start > time.monotonic() - 60]
            if len(room) >= PER_MINUTE - 15:  # the baseline's five, and the service counts
                # from a little later
                time.sleep(room[0] + 61 - time.monotonic())
            done.append(timed(svc, SHAPE, f"tok-{name}"))
            if attack_over.is_set():
                after.add(name)

    flood = threading.Thread(target=attacker)
    flood.start()
    seen = judging_started(svc)  # the attacker's first answer is being judged
    with cf.ThreadPoolExecutor(3) as pool:  # each her three right answers, side by side
        checks = dict(zip(honest, pool.map(
            lambda name: [timed(svc, body, f"tok-{name}") for body in bodies[name]], honest)))
    relay(checks)
    flood.join(120)
    assert attack_over.is_set()

    for name, done in checks.items():
        assert [r["verdict"] for _, _, _, r in done[:3]] == ["right"] * 3, (name, done[:3])
        assert all(s == 200 and r["verdict"] == "form" for _, _, s, r in done[3:]), done[3:]
        for delay, (*_, reply) in zip(delays(done), done):
            assert delay <= bound, (name, delay, bound, quiet, reply)
        assert sorted(r[1] for r in rows(svc, name) if r[1]) == [1, 1, 1]
    timeouts = [(end, r) for _, end, s, r in attack if r["verdict"] == "timeout"]
    assert len(timeouts) == 1, attack  # one costly judgement, then the pause
    killed_at, reply = timeouts[0]
    assert reply["counted"] and "used a check" in reply["message"] and "pause" in reply["message"]
    assert all(s == 429 and not r["counted"] for _, _, s, r in attack if r is not reply)
    # each of the three had a check judged from start to end while the attacker's judgement
    # was under way: none waited for it to end (with the delay bound above: none waited for
    # half of it). The first half alone was once too short on a host taking 20 to 60 % of the
    # machine's time, where a right answer's own judging outlasted it (CI on d1b6622)
    for name, done in checks.items():
        assert any(seen <= start and end < killed_at for start, end, _, _ in done), (
            name, seen, killed_at)
    under_way = [1 for done in checks.values() for start, end, _, _ in done
                 if start < killed_at - 0.2 < end]
    assert under_way, "no honest judgement was under way when the attacker's was killed"
    assert [(r[1], r[2]) for r in rows(svc, "gus")] == [(1, "timeout")]  # the attacker paid
    assert pending(svc) == []


def test_waiting_for_a_free_judge_is_not_judging_time(abuse_service):
    svc, slow = abuse_service, ["ada", "bob", "cy", "dee"]  # as many as there are judges
    body = right("ps1_circle_u", "eve")
    judges = svc.app.kpca_state["judges"]
    with cf.ThreadPoolExecutor(5) as pool:
        hogs = [pool.submit(timed, svc, {"item": "ps0_ball_ratio", "answer": SLOW}, f"tok-{s}")
                for s in slow]
        first = judging_started(svc)
        # every judge taken before she checks: a loaded machine may take a while to start them
        while len(judges.running) < len(slow):
            assert time.monotonic() < first + svc.judge_seconds, judges.running
            time.sleep(0.01)
        sent = time.monotonic()
        status, reply = svc.post(body, token="tok-eve")
        assert all(h.result()[3]["verdict"] == "timeout" for h in hogs)
    assert (status, reply["verdict"]) == (200, "right"), reply
    # it waited for a judge about as long as the first hog's judgement had left when it was
    # sent, and the limit counted its own judging only
    assert reply["queued_seconds"] > svc.judge_seconds - (sent - first) - 1.0, (sent - first)
    assert reply["judging_seconds"] < svc.judge_seconds


def test_a_judge_killed_mid_judgement_gives_the_slot_back(abuse_service):
    svc, judges = abuse_service, abuse_service.app.kpca_state["judges"]
    with cf.ThreadPoolExecutor(1) as pool:
        sent = pool.submit(svc.post, {"item": "ps0_ball_ratio", "answer": SLOW}, "tok-fay")
        deadline = time.monotonic() + 10
        while not judges.running and time.monotonic() < deadline:
            time.sleep(0.05)
        (pid,) = list(judges.running)
        os.kill(pid, signal.SIGKILL)
        status, reply = sent.result()
    assert (status, reply["verdict"], reply["counted"]) == (200, "error", False), reply
    assert "stopped" in reply["message"] and "no check was used" in reply["message"]
    assert rows(svc, "fay") == [("ps0_ball_ratio", None, "crash")]
    assert pending(svc) == []


def test_a_service_failure_mid_judgement_is_json_and_settles_the_slot(abuse_service,
                                                                      monkeypatch):
    svc, state = abuse_service, abuse_service.app.kpca_state

    async def broken(*args):
        raise RuntimeError("a bug in the judging")

    monkeypatch.setattr(state["judges"], "judge", broken)
    status, reply = svc.post(right("ps1_circle_u", "kai"), token="tok-kai")
    assert (status, reply["verdict"], reply["counted"]) == (503, "refused", False), reply
    assert rows(svc, "kai") == [("ps1_circle_u", None, "error")]
    monkeypatch.undo()

    finish, failed = state["store"].finish, []

    def flaky(row, *args):  # the database fails when the verdict is written, once
        if not failed:
            failed.append(row)
            raise RuntimeError("database is locked")
        return finish(row, *args)

    monkeypatch.setattr(state["store"], "finish", flaky)
    monkeypatch.setattr(gate, "SETTLE_RETRY_SECONDS", 0.2)
    status, reply = svc.post(right("ps1_circle_u", "kai"), token="tok-kai")
    assert (status, reply["verdict"]) == (200, "right")
    deadline = time.monotonic() + 5
    while pending(svc) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert failed and pending(svc) == []
    assert rows(svc, "kai")[-1] == ("ps1_circle_u", 1, "right")


@pytest.mark.parametrize("answer", [
    {"i": "7" * 2000},  # what check() sends for a Python int
    {"i": "-" + "7" * 1001},
    {"Z": "7" * 2000},
    {"Q": ["1", "9" * 1500]},
    {"list": [{"i": "1"}, {"i": "3" * 1200}]},
    {"M": [2, 1], "d": [{"Z": "1"}, {"Z": "8" * 1001}]},
    {"op": "Add", "a": [{"Z": "1"}, {"i": "5" * 3000}]},
], ids=["int", "negative", "Z", "Q", "in-list", "in-matrix", "in-sum"])
def test_an_over_long_integer_is_refused_without_a_check(abuse_service, answer):
    svc = abuse_service
    status, reply = svc.post({"item": "ps0_ball_ratio", "answer": answer}, token="tok-ivy")
    assert status == 200 and reply["verdict"] == "form" and not reply["counted"], reply
    assert "more than 1000 digits" in reply["message"] and "no check used" in reply["message"]
    assert "judging_seconds" not in reply  # refused before any judging
    assert all(slot is None for item, slot, _ in rows(svc, "ivy") if item == "ps0_ball_ratio")


def test_a_plain_int_is_still_judged(abuse_service):
    status, reply = abuse_service.post({"item": "ps0_ball_ratio", "answer": {"i": "7" * 40}},
                                       token="tok-jo")
    assert (status, reply["verdict"], reply["counted"]) == (200, "wrong", True), reply


def test_staff_and_stray_tokens_are_refused_and_nothing_is_recorded(abuse_service):
    svc = abuse_service
    body = right("ps1_circle_u", "ada")
    cases = {"tok-tom": "staff", "tok-kim": "staff", "tok-both": "staff",
             "tok-ada-noscope": "not given access", "tok-ada-read": "not given access",
             "tok-out": "not in it"}
    before = rows(svc, "ada")
    for token, says in cases.items():
        status, reply = svc.post(body, token=token)
        assert (status, reply["verdict"], reply["counted"]) == (403, "refused", False), token
        assert says in reply["message"], (token, reply)
    with sqlite3.connect(svc.db) as db:
        users = {r[0] for r in db.execute("SELECT DISTINCT student FROM kpca_check_attempts")}
    assert not users & {"ta_tom", "prof_kim", "lee", "outsider"}
    assert rows(svc, "ada") == before


def test_markup_and_terminal_escapes_get_a_clean_refusal(abuse_service):
    svc = abuse_service
    hostile = ["<img src=x onerror=alert(1)>", "\x1b]52;c;cm0gLXJmIH4=\x07", "ps1_circle_u\x1b[2J",
               "ps1_\u202ecircle_u", "<script>alert(1)</script>", "\x00\x08\x7f\x9b31m"]
    replies = [svc.post({"item": item, "answer": {"Z": "1"}}, token="tok-hal") for item in hostile]
    replies += [svc.post({"item": "ps0_ball_ratio", "answer": answer}, token="tok-hal")
                for answer in ({"u": hostile[0]}, {"u": hostile[1]}, {"s": hostile[4]},
                               {"str": hostile[1] + hostile[0]}, {"f": "exp", "a": [{"u": hostile[3]}]})]
    for status, reply in replies:
        assert status in (200, 404) and not reply["counted"], reply
        text = reply["message"]
        assert not any(ord(c) < 32 or 0x7f <= ord(c) < 0xa0 or c == "\u202e" for c in text), text
    for status, reply in replies[:len(hostile)]:
        assert status == 404 and "there is no exact item of that name" in reply["message"]
    for body in (b'{"item": "<b>x</b>", "answer": {"Z": "1"}}',
                 b'{"item": "ps0_ball_ratio", "answer": {"u": "<i>\x1b[2J"}}'):
        _, raw = svc.exchange(body, "tok-hal")
        assert b"<" not in raw and b"\x1b" not in raw and b"\\u001b" not in raw, raw


def test_a_flood_of_requests_gets_json_refusals_and_keeps_the_limits(check_service):
    svc, item = check_service, "ps4_poly_Kc"  # 2 checks; the fixture allows 60 a minute
    good = right(item, "ivy")
    wrong = {"item": item, "answer": encode(sp.zeros(*variants.answer(item, "ivy")[0].shape))}
    bodies = [good, wrong, wrong, None, {"item": 7, "answer": 1}, {"item": item}, {"x": []}]

    def send(i: int):
        body = bodies[i % len(bodies)]
        return svc.post(body, token="tok-ivy", raw=b"{" * 5000 if body is None else None)

    with cf.ThreadPoolExecutor(20) as pool, cf.ThreadPoolExecutor(1) as other:
        flood = [pool.submit(send, i) for i in range(140)]
        meanwhile = other.submit(svc.post, right("ps1_circle_u", "jo"), "tok-jo")
        replies = [f.result() for f in flood]
    assert meanwhile.result()[1]["verdict"] == "right"  # another student is judged meanwhile
    assert {s for s, _ in replies} <= {200, 400, 429}, {s for s, _ in replies}
    assert sum(r["counted"] for _, r in replies) == 2
    assert len([r for r in rows(svc, "ivy") if r[1] is not None]) == 2
    assert sum(s == 429 and "in a minute" in r["message"] for s, r in replies) == 140 - 60


def test_other_paths_and_methods_get_json_too(abuse_service):
    svc = abuse_service
    for path, method, status in (("check", "GET", 405), ("", "GET", 404), ("nothing", "POST", 404),
                                 ("check/../../hub", "GET", 404)):
        got, raw = svc.exchange(b"" if method == "POST" else None, "tok-hal", path, method)
        assert got == status and json.loads(raw)["verdict"] == "refused", (path, got, raw)
