"""Street addresses of many countries, grown to the whole address block.

Address detection works in two steps: find a *core* that is almost certainly part of an
address (a numbered street, a street word with a house number, a house number followed by
a postcode and a town, a unit or PO box line, a military address), then grow it over the
lines that address blocks are made of (the street line before a unit line; city, region
code, postcode, country after) so that no fragment of the block is left in clear text.
"""

from __future__ import annotations

import re

from privault.spans import Span, merge_spans

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
    r"gade|gata|gatan|vägen|veien|vegen|stien|tie|katu|kuja|polku|tori|raitti|braut|gerði|"
    r"str\.?|útja|u\."
)
# USPS street suffixes (and British ones) that are also everyday words ("Spur", "Key",
# "Oval", "Meadows"): taken only capitalised, after a house number and capitalised words.
_STREET_AFTER_CAPITALISED = (
    r"Alley|Annex|Arcade|Bayou|Beach|Bend|Bluffs?|Bottom|Branch|Bridge|Brooks?|Burgs?|"
    r"Bypass|Camp|Canyon|Cape|Causeway|Centers?|Circles?|Cliffs?|Commons?|Corners?|Course|"
    r"Courts?|Coves?|Creek|Crest|Crossing|Crossroad|Curve|Dale|Dam|Divide|Drives?|Estates?|"
    r"Extensions?|Falls?|Ferry|Fields?|Flats?|Fords?|Forest|Forges?|Forks?|Fort|Gardens?|"
    r"Gateway|Glens?|Greens?|Groves?|Harbors?|Haven|Hills?|Inlet|Islands?|Isle|Junctions?|"
    r"Keys?|Knolls?|Lakes?|Landing|Lights?|Locks?|Lodge|Loop|Mall|Manors?|Meadows?|Mills?|"
    r"Mission|Motorway|Mount|Mountains?|Neck|Orchard|Oval|Overpass|Parks?|Pass|Passage|"
    r"Pines?|Plains?|Points?|Ports?|Prairie|Radial|Ramp|Ranch|Rapids?|Rest|Ridges?|River|"
    r"Roads?|Run|Shoals?|Shores?|Skyway|Springs?|Spurs?|Squares?|Station|Stravenue|Stream|"
    r"Streets?|Summit|Throughway|Trace|Track|Trafficway|Trailer|Tunnel|Turnpike|Underpass|"
    r"Unions?|Valleys?|Viaduct|Views?|Villages?|Ville|Vista|Walks?|Wall|Ways?|Wells?|"
    r"Rise|Wynd|Drove|Parade|Approach|Chase|Croft|Fold|Gate|Side|Green|Hill|Bank|Yard|End"
)
_STREET_BEFORE = (
    r"via|viale|piazza|corso|largo|vicolo|rue|avenue|av\.?|boulevard|bd\.?|chemin|allée|"
    r"impasse|quai|calle|avenida|avda\.?|avd\.?|paseo|plaza|camino|carrer|rua|travessa|"
    r"largo|praça|estrada|rúa|ul\.?|al\.?|trg|ulica|ulitsa|odos|leoforos|λ\.|οδός|"
    r"λεωφόρος|strada|bulevardul|bulevar|aleja|ulice|cuesta|glorieta|ronda|pasaje|callejón|"
    r"vía|urbanización|alameda|cañada|carretera|acceso|travesía|c/|str\.|strada|drumul|"
    r"calea|aleea|șoseaua|soseaua|splaiul|intrarea|piața|piata|rodovia|viela|vila|quadra|"
    r"borgo|contrada|piazzale|rotonda|salita|sentiero|stradella|località|frazione"
)
# Compound street names in Germanic and Nordic languages carry the type as a suffix.
_STREET_SUFFIX = (
    r"[^\W\d_]+(?:straße|strasse|str\.|gasse|weg|allee|platz|damm|laan|straat|plein|gracht|"
    r"vej|gade|gata|gatan|vägen|veien|vegen|stien|tie|katu|kuja|polku|braut|stræde|stig|"
    r"torg|torget|bakken|veg|väg)"
)
_NUM = r"\d{1,6}[A-Za-z]?"
# Postcodes written before the town: 12345, 1234, 123 45, 12-345, 1234-567, 12345-678,
# 1234 AB, with an optional country letter prefix (H-7690, D-10115).
_POSTCODE = (
    r"(?:[A-Z]{1,2}-)?(?:\d{5}(?:-\d{3})?|\d{4}(?:-\d{3}|[ \t]?[A-Z]{2}(?![\w]))?|"
    r"\d{3}[ \t]\d{2}|\d{2}-\d{3})(?![\w-])"
)
# Words that number things other than houses ("Chapter 9, 2024 Edition").
_NOT_NUMBERING = (
    r"(?!(?:Chapter|Page|Section|Part|Figure|Table|Volume|Vol|Issue|No|Number|Step|Level|"
    r"Season|Episode|Week|Day|Year|Version|Item|Question|Grade|Class|Gate|Platform|Line|"
    r"Route|Bus|Flight|Room|Floor|Track|Verse|Psalm|Act|Scene|Article|Rule|Slide|Box)\b)"
)
# Postcodes written after the town: UK, Canada, Ireland (Eircode), US state + ZIP.
_POSTCODE_AFTER = (
    r"[A-Z]{1,2}\d[A-Z\d]?[ \t]?\d[A-Z]{2}|[A-Z]\d[A-Z][ \t]?\d[A-Z]\d|"
    r"[A-Z]\d{2}[ \t]?[A-Z\d]{4}|[A-Z]{2}[ \t]+\d{5}(?:-\d{4})?"
)
_MONTH = (
    r"(?i:(?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?\s)"
)
# A house number; not a decade ("the 70s", "1990s"), which titles put after capitalised
# words ("5 Musicians Of The 70s You're Supposed To Hate").
_NOT_DECADE = r"(?!\d{0,3}0s(?![\w-]))"
_HOUSE = _NOT_DECADE + r"\d{1,5}[A-Za-z]?\.?(?![\w-])"
# After a street word joined to its name ("Roskothstr. 1-5", "Kastanjelaan 5/9"), a range or
# a door of a house number too: elsewhere "via DHL 3-5 days" and "Arsenal 2-1" have the
# same shape.
_HOUSE_OR_DOORS = _NOT_DECADE + r"\d{1,5}[A-Za-z]?(?:[-–/]\d{1,4}[A-Za-z]?)?\.?(?![\w-])"

_UNIT = re.compile(
    r"(?i)\b(?:apt|apartment|suite|ste|unit|flat|studio|floor|fl|bldg|building|"
    r"postbox|p\.?\s?o\.?\s?box|box|psc|cmr)\b\.?\s*#?\s*\d{1,6}[A-Za-z]?\b"
)
_MILITARY = re.compile(
    r"(?i)\b(?:(?:USNS|USNV|USS|USCGC)\s+" + _W + r"\s*,?\s*)?\b(?:APO|FPO|DPO)\s+(?:AA|AE|AP)"
    r"\s+\d{5}\b"
)
_CORES = [
    # 24 Clarke Avenue, 9448 175 Iroon Polytechniou Avenue
    re.compile(
        r"(?i:\b" + _NUM + r",?\s+(?:" + _NUM + r"\s+)?)(?:" + _W + r"\s+){1,4}"
        r"(?i:(?:" + _STREET_AFTER + r"))(?![\w])"
    ),
    # Via Roma 131, ul. Słowicza 10, Rua Cyro Schmutzer Franco 1213
    re.compile(r"(?i:\b(?:" + _STREET_BEFORE + r"))\s+(?:" + _W + r",?\s+){0,6}" + _HOUSE),
    # 5858 Andrea Mountains, 0 Margaret Spur
    re.compile(
        r"\b" + _NUM + r"[ \t]+(?:" + _CAP + r"[ \t]+){1,3}"
        r"(?:" + _STREET_AFTER_CAPITALISED + r")(?!\w)"
    ),
    # Michnova 9, 12345 Town / Larsentunet 589, 9632 Sæther / Višnjica 6b/3\n70669 Rovinj:
    # a house number followed by a postcode and a town is an address in most of Europe.
    re.compile(
        r"(?:\b" + _NOT_NUMBERING + _CAP + r"[ \t]+){1,4}"
        r"\d{1,5}[A-Za-z]?(?:/\d{1,4}[A-Za-z]?)?\.?,?[ \t]*"
        r"(?:\n[ \t>]*)?" + _POSTCODE + r"[ \t]+" + _CAP
    ),
    # Friedhofstrasse 33, 6750 Koskikatu 25, hegyalja út 98.
    re.compile(
        r"(?:\b"
        + _NUM
        + r"\s+)?\b(?:"
        + _CAP
        + r"\s+){0,2}(?i:"
        + _STREET_SUFFIX
        + r")\s+"
        + _HOUSE_OR_DOORS
    ),
    re.compile(r"(?i)\b(?:" + _W + r"\s+){1,3}(?:tér|út|útja|utca|u\.|körút|trg)\s+" + _HOUSE),
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
    r"(?:(?:nad|pod|de|del|di|da|do|am|an|im|upon|sur|la|le|les)[ \t]+)?"
    r"(?:"
    + _POSTCODE_AFTER
    + r"|"
    + _CAP
    + r"|\d{4,6}(?![\w-])|\([^\W\d_]+\)|"
    + _UNIT.pattern[4:]  # a unit line after the street line
    + r")"
)
# A postcode in a labelled field ("Postcode: 47801", "ZIP: 10001", "PLZ: 10115"): the
# label says what the number is, so any postcode shape is taken, with no town after it.
_LABELLED_POSTCODE = re.compile(
    r"(?i:\b(?:post(?:al)?[ \t]?code|postleitzahl|plz|zip(?:[ \t]?code)?|code[ \t]postal|"
    r"c[óo]digo[ \t]postal|eircode|pin[ \t]?code)\b)[ \t]*[:=#][ \t]*("
    + _POSTCODE
    + r"|"
    + _POSTCODE_AFTER
    + r"|\d{3,8}(?:-\d{3,4})?(?![\w-]))"
)
# A whole British postcode or Canadian postal code, written anywhere ("my postcode is SW1A
# 1AA", "Oxfordshire,CV0 8NF", "K1A 0B1"): either names a street or a few houses, and its
# shape, with the letters each position allows and the space between its halves, is rare
# in other text. Not a size, an ordinal or a drive after a model or a room ("PS5 2GB",
# "B2 1ST FLOOR", "A4 4WD", "N3 3DS").
_WHOLE_POSTCODE = re.compile(
    r"(?<![\w-])(?:"
    r"[A-PR-UWYZ](?:\d{1,2}|[A-HK-Y]\d{1,2}|\d[A-HJKPSTUW]|[A-HK-Y]\d[ABEHMNPRV-Y])"
    r"[ \t](?!\d(?:[GT]B|ST|ND|RD|TH|WD|DS)(?![\w-]))\d[ABD-HJLNP-UW-Z]{2}"
    r"|[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z][ \t]\d[ABCEGHJ-NPRSTV-Z]\d"
    r")(?![\w-])"
)
_LINE_ABOVE = re.compile(r"(?m)^[ \t>*•-]*(\d{1,6}[A-Za-z]?[ \t,]+[^\n]{3,60})\n[ \t>*•-]*")
_TAIL_LIMIT = 120
_TAIL_STOP_WORDS = frozenset(
    {"I", "The", "A", "An", "My", "Please", "Thanks", "Thank", "We", "He", "She", "It", "This"}
)


def _grow_address(text: str, start: int, end: int) -> tuple[int, int]:
    """Extend an address core backwards over a building number, forwards over its tail lines."""
    before = re.search(r"(?:\b\d{1,6}[A-Za-z]?[ \t]*,?[ \t]*)$", text[max(0, start - 12) : start])
    if before:
        start -= len(before.group(0))
    # A core at the start of a line ("Apt. 735") continues the street line above it when
    # that line starts with a house number.
    above = _LINE_ABOVE.search(text, max(0, start - 80), start)
    if above and above.end() == start:
        start = above.start(1)
    limit = min(len(text), end + _TAIL_LIMIT)
    while end < limit:
        if re.search(r"[^\W\d_]{4}\.$", text[start:end]):
            break  # "London." ends a sentence; "St." does not
        match = _TAIL_TOKEN.match(text, end, limit)
        if not match:
            break
        word = match.group(0).strip(" \t,\n")
        if word in _TAIL_STOP_WORDS or text.startswith(":", match.end()):
            break  # a sentence or a labelled field ("Deposit:") starts here
        end = match.end()
        if word.endswith(".") and len(word) > 4:
            break  # "London." ends a sentence; "St." does not
    return start, end


# A number right after "09:" or "12." is the rest of a time, a decimal or a date, never a
# house number: "at 09:30, Hauptstraße 5" starts at the street.
_NUMBER_TAIL = re.compile(r"\d+[A-Za-z]?[ \t]*,?[ \t]*")


def _not_after_time(text: str, start: int, end: int) -> int:
    """`start`, moved past a leading number that continues a time, decimal or date."""
    if start >= 2 and text[start - 1] in ":." and text[start - 2].isdigit():
        tail = _NUMBER_TAIL.match(text, start, end)
        if tail:
            return tail.end()
    return start


def find_addresses(text: str) -> list[Span]:
    """Street addresses, unit and PO box lines, military addresses, grown to the whole block."""
    found: list[Span] = []
    for pattern in _CORES:
        for match in pattern.finditer(text):
            start, end = _grow_address(text, match.start(), match.end())
            start = _not_after_time(text, start, end)
            if text.endswith(".", start, end) and re.search(r"[^\W\d_]{4}\.$", text[start:end]):
                end -= 1  # "Bonn." ends the sentence: the full stop is not the address
            if end > start:
                found.append(Span(start, end, "ADDRESS", 0.75, "address"))
    for match in _LABELLED_POSTCODE.finditer(text):
        found.append(Span(match.start(1), match.end(1), "ADDRESS", 0.75, "address"))
    for match in _WHOLE_POSTCODE.finditer(text):
        found.append(Span(match.start(), match.end(), "ADDRESS", 0.75, "address"))
    return merge_spans(found)


# A postcode right before a town found by any recogniser ("…, 28014 Madrid", "6435 Taguig",
# "858842 Satna"): the postcode shapes above, or six digits (India, Russia, China,
# Singapore). A year has the same shape ("the 2024 Paris Olympics"), so a number from 1900
# to 2099 counts only at the start of a line or field (after a comma, colon, semicolon, pipe).
_POSTCODE_BEFORE_TOWN = re.compile(r"(?:^|(?<=[\s,;|(]))(" + _POSTCODE + r"|\d{6}(?![\w-]))[ \t]+$")
# A postcode right after a town, in a field of its own: the dashed forms of Portugal and
# Brazil ("Leiria, 7799-843"; plain numbers there are as often a year or a count).
_POSTCODE_AFTER_TOWN = re.compile(r"[ \t]*[,;|][ \t]*(\d{4,5}-\d{3})(?![\w-])")
YEAR = re.compile(r"(?:19|20)\d\d")  # a year's shape, matched whole


def postcodes_beside_towns(text: str, towns: list[Span]) -> list[Span]:
    """ADDRESS spans of the postcodes written right before or after found towns (spans
    of kind LOCATION), where no street address around them took them in."""
    found = []
    for town in towns:
        before = _POSTCODE_BEFORE_TOWN.search(text, max(0, town.start - 16), town.start)
        if before:
            start, end = before.span(1)
            head = text[max(0, start - 8) : start].rstrip(" \t")  # not all the text before
            field = head[-1:] in (",", ";", ":", "|", "\n") or (not head and start <= 8)
            if not YEAR.fullmatch(text[start:end]) or field:
                found.append(Span(start, end, "ADDRESS", 0.7, "address"))
        after = _POSTCODE_AFTER_TOWN.match(text, town.end)
        if after:
            found.append(Span(after.start(1), after.end(1), "ADDRESS", 0.7, "address"))
    return found


# A region's code after a town: a US state, a Canadian province or territory, a Brazilian
# or an Australian state ("Austin, TX", "Montréal, QC", "São Paulo – SP", "Sydney, NSW"),
# with the postcode that may follow it ("Toronto, ON M5V 2T6"). Not before "?" or "!":
# "See you in Boston, OK?" is no state.
REGION_CODES = frozenset(
    """AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV
    NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC
    AB BC MB NB NL NS NT NU ON PE QC SK YT
    AC AL AP AM BA CE DF ES GO MA MT MS MG PA PB PR PE PI RJ RN RS RO RR SC SP SE TO
    NSW VIC QLD TAS ACT""".split()
)
_REGION_AFTER_TOWN = re.compile(
    r"[ \t]*(?:,|[–—-])[ \t]*([A-Z]{2,3})"
    r"(?:[ \t]+([A-Z]\d[A-Z][ \t]?\d[A-Z]\d|\d{4,5}(?:-\d{4})?))?"
    r"(?=$|[ \t\n,.;:|()])"
)


def regions_beside_towns(text: str, towns: list[Span]) -> list[Span]:
    """LOCATION spans of the region codes written right after found towns, and ADDRESS
    spans of the postcodes after those (see `REGION_CODES`)."""
    found = []
    for town in towns:
        after = _REGION_AFTER_TOWN.match(text, town.end)
        if after is None or after.group(1) not in REGION_CODES:
            continue
        found.append(Span(after.start(1), after.end(1), "LOCATION", 0.7, "address"))
        if after.group(2):
            found.append(Span(after.start(2), after.end(2), "ADDRESS", 0.7, "address"))
    return found
