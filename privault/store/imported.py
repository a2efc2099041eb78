"""Rows of `imported_items` and `imported_links` (see migration 14): what an import of
another app's export wrote, so the next import of it updates, skips and never duplicates."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from privault.store.connection import Connection, in_batches, rows


@dataclass(frozen=True)
class ImportedItem:
    """One item imported before: where it came from and what it became."""

    kind: str
    source_key: str
    scope: str
    shelf: str
    item_hash: str
    doc_id: str | None = None
    chain_id: str | None = None
    statement_id: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)


_COLUMNS = "kind, source_key, scope, shelf, item_hash, doc_id, chain_id, statement_id, detail"


def _item(data: dict[str, Any]) -> ImportedItem:
    return ImportedItem(**{**data, "detail": json.loads(data["detail"] or "{}")})


def get_many(conn: Connection, kind: str, keys: Sequence[str]) -> dict[str, ImportedItem]:
    """The items of `kind` imported before among `keys`, by key."""
    found: dict[str, ImportedItem] = {}
    for batch, marks in in_batches(list(dict.fromkeys(keys))):
        for data in rows(
            conn,
            f"SELECT {_COLUMNS} FROM imported_items WHERE kind = ? AND source_key IN ({marks})",
            [kind, *batch],
        ):
            found[data["source_key"]] = _item(data)
    return found


def held_hash(conn: Connection, kind: str, key: str) -> str | None:
    """The stored digest of an item whose document or statement still exists, else None
    (asked once per item when importing again: one primary-key lookup)."""
    found = conn.execute(
        "SELECT item_hash FROM imported_items WHERE kind = ? AND source_key = ? "
        "AND (doc_id IS NOT NULL OR statement_id IS NOT NULL)",
        (kind, key),
    ).fetchone()
    return str(found[0]) if found else None


def record(conn: Connection, item: ImportedItem, now: int) -> None:
    """Insert or update an item's row (call inside the write transaction)."""
    conn.execute(
        f"INSERT INTO imported_items ({_COLUMNS}, imported_at, seen_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (kind, source_key) DO UPDATE SET "
        "scope = excluded.scope, shelf = excluded.shelf, item_hash = excluded.item_hash, "
        "doc_id = excluded.doc_id, chain_id = excluded.chain_id, "
        "statement_id = excluded.statement_id, detail = excluded.detail, "
        "imported_at = excluded.imported_at, seen_at = excluded.seen_at",
        (
            item.kind,
            item.source_key,
            item.scope,
            item.shelf,
            item.item_hash,
            item.doc_id,
            item.chain_id,
            item.statement_id,
            json.dumps(item.detail, sort_keys=True),
            now,
            now,
        ),
    )


def in_scopes(conn: Connection, kind: str, scopes: Iterable[str]) -> list[ImportedItem]:
    """Every item of `kind` imported from these scopes whose document or statement still
    exists, by key."""
    wanted = sorted(set(scopes))
    if not wanted:
        return []
    marks = ",".join("?" * len(wanted))
    return [
        _item(data)
        for data in rows(
            conn,
            f"SELECT {_COLUMNS} FROM imported_items WHERE kind = ? AND scope IN ({marks}) "
            "AND (doc_id IS NOT NULL OR statement_id IS NOT NULL) ORDER BY source_key",
            [kind, *wanted],
        )
    ]


def forget(conn: Connection, kind: str, source_key: str) -> None:
    """Drop an item's row (after its document or statement was pruned)."""
    conn.execute("DELETE FROM imported_items WHERE kind = ? AND source_key = ?", (kind, source_key))


def adopt(conn: Connection, doc_id: str, source: str) -> None:
    """Give a document another source: a file added before with `privault add` is the
    same document when its folder is imported (an Obsidian vault), not a second copy."""
    conn.execute("UPDATE documents SET source = ? WHERE id = ?", (source, doc_id))


def replace_links(conn: Connection, doc_id: str, links: Iterable[tuple[str, str]]) -> None:
    """A document's outgoing links as (label, target source), replacing the old ones."""
    conn.execute("DELETE FROM imported_links WHERE doc_id = ?", (doc_id,))
    conn.executemany(
        "INSERT OR IGNORE INTO imported_links (doc_id, label, target) VALUES (?, ?, ?)",
        [(doc_id, label, target) for label, target in links],
    )


@dataclass(frozen=True)
class ResolvedLink:
    """A link of an imported document to a document the vault holds now."""

    label: str  # as written in the linking document
    doc_id: str
    node_id: str  # the target's first section: what `read` opens
    shelf: str


def resolved_links(conn: Connection, doc_id: str) -> list[ResolvedLink]:
    """A document's links whose target is a current document now (one imported after the
    linking one included)."""
    return [
        ResolvedLink(**data)
        for data in rows(
            conn,
            "SELECT l.label AS label, d.id AS doc_id, d.shelf AS shelf, "
            " (SELECT s.node_id FROM sections s WHERE s.doc_id = d.id ORDER BY s.position "
            "  LIMIT 1) AS node_id "
            "FROM imported_links l JOIN documents d ON d.source = l.target AND d.current = 1 "
            "WHERE l.doc_id = ? ORDER BY l.label, d.id",
            (doc_id,),
        )
        if data["node_id"] is not None
    ]
