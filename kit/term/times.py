"""The calendar's words: times with their zone, durations and late policies, read strictly.

A time is always written with its zone (``2026-12-10 17:00 Europe/Berlin``, ``... UTC``,
``... +01:00``): a time without one means something else on every machine, so it is refused,
and so is an unknown zone, a wall-clock time a change to or from summer time skips, and one it
shows twice. A late policy is clauses separated by ``;``: ``grace 15m``, ``10% per day`` (or
per ``6h``, per ``30m``, ...), ``cap 50%``, and ``none`` (no late hand-ins: a hand-in after
the due date and its grace scores 0); ``off`` is no penalty at all.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from dataclasses import asdict, dataclass
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

__all__ = ["Policy", "format_duration", "late_window", "parse_duration", "parse_policy", "parse_time",
           "zone"]

UTC = dt.timezone.utc
_TIME = re.compile(r"^\s*(\d{4}-\d{2}-\d{2})[ T](\d{1,2}:\d{2}(?::\d{2})?)\s*(.*?)\s*$")
_UNITS = {"s": 1, "sec": 1, "second": 1, "seconds": 1, "m": 60, "min": 60, "minute": 60,
          "minutes": 60, "h": 3600, "hour": 3600, "hours": 3600, "d": 86400, "day": 86400,
          "days": 86400, "w": 604800, "week": 604800, "weeks": 604800}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)?\s*([a-z]+)\s*$")
#: the years a term's dates may fall in
YEARS = (2000, 2100)
#: the longest extension, in days
MAX_DAYS = 366
#: the words of a policy that takes every point of a late hand-in
ZERO_WORDS = ("none", "no late hand-ins", "no late hand-in", "zero")


def zone(name: str) -> dt.tzinfo:
    """The time zone ``name`` (an IANA name such as ``Europe/Berlin``, ``UTC``, or ``+01:00``)."""
    text = str(name).strip()
    if re.fullmatch(r"[+-]\d{2}:\d{2}", text):
        hours, minutes = int(text[1:3]), int(text[4:6])
        sign = -1 if text[0] == "-" else 1
        if hours > 23 or minutes > 59:
            raise ValueError(f"unknown time zone {text!r}")
        return dt.timezone(sign * dt.timedelta(hours=hours, minutes=minutes))
    if text.upper() in ("UTC", "Z"):
        return UTC
    if not text or text.startswith("/") or ".." in text or not re.fullmatch(r"[A-Za-z0-9_+\-/]+", text):
        raise ValueError(f"unknown time zone {text!r}: name one such as Europe/Berlin or UTC")
    try:
        return ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise ValueError(f"unknown time zone {text!r}: name one such as Europe/Berlin or UTC") from None


def parse_time(text: str) -> tuple[dt.datetime, str]:
    """``(aware UTC time, zone name)`` of ``"YYYY-MM-DD HH:MM[:SS] ZONE"``.

    Raises ValueError naming the problem: no zone, an unknown zone, no such date, or a
    wall-clock time the zone skips or shows twice (summer time).
    """
    match = _TIME.match(str(text))
    if not match:
        raise ValueError(f"{text!r} is not a time: write it as '2026-12-10 17:00 Europe/Berlin'")
    day, clock, name = match.groups()
    if not name:
        raise ValueError(f"{text!r} has no time zone: add one, e.g. '{day} {clock} Europe/Berlin'")
    tz = zone(name)
    try:
        naive = dt.datetime.fromisoformat(f"{day}T{clock.zfill(5) if len(clock) < 5 else clock}")
    except ValueError:
        raise ValueError(f"{text!r} is not a date and time of the calendar") from None
    if not YEARS[0] <= naive.year <= YEARS[1]:
        raise ValueError(f"{text!r} is not a date of a term (years {YEARS[0]} to {YEARS[1]})")
    if isinstance(tz, ZoneInfo):
        one, two = naive.replace(tzinfo=tz, fold=0), naive.replace(tzinfo=tz, fold=1)
        if one.utcoffset() != two.utcoffset():
            back = one.astimezone(UTC).astimezone(tz).replace(tzinfo=None)
            what = "does not exist" if back != naive else "happens twice"
            raise ValueError(f"{text!r} {what} in {name} (summer time changes): "
                             "pick another time or give it in UTC")
        return one.astimezone(UTC), name
    return naive.replace(tzinfo=tz).astimezone(UTC), "UTC" if tz is UTC else name


def show_time(when: dt.datetime, name: str) -> str:
    """``when`` (aware) in the zone ``name``, as the calendar writes it."""
    local = when.astimezone(zone(name))
    return f"{local:%Y-%m-%d %H:%M}" + (f":{local:%S}" if local.second else "") + f" {name}"


def parse_duration(text: str) -> float:
    """Seconds of ``15m``, ``2 hours``, ``1.5d``, ``day`` (a bare unit is one of it)."""
    match = _DURATION.match(str(text).lower())
    if not match or match.group(2) not in _UNITS:
        raise ValueError(f"{text!r} is not a duration: write e.g. 15m, 6h, 2 days")
    return float(match.group(1) or 1) * _UNITS[match.group(2)]


def format_duration(seconds: float) -> str:
    """``1 day 2 h``, ``15 min``, ``40 s``: the two largest units of a duration."""
    seconds = max(0, round(seconds))
    parts = []
    for unit, size in (("day", 86400), ("h", 3600), ("min", 60), ("s", 1)):
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count} {unit}{'s' if unit == 'day' and count > 1 else ''}")
    return " ".join(parts[:2]) or "0 s"


@dataclass(frozen=True)
class Policy:
    """A late policy: ``grace`` seconds forgiven; then ``rate`` of the score per ``step``
    seconds (counted from the due date, a step begun is a step), at most ``cap`` of it; or
    ``zero``: a late hand-in scores nothing. ``text``: as the instructor wrote it."""

    text: str = "off"
    grace: float = 0.0
    rate: float = 0.0
    step: float = 86400.0
    cap: float = 1.0
    zero: bool = False

    def penalty(self, seconds_late: float, score: float) -> tuple[float, str]:
        """``(points taken, why)`` of a hand-in ``seconds_late`` after its due date."""
        score = max(0.0, float(score or 0.0))
        if seconds_late <= 0:
            return 0.0, "on time"
        late = f"{format_duration(seconds_late)} late"
        if seconds_late <= self.grace:
            return 0.0, f"{late}, within the grace of {format_duration(self.grace)}: nothing taken"
        if self.zero:
            return score, f"{late}: no late hand-ins, the score counts 0"
        if self.rate <= 0:
            return 0.0, f"{late}: no late penalty set"
        steps = math.ceil(seconds_late / self.step - 1e-9)
        share = min(self.cap, self.rate * steps)
        unit = "day" if self.step == 86400 else format_duration(self.step)
        capped = f", capped at {self.cap:.0%}" if share == self.cap and self.rate * steps > self.cap else ""
        return (round(share * score, 6),
                f"{late}: {steps} × {self.rate:.4g} per {unit}{capped} = {share:.4g} of the score")

    def as_dict(self) -> dict:
        return asdict(self)


def late_window(policy: Policy) -> dt.timedelta | None:
    """How long after a due date a hand-in can still earn points under ``policy``; None:
    without end (``off``, or a penalty capped below 100%)."""
    grace = dt.timedelta(seconds=policy.grace)
    if policy.zero:
        return grace
    if policy.rate > 0 and policy.cap >= 1:
        steps = math.ceil(1 / policy.rate - 1e-9)  # from this step on, everything is taken
        return max(grace, dt.timedelta(seconds=(steps - 1) * policy.step))
    return None


def _percent(text: str, clause: str) -> float:
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*%\s*", text)
    if not match:
        raise ValueError(f"late policy: {clause!r} needs a percentage such as 10%")
    value = float(match.group(1)) / 100
    if value > 1:
        raise ValueError(f"late policy: {clause!r} is more than 100%")
    return value


def parse_policy(text: str) -> Policy:
    """The :class:`Policy` of ``"grace 15m; 10% per day; cap 50%"``, ``"none"`` (no late
    hand-ins), ``"grace 1h; none"`` or ``"off"`` (no penalty); ValueError naming a clause
    it cannot read."""
    fields: dict = {"text": str(text).strip()}
    clauses = [c.strip() for c in str(text).split(";") if c.strip()]
    if not clauses:
        raise ValueError("late policy is empty: write e.g. 'grace 15m; 10% per day; cap 50%' or 'none'")
    for clause in clauses:
        low = " ".join(clause.lower().split())
        if low in ZERO_WORDS:
            fields["zero"] = True
        elif low in ("off", "no penalty"):
            pass
        elif low.startswith("grace"):
            fields["grace"] = parse_duration(low[5:])
        elif low.startswith("cap"):
            fields["cap"] = _percent(low[3:], clause)
        elif " per " in low:
            rate, step = low.split(" per ", 1)
            fields["rate"], fields["step"] = _percent(rate, clause), parse_duration(step)
            if fields["step"] <= 0:
                raise ValueError(f"late policy: {clause!r} has a step of no time")
        else:
            raise ValueError(f"late policy: cannot read {clause!r} (known: 'grace 15m', "
                             "'10% per day', '5% per 6h', 'cap 50%', 'none', 'off')")
    if fields.get("zero") and fields.get("rate"):
        raise ValueError("late policy: 'none' (no late hand-ins) and a penalty per step contradict")
    return Policy(**fields)
