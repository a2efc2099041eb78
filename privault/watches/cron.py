"""A small 5-field cron parser (minute hour day-of-month month day-of-week), in UTC.

Written here rather than borrowed from APScheduler because the core must not import the
scheduler (an import-direction test pins that); APScheduler only drives the clock in
`privault serve`. Supported: `*`, numbers, `a-b`, `*/n`, `a-b/n`, lists, month and day
names (`jan`, `mon`), 7 as Sunday, and `@hourly/@daily/@weekly/@monthly/@yearly`.
As in Vixie cron, when both day-of-month and day-of-week are restricted, either matches.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from privault.errors import InputError
from privault.timeutil import EARLIEST_MS, LATEST_MS

_MACROS = {
    "@hourly": "0 * * * *",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@weekly": "0 0 * * 0",
    "@monthly": "0 0 1 * *",
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
}
_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_DAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]
_FIELDS = (  # name, low, high, names (index + offset = value)
    ("minute", 0, 59, None, 0),
    ("hour", 0, 23, None, 0),
    ("day of month", 1, 31, None, 0),
    ("month", 1, 12, _MONTHS, 1),
    ("day of week", 0, 7, _DAYS, 0),
)
_SEARCH_DAYS = 366 * 8  # long enough for Feb 29 on a given weekday
_LAST_MINUTE_MS = LATEST_MS - 59_999  # 9999-12-31T23:59:00Z: no minute follows it


def _value(text: str, low: int, high: int, names: list[str] | None, offset: int) -> int:
    if names and text.lower() in names:
        return names.index(text.lower()) + offset
    if not text.isdigit():
        raise InputError(f"cron: {text!r} is not a number")
    number = int(text)
    if not low <= number <= high:
        raise InputError(f"cron: {number} is outside {low}-{high}")
    return number


def _field(text: str, index: int) -> frozenset[int]:
    name, low, high, names, offset = _FIELDS[index]
    values: set[int] = set()
    for part in text.split(","):
        base, _, step_text = part.partition("/")
        step = 1
        if step_text:
            if not step_text.isdigit() or int(step_text) == 0:
                raise InputError(f"cron {name}: bad step in {part!r}")
            step = int(step_text)
        if base == "*":
            start, end = low, high
        elif "-" in base:
            first, _, last = base.partition("-")
            start = _value(first, low, high, names, offset)
            end = _value(last, low, high, names, offset)
            if start > end:
                raise InputError(f"cron {name}: range {part!r} runs backwards")
        else:
            start = _value(base, low, high, names, offset)
            end = high if step_text else start
        values.update(range(start, end + 1, step))
    if index == 4 and 7 in values:  # 7 is another name for Sunday
        values = (values - {7}) | {0}
    return frozenset(values)


@dataclass(frozen=True)
class CronExpression:
    """A parsed cron expression; `next_after` gives the first match strictly after a time."""

    text: str
    minutes: frozenset[int]
    hours: frozenset[int]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]  # 0 = Sunday
    days_restricted: bool
    weekdays_restricted: bool

    @classmethod
    def parse(cls, text: str) -> CronExpression:
        """Parse five fields (or a macro); raises `InputError` naming the bad field."""
        source = _MACROS.get(text.strip().lower(), text.strip())
        parts = source.split()
        if len(parts) != 5:
            raise InputError(f"cron {text!r}: give 5 fields (minute hour day month weekday)")
        fields = [_field(part, index) for index, part in enumerate(parts)]
        return cls(
            text=text.strip(),
            minutes=fields[0],
            hours=fields[1],
            days=fields[2],
            months=fields[3],
            weekdays=fields[4],
            days_restricted=parts[2] != "*",
            weekdays_restricted=parts[4] != "*",
        )

    def _day_matches(self, moment: datetime) -> bool:
        weekday = (moment.weekday() + 1) % 7  # Python: Monday 0; cron: Sunday 0
        day_ok, weekday_ok = moment.day in self.days, weekday in self.weekdays
        if self.days_restricted and self.weekdays_restricted:
            return day_ok or weekday_ok
        return day_ok and weekday_ok

    def next_after(self, ms: int) -> int | None:
        """The first matching minute strictly after `ms` (UTC epoch ms); None when none
        comes before the end of the years privault keeps (see `privault.timeutil`)."""
        if ms >= _LAST_MINUTE_MS:
            return None
        # A time before year 1000 (stored by an older version) starts the search there.
        ms = max(ms, EARLIEST_MS - 1)
        moment = datetime.fromtimestamp(ms / 1000, tz=UTC).replace(second=0, microsecond=0)
        moment += timedelta(minutes=1)
        day = moment.replace(hour=0, minute=0)
        hours, minutes = sorted(self.hours), sorted(self.minutes)
        for _ in range(_SEARCH_DAYS):
            if day.month in self.months and self._day_matches(day):
                for hour in hours:
                    for minute in minutes:
                        candidate = day.replace(hour=hour, minute=minute)
                        if candidate >= moment:
                            return int(candidate.timestamp() * 1000)
            if day.date() == date.max:
                return None
            day += timedelta(days=1)
        raise InputError(f"cron {self.text!r} never matches (e.g. February 30)")
