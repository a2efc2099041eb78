"""The answer leak scanner: mask every personal value from the context that an answer repeats.

A model that has seen a value can give it back in many shapes: verbatim, in another case,
with its separators changed (`+49 151-234` for `+49151234`), with look-alike or invisible
characters mixed in, spelled out (`J-O-H-N`, `four one one`), reversed, in leetspeak or
ROT13, or encoded as base64, hex, binary or decimal character codes. The scanner compares
on a canonical *skeleton* — Unicode NFKC, accents, zero-width and format characters
removed, look-alike letters folded, case folded, only letters and digits kept — that
remembers where each skeleton character came from in the answer, so a match anywhere in
the skeleton masks exactly the stretch of the answer that produced it. Encoded runs are
decoded (twice, for nested encodings) and masked whole when they hide a value.

Short values only match on word boundaries (`Anna` must not mask `Savannah`); long ones
match anywhere, since a prefix letter must not be enough to smuggle a card number out.

`shown` keeps the scan from masking more than it must: it picks the values a text actually
holds (in any form but a partial one), since only what a model was shown can leak through
it.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

MASK = "<WITHHELD>"
_SHORT = 8  # values whose skeleton is shorter than this must sit on word boundaries
_MIN = 2  # skeletons shorter than this are not scanned: they would match everywhere

# Cyrillic and Greek letters that look like Latin ones (after case folding).
_HOMOGLYPHS = str.maketrans(
    "аеорсухіјѕԁԛԝɑɡıαβεικνορτυχ",
    "aeopcyxijsdqwagiabeikvoptux",
)
_DIGIT_WORDS = {
    word: str(digit)
    for digit, word in enumerate(
        ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
    )
}
_DIGIT_WORD = re.compile(r"\b(" + "|".join(_DIGIT_WORDS) + r")\b", re.IGNORECASE)
# Leetspeak: letters and the digits/symbols that stand for them fold to one class each.
_LEET = str.maketrans("01l!|34@5$789", "oiiiieaasstbg")
_LEET_SYMBOLS = frozenset("!|@$")

_BASE64_RUN = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{8,}={0,2}")
_HEX_RUN = re.compile(r"(?:(?:0x|\\x|%)?[0-9A-Fa-f]{2}[ :,-]?){3,}(?:0x|\\x|%)?[0-9A-Fa-f]{2}")
_BINARY_RUN = re.compile(r"(?:\b[01]{8}\b[ ,]*){2,}\b[01]{8}\b")
_DECIMAL_RUN = re.compile(r"(?:\b\d{2,3}\b[\s,]+){3,}\b\d{2,3}\b")


@dataclass(frozen=True)
class Leak:
    """A stretch `answer[start:end]` that repeats a context value, and in what form."""

    start: int
    end: int
    form: str  # verbatim, normalised reversed leet rot13 partial base64 hex binary decimal


@dataclass(frozen=True)
class LeakScan:
    """The masked answer and what was held back from it."""

    text: str
    leaks: tuple[Leak, ...] = ()
    masks: int = 0  # stretches replaced in the answer (overlapping leaks count once)
    forms: dict[str, int] = field(default_factory=dict)


def _fold_char(ch: str) -> str:
    """The comparison form of one character (possibly empty or several characters)."""
    if unicodedata.category(ch) == "Cf":  # zero-width joiners, soft hyphens, BOM, ...
        return ""
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", ch))
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return plain.casefold().translate(_HOMOGLYPHS)


@lru_cache(maxsize=256)
def _skeleton(text: str, leet: bool) -> tuple[str, tuple[int, ...], tuple[int, ...]]:
    # One text is scanned for many values (`shown`) and decoded runs repeat: cache it.
    stream, starts, ends = skeleton(text, leet=leet)
    return stream, tuple(starts), tuple(ends)


def skeleton(text: str, *, leet: bool = False) -> tuple[str, list[int], list[int]]:
    """The canonical letters-and-digits form of `text`, and where each character came from.

    Returns the skeleton and, per skeleton character, the start and end of its source
    stretch in `text` (one character, or a whole digit word).

    Digit words become digits (`four` → `4`). With `leet`, leetspeak symbols are kept and
    everything folds into look-alike classes.
    """
    words = {
        m.start(): (m.end(), _DIGIT_WORDS[m.group(1).lower()]) for m in _DIGIT_WORD.finditer(text)
    }
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    index = 0
    while index < len(text):
        if index in words:
            end, digit = words[index]
            chars.append(digit.translate(_LEET) if leet else digit)
            starts.append(index)
            ends.append(end)
            index = end
            continue
        for c in _fold_char(text[index]):
            if c.isalnum() or (leet and c in _LEET_SYMBOLS):
                chars.append(c.translate(_LEET) if leet else c)
                starts.append(index)
                ends.append(index + 1)
        index += 1
    return "".join(chars), starts, ends


def _variants(value: str) -> list[str]:
    """Skeletons under which `value` may appear: itself, spoken email, national phone."""
    base = skeleton(value)[0]
    found = [base]
    if "@" in value:
        local, _, domain = value.partition("@")
        spoken = f" at {domain.replace('.', ' dot ')}"
        found.append(skeleton(local + spoken)[0])
        found.append(skeleton(local.replace(".", " dot ") + spoken)[0])
    digits = re.sub(r"\D", "", value)
    if value.strip().startswith(("+", "00")) and len(digits) >= 9 and digits == base:
        country = digits[2:] if value.strip().startswith("00") else digits
        for cut in (1, 2, 3):  # country codes are 1-3 digits; try each national form
            rest = country[cut:]
            if len(rest) >= 7:
                found.extend([rest, "0" + rest])
    return [v for v in dict.fromkeys(found) if len(v) >= _MIN]


# Words that make a capitalised phrase a place or a company rather than a person's name.
_NOT_NAME_WORDS = frozenset(
    "street road avenue lane way drive square place strasse straße platz weg allee gasse "
    "city town bank gmbh ltd inc llc ag co company corp university hospital school".split()
)


def _parts(value: str) -> list[str]:
    """Skeletons of the identifying parts of `value`, masked even when it leaks in pieces.

    A long number (IBAN, card, phone) leaks through any run of at least 60% of its digits
    (8 or more); a person's name through any one of its words of four letters or more.
    """
    base = skeleton(value)[0]
    digits = sum(c.isdigit() for c in base)
    if digits >= 8 and len(base) >= 10:
        width = max(8, -(-len(base) * 3 // 5))
        return [base[i : i + width] for i in range(len(base) - width + 1)]
    words = value.split()
    name_like = 2 <= len(words) <= 4 and all(w[:1].isupper() and w.isalpha() for w in words)
    if name_like and not any(w.casefold() in _NOT_NAME_WORDS for w in words):
        return [skeleton(w)[0] for w in words if len(w) >= 4]
    return []


def _bounded(text: str, start: int, end: int, probe: str) -> bool:
    """True if `text[start:end]` does not continue a word or number on either side."""
    if len(probe) >= _SHORT:
        return True

    def same_class(ch: str, ref: str) -> bool:
        return (ch.isalpha() and ref.isalpha()) or (ch.isdigit() and ref.isdigit())

    if start > 0 and same_class(text[start - 1], probe[0]):
        return False
    return not (end < len(text) and same_class(text[end], probe[-1]))


def _search(text: str, leet: bool, probes: Iterable[tuple[str, str]]) -> list[Leak]:
    """Every bounded occurrence of each `(probe, form)` in the skeleton of `text`."""
    stream, starts, ends = _skeleton(text, leet)
    found = []
    for probe, form in probes:
        at = stream.find(probe)
        while at >= 0:
            start, end = starts[at], ends[at + len(probe) - 1]
            contiguous = end - start == len(probe)
            if _bounded(text, start, end, probe) and (len(probe) >= 4 or contiguous):
                found.append(Leak(start, end, form))
            at = stream.find(probe, at + 1)
    return found


@lru_cache(maxsize=256)
def _decoded(text: str) -> tuple[tuple[int, int, str, str], ...]:
    return tuple(_decoded_runs(text))


def _decoded_runs(text: str) -> Iterable[tuple[int, int, str, str]]:
    """Runs of `text` that decode (base64, hex, binary, decimal codes) to readable text."""
    for match in _BASE64_RUN.finditer(text):
        run = match.group(0).rstrip("=")
        for shift in range(4):  # the run may start mid-quantum after a stray character
            piece = run[shift:]
            try:
                raw = base64.urlsafe_b64decode(
                    piece.replace("+", "-").replace("/", "_") + "=" * (-len(piece) % 4)
                )
            except (binascii.Error, ValueError):
                continue
            yield match.start(), match.end(), "base64", raw.decode("utf-8", "ignore")
    for match in _HEX_RUN.finditer(text):
        digits = re.sub(r"0x|\\x|%|[\s:,-]", "", match.group(0))
        for shift in (0, 1):
            piece = digits[shift:]
            piece = piece[: len(piece) - len(piece) % 2]
            try:
                decoded = bytes.fromhex(piece).decode("utf-8", "ignore")
            except ValueError:
                continue
            yield match.start(), match.end(), "hex", decoded
    for match in _BINARY_RUN.finditer(text):
        octets = re.findall(r"[01]{8}", match.group(0))
        decoded = bytes(int(o, 2) for o in octets).decode("utf-8", "ignore")
        yield match.start(), match.end(), "binary", decoded
    for match in _DECIMAL_RUN.finditer(text):
        codes = [int(n) for n in re.findall(r"\d+", match.group(0))]
        if all(32 <= c < 0x250 for c in codes):
            yield match.start(), match.end(), "decimal", "".join(chr(c) for c in codes)


class _Scanner:
    """The values of one context, prepared once, matched against any number of texts.

    Without `partial`, only whole values match (in any form), never a part of one.
    """

    def __init__(self, values: Iterable[str], *, partial: bool = True) -> None:
        values = list(values)  # read twice below; may be a generator
        plain: dict[str, str] = {}
        leet: dict[str, str] = {}
        for value in {v.strip() for v in values if v and v.strip()}:
            for variant in _variants(value):
                plain.setdefault(variant, "normalised")
                plain.setdefault(variant[::-1], "reversed")
                letters = sum(c.isalpha() for c in variant)
                if len(variant) >= 4 and letters * 2 >= len(variant):
                    leet.setdefault(variant.translate(_LEET), "leet")
                    plain.setdefault(codecs.encode(variant, "rot13"), "rot13")
            for part in _parts(value) if partial else ():
                plain.setdefault(part, "partial")
                plain.setdefault(part[::-1], "partial")
        # A probe that reads the same reversed is reported as the plainer form.
        self.plain = plain
        self.leet = leet
        self.exact = {v.strip() for v in values if v and v.strip()}

    def find(self, text: str, depth: int = 0) -> list[Leak]:
        leaks = _search(text, False, self.plain.items())
        if self.leet:
            leaks += _search(text, True, self.leet.items())
        leaks = [self._label(text, leak) for leak in leaks]
        if depth < 2:
            for start, end, form, decoded in _decoded(text):
                if decoded and self.find(decoded, depth + 1):
                    leaks.append(Leak(start, end, form))
        return leaks

    def _label(self, text: str, leak: Leak) -> Leak:
        if leak.form == "normalised" and text[leak.start : leak.end] in self.exact:
            return Leak(leak.start, leak.end, "verbatim")
        return leak


_PLAINNESS = ("verbatim", "normalised", "reversed", "rot13", "leet", "partial")


def find_leaks(answer: str, values: Iterable[str]) -> list[Leak]:
    """Every stretch of `answer` that repeats one of `values` in any recognised form.

    Where matches overlap, the widest is kept (on a tie, the plainest form names it), so
    each leaked stretch is reported once.
    """

    def rank(leak: Leak) -> tuple[int, int, int]:
        plain = _PLAINNESS.index(leak.form) if leak.form in _PLAINNESS else len(_PLAINNESS)
        return (leak.start, -leak.end, plain)

    kept: list[Leak] = []
    for leak in sorted(set(_Scanner(values).find(answer)), key=rank):
        if kept and leak.end <= kept[-1].end:
            continue  # inside a stretch already reported
        kept.append(leak)
    return kept


def shown(values: Iterable[str], text: str) -> list[str]:
    """The `values` that `text` holds whole, in any recognised form (not merely a part).

    What a model was shown is all it can leak; a value it was not shown can only reach its
    answer from the caller, who knows it already.
    """
    unique = dict.fromkeys(v.strip() for v in values if v and v.strip())
    return [value for value in unique if _Scanner([value], partial=False).find(text)]


def mask_ranges(text: str, ranges: Iterable[tuple[int, int, str]]) -> tuple[str, int]:
    """Replace each `(start, end, label)` stretch with its label; overlaps merge into one.

    Returns the masked text and how many stretches were replaced.
    """
    merged: list[tuple[int, int, str]] = []
    for start, end, label in sorted(ranges, key=lambda r: (r[0], -r[1])):
        if merged and start < merged[-1][1]:
            last_start, last_end, last_label = merged[-1]
            # A leak mask wins over a detector label: it says less about what was there.
            keep = MASK if MASK in (label, last_label) else last_label
            merged[-1] = (last_start, max(last_end, end), keep)
        else:
            merged.append((start, end, label))
    pieces, cursor = [], 0
    for start, end, label in merged:
        pieces.append(text[cursor:start])
        pieces.append(label)
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces), len(merged)


def scan_answer(answer: str, values: Iterable[str]) -> LeakScan:
    """Mask every context value that `answer` repeats; say how many masks, in what forms."""
    leaks = find_leaks(answer, values)
    text, masks = mask_ranges(answer, ((leak.start, leak.end, MASK) for leak in leaks))
    return LeakScan(text, tuple(leaks), masks, dict(Counter(leak.form for leak in leaks)))
