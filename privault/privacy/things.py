"""Names that name a thing: a business, a brand or product, a condition, a kind of place.

A business's name is not a person or a place: one word, or everyday words only, before a
capitalised trade word that ends the run ("Cedar Physio", "Greenleaf Bakery on Friday",
"Blue Door Cafe", "serviced by Oakridge Lettings.", "Okafor Dental") is dropped whatever
found it, unless it is a name found elsewhere in the text and spread to here. A given
name that is no everyday word is a person's ("Priya Dental" is her appointment; "Bauer
Elektro" masks Bauer, a listed given name too), so are two names before the trade word
("Maria Keller Sanitär" masks Maria Keller), and a trade word with a capitalised word
after it starts a heading ("Anna Dental Checkup").

A day the calendar names is no one's either: a festival alone ("Diwali", "Eid al-Fitr"),
or an everyday word before "Day", "Eve" or a weekday ("Boxing Day", "Prime Day",
"Valentine's Day", "Cyber Monday"); not "Doris Day", nor "see Mark Friday" (a given name
before a weekday is a person and when).

Brands, products, dishes and medicines ("The Roomba", "Spotify Premium", "Earl Grey",
"Thai green curry", "Amoxicillin") and conditions named after a person ("Alzheimer's",
"Wilson's disease") are no one's name either (`products` says when, and when a brand
word is still a person's). Nor is a "place" after "the" made of everyday words no place
list holds ("the East Wing", "the Town Hall"): it says nothing of where anyone is.
"""

from __future__ import annotations

import re

from privault.privacy.lexicon import load_lexicon
from privault.privacy.names import CALENDAR, HOLIDAYS, NameLists, fold, is_organisation_word
from privault.privacy.places import load_gazetteer
from privault.privacy.products import names_a_condition, names_a_product
from privault.spans import Span

# The words of a name-like run, and the word after one.
WORD = re.compile(r"[^\s,;:()\[\]|<>\"/]+")
NEXT_WORD = re.compile(r"[ \t]+([^\W\d_][\w.&-]*)")
THE_BEFORE = re.compile(r"\b[Tt]he[ \t]+$")


def names_a_thing(text: str, start: int, end: int, span: Span, lists: NameLists) -> bool:
    """True when the words at `start`-`end` name a business, or a brand, product or dish
    (`products.names_a_product`): for a found person or place, or the tagger's "address"
    with no number in it ("shop at Aldi"). A place after "to" or "from" is no business."""
    if span.source != "place-cue" and _names_a_business(text, start, end, lists):
        return True
    if span.kind == "ADDRESS" and (
        span.source != "learned" or any(char.isdigit() for char in text[start:end])
    ):
        return False
    return span.kind in ("PERSON", "LOCATION", "ADDRESS") and (
        names_a_product(text, start, end, lists) or names_a_condition(text, start, end, lists)
    )


def _names_a_business(text: str, start: int, end: int, lists: NameLists) -> bool:
    """True when the words at `start`-`end` are a business's name: a capitalised trade word
    ends them or stands right after them, last of its run ("Cedar Physio", "Greenleaf
    Bakery on Friday", "Blue Door Cafe"), and what comes before it is one word that is no
    given name unless an everyday word too ("Cedar", "Harbour", "Okafor"), or everyday words
    only. A given name alone before it is a person's errand ("Priya Dental", "Tell Priya
    Pharmacy closes at 6"), two names are a person's ("Maria Keller Sanitär"), a trade word
    with a capitalised word after it starts a heading ("Anna Dental Checkup"), and a digit
    makes an address."""
    words = WORD.findall(text[start:end])
    if not words or any(char.isdigit() for char in text[start:end]):
        return False
    after = NEXT_WORD.match(text, end)
    trade, trade_end = (after.group(1), after.end()) if after else ("", end)
    if len(words) > 1 and _is_trade_word(words[-1], lists):
        trade, trade_end, words = words[-1], end, words[:-1]
    if not trade[:1].isupper() or not _is_trade_word(trade, lists):
        return False
    beyond = NEXT_WORD.match(text, trade_end)
    if beyond and beyond.group(1)[:1].isupper() and not trade.endswith("."):
        return False  # "Anna Dental Checkup" (not "... Motors. Landlord informed")
    if len(words) == 1:  # "Priya Dental" is Priya's appointment; "Cedar Physio" a business
        return not (lists.is_first(words[0]) and not lists.is_word(words[0]))
    return all(lists.is_word(word) for word in words)


def is_a_common_place(text: str, span: Span, lists: NameLists) -> bool:
    """True when a spaCy "place" after "the" is everyday words no place list holds: a part
    of a building or a kind of place ("the East Wing", "the Town Hall", "The Pacific
    Ocean"), which says nothing of where anyone is; not "the Netherlands"."""
    value = text[span.start : span.end]
    if value[:4].lower() == "the ":
        value = value[4:]
    elif not THE_BEFORE.search(text, max(0, span.start - 5), span.start):
        return False
    words = WORD.findall(value)
    gazetteer = load_gazetteer()
    key = fold(value)
    if not words or key in gazetteer.countries or key in gazetteer.cities:
        return False
    return all(lists.is_word(word) for word in words)


def _is_trade_word(word: str, lists: NameLists) -> bool:
    """True for a word a business's name ends with ("Physio", "Motors", "GmbH") that is
    no one's name ("Church", "Bank" are surnames too) and not a two-letter form ("SA")."""
    bare = word.strip(".'’")
    return (
        len(bare) > 2
        and is_organisation_word(bare)
        and not lists.is_first(bare)
        and not lists.is_last(bare)
    )


_WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
_DAY_ENDS = frozenset({"day", "eve"})
# Named days whose first word is also a given name: a weekday after a given name is
# otherwise a person and a day ("see Mark Friday").
NAMED_DAYS = frozenset(
    " ".join(pair.split())
    for pair in """black friday, ash wednesday, blue monday, holy thursday, holy saturday,
    whit sunday, whit monday, trinity sunday, ascension thursday""".split(",")
)
_NAMED_DAY = re.compile(
    rf"(?i)\b(?:{'|'.join(sorted({pair.split()[0] for pair in NAMED_DAYS}))})(?:['’]s?)?[ \t]+"
    rf"(?:{'|'.join(sorted({pair.split()[1] for pair in NAMED_DAYS}))})\b"
)
_WORD_BEFORE = re.compile(r"([^\W\d_]+)[ \t]+$")
# Words before a name that say whom one meets, sees or writes to ("lunch with Ash
# Wednesday", "see Ash Wednesday"): a named day after them is a person and a day.
_MEETING_WORDS = frozenset(
    """with see saw seeing meet met meeting call called ring rang text texted ask asked tell
    told visit visited hi hey dear""".split()
)
_HOLIDAY_JOINERS = frozenset({"al", "ul", "el"})  # "Eid al-Fitr", "Eid ul-Adha"
_DAY_BEFORE = re.compile(r"([^\W\d_][\w-]*)(?:['’]s?)?[ \t]+$")
_DAY_AFTER = re.compile(r"(?:['’]s?)?[ \t]+([^\W\d_]\w*)")


def is_a_holiday(value: str) -> bool:
    """True when every word of `value` is a festival's or the calendar's ("Diwali",
    "Hanukkah", "Eid al-Fitr")."""
    words = [fold(word) for word in re.findall(r"[^\W\d_]+", value)]
    return any(word in HOLIDAYS for word in words) and all(
        word in HOLIDAYS or word in CALENDAR or word in _HOLIDAY_JOINERS for word in words
    )


def names_a_day(text: str, start: int, word: str, lists: NameLists) -> bool:
    """True when `word`, at `start` in `text`, is half of a day the calendar names: a
    capitalised "Day", "Eve" or weekday after an everyday word ("Boxing Day", "Prime Day",
    "Valentine's Day", "Cyber Monday"), or that word before one. A weekday after a given
    name is a person and a day ("see Mark Friday"); a name no dictionary holds is a person
    ("Doris Day"). A named day whose first word is a given name (`NAMED_DAYS`) is a day,
    unless a given name or a word that names whom one meets stands before it ("with Ash
    Wednesday", "Jack Black Friday")."""
    if not word[:1].isupper():
        return False
    key = fold(word.strip(".'’"))
    if key in _DAY_ENDS or key in _WEEKDAYS:
        before = _DAY_BEFORE.search(text, max(0, start - 40), start)
        return before is not None and _before_a_day(
            text, before.start(1), before.group(1), key, lists
        )
    after = _DAY_AFTER.match(text, start + len(word))
    if after is None or not after.group(1)[:1].isupper():
        return False
    day = fold(after.group(1))
    return (day in _DAY_ENDS or day in _WEEKDAYS) and _before_a_day(text, start, word, day, lists)


def may_name_a_named_day(text: str) -> bool:
    """True when `text` may hold one of `NAMED_DAYS`, in any case or accents ("Bláck
    Friday" folds to one): the texts detector revision 42 could read otherwise."""
    return _NAMED_DAY.search(fold(text)) is not None


def _before_a_day(text: str, at: int, word: str, day: str, lists: NameLists) -> bool:
    """True when `word`, capitalised at `at` before `day`, makes the pair a named day."""
    bare = re.sub(r"['’]s?$", "", word)
    if not bare[:1].isupper() or fold(bare) in CALENDAR:
        return False
    if f"{fold(bare)} {day}" in NAMED_DAYS:
        before = _WORD_BEFORE.search(text, max(0, at - 40), at)
        return before is None or not (
            fold(before.group(1)) in _MEETING_WORDS
            or (before.group(1)[:1].isupper() and lists.is_first(before.group(1)))
        )
    everyday = lists.is_word(bare) or load_lexicon().is_everyday(fold(bare))
    return everyday and (day in _DAY_ENDS or not lists.is_first(bare))
