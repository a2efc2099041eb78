"""Time in privault: UTC epoch milliseconds inside, strict ISO 8601 at the edges.

Times are stored as integers so that comparisons never mix offsets. Parsing refuses naive
times: a time without an offset is ambiguous, and guessing the zone would silently move facts.
"""

from __future__ import annotations

import time
from datetime import UTC, date, datetime

from privault.errors import InputError


def now_ms() -> int:
    """The current time as UTC epoch milliseconds."""
    return time.time_ns() // 1_000_000


def parse_time(text: str) -> int:
    """Parse an ISO 8601 time with an offset (or `Z`) into UTC epoch milliseconds.

    A date alone (`2026-03-01`) is taken as midnight UTC, since a day has no zone to lose.
    """
    value = text.strip()
    if not value:
        raise InputError("empty time: give an ISO 8601 time such as 2026-03-01T09:00:00+01:00")
    try:
        parsed = datetime.fromisoformat(value.replace("z", "Z"))
    except ValueError:
        raise InputError(
            f"unparseable time {text!r}: give ISO 8601, e.g. 2026-03-01T09:00:00+01:00"
        ) from None
    if parsed.tzinfo is None:
        if len(value) == 10:  # a plain date
            parsed = parsed.replace(tzinfo=UTC)
        else:
            raise InputError(
                f"time {text!r} has no offset: add one, e.g. {value}Z or {value}+01:00"
            )
    return int(parsed.timestamp() * 1000)


def to_iso(ms: int | None) -> str | None:
    """Format epoch milliseconds as ISO 8601 UTC (`2026-03-01T08:00:00Z`)."""
    if ms is None:
        return None
    moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    text = moment.isoformat(timespec="milliseconds" if ms % 1000 else "seconds")
    return text.replace("+00:00", "Z")


def local_day(ms: int) -> date:
    """The calendar day of epoch milliseconds where this machine is: the owner's day, the
    one a note's "yesterday" counts back from."""
    return datetime.fromtimestamp(ms / 1000).date()


Time = str | int | None  # a time option: ISO 8601 text with an offset, epoch ms, or absent


def to_ms(value: Time, name: str) -> int | None:
    """A time option as epoch ms: ISO 8601 text with an offset, or an int."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        raise InputError(f"{name} must be a time, not {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        return parse_time(value)
    raise InputError(f"{name} must be ISO 8601 text or epoch milliseconds, not {value!r}")
