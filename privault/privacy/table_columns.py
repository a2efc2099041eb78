"""Values in a table's columns whose header says what they hold.

A pasted spreadsheet, a contacts export or a log writes its values without the words that
announce a name or a place in a sentence: "marrowgate" under "Last Name", "derby" under
"town", "ffernandez" under "user". Where the header row names such a column, each value
in it is a span of that column's kind.

A table is two lines or more in a row that split into the same number of cells (two or
more) by one delimiter: a comma, a semicolon, a tab, or the pipes of a markdown table
(its `|---|` rule skipped). Its first line is the header: short cells, none ending a
sentence (not a line of prose with as many commas as the next). A cell within double
quotes may hold the delimiter. Cells that name nothing ("n/a", "-", a number, a date) or
hold an address (`@`: the address recognizers read those) are left alone, and so are
cells past `MAX_CELL` characters, and single everyday words in an account's column
("root", "admin", "system").
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from privault.privacy.names import NameLists, load_name_lists
from privault.privacy.ordinary import is_ordinary
from privault.spans import Span

SCORE = 0.6
MAX_CELL = 60
MAX_HEADER = 30  # a header cell is a few words
DELIMITERS = (",", ";", "\t", "|")


def _headers(words: str, kind: str) -> dict[str, str]:
    return {header.strip(): kind for header in words.split(",") if header.strip()}


# Header cells (lower case, `_` and `-` read as spaces), each with the kind of its values.
PEOPLE = _headers(
    """name, full name, first name, given name, forename, last name, surname, family name,
    middle name, nickname, display name, contact, contact name, customer, customer name,
    client, client name, employee, employee name, patient, patient name, student,
    student name, member, guest, guest name, attendee, participant, tenant, landlord,
    driver, passenger, person, emergency contact, next of kin""",
    "PERSON",
)
# Columns of accounts: their single everyday words ("root", "admin") name no one.
ACCOUNTS = _headers(
    "user, username, user name, user id, login, owner, author, assignee, reporter, sender, "
    "recipient",
    "PERSON",
)
PLACES = _headers(
    "city, town, village, place, location, country, county, birthplace, place of birth, "
    "hometown, home town",
    "LOCATION",
)
ADDRESSES = _headers(
    "address, street, street address, home address, postal address, address line 1, "
    "address 1, address1",
    "ADDRESS",
)
HEADERS = {**PEOPLE, **ACCOUNTS, **PLACES, **ADDRESSES}
# A line that could head such a table holds one of their words (a cheap test per line).
_HEADER_WORD = re.compile(
    "|".join(sorted({word for header in HEADERS for word in header.split()}, key=len)[::-1]),
    re.IGNORECASE,
)
_EMPTY = frozenset("n/a na none null nil unknown - -- — tbd tbc ? yes no true false".split())
_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")


def find_column_values(text: str) -> list[Span]:
    """A span for each value that a table in `text` holds under a header naming people,
    accounts, places or addresses."""
    lists = load_name_lists()
    spans: list[Span] = []
    for header, rows in _labelled_tables(text):
        keys = [_header_key(text[start:end]) for start, end in header]
        for row in rows:
            for (start, end), key in zip(row, keys, strict=True):
                kind = HEADERS.get(key)
                if kind and _names_something(text[start:end], key in ACCOUNTS, lists):
                    spans.append(Span(start, end, kind, SCORE, "column"))
    return spans


def header_labels(text: str) -> list[tuple[int, int]]:
    """Where the header cells that `HEADERS` knows stand in `text`'s tables: field names
    ("First Name", "City"), which name no one whatever a recogniser made of them."""
    return [
        (start, end)
        for header, _ in _labelled_tables(text)
        for start, end in header
        if _header_key(text[start:end]) in HEADERS
    ]


def _labelled_tables(
    text: str,
) -> Iterator[tuple[list[tuple[int, int]], list[list[tuple[int, int]]]]]:
    """(header cells, rows of cells) of each table in `text` whose header names at least
    one column `HEADERS` knows."""
    if "\n" not in text or not any(delimiter in text for delimiter in DELIMITERS):
        return
    lines = [(match.start(), match.group()) for match in re.finditer(r"[^\n]+", text)]
    for header, *rows in _tables(lines):
        titles = [text[start:end] for start, end in header]
        if not all(0 < len(title) <= MAX_HEADER and title[-1] not in ".!?" for title in titles):
            continue
        if any(_header_key(title) in HEADERS for title in titles):
            yield header, rows


def _tables(lines: list[tuple[int, str]]) -> Iterator[list[list[tuple[int, int]]]]:
    """Runs of lines that split alike, each as rows of cells (start, end in the text),
    the header first, a word of `HEADERS` in it; a markdown table's rule row left out."""
    index = 0
    while index < len(lines):
        found = None
        line = lines[index][1]
        if not any(delimiter in line for delimiter in DELIMITERS) or not _HEADER_WORD.search(line):
            index += 1
            continue
        for delimiter in DELIMITERS:
            header = _cells(*lines[index], delimiter)
            if len(header) < 2:
                continue
            rows = [header]
            following = index + 1
            while following < len(lines):
                start, line = lines[following]
                if delimiter == "|" and _RULE.match(line):
                    following += 1
                    continue
                cells = _cells(start, line, delimiter)
                if len(cells) != len(header):
                    break
                rows.append(cells)
                following += 1
            if len(rows) > 1:
                found = (rows, following)
                break
        if found is None:
            index += 1
            continue
        yield found[0]
        index = found[1]


def _cells(offset: int, line: str, delimiter: str) -> list[tuple[int, int]]:
    """The cells of `line` (at `offset` in the text) split by `delimiter` outside double
    quotes, each trimmed of spaces and quotes; a markdown row's outer pipes are not cells."""
    if delimiter not in line:
        return []
    bounds: list[tuple[int, int]] = []
    quoted = False
    begin = 0
    for position, char in enumerate(line):
        if char == '"':
            quoted = not quoted
        elif char == delimiter and not quoted:
            bounds.append((begin, position))
            begin = position + 1
    bounds.append((begin, len(line)))
    if delimiter == "|":
        if not line[: bounds[0][1]].strip():
            bounds = bounds[1:]
        if bounds and not line[bounds[-1][0] :].strip():
            bounds = bounds[:-1]
    cells = []
    for start, end in bounds:
        while start < end and line[start] in ' "':
            start += 1
        while end > start and line[end - 1] in ' "\r':
            end -= 1
        cells.append((offset + start, offset + end))
    return cells


def _header_key(cell: str) -> str:
    return " ".join(re.sub(r"[_\-:*]", " ", cell.lower()).split())


def _names_something(value: str, account: bool, lists: NameLists) -> bool:
    """Whether a cell's value can name someone or somewhere (see the module docstring)."""
    if not value or len(value) > MAX_CELL or "@" in value or value.lower() in _EMPTY:
        return False
    if not any(char.isalpha() for char in value):
        return False  # a number, a date, a time
    return not (account and value.isalpha() and is_ordinary(value, lists))
