"""The newest queued sections' windows, and vectors a search computed for them (m018).

A section waiting in the index queue has chunks and keyword rows but no vectors. The
owner's search embeds the newest few at query time (`retrieval.early`) and keeps what it
computed here, keyed by chunk; the indexer takes a window's vector from here instead of
embedding it again when its text is the same (`vault.indexing`). Chunks never change once
written, and deleting one deletes its row, so a stored vector always belongs to the text
it was computed from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from privault.store.connection import Connection, in_batches

# A window not scanned yet has an empty masked entry (`sections.WITHHELD`): only those are
# picked, so a section the indexer finished meanwhile is never embedded twice.
_WINDOWS = (
    "SELECT c.id, c.section_id, d.created_at, f.text, e.embedding FROM chunks c"
    " JOIN sections s ON s.id = c.section_id JOIN documents d ON d.id = s.doc_id"
    " JOIN chunks_fts f ON f.rowid = c.id"
    " JOIN masked_chunks m ON m.chunk_id = c.id AND length(m.embedding) = 0"
    " LEFT JOIN early_vectors e ON e.chunk_id = c.id AND e.embedder = ?"
    " WHERE c.section_id IN ({marks}) ORDER BY c.section_id DESC, c.position"
)


@dataclass(frozen=True)
class Window:
    """One index window of a queued section, as the vector leg would see it."""

    chunk_id: int
    section_id: int
    created_at: int  # its document's date (ms), for the dated ranking
    text: str  # the indexed text (breadcrumb line and window)
    embedding: bytes | None  # computed by an earlier search with this embedder, if any


def newest_queued(conn: Connection, limit: int) -> tuple[list[int], int]:
    """The newest `limit` queued sections (row ids, newest first) and how many are queued
    in all (counted only when there are more than `limit`: a large backlog costs one count,
    a quiet vault none)."""
    found = [
        int(section_id)
        for (section_id,) in conn.execute(
            "SELECT section_id FROM index_queue WHERE section_id IS NOT NULL"
            " ORDER BY id DESC LIMIT ?",
            (limit + 1,),
        )
    ]
    if len(found) <= limit:
        return found, len(found)
    (total,) = conn.execute("SELECT count(section_id) FROM index_queue").fetchone()
    return found[:limit], int(total)


def windows(conn: Connection, section_ids: Sequence[int], embedder: str) -> list[Window]:
    """The not-yet-embedded windows of these sections, newest section first."""
    found: list[Window] = []
    for batch, marks in in_batches(section_ids):
        found += [
            Window(int(cid), int(sid), int(created), str(text), embedding or None)
            for cid, sid, created, text, embedding in conn.execute(
                _WINDOWS.format(marks=marks), [embedder, *batch]
            )
        ]
    return found


def save(conn: Connection, embedder: str, vectors: Sequence[tuple[int, bytes]]) -> None:
    """Keep vectors computed for chunks (inside the caller's write); a chunk deleted since
    it was read is skipped, so nothing is kept for text that is gone."""
    conn.executemany(
        "INSERT OR IGNORE INTO early_vectors (chunk_id, embedder, embedding)"
        " SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM chunks WHERE id = ?)",
        [(chunk_id, embedder, blob, chunk_id) for chunk_id, blob in vectors],
    )


def for_sections(conn: Connection, section_ids: Sequence[int], embedder: str) -> dict[str, bytes]:
    """Stored vectors of these sections' current windows, by the window's indexed text."""
    found: dict[str, bytes] = {}
    for batch, marks in in_batches(section_ids):
        for text, blob in conn.execute(
            "SELECT f.text, e.embedding FROM early_vectors e JOIN chunks c ON c.id = e.chunk_id"
            " JOIN chunks_fts f ON f.rowid = c.id"
            f" WHERE c.section_id IN ({marks}) AND e.embedder = ?",
            [*batch, embedder],
        ):
            found[str(text)] = bytes(blob)
    return found
