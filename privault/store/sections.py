"""Sections of documents and their index rows (FTS5 chunks and sqlite-vec vectors).

A document's sections and chunks are always written together with their FTS5 and vector
rows, in the caller's transaction, so an index never points at text that is not there.

Two keyword tables, one per view: `chunks_fts` holds every chunk's plain text (the
owner's view), `gated_fts` what gated callers may see (migration m026). A chunk whose
window holds a value gated callers may not see has a masked entry: its masked text in
`gated_fts` and its vector in `masked_chunks`; any other scanned chunk has its plain text
in `gated_fts` too. A gated search thus never touches text it may not see, so neither its
work nor bm25's statistics depend on it. A chunk's entries never change after it is
written: re-masking writes new chunks, so the in-memory vector mirrors can keep loading
only ids above the last one they saw.

A section written for background indexing (`pending`, see `store.index_queue`) gets its
chunks and their plain keyword rows only: no vectors, no `gated_fts` row and an empty
masked entry (a `masked_chunks` row with no vector). Gated callers match nothing of a text
not yet scanned; the owner finds it by its words at once. The indexer then replaces those
chunks with complete ones.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from privault.store.connection import Connection, in_batches

if TYPE_CHECKING:  # numpy is imported where vectors are handled: capturing a note needs none
    import numpy as np

WITHHELD = b""  # the masked entry of a window not yet scanned: nothing to match


@dataclass(frozen=True)
class SectionRow:
    """A stored section of a document, with its document's facts needed by readers."""

    id: int
    node_id: str
    doc_id: str
    parent_node: str | None
    position: int
    depth: int
    heading: str
    breadcrumb: tuple[str, ...]
    text: str
    title: str
    kind: str
    shelf: str
    created_at: int
    untrusted: bool
    author: str = ""  # '' for the owner's text, else the agent that wrote it


def drop_index(conn: Connection, section_ids: Sequence[int]) -> None:
    """Remove the FTS and vector rows of these sections' chunks."""
    for batch, marks in in_batches(section_ids):
        chunk_ids = [
            cid
            for (cid,) in conn.execute(
                f"SELECT id FROM chunks WHERE section_id IN ({marks})", batch
            )
        ]
        for cbatch, cmarks in in_batches(chunk_ids):
            conn.execute(f"DELETE FROM chunks_fts WHERE rowid IN ({cmarks})", cbatch)
            conn.execute(f"DELETE FROM gated_fts WHERE rowid IN ({cmarks})", cbatch)
            # One row at a time: sqlite-vec serves `rowid = ?` from its rowid table, but
            # `rowid IN (...)` of two or more by a scan of every vector's position (625 ms
            # at a million windows, for each section of a forget or re-scan).
            conn.executemany("DELETE FROM chunks_vec WHERE rowid = ?", [(c,) for c in cbatch])
            conn.execute(f"DELETE FROM masked_chunks WHERE chunk_id IN ({cmarks})", cbatch)


# (chunk position, masked text, its vector): the second entry of a chunk holding a value
# gated callers may not see.
Masked = tuple[tuple[int, str, "np.ndarray"], ...]


@dataclass(frozen=True)
class IndexedSection:
    """A section ready to store: its draft fields, chunks and one vector per chunk."""

    path: str
    parent_path: str | None
    position: int
    depth: int
    heading: str
    breadcrumb: tuple[str, ...]
    text: str
    start: int
    end: int
    chunks: tuple[tuple[int, int, int], ...]  # (start, end, tokens) within text
    chunk_texts: tuple[str, ...]  # what is indexed (breadcrumb-prefixed chunk text)
    vectors: np.ndarray | None  # (len(chunks), dim); None: not embedded yet (pending)
    masked: Masked = ()  # the masked entries of chunks that need one


def replace_sections(
    conn: Connection, doc_id: str, sections: Sequence[IndexedSection], *, indexed: bool = True
) -> list[int]:
    """Make a document's sections exactly `sections`; index them unless `indexed` is False.

    Sections without vectors are written pending (keyword rows only, see the module
    docstring). Returns the new section row ids in order.
    """
    old = [sid for (sid,) in conn.execute("SELECT id FROM sections WHERE doc_id = ?", (doc_id,))]
    drop_index(conn, old)
    conn.execute("DELETE FROM sections WHERE doc_id = ?", (doc_id,))
    ids: list[int] = []
    for section in sections:
        node_id = f"{doc_id}.{section.path}"
        parent = f"{doc_id}.{section.parent_path}" if section.parent_path else None
        cursor = conn.execute(
            "INSERT INTO sections (node_id, doc_id, parent_node, position, depth, heading, "
            "breadcrumb, text, start, end) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                node_id,
                doc_id,
                parent,
                section.position,
                section.depth,
                section.heading,
                json.dumps(list(section.breadcrumb)),
                section.text,
                section.start,
                section.end,
            ),
        )
        section_id = int(cursor.lastrowid or 0)
        ids.append(section_id)
        _insert_chunks(
            conn,
            section_id,
            section.chunks,
            section.chunk_texts,
            section.vectors,
            section.masked,
            indexed=indexed,
        )
    return ids


def replace_chunks(
    conn: Connection,
    section_id: int,
    chunks: Sequence[tuple[int, int, int]],
    chunk_texts: Sequence[str],
    vectors: np.ndarray | None,
    masked: Masked = (),
) -> None:
    """Swap one section's chunks and their index rows for new ones (a re-index or a
    re-mask); the section itself, its PII spans and its node id are untouched."""
    drop_index(conn, [section_id])
    conn.execute("DELETE FROM chunks WHERE section_id = ?", (section_id,))
    _insert_chunks(conn, section_id, chunks, chunk_texts, vectors, masked, indexed=True)


def chunk_rows(
    conn: Connection, section_id: int
) -> tuple[list[tuple[int, int, int]], list[str], np.ndarray]:
    """A section's chunks as stored: (start, end, tokens), indexed texts, plain vectors."""
    found = conn.execute(
        "SELECT c.id, c.start, c.end, c.tokens, f.text, v.embedding FROM chunks c "
        "JOIN chunks_fts f ON f.rowid = c.id JOIN chunks_vec v ON v.rowid = c.id "
        "WHERE c.section_id = ? ORDER BY c.position",
        (section_id,),
    ).fetchall()
    import numpy as np

    spans = [(int(a), int(b), int(t)) for _, a, b, t, _, _ in found]
    texts = [str(text) for *_, text, _ in found]
    blob = b"".join(embedding for *_, embedding in found)
    vectors = np.frombuffer(blob, dtype=np.float32)
    # A section with no chunks (a heading alone) has no vectors, and no width to infer.
    return spans, texts, vectors.reshape(len(found), -1) if found else vectors.reshape(0, 0)


def masked_texts(conn: Connection, section_id: int) -> list[tuple[int, str]]:
    """A section's masked index entries as stored: (chunk position, masked text), in order
    (what `vault.gated_index.masked_windows` gives for the spans they were written from)."""
    found = conn.execute(
        "SELECT c.position, g.text FROM chunks c "
        "JOIN masked_chunks m ON m.chunk_id = c.id JOIN gated_fts g ON g.rowid = c.id "
        "WHERE c.section_id = ? ORDER BY c.position",
        (section_id,),
    ).fetchall()
    return [(int(position), str(text)) for position, text in found]


def _insert_chunks(
    conn: Connection,
    section_id: int,
    chunks: Sequence[tuple[int, int, int]],
    chunk_texts: Sequence[str],
    vectors: np.ndarray | None,
    masked: Masked,
    *,
    indexed: bool,
) -> None:
    second = {position: (text, vector) for position, text, vector in masked}
    for position, ((start, end, tokens), indexed_text) in enumerate(
        zip(chunks, chunk_texts, strict=True)
    ):
        chunk = conn.execute(
            "INSERT INTO chunks (section_id, position, start, end, tokens) VALUES (?, ?, ?, ?, ?)",
            (section_id, position, start, end, tokens),
        )
        chunk_id = int(chunk.lastrowid or 0)
        if indexed:
            conn.execute(
                "INSERT INTO chunks_fts (rowid, text) VALUES (?, ?)", (chunk_id, indexed_text)
            )
            if vectors is None:
                conn.execute(
                    "INSERT INTO masked_chunks (chunk_id, embedding) VALUES (?, ?)",
                    (chunk_id, WITHHELD),
                )
                continue
            conn.execute(
                "INSERT INTO chunks_vec (rowid, embedding) VALUES (?, ?)",
                (chunk_id, vectors[position].astype("float32").tobytes()),
            )
            from privault.store import vector_codes  # numpy: not for a deferred write

            masked_vector = None
            gated_text = indexed_text
            if position in second:
                gated_text, masked_vector = second[position]
                conn.execute(
                    "INSERT INTO masked_chunks (chunk_id, embedding) VALUES (?, ?)",
                    (chunk_id, masked_vector.astype("float32").tobytes()),
                )
            conn.execute(
                "INSERT INTO gated_fts (rowid, text) VALUES (?, ?)", (chunk_id, gated_text)
            )
            vector_codes.save(conn, chunk_id, vectors[position], masked_vector)


_SECTION_SELECT = (
    "SELECT s.id, s.node_id, s.doc_id, s.parent_node, s.position, s.depth, s.heading, "
    "s.breadcrumb, s.text, d.title, d.kind, d.shelf, d.created_at, d.untrusted, d.author "
    "FROM sections s JOIN documents d ON d.id = s.doc_id"
)


def _section(data: tuple[Any, ...]) -> SectionRow:
    return SectionRow(
        id=data[0],
        node_id=data[1],
        doc_id=data[2],
        parent_node=data[3],
        position=data[4],
        depth=data[5],
        heading=data[6],
        breadcrumb=tuple(json.loads(data[7])),
        text=data[8],
        title=data[9],
        kind=data[10],
        shelf=data[11],
        created_at=data[12],
        untrusted=bool(data[13]),
        author=str(data[14]),
    )


def section_by_node(conn: Connection, node_id: str) -> SectionRow | None:
    """One section by node id."""
    found = conn.execute(f"{_SECTION_SELECT} WHERE s.node_id = ?", (node_id,)).fetchone()
    return _section(found) if found else None


def sections_of(conn: Connection, doc_id: str) -> list[SectionRow]:
    """A document's sections in order."""
    return [
        _section(data)
        for data in conn.execute(
            f"{_SECTION_SELECT} WHERE s.doc_id = ? ORDER BY s.position", (doc_id,)
        )
    ]


def sections_by_ids(conn: Connection, section_ids: Sequence[int]) -> dict[int, SectionRow]:
    """Sections by row id."""
    found: dict[int, SectionRow] = {}
    for batch, marks in in_batches(section_ids):
        for data in conn.execute(f"{_SECTION_SELECT} WHERE s.id IN ({marks})", batch):
            section = _section(data)
            found[section.id] = section
    return found


def child_nodes(conn: Connection, node_id: str) -> tuple[str, ...]:
    """Node ids of a section's children, in order.

    Children share their parent's document: looking them up among that document's sections
    (the `sections_doc` index) costs microseconds, where `parent_node` alone has no index
    and reads every section of the vault (5 ms at 27,000 sections, on every read).
    """
    return tuple(
        node
        for (node,) in conn.execute(
            "SELECT node_id FROM sections WHERE doc_id = "
            "(SELECT doc_id FROM sections WHERE node_id = ?1) AND parent_node = ?1 "
            "ORDER BY position",
            (node_id,),
        )
    )


def document_of_node(conn: Connection, node_id: str) -> str | None:
    """The document a node id belongs to, or None."""
    found = conn.execute("SELECT doc_id FROM sections WHERE node_id = ?", (node_id,)).fetchone()
    return found[0] if found else None


def section_count(conn: Connection, doc_id: str) -> int:
    """How many sections a document has."""
    (count,) = conn.execute("SELECT count(*) FROM sections WHERE doc_id = ?", (doc_id,)).fetchone()
    return int(count)


def current_section_ids(conn: Connection) -> list[int]:
    """Row ids of every section of a current document, in order."""
    return [
        sid
        for (sid,) in conn.execute(
            "SELECT s.id FROM sections s JOIN documents d ON d.id = s.doc_id "
            "WHERE d.current = 1 ORDER BY s.id"
        )
    ]


def section_text(conn: Connection, section_id: int) -> str | None:
    """A section's text now (None if it is gone)."""
    found = conn.execute("SELECT text FROM sections WHERE id = ?", (section_id,)).fetchone()
    return found[0] if found else None


def clear_stale_chunking(conn: Connection) -> None:
    """Forget that the index was cut by an older chunking (after a full re-index)."""
    conn.execute("DELETE FROM meta WHERE key = 'stale_chunking'")


def document_authors(conn: Connection, doc_ids: Sequence[str]) -> dict[str, str]:
    """Who wrote each document: '' for the owner, else the agent's name."""
    if not doc_ids:
        return {}
    marks = ",".join("?" * len(doc_ids))
    return {
        doc_id: author
        for doc_id, author in conn.execute(
            f"SELECT id, author FROM documents WHERE id IN ({marks})", list(doc_ids)
        )
    }
