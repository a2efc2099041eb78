"""The date of a Notion database row, read from its date-named property.

Notion writes a date into the CSV the way its owner chose to see it: "May 1, 2024 3:04 PM",
"2024/05/01", or with slashes, day first or month first. "05/01/2024" is then 5 January or
1 May, and the CSV does not say which; each column is read in the order its own values
prove. A first field over 12 ("13/05/2024") can only be a day, and so can a second one
("05/13/2024"). A column where no value proves either is read day first, as it always was:
a month-first database whose days all fall on the 12th or before is read wrong, which no
reader of the values alone can avoid.

The order is learnt from the rows as the CSV is read, once: a row is held back until each
date column has proven its order or shown it writes no slashed dates (Notion writes every
value of a date property in its one chosen format, so a first value that is not slashed
says so). A table whose slashed dates prove nothing, or whose date columns are empty, is
held whole (as parsed rows, within the limit of a file read whole).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TypeVar

from privault.imports.sources import time_in_formats

DATE_NAMES = ("created", "created time", "date created", "created at", "date")
DAY_FIRST = "%d/%m/%Y"
MONTH_FIRST = "%m/%d/%Y"
_WORDED_FORMATS = ("%B %d, %Y %I:%M %p", "%B %d, %Y", "%Y-%m-%d", "%Y/%m/%d")
_SLASHED = re.compile(r"^(\d{1,2})/(\d{1,2})/\d{4}\b")
_NotRow = TypeVar("_NotRow")  # what a reader yields in a row's place


def with_orders(
    header: Sequence[str], rows: Iterable[list[str] | _NotRow]
) -> Iterator[tuple[list[str] | _NotRow, Mapping[str, str]]]:
    """Each row of a database's CSV, in order, beside the order (`DAY_FIRST` or
    `MONTH_FIRST`) of each date column whose values prove one. Anything but a row (a
    malformed one, which the reader reports) ends the learning."""
    dated = [(at, name) for at, name in enumerate(header) if _is_date_name(name)]
    orders: dict[str, str] = {}
    open_columns = {name for _, name in dated}
    held: list[list[str] | _NotRow] = []
    for values in rows:
        if not isinstance(values, list):
            open_columns.clear()
        elif open_columns:
            for at, name in dated:
                value = values[at].strip() if at < len(values) else ""
                if name not in open_columns or not value:
                    continue
                order = _proven(value)
                if order is not None:
                    orders[name] = order
                if order is not None or not _SLASHED.match(value):  # or not slashed at all
                    open_columns.discard(name)
        if open_columns:
            held.append(values)
            continue
        yield from ((row, orders) for row in held)
        held.clear()
        yield values, orders
    yield from ((row, orders) for row in held)


def row_date(properties: Mapping[str, str], orders: Mapping[str, str]) -> int | None:
    """The row's date as epoch ms UTC: its first date-named property that reads as a date
    (a range's start), slashed dates in the order `orders` gives their column."""
    for name, value in properties.items():
        if not (_is_date_name(name) and value.strip()):
            continue
        text = value.split("→")[0].strip()
        order = orders.get(name, DAY_FIRST)
        found = time_in_formats(
            text, (*_WORDED_FORMATS, order, f"{order} %I:%M %p", f"{order} %H:%M")
        )
        if found is not None:
            return found
    return None


def _is_date_name(name: str) -> bool:
    return name.strip().lower() in DATE_NAMES


def _proven(value: str) -> str | None:
    """The order a slashed date can only be written in, or None when it could be either."""
    match = _SLASHED.match(value.strip())
    if match is None:
        return None
    first, second = int(match.group(1)), int(match.group(2))
    if first > 12 >= second:
        return DAY_FIRST
    if second > 12 >= first:
        return MONTH_FIRST
    return None
