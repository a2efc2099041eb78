"""Long texts read in pieces: where the spaCy pipelines' view of a text is cut.

spaCy refuses a text over `nlp.max_length` (a million characters), and below that its
parser and entity recognisers take memory in proportion to the text they read at once
(about 400 MB for 100,000 characters of notes). A text the vault accepts may be far longer:
a file of up to 20 MiB without headings is one section. So the pipelines read a text
longer than `PIECE_CHARS` in pieces, each piece alone, and the pieces' spans are moved back
to the text's offsets (`privault.privacy.engine`).

A piece ends at a line end, failing that (a line longer than a piece) after a sentence's
end, failing that after a space, failing that anywhere. Near a cut the pipelines see less
of the text around a word than in a whole read. On seven texts of 15,000 to 150,000
characters of notes (27,009 spans read whole), 117 spans differed read in pieces of
10,000, 108 of them in score alone (a name scored apart near a cut, and its copies spread
through the text); the others were a product name at a cut read as a company instead of
a place, a date at a cut, and two names' copies spread differently (read without the
margins `read_in_pieces` now gives each piece). A text of up to
`PIECE_CHARS` is one piece, read exactly as before pieces were: the same spans.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import replace

from privault.spans import Span

# Characters of text a pipeline reads at once. On 1.1 MB of notes dense with names
# (`benchmarks` sentences, one a line) pieces of 5,000 / 10,000 / 20,000 / 50,000 / 100,000
# characters took 54 / 55 / 62 / 70 / 75 CPU-seconds in both pipelines and 38 / 60 / 104 /
# 228 / 444 MB beyond the loaded models (presidio looks up each match's token from the
# start of its piece); on 1 MB of plain words, 35 to 39 s and 14 to 188 MB. At this size a
# long text costs what its length does, its pipelines' memory stays within a few tens of
# MB, and a note, a message or a typical section is still one piece.
PIECE_CHARS = 10_000
# Characters of the text around a piece read with it (`read_in_pieces`): longer than the
# values a recogniser finds (an address, an IBAN with its spaces) and their cue words.
MARGIN = 200
# A piece is cut where one of these ends in its latter half (so pieces are at least half
# `PIECE_CHARS` long), tried in this order; where none does, it is cut at `PIECE_CHARS`.
_CUTS = (
    re.compile(r"[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]+"),  # a line end
    re.compile(r"[.!?…][\"'’”)\]]*\s+"),  # a sentence end, with the space after it
    re.compile(r"\s+"),  # a space between words
)


def cut_into_pieces(text: str, size: int | None = None) -> Iterator[tuple[int, str]]:
    """`text` as consecutive pieces of up to `size` characters (default `PIECE_CHARS`):
    (offset, piece) pairs whose pieces joined are `text`; one piece when it is that short."""
    size = max(PIECE_CHARS if size is None else size, 2)
    start = 0
    while len(text) - start > size:
        end = max(_cut(text, start + size // 2, start + size), start + 1)
        yield start, text[start:end]
        start = end
    if start < len(text) or not text:
        yield start, text[start:]


def read_in_pieces(text: str, read: Callable[[str], list[Span]]) -> list[Span]:
    """The spans `read` finds in `text`, read piece by piece (`cut_into_pieces`), each piece
    with `MARGIN` characters of the text on either side: a cut inside a value (a card
    number on a line longer than a piece, an address over two lines) would leave neither
    piece the whole of it, nor the words before it that say what it is. A span is kept
    from the read of the piece it starts in, moved to the text's offsets."""
    found: list[Span] = []
    for start, piece in cut_into_pieces(text):
        end = start + len(piece)
        first = max(start - MARGIN, 0)
        for span in read(text[first : end + MARGIN]):
            if start <= span.start + first < end:
                found.append(replace(span, start=span.start + first, end=span.end + first))
    return found


def _cut(text: str, earliest: int, latest: int) -> int:
    """Where a piece ending between `earliest` and `latest` ends (see the module docstring)."""
    for pattern in _CUTS:
        end = None
        for match in pattern.finditer(text, earliest, latest):
            end = match.end()
        if end is not None:
            return end
    return latest
