"""``POST <prefix>due``: a student's own due date of a problem set, for their notebook.

The numbers cell asks it when it runs on the hub (``due_date()``,
:mod:`kpca_ref.variants.cell_due`) and prints the one line it answers, e.g. ``Your due date
for ps1_circle_lift: 2026-12-13 17:00 Europe/Berlin (an extension of 3 days: ill)``. Only
the service knows who asks (the hub token, as for a check: a student of the course, never
staff) and reads the calendar (:mod:`kit.term`), so the date is the student's own,
extension or exemption included, and nothing per student is written into the release or the
exchange. The body is ``{"problem_set": ps}``, nothing else is read; the reply is
``{"verdict": "due", "message", "due": ISO time or null, "exempt", "extended"}``, the message
through the service's ``clean`` (no control characters, no markup bytes) like every reply.
It counts no check and is limited by the same requests per minute, counted apart.
"""

from __future__ import annotations

import datetime as dt
import json

from kit.checks.gate import CheckHandler

__all__ = ["DueHandler", "due_line"]

#: largest body read (a problem set's name)
MAX_DUE_BODY = 4096


def due_line(cal, student: str, ps: str, when: dt.datetime) -> tuple[str, dict]:
    """The line a student reads about their own due date of ``ps`` at ``when``, and the
    reply's fields (``due``, ``exempt``, ``extended``)."""
    from kit.term.__main__ import describe
    from kit.term.times import format_duration, show_time

    entry = cal.entry(ps)
    fields = {"due": None, "exempt": False, "extended": False}
    if entry is None or entry.due is None:
        return f"{ps} has no due date yet.", fields
    reason = cal.exemption(student, ps)
    if reason is not None:
        return f"You are exempt from {ps}'s due date ({reason}).", {**fields, "exempt": True}
    own, ext = cal.due_for(student, ps), cal.extension(student, ps)
    note = ""
    if ext is not None:
        how = (f"an extension of {ext.days:g} day{'s' if ext.days != 1 else ''}"
               if ext.days else f"an extension from {show_time(entry.due, entry.zone)}")
        note = f" ({how}: {ext.reason})"
    passed = (f"; it passed {format_duration((when - own).total_seconds())} ago"
              if when > own else "")
    line = (f"Your due date for {ps}: {show_time(own, entry.zone)}{note}{passed}. "
            f"Late: {describe(entry.late)}.")
    return line, {**fields, "due": own.isoformat(), "extended": ext is not None}


class DueHandler(CheckHandler):
    """``POST <prefix>due``: the asking student's own due date of one problem set."""

    async def check(self):
        from kit.term import CalendarError, load, now
        from kpca_ref import variants

        student = await self._student()
        if student is None or self._finished:
            return
        try:
            if self.size > MAX_DUE_BODY:
                raise ValueError
            ps = json.loads(b"".join(self.chunks)).get("problem_set")
            if not isinstance(ps, str):
                raise TypeError
        except (ValueError, TypeError, AttributeError, RecursionError):
            return self.reply(400, "refused", "this request could not be read: the numbers "
                              "cell asks {\"problem_set\": <its problem set>}")
        if ps not in variants.PROBLEM_SETS:
            return self.reply(404, "refused", "there is no such problem set in the course")
        try:
            cal = load(self.state["policy"].root)
        except CalendarError:
            return self.reply(503, "refused", "the course calendar cannot be read right now: "
                              "ask your TA for your due date")
        line, fields = due_line(cal, student, ps, now())
        self.reply(200, "due", line, **fields)

    async def _student(self) -> str | None:
        """The asking student (the checks' token and group gates, and a per-minute limit of
        its own), or None once refused."""
        return await self.hub_student("no hub login came with this request: your due date "
                                      "shows on the course's JupyterHub", window="recent_due",
                                      too_many="too many requests in a minute: wait a little")
