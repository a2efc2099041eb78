"""Values under a table header that names people, accounts, places or addresses."""

from __future__ import annotations

import pytest

from privault.privacy import Detector, DetectorConfig, Gate, PolicySet
from privault.privacy.table_columns import find_column_values, header_labels

CONTACTS = (
    "First Name,Last Name,Email,Phone,City\n"
    "ilsabet,marrowgate,im@example.org,+44 161 496 0000,leeds\n"
    '"Kofi","Mensah, Jr",kofi@example.com,,Accra\r\n'
    "n/a,-,,,2024\n"
)


def _found(text: str) -> list[tuple[str, str]]:
    return [(text[s.start : s.end], s.kind) for s in find_column_values(text)]


def test_values_under_known_headers_are_spans_of_their_kind() -> None:
    assert _found(CONTACTS) == [
        ("ilsabet", "PERSON"),
        ("marrowgate", "PERSON"),
        ("leeds", "LOCATION"),
        ("Kofi", "PERSON"),
        ("Mensah, Jr", "PERSON"),  # quoted: the comma is the cell's
        ("Accra", "LOCATION"),
    ]
    assert [CONTACTS[a:b] for a, b in header_labels(CONTACTS)] == [
        "First Name",
        "Last Name",
        "City",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "name\tborn\ttown\nottoline vargasz\t1990\tderby",
            [("ottoline vargasz", "PERSON"), ("derby", "LOCATION")],
        ),
        (
            "| Name | Role |\n|---|---|\n| oriel fenwhistle | tutor |\n| Kofi | plumber |",
            [("oriel fenwhistle", "PERSON"), ("Kofi", "PERSON")],
        ),
        # an account's column: an everyday word names no one, a handle does
        ("time;user;action\n09:14;root;login\n09:20;ffernandez;logout", [("ffernandez", "PERSON")]),
        (
            "user_name,street_address\njdoe42,12 Elm Row",
            [("jdoe42", "PERSON"), ("12 Elm Row", "ADDRESS")],
        ),
    ],
)
def test_tables_of_each_delimiter(text: str, expected: list[tuple[str, str]]) -> None:
    assert _found(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Item,Price\nmilk,1.20\nbread,2.00",  # no header it knows
        "Name, address and phone are needed,\nplease send them today, thanks",  # prose
        "Name,City\n",  # a header alone
        "I bought eggs, milk, and bread.\nThen, later, I went home.",
        "single line, with, commas",
    ],
)
def test_what_is_not_a_labelled_table(text: str) -> None:
    assert find_column_values(text) == []


@pytest.mark.real
def test_a_pasted_contacts_table_is_masked_and_its_header_kept() -> None:
    standard = PolicySet.load().resolve("standard")
    detector = Detector(DetectorConfig.build([standard]))
    out = Gate(standard).apply(CONTACTS, detector.detect(CONTACTS)).text
    for value in ("ilsabet", "marrowgate", "leeds", "Kofi", "Mensah", "Accra", "im@example"):
        assert value not in out, out
    assert out.startswith("First Name,Last Name,Email,Phone,City\n"), out
