"""Split a document into its heading tree, and each section into chunks for indexing.

Retrieval returns sections, not arbitrary windows: a section is what its author grouped
under a heading, so it reads whole. Long sections are cut into chunks at line boundaries
for the indexes only; a chunk always maps back to its section and its character span.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_FENCE = re.compile(r"^(```|~~~)", re.MULTILINE)
_WORD = re.compile(r"\w+|[^\w\s]", re.UNICODE)

CHUNK_TOKENS = 96  # windows stay under twice this; a longer line is cut into parts this size
WINDOW_UNITS = 3  # a chunk is a line with the two before it (measured on LoCoMo: 2 and 4
# lines, and fixed 40–128-token chunks, all found less evidence in the same budget)
UNIT_MIN_TOKENS = 12  # a shorter line is joined with the next before windowing


@dataclass(frozen=True)
class SectionDraft:
    """A section before it is stored: its place in the tree and its text span."""

    path: str  # "1", "1.2", ... — the node id suffix
    parent_path: str | None
    position: int
    depth: int  # 0 for the text before the first heading, else the heading level
    heading: str
    breadcrumb: tuple[str, ...]
    text: str
    start: int
    end: int


@dataclass(frozen=True)
class ChunkDraft:
    """A piece of a section's text, as indexed."""

    position: int
    start: int  # offsets into the section text
    end: int
    tokens: int


def estimate_tokens(text: str) -> int:
    """A fast token estimate (words and punctuation); close to WordPiece on English prose."""
    return int(len(_WORD.findall(text)) * 1.15) + 1


def _fenced_ranges(body: str) -> list[tuple[int, int]]:
    """Character ranges inside ``` fences, where a `#` line is code, not a heading."""
    marks = [match.start() for match in _FENCE.finditer(body)]
    return [(marks[i], marks[i + 1]) for i in range(0, len(marks) - 1, 2)]


def split_sections(body: str, title: str) -> list[SectionDraft]:
    """The heading tree of a markdown-ish text, in document order.

    Text before the first heading becomes a root section named after the document. A
    document without headings is one section. Empty sections (a heading directly followed
    by a sub-heading) are kept so the tree stays whole.
    """
    fences = _fenced_ranges(body)
    headings = [
        match
        for match in _HEADING.finditer(body)
        if not any(start < match.start() < end for start, end in fences)
    ]
    drafts: list[SectionDraft] = []
    preamble_end = headings[0].start() if headings else len(body)
    preamble = body[:preamble_end]
    if preamble.strip() or not headings:
        drafts.append(
            SectionDraft("0", None, 0, 0, title, (title,), preamble.strip(), 0, preamble_end)
        )
    # stack of (level, path, heading) for the open ancestors
    stack: list[tuple[int, str, str]] = []
    counters: dict[str | None, int] = {}
    for index, match in enumerate(headings):
        level = len(match.group(1))
        heading = match.group(2).strip()
        while stack and stack[-1][0] >= level:
            stack.pop()
        parent = stack[-1][1] if stack else None
        counters[parent] = counters.get(parent, 0) + 1
        path = f"{parent}.{counters[parent]}" if parent else str(counters[parent])
        end = headings[index + 1].start() if index + 1 < len(headings) else len(body)
        text = body[match.end() : end].strip()
        # A first heading that repeats the title is not a level of its own.
        ancestors = [entry[2] for entry in stack]
        trail = [title, *ancestors, heading]
        if len(trail) > 1 and trail[1].strip().lower() == title.strip().lower():
            trail.pop(1)
        breadcrumb = tuple(trail)
        drafts.append(
            SectionDraft(
                path, parent, len(drafts), level, heading, breadcrumb, text, match.start(), end
            )
        )
        stack.append((level, path, heading))
    return drafts


def split_chunks(text: str, target_tokens: int | None = None) -> list[ChunkDraft]:
    """Cut a section's text into overlapping windows for the indexes, one per line.

    Each chunk is a line together with the two lines before it: a line often only makes
    sense after the ones it answers (a reply after its question, "me too" after a plan),
    and a window that ends on every line gives each line that context in some chunk,
    where fixed chunks would cut some replies off from their question for good. Lines
    under `UNIT_MIN_TOKENS` are joined with the next first, so a list of one-word lines
    does not cost a chunk per word; a window over twice `target_tokens` drops its
    earliest lines; a single line longer than that is cut at sentence ends, then at
    words. Windows overlap; packing merges them back into contiguous text.
    """
    target = CHUNK_TOKENS if target_tokens is None else target_tokens
    if not text.strip():
        return []  # a heading with no text of its own: in the tree, not in the indexes
    pieces: list[tuple[int, int, int]] = []  # start, end, tokens
    for line in re.finditer(r"[^\n]+", text):
        start, end = line.span()
        if not line.group().strip():
            continue
        size = estimate_tokens(line.group())
        if size <= 2 * target:
            pieces.append((start, end, size))
            continue
        for part_start, part_end in _split_long(line.group(), target):
            part = line.group()[part_start:part_end]
            pieces.append((start + part_start, start + part_end, estimate_tokens(part)))
    units: list[tuple[int, int, int]] = []
    for piece in pieces:
        if units and units[-1][2] < UNIT_MIN_TOKENS:
            first = units.pop()
            piece = (first[0], piece[1], first[2] + piece[2])
        units.append(piece)
    chunks: list[ChunkDraft] = []
    for index in range(len(units)):
        window = units[max(0, index - WINDOW_UNITS + 1) : index + 1]
        while len(window) > 1 and sum(unit[2] for unit in window) > 2 * target:
            window = window[1:]
        size = sum(unit[2] for unit in window)
        chunks.append(ChunkDraft(len(chunks), window[0][0], window[-1][1], size))
    return chunks


def _split_long(line: str, target_tokens: int) -> list[tuple[int, int]]:
    """Spans of a very long line, cut at sentence ends where possible, else at words."""
    spans: list[tuple[int, int]] = []
    boundaries = [match.end() for match in re.finditer(r"[.!?]\s+|\s+", line)]
    start, last = 0, 0
    for boundary in [*boundaries, len(line)]:
        if estimate_tokens(line[start:boundary]) > target_tokens and last > start:
            spans.append((start, last))
            start = last
        last = boundary
    spans.append((start, len(line)))
    return [span for span in spans if line[span[0] : span[1]].strip()]
