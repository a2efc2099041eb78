"""Dates a query names ("on 13 October 2023", "in July 2022", "2023-10-13"), as periods.

A question that names a day or a month is most often about what was written then, so
search ranks the notes dated inside that period a second time and fuses that ranking in
(see `search.hybrid`). It is a preference, never a filter: a note about the event written
a week later still competes on its words. Only dates that carry a year are read; a day
without one borrows the year of a full date after it ("between August 11 and August 15
2023"). "Last week" or "on Monday" need a reference point the query does not carry.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

_MONTHS = (
    "january february march april may june july august september october november december"
).split()
# Every spelling of a month: the name, its first three letters, and "Sept"; longest first,
# so the regex engine tries "september" before "sept" before "sep".
_MONTH = "|".join(
    sorted({*_MONTHS, *(name[:3] for name in _MONTHS), "sept"}, key=lambda m: (-len(m), m))
)
_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_YEAR = r"(?:19|20)\d\d"
_PATTERN = re.compile(
    rf"\b(?:(?P<d1>{_DAY})\s+(?:of\s+)?(?P<m1>{_MONTH})\.?|(?P<m2>{_MONTH})\.?(?:\s+(?P<d2>{_DAY}))?)"
    rf",?\s+(?P<y1>{_YEAR})\b"
    rf"|\b(?P<y2>{_YEAR})-(?P<m3>0[1-9]|1[0-2])(?:-(?P<d3>0[1-9]|[12]\d|3[01]))?\b"
    rf"|\b(?:in|during|of|from|since)\s+(?P<y3>{_YEAR})\b(?!-\d)",
    re.IGNORECASE,
)
_YEARLESS_DAY = re.compile(
    rf"\b(?:(?P<d1>{_DAY})\s+(?:of\s+)?(?P<m1>{_MONTH})|(?P<m2>{_MONTH})\.?\s+(?P<d2>{_DAY}))\b",
    re.IGNORECASE,
)
DAY_BEFORE = timedelta(days=1)  # a note dated in another time zone
DAYS_AFTER = timedelta(days=2)  # a note written the day after about the day before


def _month(name: str) -> int:
    return next(i for i, month in enumerate(_MONTHS, 1) if month.startswith(name.lower()[:3]))


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def mentioned_periods(query: str) -> list[tuple[int, int]]:
    """[start, end) in epoch ms for every dated day, month or year the query names.

    A day covers the day before to the day after (zones, notes written later); a month
    or a year covers itself and one day more. Impossible dates (31 February) are ignored.
    A day named without a year takes the year of the next full date with a month after
    it, as in a range ("between August 11 and August 15 2023").
    """
    periods: list[tuple[int, int]] = []
    dated: list[tuple[int, int, datetime]] = []  # where full dates with a month are, and when
    for match in _PATTERN.finditer(query):
        groups = match.groupdict()
        try:
            if groups["y3"]:
                year = int(groups["y3"])
                start, end = datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC)
                periods.append((_ms(start), _ms(end + timedelta(days=1))))
                continue
            year = int(groups["y1"] or groups["y2"])
            month = int(groups["m3"]) if groups["m3"] else _month(groups["m1"] or groups["m2"])
            day_text = groups["d1"] or groups["d2"] or groups["d3"]
            named = _named_day(year, month, day_text or "1")
            dated.append((match.start(), match.end(), named))
            if day_text:
                periods.append(_around(named))
            else:
                start = datetime(year, month, 1, tzinfo=UTC)
                end = datetime(year + month // 12, month % 12 + 1, 1, tzinfo=UTC)
                periods.append((_ms(start), _ms(end + timedelta(days=1))))
        except ValueError:
            continue
    for match in _YEARLESS_DAY.finditer(query):
        later = [when for start, _, when in dated if start >= match.end()]
        inside = any(start <= match.start() < end for start, end, _ in dated)
        if not later or inside:
            continue
        groups = match.groupdict()
        month, day_text = _month(groups["m1"] or groups["m2"]), groups["d1"] or groups["d2"]
        try:
            named = _named_day(later[0].year, month, day_text)
            if named > later[0]:  # "30 Dec to 2 January 2024": the December before
                named = _named_day(later[0].year - 1, month, day_text)
        except ValueError:
            continue
        periods.append(_around(named))
    return sorted(periods)


def written_dates(query: str) -> list[tuple[int, int]]:
    """(start, end) offsets of every date with a year the query writes ("January 2018",
    "on 13 October 2023" from "13", "2023-10-13", "in 2018" from "2018"), in order: the
    spans `mentioned_periods` reads, whether or not the date exists."""
    spans: list[tuple[int, int]] = []
    for match in _PATTERN.finditer(query):
        group = "y3" if match.group("y3") else 0
        spans.append((match.start(group), match.end(group)))
    return spans


def _named_day(year: int, month: int, day_text: str) -> datetime:
    """The day a query names ("3rd", "03"); ValueError for one the month does not have."""
    return datetime(year, month, int(re.sub(r"\D", "", day_text)), tzinfo=UTC)


def _around(day: datetime) -> tuple[int, int]:
    """A named day as a period: the day before (zones) to two days after (written later)."""
    return _ms(day - DAY_BEFORE), _ms(day + DAYS_AFTER)


def envelope(periods: list[tuple[int, int]]) -> tuple[int, int] | None:
    """The smallest single period holding all of them (None for none)."""
    if not periods:
        return None
    return min(start for start, _ in periods), max(end for _, end in periods)
