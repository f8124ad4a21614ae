"""``POST <prefix>practice``: draw practice numbers, and check an exact answer on them.

``{"problem_set": ps, "draw": k}`` answers the draw: ``{"verdict": "practice", "draw",
"numbers_id", "checks", "unavailable"}`` (the notebook draws the numbers from the numbers
id; ``unavailable``: items that cannot be checked on it now). ``{"item", "answer", "draw":
k}`` checks an answer on draw ``k`` with the graded checks' judge and named-mistake hints,
and answers as ``<prefix>check`` does. Both pass the graded checks' gates first (the hub
token, a student of the course, the requests per minute, the body's size; then the answer's
size and form, the cool-down, one judgement per student at a time), then practice's own:
the draw's number (1 to the calendar's ``draws``, an int: nothing else is read), the
calendar's practice policy (:func:`kit.term.practice.practice_closed`), the item's checks
(refused where graded checks are off or refused), the checks per item and draw. Nothing of
a practice check is written where grading reads (:mod:`kit.checks.practice`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time

from kit.checks.gate import CheckHandler
from kit.checks.judging import MAX_BODY, Outcome, read_answer
from kit.checks.policy import item_problem_set

__all__ = ["PracticeHandler"]

_LOG = logging.getLogger("kit.checks")


class PracticeHandler(CheckHandler):
    """``POST <prefix>practice``: a practice draw, or a check of an answer on one."""

    async def student(self) -> str | None:
        """The checking student (the graded checks' token, group and rate gates), or None
        once refused."""
        return await self.hub_student("no hub login came with this request: practice works "
                                      "from a notebook on the course's JupyterHub")

    async def check(self):
        from kit.checks.practice import PracticeStore, draw_index, draw_kept
        from kit.term import CalendarError, load, now
        from kit.term.practice import Practice, practice_closed
        from kpca_ref import variants

        student = await self.student()
        if student is None or self._finished:
            return
        if self.size > MAX_BODY:
            return self.too_large()
        try:
            body = json.loads(b"".join(self.chunks))
            item, ps = body.get("item"), body.get("problem_set")
            if not isinstance(item, (str, type(None))) or not isinstance(ps, (str, type(None))):
                raise TypeError
            if item is not None:
                ps, data = item_problem_set(item), body["answer"]
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
            return self.reply(400, "refused", "this practice request could not be read: call "
                              "practice(1) and check(\"<item>\", answer) from your notebook")
        if ps not in variants.PROBLEM_SETS:
            return self.reply(404, "refused", "there is no such exact item or problem set to "
                              "practise: use the names in the notebook")
        policy, when = self.state["policy"], now()
        try:
            cal = load(policy.root)
        except CalendarError:
            return self.reply(403, "refused", "practice is paused: the course calendar "
                              "(term.json) cannot be read")
        entry = cal.entry(ps)
        rules = entry.practice if entry is not None else Practice()
        try:
            k = draw_index(body.get("draw"), rules.draws)
        except ValueError as exc:
            return self.reply(400, "refused", f"{exc} (nothing used)")
        limit, why = policy.limit(item) if item is not None else (1, "")
        if limit == 0:
            return self.reply(403, "refused", why)
        closed = practice_closed(cal, student, ps, when)
        if closed:
            return self.reply(403, "refused", closed)
        items = [i for i in variants.module(ps).ITEMS if policy.limit(i)[0] > 0]
        if not items:
            return self.reply(403, "refused", f"no exact item of {ps} can be checked")
        store = self.state.get("practice") or self.state.setdefault(
            "practice", PracticeStore(policy.db_url))
        sid, blocked = await asyncio.get_running_loop().run_in_executor(  # beside the loop:
            None, draw_kept, policy, cal, store, ps, student, k, items, when)  # databases
        if sid is None:
            return self.reply(403, "refused", f"practice {k} of {ps} cannot be drawn: draw "
                              "another")
        if item is None:
            note = (f"; not checkable now (a classmate still works on the same answer): "
                    f"{', '.join(blocked)}" if blocked else "")
            return self.reply(200, "practice", f"practice {k} of {ps}: {rules.checks} checks "
                              f"per item, for no credit{note}", None, False, draw=k,
                              numbers_id=sid, problem_set=ps, checks=rules.checks,
                              unavailable=blocked)
        if item in blocked:
            return self.reply(403, "refused", f"{item} cannot be checked on practice {k} now: "
                              "its answer is also one a classmate still works on (until "
                              f"their due date); practise it on practice {k + 1}")
        _, problem = read_answer(data)
        if problem is not None:
            left = max(rules.checks - store.used(student, item, k), 0)
            return self.reply(200, "form", f"not checked: {problem} (no check used; {left} "
                              "left)", left)
        if self.cooling(student):
            return
        self.practice = (k, sid, store)
        if store.used(student, item, k) >= rules.checks:
            return self.no_checks_left(item, rules.checks)
        await self.judged(student, item, ps, data, rules.checks)

    def no_checks_left(self, item: str, limit: int):
        k = self.practice[0]
        self.reply(429, "refused", f"no practice checks left for {item} on practice {k} (you "
                   f"had {limit}): practise it on practice {k + 1}", 0)

    async def reserved(self, worker, student, item, ps, data, limit, queued: float):
        s, (k, sid, store) = self.state, self.practice
        row, used = store.reserve(student, item, ps, k, limit)
        if row is None:
            return self.no_checks_left(item, limit)
        outcome = Outcome("error", "the check service failed while judging")
        try:
            outcome = await s["judges"].judge(worker, item, sid, data)
        finally:  # settled on every path: a verdict, or the slot given back
            try:
                store.finish(row, outcome.kind, outcome.code)
            except Exception:  # noqa: BLE001 - a slot of practice: logged, never a 500
                _LOG.exception("kpca-check: practice attempt %s could not be settled", row)
        kind, left = outcome.kind, limit - used
        message = outcome.message.replace("your numbers", f"practice {k}'s numbers")
        times = {"judging_seconds": round(outcome.seconds, 3), "queued_seconds": round(queued, 3),
                 "draw": k}
        if kind in ("right", "wrong", "mistake"):
            return self.reply(200, kind, f"practice {k}, {message} (for no credit; {left} "
                              f"practice check{'s' if left != 1 else ''} left)", left, True,
                              **times)
        if kind == "form":
            return self.reply(200, kind, f"{message} (no check used; {left + 1} left)",
                              left + 1, False, **times)
        if kind == "error":
            return self.reply(503, "error", f"not checked: {message}; no check was used: try "
                              "again in a minute", left + 1, False, **times)
        pause = s["policy"].settings.cooldown_seconds
        s["cooling"][student] = time.monotonic() + pause
        spent = kind != "crash"
        return self.reply(200, "error" if not spent else "timeout", f"not checked: {message}; "
                          f"your checks pause for {pause:g} s", left if spent else left + 1,
                          spent, **times)
