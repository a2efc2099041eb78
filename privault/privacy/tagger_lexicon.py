"""The word lists the name tagger (`privault.privacy.tagger`) reads each word against.

A word's flags say which lists hold it: given names, surnames, the dictionary (or an
inflection of a dictionary word, or a word of spaCy's vocabulary), cities, countries. The
tagger learns what each combination means in context; it never decides by a list alone.
"""

from __future__ import annotations

import functools
import json
import re

from privault.errors import ModelError
from privault.privacy.names import NameLists, load_name_lists, package_dir
from privault.privacy.places import Gazetteer, load_gazetteer

# Inflectional endings and what the dictionary form ends with instead.
_ENDINGS = (("ies", "y"), ("es", ""), ("s", ""), ("ied", "y"), ("ed", ""), ("ing", ""),
            ("ly", ""), ("er", ""), ("ers", ""), ("est", ""))  # fmt: skip
# Two everyday words run together, written small, are a word too ("troubleshooting",
# "rewatch", "screentime"): a head of four letters or more, or one of these prefixes,
# before a tail of four or more, both dictionary words that running English text uses.
# Surnames are run together so too ("Marrowgate"): capitalised, a word keeps the reading
# it was trained with. On every PII set no value leaked that had not, and fewer clean
# labels were masked (the ninth set by another hand: 18 -> 16 of 220).
_PREFIXES = frozenset("re un pre over under out sub mis non multi self".split())
_SHORTEST_PART = 4
# British spellings and the American ones the dictionary prints instead ("organising",
# "colour", "centre", "travelled", "analyse", "catalogue", "licence", "programme"): each
# pattern rewritten alone, then looked up as any word is.
_AMERICAN = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r"is(?=(?:e|ed|es|ing|ation|ations|er|ers)$)", "iz"),
        (r"ys(?=(?:e|ed|es|ing)$)", "yz"),
        (r"our(?=(?:s|ed|ing|ite|ites|ful|able|er|ers)?$)", "or"),
        (r"tre(?=s?$)", "ter"),
        (r"ll(?=(?:ed|ing|er|ers)$)", "l"),
        (r"ogue(?=s?$)", "og"),
        (r"ence(?=s?$)", "ense"),
        (r"mme(?=s?$)", "m"),
    )
)


class Lexicon:
    """Word -> the lists that hold it, as a short string ("F.W..." = given name and word).

    The third letter says how ordinary the word is: `W` a dictionary word, `w` an
    inflection of one ("felines"), `v` a word of the small spaCy pipeline's vocabulary
    (words its training text used: "christmas", "bestseller"), `.` none of these. The
    sixth says whether that vocabulary holds the word whatever the lists say: the name
    and dictionary lists are wide ("garden" is a listed given name and surname), and a
    word seen in running text is an everyday word more often than one that was not.
    """

    def __init__(
        self,
        lists: NameLists,
        places: Gazetteer,
        vocabulary: frozenset[str],
        *,
        british: bool = True,
        compounds: bool = True,
    ) -> None:
        self.lists = lists
        self.places = places
        self.vocabulary = vocabulary
        self.british = british  # British spellings are dictionary words too (`_AMERICAN`)
        self.compounds = compounds  # so are two words run together (`_PREFIXES`)

    @functools.lru_cache(maxsize=65536)  # noqa: B019 - one lexicon per process
    def flags(self, folded: str, small: bool = False) -> str:
        """The flags of `folded`, a word written in lower case if `small`."""
        lists, places = self.lists, self.places
        return "".join(
            (
                "F" if folded in lists.first else ".",
                "L" if folded in lists.last else ".",
                self._ordinary(folded, small),
                "C" if folded in places.cities else ".",
                "N" if folded in places.countries else ".",
                # seen in running English text at all: "garden" and "john" are,
                # "misty", "okafor" and "casserole" are not
                "v" if folded in self.vocabulary else ".",
            )
        )

    def _ordinary(self, folded: str, small: bool = False) -> str:
        if folded in self.lists.words:
            return "W"
        if (
            self._inflected(folded)
            or (self.british and self._british(folded))
            or (small and self.compounds and self._compound(folded))
        ):
            return "w"
        return "v" if folded in self.vocabulary else "."

    def _british(self, folded: str) -> bool:
        """True when `folded` is a dictionary word, or an inflection of one, in its British
        spelling ("organising", "colours"). Not for a word a name list or the gazetteer
        holds: respelt, "Moeller", "Chartres" or "Aumiller" would read as words."""
        lists = self.lists
        if folded in lists.first or folded in lists.last or folded in self.places.cities:
            return False
        for pattern, replacement in _AMERICAN:
            american = pattern.sub(replacement, folded, count=1)
            if american != folded and (american in lists.words or self._inflected(american)):
                return True
        return False

    def _compound(self, folded: str) -> bool:
        """True when `folded` is two everyday words run together, or one after a prefix
        (`_PREFIXES`). Not for a word a name list or the gazetteer holds."""
        lists, places = self.lists, self.places
        if any(folded in listed for listed in (lists.first, lists.last, places.cities)):
            return False
        if folded in places.countries:
            return False

        def everyday(word: str) -> bool:
            return word in lists.words and word in self.vocabulary

        for cut in range(2, len(folded) - _SHORTEST_PART + 1):
            head, tail = folded[:cut], folded[cut:]
            if (head in _PREFIXES or (len(head) >= _SHORTEST_PART and everyday(head))) and (
                everyday(tail) or self._inflected(tail)
            ):
                return True
        return False

    def _inflected(self, folded: str) -> bool:
        """True when `folded` is a dictionary word with an ending the dictionary leaves out
        ("felines", "booked", "closing", "quickly")."""
        words = self.lists.words
        for ending, replacement in _ENDINGS:
            if folded.endswith(ending) and len(folded) - len(ending) >= 3:
                stem = folded[: len(folded) - len(ending)] + replacement
                if stem in words or (replacement == "" and stem + "e" in words):
                    return True
        return False


@functools.cache
def lexicon() -> Lexicon:
    """The process's lexicon over the shipped name, word and place lists."""
    return Lexicon(load_name_lists(), load_gazetteer(), spacy_vocabulary())


@functools.cache
def spacy_vocabulary() -> frozenset[str]:
    """The lower-case alphabetic words of the small spaCy pipeline's vocabulary."""
    from privault.privacy.engine import SPACY_MODELS

    for name in SPACY_MODELS:
        try:
            folder = package_dir(name)
        except ModelError:
            continue
        for path in sorted(folder.glob("*/vocab/strings.json")):
            try:
                strings = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise ModelError(f"cannot read spaCy's vocabulary {path}: {exc}") from None
            return frozenset(
                w for w in strings if isinstance(w, str) and w.isalpha() and w.islower()
            )
    raise ModelError("no spaCy English pipeline installed; run `privault models install`")
