"""Documents and their sections: the rows behind notes, files and pages.

A document's sections and chunks are always written together with their FTS5 and vector
rows, in the caller's transaction, so an index never points at text that is not there.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from privault.filters import Filters
from privault.jsonform import JsonForm, shown
from privault.store import sections, tallies
from privault.store.connection import Connection, in_batches, row, rows
from privault.store.narrowing import conditions


def new_id(prefix: str) -> str:
    """A short random id: hard to guess, so an id says nothing about what exists."""
    return prefix + secrets.token_hex(6)


HIDDEN = shown(hidden=True)  # bookkeeping, not part of a listing

# What a tag may hold. `@` and `+` are there so that an address or a phone number in an
# imported label (a Gmail label, a mem0 app name) is still one to the PII scan, which reads
# tags as it reads titles: written with `-` for `@`, it reached agents unmasked.
TAG_CHARACTERS = r"\w.:/@+-"
TAG = re.compile(rf"^[\w@+][{TAG_CHARACTERS}]{{0,63}}\Z")  # not `$`: it allows a final newline
# The longest title stored: kept whole up to this (gated whole, clipped after gating). Every
# write clips to it, a synced row's title too (`sync.row_bounds.as_stored`).
TITLE_STORED_CHARS = 500


def stored_title(title: str) -> str:
    """A title as every write stores it: one line (a title from another program may hold
    line breaks, which would fake lines wherever it is listed), single spaces, at most
    `TITLE_STORED_CHARS`. The gate sees the whole stored title; only what comes out of it
    is clipped for display (`gate.clip`)."""
    return " ".join(title.split())[:TITLE_STORED_CHARS]


@dataclass(frozen=True)
class Document(JsonForm):
    """A stored note, file, page or reminder (without its body)."""

    id: str = field(metadata=shown(key="doc_id"))
    kind: str
    title: str
    source: str | None
    shelf: str
    tags: tuple[str, ...]
    content_hash: str = field(metadata=HIDDEN)
    created_at: int = field(metadata=shown(iso=True))
    updated_at: int = field(metadata=shown(iso=True))
    untrusted: bool
    current: bool
    previous_id: str | None
    metadata: dict[str, Any] = field(default_factory=dict, metadata=HIDDEN)
    # '' for the owner (and the owner's watches), else the agent's name
    author: str = field(default="", metadata=HIDDEN)


_DOC_COLUMNS = (
    "id, kind, title, source, shelf, content_hash, created_at, updated_at, untrusted, "
    "current, previous_id, metadata, author"
)


def _tags(conn: Connection, doc_ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """Each document's tags, sorted, read for all of them at once."""
    found: dict[str, list[str]] = {doc_id: [] for doc_id in doc_ids}
    for batch, marks in in_batches(doc_ids):
        for doc_id, tag in conn.execute(
            f"SELECT doc_id, tag FROM document_tags WHERE doc_id IN ({marks}) ORDER BY tag",
            batch,
        ):
            found[doc_id].append(tag)
    return {doc_id: tuple(tags) for doc_id, tags in found.items()}


def _document(
    conn: Connection, data: dict[str, Any], tags: tuple[str, ...] | None = None
) -> Document:
    if tags is None:
        tags = _tags(conn, [data["id"]])[data["id"]]
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
        author=data["author"],
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
    conn: Connection,
    *,
    shelf: str,
    source: str | None = None,
    content_hash: str | None = None,
    author: str | None = None,
) -> Document | None:
    """The current document on a shelf with this source (or, for notes, this content).

    With `author`, only a document that author wrote: an agent's note is the same note
    only as one it wrote itself, so writing the owner's exact text cannot confirm it.
    """
    mine = "" if author is None else " AND author = ?"
    by = () if author is None else (author,)
    if source is not None:
        found = row(
            conn,
            f"SELECT {_DOC_COLUMNS} FROM documents WHERE source = ? AND shelf = ? "
            f"AND current = 1{mine}",
            (source, shelf, *by),
        )
    else:
        found = row(
            conn,
            f"SELECT {_DOC_COLUMNS} FROM documents WHERE content_hash = ? AND shelf = ? "
            f"AND source IS NULL AND current = 1{mine}",
            (content_hash, shelf, *by),
        )
    return _document(conn, found) if found else None


@dataclass(frozen=True)
class DocumentFilter:
    """Which documents a listing takes: shelves (None: all), kind, tag, words in the title,
    a creation-time window (epoch ms, `until` exclusive), and shelves left out."""

    shelves: Sequence[str] | None = None
    kind: str | None = None
    tag: str | None = None
    title: str | None = None
    since: int | None = None
    until: int | None = None
    include_old: bool = False
    hidden: Sequence[str] = ()
    masked_kinds: Sequence[str] | None = None  # a gated caller's (`narrowing.conditions`)
    tag_denied: bool = False  # the tag holds a denied value (`narrowing.conditions`)

    def walk(self) -> str:
        """The index a listing of current documents walks, newest first (the walk stops at
        the page's end): that kind's documents alone when a kind is chosen, else all
        current ones. Named, as left to itself SQLite may prefer the shelf index and sort
        the whole shelf."""
        if self.include_old:
            return ""
        return " INDEXED BY " + ("documents_kind_listing" if self.kind else "documents_listing")

    def where(self) -> tuple[list[str], list[object]]:
        """SQL conditions and their parameters."""
        where: list[str] = ["1 = 1"] if self.include_old else ["current = 1"]
        chosen = Filters(None, self.kind, self.tag, self.since, self.until)
        found, params = conditions(
            chosen,
            self.shelves,
            self.hidden,
            masked_kinds=self.masked_kinds,
            tag_denied=self.tag_denied,
        )
        where.extend(found)
        if self.title:
            escaped = self.title.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            where.append("title LIKE ? ESCAPE '\\'")
            params.append(f"%{escaped}%")
        return where, params


def list_documents(
    conn: Connection,
    *,
    shelves: Sequence[str] | None,
    kind: str | None = None,
    tag: str | None = None,
    limit: int = 100,
    include_old: bool = False,
    hidden: Sequence[str] = (),
    title: str | None = None,
    since: int | None = None,
    until: int | None = None,
    after: tuple[int, str] | None = None,
    masked_kinds: Sequence[str] | None = None,
    tag_denied: bool = False,
) -> list[Document]:
    """Documents newest first, restricted to `shelves` (None: every shelf). `after` is the
    (created_at, id) of the last document of the previous page: keyset paging, so a page
    deep in a large vault costs what the first one does."""
    if shelves is not None and not shelves:
        return []  # no shelf at all: nothing (and SQLite finds no plan through the index)
    chosen = DocumentFilter(
        shelves, kind, tag, title, since, until, include_old, hidden, masked_kinds, tag_denied
    )
    where, params = chosen.where()
    if after is not None:
        where.append("(created_at < ? OR (created_at = ? AND id > ?))")
        params.extend((after[0], after[0], after[1]))
    found = rows(
        conn,
        f"SELECT {_DOC_COLUMNS} FROM documents{chosen.walk()} WHERE {' AND '.join(where)} "
        "ORDER BY created_at DESC, id LIMIT ?",
        (*params, limit),
    )
    tags = _tags(conn, [data["id"] for data in found])
    return [_document(conn, data, tags[data["id"]]) for data in found]


def count_documents(conn: Connection, chosen: DocumentFilter) -> int:
    """How many documents a listing with these filters holds in all."""
    where, params = chosen.where()
    if chosen.kind and chosen.tag:
        # The tag's documents are looked up by id: a kind is rarely the smaller set, and
        # left to itself SQLite would count through the kind's index (every note).
        where = ["+kind = ?" if part == "kind = ?" else part for part in where]
    (count,) = conn.execute(
        f"SELECT count(*) FROM documents WHERE {' AND '.join(where)}", params
    ).fetchone()
    return int(count)


def insert_document(conn: Connection, doc: Document, text: str) -> None:
    """Insert a document row and its tags (sections are written by `replace_sections`)."""
    conn.execute(
        "INSERT INTO documents (id, kind, title, source, shelf, content_hash, body, created_at, "
        "updated_at, untrusted, previous_id, current, metadata, author) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)",
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
            doc.author,
        ),
    )
    set_tags(conn, doc.id, doc.tags)


def update_content(
    conn: Connection,
    doc_id: str,
    *,
    title: str,
    text: str,
    content_hash: str,
    created_at: int,
    metadata: dict[str, Any],
    updated_at: int,
) -> None:
    """Replace a document's text, date and metadata in place.

    Its sections must be replaced in the same transaction (`sections.replace_sections`),
    even when only the date changed: the vector mirrors keep each chunk's document date
    by chunk id and load only ids they have not seen (`retrieval.vectors`), so a new date
    reaches them only through new chunks.
    """
    conn.execute(
        "UPDATE documents SET title = ?, body = ?, content_hash = ?, created_at = ?, "
        "metadata = ?, updated_at = ? WHERE id = ?",
        (title, text, content_hash, created_at, json.dumps(metadata), updated_at, doc_id),
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
    sections.drop_index(conn, section_ids)


def version_chain(conn: Connection, doc_id: str) -> list[str]:
    """Every version of a document (a page that changed), newest first."""
    found = conn.execute(
        "WITH RECURSIVE older(id, previous_id) AS ("
        " SELECT id, previous_id FROM documents WHERE id = ?"
        " UNION SELECT d.id, d.previous_id FROM documents d JOIN older o ON d.id = o.previous_id"
        "), newer(id) AS ("
        " SELECT id FROM documents WHERE id = ?"
        " UNION SELECT d.id FROM documents d JOIN newer n ON d.previous_id = n.id"
        ") SELECT id, created_at FROM documents WHERE id IN (SELECT id FROM older"
        " UNION SELECT id FROM newer) ORDER BY updated_at DESC, created_at DESC",
        (doc_id, doc_id),
    ).fetchall()
    return [found_id for found_id, _ in found]


def delete(conn: Connection, doc_id: str, deleted_at: int) -> bool:
    """Delete a document with all its versions, their sections and index rows; leave a
    tombstone for each."""
    chain = version_chain(conn, doc_id)
    for version in chain:  # newest first: a version is never deleted while one points at it
        section_ids = [
            sid for (sid,) in conn.execute("SELECT id FROM sections WHERE doc_id = ?", (version,))
        ]
        sections.drop_index(conn, section_ids)
        conn.execute("DELETE FROM documents WHERE id = ?", (version,))
        conn.execute(
            "INSERT OR REPLACE INTO tombstones (kind, id, deleted_at) VALUES ('document', ?, ?)",
            (version, deleted_at),
        )
    return bool(chain)


# Chunks of older versions of changed pages (`current = 0`): the few rows a count of
# every chunk has to leave out to count the searchable ones.
_OLD_VERSION_CHUNKS = (
    "FROM documents d CROSS JOIN sections s ON s.doc_id = d.id"
    " CROSS JOIN chunks c ON c.section_id = s.id WHERE d.current = 0"
)


def old_version_chunks(conn: Connection) -> int:
    """Chunks of documents that are older versions (read through the listing index)."""
    (count,) = conn.execute(f"SELECT count(*) {_OLD_VERSION_CHUNKS}").fetchone()
    return int(count)


def health(conn: Connection) -> dict[str, Any]:
    """Row counts, whether every searchable chunk has exactly one FTS and one vector row,
    and whether the chunks were cut by an older chunking.

    Milliseconds at a million sections: table counts and masked vectors are counters
    (`store.tallies`), FTS5 keeps its row count, vec0's rows are counted in the table it
    keeps one row per vector in, and the joins run over the exceptions only (queued
    sections, older versions)."""
    counts = {name: tallies.row_count(conn, name) for name in ("documents", "sections", "chunks")}
    # Windows still queued for the indexer have keyword rows and an empty masked entry only.
    masked = tallies.masked_vectors(conn)
    indexed = tallies.keyword_rows(conn, "chunks_fts")
    (pending,) = conn.execute(
        "SELECT count(*) FROM index_queue q CROSS JOIN chunks c ON c.section_id = q.section_id"
    ).fetchone()
    (vectors,) = conn.execute("SELECT count(*) FROM chunks_vec_rowids").fetchone()
    searchable = counts["chunks"] - old_version_chunks(conn)
    # Gated callers' keyword rows: one per window, except those still queued.
    gated = tallies.keyword_rows(conn, "gated_fts")
    healthy = indexed == vectors + pending == searchable == gated + pending
    stale = conn.execute("SELECT value FROM meta WHERE key = 'stale_chunking'").fetchone()
    unmasked = conn.execute("SELECT 1 FROM meta WHERE key = 'stale_masking'").fetchone()
    index = {
        "fts_rows": indexed,
        "vector_rows": vectors,
        "chunks_searchable": searchable,
        "healthy": healthy,
        "stale_chunking": stale[0] if stale else None,  # set: `privault reindex` finds more
        "masked_rows": masked,  # second entries gated callers search instead
        "pending_chunks": pending,  # keyword rows only, until the indexer finishes them
        "gated_rows": gated,
        "stale_masking": unmasked is not None,  # True: `privault reindex` builds them
    }
    return {**counts, "index": index}


def exists(conn: Connection, doc_id: str) -> bool:
    """Whether a document with this id exists (in any version)."""
    return conn.execute("SELECT 1 FROM documents WHERE id = ?", (doc_id,)).fetchone() is not None


def source_known(conn: Connection, source: str, shelf: str) -> bool:
    """Whether any document (any version, removed or not) on `shelf` came from `source`."""
    found = conn.execute(
        "SELECT 1 FROM documents WHERE source = ? AND shelf = ? LIMIT 1", (source, shelf)
    ).fetchone()
    return found is not None


def set_metadata(conn: Connection, doc_id: str, metadata: dict[str, Any], updated_at: int) -> None:
    """Replace a document's metadata (inside the caller's write)."""
    conn.execute(
        "UPDATE documents SET metadata = ?, updated_at = ? WHERE id = ?",
        (json.dumps(metadata), updated_at, doc_id),
    )


def schema_version(conn: Connection) -> int | None:
    """The newest migration applied to the file."""
    found = conn.execute("SELECT max(version) FROM schema_migrations").fetchone()
    return found[0] if found else None
