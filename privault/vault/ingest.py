"""Turning text into stored, indexed sections: the write path shared by notes, files, pages.

Heavy work (sectioning, chunking, embedding) happens before the write transaction opens,
so the lock is held only for the inserts. Re-adding unchanged content is a no-op; changed
content replaces a document's sections in one transaction, keeping its id (so owner
overrides and links survive).

`plan_many` cuts sections and chunks only (no model: what a deferred write stores);
`embed_plans` adds the vectors. numpy and the embedder are not imported here at run time,
so capturing a note loads neither.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from privault.errors import InputError, utf8_text
from privault.retrieval.sectioning import ChunkDraft, estimate_tokens, split_chunks, split_sections
from privault.store.documents import TAG, stored_title
from privault.store.sections import IndexedSection
from privault.vault.bounds import MAX_NOTE_BYTES

if TYPE_CHECKING:
    import numpy as np

    from privault.retrieval.embedder import Embedder

DEFAULT_MAX_NOTE_BYTES = MAX_NOTE_BYTES  # defined in bounds
_SHELF = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}\Z")


@dataclass(frozen=True)
class Draft:
    """A document to write: validated text and facts, not yet sectioned."""

    kind: str
    title: str
    text: str
    shelf: str = "default"
    tags: tuple[str, ...] = ()
    source: str | None = None
    created_at: int | None = None
    untrusted: bool = False
    metadata: dict[str, object] = field(default_factory=dict)
    author: str = ""  # '' for the owner (and the owner's watches), else the agent's name

    @property
    def content_hash(self) -> str:
        """What decides whether the text changed: the text and title (tags and shelf are
        not content; a file's or imported item's date and metadata are compared apart)."""
        return hashlib.sha256(f"{self.title}\x00{self.text}".encode()).hexdigest()


def check_shelf(shelf: str) -> str:
    """A shelf name as stored, or an InputError naming the rule."""
    if not _SHELF.match(shelf):
        raise InputError(
            f"bad shelf name {shelf!r}: use 1–64 lowercase letters, digits, '.', '_' or '-'"
        )
    return shelf


def check_tags(tags: Sequence[str]) -> tuple[str, ...]:
    """Tags as stored (deduplicated, order kept), or an InputError for a malformed one."""
    for tag in tags:
        if not TAG.match(tag):
            raise InputError(
                f"bad tag {tag!r}: use 1–64 letters, digits, '.', ':', '/', '-', '_', '@' or '+'"
            )
    return tuple(dict.fromkeys(tags))


def check_text(text: str, what: str, max_bytes: int) -> str:
    """Text that is worth storing: not empty, not over the size cap, no NUL bytes."""
    if not text or not text.strip():
        raise InputError(f"empty {what}: nothing to store")
    size = len(text.encode("utf-8", errors="surrogatepass"))
    if size > max_bytes:
        raise InputError(f"{what} is {size} bytes, over the {max_bytes}-byte limit")
    if "\x00" in text:
        raise InputError(f"{what} contains NUL bytes; is it binary?")
    return utf8_text(text, what)


def default_title(text: str) -> str:
    """A title from the first heading or first line (`stored_title`)."""
    heading = re.search(r"^#{1,6}\s+(.+)$", text, re.MULTILINE)
    return stored_title(heading.group(1) if heading else text.strip().splitlines()[0])


def index_sections(draft: Draft, embedder: Embedder) -> list[IndexedSection]:
    """Section tree, chunks and one embedding per chunk for a draft."""
    return index_many([draft], embedder)[0]


def chunk_label(breadcrumb: Sequence[str], text: str) -> str:
    """The breadcrumb line put above each chunk of a section when it is indexed.

    A title made from the note's own first line (`default_title`) says nothing the text
    does not: repeating it would double what a one-line note costs to embed, and count its
    words twice in bm25. Such a leading part is left out.
    """
    parts = list(breadcrumb)
    if parts:
        head = " ".join(parts[0].rstrip("…").split())
        if head and " ".join(text[: len(parts[0]) + 64].split()).startswith(head):
            parts.pop(0)
    return " › ".join(parts)


def chunk_section(breadcrumb: Sequence[str], text: str) -> tuple[list[ChunkDraft], tuple[str, ...]]:
    """A section's chunks and the text each is indexed by (its breadcrumb line on top).

    A heading with no text of its own ("# Call mum" as a whole note) is text too: it gets
    one empty window, indexed by its breadcrumb line alone, so every search can find it.
    """
    chunks = split_chunks(text)
    label = chunk_label(breadcrumb, text)
    if not chunks and label.strip():
        return [ChunkDraft(0, 0, 0, estimate_tokens(label))], (label,)
    return chunks, tuple(f"{label}\n{text[c.start : c.end]}".lstrip("\n") for c in chunks)


def rechunk(
    sections: Sequence[tuple[int, Sequence[str], str]], embedder: Embedder
) -> list[tuple[int, tuple[tuple[int, int, int], ...], tuple[str, ...], np.ndarray]]:
    """(section id, breadcrumb, text) rows cut and embedded again with today's chunking:
    (section id, chunks, indexed texts, vectors) for `sections.replace_chunks`."""
    planned = [(sid, *chunk_section(crumb, text)) for sid, crumb, text in sections]
    vectors = embedder.embed([t for _, _, texts in planned for t in texts])
    out, offset = [], 0
    for sid, chunks, texts in planned:
        spans = tuple((c.start, c.end, c.tokens) for c in chunks)
        out.append((sid, spans, texts, vectors[offset : offset + len(chunks)]))
        offset += len(chunks)
    return out


def index_many(drafts: Sequence[Draft], embedder: Embedder) -> list[list[IndexedSection]]:
    """Like `index_sections` for many drafts, embedding all chunks in one batch."""
    plans = plan_many(drafts)
    return embed_plans(plans, embedder.embed(chunk_texts(plans)))


def plan_many(drafts: Sequence[Draft]) -> list[list[IndexedSection]]:
    """Each draft's sections and chunks, not yet embedded (`vectors` None)."""
    return [plan_sections(draft.text, draft.title) for draft in drafts]


def plan_sections(text: str, title: str) -> list[IndexedSection]:
    """One text's section tree and chunks, not yet embedded."""
    planned = []
    for section in split_sections(text, title):
        chunks, texts = chunk_section(section.breadcrumb, section.text)
        planned.append(
            IndexedSection(
                path=section.path,
                parent_path=section.parent_path,
                position=section.position,
                depth=section.depth,
                heading=section.heading,
                breadcrumb=section.breadcrumb,
                text=section.text,
                start=section.start,
                end=section.end,
                chunks=tuple((c.start, c.end, c.tokens) for c in chunks),
                chunk_texts=texts,
                vectors=None,
            )
        )
    return planned


def chunk_texts(plans: Sequence[Sequence[IndexedSection]]) -> list[str]:
    """Every indexed chunk text of planned drafts, in order (what `embed_plans` takes)."""
    return [text for plan in plans for section in plan for text in section.chunk_texts]


def embed_plans(
    plans: Sequence[Sequence[IndexedSection]], vectors: np.ndarray
) -> list[list[IndexedSection]]:
    """Planned drafts with their vectors (`vectors`: one row per `chunk_texts` entry)."""
    out: list[list[IndexedSection]] = []
    offset = 0
    for plan in plans:
        embedded = []
        for section in plan:
            count = len(section.chunks)
            embedded.append(dataclasses.replace(section, vectors=vectors[offset : offset + count]))
            offset += count
        out.append(embedded)
    return out
