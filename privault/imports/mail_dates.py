"""When a mail with no readable `Date:` header was sent, as near as its mailbox tells.

Drafts, some bounces and mail from old or broken mailers carry no `Date:`. Dated when
imported, they would all sit on one day; the mailbox still knows roughly when each came:
the date on its mbox separator line (when the mailbox filed it) and, failing that, the
oldest `Received:` header (the last one: each relay adds its own on top).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from privault.imports.sources import source_time
from privault.timeutil import in_range_or_none

_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
# "From sender Wed Mar 06 08:30:00 +0000 2019" (Gmail) or asctime's "Mon Mar  1 10:00:00
# 2025" (a zone before or after the year, or none: then UTC).
_SEPARATOR_DATE = re.compile(
    rb"\s(?P<month>[A-Za-z]{3})\s+(?P<day>\d{1,2})\s+(?P<hour>\d{1,2}):(?P<minute>\d{2})"
    rb"(?::(?P<second>\d{2}))?(?:\s+(?P<zone>[+-]\d{4}))?\s+(?P<year>\d{4})"
    rb"(?:\s+(?P<after>[+-]\d{4}))?\s*$"
)


def separator_time(line: bytes) -> int | None:
    """The time on an mbox `From ` line as epoch ms UTC, or None (none, or the epoch's
    first day some writers put there for "unknown")."""
    found = _SEPARATOR_DATE.search(line.rstrip(b"\r\n"))
    if found is None:
        return None
    month = found["month"].decode("ascii").lower()
    if month not in _MONTHS:
        return None
    try:
        when = datetime(
            int(found["year"]),
            _MONTHS.index(month) + 1,
            int(found["day"]),
            int(found["hour"]),
            int(found["minute"]),
            int(found["second"] or 0),
            tzinfo=UTC,
        )
    except ValueError:
        return None
    zone = (found["zone"] or found["after"] or b"+0000").decode("ascii")
    offset = timedelta(hours=int(zone[1:3]), minutes=int(zone[3:5]))
    when = when - offset if zone[0] == "+" else when + offset
    if when.year == 1970 and when.timetuple().tm_yday == 1:
        return None
    return in_range_or_none(int(when.timestamp() * 1000))


def received_time(values: list[str]) -> int | None:
    """The date of the oldest `Received:` header (the last; its date follows its ';')."""
    for value in reversed(values):
        if ";" in value:
            found = source_time(value.rsplit(";", 1)[1])
            if found is not None:
                return found
    return None
