"""What a student may write where a hand-in's time could be read: its ``timestamp.txt`` or
an exchange inbound folder's name. No rule of the course may read any of them."""

from __future__ import annotations

FORGED = {
    "past": "2020-01-01 00:00:00.000000 UTC",
    "future": "2099-12-31 23:59:59.000000 UTC",
    "garbage": "not a time at all",
    "escapes": "\x1b]52;c;ZWNobyBvd25lZA==\x07\x1b[2J\x1b[1A2020-01-01 00:00:00 UTC",
    "huge": "2020-01-01 00:00:00 UTC" + " " * 2_000_000,
}
