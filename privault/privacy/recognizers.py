"""privault's own recognizers: street addresses, phone numbers, known entities, custom patterns.

These are plain regular-expression recognizers with no model behind them, so the real
detector and the `FakeDetector` share them. They exist because presidio's stock recognizers
are US-centred (addresses are not covered at all, phone numbers only for a few regions) and
because NER cannot know the names this vault already knows. Addresses have a module of
their own (`privacy.street_addresses`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from types import MappingProxyType

from privault.privacy.street_addresses import find_addresses as find_addresses
from privault.spans import Span, normalise_kind

# International phone numbers: an optional +CC or 00/001 prefix, an optional (0) trunk or
# (area) group, then groups of digits split by spaces, dots or dashes, optional extension.
# A group may also be split by a slash ("44/843-4442") and the first group may be the
# whole number ("+914011696739", "48079593").
_PHONE = re.compile(
    r"(?<![\w+/.-])(?:(?:\+|00)\d{1,3}[ .-]?)?(?:\(0?\d{1,4}\)[ .-]?)?"
    r"\d{1,14}(?:(?:[ .-]|/)\d{1,8}){0,4}(?:\s?(?:x|ext\.?)\s?\d{1,5})?(?![\w/]|-\d|\.\d)"
)
_EXTENSION = re.compile(r"\s?(?:x|ext\.?)\s?\d{1,5}$")
# "can be reached at/on", "reachable via": said of a person, not of a count ("sales
# reached 1 000 000", "reached at least 1 200 000 people")
_REACHED_AT = r"(?:be(?:en)?[ \t]+reached|reachable)"
_PHONE_CONTEXT = re.compile(
    r"(?i)\b(?:phone|tel|telephone|mobile|cell|cellphone|call|calling|called|fax|desk|"
    r"number|contact|reach|text|whatsapp|sms|dial|answering|messages?|line|landline|"
    + _REACHED_AT
    + r"|emergency|hotline|helpline|switchboard|ring|ddi|"
    r"direct(?![ \t]+(?:debits?|deposits?|transfers?|payments?|flights?|messages?))|"
    # the same words in the languages notes are often written in (not the ones English
    # uses for something else: "handy", "portable")
    r"telefon|telefono|tel[eé]fono|t[eé]l[eé]phone|t[eé]l|telefoon|tlf|puhelin|"
    r"m[oó]vil|cellulare|celular)\b"
)
# "Number" is a phone word unless it names some other number: a customer, account, order
# or card number is an identifier of its own kind, not a way to call anyone.
_OTHER_NUMBER = re.compile(
    r"(?i)\b(?:customer|client|account|acct|order|invoice|reference|ref|booking|reservation|"
    r"confirmation|member|membership|policy|serial|tracking|ticket|case|claim|contract|"
    r"patient|tax|vat|transaction|item|part|model|product|registration|licen[cs]e|passport|"
    r"id|employee|student|parcel|shipment|flight|room|seat|table|house|batch|lot|version|"
    r"issue|page|badge|card|routing|sort|meter|vehicle|chassis)\s+(?:number|no\.?|nr\.?)"
)
# Contact lists label a number after it: "416 60 039 office", "(37) 788-063-Office".
_PHONE_LABEL_AFTER = re.compile(
    r"(?i)[ \t]*[-–,:(]?[ \t]*(?:office|fax|mobile|cell|home|work|tel|phone|landline)\b"
)
_DATE_LIKE = re.compile(r"^\d{1,4}([./-])\d{1,2}\1\d{1,4}$")
# Eight or ten digits in pairs, the way Denmark, Norway and France write a number ("40 55
# 37 66"): no amount, date or id is written so.
_IN_PAIRS = re.compile(r"^\d\d(?: \d\d){3,4}$")


def find_phone_numbers(text: str) -> list[Span]:
    """Phone numbers in national and international forms.

    A grouped number with a `+` prefix, parentheses or an extension is reported with a high
    score; one that is just digit groups only when a phone word stands before it, since
    bare digit groups are also amounts, ids and dates, unless it has nine digits or more or
    is written in pairs ("40 55 37 66"), which those are not.
    """
    found: list[Span] = []
    for match in _PHONE.finditer(text):
        value = match.group(0)
        digits = sum(char.isdigit() for char in _EXTENSION.sub("", value))
        if not 7 <= digits <= 15 or _DATE_LIKE.match(value) or _timestamp(text, match):
            continue
        # "+90 (589) 6041431": a country code and an area code in parentheses group it
        # as surely as spaces do, valid in its country's plan or not.
        grouped = bool(re.search(r"\d(?:[ .-]|/)\d", value)) or bool(
            re.match(r"(?:\+|00)\d{1,3}[ .-]?\(0?\d{1,4}\)", value)
        )
        strong = value.startswith(("+", "(")) or bool(re.search(r"x\s?\d|ext", value))
        # "+914185198317": E.164, the form phones and address books store numbers in; no
        # amount or id is written as "+" and ten digits or more, valid in its plan or not.
        if re.fullmatch(r"\+\d{10,15}", value):
            grouped = True
        if value.startswith(("+", "00")) and _valid_international(value):
            strong = grouped = True
        window = _OTHER_NUMBER.sub(" ", text[max(0, match.start() - 60) : match.start()])
        context = bool(_PHONE_CONTEXT.search(window)) or bool(
            _PHONE_LABEL_AFTER.match(text, match.end())
        )
        if strong and (grouped or context):
            score = 0.85 if context else 0.7
        elif grouped and context:
            score = 0.75
        elif (grouped and digits >= 9 and not re.search(r"\d{5,}", value)) or _IN_PAIRS.match(
            value
        ):
            score = 0.5
        elif context and digits <= 12:
            score = 0.6
        else:
            continue
        found.append(Span(match.start(), match.end(), "PHONE_NUMBER", score, "phone"))
    return found


def _timestamp(text: str, match: re.Match[str]) -> bool:
    """True when a candidate is a date and the hour of a time ("2024-03-02 10" of
    "2024-03-02 10:14:07", as logs and chat exports stamp each line)."""
    date, _, hour = match.group(0).rpartition(" ")
    return (
        bool(date)
        and len(hour) <= 2
        and bool(_DATE_LIKE.match(date))
        and re.match(r":\d\d", text[match.end() : match.end() + 3]) is not None
    )


def _valid_international(value: str) -> bool:
    """True when a +CC / 00CC number is a valid number of its country (libphonenumber)."""
    import phonenumbers

    number = "+" + value[2:] if value.startswith("00") else value
    try:
        parsed = phonenumbers.parse(_EXTENSION.sub("", number), None)
    except phonenumbers.NumberParseException:
        return False
    return bool(phonenumbers.is_valid_number(parsed))


def find_known_entities(
    text: str, known: Mapping[str, str], *, source: str = "known", score: float = 0.9
) -> list[Span]:
    """Every case-insensitive whole-word occurrence of a known value (value -> kind)."""
    if not known:
        return []
    pattern, by_value = _known_matcher(tuple(known.items()))
    found = []
    for match in pattern.finditer(text):
        kind = by_value.get(" ".join(match.group(0).casefold().split()), "PERSON")
        found.append(Span(match.start(), match.end(), kind, score, source))
    return found


@functools.lru_cache(maxsize=32)
def _known_matcher(
    known: tuple[tuple[str, str], ...],
) -> tuple[re.Pattern[str], Mapping[str, str]]:
    """The pattern and normalised value -> kind map of one set of known entities.

    Cached by the entries themselves: one response gates dozens of texts against the same
    set, and building the alternation costs more than matching it. A changed set (a new
    mark or statement entity) is a different key, so a stale pattern is never used.
    """
    by_value = {" ".join(value.casefold().split()): kind for value, kind in known}
    return known_entities_pattern(value for value, _ in known), MappingProxyType(by_value)


# What may stand between the words of a denied value: "Blue Falcon" is denied as
# `blue-falcon` (a tag, a slug), `Blue_Falcon` (a file name), `Blue‑Falcon` (any Unicode
# hyphen or dash), `blue.falcon` and `Blue/Falcon` too.
_DENIED_JOINER = r"[\s_\-\u2010-\u2015./]+"
_APOSTROPHE = re.compile(r"['\u2019]")  # O'Brien is denied as O’Brien too


def denied_words(value: str) -> list[str]:
    """The words of a deny-list value, as `denied_pattern` matches them."""
    return [word for word in re.split(_DENIED_JOINER, value.strip()) if word]


def denied_pattern(values: Iterable[str]) -> re.Pattern[str]:
    """One alternation over a deny-list's values, longest first: case-insensitive, on word
    boundaries, any run of spaces, hyphens or underscores between their words. Every word
    a value starts at is tried, the value found as group 1, so values that share words
    are all found ("Blue Falcon" and "Falcon Nest" in "Blue Falcon Nest")."""
    listed = {tuple(denied_words(value)) for value in values} - {()}
    longest = sorted(listed, key=lambda words: len(" ".join(words)), reverse=True)
    parts = [
        _DENIED_JOINER.join(_APOSTROPHE.sub("['\u2019]", re.escape(word)) for word in words)
        for words in longest
    ]
    if not parts:  # a pattern of no value would match the empty string everywhere
        return re.compile(r"(?!)")
    return re.compile(r"(?i)(?<!\w)(?=((?:" + "|".join(parts) + r")(?!\w)))")


def denied_key(value: str) -> str:
    """The comparison form of a denied value or of a match of it: `denied_words`, folded."""
    return _APOSTROPHE.sub("'", " ".join(word.casefold() for word in denied_words(value)))


def known_entities_pattern(known: Iterable[str]) -> re.Pattern[str]:
    """One alternation over the values, longest first, tolerant of inner whitespace."""
    values = sorted({value.strip() for value in known if value.strip()}, key=len, reverse=True)
    parts = [r"\s+".join(re.escape(word) for word in value.split()) for value in values]
    return re.compile(r"(?i)(?<!\w)(?:" + "|".join(parts) + r")(?!\w)")


def as_known(names: Iterable[str] | Mapping[str, str]) -> dict[str, str]:
    """Names as given by a caller (plain names are people) to a value -> kind mapping."""
    if isinstance(names, Mapping):
        return {str(name): normalise_kind(kind) for name, kind in names.items() if name.strip()}
    return {name: "PERSON" for name in names if name.strip()}


def find_pattern(
    text: str,
    regex: re.Pattern[str],
    kind: str,
    score: float,
    context: Iterable[str] = (),
    source: str = "custom",
) -> list[Span]:
    """Matches of one custom pattern; a context word in the 60 chars before adds 0.35."""
    words = [word.lower() for word in context]
    found = []
    for match in regex.finditer(text):
        if match.end() == match.start():
            continue
        window = text[max(0, match.start() - 60) : match.start()].lower()
        boost = 0.35 if any(re.search(rf"\b{re.escape(w)}\b", window) for w in words) else 0.0
        found.append(Span(match.start(), match.end(), kind, min(1.0, score + boost), source))
    return found


# local@domain: any dotted domain whose last label is letters. An address on a private
# domain (corp.internal, intranet.local, a made-up .example) identifies its owner just as
# well as one on a public suffix, so the domain is not checked against any list.
_EMAIL = re.compile(
    r"(?<![\w.+-])[\w!#$%&'*+/=?^`{|}~-]+(?:\.[\w!#$%&'*+/=?^`{|}~-]+)*"
    r"@(?:[^\W_](?:[\w-]{0,61}[^\W_])?\.)+[^\W\d_]{2,63}(?![\w-]|\.[^\W_])"
)


def find_emails(text: str) -> list[Span]:
    """Email addresses on any domain, public suffix or not."""
    return [Span(m.start(), m.end(), "EMAIL_ADDRESS", 0.9, "email") for m in _EMAIL.finditer(text)]


_CARD = re.compile(r"(?<![\w-])\d(?:[ -]?\d){11,18}(?![\w-])")
_CARD_CONTEXT = re.compile(r"(?i)\b(?:card|credit|debit|visa|mastercard|amex|cc|maestro)\b")


def luhn_ok(digits: str) -> bool:
    """True when the digit string passes the Luhn checksum that payment cards carry."""
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2 == 1:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def find_cards(text: str) -> list[Span]:
    """Payment card numbers of 12-19 digits: Luhn-valid, or any such run after a card word.

    presidio's recognizer only knows the major issuers' prefixes; 12-digit Maestro and
    private-label cards slip past it.
    """
    found = []
    for match in _CARD.finditer(text):
        digits = re.sub(r"\D", "", match.group(0))
        context = bool(_CARD_CONTEXT.search(text[max(0, match.start() - 50) : match.start()]))
        if luhn_ok(digits):
            score = 0.9 if context else 0.6
        elif context:
            score = 0.5
        else:
            continue
        found.append(Span(match.start(), match.end(), "CREDIT_CARD", score, "card"))
    return found


_IBAN = re.compile(r"(?i)(?<![\w-])[a-z]{2}\d{2}(?:[ \t]?[a-z0-9]){11,30}(?![\w-])")


def iban_ok(value: str) -> bool:
    """True when `value` (spaces allowed, any case) passes the IBAN mod-97 check."""
    compact = re.sub(r"\s", "", value).upper()
    rotated = compact[4:] + compact[:4]
    return int("".join(str(int(char, 36)) for char in rotated)) % 97 == 1


def find_ibans(text: str) -> list[Span]:
    """IBANs in any case and grouping that pass the mod-97 check.

    presidio's recognizer wants upper case; a lower case or oddly grouped IBAN typed in a
    chat is just as identifying, and the checksum keeps ordinary codes out.
    """
    found = []
    for match in _IBAN.finditer(text):
        value = match.group(0)
        # The pattern may run on into the next word ("... 0130 00 ok"): drop trailing groups
        # until the checksum holds or too little is left to be an IBAN.
        while len(re.sub(r"\s", "", value)) >= 15:
            if iban_ok(value):
                end = match.start() + len(value)
                found.append(Span(match.start(), end, "IBAN_CODE", 0.9, "iban"))
                break
            value = re.sub(r"\s*\S+$", "", value)
    return found


# Washington's licence numbers since 2018: "WDL" and nine letters or digits. presidio's
# US licence recognizer knows the older state formats but not this one.
_WA_LICENSE = re.compile(r"(?<![\w-])WDL[A-Z0-9]{9}(?![\w-])")


def find_driver_licenses(text: str) -> list[Span]:
    """US driver's licence numbers in formats presidio's recognizer does not know."""
    return [
        Span(m.start(), m.end(), "US_DRIVER_LICENSE", 0.65, "license")
        for m in _WA_LICENSE.finditer(text)
    ]


def find_context_entities(text: str) -> list[Span]:
    """Names and places announced by the words around them (see `privacy.cue_words`)."""
    from privault.privacy.cue_words import find_context_entities as find

    return find(text)
