"""Intervals, cron, no drift, bounded catch-up."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privault.errors import InputError
from privault.timeutil import EARLIEST_MS, LATEST_MS, parse_time
from privault.watches.cron import CronExpression
from privault.watches.schedule import Schedule, parse_interval, plan_due
from tests.helpers import examples

MINUTE, HOUR, DAY = 60_000, 3_600_000, 86_400_000


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("30m", 30 * MINUTE),
        ("6h", 6 * HOUR),
        ("1d", DAY),
        ("1w", 7 * DAY),
        ("1h30m", 90 * MINUTE),
        ("2d12h", 60 * HOUR),
        ("1H", HOUR),
    ],
)
def test_intervals_parse(text: str, ms: int) -> None:
    assert parse_interval(text) == ms


@pytest.mark.parametrize("text", ["", "5", "m", "1x", "30m1h", "-1h", "30s", "1.5h", "1 h"])
def test_bad_intervals_are_refused(text: str) -> None:
    with pytest.raises(InputError):
        parse_interval(text)


@pytest.mark.parametrize(
    ("expression", "after", "expected"),
    [
        ("*/15 * * * *", "2026-03-01T10:07:00Z", "2026-03-01T10:15:00Z"),
        ("0 9 * * mon-fri", "2026-03-06T09:00:00Z", "2026-03-09T09:00:00Z"),  # Fri -> Mon
        ("30 8 1 * *", "2026-03-01T09:00:00Z", "2026-04-01T08:30:00Z"),
        ("0 0 29 feb *", "2026-03-01T00:00:00Z", "2028-02-29T00:00:00Z"),
        ("0 12 * * 7", "2026-03-01T12:00:00Z", "2026-03-08T12:00:00Z"),  # 7 = Sunday
        ("0 0 13 * fri", "2026-03-01T00:00:00Z", "2026-03-06T00:00:00Z"),  # dom OR dow
        ("@daily", "2026-03-01T00:00:00Z", "2026-03-02T00:00:00Z"),
        ("5-10/5 1,2 * jan,jun *", "2026-01-01T01:06:00Z", "2026-01-01T01:10:00Z"),
    ],
)
def test_cron_next(expression: str, after: str, expected: str) -> None:
    assert CronExpression.parse(expression).next_after(parse_time(after)) == parse_time(expected)


@pytest.mark.parametrize(
    "expression",
    [
        "* * * *",
        "60 * * * *",
        "* 24 * * *",
        "0 0 30 feb *",
        "*/0 * * * *",
        "5-1 * * * *",
        "0 0 * * funday",
    ],
)
def test_bad_cron_is_refused(expression: str) -> None:
    with pytest.raises(InputError):
        Schedule.parse(expression)


def test_catch_up_runs_the_most_recent_and_counts_the_rest() -> None:
    schedule = Schedule.parse("1h")
    start = parse_time("2026-03-01T00:00:00Z")
    plan = plan_due(schedule, start, start + 10 * HOUR + 5 * MINUTE, max_catchup=3)
    assert plan.run_at == (start + 8 * HOUR, start + 9 * HOUR, start + 10 * HOUR)
    assert plan.skipped == 8
    assert plan.next_run == start + 11 * HOUR


def test_cron_catch_up_is_bounded() -> None:
    schedule = Schedule.parse("0 * * * *")
    start = parse_time("2026-03-01T00:00:00Z")
    plan = plan_due(schedule, start, start + 5 * HOUR, max_catchup=2)
    assert plan.run_at == (start + 4 * HOUR, start + 5 * HOUR)
    assert plan.skipped == 4
    assert plan.next_run == start + 6 * HOUR


def test_one_off_runs_once_then_finishes() -> None:
    plan = plan_due(Schedule.parse(None), 1_000, 5_000, max_catchup=3)
    assert plan.run_at == (1_000,) and plan.next_run is None


@settings(max_examples=examples(200), deadline=None)
@given(
    interval_minutes=st.integers(min_value=5, max_value=60 * 24 * 7),
    gaps=st.lists(st.integers(min_value=0, max_value=10 * DAY), min_size=1, max_size=20),
    max_catchup=st.integers(min_value=1, max_value=5),
    use_cron=st.booleans(),
)
def test_schedule_does_not_drift_and_catch_up_is_bounded(
    interval_minutes: int, gaps: list[int], max_catchup: int, use_cron: bool
) -> None:
    """Polled at arbitrary moments, every run is on the grid and none runs twice."""
    schedule = Schedule.parse("*/7 */3 * * *" if use_cron else f"{interval_minutes}m")
    anchor = parse_time("2026-01-01T00:00:00Z")
    next_run: int | None = schedule.first_at_or_after(anchor)
    assert next_run is not None
    now, ran, skipped = anchor, [], 0
    for gap in gaps:
        now += gap
        assert next_run is not None
        plan = plan_due(schedule, next_run, now, max_catchup)
        assert len(plan.run_at) <= max_catchup
        ran.extend(plan.run_at)
        skipped += plan.skipped
        next_run = plan.next_run
        assert next_run is not None and next_run > now
    assert ran == sorted(set(ran))  # in order, none twice
    grid: list[int] = []
    point = schedule.first_at_or_after(anchor)
    while point <= now:
        grid.append(point)
        nxt = schedule.next_after(point)
        assert nxt is not None
        point = nxt
    assert set(ran) <= set(grid)  # on the planned grid: no drift
    assert len(ran) + skipped == len(grid)  # every planned time either ran or was counted
    assert next_run == point


@pytest.mark.parametrize(
    "text", ["1000000w", "99999999999999999999w", "3654d", "522w", "1" + "0" * 5000 + "w"]
)
def test_an_interval_over_ten_years_is_refused(text: str) -> None:
    with pytest.raises(InputError, match="longer than ten years: give at most 3653d"):
        parse_interval(text)
    with pytest.raises(InputError, match="longer than ten years"):
        Schedule.parse(text)


def test_ten_years_is_the_longest_interval_and_a_stored_longer_one_still_loads() -> None:
    assert parse_interval("3653d") == parse_interval("521w6d") == 3653 * DAY
    with pytest.raises(InputError, match="longer than ten years"):
        parse_interval("521w6d1m")
    assert Schedule.stored("1000000w").interval_ms == 1_000_000 * 7 * DAY  # an older version's
    huge = Schedule.stored("1" + "0" * 5000 + "w")  # past int()'s digits: capped, still huge
    assert huge.interval_ms is not None and huge.interval_ms > 10**15


def test_no_planned_time_is_made_past_the_years_kept() -> None:
    late = LATEST_MS - 30 * MINUTE
    interval = Schedule.parse("1h")
    assert interval.next_after(late) is None
    plan = plan_due(interval, late, late + MINUTE, max_catchup=1)
    assert plan.run_at == (late,) and plan.next_run is None  # finished, as a one-off
    cron = Schedule.parse("0 9 * * *")
    assert cron.next_after(parse_time("9999-12-30T12:00:00Z")) == parse_time("9999-12-31T09:00Z")
    assert cron.next_after(late) is None
    assert plan_due(cron, late, late + MINUTE, max_catchup=1).next_run is None
    every_minute = Schedule.parse("* * * * *")
    last_minute = parse_time("9999-12-31T23:59:00Z")
    assert every_minute.next_after(parse_time("9999-12-31T23:58:30Z")) == last_minute
    assert every_minute.next_after(last_minute) is None
    with pytest.raises(InputError, match="no time left before the year 10000"):
        cron.first_at_or_after(late)
    assert cron.shortest_gap_ms(late) is None


def test_a_stored_time_before_the_years_kept_still_plans() -> None:
    cron = Schedule.parse("@yearly")
    assert cron.next_after(-(10**15)) == parse_time("1000-01-01T00:00:00Z")
    assert cron.next_after(EARLIEST_MS) == parse_time("1001-01-01T00:00:00Z")
