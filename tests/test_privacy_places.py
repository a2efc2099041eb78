"""Places found by how they are written: a hashtag's, a town before its country; and the
texts the detector revisions that find them read again."""

from __future__ import annotations

import pytest

from privault.privacy.detector import REVISION_SCOPES
from privault.privacy.names import NameLists
from privault.privacy.places import Gazetteer, find_tagged_places, find_towns_before_countries

PLACES = Gazetteer(
    countries=frozenset({"france", "denmark", "czech republic"}),
    cities=frozenset(
        {"manchester", "nice", "new york", "aix-en-provence", "mongo", "ulm", "victoria"}
    ),
)
WORDS = NameLists(frozenset({"victoria"}), frozenset(), frozenset({"nice", "day", "trip", "club"}))
WRITTEN = frozenset({"manchester", "nice", "day", "trip", "club", "ulm", "victoria"})


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
        ("#victoria-measurements", []),  # a given name too: a word or a person as often
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


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Inger Lassen\nTel. 90141028\nSøborg, Denmark", ["Søborg"]),  # a signature's town
        ("We stayed in Videbæk, Denmark.", ["Videbæk"]),
        ("from Port Annettechester, France", ["Port Annettechester"]),
        ("Thanks, France!", []),  # a dictionary word
        ("Ana Silva, France", []),  # a given name first: a person, not a town
        ("France, Czech Republic", []),  # two countries
        ("Meeting notes, France office", []),  # no capitalised run right before the comma
    ],
)
def test_the_town_written_before_a_country(text: str, expected: list[str]) -> None:
    words = NameLists(frozenset({"ana"}), frozenset({"silva"}), frozenset({"thanks"}))
    spans = find_towns_before_countries(text, PLACES, words)
    assert [text[s.start : s.end] for s in spans] == expected
    assert all(s.kind == "LOCATION" for s in spans)
    assert REVISION_SCOPES[45](text) is bool(expected)
