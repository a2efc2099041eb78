"""Ordinary words are not people: trim PERSON spans down to their name-like words.

spaCy's small pipeline, the proper-noun fallback and the context cues all take capitalised
words for names, and notes are full of capitalised words that are not: headings
("Landlord", "Boiler", "General"), field labels ("Email", "Phone"), greetings ("Dear",
"Cheers"), organisation names made of words ("Riverside Surgery"), acronyms ("SSN", "GP"),
reference numbers. Masking them ruins the text for the agent and, once propagated, every
other use of the word in the same text.

A PERSON span is cut into the words of one line each; a word is *ordinary* when it is in
the English dictionary (lower case entry) or is an everyday word the dictionary is too old
for ("retro"; `lexicon`), and not a listed given name, or is an everyday word of another
language where the words near it are in that language ("jeudi" in "rendez-vous jeudi
avec…"), or is an acronym,
or holds a digit, or is a label, greeting, honorific ("Dr Prado" masks "Prado"), a
contraction of "I", a short form of notes and chats ("Misc", "msg", "pls", `SHORT_FORMS`),
or a company word ("GmbH", "Elektro", "Physio", see `names.is_organisation_word`).
Ordinary words are trimmed from both ends of each line's run; a run left empty is
dropped. So a surname that is also a word ("Baker") is not masked on capitalisation
alone, while "Ann Baker" keeps both words, and "Ann and Baker" too (a listed surname
coordinated with a name is one).

A business's name, a brand, a product, a dish, a medicine, a condition named after
someone ("Cedar Physio", "Spotify Premium", "Earl Grey", "Alzheimer's") and a part of a
building ("the East Wing") are no one's name (`things` says when). A given name that is
an everyday word, first in a sentence and before a determiner or a medicine, is a command
("Mark the invoices as paid", "Take Amoxicillin"), unless a trade or relation follows it
("Dawn the accountant called").

A word right after an amount that names a currency in use ("12 Eur", "40 Francs": an ISO
4217 code in any case, or a currency's English name that is not a given name) is money,
not a person: short answers ("12 Eur") give the NER nothing else to go on. Likewise a
month or weekday is a date, not a person, unless it is also a given name ("April") and no
day number stands next to it ("April 5", "5th of April" are dates); the short forms of
days and months ("Mon", "Fri", "Sept") are calendar words too; those that are given
names as often ("Jan", "Sun", "Thu") are dates only beside a day number, a time or a day
that is no name ("Sat 3pm", "Tue and Thu", "Thu-Fri"). Two capital letters ("WA", "NY")
are a code, never a name written out, and so is a short word in capitals after "the"
("the NAS"). A word right before a greeting or closing in another language is part of it
("Mit freundlichen Grüßen"), and the tagger's "address" made of date words ("exp 09/29",
"5 Jan", "Sat") is not one.

A spaCy "place" followed by a company's legal form ("ACME Hosting GmbH") is the company's
name, not a place, and is dropped.

The name tagger's people and places are trimmed the same way (a listed surname that is
also a word stays: the tagger read the words around it), so a label, a company word, a
currency or a date next to a name it found stays readable.

Spans from the vault's known entities, owner marks and explicit cues ("Mr", "my name is")
are left alone: the evidence there is not the capital letter.
"""

from __future__ import annotations

import functools
import re

from privault.privacy.lexicon import load_lexicon
from privault.privacy.names import CALENDAR, HOLIDAYS, NameLists, fold, is_organisation_word
from privault.privacy.products import is_medicine
from privault.privacy.street_addresses import YEAR
from privault.privacy.tagger_streets import AFTER, BEFORE
from privault.privacy.tagger_words import DETERMINERS, RELATIONS, TRADES
from privault.privacy.things import NEXT_WORD as _NEXT_WORD
from privault.privacy.things import THE_BEFORE as _THE_BEFORE
from privault.privacy.things import WORD as _WORD
from privault.privacy.things import is_a_common_place, is_a_holiday, names_a_day, names_a_thing
from privault.spans import Span

# Sources whose only evidence for PERSON is capitalisation or a statistical guess.
_GUESSED = frozenset({"ner", "propn", "propagated", "list", "names", "speaker"})
# Words that start place names and are everyday words too ("Lake Karen", "Port Kristy").
_PLACE_PREFIXES = frozenset(
    """north south east west new old port lake saint st san santa mount fort upper lower
    great little bad nieder ober new grand la le los las el""".split()
)
# Greetings, closings and thanks in the languages of the name lists. Unlike the labels
# below, none is a listed given name or surname ("Liebe", "Mit", "Hallo", "Merci" are, and
# stay names unless a word of this list follows: "Mit freundlichen Grüßen").
GREETINGS_ABROAD = frozenset(
    fold(word)
    for word in """freundlichen grüßen gruß grüße geehrte geehrter lg vg mfg cordialement
    amitiés bises madame monsieur saludos atentamente abrazo hola estimado estimada cordiali
    saluti distinti ciao vriendelijke groet groeten groetjes hälsningar vänliga mvh hilsen hej
    pozdrawiam cześć szanowny szanowna atenciosamente abraços prezado prezada pozdravem
    ahoj üdvözlettel szia tisztelt saygılarımla merhaba danke gracias grazie obrigado
    obrigada takk dziękuję děkuji köszönöm kiitos bedankt dankjewel""".split()
)
# Words a note uses as labels or greetings that some name list also holds.
_LABELS = GREETINGS_ABROAD | frozenset(
    """dear hi hello hey thanks thank cheers best regards kind sincerely yours ask call
    email mail phone mobile cell tel fax home work office address name subject note notes
    general re fwd ref receipt invoice customer tenant owner landlord patient holder contact
    contacts signed beneficiary employee from to cc bcc date total card license licence
    city country state street postcode grandma grandpa mum mom dad auntie uncle producer todo
    ps nb faq mr mrs ms miss mx dr prof sir madam i'm i've i'd i'll""".split()
)
# Short forms notes and chats use as words ("Misc", "msg from Sepo", "pls call"), the
# endings of file names ("budget_v3.xlsx") and a link's scheme ("https://…"), which the
# dictionary does not hold; none is a listed given name or surname. Kept out of the name
# lists' dictionary: the tagger was trained on that dictionary as it is.
SHORT_FORMS = frozenset(
    """misc msg msgs txt pls plz thx appt appts approx asap fyi tbd tbc diy dept govt mgmt
    vs pics hrs wk wks etc refs qty rsvp bday docs whatsapp exp proj repo config env ops
    wip eod ooo tmp meds
    lol omg btw idk imho tbh brb ttyl lmk smh irl afaik tysm ikr lmao rofl gtg omw nvm
    jk tmrw tmr ppl convo cuz
    docx xlsx xls pptx ppt csv odt ods rtf jpg jpeg png heic webp svg mp3 mp4 mov wav json
    yaml yml html xml ipynb epub ics vcf eml http https www""".split()
)
# Months that are given names too ("April Jones"); the name lists leave every calendar word
# out, so they are named here.
_CALENDAR_NAMES = frozenset({"april", "may", "june", "august"})


# An amount ends right before the word: a digit, then at most one space.
_AFTER_AMOUNT = re.compile(r"\d[ \t\u00a0]?$")


@functools.cache
def _currency_words() -> tuple[frozenset[str], frozenset[str]]:
    """ISO 4217 codes of every currency in use (lower case) and their English names' last
    words, singular and plural ("euro", "francs"), from the CLDR data babel ships."""
    from babel.core import get_global
    from babel.numbers import get_currency_name, get_territory_currencies

    codes = {
        code
        for territory in get_global("territory_currencies")
        for code in get_territory_currencies(territory, tender=True)
    }
    words = {
        get_currency_name(code, count=count, locale="en").split()[-1]
        for code in codes
        for count in (1, 2)
    }
    return frozenset(c.lower() for c in codes), frozenset(fold(w) for w in words)


def _is_currency(text: str, start: int, word: str, lists: NameLists) -> bool:
    """True when `word`, at `start` in `text`, follows an amount and names a currency."""
    if not _AFTER_AMOUNT.search(text, max(0, start - 2), start):
        return False
    codes, names = _currency_words()
    key = fold(word.strip(".'’-"))
    return key in codes or (key in names and not lists.is_first(word.strip(".'’-")))


# A day of the month next to a month's name: "20 February", "February 20", "5th of June".
_DAY_BEFORE = re.compile(r"\b[0-3]?\d(?:st|nd|rd|th)?(?:[ \t]+of)?[ \t]+$")
_DAY_AFTER = re.compile(r"[ \t]+[0-3]?\d(?:st|nd|rd|th)?\b")
# Short forms of days and months that are given names as often as dates (so not in
# `CALENDAR`): "Jan Novak", "Sun Li", "Thu Nguyen" are people, "Sat 3pm" is not.
NAME_OR_DATE = frozenset("jan mar jun jul sep thu thur sat sun".split())
_TIME_AFTER = re.compile(r"[ \t]+[0-2]?\d(?::[0-5]\d|[ \t]?[ap]\.?m\b)", re.IGNORECASE)
_JOIN = r"(?:,|/|-|–|&|and|or|to)"
_JOINED_BEFORE = re.compile(rf"([^\W\d_]+)\.?[ \t]*{_JOIN}[ \t]*$")
_JOINED_AFTER = re.compile(rf"[ \t]*{_JOIN}[ \t]*([^\W\d_]+)")


def _is_date(text: str, start: int, word: str) -> bool:
    """True when `word`, at `start` in `text`, is a month with a day number beside it, or a
    short form that is a given name as often ("Jan", "Sun", "Thu", `NAME_OR_DATE`) with a
    day number or a time beside it, or joined to a day or month that is no name ("Tue and
    Thu", "Thu-Fri")."""
    key = fold(word.strip(".'’-"))
    parts = re.split(r"[-–/]", key)
    if len(parts) > 1:  # "Thu-Fri", "Mon/Tue": a span of days
        return all(p in CALENDAR or p in NAME_OR_DATE for p in parts) and any(
            p in CALENDAR for p in parts
        )
    if key not in CALENDAR and key not in NAME_OR_DATE:
        return False
    end = start + len(word)
    if _DAY_BEFORE.search(text, max(0, start - 12), start) or _DAY_AFTER.match(text, end):
        return True
    if key not in NAME_OR_DATE:
        return False
    before = _JOINED_BEFORE.search(text, max(0, start - 16), start)
    after = _JOINED_AFTER.match(text, end)
    return bool(
        _TIME_AFTER.match(text, end)
        or (before and fold(before.group(1)) in CALENDAR)
        or (after and fold(after.group(1)) in CALENDAR)
    )


# Given names English also writes as a function word, which the name lists leave out.
_WORD_NAMES = frozenset({"will"})


def _word_name(text: str, start: int, word: str, lists: NameLists) -> bool:
    """True when `word`, at `start` in `text`, is a given name that English also writes as
    a function word ("Will"): capitalised where a sentence does not start ("Grace, Will,
    Mark", "told Will"), or before a name ("Will Hughes called")."""
    if fold(word) not in _WORD_NAMES or not word.istitle():
        return False
    after = _NEXT_WORD.match(text, start + len(word))
    if after and after.group(1).istitle() and not is_ordinary(after.group(1), lists):
        return True
    before = text[max(0, start - 16) : start].rstrip(" \t")  # not the whole text before it
    return bool(before) and before[-1] not in ".!?:\n\"'“‘(-*•>"


# A verb's object starts with a determiner, a name is not followed by one ("Mark the
# invoices as paid", not "Mark Hughes").
_DETERMINERS = DETERMINERS | {"every", "each", "all", "both"}
_ROLES = frozenset(TRADES) | frozenset(RELATIONS)


def _is_imperative(text: str, start: int, word: str, lists: NameLists) -> bool:
    """True when `word`, at `start` in `text`, is a given name that is an everyday word too,
    first in its sentence and followed by a determiner or a medicine: a command, not a
    person ("Mark the invoices as paid", "Rob the piggy bank", "Take Amoxicillin"). Not
    before a trade or a relation ("Dawn the accountant called", "Rob my neighbour"); not
    before a particle
    either, though "Jack up the car" is a command: "Bill down the hall said hi" is not."""
    if not word.istitle() or not lists.is_word(word):
        return False
    after = _NEXT_WORD.match(text, start + len(word))
    if not after or not (fold(after.group(1)) in _DETERMINERS or is_medicine(after.group(1))):
        return False
    role = _NEXT_WORD.match(text, after.end())
    if role and fold(role.group(1)).rstrip(".,;:!?") in _ROLES:
        return False  # "Dawn the accountant called": a name and who she is
    before = text[max(0, start - 16) : start].rstrip(" \t")
    return not before or before[-1] in ".!?:\n-*•>"


def _before_greeting(text: str, end: int) -> bool:
    """True when the word ending at `end` in `text` starts a greeting or closing in another
    language: "Mit freundlichen Grüßen", "Met vriendelijke groet". The word after it goes
    on in lower case; a capitalised one starts a closing of its own, as after a name in a
    signature run onto one line ("Pierre Dupont Cordialement")."""
    after = _NEXT_WORD.match(text, end)
    return (
        after is not None
        and after.group(1)[:1].islower()
        and fold(after.group(1).strip(".,!")) in GREETINGS_ABROAD
    )


# Words of a date that the tagger may read as an address: a card's expiry ("exp 09/29"), a
# day ("5 Jan", "Sat 3pm").
_DATE_WORDS = frozenset("am pm exp expires expiry valid thru until".split())
_STREET_WORDS = frozenset(fold(word.strip(".")) for word in (*AFTER, *BEFORE))


def _is_a_year(value: str, lists: NameLists) -> bool:
    """True when `value` is everyday words and a year, no street word among them ("Books To
    Read 2024", "Budget 2025"): a house number is seldom a year after such words."""
    numbers = re.findall(r"\d+", value)
    words = re.findall(r"[^\W\d_]+", value)
    return (
        len(numbers) == 1
        and bool(YEAR.fullmatch(numbers[0]))
        and bool(words)
        and all(lists.is_word(word) and fold(word) not in _STREET_WORDS for word in words)
    )


def _is_a_date(value: str) -> bool:
    """True when the words of `value` are all calendar words ("Sat"), or date words
    beside a number ("exp 09/29", "5 Jan")."""
    words = [fold(word) for word in re.findall(r"[^\W\d_]+", value)]
    if words and all(w in CALENDAR or w in NAME_OR_DATE for w in words):
        return True
    return any(char.isdigit() for char in value) and all(
        w in CALENDAR or w in NAME_OR_DATE or w in _DATE_WORDS for w in words
    )


def _is_acronym(text: str, start: int, word: str) -> bool:
    """True when `word`, at `start` in `text`, is a short word in capitals after "the":
    "the NAS", "the NHS" (a name in capitals does not take an article)."""
    return (
        2 <= len(word) <= 4
        and word.isupper()
        and bool(_THE_BEFORE.search(text, max(0, start - 5), start))
    )


def is_ordinary(word: str, lists: NameLists, *, surnames: bool = False) -> bool:
    """True when `word` reads as an ordinary word rather than part of a name.

    With `surnames`, a listed surname is a name even when it is a dictionary word too: for
    a word coordinated with a name found already ("Usamov and Bowers").
    """
    bare = word.strip(".'’-")
    if not bare or any(char.isdigit() for char in bare):
        return True
    key = fold(bare)
    key = re.sub(r"['’]s$", "", key)
    if key in _LABELS or key in SHORT_FORMS or key[-1:] == "s" and key[:-1] in SHORT_FORMS:
        return True
    if bare.isupper() and (len(bare) == 2 or (len(bare) <= 4 and not lists.is_first(bare))):
        return True  # WA, GP, SSN, IBAN; a short all-caps given name ("ANA") stays
    if lists.is_first(bare):
        return False
    if key in CALENDAR and key not in _CALENDAR_NAMES:
        return True  # "February", "Thursday" (a month by a day number: `_is_date`)
    if key in HOLIDAYS:
        return True  # "Christmas", "Ramadan"
    if is_medicine(bare):
        return True  # "Amoxicillin", "Lisinopril"
    if is_organisation_word(bare):
        return True  # "Bauer Elektro", "Stadtwerke Köln": the company word is not a name
    if surnames and lists.is_last(bare):
        return False
    stem = key[:-1] if key.endswith("s") and key[:-1] in lists.words else key
    return stem in lists.words or key in lists.words or load_lexicon().is_everyday(key)


def _is_foreign_word(text: str, start: int, word: str, lists: NameLists) -> bool:
    """True when `word`, at `start` in `text`, is an everyday word of a language that the
    words near it say is written there ("jeudi" in "rendez-vous jeudi avec…", see
    `lexicon.Lexicon.languages_near`)."""
    lexicon = load_lexicon()
    languages = lexicon.languages_near(text, start, start + len(word), lists.dictionary)
    return bool(languages) and lexicon.is_everyday(fold(word.strip(".'’-")), languages)


def trim_person(text: str, span: Span, lists: NameLists) -> list[Span]:
    """`span` itself, the name-like runs inside it, or nothing (see the module docstring).

    Also drops spaCy LOCATION guesses that hold a digit (reference numbers, dates), and
    cuts a possessive ending off a found name or place ("Maclean's" masks "Maclean").
    """
    span = _without_possessive(text, span)
    if span.source in _FOUND and is_a_holiday(text[span.start : span.end]):
        return []  # "Diwali", "Eid al-Fitr": spaCy calls some festivals places
    if span.source in _BUSINESS_JUDGED | {"place-cue"} and names_a_thing(
        text, span.start, span.end, span, lists
    ):
        return []
    if span.source == "place-cue":
        found = [w.group(0) for w in _WORD.finditer(text[span.start : span.end])]
        plain = [w for w in found if fold(w.strip(".")) not in _PLACE_PREFIXES]
        if not plain or any(
            is_ordinary(w, lists) or lists.is_first(w) or fold(w.strip(".")) in CALENDAR
            for w in plain
        ):
            return []  # "to Maria" is a person (found elsewhere), "in March" a month
        return [span]
    if (
        span.kind == "ADDRESS"
        and span.source == "learned"
        and (
            _is_a_date(text[span.start : span.end])
            or _is_a_year(text[span.start : span.end], lists)
        )
    ):
        return []  # "exp 09/29", "5 Jan", "Sat 3pm", "Read 2024": a date, not a house number
    if span.kind == "LOCATION" and span.source == "ner":
        # spaCy labels reference numbers and dates GPE now and then ("REF-2023"), and
        # company names too: a "place" followed by "GmbH" or "Ltd" is a company's name.
        if any(char.isdigit() for char in text[span.start : span.end]):
            return []
        after = _NEXT_WORD.match(text, span.end)
        if after and is_organisation_word(after.group(1)):
            return []
        return [] if is_a_common_place(text, span, lists) else [span]
    if (
        span.kind == "LOCATION"
        and span.source == "learned"
        and is_a_common_place(text, span, lists)
    ):
        return []
    learned = span.source == "learned" and span.kind in ("PERSON", "LOCATION")
    if not learned and (span.kind != "PERSON" or span.source not in _GUESSED):
        return [span]
    kept: list[Span] = []
    offset = span.start
    # A run trimming left shorter may be a business's name (the whole span was judged above).
    judged = span.source in _BUSINESS_JUDGED
    for line in text[span.start : span.end].split("\n"):
        words = list(_WORD.finditer(line))
        flags = [
            (
                is_ordinary(w.group(0), lists, surnames=span.source in ("list", "learned"))
                and not _word_name(text, offset + w.start(), w.group(0), lists)
            )
            or _is_foreign_word(text, offset + w.start(), w.group(0), lists)
            or _is_currency(text, offset + w.start(), w.group(0), lists)
            or _is_date(text, offset + w.start(), w.group(0))
            or names_a_day(text, offset + w.start(), w.group(0), lists)
            or _is_acronym(text, offset + w.start(), w.group(0))
            or _before_greeting(text, offset + w.end())
            or _is_imperative(text, offset + w.start(), w.group(0), lists)
            for w in words
        ]
        while words and flags[0]:
            words, flags = words[1:], flags[1:]
        while words and flags[-1]:
            words, flags = words[:-1], flags[:-1]
        if words:
            start = offset + words[0].start()
            end = offset + words[-1].end()
            while end > start and not text[end - 1].isalnum():
                end -= 1
            trimmed = (start, end) != (span.start, span.end)
            business = judged and trimmed and names_a_thing(text, start, end, span, lists)
            if end > start and not business:
                kept.append(Span(start, end, span.kind, span.score, span.source))
        offset += len(line) + 1
    return kept


# Sources of names and places that a trade word after them shows to be a business's name:
# guesses, cues ("serviced by Oakridge Lettings") and the tagger; not the owner's own
# values, and not a name found elsewhere in the text and spread to here.
_BUSINESS_JUDGED = _GUESSED - {"propagated"} | {"context", "learned", "places"}


# Where a name or place came from a recogniser rather than from the owner (known entities,
# marks and policy patterns are masked as they were given).
_FOUND = _GUESSED | {"context", "learned", "place-cue", "places"}
_POSSESSIVE_END = re.compile(r"[\w-]{2}['’]s$")


def _without_possessive(text: str, span: Span) -> Span:
    """`span` without a trailing "'s": the ending says whose, it is not part of the name,
    and masking it costs the reader the grammar ("<PERSON_1>'s killers")."""
    if span.kind not in ("PERSON", "LOCATION") or span.source not in _FOUND:
        return span
    if not _POSSESSIVE_END.search(text, max(span.start, span.end - 4), span.end):
        return span
    return Span(span.start, span.end - 2, span.kind, span.score, span.source)
