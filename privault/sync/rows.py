"""Synced rows as values, and the rules that decide between two versions of one row.

A row is (kind, stable id, clock, origin device, payload). The payload is the row's whole
canonical content as JSON-ready data, or None when the row was removed (an owner override
taken back, a shelf row dropped). Documents are never removed by a None payload: forgetting
writes a tombstone, and tombstones are rows of their own.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from privault.errors import InputError
from privault.store.sync_read import DOCUMENT_FIELDS, STATEMENT_FIELDS
from privault.sync.hlc import Stamp
from privault.sync.row_bounds import as_stored, check_bounds
from privault.sync.shapes import DEVICE_ID, STAMP, check_row, shown

# Import order inside one batch: what others point at comes first.
KINDS = (
    "shelf",
    "tombstone",
    "document",
    "pii_override",
    "statement",
    "closure",
    "attestation",
    "dispute",
    "watch",
)


# The keys each kind's payload must carry (see `privault.store.sync_read`).
REQUIRED: dict[str, frozenset[str]] = {
    "shelf": frozenset({"policy", "restricted", "private", "created_at", "seen"}),
    "tombstone": frozenset({"deleted_at"}),
    "document": frozenset({*DOCUMENT_FIELDS, "metadata", "tags", "sections"}),
    "pii_override": frozenset({"doc_id", "node_id", "kind", "value", "action", "created_at"}),
    # A statement version is exactly its row plus its entities.
    "statement": frozenset({*STATEMENT_FIELDS, "entities"}),
    "closure": frozenset({"statement_id", "valid_to", "recorded_at", "reason"}),
    "attestation": frozenset({"statement_id", "attested_at", "recorded_at", "source"}),
    "dispute": frozenset({"a_id", "b_id", "reason", "recorded_at", "settled_at", "settled_reason"}),
    "watch": frozenset(
        {
            "kind",
            "target",
            "schedule",
            "shelf",
            "status",
            "allow_private",
            "max_catchup",
            "options",
            "created_at",
            "author",
        }
    ),
}


@dataclass(frozen=True)
class Row:
    """One synced row."""

    kind: str
    id: str
    hlc: str
    origin: str
    payload: dict[str, Any] | None

    @property
    def stamp(self) -> Stamp:
        """The clock value, parsed."""
        return Stamp.parse(self.hlc)

    def as_list(self) -> list[Any]:
        """The compact list form stored in bundles."""
        return [self.kind, self.id, self.hlc, self.origin, self.payload]

    @classmethod
    def from_list(cls, item: Any) -> Row:
        """A row from its list form; InputError, naming the row, for anything malformed:
        a wrong type or an id of the wrong shape anywhere (see `privault.sync.shapes`), or
        `RowRefused` for a well-shaped row outside a local write's bounds; a document's
        title is stored as a local write stores it (`privault.sync.row_bounds`)."""
        if not isinstance(item, list) or len(item) != 5:
            raise InputError("a bundle row is not a 5-item list")
        kind, row_id, hlc, origin, payload = item
        if not isinstance(kind, str) or kind not in KINDS:
            raise InputError(f"a bundle row has an unknown kind {shown(kind)}")
        if not isinstance(row_id, str) or not row_id:
            raise InputError(f"a {kind} row has no id")
        if not isinstance(origin, str) or not DEVICE_ID.match(origin):
            raise InputError(f"{kind} row {shown(row_id)}: its origin is not a device id")
        if not isinstance(hlc, str) or not STAMP.match(hlc):
            raise InputError(f"{kind} row {shown(row_id)}: its clock is not a clock value")
        if payload is not None and not isinstance(payload, dict):
            raise InputError(f"{kind} row {shown(row_id)}: payload is not an object")
        if kind == "shelf" and isinstance(payload, dict) and "seen" not in payload:
            payload = {**payload, "seen": {}}  # written before shelves kept their history
        if payload is not None and set(payload) != REQUIRED[kind]:
            raise InputError(f"{kind} row {shown(row_id)}: payload fields do not match its kind")
        check_row(kind, row_id, payload)
        check_bounds(kind, row_id, hlc, payload)
        return cls(kind, row_id, hlc, origin, as_stored(kind, payload))


def content_hash(payload: dict[str, Any] | None) -> str:
    """sha256 of a payload's canonical JSON; '' for a removed row."""
    if payload is None:
        return ""
    return hashlib.sha256(
        json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()


def newer(incoming: Row, hlc: str | None) -> bool:
    """Whether `incoming` beats a version with clock `hlc` (None: no version yet).

    Clock texts sort like the clocks, and they end with the device id, so two different
    changes never tie: every device picks the same winner.
    """
    return hlc is None or incoming.hlc > hlc


def references(row: Row) -> list[tuple[str, str]]:
    """(kind, id) of the rows this row points at, which must exist before it is applied."""
    data = row.payload
    if data is None:
        return []
    if row.kind == "document":
        return [("document", data["previous_id"])] if data.get("previous_id") else []
    if row.kind == "statement":
        return [
            ("statement", data[name])
            for name in ("supersedes", "superseded_by", "revises", "revised_by")
            if data.get(name)
        ]
    if row.kind in ("closure", "attestation"):
        return [("statement", data["statement_id"])]
    if row.kind == "dispute":
        return [("statement", data["a_id"]), ("statement", data["b_id"])]
    return []
