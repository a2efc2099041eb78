"""Labels — a document's title, headings and tags — and how each is scanned for PII.

A label is judged whole, with the opening of its document after it as context: NER guesses
wildly on a lone word ("Plumber" as a place, "Dentist" as a company), and judges a label
as it would in running text when it has some. A title made from the text's own first line
is that first line: it is judged as the text's scan judged it (its spans cut to the line),
not scanned a second time — the same reasoning that leaves such a title out of the index
windows (`ingest.chunk_label`), and it keeps a title from showing what its text masks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from privault.spans import Span


class _Detects(Protocol):
    def detect(self, text: str) -> list[Span]: ...


LABEL_CONTEXT_CHARS = 300


def label_spans(detector: _Detects, label: str, body: str) -> list[Span]:
    """Spans in a title or heading, detected with the start of its document after it.

    NER guesses wildly on a lone word ("Plumber" as a place, "Dentist" as a company);
    with the document's opening as context it judges a label as it would in running text.
    """
    return [span for span in detector.detect(label_text(label, body)) if span.end <= len(label)]


def document_labels(title: str, headings: Sequence[str], tags: Sequence[str]) -> list[str]:
    """A document's labels: its title, headings and tags, each once, each judged whole."""
    return [label for label in dict.fromkeys([title, *headings, *tags]) if label]


def is_first_line(label: str, text: str) -> bool:
    """Whether `label` is the first line of `text` exactly (a title made from it).

    Such a label says nothing its text does not, and is judged as that text's first line
    (see `clip_to`), not scanned again: a one-line note would otherwise cost two scans.
    """
    follows = text[len(label) : len(label) + 1]
    return bool(label) and text.startswith(label) and follows in ("", "\n")


def clip_to(spans: Sequence[Span], length: int) -> list[Span]:
    """Spans of a text cut to its first `length` characters: a value that runs on past a
    title made from the first line is masked in the title as far as the title goes."""
    return [
        Span(span.start, min(span.end, length), span.kind, span.score, span.source)
        for span in spans
        if span.start < length
    ]


def label_text(label: str, body: str) -> str:
    """The text a label is scanned in: the label, a blank line, its document's opening."""
    prose = (line for line in body.splitlines() if not line.lstrip().startswith("#"))
    return f"{label}\n\n{' '.join(prose)[:LABEL_CONTEXT_CHARS]}"


def scan_text(label: str, body: str, opening: str) -> str:
    """The text a label's spans come from: its document's first section when the label is
    that section's first line, else the label with its document's opening after it."""
    return opening if is_first_line(label, opening) else label_text(label, body)


def found_in(label: str, opening: str, spans: Sequence[Span]) -> list[Span]:
    """A label's spans from the spans found in `scan_text(label, ...)`."""
    if is_first_line(label, opening):
        return clip_to(spans, len(label))
    return [span for span in spans if span.end <= len(label)]
