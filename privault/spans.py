"""Detected PII spans, the one vocabulary of kinds they are labelled with, and owner overrides.

Every recognizer (presidio patterns, spaCy NER, privault's own) reports into this
vocabulary, so policies, stored spans and the gate speak about the same kinds. Labels from
other tools are normalised once, here, at the boundary.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

# The kinds privault reports. Policies may name others (custom pattern recognizers add
# their own kind), but everything shipped speaks this list.
KINDS: tuple[str, ...] = (
    "PERSON",
    "LOCATION",
    "ADDRESS",
    "PHONE_NUMBER",
    "EMAIL_ADDRESS",
    "CREDIT_CARD",
    "IBAN_CODE",
    "US_SSN",
    "US_BANK_NUMBER",
    "US_PASSPORT",
    "US_ITIN",
    "IP_ADDRESS",
    "US_DRIVER_LICENSE",
    "MEDICAL_LICENSE",
    "CRYPTO",
    "DATE_TIME",
    "URL",
    "ORGANIZATION",
    "NRP",
)

# Labels used by spaCy, presidio and common datasets, mapped to privault's kinds.
_ALIASES = {
    "PER": "PERSON",
    "GPE": "LOCATION",
    "LOC": "LOCATION",
    "FAC": "LOCATION",
    "STREET_ADDRESS": "ADDRESS",
    "PHONE": "PHONE_NUMBER",
    "EMAIL": "EMAIL_ADDRESS",
    "IBAN": "IBAN_CODE",
    "SSN": "US_SSN",
    "ORG": "ORGANIZATION",
    "NORP": "NRP",
    "DATE": "DATE_TIME",
    "TIME": "DATE_TIME",
}


def normalise_kind(label: str) -> str:
    """Map a recognizer's or dataset's label onto privault's vocabulary (upper case)."""
    upper = label.strip().upper()
    return _ALIASES.get(upper, upper)


@dataclass(frozen=True, order=True)
class Span:
    """A stretch `text[start:end]` that a recognizer believes is PII of `kind`.

    `score` is the recognizer's confidence in [0, 1]; `source` names the recognizer family
    (`pattern`, `ner`, `address`, `phone`, `known`, `custom:<name>`, `owner`, `deny`), so a
    policy can, for instance, ignore NER spans.
    """

    start: int
    end: int
    kind: str
    score: float
    source: str

    def __post_init__(self) -> None:
        if self.start < 0 or self.end <= self.start:
            raise ValueError(f"empty or negative span {self.start}..{self.end}")


def merge_spans(spans: Iterable[Span]) -> list[Span]:
    """Merge overlapping or touching spans into one each, sorted by start.

    A span inside another takes the container's kind (a surname inside a street address is
    part of the address); partly overlapping spans take the kind of the more confident one
    (the longer on a tie). Masking the union is what keeps a value from leaking at the seam.
    """
    ordered = sorted(spans, key=lambda span: (span.start, -span.end))
    merged: list[Span] = []
    for span in ordered:
        if merged and span.start <= merged[-1].end:
            last = merged[-1]
            if span.end <= last.end:
                lead = last  # contained
            elif span.start == last.start:
                lead = span  # contains the last one
            else:
                lead = max((last, span), key=lambda s: (s.score, s.end - s.start))
            merged[-1] = Span(
                last.start, max(last.end, span.end), lead.kind, lead.score, lead.source
            )
        else:
            merged.append(span)
    return merged


def normalise_value(value: str) -> str:
    """The comparison form of a value: case-folded, inner whitespace collapsed."""
    return " ".join(value.casefold().split())


ANY_KIND = "*"  # an unmark of every kind (what every unmark meant before kinds were kept)


@dataclass(frozen=True)
class Override:
    """One owner decision about a value in a document (or one node of it).

    Stored by document id and value (not offsets), so it survives re-ingest; the privacy
    layer applies it at read time on top of the stored spans. A mark names the one kind it
    masks the value as; an unmark names the kinds it is not (`ORGANIZATION`, or several
    joined by commas), or `*` for every kind: "not an organisation" must not also unmask
    the phone number that happens to share the text.
    """

    id: int
    doc_id: str
    node_id: str | None
    kind: str
    value: str
    action: Literal["mark", "unmark"]

    @property
    def kinds(self) -> frozenset[str]:
        """The kinds this override is about (`*` stands for every kind)."""
        return frozenset(part for part in self.kind.split(",") if part)

    def unmarks(self, kind: str) -> bool:
        """True for an unmark that drops spans of `kind`."""
        return self.action == "unmark" and (ANY_KIND in self.kinds or kind in self.kinds)

    def applies_to(self, doc_id: str, node_id: str | None) -> bool:
        """True for this document and, if the override names a node, that node only."""
        return self.doc_id == doc_id and (self.node_id is None or self.node_id == node_id)


def clip_spans(spans: Iterable[Span], start: int, end: int) -> list[Span]:
    """Spans of `text[start:end]`, shifted to offsets in that window (cut at its edges)."""
    clipped = []
    for span in spans:
        lo, hi = max(span.start, start), min(span.end, end)
        if lo < hi:
            clipped.append(Span(lo - start, hi - start, span.kind, span.score, span.source))
    return clipped


def masked_text(text: str, masks: Sequence[Span]) -> str:
    """`text` with each of `masks` (merged, in order) replaced by an unnumbered `<KIND>`:
    the shape of the text a masking caller reads, whatever the masked values' lengths."""
    pieces, cursor = [], 0
    for span in masks:
        pieces += [text[cursor : span.start], f"<{span.kind}>"]
        cursor = span.end
    pieces.append(text[cursor:])
    return "".join(pieces)


def to_masked(masks: Sequence[Span], offset: int) -> int:
    """Where a stored offset falls in `masked_text` (inside a masked value: its mark's start)."""
    shift = 0
    for span in masks:
        if span.end <= offset:
            shift += len(span.kind) + 2 - (span.end - span.start)
        elif span.start < offset:
            return span.start + shift
        else:
            break
    return offset + shift


def from_masked(masks: Sequence[Span], offset: int) -> int:
    """The stored offset of an offset into `masked_text` (inside a mark: its value's start)."""
    shift = 0
    for span in masks:
        mark_start = span.start + shift
        mark_end = mark_start + len(span.kind) + 2
        if mark_end <= offset:
            shift += len(span.kind) + 2 - (span.end - span.start)
        elif mark_start < offset:
            return span.start
        else:
            break
    return offset - shift
