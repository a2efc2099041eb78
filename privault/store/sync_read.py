"""Each synced row's canonical content, read from the vault's own tables.

The payload of a row is everything another device needs to rebuild it, and nothing that
is derived (chunks, vectors, PII spans: recomputed on import) or local to one device
(watch run state, integer row ids, agents and their access lists, the audit log).
Payloads are plain JSON data, so their hash is stable across devices and versions.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from privault.store.connection import Connection, row

SEP = "\x1f"  # joins the parts of a child row's stable id (see migration m010)
Payload = dict[str, Any] | None

# Fixed column lists, one per synced table: a payload's keys never reach SQL text, and the
# columns read for another device are the columns written from its rows.
# A document row's columns another device needs (its metadata, tags and sections follow).
DOCUMENT_FIELDS = (
    "kind",
    "title",
    "source",
    "shelf",
    "content_hash",
    "body",
    "created_at",
    "updated_at",
    "untrusted",
    "previous_id",
    "current",
    "author",  # who wrote it: '' for the owner (agent text is gated in a scope of its own)
)

# A statement version's columns another device needs (its entities follow).
STATEMENT_FIELDS = (
    "chain_id",
    "content",
    "source",
    "salience",
    "confidence",
    "occurred_at",
    "valid_from",
    "valid_to",
    "recorded_at",
    "invalidated_at",
    "invalidation_reason",
    "supersedes",
    "superseded_by",
    "revises",
    "revised_by",
    "metadata",
    "shelf",  # statements live on shelves: visibility and policy travel with them
    "author",
)


def _document(conn: Connection, doc_id: str) -> Payload:
    found = row(
        conn,
        f"SELECT {', '.join(DOCUMENT_FIELDS)}, metadata FROM documents WHERE id = ?",
        (doc_id,),
    )
    if found is None:
        return None
    found["metadata"] = json.loads(found["metadata"])
    found["tags"] = [
        tag
        for (tag,) in conn.execute(
            "SELECT tag FROM document_tags WHERE doc_id = ? ORDER BY tag", (doc_id,)
        )
    ]
    found["sections"] = [
        [node, parent, position, depth, heading, json.loads(crumb), text, start, end]
        for node, parent, position, depth, heading, crumb, text, start, end in conn.execute(
            "SELECT node_id, parent_node, position, depth, heading, breadcrumb, text, start, end"
            " FROM sections WHERE doc_id = ? ORDER BY position",
            (doc_id,),
        )
    ]
    return found


def _tombstone(conn: Connection, doc_id: str) -> Payload:
    return row(
        conn,
        "SELECT deleted_at FROM tombstones WHERE kind = 'document' AND id = ?",
        (doc_id,),
    )


def _statement(conn: Connection, statement_id: str) -> Payload:
    found = row(
        conn,
        f"SELECT {', '.join(STATEMENT_FIELDS)} FROM statements WHERE id = ?",
        (statement_id,),
    )
    if found is None:
        return None
    found["entities"] = [
        [key, name, position, kind]
        for key, name, position, kind in conn.execute(
            "SELECT key, name, position, kind FROM statement_entities WHERE statement_id = ?"
            " ORDER BY position",
            (statement_id,),
        )
    ]
    return found


def _closure(conn: Connection, key: str) -> Payload:
    statement_id, recorded_at, valid_to = key.split(SEP)
    return row(
        conn,
        "SELECT statement_id, valid_to, recorded_at, reason FROM statement_closures"
        " WHERE statement_id = ? AND recorded_at = ? AND valid_to = ? ORDER BY id LIMIT 1",
        (statement_id, int(recorded_at), int(valid_to)),
    )


def _attestation(conn: Connection, key: str) -> Payload:
    statement_id, recorded_at, attested_at, source = key.split(SEP)
    return row(
        conn,
        "SELECT statement_id, attested_at, recorded_at, source FROM statement_attestations"
        " WHERE statement_id = ? AND recorded_at = ? AND attested_at = ?"
        " AND coalesce(source, '') = ? ORDER BY id LIMIT 1",
        (statement_id, int(recorded_at), int(attested_at), source),
    )


def _dispute(conn: Connection, key: str) -> Payload:
    a_id, b_id, recorded_at = key.split(SEP)
    return row(
        conn,
        "SELECT a_id, b_id, reason, recorded_at, settled_at, settled_reason"
        " FROM statement_disputes WHERE a_id = ? AND b_id = ? AND recorded_at = ?"
        " ORDER BY id LIMIT 1",
        (a_id, b_id, int(recorded_at)),
    )


def _shelf(conn: Connection, name: str) -> Payload:
    found = row(
        conn,
        "SELECT policy, restricted, private, created_at, seen FROM shelves WHERE name = ?",
        (name,),
    )
    if found is not None:
        found["seen"] = json.loads(found["seen"])
    return found


def _watch(conn: Connection, watch_id: str) -> Payload:
    found = row(
        conn,
        "SELECT kind, target, schedule, shelf, status, allow_private, max_catchup, options,"
        " created_at, author FROM watches WHERE id = ?",
        (watch_id,),
    )
    if found is not None:
        found["options"] = json.loads(found["options"])
    return found


def _pii_override(conn: Connection, key: str) -> Payload:
    doc_id, node_id, value = key.split(SEP)
    return row(
        conn,
        "SELECT doc_id, node_id, kind, value, action, created_at FROM pii_overrides"
        " WHERE doc_id = ? AND coalesce(node_id, '') = ? AND lower(value) = ?",
        (doc_id, node_id, value),
    )


READERS: dict[str, Callable[[Connection, str], Payload]] = {
    "document": _document,
    "tombstone": _tombstone,
    "statement": _statement,
    "closure": _closure,
    "attestation": _attestation,
    "dispute": _dispute,
    "shelf": _shelf,
    "watch": _watch,
    "pii_override": _pii_override,
}

_ALL_IDS = {
    "document": "SELECT id FROM documents",
    "tombstone": "SELECT id FROM tombstones WHERE kind = 'document'",
    "statement": "SELECT id FROM statements",
    "closure": "SELECT statement_id || char(31) || recorded_at || char(31) || valid_to"
    " FROM statement_closures",
    "attestation": "SELECT statement_id || char(31) || recorded_at || char(31) || attested_at"
    " || char(31) || coalesce(source, '') FROM statement_attestations",
    "dispute": "SELECT a_id || char(31) || b_id || char(31) || recorded_at FROM statement_disputes",
    "shelf": "SELECT name FROM shelves",
    "watch": "SELECT id FROM watches",
    "pii_override": "SELECT doc_id || char(31) || coalesce(node_id, '') || char(31) ||"
    " lower(value) FROM pii_overrides",
}


def payload(conn: Connection, kind: str, row_id: str) -> Payload:
    """The canonical content of one synced row, or None when it is not in the vault."""
    return READERS[kind](conn, row_id)


def all_ids(conn: Connection, kind: str) -> list[str]:
    """Every stable id of one kind present in the vault, sorted."""
    return sorted({found for (found,) in conn.execute(_ALL_IDS[kind])})


def dump(conn: Connection) -> dict[str, dict[str, Any]]:
    """Every synced row's payload by kind and id: what two converged vaults agree on."""
    return {
        kind: {row_id: payload(conn, kind, row_id) for row_id in all_ids(conn, kind)}
        for kind in READERS
    }
