"""privault's own recognizers: street addresses, phone numbers, known entities, custom patterns.

These are plain regular-expression recognizers with no model behind them, so the real
detector and the `FakeDetector` share them. They exist because presidio's stock recognizers
are US-centred (addresses are not covered at all, phone numbers only for a few regions) and
because NER cannot know the names this vault already knows.

Address detection works in two steps: find a *core* that is almost certainly part of an
address (a numbered street, a street word with a house number, a unit or PO box line, a
military address), then grow it over the lines that address blocks are made of (city,
region code, postcode, country) so that no fragment of the block is left in clear text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from privault.privacy.spans import Span, merge_spans, normalise_kind

# A word that starts with a letter (any script); dots and hyphens inside for "Avda." etc.
_W = r"[^\W\d_][\w'’.\-]*"
_CAP = r"(?:[^\W\d_a-zß-ÿа-яα-ω])[\w'’.\-]*"  # starts upper case (or an uncased script)

# Street types, as whole words after the name ("Clarke Avenue") or before it ("Via Roma").
_STREET_AFTER = (
    r"street|st\.?|avenue|ave\.?|road|rd\.?|drive|dr\.?|lane|ln\.?|way|boulevard|blvd\.?|"
    r"court|ct\.?|place|pl\.?|square|sq\.?|terrace|crescent|close|parkway|pkwy\.?|highway|"
    r"hwy\.?|circle|trail|row|walk|mews|alley|plaza|esplanade|quay|wharf|gardens|grove|"
    r"heights|hollow|path|pike|route|expressway|freeway|tér|út|utca|körút|ulice|ulica|"
    r"straße|strasse|gasse|weg|allee|platz|ring|damm|laan|straat|plein|gracht|kade|vej|"
    r"gade|gata|gatan|vägen|veien|vegen|stien|tie|katu|kuja|polku|tori|raitti|braut|gerði"
)
_STREET_BEFORE = (
    r"via|viale|piazza|corso|largo|vicolo|rue|avenue|av\.?|boulevard|bd\.?|chemin|allée|"
    r"impasse|quai|calle|avenida|avda\.?|avd\.?|paseo|plaza|camino|carrer|rua|travessa|"
    r"largo|praça|estrada|rúa|ul\.?|al\.?|trg|ulica|ulitsa|odos|leoforos|λ\.|οδός|"
    r"λεωφόρος|strada|bulevardul|bulevar|aleja|ulice"
)
# Compound street names in Germanic and Nordic languages carry the type as a suffix.
_STREET_SUFFIX = (
    r"[^\W\d_]+(?:straße|strasse|str\.|gasse|weg|allee|platz|damm|laan|straat|plein|gracht|"
    r"vej|gade|gata|gatan|vägen|veien|vegen|stien|tie|katu|kuja|polku|braut|stræde|stig|"
    r"torg|torget|bakken|veg|väg)"
)
_NUM = r"\d{1,6}[A-Za-z]?"
_MONTH = (
    r"(?i:(?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?\s)"
)
_HOUSE = r"\d{1,5}[A-Za-z]?\.?(?![\w-])"

_UNIT = re.compile(
    r"(?i)\b(?:apt|apartment|suite|ste|unit|flat|room|rm|floor|fl|bldg|building|"
    r"postbox|p\.?\s?o\.?\s?box|box|psc|cmr)\b\.?\s*#?\s*\d{1,6}[A-Za-z]?\b"
)
_MILITARY = re.compile(
    r"(?i)\b(?:(?:USNS|USNV|USS|USCGC)\s+" + _W + r"\s*,?\s*)?\b(?:APO|FPO|DPO)\s+(?:AA|AE|AP)"
    r"\s+\d{5}\b"
)
_CORES = [
    # 24 Clarke Avenue, 9448 175 Iroon Polytechniou Avenue
    re.compile(
        r"(?i:\b" + _NUM + r",?\s+(?:" + _NUM + r"\s+)?)(?:" + _W + r"\s+){0,4}"
        r"(?i:(?:" + _STREET_AFTER + r"))(?![\w])"
    ),
    # Via Roma 131, ul. Słowicza 10, Rua Cyro Schmutzer Franco 1213
    re.compile(r"(?i:\b(?:" + _STREET_BEFORE + r"))\s+(?:" + _W + r"\s+){0,4}" + _HOUSE),
    # Friedhofstrasse 33, 6750 Koskikatu 25, hegyalja út 98.
    re.compile(
        r"(?i)(?:\b" + _NUM + r"\s+)?\b(?:" + _W + r"\s+){0,2}" + _STREET_SUFFIX + r"\s+" + _HOUSE
    ),
    re.compile(r"(?i)\b(?:" + _W + r"\s+){1,3}(?:tér|út|utca|körút|trg)\s+" + _HOUSE),
    # 94472 Atamaria 55, 3369 Gesterbyntie 68: number, capitalised name, house number —
    # but not a date: "3 March 2027" has the same shape.
    re.compile(
        r"\b" + _NUM + r"\s+(?!" + _MONTH + r")(?:" + _CAP + r"\s+){0,2}" + _CAP + r"\s+" + _HOUSE
    ),
    _UNIT,
    _MILITARY,
]
# Lines an address block continues with: city, region code, postcode, country.
_TAIL_TOKEN = re.compile(
    r"[ \t]*,?[ \t]*(?:\n[ \t>?*•|-]*)?[ \t]*,?[ \t]*"
    r"(?:"
    + _CAP
    + r"|\d{4,6}(?![\w-])|\([^\W\d_]+\)|"
    + _UNIT.pattern[4:]  # a unit line after the street line
    + r")"
)
_TAIL_LIMIT = 120
_TAIL_STOP_WORDS = frozenset(
    {"I", "The", "A", "An", "My", "Please", "Thanks", "Thank", "We", "He", "She", "It", "This"}
)


def _grow_address(text: str, start: int, end: int) -> tuple[int, int]:
    """Extend an address core backwards over a building number, forwards over its tail lines."""
    before = re.search(r"(?:\b\d{1,6}[A-Za-z]?[ \t]*,?[ \t]*)$", text[max(0, start - 12) : start])
    if before:
        start -= len(before.group(0))
    limit = min(len(text), end + _TAIL_LIMIT)
    while end < limit:
        match = _TAIL_TOKEN.match(text, end, limit)
        if not match:
            break
        word = match.group(0).strip(" \t,\n")
        if word in _TAIL_STOP_WORDS:
            break
        end = match.end()
        if word.endswith(".") and len(word) > 4:
            break  # "London." ends a sentence; "St." does not
    return start, end


def find_addresses(text: str) -> list[Span]:
    """Street addresses, unit and PO box lines, military addresses, grown to the whole block."""
    found: list[Span] = []
    for pattern in _CORES:
        for match in pattern.finditer(text):
            start, end = _grow_address(text, match.start(), match.end())
            found.append(Span(start, end, "ADDRESS", 0.75, "address"))
    return merge_spans(found)


# International phone numbers: an optional +CC or 00/001 prefix, an optional (0) trunk or
# (area) group, then groups of digits split by spaces, dots or dashes, optional extension.
_PHONE = re.compile(
    r"(?<![\w+/.-])(?:(?:\+|00)\d{1,3}[ .-]?)?(?:\(0?\d{1,4}\)[ .-]?)?"
    r"\d{1,5}(?:[ .-]\d{1,8}){0,4}(?:\s?(?:x|ext\.?)\s?\d{1,5})?(?![\w/]|-\d|\.\d)"
)
_PHONE_CONTEXT = re.compile(
    r"(?i)\b(?:phone|tel|telephone|mobile|cell|cellphone|call|calling|called|fax|desk|"
    r"number|contact|reach|text|whatsapp|sms|dial|answering|messages?|line)\b"
)
# Contact lists label a number after it: "416 60 039 office", "(37) 788-063-Office".
_PHONE_LABEL_AFTER = re.compile(
    r"(?i)[ \t]*[-–,:(]?[ \t]*(?:office|fax|mobile|cell|home|work|tel|phone|landline)\b"
)
_DATE_LIKE = re.compile(r"^\d{1,4}([./-])\d{1,2}\1\d{1,4}$")


def find_phone_numbers(text: str) -> list[Span]:
    """Phone numbers in national and international forms.

    A grouped number with a `+` prefix, parentheses or an extension is reported with a high
    score; one that is just digit groups only when a phone word stands before it, since
    bare digit groups are also amounts, ids and dates.
    """
    found: list[Span] = []
    for match in _PHONE.finditer(text):
        value = match.group(0)
        digits = sum(char.isdigit() for char in value)
        if not 7 <= digits <= 15 or _DATE_LIKE.match(value):
            continue
        grouped = bool(re.search(r"\d[ .-]\d", value))
        strong = value.startswith(("+", "(")) or bool(re.search(r"x\s?\d|ext", value))
        window = text[max(0, match.start() - 60) : match.start()]
        context = bool(_PHONE_CONTEXT.search(window)) or bool(
            _PHONE_LABEL_AFTER.match(text, match.end())
        )
        if strong and (grouped or context):
            score = 0.85 if context else 0.7
        elif grouped and context:
            score = 0.75
        elif grouped and digits >= 9 and not re.search(r"\d{5,}", value):
            score = 0.5
        elif context and digits <= 12:
            score = 0.6
        else:
            continue
        found.append(Span(match.start(), match.end(), "PHONE_NUMBER", score, "phone"))
    return found


def find_known_entities(
    text: str, known: Mapping[str, str], *, source: str = "known", score: float = 0.9
) -> list[Span]:
    """Every case-insensitive whole-word occurrence of a known value (value -> kind)."""
    if not known:
        return []
    pattern = known_entities_pattern(known)
    by_value = {" ".join(value.casefold().split()): kind for value, kind in known.items()}
    found = []
    for match in pattern.finditer(text):
        kind = by_value.get(" ".join(match.group(0).casefold().split()), "PERSON")
        found.append(Span(match.start(), match.end(), kind, score, source))
    return found


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


def find_context_entities(text: str) -> list[Span]:
    """Names and places announced by the words around them (see `privacy.context`)."""
    from privault.privacy.context import find_context_entities as find

    return find(text)
