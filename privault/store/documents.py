"""Documents and their sections: the rows behind notes, files and pages.

A document's sections and chunks are always written together with their FTS5 and vector
rows, in the caller's transaction, so an index never points at text that is not there.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from privault.store.connection import Connection, row, rows
from privault.timeutil import to_iso


def new_id(prefix: str) -> str:
    """A short random id: hard to guess, so an id says nothing about what exists."""
    return prefix + secrets.token_hex(6)


@dataclass(frozen=True)
class Document:
    """A stored note, file, page or reminder (without its body)."""

    id: str
    kind: str
    title: str
    source: str | None
    shelf: str
    tags: tuple[str, ...]
    content_hash: str
    created_at: int
    updated_at: int
    untrusted: bool
    current: bool
    previous_id: str | None
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form with ISO times."""
        return {
            "doc_id": self.id,
            "kind": self.kind,
            "title": self.title,
            "source": self.source,
            "shelf": self.shelf,
            "tags": list(self.tags),
            "created_at": to_iso(self.created_at),
            "updated_at": to_iso(self.updated_at),
            "untrusted": self.untrusted,
            "current": self.current,
            "previous_id": self.previous_id,
        }


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


_DOC_COLUMNS = (
    "id, kind, title, source, shelf, content_hash, created_at, updated_at, untrusted, "
    "current, previous_id, metadata"
)


def _document(conn: Connection, data: dict[str, Any]) -> Document:
    tags = tuple(
        tag
        for (tag,) in conn.execute(
            "SELECT tag FROM document_tags WHERE doc_id = ? ORDER BY tag", (data["id"],)
        )
    )
    return Document(
        id=data["id"],
        kind=data["kind"],
        title=data["title"],
        source=data["source"],
        shelf=data["shelf"],
        tags=tags,
        content_hash=data["content_hash"],
        created_at=data["created_at"],
        updated_at=data["updated_at"],
        untrusted=bool(data["untrusted"]),
        current=bool(data["current"]),
        previous_id=data["previous_id"],
        metadata=json.loads(data["metadata"]),
    )


def get(conn: Connection, doc_id: str) -> Document | None:
    """One document by id, or None."""
    found = row(conn, f"SELECT {_DOC_COLUMNS} FROM documents WHERE id = ?", (doc_id,))
    return _document(conn, found) if found else None


def body(conn: Connection, doc_id: str) -> str | None:
    """A document's stored text."""
    found = conn.execute("SELECT body FROM documents WHERE id = ?", (doc_id,)).fetchone()
    return found[0] if found else None


def find_current(
    conn: Connection, *, shelf: str, source: str | None = None, content_hash: str | None = None
) -> Document | None:
    """The current document on a shelf with this source (or, for notes, this content)."""
    if source is not None:
        found = row(
            conn,
            f"SELECT {_DOC_COLUMNS} FROM documents WHERE source = ? AND shelf = ? AND current = 1",
            (source, shelf),
        )
    else:
        found = row(
            conn,
            f"SELECT {_DOC_COLUMNS} FROM documents WHERE content_hash = ? AND shelf = ? "
            "AND source IS NULL AND current = 1",
            (content_hash, shelf),
        )
    return _document(conn, found) if found else None


def list_documents(
    conn: Connection,
    *,
    shelves: Sequence[str] | None,
    kind: str | None = None,
    tag: str | None = None,
    limit: int = 100,
    include_old: bool = False,
) -> list[Document]:
    """Documents newest first, restricted to `shelves` (None: every shelf)."""
    where: list[str] = ["1 = 1"]
    params: list[object] = []
    if not include_old:
        where.append("current = 1")
    if shelves is not None:
        where.append(f"shelf IN ({','.join('?' * len(shelves))})")
        params.extend(shelves)
    if kind:
        where.append("kind = ?")
        params.append(kind)
    if tag:
        where.append("id IN (SELECT doc_id FROM document_tags WHERE tag = ?)")
        params.append(tag)
    found = rows(
        conn,
        f"SELECT {_DOC_COLUMNS} FROM documents WHERE {' AND '.join(where)} "
        "ORDER BY created_at DESC, id LIMIT ?",
        (*params, limit),
    )
    return [_document(conn, data) for data in found]


def insert_document(conn: Connection, doc: Document, text: str) -> None:
    """Insert a document row and its tags (sections are written by `replace_sections`)."""
    conn.execute(
        "INSERT INTO documents (id, kind, title, source, shelf, content_hash, body, created_at, "
        "updated_at, untrusted, previous_id, current, metadata) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)",
        (
            doc.id,
            doc.kind,
            doc.title,
            doc.source,
            doc.shelf,
            doc.content_hash,
            text,
            doc.created_at,
            doc.updated_at,
            int(doc.untrusted),
            doc.previous_id,
            json.dumps(doc.metadata),
        ),
    )
    set_tags(conn, doc.id, doc.tags)


def update_content(
    conn: Connection, doc_id: str, *, title: str, text: str, content_hash: str, updated_at: int
) -> None:
    """Replace a document's text in place (its sections are replaced separately)."""
    conn.execute(
        "UPDATE documents SET title = ?, body = ?, content_hash = ?, updated_at = ? WHERE id = ?",
        (title, text, content_hash, updated_at, doc_id),
    )


def set_tags(conn: Connection, doc_id: str, tags: Sequence[str]) -> None:
    """Make a document's tags exactly `tags`."""
    conn.execute("DELETE FROM document_tags WHERE doc_id = ?", (doc_id,))
    conn.executemany(
        "INSERT OR IGNORE INTO document_tags (doc_id, tag) VALUES (?, ?)",
        [(doc_id, tag) for tag in tags],
    )


def retire(conn: Connection, doc_id: str) -> None:
    """Mark a document as an older version: still readable, no longer searched."""
    conn.execute("UPDATE documents SET current = 0 WHERE id = ?", (doc_id,))
    section_ids = [
        sid for (sid,) in conn.execute("SELECT id FROM sections WHERE doc_id = ?", (doc_id,))
    ]
    _drop_index(conn, section_ids)


def delete(conn: Connection, doc_id: str, deleted_at: int) -> bool:
    """Delete a document and its sections and index rows; leave a tombstone."""
    section_ids = [
        sid for (sid,) in conn.execute("SELECT id FROM sections WHERE doc_id = ?", (doc_id,))
    ]
    _drop_index(conn, section_ids)
    gone = conn.execute("DELETE FROM documents WHERE id = ?", (doc_id,)).rowcount
    if gone:
        conn.execute(
            "INSERT OR REPLACE INTO tombstones (kind, id, deleted_at) VALUES ('document', ?, ?)",
            (doc_id, deleted_at),
        )
    return bool(gone)


def _drop_index(conn: Connection, section_ids: Sequence[int]) -> None:
    """Remove the FTS and vector rows of these sections' chunks."""
    for start in range(0, len(section_ids), 500):
        batch = section_ids[start : start + 500]
        marks = ",".join("?" * len(batch))
        chunk_ids = [
            cid
            for (cid,) in conn.execute(
                f"SELECT id FROM chunks WHERE section_id IN ({marks})", batch
            )
        ]
        for cstart in range(0, len(chunk_ids), 500):
            cbatch = chunk_ids[cstart : cstart + 500]
            cmarks = ",".join("?" * len(cbatch))
            conn.execute(f"DELETE FROM chunks_fts WHERE rowid IN ({cmarks})", cbatch)
            conn.execute(f"DELETE FROM chunks_vec WHERE rowid IN ({cmarks})", cbatch)


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
    vectors: np.ndarray  # (len(chunks), dim)


def replace_sections(
    conn: Connection, doc_id: str, sections: Sequence[IndexedSection], *, indexed: bool = True
) -> list[int]:
    """Make a document's sections exactly `sections`; index them unless `indexed` is False.

    Returns the new section row ids in order.
    """
    old = [sid for (sid,) in conn.execute("SELECT id FROM sections WHERE doc_id = ?", (doc_id,))]
    _drop_index(conn, old)
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
        for position, ((start, end, tokens), indexed_text) in enumerate(
            zip(section.chunks, section.chunk_texts, strict=True)
        ):
            chunk = conn.execute(
                "INSERT INTO chunks (section_id, position, start, end, tokens) "
                "VALUES (?, ?, ?, ?, ?)",
                (section_id, position, start, end, tokens),
            )
            chunk_id = int(chunk.lastrowid or 0)
            if indexed:
                conn.execute(
                    "INSERT INTO chunks_fts (rowid, text) VALUES (?, ?)", (chunk_id, indexed_text)
                )
                conn.execute(
                    "INSERT INTO chunks_vec (rowid, embedding) VALUES (?, ?)",
                    (chunk_id, section.vectors[position].astype(np.float32).tobytes()),
                )
    return ids


_SECTION_SELECT = (
    "SELECT s.id, s.node_id, s.doc_id, s.parent_node, s.position, s.depth, s.heading, "
    "s.breadcrumb, s.text, d.title, d.kind, d.shelf, d.created_at, d.untrusted "
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
    for start in range(0, len(section_ids), 500):
        batch = list(section_ids[start : start + 500])
        marks = ",".join("?" * len(batch))
        for data in conn.execute(f"{_SECTION_SELECT} WHERE s.id IN ({marks})", batch):
            section = _section(data)
            found[section.id] = section
    return found


def health(conn: Connection) -> dict[str, Any]:
    """Row counts, and whether every searchable chunk has exactly one FTS and one vector row."""
    counts = {
        name: conn.execute(f"SELECT count(*) FROM {name}").fetchone()[0]
        for name in ("documents", "sections", "chunks")
    }
    (indexed,) = conn.execute("SELECT count(*) FROM chunks_fts").fetchone()
    (vectors,) = conn.execute("SELECT count(*) FROM chunks_vec").fetchone()
    (searchable,) = conn.execute(
        "SELECT count(*) FROM chunks c JOIN sections s ON s.id = c.section_id "
        "JOIN documents d ON d.id = s.doc_id WHERE d.current = 1"
    ).fetchone()
    healthy = indexed == vectors == searchable
    index = {
        "fts_rows": indexed,
        "vector_rows": vectors,
        "chunks_searchable": searchable,
        "healthy": healthy,
    }
    return {**counts, "index": index}
