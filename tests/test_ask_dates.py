"""Relative dates in a note are anchored to the day it was written, in the prompt only."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import date

import pytest

from privault.ask.briefing import AskSection, build_messages
from privault.ask.dates import anchored, spoken
from privault.timeutil import local_day

FRIDAY = date(2023, 5, 12)


@pytest.mark.parametrize(
    ("said", "means"),
    [
        ("yesterday", "11 May 2023"),
        ("Last night", "11 May 2023"),
        ("the day before yesterday", "10 May 2023"),
        ("today", "12 May 2023"),
        ("tomorrow", "13 May 2023"),
        ("3 days ago", "9 May 2023"),
        ("a day ago", "11 May 2023"),
        ("two weeks ago", "two weeks before 12 May 2023"),
        ("A few days ago", "a few days before 12 May 2023"),
        ("last week", "the week before 12 May 2023"),
        ("last weekend", "the weekend before 12 May 2023"),
        ("next week", "the week after 12 May 2023"),
        ("last Sunday", "the Sunday before 12 May 2023"),
        ("next monday", "the Monday after 12 May 2023"),
        ("last month", "April 2023"),
        ("next month", "June 2023"),
        ("last year", "2022"),
        ("last Fri", "the Friday before 12 May 2023"),
        ("last Tues", "the Tuesday before 12 May 2023"),
        ("next thurs", "the Thursday after 12 May 2023"),
        ("this week", "the week of 12 May 2023"),
        ("this past weekend", "the weekend before 12 May 2023"),
        ("two weekends ago", "two weekends before 12 May 2023"),
    ],
)
def test_each_relative_date_gets_its_meaning_beside_it(said: str, means: str) -> None:
    assert anchored(f"We met {said}, I think.", FRIDAY) == f"We met {said} ({means}), I think."


def test_months_and_years_roll_over_at_their_ends() -> None:
    assert anchored("last month", date(2023, 1, 3)) == "last month (December 2022)"
    assert anchored("next month", date(2023, 12, 30)) == "next month (January 2024)"
    assert anchored("yesterday", date(2024, 3, 1)) == "yesterday (29 February 2024)"


def test_an_expression_is_bracketed_once_and_other_words_are_left_alone() -> None:
    text = "The day before yesterday I rested; yesterday I ran. Weekends are for weekdays."
    assert anchored(text, FRIDAY) == (
        "The day before yesterday (10 May 2023) I rested; yesterday (11 May 2023) I ran. "
        "Weekends are for weekdays."
    )
    assert anchored("my last weekender, todays, yesterdays", FRIDAY) == (
        "my last weekender, todays, yesterdays"
    )
    # "sat" and "sun" are words before they are days; "fried" is not "Fri".
    assert anchored("The bench I last sat on, the last sun of summer, last fried egg", FRIDAY) == (
        "The bench I last sat on, the last sun of summer, last fried egg"
    )


def test_the_prompt_shows_the_day_written_and_anchors_the_note() -> None:
    note = AskSection(
        "n1",
        "d1",
        "Diary",
        "Got Coco yesterday!",
        False,
        False,
        (),
        day=date(2023, 8, 11),
        place="Diary › August",
    )
    undated = AskSection("n2", "d2", "List", "Buy milk today.", False, False, ())
    user = build_messages("When did I get Coco?", [note, undated])[-1].content
    assert "[note 1 | trusted | written 11 August 2023 | Diary › August]" in user
    assert "Got Coco yesterday (10 August 2023)!" in user
    # A section without a known day is shown as it is: nothing to count from.
    assert "[note 2 | trusted | List]\nBuy milk today.\n" in user
    assert spoken(date(2023, 8, 1)) == "1 August 2023"


@pytest.fixture
def zone(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize(("tz", "day"), [("UTC", 12), ("America/Los_Angeles", 11)])
def test_a_notes_day_is_the_owners_local_day(
    zone: None, monkeypatch: pytest.MonkeyPatch, tz: str, day: int
) -> None:
    # 03:00 UTC on 12 May 2023 is still the evening of 11 May in California.
    monkeypatch.setenv("TZ", tz)
    time.tzset()
    assert local_day(1_683_860_400_000) == date(2023, 5, day)
