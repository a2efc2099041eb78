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

CHUNK_TOKENS = 96  # long enough to carry a thought, short enough to pack several


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


def split_chunks(text: str, target_tokens: int = CHUNK_TOKENS) -> list[ChunkDraft]:
    """Cut a section's text into chunks of about `target_tokens`, at line boundaries.

    A single line longer than twice the target is cut at sentence ends, then at words.
    """
    if not text.strip():
        return []  # a heading with no text of its own: in the tree, not in the indexes
    pieces: list[tuple[int, int]] = []
    for line in re.finditer(r"[^\n]+", text):
        start, end = line.span()
        if not line.group().strip():
            continue
        if estimate_tokens(line.group()) <= 2 * target_tokens:
            pieces.append((start, end))
            continue
        for part in _split_long(line.group(), target_tokens):
            pieces.append((start + part[0], start + part[1]))
    chunks: list[ChunkDraft] = []
    chunk_start, chunk_end, tokens = pieces[0][0], pieces[0][1], 0
    for start, end in pieces:
        size = estimate_tokens(text[start:end])
        if tokens and tokens + size > target_tokens:
            chunks.append(ChunkDraft(len(chunks), chunk_start, chunk_end, tokens))
            chunk_start, tokens = start, 0
        chunk_end = end
        tokens += size
    chunks.append(ChunkDraft(len(chunks), chunk_start, chunk_end, tokens))
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
