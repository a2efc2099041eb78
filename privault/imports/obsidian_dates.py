"""The dates of Obsidian notes: front matter times and daily-note names.

Obsidian and its plugins write dates with moment.js formats, not strptime ones: the daily
notes' file names (`.obsidian/daily-notes.json`, e.g. `MMMM Do, YYYY` for
`January 5th, 2024`) and the Linter plugin's `date created` (by default
`dddd, MMMM Do YYYY, h:mm:ss a`: `Friday, January 5th 2024, 10:20:31 am`). A format is
turned into a strptime pattern once; a day written as an ordinal (`Do`: 1st, 22nd) has its
suffix dropped before the pattern is tried, since strptime has no such code. Text in
`[brackets]` is literal, as in moment.js. Times without a zone are taken as UTC,
like every zone-less source time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from privault.imports.sources import source_time, time_in_formats
from privault.timeutil import in_range_or_none

# Front matter keys that date a note, first found first: Obsidian's own habit (`created`),
# the Linter plugin's default (`date created`), other tools' (`created_at`), then `date`.
DATE_KEYS = ("created", "date created", "created_at", "date")
_ORDINAL = re.compile(r"(?<=\d)(?:st|nd|rd|th)\b", re.IGNORECASE)
_TOKENS = [  # moment.js tokens, longest first where one starts another
    ("YYYY", "%Y"),
    ("YY", "%y"),
    ("MMMM", "%B"),
    ("MMM", "%b"),
    ("MM", "%m"),
    ("M", "%m"),
    ("DDDD", "%j"),
    ("DDD", "%j"),
    ("DD", "%d"),
    ("Do", "%d"),
    ("D", "%d"),
    ("dddd", "%A"),
    ("ddd", "%a"),
    ("HH", "%H"),
    ("H", "%H"),
    ("hh", "%I"),
    ("h", "%I"),
    ("mm", "%M"),
    ("ss", "%S"),
    ("A", "%p"),
    ("a", "%p"),
]


@dataclass(frozen=True)
class MomentFormat:
    """A moment.js format as strptime reads it."""

    pattern: str
    ordinals: bool  # it has `Do`: drop `st`, `nd`, `rd`, `th` after a number first

    def read(self, text: str) -> int | None:
        """`text` in this format as epoch ms UTC, or None when it is not."""
        if self.ordinals:
            text = _ORDINAL.sub("", text)
        return time_in_formats(text.strip(), (self.pattern,))


def moment_format(moment: str) -> MomentFormat:
    """A moment.js format (`MMMM Do, YYYY`, `[Week of] YYYY-MM-DD`) as a strptime pattern."""
    pattern, ordinals = "", False
    while moment:
        if moment.startswith("["):
            literal, _, moment = moment[1:].partition("]")
            pattern += literal.replace("%", "%%")
            continue
        for token, code in _TOKENS:
            if moment.startswith(token):
                pattern, moment = pattern + code, moment[len(token) :]
                ordinals = ordinals or token == "Do"
                break
        else:
            pattern, moment = pattern + moment[0].replace("%", "%%"), moment[1:]
    return MomentFormat(pattern, ordinals)


ISO_DAY = moment_format("YYYY-MM-DD")
# The Linter plugin's default format, and the same without the weekday or the time.
LINTER_FORMATS = tuple(
    moment_format(form)
    for form in ("dddd, MMMM Do YYYY, h:mm:ss a", "MMMM Do YYYY, h:mm:ss a", "dddd, MMMM Do YYYY")
)


def daily_format(moment: str) -> MomentFormat:
    """The daily notes' file-name format (the part after its last folder), `YYYY-MM-DD`
    when none is set."""
    return moment_format((moment or "YYYY-MM-DD").rsplit("/", 1)[-1])


def daily_date(stem: str, daily: MomentFormat) -> int | None:
    """A daily note's day (midnight UTC) from its file name, or None."""
    found = daily.read(stem)
    return found if found is not None else ISO_DAY.read(stem)


def front_date(front: dict[str, Any]) -> int | None:
    """A note's date from its front matter (the first of `DATE_KEYS` that reads), or None."""
    for key in DATE_KEYS:
        found = front_time(front.get(key))
        if found is not None:
            return found
    return None


def front_time(value: Any) -> int | None:
    """A front matter time as epoch ms UTC: a YAML date or datetime, ISO 8601 or RFC 2822
    text, or the Linter plugin's long date; None when it is none of them."""
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=UTC)
        return in_range_or_none(int(moment.timestamp() * 1000))
    if isinstance(value, date):
        day = datetime(value.year, value.month, value.day, tzinfo=UTC)
        return in_range_or_none(int(day.timestamp() * 1000))
    if not isinstance(value, str):
        return None
    for read in (source_time, *(form.read for form in LINTER_FORMATS)):
        found = read(value)
        if found is not None:
            return found
    return None
