"""Everyday words the 1934 dictionary lacks: newer English, and six other languages.

The detector reads a capitalised word as ordinary when Webster's 2nd (1934) lists it in
lower case. That dictionary knows no "retro", "brainstorm" or "sunscreen", lists few
inflected forms ("darkest", "varieties"), and no word of another language: a French,
German or Spanish note had "jeudi", "habitación doble" or "Objet" masked as names.

`lexicon.txt.gz`, shipped beside this module, holds what fills the gap, taken from the
word frequencies `pyspellchecker` ships (MIT; counted in film subtitles):

- **newer English**: the 50,000 most frequent English words that the dictionary lacks;
- **everyday words** of German, French, Spanish, Italian, Portuguese and Dutch: each
  language's 50,000 most frequent words;
- **function words** of each of those languages: those of its 300 most frequent words
  that English does not write ("und", "ich", "avec", "muy"; not "pour", "den", "bin"),
  which say a line is written in it. Names are not left out of these: "Der", "Les" and
  "Sehr" are listed names, and read as names only where no language is said.

A word any name or place list holds is left out ("pierre", "rosa", "garcia", a country,
a city of 15,000 people), and so is a newer English word that English text writes
capitalised at least `name_words.NAME_RATIO` times as often as not ("Nietzsche",
"Guinness", "Punjab").

A newer English word is ordinary wherever it stands. A word of another language is
ordinary only where, within `WINDOW` characters and other than itself, a function word of
that language stands, or two of its everyday words written in lower case that English
lacks ("Ho ricevuto le chiavi"): "Lenti" and "Trieben" are towns in an English sentence
("…, Trieben, on Sunday"), and a chat handle that is a Portuguese word is a handle
("[09:14] deste: running late").
Rebuild the file with

    pip install pyspellchecker==0.9.1 spacy-lookups-data==1.0.5
    python -m privault.privacy.lexicon --write

Neither package is a dependency: only this derivation reads them.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import itertools
import math
import re
from bisect import bisect_left
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from privault.errors import ModelError
from privault.privacy.name_words import NAME_RATIO, lookups_probabilities, packaged_table
from privault.privacy.names import NameLists, fold, load_name_lists
from privault.privacy.places import load_gazetteer

LEXICON_FILE = Path(__file__).with_name("lexicon.txt.gz")
LANGUAGES = ("de", "fr", "es", "it", "pt", "nl")
RANK = 50_000  # the most frequent words of each language taken as everyday words
FUNCTION_RANK = 300  # ... and, of these, the first ones as its function words
# A function word is none of English's most frequent words, nor a dictionary word among
# the words English texts use.
ENGLISH_RANK = 3_000
ENGLISH_USED = 30_000
WINDOW = 200  # how near a function word says the language (characters either side)
_LETTERS = re.compile(r"[^\W\d_]+")
HEADER = (
    "# Everyday words the 1934 dictionary lacks (see lexicon.py): a line per list,\n"
    "# 'LANGUAGE KIND<TAB>words', KIND 'words' or 'function'; 'en words' is newer English.\n"
)


class WordList:
    """A large word list kept as strings, one for each two-letter start: ~3 MB for the six
    languages, where sets of their 270,000 words took 35 MB in every process that
    detects. A lookup scans one string of ~1 KB."""

    def __init__(self, words: Iterable[str]) -> None:
        ordered = sorted(set(words))
        self._size = len(ordered)
        self._buckets = {
            start: "\n" + "\n".join(group) + "\n"
            for start, group in itertools.groupby(ordered, key=lambda word: word[:2])
        }

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str) or "\n" in key:
            return False
        return f"\n{key}\n" in self._buckets.get(key[:2], "")

    def __iter__(self) -> Iterator[str]:
        return (word for start in sorted(self._buckets) for word in self._buckets[start].split())

    def __len__(self) -> int:
        return self._size


# What says a language in a text (`Lexicon._evidence`): the offsets, and the hits there.
_Evidence = tuple[list[int], list[tuple[int, str, frozenset[str], bool]]]


@dataclass(frozen=True)
class Lexicon:
    """Folded words by language: `words["en"]` newer English, the others everyday words
    of that language; `function[lang]` the words that say a line is written in it."""

    words: Mapping[str, Collection[str]]
    function: Mapping[str, frozenset[str]]
    # What said a language in the last text asked about (`_evidence`).
    _last: list[tuple[str, _Evidence]] = field(default_factory=list, repr=False, compare=False)

    def is_everyday(self, key: str, languages: Iterable[str] = ()) -> bool:
        """True when the folded `key` is a newer English word, or an everyday word of one
        of `languages` (a hyphenated word when each of its parts is: "rendez-vous")."""
        if any(key in self.words.get(lang, ()) for lang in ("en", *languages)):
            return True
        parts = key.split("-")
        return len(parts) > 1 and any(
            all(part in self.words.get(lang, ()) for part in parts) for lang in languages
        )

    def languages_near(
        self, text: str, start: int, end: int, english: Collection[str]
    ) -> frozenset[str]:
        """The languages said to be written within `WINDOW` characters of `text[start:end]`
        by words other than itself: one function word of the language, or two everyday
        words of it written in lower case that are no English word (`english` is the
        dictionary; newer English is known here): "Ho ricevuto le chiavi da Giulia"."""
        key = fold(text[start:end])
        function: set[str] = set()
        plain: dict[str, set[str]] = {}
        offsets, hits = self._evidence(text, english)
        # only the words within the window: a long text has thousands, and each is asked
        near = hits[bisect_left(offsets, start - WINDOW) : bisect_left(offsets, end + WINDOW)]
        for _, word, languages, lower in near:
            if word != key:
                for lang in languages:
                    if not lower:
                        function.add(lang)
                    else:
                        plain.setdefault(lang, set()).add(word)
        return frozenset(function | {lang for lang, words in plain.items() if len(words) >= 2})

    def _evidence(self, text: str, english: Collection[str]) -> _Evidence:
        """What in `text` says a language, in order: (offset, folded word, languages,
        False) for a function word, (..., True) for a lower-case everyday word of those
        languages that is no English word; with the list of their offsets. The last
        text's are kept: its words are judged in turn."""
        last = self._last[0] if self._last else None  # one read: threads share the lexicon
        if last is not None and last[0] == text:
            return last[1]
        hits = []
        for match in _LETTERS.finditer(text):
            key = fold(match.group(0))
            languages = frozenset(lang for lang, words in self.function.items() if key in words)
            if languages:
                hits.append((match.start(), key, languages, False))
            elif match.group(0).islower() and key not in english and not self.is_everyday(key):
                languages = frozenset(lang for lang in self.function if key in self.words[lang])
                if languages:
                    hits.append((match.start(), key, languages, True))
        evidence = ([hit[0] for hit in hits], hits)
        self._last[:] = [(text, evidence)]
        return evidence


def derive(
    frequencies: Mapping[str, Mapping[str, int]],
    lists: NameLists,
    places: Iterable[str],
    log_probability: Mapping[str, float],
) -> Lexicon:
    """The lexicon from each language's word counts (`frequencies["en"]` and one per
    `LANGUAGES`): see the module docstring for what is taken and what is left out."""
    excluded = lists.first | lists.last | frozenset(places) | lists.dictionary
    floor = min(log_probability.values(), default=0.0)

    def plain(lang: str, word: str) -> bool:
        if lang != "en":  # another language's words are read only beside its function words
            return True
        capitalised = log_probability.get(word[:1].upper() + word[1:])
        if capitalised is None:
            return True
        return capitalised - log_probability.get(word, floor) < math.log(NAME_RATIO)

    ranked = {lang: _ranked(counts) for lang, counts in frequencies.items()}
    english_rank = {fold(word): rank for rank, word in reversed(list(enumerate(ranked["en"])))}

    def english(key: str) -> bool:
        """Whether English writes `key`: among its most frequent words, or a dictionary
        word its texts use ("den", "bin"; not "ich", which the dictionary holds too)."""
        rank = english_rank.get(key)
        if rank is None:
            return False
        return rank < ENGLISH_RANK or (key in lists.dictionary and rank < ENGLISH_USED)

    words: dict[str, frozenset[str]] = {}
    function: dict[str, frozenset[str]] = {}
    for lang in ("en", *LANGUAGES):
        chosen = set()
        for word in ranked[lang][:RANK]:
            key = fold(word)
            if len(key) >= 3 and key.isalpha() and key not in excluded and plain(lang, word):
                chosen.add(key)
        words[lang] = frozenset(chosen)
        if lang != "en":
            function[lang] = frozenset(
                key
                for key in (fold(word) for word in ranked[lang][:FUNCTION_RANK])
                if len(key) >= 3 and key.isalpha() and not english(key)
            )
    return Lexicon(words, function)


def _ranked(counts: Mapping[str, int]) -> list[str]:
    """Words by count, most frequent first, ties in alphabetical order (deterministic)."""
    return sorted(counts, key=lambda word: (-counts[word], word))


def dumps(lexicon: Lexicon) -> str:
    """The lexicon as the shipped file's text."""
    lines = [HEADER]
    for lang in ("en", *LANGUAGES):
        lines.append(f"{lang} words\t{' '.join(sorted(lexicon.words[lang]))}\n")
        if lang in lexicon.function:
            lines.append(f"{lang} function\t{' '.join(sorted(lexicon.function[lang]))}\n")
    return "".join(lines)


def loads(text: str) -> Lexicon:
    """The lexicon from the shipped file's text; `ModelError` if a list is missing."""
    words: dict[str, Collection[str]] = {}
    function: dict[str, frozenset[str]] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        label, _, listed = line.partition("\t")
        lang, _, kind = label.partition(" ")
        if kind == "function":
            function[lang] = frozenset(listed.split())
        else:  # newer English is looked up for every guessed word: a set
            words[lang] = frozenset(listed.split()) if lang == "en" else WordList(listed.split())
    if set(words) != {"en", *LANGUAGES} or set(function) != set(LANGUAGES):
        raise ModelError("the everyday word list is incomplete; reinstall privault")
    return Lexicon(words, function)


@functools.cache
def load_lexicon() -> Lexicon:
    """The shipped lexicon, read once per process; `ModelError` if it cannot be read."""
    try:
        with gzip.open(LEXICON_FILE, "rt", encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, EOFError) as exc:
        raise ModelError(f"cannot read the everyday word list: {exc}; reinstall privault") from None
    return loads(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"write {LEXICON_FILE.name}")
    args = parser.parse_args(argv)
    gazetteer = load_gazetteer()
    lexicon = derive(
        {
            lang: packaged_table("spellchecker", f"resources/{lang}.json.gz")
            for lang in ("en", *LANGUAGES)
        },
        load_name_lists(),
        gazetteer.countries | gazetteer.cities,
        lookups_probabilities(),
    )
    if args.write:
        # mtime 0: the same lists give the same bytes.
        with open(LEXICON_FILE, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz:
            gz.write(dumps(lexicon).encode("utf-8"))
    sizes = ", ".join(f"{lang} {len(lexicon.words[lang])}" for lang in lexicon.words)
    print(f"everyday words: {sizes}" + (f"; written to {LEXICON_FILE}" if args.write else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
