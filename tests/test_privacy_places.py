"""Places a hashtag names (`places.find_tagged_places`), and the texts revision 44 reads."""

from __future__ import annotations

import pytest

from privault.privacy.detector import REVISION_SCOPES
from privault.privacy.names import NameLists
from privault.privacy.places import Gazetteer, find_tagged_places

PLACES = Gazetteer(
    countries=frozenset({"france", "czech republic"}),
    cities=frozenset({"manchester", "nice", "new york", "aix-en-provence", "mongo", "ulm"}),
)
WORDS = NameLists(frozenset(), frozenset(), frozenset({"nice", "day", "trip", "club"}))
WRITTEN = frozenset({"manchester", "nice", "day", "trip", "club", "ulm"})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("#lunch-club-manchester", ["manchester"]),
        ("photos #Manchester #family", ["Manchester"]),
        ("#new-york-trip", ["new-york"]),  # listed with a space, tagged with a hyphen
        ("#new_york", ["new_york"]),
        ("#aix-en-provence", ["aix-en-provence"]),  # listed with its hyphens
        ("#france-2019 #czech-republic", ["france", "czech-republic"]),
        ("#nice-day", []),  # a town that is a dictionary word
        ("#ulm", []),  # a town of three letters
        ("#mongo-setup", []),  # a town English text does not write: a tool, here
        ("# Manchester", []),  # a heading, not a tag
        ("C# in Manchester", []),  # capitalised places in running text: `find_places`
        ("page.html#manchester", []),  # an anchor
    ],
)
def test_a_hashtag_names_a_place_in_any_case(text: str, expected: list[str]) -> None:
    spans = find_tagged_places(text, PLACES, WORDS, WRITTEN.__contains__)
    assert [text[s.start : s.end] for s in spans] == expected
    assert all(s.kind == "LOCATION" for s in spans)


@pytest.mark.parametrize(
    ("text", "may"),
    [
        ("#lunch-club-manchester", True),
        ("notes_#budapest", True),  # read apart: "notes #budapest"
        ("# Budapest", False),
        ("#lunch-club", False),
        ("no tag at all", False),
    ],
)
def test_the_texts_revision_44_could_change_are_told(text: str, may: bool) -> None:
    # The real lists: the scope must hold for every text whose spans could change.
    assert REVISION_SCOPES[44](text) is may
