"""When a watch runs: intervals (`30m`, `6h`, `1d`, `1w`, `1h30m`), cron, or once.

Each run has a *planned* time. The next planned time is computed from the previous planned
time, never from when the run actually happened, so a schedule does not drift however late
the poller is. After downtime, the planned times that were missed are counted; at most
`max_catchup` of them (the most recent) are run and the rest are recorded as skipped.

An interval is at most ten years, so a first run one interval from now stays in the years
privault keeps (see `privault.timeutil`). A planned time past their end is never made: the
schedule ends there, as a one-off does after its run.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass

from privault.errors import InputError
from privault.timeutil import LATEST_MS
from privault.watches.cron import CronExpression

_UNITS_MS = {"w": 604_800_000, "d": 86_400_000, "h": 3_600_000, "m": 60_000, "s": 1_000}
_INTERVAL = re.compile(r"^(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$")
_MIN_INTERVAL_MS = 60_000
MAX_INTERVAL_MS = 3_653 * 86_400_000  # ten years, leap days included
_AMOUNT_DIGITS = 12
_CRON_SCAN_LIMIT = 100_000  # missed cron times counted one by one up to this many


def parse_interval(text: str, *, longest_ms: int | None = MAX_INTERVAL_MS) -> int:
    """`1h30m` -> 5_400_000 ms. Units w, d, h, m, s in that order; at least one minute and
    at most `longest_ms` (ten years; None: no bound, for a schedule already stored)."""
    value = text.strip().lower()
    match = _INTERVAL.match(value)
    if not value or not match or not any(match.groups()):
        raise InputError(f"interval {text!r}: use forms like 30m, 6h, 1d, 1w or 1h30m")
    total = sum(
        _amount(amount) * _UNITS_MS[unit]
        for amount, unit in zip(match.groups(), "wdhms", strict=True)
        if amount
    )
    if total < _MIN_INTERVAL_MS:
        raise InputError(f"interval {text!r} is shorter than one minute")
    if longest_ms is not None and total > longest_ms:
        raise InputError(f"interval {text!r} is longer than ten years: give at most 3653d")
    return total


def _amount(digits: str) -> int:
    """A unit's count, capped: any count past the cap outlasts the years privault keeps just
    the same, and Python refuses int() of thousands of digits."""
    return int(digits) if len(digits.lstrip("0")) <= _AMOUNT_DIGITS else 10**_AMOUNT_DIGITS


def _kept(planned: int | None) -> int | None:
    """A planned time, or None when it falls after the last time privault keeps."""
    return planned if planned is not None and planned <= LATEST_MS else None


@dataclass(frozen=True)
class Schedule:
    """A parsed schedule. `text` is what the owner wrote; empty for a one-off run."""

    text: str
    interval_ms: int | None = None
    cron: CronExpression | None = None

    @classmethod
    def parse(cls, text: str | None) -> Schedule:
        """An interval, a 5-field cron expression / `@daily` macro, or None/"" for once."""
        return cls._parse(text, MAX_INTERVAL_MS)

    @classmethod
    def stored(cls, text: str | None) -> Schedule:
        """A watch's stored schedule. An interval longer than `parse` allows still loads:
        an older version stored it, and refusing it would stop every watch's poll."""
        return cls._parse(text, None)

    @classmethod
    def _parse(cls, text: str | None, longest_ms: int | None) -> Schedule:
        if text is None or not text.strip():
            return cls("")
        value = text.strip()
        if value.startswith("@") or len(value.split()) == 5:
            cron = CronExpression.parse(value)
            cron.next_after(0)  # refuse expressions that never match, at add time
            return cls(value, cron=cron)
        return cls(value, interval_ms=parse_interval(value, longest_ms=longest_ms))

    def shortest_gap_ms(self, after_ms: int, samples: int = 500) -> int | None:
        """The shortest time between two runs (None for a one-off): the interval, or for
        a cron expression the smallest gap among its next `samples` times."""
        if self.interval_ms is not None:
            return self.interval_ms
        if self.cron is None:
            return None
        times = [self.cron.next_after(after_ms)]
        for _ in range(samples):
            planned = times[-1]
            times.append(None if planned is None else self.cron.next_after(planned))
        kept = [planned for planned in times if planned is not None]
        gaps = [b - a for a, b in zip(kept, kept[1:], strict=False)]
        return min(gaps) if gaps else None

    @property
    def repeats(self) -> bool:
        """False for a one-off (`--at` only) schedule."""
        return self.interval_ms is not None or self.cron is not None

    def next_after(self, planned_ms: int) -> int | None:
        """The planned time after `planned_ms`, or None when the schedule does not repeat."""
        if self.interval_ms is not None:
            return _kept(planned_ms + self.interval_ms)
        if self.cron is not None:
            return self.cron.next_after(planned_ms)
        return None

    def first_at_or_after(self, now_ms: int) -> int:
        """The first planned time for a new watch with no explicit start."""
        if self.cron is None:
            return now_ms
        first = self.cron.next_after(now_ms - 1)
        if first is None:
            raise InputError(f"cron {self.text!r} has no time left before the year 10000")
        return first


@dataclass(frozen=True)
class DuePlan:
    """What a poll at one moment should do for one watch."""

    run_at: tuple[int, ...]  # planned times to run now, oldest first
    skipped: int  # planned times missed and not run (catch-up bound)
    next_run: int | None  # the next planned time after now; None: the watch is finished


def plan_due(schedule: Schedule, next_run: int, now_ms: int, max_catchup: int) -> DuePlan:
    """Which planned times up to `now_ms` to run, starting from the stored `next_run`.

    `max_catchup` >= 1; the most recent planned times are the ones kept, since an old
    reminder or page state is worth less than the newest one.
    """
    if max_catchup < 1:
        raise ValueError("max_catchup must be at least 1")
    if next_run > now_ms:
        return DuePlan((), 0, next_run)
    if schedule.interval_ms is not None:
        step = schedule.interval_ms
        count = (now_ms - next_run) // step + 1
        first_kept = max(0, count - max_catchup)
        kept = tuple(next_run + index * step for index in range(first_kept, count))
        return DuePlan(kept, count - len(kept), _kept(next_run + count * step))
    if schedule.cron is None:
        return DuePlan((next_run,), 0, None)
    recent: deque[int] = deque(maxlen=max_catchup)
    planned: int | None = next_run
    count = 0
    while planned is not None and planned <= now_ms and count < _CRON_SCAN_LIMIT:
        recent.append(planned)
        count += 1
        planned = schedule.cron.next_after(planned)
    if planned is not None and planned <= now_ms:
        # Years of downtime on a per-minute cron: stop counting, resume from now.
        planned = schedule.cron.next_after(now_ms)
    return DuePlan(tuple(recent), count - len(recent), planned)
