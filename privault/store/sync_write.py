"""Writing synced rows into the vault's own tables (inside the importer's transaction).

Each function makes the vault hold exactly the given payload for one row. Derived data
(sections' chunks and vectors, PII spans, statement vectors) is written by the caller,
which computed it before taking the write lock.
"""

from __future__ import annotations

import json
from typing import Any

from privault.store import documents, sections
from privault.store.connection import Connection
from privault.store.sync_read import DOCUMENT_FIELDS, SEP, STATEMENT_FIELDS


def defer_foreign_keys(conn: Connection) -> None:
    """Check foreign keys at commit, not per row: a merge writes children and parents in
    whatever order the other device's changes arrive."""
    conn.execute("PRAGMA defer_foreign_keys = ON")


def put_document(conn: Connection, doc_id: str, data: dict[str, Any]) -> None:
    """Insert or overwrite a document row and its tags (sections: `sections.replace_sections`)."""
    values = [data[name] for name in DOCUMENT_FIELDS]
    columns = ", ".join(DOCUMENT_FIELDS)
    updates = ", ".join(f"{name} = excluded.{name}" for name in (*DOCUMENT_FIELDS, "metadata"))
    marks = ", ".join("?" * (len(values) + 2))
    conn.execute(
        f"INSERT INTO documents (id, {columns}, metadata) VALUES ({marks})"
        f" ON CONFLICT (id) DO UPDATE SET {updates}",
        (doc_id, *values, json.dumps(data["metadata"])),
    )
    documents.set_tags(conn, doc_id, data["tags"])


def unindex_document(conn: Connection, doc_id: str) -> None:
    """Take an older version's sections out of the search index (it stays readable)."""
    ids = [sid for (sid,) in conn.execute("SELECT id FROM sections WHERE doc_id = ?", (doc_id,))]
    sections.drop_index(conn, ids)


def delete_document(conn: Connection, doc_id: str, deleted_at: int) -> list[str]:
    """Apply a tombstone: the document and every version after it go; returns what went.

    Versions after it go too (a page that changed on another device after this one forgot
    it): forgetting a document forgets what grew from it. Each gets a tombstone.
    """
    newer = [
        found
        for (found,) in conn.execute(
            "WITH RECURSIVE later(id) AS (SELECT id FROM documents WHERE previous_id = ?"
            " UNION SELECT d.id FROM documents d JOIN later l ON d.previous_id = l.id)"
            " SELECT id FROM later",
            (doc_id,),
        )
    ]
    gone = []
    for version in [*reversed(newer), doc_id]:
        ids = [
            sid for (sid,) in conn.execute("SELECT id FROM sections WHERE doc_id = ?", (version,))
        ]
        sections.drop_index(conn, ids)
        cursor = conn.execute("DELETE FROM documents WHERE id = ?", (version,))
        if cursor.rowcount:
            gone.append(version)
        conn.execute(
            "INSERT INTO tombstones (kind, id, deleted_at) VALUES ('document', ?, ?)"
            " ON CONFLICT (kind, id) DO UPDATE SET deleted_at = excluded.deleted_at",
            (version, deleted_at),
        )
    return gone


def is_tombstoned(conn: Connection, doc_id: str) -> int | None:
    """When the document was forgotten, or None."""
    found = conn.execute(
        "SELECT deleted_at FROM tombstones WHERE kind = 'document' AND id = ?", (doc_id,)
    ).fetchone()
    return int(found[0]) if found else None


def exists(conn: Connection, kind: str, row_id: str) -> bool:
    """Whether a document or statement is in the vault, or the document was forgotten:
    either way, a row that points at it need not wait for it."""
    table = {"document": "documents", "statement": "statements"}[kind]
    if conn.execute(f"SELECT 1 FROM {table} WHERE id = ?", (row_id,)).fetchone():
        return True
    return kind == "document" and is_tombstoned(conn, row_id) is not None


_STATEMENT_MUTABLE = (
    "valid_to",
    "invalidated_at",
    "invalidation_reason",
    "superseded_by",
    "revised_by",
)


def put_statement(conn: Connection, statement_id: str, data: dict[str, Any]) -> int | None:
    """Insert a statement version, or update the fields that may change after insert
    (its window end, revision and supersede links). Returns the new row's seq, or None
    when the statement was already there (its content never changes)."""
    found = conn.execute("SELECT seq FROM statements WHERE id = ?", (statement_id,)).fetchone()
    if found:
        sets = ", ".join(f"{name} = ?" for name in _STATEMENT_MUTABLE)
        conn.execute(
            f"UPDATE statements SET {sets} WHERE id = ?",
            (*(data[name] for name in _STATEMENT_MUTABLE), statement_id),
        )
        return None
    columns = ", ".join(STATEMENT_FIELDS)
    marks = ", ".join("?" * len(STATEMENT_FIELDS))
    cursor = conn.execute(
        f"INSERT INTO statements (id, {columns}) VALUES (?, {marks})",
        (statement_id, *(data[name] for name in STATEMENT_FIELDS)),
    )
    conn.executemany(
        "INSERT OR IGNORE INTO statement_entities (statement_id, key, name, position, kind)"
        " VALUES (?, ?, ?, ?, ?)",
        [(statement_id, *entity) for entity in data["entities"]],
    )
    return int(cursor.lastrowid or 0)


def put_statement_vector(conn: Connection, seq: int, vector: bytes) -> None:
    """A statement's embedding, keyed by its seq like the FTS row."""
    conn.execute(
        "INSERT OR REPLACE INTO statements_vec (rowid, embedding) VALUES (?, ?)", (seq, vector)
    )


def put_closure(conn: Connection, key: str, data: dict[str, Any]) -> None:
    """Add a closure (the log of window ends is append-only)."""
    if _closure_exists(conn, key):
        return
    conn.execute(
        "INSERT INTO statement_closures (statement_id, valid_to, recorded_at, reason)"
        " VALUES (?, ?, ?, ?)",
        (data["statement_id"], data["valid_to"], data["recorded_at"], data["reason"]),
    )


def _closure_exists(conn: Connection, key: str) -> bool:
    statement_id, recorded_at, valid_to = key.split(SEP)
    return (
        conn.execute(
            "SELECT 1 FROM statement_closures WHERE statement_id = ? AND recorded_at = ?"
            " AND valid_to = ?",
            (statement_id, int(recorded_at), int(valid_to)),
        ).fetchone()
        is not None
    )


def put_attestation(conn: Connection, key: str, data: dict[str, Any]) -> None:
    """Add an attestation (append-only)."""
    statement_id, recorded_at, attested_at, source = key.split(SEP)
    if conn.execute(
        "SELECT 1 FROM statement_attestations WHERE statement_id = ? AND recorded_at = ?"
        " AND attested_at = ? AND coalesce(source, '') = ?",
        (statement_id, int(recorded_at), int(attested_at), source),
    ).fetchone():
        return
    conn.execute(
        "INSERT INTO statement_attestations (statement_id, attested_at, recorded_at, source)"
        " VALUES (?, ?, ?, ?)",
        (data["statement_id"], data["attested_at"], data["recorded_at"], data["source"]),
    )


def put_dispute(conn: Connection, key: str, data: dict[str, Any]) -> None:
    """Add a dispute, or set whether and why it was settled."""
    a_id, b_id, recorded_at = key.split(SEP)
    cursor = conn.execute(
        "UPDATE statement_disputes SET reason = ?, settled_at = ?, settled_reason = ?"
        " WHERE a_id = ? AND b_id = ? AND recorded_at = ?",
        (data["reason"], data["settled_at"], data["settled_reason"], a_id, b_id, int(recorded_at)),
    )
    if cursor.rowcount == 0:
        conn.execute(
            "INSERT INTO statement_disputes (a_id, b_id, reason, recorded_at, settled_at,"
            " settled_reason) VALUES (?, ?, ?, ?, ?, ?)",
            (
                data["a_id"],
                data["b_id"],
                data["reason"],
                data["recorded_at"],
                data["settled_at"],
                data["settled_reason"],
            ),
        )


def put_shelf(conn: Connection, name: str, data: dict[str, Any] | None) -> None:
    """Make a shelf's row exactly `data` (None: no row). Access lists stay local."""
    if data is None:
        conn.execute("DELETE FROM shelves WHERE name = ?", (name,))
        return
    conn.execute(
        "INSERT INTO shelves (name, policy, restricted, private, created_at, seen)"
        " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET policy = excluded.policy,"
        " restricted = excluded.restricted, private = excluded.private,"
        " created_at = excluded.created_at, seen = excluded.seen",
        (
            name,
            data["policy"],
            data["restricted"],
            data["private"],
            data["created_at"],
            json.dumps(data["seen"], sort_keys=True),
        ),
    )


def set_shelf_seen(conn: Connection, name: str, seen: dict[str, str]) -> None:
    """Record which versions of a shelf the version being written had seen."""
    conn.execute(
        "UPDATE shelves SET seen = ? WHERE name = ?", (json.dumps(seen, sort_keys=True), name)
    )


def put_watch(
    conn: Connection, watch_id: str, data: dict[str, Any] | None, now: int, *, runs_here: bool
) -> None:
    """Make a watch's definition `data`. A watch new to this device gets no next run: it
    keeps running on the device that made it, so nothing is fetched or filed twice. One
    held here stops running here unless `runs_here` (the caller decides whether a changed
    target may be reached from this device)."""
    if data is None:
        conn.execute("DELETE FROM watches WHERE id = ?", (watch_id,))
        return
    options = json.dumps(data["options"])
    cursor = conn.execute(
        "UPDATE watches SET kind = ?, target = ?, schedule = ?, shelf = ?, status = ?,"
        " allow_private = ?, max_catchup = ?, options = ?, created_at = ?, author = ?,"
        " updated_at = ?,"
        " next_run_at = CASE WHEN ? IN ('cancelled', 'finished') OR NOT ? THEN NULL"
        "  ELSE next_run_at END"
        " WHERE id = ?",
        (
            data["kind"],
            data["target"],
            data["schedule"],
            data["shelf"],
            data["status"],
            data["allow_private"],
            data["max_catchup"],
            options,
            data["created_at"],
            data["author"],
            now,
            data["status"],
            int(runs_here),
            watch_id,
        ),
    )
    if cursor.rowcount == 0:
        conn.execute(
            "INSERT INTO watches (id, kind, target, schedule, shelf, status, allow_private,"
            " max_catchup, options, next_run_at, created_at, author, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)",
            (
                watch_id,
                data["kind"],
                data["target"],
                data["schedule"],
                data["shelf"],
                data["status"],
                data["allow_private"],
                data["max_catchup"],
                options,
                data["created_at"],
                data["author"],
                now,
            ),
        )


def put_pii_override(conn: Connection, key: str, data: dict[str, Any] | None) -> None:
    """Make one owner override exactly `data` (None: taken back)."""
    doc_id, node_id, value = key.split(SEP)
    conn.execute(
        "DELETE FROM pii_overrides WHERE doc_id = ? AND coalesce(node_id, '') = ?"
        " AND lower(value) = ?",
        (doc_id, node_id, value),
    )
    if data is not None:
        conn.execute(
            "INSERT INTO pii_overrides (doc_id, node_id, kind, value, action, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (
                data["doc_id"],
                data["node_id"],
                data["kind"],
                data["value"],
                data["action"],
                data["created_at"],
            ),
        )
