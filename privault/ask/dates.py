"""Relative dates in a note, anchored to the day the note was written.

A note written on 12 May 2023 that says "yesterday" means 11 May 2023. Asked "when", a
small model copies the note's own date or the word itself: it does not count back. So
before a note goes into the prompt, each relative expression gets, in brackets, what it
means on the note's day: "yesterday (11 May 2023)", "last month (April 2023)".

Where the expression is approximate the bracket says so in the same words rather than
invent a precise day: "two weeks ago (two weeks before 12 May 2023)", "last Sunday (the
Sunday before 12 May 2023)". Only the wording of the text changes for the model; what is
stored, searched and cited is untouched.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, timedelta

__all__ = ["anchored", "spoken"]

_WEEKDAYS = "monday tuesday wednesday thursday friday saturday sunday".split()
# Short forms people write ("last Fri", "last Tues"). "sat" and "sun" are left out: "the
# chair I last sat on" is not a Saturday.
_SHORT_WEEKDAYS = {
    "mon": "monday",
    "tue": "tuesday",
    "tues": "tuesday",
    "wed": "wednesday",
    "weds": "wednesday",
    "thu": "thursday",
    "thur": "thursday",
    "thurs": "thursday",
    "fri": "friday",
}
_NUMBERS = {"a": 1, "an": 1} | {
    word: number
    for number, word in enumerate("one two three four five six seven eight nine ten".split(), 1)
}
_COUNT = rf"(?P<count>\d{{1,2}}|{'|'.join(_NUMBERS)}|a few|a couple of|several)"
_UNIT = r"(?P<unit>day|weekend|week|month|year)s?"


def spoken(day: date) -> str:
    """A day as people write it: 7 May 2023."""
    return f"{day.day} {day:%B %Y}"


def _month(day: date, step: int) -> str:
    month = day.month - 1 + step
    return date(day.year + month // 12, month % 12 + 1, 1).strftime("%B %Y")


def _ago(match: re.Match[str], day: date) -> str:
    count, unit = match["count"].lower(), match["unit"].lower()
    number = _NUMBERS.get(count) or (int(count) if count.isdigit() else None)
    if unit == "day" and number is not None:
        return spoken(day - timedelta(days=number))
    return f"{match[0][: -len(' ago')].lower()} before {spoken(day)}"


def _weekday(match: re.Match[str]) -> str:
    said = match["weekday"].lower()
    return _SHORT_WEEKDAYS.get(said, said).capitalize()


def _last_weekday(match: re.Match[str], day: date) -> str:
    return f"the {_weekday(match)} before {spoken(day)}"


def _next_weekday(match: re.Match[str], day: date) -> str:
    return f"the {_weekday(match)} after {spoken(day)}"


_Rule = tuple[re.Pattern[str], Callable[[re.Match[str], date], str]]


def _rule(pattern: str, meaning: Callable[[re.Match[str], date], str]) -> _Rule:
    return re.compile(rf"\b(?:{pattern})\b", re.IGNORECASE), meaning


_WEEKDAY = rf"(?P<weekday>{'|'.join(_WEEKDAYS + sorted(_SHORT_WEEKDAYS, key=len, reverse=True))})"
# The word boundaries keep "last week" from matching inside "last weekend".
_RULES: tuple[_Rule, ...] = (
    _rule(r"yesterday|last night", lambda m, d: spoken(d - timedelta(days=1))),
    _rule(r"the day before yesterday", lambda m, d: spoken(d - timedelta(days=2))),
    _rule(r"today|tonight|this morning|this afternoon|this evening", lambda m, d: spoken(d)),
    _rule(r"tomorrow", lambda m, d: spoken(d + timedelta(days=1))),
    _rule(rf"{_COUNT} {_UNIT} ago", _ago),
    _rule(r"last week|(?:this )?past week", lambda m, d: f"the week before {spoken(d)}"),
    _rule(r"last weekend|(?:this )?past weekend", lambda m, d: f"the weekend before {spoken(d)}"),
    _rule(r"this week", lambda m, d: f"the week of {spoken(d)}"),
    _rule(r"next week", lambda m, d: f"the week after {spoken(d)}"),
    _rule(r"next weekend", lambda m, d: f"the weekend after {spoken(d)}"),
    _rule(r"last month", lambda m, d: _month(d, -1)),
    _rule(r"this month", lambda m, d: _month(d, 0)),
    _rule(r"next month", lambda m, d: _month(d, 1)),
    _rule(r"last year", lambda m, d: str(d.year - 1)),
    _rule(r"this year", lambda m, d: str(d.year)),
    _rule(r"next year", lambda m, d: str(d.year + 1)),
    _rule(rf"last {_WEEKDAY}", _last_weekday),
    _rule(rf"next {_WEEKDAY}", _next_weekday),
)
# One pass over the text finds them all, leftmost first, so an expression is
# bracketed once ("the day before yesterday" is not bracketed again for its "yesterday").
_ANY = re.compile(
    "|".join(re.sub(r"\(\?P<\w+>", "(?:", pattern.pattern) for pattern, _ in _RULES),
    re.IGNORECASE,
)


def anchored(text: str, day: date) -> str:
    """`text` with each relative date followed by what it means on `day`, in brackets."""

    def annotate(match: re.Match[str]) -> str:
        words = match[0]
        for pattern, meaning in _RULES:
            whole = pattern.fullmatch(words)
            if whole:
                return f"{words} ({meaning(whole, day)})"
        return words  # not reached: _ANY matches only what one of the rules matches

    return _ANY.sub(annotate, text)
