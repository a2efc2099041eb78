"""Time in privault: UTC epoch milliseconds inside, strict ISO 8601 at the edges.

Times are stored as integers so that comparisons never mix offsets. Parsing refuses naive
times: a time without an offset is ambiguous, and guessing the zone would silently move facts.

A time is kept only from 1000-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z (in UTC, after its
offset is applied): Python's calendar ends with year 9999, so a later time could be stored
but never shown, and the years before 1000 leave room for a day's arithmetic in any time
zone. Every time that comes in (ISO text or epoch ms) is checked against that range.
"""

from __future__ import annotations

import time
from datetime import UTC, date, datetime, timedelta

from privault.errors import InputError

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)
EARLIEST_MS = (datetime(1000, 1, 1, tzinfo=UTC) - _EPOCH) // _MS
LATEST_MS = (datetime(9999, 12, 31, 23, 59, 59, 999_000, tzinfo=UTC) - _EPOCH) // _MS
RANGE = "1000-01-01T00:00:00Z to 9999-12-31T23:59:59Z"
_CYCLE_MS = 146_097 * 86_400_000  # 400 Gregorian years: the calendar then repeats exactly


def now_ms() -> int:
    """The current time as UTC epoch milliseconds."""
    return time.time_ns() // 1_000_000


def in_range(ms: int) -> bool:
    """Whether epoch ms lies in the years privault keeps (see the module docstring)."""
    return EARLIEST_MS <= ms <= LATEST_MS


def in_range_or_none(ms: int | None) -> int | None:
    """`ms`, or None when it is absent or outside the years privault keeps: for sources
    whose unreadable dates are dropped rather than refused (imports, front matter)."""
    return ms if ms is not None and in_range(ms) else None


def check_range(ms: int, shown: str) -> int:
    """`ms` itself; InputError naming `shown` (what the caller wrote) when it lies outside
    the years privault keeps."""
    if not in_range(ms):
        raise InputError(f"{shown} ({to_iso(ms)} in UTC) is out of range: give a time from {RANGE}")
    return ms


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
    return check_range((parsed - _EPOCH) // _MS, f"time {text!r}")


def to_iso(ms: int | None) -> str | None:
    """Format epoch milliseconds as ISO 8601 UTC (`2026-03-01T08:00:00Z`).

    Never raises. A time outside Python's years 1–9999 (one an older version stored before
    times were checked) comes out exact, in ISO 8601's expanded-year form
    (`+10000-01-01T04:59:59Z`, `-0001-12-31T00:00:00Z`), rather than clamped: a clamped time
    would move a fact silently, and an export would carry the moved time into another vault.
    The expanded form reads as what it is, and `parse_time` refuses it on the way back in.
    """
    if ms is None:
        return None
    # The calendar repeats every 400 years, so the time is formatted whole cycles nearer
    # 1970 (always in datetime's range, exactly, in integers) and its year put back.
    cycles, within = divmod(ms, _CYCLE_MS)
    moment = _EPOCH + within * _MS
    year = moment.year + 400 * cycles
    text = moment.isoformat(timespec="milliseconds" if ms % 1000 else "seconds")
    year_text = f"{year:04d}" if 0 < year <= 9999 else f"{year:+05d}"
    return year_text + text[4:].replace("+00:00", "Z")


def iso_day(ms: int | None) -> str:
    """The UTC day of epoch ms as `2026-03-01` ("" for None), whatever the year's width."""
    return (to_iso(ms) or "").partition("T")[0]


def iso_minute(text: str | None) -> str:
    """An ISO time from `to_iso` cut to the minute (`2026-03-01T08:00`; "" for None),
    whatever the year's width."""
    day, _, clock = (text or "").partition("T")
    return f"{day}T{clock[:5]}" if clock else day


def local_day(ms: int) -> date:
    """The calendar day of epoch milliseconds where this machine is: the owner's day, the
    one a note's "yesterday" counts back from."""
    try:
        return datetime.fromtimestamp(ms / 1000).date()
    except (OverflowError, ValueError, OSError):
        # Past the last (or before the first) day this machine's calendar can hold: the
        # last seconds of year 9999 east of UTC, or a time an older version stored.
        return date.max if ms > 0 else date.min


Time = str | int | None  # a time option: ISO 8601 text with an offset, epoch ms, or absent


def to_ms(value: Time, name: str) -> int | None:
    """A time option as epoch ms: ISO 8601 text with an offset, or an int; either must lie
    in the years privault keeps."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        raise InputError(f"{name} must be a time, not {value!r}")
    if isinstance(value, int):
        return check_range(value, f"{name} {value}")
    if isinstance(value, str):
        return parse_time(value)
    raise InputError(f"{name} must be ISO 8601 text or epoch milliseconds, not {value!r}")
