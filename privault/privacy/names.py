"""People's names recognised from name lists, where spaCy NER mislabels or misses them.

The small spaCy pipeline tags most names as proper nouns but often labels them `ORG`
("Tomomi Nishiyama lives at ...") or nothing at all, and it cannot see names in lower case
text. A gazetteer of given names fixes most of that without a bigger model:

* given names come from `nomquamgender` (MIT): about 720k names gathered from dozens of
  national and international sources. A name listed by fewer than `FIRST_NAME_MIN_SOURCES`
  sources is ignored, which drops typos, nicknames and ordinary words that slipped in;
* surnames come from `names` (MIT), the US census 1990 surname list. They are only used as
  supporting evidence inside a span NER already found, because many surnames are words;
* ordinary English words come from Webster's 2nd (`web2`, public domain) as packaged by
  `english-words` (MIT), with the everyday words it is too old to know (`NEWER_WORDS`:
  "Website", "Laptop", "Babysitter"): a given name that is also a word ("Rose", "Patient",
  "Meet") is only taken with a surname after it that is not. Names the dictionary lists
  but English writes as names ("tom", "henry": `name_words`) are not ordinary words.

Both lists are stored ASCII-folded, so text is folded the same way before lookup
("Miklós" -> "miklos"). A hit alone is not enough: the word must be capitalised like a name
(or, in lower case text, tagged a proper noun), must not be an English function word, and
grows over the capitalised words after it ("Zoe Young", "Julieta S Almeida").
"""

from __future__ import annotations

import functools
import importlib.util
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from privault.errors import ModelError
from privault.spans import Span

# A name listed by this many independent sources is a real given name, not noise.
FIRST_NAME_MIN_SOURCES = 5
# Names the dictionary lists as words that English writes as names (`name_words`).
NAME_WORDS_FILE = Path(__file__).with_name("name_words.txt")

# Days and months, and the short forms a schedule writes ("Mon 3pm", "12 Sept"): the one
# list of calendar words the detector's rules share (the name lists leave them out;
# `ordinary` says which of them are given names too). Short forms that are given names
# more often than dates in a note are left out: "Jan", "Mar", "Jun", "Jul", "Sep", "Thu",
# "Sat", "Sun".
CALENDAR = frozenset(
    """monday tuesday wednesday thursday friday saturday sunday january february march april
    may june july august september october november december
    mon tue tues wed weds thurs fri feb apr aug sept oct nov dec""".split()
)
# Festivals a note names far more often than a person of that name ("Christmas card list",
# "presents for Christmas", "Ramadan starts next week"): the name lists hold several of
# them, and the dictionary prints them capitalised, so nothing else says they are words.
# Those that are as often a name ("Eid", "Yule", "Epiphany") are left out. The cost: a
# surname among them is left in clear beside its masked given name ("<PERSON_1> Christmas").
HOLIDAYS = frozenset(
    """christmas xmas easter halloween thanksgiving hanukkah chanukah diwali passover ramadan
    pentecost whitsun kwanzaa nowruz eid fitr adha holi vesak yom kippur rosh hashanah
    lent advent""".split()
)
# Words a name list may contain that are far more often ordinary English at the start of a
# name-like run: function words, calendar words, festivals, forms of address, labels.
_NOT_NAMES = CALENDAR.union(
    HOLIDAYS,
    """a about after again all also am an and any are as at be because been before being
    but by can could did do does doing down during each few for from further had has have
    having he her here hers herself him himself his how i if in into is it its itself just
    me more most my myself no nor not now of off on once only or other our ours out over own
    same she should so some such than that the their theirs them then there these they this
    those through to too under until up very was we were what when where which while who
    whom why will with would you your yours yourself ok okay yes hi hello dear thanks thank
    please sorry well oh hey mr mrs ms miss dr prof sir madam lord lady king queen prince
    princess saint st god
    name phone address email fax mobile office home work user customer agent bot card bank
    street avenue road city country note subject date re fwd iban swift""".split(),
)
# Words that make a capitalised run an organisation rather than a person.
_ORG_WORDS = re.compile(
    r"(?i)^(?:inc|ltd|llc|plc|gmbh|ag|sa|corp|co|company|group|bank|university|college|"
    r"school|institute|foundation|association|society|solutions|systems|technologies|"
    r"services|partners|international|holdings|media|labs?|studios?|records|club|council|"
    r"ministry|department|hospital|church|agency|bureau|museum|center|centre|hotel)\.?$"
)
# Company legal forms and trade words of the languages notes are written in, beyond the
# ones above: the words a business's name ends with ("Cedar Physio", "Maple Lettings",
# "Bauer Elektro"). None is a listed given name or surname: "Handel", "Markt", "Salon" and
# "Grill" are left out, so no one's surname is ever read as a company word.
_ORGANISATION_WORDS = """bakery bakeries motors dental pharmacy electrics lettings cafe physio
    garage surgery clinic barbers florist florists builders plumbers electricians estates
    properties solicitors accountants vets nursery bistro pub inn tavern bookshop cleaners
    removals taxis opticians tyres autos dairy brewery decorators joinery interiors pizzeria
    takeaway launderette kennels cattery insurance
    gmbh mbh kg ohg gbr ug kgaa sarl srl sprl bv nv vof oyj aps plc llp pty pte
    sro zrt kft doo ltda spa sca
    elektro elektrik elektrotechnik autohaus autoservice stadtwerke werke bauunternehmen
    haustechnik sanitär sanitaer heizung installateur immobilien versicherung versicherungen
    apotheke zahnarztpraxis klinik kanzlei steuerberatung bäckerei baeckerei metzgerei
    gärtnerei gaertnerei schreinerei tischlerei malerbetrieb dachdecker reinigung umzüge
    umzuege spedition logistik technik systeme vertrieb gruppe verlag stiftung verein
    genossenschaft sparkasse volksbank touristik gastronomie brauerei kaufhaus supermarkt
    drogerie optik friseur boulangerie pharmacie société agence assurances banque
    immobilier construcciones servicios inmobiliaria farmacia ferretería seguros
    costruzioni servizi assicurazioni bouwbedrijf installatiebedrijf verzekeringen
    makelaardij"""
_WORD = re.compile(r"[^\W\d_][\w'’-]*")
_INITIAL = re.compile(r"[^\W\d_]\.?")
# Letters NFKD does not split into base letter + accent.
_FOLD = str.maketrans(
    {"ø": "o", "Ø": "O", "ß": "ss", "æ": "ae", "Æ": "AE", "ł": "l", "Ł": "L", "đ": "d",
     "Đ": "D", "ð": "d", "Ð": "D", "þ": "th", "Þ": "Th", "œ": "oe", "ı": "i"}
)  # fmt: skip


def fold(word: str) -> str:
    """The lookup form of a word: lower case ASCII letters, accents removed."""
    decomposed = unicodedata.normalize("NFKD", word.translate(_FOLD))
    return "".join(char for char in decomposed if not unicodedata.combining(char)).lower()


# Looked up folded, like every word (`fold("Sanitär")` is "sanitar").
ORGANISATION_WORDS = frozenset(fold(word) for word in _ORGANISATION_WORDS.split())

# Everyday words newer than Webster's 2nd (1934) that notes capitalise in headings and
# labels ("## Laptop", "Website: …"); none is a listed given name.
NEWER_WORDS = frozenset(
    """email emails e-mail website websites webpage homepage online offline internet app apps
    laptop laptops smartphone smartphones tablet wifi wi-fi bluetooth usb modem hotspot
    broadband firmware touchscreen desktop webcam screenshot smartwatch headphones earbuds
    username inbox voicemail texting download downloads uploads info podcast podcasts blog
    blogs vlog selfie hashtag emoji chatbot playlist livestream ebook audiobook barcode
    spreadsheet database workflow roadmap helpdesk startup startups freelance freelancer
    meetup carpool babysitter babysitting daycare playdate healthcare skincare takeout
    takeaway smoothie vegan workouts jogging signup onboarding handover url urls api pdf""".split()
)


def is_never_name(word: str) -> bool:
    """True for function words, labels and forms of address ("an", "Phone", "Dear"): words
    that a name list may hold but that are never a name in a note (days and months are)."""
    key = fold(word.strip("'’"))
    return key in _NOT_NAMES and key not in CALENDAR


def is_organisation_word(word: str) -> bool:
    """True when `word` marks a company or institution ("GmbH", "Elektro", "Hospital")."""
    return bool(_ORG_WORDS.match(word)) or fold(word.strip(".'’")) in ORGANISATION_WORDS


@dataclass(frozen=True)
class NameLists:
    """Given names and surnames, ASCII-folded and lower case."""

    first: frozenset[str]
    last: frozenset[str]
    words: frozenset[str]  # ordinary English words (lower case in the dictionary)
    name_words: frozenset[str] = frozenset()  # in the dictionary, written as names ("tom")

    @functools.cached_property
    def dictionary(self) -> frozenset[str]:
        """Every lower-case word of the dictionary as printed, the name words among them."""
        return self.words | self.name_words

    def is_first(self, word: str) -> bool:
        """True when `word` is a listed given name, unless a function word, calendar word
        or form of address (`_NOT_NAMES`). Everyday words stay names ("Rose", "Cedar"):
        callers that must tell them apart ask `is_word` too."""
        key = fold(word.strip("'’"))
        return key in self.first and key not in _NOT_NAMES

    def is_word(self, word: str) -> bool:
        """True when `word` is also an ordinary English word ("Rose", "Patient", "Meet")."""
        return fold(word.strip("'’")) in self.words

    def is_last(self, word: str) -> bool:
        """True when `word` is a listed surname, unless a function word, calendar word or
        form of address (`_NOT_NAMES`). Everyday words stay names ("Baker", "Blue")."""
        key = fold(word.strip("'’"))
        return key in self.last and key not in _NOT_NAMES


def package_dir(package: str) -> Path:
    """The folder of an installed package, found without importing it."""
    # find_spec locates the data without importing the package (nomquamgender's own
    # module imports pandas, which detection does not need).
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelError(f"the name list package {package!r} is not installed; reinstall privault")
    return Path(next(iter(spec.submodule_search_locations)))


@functools.cache
def load_name_lists() -> NameLists:
    """Read both name lists once per process; `ModelError` if either is missing or broken."""
    try:
        raw = (package_dir("nomquamgender") / "name_data.json").read_text(encoding="utf-8")
        census = (package_dir("names") / "dist.all.last").read_text(encoding="ascii")
    except OSError as exc:
        raise ModelError(f"cannot read the name lists: {exc}") from None
    # name_data.json maps a name to [sources, count, p(female), ...]; a regex over the
    # raw file is ~20x faster than json.load and keeps only plain alphabetic names.
    first = frozenset(
        match.group(1)
        for match in re.finditer(r'"([a-z][a-z\'-]+)": \[(\d+),', raw)
        if int(match.group(2)) >= FIRST_NAME_MIN_SOURCES
    )
    last = frozenset(line.split()[0].lower() for line in census.splitlines() if line.strip())
    name_words = _name_words()
    words = frozenset(word for word in _dictionary() if word.islower()) | NEWER_WORDS
    if min(len(first), len(last), len(words)) < 1000:
        raise ModelError("the name lists are truncated; reinstall nomquamgender and names")
    return NameLists(first, last, words - name_words, name_words)


def _name_words() -> frozenset[str]:
    try:
        text = NAME_WORDS_FILE.read_text(encoding="utf-8")
    except OSError as exc:
        raise ModelError(f"cannot read the name word list: {exc}; reinstall privault") from None
    lines = (line.strip() for line in text.splitlines())
    return frozenset(line for line in lines if line and not line.startswith("#"))


def _dictionary() -> set[str]:
    # Webster's 2nd (FreeBSD `web2`, public domain) as packaged by english-words; in it only
    # proper nouns are capitalised, so its lower case entries are the ordinary words.
    try:
        from english_words import get_english_words_set
    except ImportError:
        raise ModelError("the english-words package is not installed; reinstall privault") from None
    try:
        return get_english_words_set(["web2"])
    except Exception as exc:  # a broken data file: fail closed
        raise ModelError(f"cannot read the English word list: {exc}") from None


def _is_title(word: str) -> bool:
    return word[0].isupper() and (len(word) == 1 or not word[1:].isupper() or len(word) <= 3)


# Part-of-speech tags of words that are never names, and spaCy entity labels (passed in
# place of the tag) of words NER has already placed as something other than a name.
_NOT_NAME_TAGS = frozenset(
    {"DET", "PRON", "AUX", "ADP", "CCONJ", "SCONJ", "PART", "NUM"}
    | {"NORP", "LANGUAGE", "DATE", "TIME", "MONEY", "QUANTITY", "PERCENT", "EVENT", "LAW"}
)
_POSSESSIVE = re.compile(r"['’]s$")


def find_names(
    text: str,
    lists: NameLists,
    pos: Mapping[int, str] | None = None,
) -> list[Span]:
    """PERSON spans that start with a listed given name.

    `pos` maps a word's start offset to its spaCy part-of-speech tag (or entity label, see
    `_NOT_NAME_TAGS`), when a parse is at hand: in lower case text only words tagged `PROPN`
    are taken ("frank" the adjective is not a name), and in any text a word tagged as a
    function word is not. A given name that is also an ordinary word ("Rose", "Patient")
    needs a surname after it that is not.
    """
    tags = pos or {}
    words = list(_WORD.finditer(text))
    spans: list[Span] = []
    index = 0
    while index < len(words):
        word = words[index]
        value = _POSSESSIVE.sub("", word.group(0))
        tag = tags.get(word.start())
        lower = value.islower()
        if (
            not lists.is_first(value)
            or not (_is_title(value) or lower)
            or tag in _NOT_NAME_TAGS
            or (lower and (tag != "PROPN" or _has_upper(text)))  # see _grow
        ):
            index += 1
            continue
        taken = _grow(text, words, index, lower, tags)
        rest = [_POSSESSIVE.sub("", w.group(0)) for w in taken[1:]]
        if lists.is_word(value) and all(lists.is_word(w) or len(w) <= 2 for w in rest):
            index += 1
            continue
        end = taken[-1].end() - (len(taken[-1].group(0)) - len(rest[-1] if rest else value))
        full = len(taken) > 1
        score = (0.7 if full else 0.55) if not lower else (0.6 if full else 0.5)
        spans.append(Span(word.start(), end, "PERSON", score, "names"))
        index += len(taken)
    return spans


def _has_upper(text: str) -> bool:
    # Lower case names are looked for only in texts with no capital letter at all, where
    # capitalisation cannot tell names from words and the tagger is the only signal.
    return any(char.isupper() for char in text)


def _grow(
    text: str, words: list[re.Match[str]], index: int, lower: bool, tags: Mapping[int, str]
) -> list[re.Match[str]]:
    """The given name plus an initial and up to two surname words on the same line."""
    taken = [words[index]]
    for nxt in words[index + 1 : index + 4]:
        last = taken[-1].group(0)
        if _POSSESSIVE.search(last):
            break  # "Vassiliev's Cautionary": the name ends at the possessive
        gap = text[taken[-1].end() : nxt.start()]
        dot = r"\.?" if _INITIAL.fullmatch(last) else ""
        if not re.fullmatch(dot + r"[ \t]{1,2}", gap):
            break
        value = _POSSESSIVE.sub("", nxt.group(0))
        if value.islower() != lower or fold(value) in _NOT_NAMES or is_organisation_word(value):
            break
        if not lower and not _is_title(value):
            break
        if lower and tags.get(nxt.start()) not in (None, "PROPN", "NOUN", "ADJ", "X"):
            break
        if _INITIAL.fullmatch(value) and len(taken) > 1:
            break  # an initial comes between given name and surname, not after it
        taken.append(nxt)
        if not _INITIAL.fullmatch(value) and len(taken) >= 3:
            break
    return taken


def people_in_entity(text: str, start: int, end: int, lists: NameLists) -> list[Span]:
    """PERSON spans for an `ORG` or `NORP` entity that is really people ("Usamov and
    Bowers", "Arild Nguyen").

    Taken only when every part is one to three capitalised words without an organisation
    word, and some part holds a listed given name or surname that is not also an ordinary
    English word ("Entertainment Weekly" is not a person).
    """
    value = text[start:end].split("\n")[0]
    spans: list[Span] = []
    evidence = False
    for part in re.split(r"\s*(?:,|&|\band\b)\s*", value):
        words = list(_WORD.finditer(part))
        if not words:
            continue
        plain = [_POSSESSIVE.sub("", w.group(0)) for w in words]
        if len(plain) > 3 or any(not _is_title(w) or is_organisation_word(w) for w in plain):
            return []
        if any(fold(w) in _NOT_NAMES or lists.is_word(w) for w in plain):
            return []
        evidence = evidence or any(lists.is_first(w) or lists.is_last(w) for w in plain)
        offset = start + value.index(part)
        spans.append(
            Span(offset + words[0].start(), offset + words[-1].start() + len(plain[-1]),
                 "PERSON", 0.6, "names")
        )  # fmt: skip
    return spans if evidence else []
